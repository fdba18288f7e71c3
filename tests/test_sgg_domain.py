"""SGG at the corners of its domain (issue 17): small T with p = 1, tiny delta, large T.

Every enclosure is checked against an independent 50-digit mpmath computation:

* l2-Laplace (alpha = T-1, p = 1): Lemma 4.1 in the original radius ``r`` (``R ~ Gamma(T, theta)``)
  by tanh-sinh quadrature.  The threshold is the root of ``r - |r e_1 + mu| = y theta`` in ``w``,
  written in the test as ``((r - y theta)^2 - r^2 - s^2) / (2 s r)`` and *checked* against
  bisection on the direct loss; the integrals are split at the breakpoints where it reaches -1,
  with ``r = r_b + u^2`` removing the square-root singularity of ``F_W`` there.
* The Gaussian member (alpha = T-1, p = 2) against the analytic Gaussian profile (erfc at 50
  digits), down to delta = 1e-300.
* R1SMG at T = 1000 against the generic reference of ``test_sgg_radial`` (bisection for w*).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb

from certdp.engines.radial import RadialPrecisionError, pure_dp_decision, sgg_delta_enclosure
from certdp.mechanisms.sgg import L2Laplace, R1SMG, SGG, sgg_profile_enclosure
from certdp.numbers import working_precision

from test_sgg_radial import mp_sgg_delta


def _mpf(q) -> mp.mpf:
    q = Fraction(q)
    return mp.mpf(q.numerator) / q.denominator


def mp_l2_laplace_delta(T: int, theta, eps, s=1, dps: int = 50):
    """delta(eps) of l2-Laplace noise (density ~ exp(-||x|| / theta)) in R^T, shift of norm s."""
    with mp.workdps(dps):
        theta, eps, s = _mpf(theta), _mpf(eps), _mpf(s)
        a = mp.mpf(T - 1) / 2

        def f_r(r):           # Gamma(T, theta) density of the radius
            return r ** (T - 1) * mp.exp(-r / theta) / (mp.gamma(T) * theta ** T)

        def w_closed(r, y):
            if r <= y * theta:
                return mp.mpf(-1)
            w = ((r - y * theta) ** 2 - r * r - s * s) / (2 * s * r)
            return max(mp.mpf(-1), min(mp.mpf(1), w))

        def F(w):
            return mp.betainc(a, a, 0, (w + 1) / 2, regularized=True)

        def piece(y, minus):
            r_b = (s + y * theta) / 2        # w_closed(r_b, y) = -1
            g = (lambda r: 1 - F(w_closed(r, y))) if minus else (lambda r: F(w_closed(r, y)))
            head = mp.gammainc(T, 0, r_b / theta, regularized=True) if minus else mp.mpf(0)
            sub = mp.quad(lambda u: 2 * u * f_r(r_b + u * u) * g(r_b + u * u), [0, mp.sqrt(theta) / 4,
                                                                              mp.sqrt(theta)])
            rest = mp.quad(lambda r: f_r(r) * g(r), [r_b + theta, r_b + 4 * theta, r_b + 16 * theta,
                                                     r_b + 64 * theta, mp.inf])
            return head + sub + rest

        A = piece(-eps, True)
        B = piece(eps, False)
        return A - mp.exp(eps) * B


def test_reference_threshold_matches_bisection_on_the_direct_loss():
    """The reference's closed-form threshold is the sup of {w : loss >= y}, by bisection."""
    with mp.workdps(40):
        s, theta = mp.mpf(1), mp.mpf("0.9991")
        for r in (mp.mpf("0.3"), mp.mpf("1.0005"), mp.mpf(3), mp.mpf(40)):
            for y in (mp.mpf(1), mp.mpf(-1)):
                def loss(w):
                    return (r - mp.sqrt(r * r + 2 * s * w * r + s * s)) / theta
                lo, hi = mp.mpf(-1), mp.mpf(1)
                if loss(lo) <= y:
                    expect = mp.mpf(-1)
                else:
                    for _ in range(120):
                        mid = (lo + hi) / 2
                        lo, hi = (mid, hi) if loss(mid) >= y else (lo, mid)
                    expect = lo
                closed = ((r - y * theta) ** 2 - r * r - s * s) / (2 * s * r) if r > y * theta else mp.mpf(-1)
                closed = max(mp.mpf(-1), min(mp.mpf(1), closed))
                assert abs(closed - expect) < mp.mpf("1e-30")


