"""Radial engine (seed 003 Lemma 4.1): certified enclosures vs independent 50-digit mpmath quadrature.

The reference below is independent of certdp: mpmath at 50 digits, the
*direct* form of the privacy loss (``q = r^2 + 2 s w r + s^2``, no log1p /
expm1 rewriting), ``w*`` by bisection, ``F_W`` by mpmath's regularized
incomplete beta, and tanh-sinh quadrature in the variable ``v = z^k`` (``z =
beta r^p``), which removes the ``z^(k-1)`` endpoint singularity of the Gamma
density (``k < 1``: e.g. R1SMG has ``k = 1/2``, a ``t^(-1/2)`` singularity).
The integration range is split at the breakpoints where ``w*`` reaches
``+-1`` (located by bisection) so that the quadrature only sees smooth pieces.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb

from certdp.engines.radial import fw_cdf, sgg_delta_enclosure
from certdp.numbers import working_precision


# ----------------------------------------------------------------------------- reference (mpmath)
QUAD_DEGREE = 5


def mp_sgg_delta(T, alpha, p, beta, eps, s, dps=50, z_lo=None):
    """Lemma 4.1 at ``dps`` digits by tanh-sinh quadrature; returns (delta, error estimate).

    The breakpoint scan starts at ``z_lo`` (default ``1e-8``; a tiny ``beta s^p`` needs a lower
    start, e.g. R1SMG at sigma_star ~ 1e25)."""
    with mp.workdps(dps):
        T = int(T)
        alpha, p, beta, eps, s = (mp.mpf(Fraction(x).numerator) / Fraction(x).denominator
                                  for x in (alpha, p, beta, eps, s))
        k = (alpha + 1) / p
        c1 = (alpha + 1 - T) / 2
        a = mp.mpf(T - 1) / 2

        def phi(r, w):
            q = r * r + 2 * s * w * r + s * s
            if q <= 0:
                return mp.inf if c1 < 0 else beta * r ** p
            return c1 * mp.log(q / (r * r)) + beta * (r ** p - q ** (p / 2))

        def wstar(r, y):
            if phi(r, 1) >= y:
                return mp.mpf(1)
            if phi(r, -1) <= y:
                return mp.mpf(-1)
            lo, hi = mp.mpf(-1), mp.mpf(1)
            for _ in range(24):           # bisection to a small bracket, then safeguarded Newton
                mid = (lo + hi) / 2
                if phi(r, mid) >= y:
                    lo = mid
                else:
                    hi = mid
            w = (lo + hi) / 2
            for _ in range(12):
                q = r * r + 2 * s * w * r + s * s
                dphi = 2 * s * r * (c1 / q - beta * p / 2 * q ** (p / 2 - 1))
                w_new = w - (phi(r, w) - y) / dphi
                if not lo <= w_new <= hi:
                    w_new = (lo + hi) / 2
                if abs(w_new - w) < mp.mpf(10) ** (-dps - 5):
                    return w_new
                w = w_new
            return w

        def fw(w):
            return mp.betainc(a, a, 0, (w + 1) / 2, regularized=True)

        def r_of_v(v):
            z = v ** (1 / k)
            return z, (z / beta) ** (1 / p)

        def integrand(v, y, minus):
            if v <= 0:
                return mp.mpf(0)
            z, r = r_of_v(v)
            g = fw(wstar(r, y))
            if minus:
                g = 1 - g
            return mp.exp(-z) * g / mp.gamma(k + 1)

        # breakpoints in v where phi(r, +-1) = y, found by scanning + bisection
        zmax = mp.mpf(80 + 4 * float(k))
        vmax = zmax ** k
        zl = mp.mpf(10) ** -8 if z_lo is None else mp.mpf(Fraction(z_lo).numerator) / Fraction(z_lo).denominator
        grid = [(zl * (zmax / zl) ** (mp.mpf(i) / 600)) ** k for i in range(0, 601)]
        breaks = set()
        for y in (eps, -eps):
            for wb in (1, -1):
                f = lambda v: phi(r_of_v(v)[1], wb) - y  # noqa: E731
                prev_v, prev = grid[0], f(grid[0])
                for v in grid[1:]:
                    cur = f(v)
                    if (prev - 0) * (cur - 0) < 0 and mp.isfinite(prev) and mp.isfinite(cur):
                        lo, hi = prev_v, v
                        for _ in range(200):
                            mid = (lo + hi) / 2
                            if (f(mid) < 0) == (prev < 0):
                                lo = mid
                            else:
                                hi = mid
                        breaks.add((lo + hi) / 2)
                    prev_v, prev = v, cur
        # r = s / beta^0 : where q(r, -1) = (r - s)^2 vanishes (kink of w* when alpha = T-1)
        v_s = (beta * s ** p) ** k
        if v_s < vmax:
            breaks.add(v_s)
        pts = [mp.mpf(0)] + sorted(breaks) + [vmax, mp.inf]
        A, ea = mp.quad(lambda v: integrand(v, -eps, True), pts, error=True, maxdegree=QUAD_DEGREE)
        B, eb = mp.quad(lambda v: integrand(v, eps, False), pts, error=True, maxdegree=QUAD_DEGREE)
        d = A - mp.exp(eps) * B
        return max(d, mp.mpf(0)), ea + mp.exp(eps) * eb


def gaussian_delta_mp(eps, delta_over_sigma, dps=50):
    with mp.workdps(dps):
        e, D = (mp.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in (eps, delta_over_sigma))
        return mp.ncdf(-e / D + D / 2) - mp.exp(e) * mp.ncdf(-e / D - D / 2)


def _contains(enc, value, err=0.0):
    """``value`` (an mpf) lies in ``[enc.lower, enc.upper]`` widened by the quadrature error ``err``."""
    with mp.workdps(60):
        lo = mp.mpf(enc.lower.lower().mid().str(45, radius=False))
        hi = mp.mpf(enc.upper.upper().mid().str(45, radius=False))
        slack = mp.mpf(err) + mp.mpf("1e-40")
        return lo - slack <= value <= hi + slack


# ----------------------------------------------------------------------------- tests
_slow = pytest.mark.slow
CASES = [
    # T, alpha, p, beta, eps, s      (each mpmath reference takes ~10 s)
    (3, "1/2", "3/2", "7/10", "1/2", 1),
    pytest.param(5, "-1/2", "4/5", "13/10", 1, 1, marks=_slow),   # alpha < 0: r^alpha singular at 0
    pytest.param(2, 0, 3, 2, "3/10", 1, marks=_slow),             # T = 2: arcsine-distributed W
    pytest.param(4, 3, 1, "1/2", "1/5", 1, marks=_slow),          # l2-Laplace in R^4
    pytest.param(6, 2, "5/2", 1, 2, "3/2", marks=_slow),
]


@pytest.mark.parametrize("T,alpha,p,beta,eps,s", CASES)
def test_enclosure_contains_mpmath_quadrature(T, alpha, p, beta, eps, s):
    ref, err = mp_sgg_delta(T, alpha, p, beta, eps, s)
    assert err < mp.mpf("1e-13")
    with working_precision(128):
        enc = sgg_delta_enclosure(T, Fraction(alpha), Fraction(p), arb(Fraction(beta).numerator) /
                                  Fraction(beta).denominator, Fraction(eps), Fraction(s), eta=1e-9)
        assert float((enc.upper - enc.lower).upper()) <= 1e-9
        assert _contains(enc, ref, err), (enc.lower, enc.upper, ref)
        assert enc.lower > 0  # these parameters are far from pure DP


@pytest.mark.slow
def test_r1smg_t128_matches_mpmath():
    """R1SMG (alpha = 0, p = 2: k = 1/2, the t^(-1/2) case) at T = 128, eps = 1, sigma_star = 2.5."""
    ref, err = mp_sgg_delta(128, 0, 2, Fraction(1, 5), 1, 1)
    with working_precision(128):
        enc = sgg_delta_enclosure(128, 0, 2, arb(1) / 5, 1, 1, eta=1e-9)
    assert _contains(enc, ref, err)


@pytest.mark.parametrize("T", [2, 10, 128])
def test_sgg_gaussian_equals_analytic_gaussian(T):
    """SGG(alpha = T-1, beta = 1/(2 sigma^2), p = 2) is N(0, sigma^2 I_T): profile = 1-D Gaussian, Delta = s."""
    for sigma, eps in (("1", "1"), ("3/2", "1/2")):
        sg = Fraction(sigma)
        ref = gaussian_delta_mp(Fraction(eps), 1 / sg)
        with working_precision(128):
            beta = 1 / (2 * arb(sg.numerator) ** 2 / sg.denominator ** 2)
            enc = sgg_delta_enclosure(T, T - 1, 2, beta, Fraction(eps), 1, eta=1e-9)
            assert float((enc.upper - enc.lower).upper()) <= 1e-8
            assert _contains(enc, ref)


def test_width_target_is_met_and_both_sides_certified():
    with working_precision(128):
        for eta in (1e-4, 1e-7, 1e-10):
            enc = sgg_delta_enclosure(7, 2, "3/2", 1, "1/2", 1, eta=eta)
            assert float(enc.width.upper()) <= eta
            assert enc.lower <= enc.upper


def test_monotone_in_rate_and_sensitivity():
    """Prop. C.1 (delta non-decreasing in beta) and Lemma 4.2 (non-decreasing in s), certified."""
    with working_precision(128):
        betas = [Fraction(1, 4), Fraction(1), Fraction(4)]
        encs = [sgg_delta_enclosure(5, 1, "3/2", b, 1, 1, eta=1e-5) for b in betas]
        for e1, e2 in zip(encs, encs[1:]):
            assert e1.upper < e2.lower
        sens = [Fraction(1, 2), Fraction(1), Fraction(2)]
        encs = [sgg_delta_enclosure(5, 1, "3/2", 1, 1, s, eta=1e-5) for s in sens]
        for e1, e2 in zip(encs, encs[1:]):
            assert e1.upper < e2.lower


def test_scale_invariance_lemma_c1():
    """delta depends on (beta, s) only through s beta^(1/p) (Lemma C.1)."""
    with working_precision(128):
        e1 = sgg_delta_enclosure(4, 1, 3, 8, "1/2", 1, eta=1e-9)
        e2 = sgg_delta_enclosure(4, 1, 3, 1, "1/2", 2, eta=1e-9)
        assert e1.lower <= e2.upper and e2.lower <= e1.upper


def test_zero_sensitivity_and_pure_dp_region():
    with working_precision(128):
        enc = sgg_delta_enclosure(3, 2, 1, 1, 1, 0, eta=1e-9)
        assert enc.upper == 0
        # l2-Laplace in R^T is eps-DP for eps >= s/theta (loss bounded by beta s): delta = 0 certified
        enc = sgg_delta_enclosure(3, 2, 1, 1, "11/10", 1, eta=1e-9)
        assert enc.upper <= 1e-9


def test_fw_cdf_against_mpmath():
    with working_precision(128):
        for T in (2, 3, 10, 128):
            for w in ("-0.9", "-0.1", "0", "0.3", "0.999"):
                val = fw_cdf(arb(w), arb(T - 1) / 2)
                with mp.workdps(50):
                    a = mp.mpf(T - 1) / 2
                    ref = mp.betainc(a, a, 0, (mp.mpf(w) + 1) / 2, regularized=True)
                    lo = mp.mpf(val.lower().str(45, radius=False))
                    hi = mp.mpf(val.upper().str(45, radius=False))
                    assert lo - mp.mpf("1e-40") <= ref <= hi + mp.mpf("1e-40")
                    assert hi - lo < mp.mpf("1e-30")
