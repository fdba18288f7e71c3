"""Seed 003 Table 2: tangent-support conditions of the Gaussian privacy function, certified.

Independent checks with mpmath (50 digits): the sign of g'' by numerical
differentiation on both sides of the closed-form threshold u_c, and g - l on a
grid of [0, u0] (for the rows that hold) / at the certified witness (for the
rows that fail).
"""

from __future__ import annotations

import mpmath as mp
import pytest

from certdp.workflows.gaussian_optimality import TABLE2, check_tangent_support


def _g(u, e, s=1):
    return mp.ncdf(-e * mp.sqrt(u) / s + s / (2 * mp.sqrt(u))) - mp.exp(e) * mp.ncdf(-e * mp.sqrt(u) / s - s / (2 * mp.sqrt(u)))


EXPECTED_HOLDS = {"0.25": True, "0.5": False, "1": True, "2": True, "4": False, "8": False, "16": True}


@pytest.mark.parametrize("eps,delta", TABLE2)
def test_table2_row(eps, delta):
    res = check_tangent_support(eps, delta)
    assert res.convex_on_u0_inf == "proven"
    # the printed delta* is the exact threshold rounded to 6 decimals: it holds iff it was rounded down
    with mp.workdps(50):
        dmax_lo, dmax_hi = (mp.mpf(x) for x in res.delta_max)   # 20-digit outward-rounded decimals
        assert dmax_hi - dmax_lo < mp.mpf("1e-18")
        assert abs(dmax_lo - mp.mpf(delta)) <= mp.mpf("5e-7")
        assert res.holds == (mp.mpf(delta) <= dmax_lo)
    assert res.holds == EXPECTED_HOLDS[eps]
    with mp.workdps(50):
        e = mp.mpf(eps)
        uc = (mp.sqrt(9 + e * e) - 3) / (2 * e * e)
        assert mp.diff(lambda u: _g(u, e), uc * 0.9, 2) < 0 < mp.diff(lambda u: _g(u, e), uc * 1.1, 2)
        u0 = mp.findroot(lambda u: _g(u, e) - mp.mpf(delta), mp.mpf(res.u0[0]))
        gp = mp.diff(lambda u: _g(u, e), u0)
        tangent = lambda u: mp.mpf(delta) + gp * (u - u0)  # noqa: E731
        if res.holds:
            for i in range(1, 200):
                u = u0 * i / 200
                assert _g(u, e) - tangent(u) > -mp.mpf("1e-30")
        else:
            u = mp.mpf(res.witness["u"])
            assert _g(u, e) - tangent(u) < 0