def _contains(ball: arb, ref) -> bool:
    lo = mp.mpf(ball.lower().str(40, radius=False))
    hi = mp.mpf(ball.upper().str(40, radius=False))
    return lo <= ref <= hi


# theta near the calibrated values at eps = 1 for delta = 1e-5 and 1e-12 (T = 2, 3)
L2_CASES = [
    (2, "0.99915911", "1e-5"),
    (2, "0.99999998", "1e-12"),
    (3, "0.99484786", "1e-5"),
    (3, "0.99999837", "1e-12"),
]


@pytest.mark.parametrize("T,theta,scale", L2_CASES)
def test_l2_laplace_small_T_contains_mpmath(T, theta, scale):
    ref = mp_l2_laplace_delta(T, theta, 1)
    assert mp.mpf(scale) / 10 < ref < mp.mpf(scale) * 10          # the corner we meant to test
    with working_precision(128):
        ball = L2Laplace.profile_ball(arb(theta), arb(1), dimension=T, sensitivity=Fraction(1))
    assert ball.is_finite()
    assert _contains(ball, ref), (ball, ref)
    assert float(ball.rad()) <= 1e-11 * float(ref)


@pytest.mark.parametrize("T,delta", [(2, "1e-5"), (3, "1e-12")])
def test_l2_laplace_calibration_small_T(T, delta):
    import certdp

    cert = certdp.calibrate("l2-laplace", dimension=T, epsilon=1, delta=delta, sensitivity=1, rtol="1e-6")
    lo, hi = cert.interval
    assert (hi - lo) / hi <= Fraction(1, 10**6)
    # the safe end's certified delta is <= delta and contains the mpmath value; the unsafe end's is > delta
    ref_safe = mp_l2_laplace_delta(T, Fraction(hi), 1)
    ref_unsafe = mp_l2_laplace_delta(T, Fraction(lo), 1)
    assert mp.mpf(cert.delta_enclosure[0]) <= ref_safe <= mp.mpf(cert.delta_enclosure[1]) <= mp.mpf(delta)
    unsafe = cert.extra["delta_enclosure_at_unsafe_end"]
    assert mp.mpf(delta) < mp.mpf(unsafe[0]) <= ref_unsafe <= mp.mpf(unsafe[1])


def test_sgg_p1_profile_near_pure_dp_boundary():
    """The issue's example: T = 2, alpha = 1, p = 1, beta = 1.0008, eps = 1 (true delta ~ 1e-5)."""
    ref = mp_l2_laplace_delta(2, Fraction(1) / Fraction("1.0008"), 1)
    enc = SGG("1.0008", dimension=2, alpha=1, power=1, sensitivity=1).privacy_profile(1)
    assert enc.lower <= Fraction(mp.nstr(ref, 30, strip_zeros=False)) * (1 + Fraction(1, 10**25))
    assert Fraction(mp.nstr(ref, 30)) * (1 - Fraction(1, 10**25)) <= enc.upper
    assert enc.upper - enc.lower <= Fraction(1, 10**15)


def test_pure_dp_is_exactly_zero_and_decided_analytically():
    """alpha = T-1, p = 1: the loss is bounded by beta s, so delta = 0 exactly iff eps >= beta s."""
    for eps in ("1", "1.5", "50"):                           # boundary (eps = beta s) and inside
        enc = SGG(1, dimension=2, alpha=1, power=1, sensitivity=1).privacy_profile(eps)
        assert enc.lower == 0 and enc.upper == 0
    enc = SGG(1, dimension=2, alpha=1, power=1, sensitivity=1).privacy_profile("0.9999")
    assert enc.lower > 0                                     # just outside: certified positive
    assert pure_dp_decision(3, 2, 1, Fraction(1, 3), Fraction(1, 3), 1) is True    # exact, not dyadic
    assert pure_dp_decision(3, 2, "1/2", 1, 1, 1) is True    # p < 1: beta s^p = 1 <= eps
    assert pure_dp_decision(3, 1, 1, 1, 5, 1) is False       # alpha < T-1: unbounded loss
    assert pure_dp_decision(3, 2, 2, 1, 5, 1) is False       # p > 1: unbounded loss
    with working_precision(64):
        z = sgg_delta_enclosure(5, 4, 1, Fraction(1, 2), "1/2", 1, eta=1e-9)
    assert z.upper == 0 and z.lower == 0


