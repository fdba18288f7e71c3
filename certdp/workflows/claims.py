"""Registry of named published calibrations ("claims") that certdp can audit.

A claim maps (epsilon, delta, fixed parameters) to the parameter value some
paper or library says is (epsilon, delta)-DP. The value is computed as an Arb
ball (formulas such as sqrt(2 ln(1.25/delta)) are irrational), so the audit
verdict is about the exact claimed value.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from flint import arb

from certdp.numbers import InputError, arb_of

__all__ = ["Claim", "register_claim", "get_claim", "claim_names", "CLAIMS"]


@dataclass(frozen=True)
class Claim:
    """A published calibration rule.

    ``parameter_ball(epsilon, delta, **fixed)`` returns a ball containing the
    claimed parameter at the current working precision.
    """

    name: str
    mechanism: str
    formula: str
    reference: str
    parameter_ball: Callable[..., arb]
    description: str = ""


CLAIMS: dict[str, Claim] = {}


def register_claim(claim: Claim) -> Claim:
    if claim.name in CLAIMS:
        raise ValueError(f"claim {claim.name!r} registered twice")
    CLAIMS[claim.name] = claim
    return claim


def get_claim(name: str) -> Claim:
    try:
        return CLAIMS[name]
    except KeyError:
        raise InputError("claim", f"unknown claim {name!r} (known: {', '.join(sorted(CLAIMS))})") from None


def claim_names() -> list[str]:
    return sorted(CLAIMS)


def _classic_gaussian_sigma(epsilon: Fraction, delta: Fraction, sensitivity: Fraction = Fraction(1),
                            **_: Any) -> arb:
    return arb_of(sensitivity) * (2 * (arb(5) / 4 / arb_of(delta)).log()).sqrt() / arb_of(epsilon)


register_claim(Claim(
    name="classic-gaussian",
    mechanism="gaussian",
    formula="sigma = Delta * sqrt(2 ln(1.25/delta)) / epsilon",
    reference="Dwork & Roth 2014, Thm. A.1 (proved only for epsilon < 1)",
    parameter_ball=_classic_gaussian_sigma,
    description="The textbook Gaussian calibration; known to fail for large epsilon.",
))
