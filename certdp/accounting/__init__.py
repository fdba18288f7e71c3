"""Certified privacy accounting: composition of many mechanisms (privacy-loss distributions).

``certdp.accounting.account(plan, epsilon=...)`` -> :class:`~certdp.accounting.accountant.Composition`
with a certified delta (or epsilon) enclosure. See ``docs/accounting.md``.
"""

from certdp.accounting.accountant import Composition, account, gdp_mu_squared
from certdp.accounting.plan import Plan, parse_plan

__all__ = ["account", "Composition", "Plan", "parse_plan", "gdp_mu_squared"]
