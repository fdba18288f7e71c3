"""zCDP composition, seed 000 Cor. 3.7-3.8 for MG (and the Gaussian), converted to (eps, delta)-DP two ways.

``rho_tot = sum Delta_t^2 / (2 sigma_t^2)`` (exact rational). A rho-zCDP mechanism has Renyi divergence
D_alpha <= alpha rho for every alpha > 1, hence (eps, delta)-DP by

* the **standard** conversion (Bun & Steinke 2016, Prop. 1.3): ``eps = rho + 2 sqrt(rho log(1/delta))``;
* the **Canonne-Kamath-Steinke** conversion (CKS 2020, "The discrete Gaussian for differential
  privacy", Prop. 12 / Cor. 13): for *every* alpha > 1,
  ``delta = exp((alpha - 1)(alpha rho - eps)) / (alpha - 1) * (1 - 1/alpha)^alpha``, i.e.
  ``eps(alpha) = alpha rho + (log(1/delta) + alpha log(1 - 1/alpha) - log(alpha - 1)) / (alpha - 1)``.

Both are evaluated in Arb and rounded up. For CKS any alpha > 1 gives a valid bound, so a float
search only *chooses* alpha (a rational); the bound at that alpha is then certified -- it is an upper
bound of the best CKS epsilon, not the infimum itself. The better (smaller) of the two is reported as
``epsilon_total_upper``; CKS is never worse than the standard one at the optimum (it is at most
``rho + 2 sqrt(rho log(1/delta))`` at alpha = 1 + sqrt(log(1/delta)/rho)), but the certified choice
keeps whichever is smaller.
"""

from __future__ import annotations

import math
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

__all__ = ["zcdp_composition", "cks_epsilon_ball", "cks_alpha", "standard_epsilon_ball"]


def standard_epsilon_ball(rho: Fraction, delta: Fraction):
    """Arb ball of rho + 2 sqrt(rho log(1/delta)) at the current precision."""
    r = arb_of(rho)
    return r + 2 * (r * (1 / arb_of(delta)).log()).sqrt()


def cks_epsilon_ball(rho: Fraction, delta: Fraction, alpha: Fraction):
    """Arb ball of the CKS epsilon at one exact alpha > 1 (any alpha gives a valid (eps, delta) bound)."""
    if not alpha > 1:
        raise ValueError("alpha must be > 1")
    a = arb_of(alpha)
    am1 = arb_of(alpha - 1)
    log_term = (1 / arb_of(delta)).log() + a * arb_of(Fraction(alpha - 1, 1) / alpha).log() - am1.log()
    return a * arb_of(rho) + log_term / am1


def cks_alpha(rho: Fraction, delta: Fraction) -> Fraction:
    """A float-chosen alpha > 1 near the CKS optimum, as an exact rational (a guess; any alpha > 1 is valid)."""
    r, ld = float(rho), -math.log(float(delta)) if float(delta) > 0 else 700.0

    def eps_of(log_am1: float) -> float:
        am1 = math.exp(log_am1)
        a = 1 + am1
        return a * r + (ld + a * math.log(am1 / a) - log_am1) / am1

    lo, hi = -30.0, 30.0
    for _ in range(200):  # golden-section on log(alpha - 1): eps(alpha) is unimodal there
        m1, m2 = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if eps_of(m1) <= eps_of(m2):
            hi = m2
        else:
            lo = m1
    from decimal import Decimal

    am1 = Fraction(Decimal(f"{math.exp((lo + hi) / 2):.12g}"))  # a short decimal, so the record reads well
    if am1 <= 0:
        am1 = Fraction(1, 10**12)
    return 1 + am1


def zcdp_composition(sigmas: Sequence[object], sensitivities: Sequence[object], delta_total: object) -> dict:
    """Cor. 3.7-3.8: rho_tot and certified upper bounds on eps_tot (standard and CKS conversions).

    Valid for multi-Gaussian (any K) and Gaussian mechanisms (Cor. 3.7: rho = Delta^2/(2 sigma^2) by
    quasi-convexity of the Renyi divergence); NOT for the quasi-Gaussian (its zCDP is not shown).
    """
    if len(sigmas) != len(sensitivities) or not sigmas:
        raise InputError("sigmas", "need one sensitivity per sigma (and at least one)")
    sig = [parse_positive(s, "sigma") for s in sigmas]
    sen = [parse_positive(s, "sensitivity") for s in sensitivities]
    dt = parse_probability(delta_total, "delta_total")
    rho = sum((s2 * s2 / (2 * s1 * s1) for s1, s2 in zip(sig, sen)), Fraction(0))
    return zcdp_conversions(rho, dt)


def zcdp_conversions(rho: Fraction, delta: Fraction) -> dict:
    """Both conversions of rho-zCDP at ``delta`` (certified upper ends, 20 digits) and the better one."""
    alpha = cks_alpha(rho, delta)
    with working_precision(128):
        lo, hi = decimal_bounds(standard_epsilon_ball(rho, delta))
        _, cks_hi = decimal_bounds(cks_epsilon_ball(rho, delta, alpha))
    best = "cks" if Fraction(cks_hi) <= Fraction(hi) else "standard"
    return {"rho_total": exact_str(rho), "delta_total": exact_str(delta),
            "epsilon_total_upper": cks_hi if best == "cks" else hi, "conversion": best,
            "standard": {"epsilon_upper": hi, "formula_enclosure": [lo, hi],
                         "formula": "rho + 2 sqrt(rho log(1/delta)) (Bun-Steinke 2016 Prop. 1.3)"},
            "cks": {"epsilon_upper": cks_hi, "alpha": exact_str(alpha),
                    "formula": "alpha rho + (log(1/delta) + alpha log(1 - 1/alpha) - log(alpha - 1))/(alpha - 1) "
                               "(Canonne-Kamath-Steinke 2020 Prop. 12 / Cor. 13, any alpha > 1)"}}
