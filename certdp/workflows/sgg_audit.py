"""The R1SMG calibration of Ji & Li (2024, Thm. 5) as an auditable claim (seed 003, App. E).

Claim (Ji & Li 2024, USENIX Security, Theorem 5): the rank-1 singular
multivariate Gaussian mechanism in ``R^T`` (T >= 3) with

    psi(T, delta)    = (delta Gamma((T-1)/2) / (sqrt(pi) Gamma(T/2)))^(2/(T-2)),
    sigma_star(eps)  = 2 s^2 / (eps psi(T, delta)),

is (eps, delta)-DP.  Seed 003 App. E shows the proof analyses the wrong
angle, and Table 3 evaluates the true delta with Lemma 4.1: R1SMG noise is
SGG(alpha = 0, beta = 1/(2 sigma_star), p = 2) (half-normal radius along a
uniform direction).  ``certdp audit r1smg`` certifies that verdict: the claimed
``sigma_star`` is enclosed in an Arb ball and the true delta by the radial
engine, so VIOLATED means ``delta_true > delta`` is *proven*.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from flint import arb

from certdp.numbers import InputError, arb_of, working_precision
from certdp.workflows.claims import CLAIMS, Claim, register_claim

__all__ = ["r1smg_psi", "r1smg_sigma_star", "R1SMG_CLAIM", "TABLE3"]


def r1smg_psi(dimension: int, delta: Fraction) -> arb:
    """``psi(T, delta)`` of Ji & Li Thm. 5 as an Arb ball (current precision)."""
    T = int(dimension)
    if T < 3:
        raise InputError("dimension", "the Ji & Li R1SMG calibration needs T >= 3 (exponent 2/(T-2))")
    base = arb_of(delta) * (arb(T - 1) / 2).gamma() / (arb.pi().sqrt() * (arb(T) / 2).gamma())
    return base ** (arb(2) / (T - 2))


def r1smg_sigma_star(epsilon: Fraction, delta: Fraction, dimension: int = 3,
                     sensitivity: Fraction = Fraction(1), **_: Any) -> arb:
    """Claimed ``sigma_star = 2 s^2 / (eps psi(T, delta))`` (Ji & Li 2024, Thm. 5) as a ball."""
    s = arb_of(sensitivity)
    return 2 * s * s / (arb_of(epsilon) * r1smg_psi(dimension, delta))


R1SMG_CLAIM = Claim(
    name="r1smg",
    mechanism="r1smg",
    formula="sigma_star = 2 s^2 / (eps psi(T, delta)),  "
            "psi = (delta Gamma((T-1)/2) / (sqrt(pi) Gamma(T/2)))^(2/(T-2))",
    reference="Ji & Li 2024 (USENIX Security), Thm. 5; refuted in seed 003 App. E / Table 3",
    parameter_ball=r1smg_sigma_star,
    description="Rank-1 singular multivariate Gaussian calibration; the true delta is audited "
                "with the certified SGG radial engine (alpha = 0, p = 2, beta = 1/(2 sigma_star)).",
)
if "r1smg" not in CLAIMS:
    register_claim(R1SMG_CLAIM)


#: Seed 003 Table 3 (T = 128, s = 1, delta_claimed = 1e-5, psi = 0.798721): (eps, sigma_star, delta_true).
TABLE3 = (
    ("0.1", "25.040031", "0.813284"),
    ("1", "2.504003", "0.983594"),
    ("2", "1.252002", "0.995020"),
    ("4", "0.626001", "0.998804"),
    ("8", "0.313000", "0.999755"),
)
TABLE3_PSI = "0.798721"


def table3_rows(eta: float = 1e-9, bits: int = 128) -> list[dict[str, Any]]:
    """Recompute Table 3: claimed sigma_star and certified delta_true enclosures (eta-wide)."""
    from certdp.engines.radial import sgg_delta_enclosure

    rows = []
    with working_precision(bits):
        psi = r1smg_psi(128, Fraction(1, 10**5))
        for eps, sigma_paper, delta_paper in TABLE3:
            e = Fraction(eps)
            sigma = r1smg_sigma_star(e, Fraction(1, 10**5), 128, Fraction(1))
            enc = sgg_delta_enclosure(128, 0, 2, 1 / (2 * sigma), arb_of(e), 1, eta=eta)
            rows.append({"epsilon": eps, "psi": psi, "sigma_star": sigma, "sigma_paper": sigma_paper,
                         "delta_lower": enc.lower, "delta_upper": enc.upper, "delta_paper": delta_paper})
    return rows