@pytest.mark.parametrize("sigma,delta", [("6.5578220674622", "1e-12"), ("21.009409042311", "1e-100"),
                                         ("36.865497894137", "1e-300")])
@pytest.mark.parametrize("T", [2, 10])
def test_gaussian_member_tiny_delta_matches_analytic_gaussian(T, sigma, delta):
    with mp.workdps(60):
        sg = mp.mpf(sigma)
        ref = mp.ncdf(1 / (2 * sg) - sg) - mp.e * mp.ncdf(-1 / (2 * sg) - sg)   # eps = 1, s = 1
    assert mp.mpf(delta) / 2 < ref < mp.mpf(delta) * 2
    with working_precision(128):
        s = arb(sigma)
        ball = sgg_profile_enclosure(T, Fraction(T - 1), Fraction(2), 1 / (2 * s * s), arb(1), Fraction(1))
    assert ball.is_finite() and _contains(ball, ref), (ball, ref)
    assert float(ball.rad() / ball.mid()) <= 1e-11


def test_gaussian_member_calibration_at_1e_300():
    import certdp

    cert = certdp.calibrate("sgg", dimension=2, alpha=1, power=2, epsilon=1, delta="1e-300", sensitivity=1,
                            rtol="1e-6")
    beta = Fraction(cert.value)                              # safe end (largest rate)
    with mp.workdps(60):
        sg = mp.sqrt(1 / (2 * _mpf(beta)))
        ref = mp.ncdf(1 / (2 * sg) - sg) - mp.e * mp.ncdf(-1 / (2 * sg) - sg)
    assert mp.mpf(cert.delta_enclosure[0]) <= ref <= mp.mpf(cert.delta_enclosure[1]) <= mp.mpf("1e-300")


def test_r1smg_T1000_contains_mpmath():
    sigma_star = Fraction(2345858700000)
    ref, err = mp_sgg_delta(1000, 0, 2, 1 / (2 * sigma_star), 1, 1)
    assert err < mp.mpf("1e-18")
    with working_precision(128):
        ball = R1SMG.profile_ball(arb(2345858700000), arb(1), dimension=1000, sensitivity=Fraction(1))
    assert _contains(ball, ref), (ball, ref)
    assert float(ball.rad()) <= 1e-11 * float(ref)


def test_budget_exhaustion_reports_the_reached_enclosure():
    """A bin budget that runs out raises with a certified (too wide) enclosure; it never hangs."""
    with working_precision(64):
        with pytest.raises(RadialPrecisionError) as info:
            sgg_delta_enclosure(2, 1, 1, "1.0008", 1, 1, eta=1e-30, max_bins=40)
        enc = info.value.enclosure
    ref = mp_l2_laplace_delta(2, Fraction(1) / Fraction("1.0008"), 1)
    assert _contains(enc.as_ball(), ref)
    assert enc.bins <= 200 and enc.upper - enc.lower > 1e-30


def test_integer_shape_incomplete_gamma_against_mpmath():
    """The finite-sum Q(k, z) / series P(k, z) for integer k (the l2-Laplace masses) at 64 and 128 bits."""
    from certdp.engines.radial import _integer_shape_incomplete

    with mp.workdps(60):
        for bits in (64, 128):
            with working_precision(bits):
                for k in (8, 128, 1000):
                    for z in ("0.5", "86.3", "127.9", "128", "300", "990", "1500"):
                        q = _integer_shape_incomplete(arb(z), k, True)
                        p = _integer_shape_incomplete(arb(z), k, False)
                        for ball, ref in ((q, mp.gammainc(k, mp.mpf(z), mp.inf, regularized=True)),
                                          (p, mp.gammainc(k, 0, mp.mpf(z), regularized=True))):
                            lo = mp.mpf(ball.lower().str(50, radius=False))
                            hi = mp.mpf(ball.upper().str(50, radius=False))
                            assert lo * (1 - mp.mpf(10) ** -45) <= ref <= hi * (1 + mp.mpf(10) ** -45)
                            assert float(ball.rad()) <= 2.0 ** (16 - bits) * float(abs(ball.mid())) + 1e-300, (bits, k, z, ball)
