"""Workflow, Tables 3-4 audit of printed values (:mod:`certdp.workflows.mixtures.tables_mg`).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from mg_reference import sixty_digits, _mp, MGShiftRef  # noqa: F401  (sixty_digits: autouse fixture)


def test_audit_printed_cell_violated_witness_checked_by_mpmath():
    """Printed Table 4 value at (delta = 5e-7, eps = 4, K = 9): the implied sigma is re-derived here
    with mpmath from the printed 94.54 % and the analytic-Gaussian sigma (50 digits), and the
    engine's VIOLATED witness shift is re-evaluated by the independent mpmath reference."""
    from certdp.workflows.mixtures.tables_mg import audit_printed_cell

    res = audit_printed_cell(0, 7, timeout=120)
    assert res["verdict"] == "VIOLATED", res
    sig = Fraction(res["implied_sigma"])
    # independent implied sigma: a = sigma_G^2 (mpmath bisection of the Balle-Wang profile)
    mpmath.mp.dps = 50
    e, d = mpmath.mpf(4), mpmath.mpf("5e-7")

    def bw(s):
        return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s) - d

    s_g = mpmath.findroot(bw, (mpmath.mpf("0.3"), mpmath.mpf("2")), solver="bisect", tol=1e-40)
    ks = range(-9, 10)
    z = mpmath.fsum(mpmath.exp(-abs(k) * e) for k in ks)
    floor_ = mpmath.fsum(mpmath.exp(-abs(k) * e) * k * k for k in ks) / z
    s_ref = mpmath.sqrt(s_g ** 2 * (1 - mpmath.mpf("0.9454")) - floor_)
    assert abs(_mp(sig) - s_ref) <= 1e-9 * s_ref
    ref = MGShiftRef(sig, 4, 9, Fraction(res["witness_shift"]).limit_denominator(2**40)).hockey_stick()
    assert ref > mpmath.mpf("5e-7")
    assert _mp(Fraction(res["delta_lower"])) <= ref * (1 + mpmath.mpf("1e-12"))


def test_implied_sigma_impossible_is_checked_exactly():
    """(delta = 5e-3, eps = 1, K = 13, printed 58.95 %): the implied l2 loss is below the l2 loss of
    MG at sigma = 0 (sum_k p_k k^2, mpmath); K = 5 admits a positive sigma (so not for every K)."""
    from certdp.workflows.mixtures.tables_mg import implied_sigma

    kind, (m_up, floor_lo, every_k) = implied_sigma("1", "5e-3", 13, 58.95)
    mpmath.mp.dps = 50
    ks = range(-13, 14)
    floor_ = mpmath.fsum(mpmath.exp(-abs(k)) * k * k for k in ks) / mpmath.fsum(mpmath.exp(-abs(k)) for k in ks)
    assert kind == "impossible" and not every_k
    assert m_up < floor_ and abs(floor_lo - floor_) < 1e-12
    assert implied_sigma("1", "5e-3", 5, 58.95)[0] == "sigma"
