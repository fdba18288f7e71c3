"""zCDP composition, seed 000 Cor. 3.7-3.8 for MG (and the Gaussian):
``rho_tot = sum Delta_t^2 / (2 sigma_t^2)``, ``eps_tot = rho_tot + 2 sqrt(rho_tot log(1/delta_tot))``,
rounded up (certified upper bound).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from certdp.numbers import (
    InputError,
    arb_of,
    decimal_bounds,
    exact_str,
    parse_positive,
    parse_probability,
    working_precision,
)

__all__ = ["zcdp_composition"]


def zcdp_composition(sigmas: Sequence[object], sensitivities: Sequence[object], delta_total: object) -> dict[str, str]:
    """Cor. 3.7-3.8: rho_tot and a certified upper bound on eps_tot for the composition.

    Valid for multi-Gaussian (any K) and Gaussian mechanisms (Cor. 3.7: rho = Delta^2/(2 sigma^2) by
    quasi-convexity of the Renyi divergence); NOT for the quasi-Gaussian (its zCDP is not shown).
    """
    if len(sigmas) != len(sensitivities) or not sigmas:
        raise InputError("sigmas", "need one sensitivity per sigma (and at least one)")
    sig = [parse_positive(s, "sigma") for s in sigmas]
    sen = [parse_positive(s, "sensitivity") for s in sensitivities]
    dt = parse_probability(delta_total, "delta_total")
    rho = sum((s2 * s2 / (2 * s1 * s1) for s1, s2 in zip(sig, sen)), Fraction(0))

    with working_precision(128):
        r = arb_of(rho)
        eps_tot = r + 2 * (r * (1 / arb_of(dt)).log()).sqrt()
        lo, hi = decimal_bounds(eps_tot)
    return {"rho_total": exact_str(rho), "epsilon_total_upper": hi, "epsilon_total_lower": lo,
            "delta_total": exact_str(dt)}
