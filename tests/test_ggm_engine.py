"""Monotone-loss engine (1-D GGM) against independent 50-digit mpmath quadrature."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb, ctx

from certdp.engines.monotone_loss import (
    delta_enclosure,
    delta_laplace,
    delta_uniform,
    float_scale,
    ggm_survival,
)

mp.mp.dps = 50


def _mp_density(x, p, b):
    return p / (2 * b * mp.gamma(1 / p)) * mp.exp(-abs(x / b) ** p)


def mp_hockey_stick(p, b, eps, d):
    """delta = int (f(x) - e^eps f(x + d))_+ dx by quadrature of the density.

    The positive set {loss > eps} = (z*, inf) is located with mpmath's own root
    finder; the integral is rescaled by the integrand's size at z* so mpmath's
    absolute tolerance is meaningful for tiny values.
    """
    p, b, eps, d = (mp.mpf(v) for v in (p, b, eps, d))

    def loss(z):
        return (abs(z + d) ** p - abs(z) ** p) / b**p - eps

    # bisection (loss increasing for p > 1): robust, independent of our bracket code
    lo, hi = -d / 2, mp.mpf(1)
    while loss(hi) < 0:
        hi *= 2
    for _ in range(400):
        mid = (lo + hi) / 2
        if loss(mid) < 0:
            lo = mid
        else:
            hi = mid
    z = (lo + hi) / 2
    scale = _mp_density(z, p, b)

    def integrand(x):
        return (_mp_density(x, p, b) - mp.e**eps * _mp_density(x + d, p, b)) / scale

    pts = sorted({z, z + d, z + 4 * d + 4 * b, z + 40 * (d + b)} | ({mp.mpf(0)} if z < 0 else set()))
    pts.append(mp.inf)
    return mp.quad(integrand, pts) * scale


def _contains(ball: arb, value) -> bool:
    s = mp.nstr(value, 45)
    return ball.contains(arb(s)) or (arb(ball.lower()) <= arb(s) and arb(s) <= arb(ball.upper()))


CASES = [
    ("1.0649", "3.19", "1", "3"),
    ("1.5", "5", "1", "3"),
    ("2", "7.97", "1", "3"),
    ("3", "10", "0.5", "1"),
    ("1.01", "2.9", "1", "3"),
    ("10", "30", "1", "3"),
    ("1.2", "2", "2", "1"),
    ("1.5", "0.6", "3", "1"),  # delta ~ 1e-4 .. tiny tail case
    ("4", "1", "2", "0.5"),
]


@pytest.mark.parametrize("p,b,eps,d", CASES)
def test_enclosure_contains_quadrature(p, b, eps, d):
    ref = mp_hockey_stick(p, b, eps, d)
    ctx.prec = 128
    try:
        enc = delta_enclosure(arb(Fraction(p).numerator) / Fraction(p).denominator,
                              arb(Fraction(b).numerator) / Fraction(b).denominator,
                              arb(Fraction(eps).numerator) / Fraction(eps).denominator,
                              arb(Fraction(d).numerator) / Fraction(d).denominator)
        assert enc is not None
        lo, hi = mp.mpf(enc.lower().str(50, radius=False)), mp.mpf(enc.upper().str(50, radius=False))
    finally:
        ctx.prec = 53
    # outward-rounded decimal strings of the exact endpoints
    assert lo * (1 - mp.mpf(10) ** -40) <= ref <= hi * (1 + mp.mpf(10) ** -40), (lo, ref, hi)
    # and the enclosure is tight
    assert hi - lo <= mp.mpf(10) ** -25 * max(ref, mp.mpf(10) ** -60)


def test_ball_in_p_contains_all_points():
    """An enclosure over a p-ball contains the values at p-points inside the ball."""
    ctx.prec = 64
    try:
        enc = delta_enclosure(arb("1.5", "1e-4"), arb(4), arb(1), arb(3))
        for pp in ("1.4999", "1.5", "1.50009"):
            pt = delta_enclosure(arb(pp), arb(4), arb(1), arb(3))
            assert arb(pt.lower()) >= arb(enc.lower()) and arb(pt.upper()) <= arb(enc.upper())
        # width comparable with the true variation 2 * 1e-4 * d delta / dp (~0.2)
        assert enc.rad() < 2e-4
    finally:
        ctx.prec = 53


def test_p_to_one_continuity():
    """delta_p(b) -> delta_1(b) (Prop. 3.3 closed form) as p -> 1."""
    ctx.prec = 64
    try:
        lap = delta_laplace(arb("2.9"), arb(1), arb(3))
        near = delta_enclosure(arb("1.000001"), arb("2.9"), arb(1), arb(3))
        assert abs(float(near.mid()) - float(lap.mid())) < 2e-6
        # ball touching p = 1 contains the Laplace value (eps b < Delta regime)
        ball = delta_enclosure(arb(1, "1e-6"), arb("2.9"), arb(1), arb(3))
        assert arb(ball.lower()) <= arb(lap.lower()) and arb(lap.upper()) <= arb(ball.upper())
    finally:
        ctx.prec = 53


def test_p_to_infinity_continuity():
    ctx.prec = 64
    try:
        uni = delta_uniform(arb(150), arb(3))
        for pp, tol in ((1000, 1e-3), (100000, 2e-5)):
            big = delta_enclosure(arb(pp), arb(150), arb(1), arb(3))
            assert abs(float(big.mid()) - float(uni.mid())) < tol
    finally:
        ctx.prec = 53


def test_laplace_closed_form_against_quadrature():
    b, eps, d = mp.mpf("2.9"), mp.mpf(1), mp.mpf(3)
    f = lambda x: mp.exp(-abs(x) / b) / (2 * b)
    ref = mp.quad(lambda x: max(f(x) - mp.e**eps * f(x + d), 0), [-mp.inf, -d, (eps * b - d) / 2, 0, mp.inf])
    enc = delta_laplace(arb("2.9"), arb(1), arb(3))
    assert abs(float(enc.mid()) - float(ref)) < 1e-14


def test_survival_against_quadrature():
    for t, p, b in (("0.7", "1.3", "2"), ("-1.1", "2.5", "0.8"), ("5", "1.05", "1")):
        ref = mp.quad(lambda x: _mp_density(x, mp.mpf(p), mp.mpf(b)), sorted({mp.mpf(t), mp.mpf(0), mp.mpf(t) + 10} - ({mp.mpf(0)} if mp.mpf(t) > 0 else set())) + [mp.inf])
        ctx.prec = 128
        try:
            s = ggm_survival(arb(t), arb(p), arb(b))
        finally:
            ctx.prec = 53
        assert s.contains(arb(mp.nstr(ref, 40)).mid()) or abs(float(s.mid()) - float(ref)) < 1e-30


def test_table2_scales():
    """Seed 004 Table 2: (eps, delta, Delta) = (1, 0.01, 3): b = 2.94 / 7.97 / 150 (float candidates)."""
    assert round(float_scale(1.0, 1.0, 0.01, 3.0), 2) == 2.94
    assert round(float_scale(2.0, 1.0, 0.01, 3.0), 2) == 7.97
    assert round(float_scale(float("inf"), 1.0, 0.01, 3.0), 2) == 150.00
    assert round(float_scale(1.0649, 1.0, 0.01, 3.0), 2) == 3.19


@pytest.mark.parametrize("p,delta", [("1.5", "1e-300"), ("1.01", "1e-12"), ("3", "1e-40")])
def test_tiny_delta_calibration_against_quadrature(p, delta):
    """Certified bracket ends at tiny delta: safe end's true delta <= target < unsafe end's (mpmath)."""
    from certdp.workflows.calibrate import calibrate

    cert = calibrate("ggm", epsilon=1, delta=delta, shape=p, sensitivity=1)
    lo, hi = cert.interval
    mp.mp.dps = 50
    assert mp_hockey_stick(p, str(hi), "1", "1") <= mp.mpf(delta)
    assert mp_hockey_stick(p, str(lo), "1", "1") > mp.mpf(delta)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=12, deadline=None)
@given(p=st.sampled_from(["1.05", "1.3", "1.7", "2.5", "4", "9"]),
       b=st.sampled_from(["0.4", "1", "2.5", "7"]),
       eps=st.sampled_from(["0.1", "0.5", "1", "2.5"]))
def test_random_parameters_against_quadrature(p, b, eps):
    ref = mp_hockey_stick(p, b, eps, "1")
    ctx.prec = 96
    try:
        enc = delta_enclosure(arb(p), arb(b), arb(eps), arb(1))
        assert enc is not None
        lo = mp.mpf(enc.lower().str(40, radius=False))
        hi = mp.mpf(enc.upper().str(40, radius=False))
    finally:
        ctx.prec = 53
    assert lo * (1 - mp.mpf(10) ** -25) <= ref <= hi * (1 + mp.mpf(10) ** -25)


@pytest.mark.parametrize("shape, scale, sens", [("1.5", "1", "1"), ("3", "0.7", "2"), ("1.05", "2", "1")])
def test_epsilon_zero_is_the_total_variation_distance(shape, scale, sens):
    """delta(0) = P(-Delta/2 < X < Delta/2): the loss root is -Delta/2 for every p (50-digit quadrature)."""
    import mpmath as mp

    import certdp

    cert = certdp.profile("ggm", value=scale, epsilon=0, shape=shape, sensitivity=sens)
    with mp.workdps(50):
        p, b, d = mp.mpf(shape), mp.mpf(scale), mp.mpf(sens)
        density = lambda x: p * mp.exp(-abs(x / b) ** p) / (2 * b * mp.gamma(1 / p))  # noqa: E731
        tv = mp.quad(density, [-d / 2, 0, d / 2])
        lo, hi = (mp.mpf(x) for x in cert.delta_enclosure)
        assert lo <= tv <= hi and hi - lo < mp.mpf("1e-15") * tv
