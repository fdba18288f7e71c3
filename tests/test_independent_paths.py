"""The independent verify paths (certified quadrature of the hockey-stick integral).

Each `independent_profile_ball` must (a) contain the 50-digit mpmath quadrature of the
hockey-stick integral (computed here from the densities, rescaled so that mpmath's
absolute tolerance is a relative one), (b) contain the narrow 256-bit `profile_ball`
enclosure, (c) be narrow (relative width < 1e-10 at 128 bits) and (d) exclude the value
of a deliberately perturbed integral (so a wrong integrand would be caught).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb

from certdp.mechanisms.generalized_gaussian import GeneralizedGaussian
from certdp.mechanisms.laplace import Laplace
from certdp.mechanisms.uniform import Uniform
from certdp.numbers import arb_of, working_precision

mp.mp.dps = 60


# ----------------------------------------------------------------- mpmath references
def _mpf(q) -> mp.mpf:
    q = Fraction(q)
    return mp.mpf(q.numerator) / q.denominator


def mp_laplace(b, eps, sens) -> mp.mpf:
    """int (f(u) - e^eps f(u - m))_+ du, f = e^(-|u|)/2, m = Delta/b, split at 0 and u*."""
    m, e = _mpf(sens) / _mpf(b), _mpf(eps)
    if e >= m:
        return mp.mpf(0)
    u_star = (m - e) / 2
    scale = -mp.expm1(e - m)  # the integrand on u <= 0 is e^u * scale / 2
    g = lambda u: (mp.exp(-abs(u)) - mp.exp(e) * mp.exp(-abs(u - m))) / 2 / scale
    return scale * (mp.quad(g, [-mp.inf, -1, 0]) + mp.quad(g, [0, u_star]))


def mp_uniform(b, eps, sens) -> mp.mpf:
    m, e = _mpf(sens) / _mpf(b), _mpf(eps)
    f = lambda u: mp.mpf(1) / 2 if -1 <= u <= 1 else mp.mpf(0)
    g = lambda u: max(f(u) - mp.exp(e) * f(u - m), 0)
    pts = sorted({mp.mpf(-1), mp.mpf(1), *(x for x in (m - 1, m + 1) if -1 < x < 1)})
    return mp.quad(g, pts)


def mp_ggm(p, b, eps, sens, shift_factor=1) -> mp.mpf:
    """1-D GGM: int_{u*}^inf (f(u) - e^eps f(u + m)) du, L(u*) = eps, rescaled by f(u*)."""
    p, m, e = _mpf(p), _mpf(sens) / _mpf(b) * shift_factor, _mpf(eps)
    loss = lambda u: abs(u + m) ** p - abs(u) ** p - e
    lo, hi = -m / 2, mp.mpf(1)
    while loss(hi) < 0:
        hi *= 2
    for _ in range(400):  # bisection: L is increasing (seed 004 Lemma 3.1)
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if loss(mid) < 0 else (lo, mid)
    u_star = (lo + hi) / 2
    k = p / (2 * mp.gamma(1 / p))
    top = abs(u_star) ** p
    h = lambda u: mp.exp(top - abs(u) ** p) - mp.exp(e) * mp.exp(top - abs(u + m) ** p)
    scale_len = 1 / (p * max(abs(u_star), 1) ** (p - 1))
    pts = [u_star] + ([0] if u_star < 0 else []) + [max(u_star, 0) + j * scale_len for j in (1, 4, 16, 64)]
    pts.append(mp.inf)
    return k * mp.exp(-top) * mp.quad(h, sorted(pts))


# ----------------------------------------------------------------- helpers
def _inside(ball: arb, x: mp.mpf) -> bool:
    """The 50-digit reference ``x`` (as an exact 256-bit point) lies in ``ball``."""
    with working_precision(256):
        point = arb(arb(mp.nstr(x, 50)).mid())
        return bool(ball.lower() <= point <= ball.upper())


def _rel_width(ball: arb) -> float:
    mid = abs(float(ball.mid())) if ball.mid() != 0 else 0.0
    if mid == 0.0:
        return 0.0 if ball.rad() == 0 else float("inf")
    return float(ball.rad()) * 2 / mid if mid > 1e-300 else float((2 * ball.rad() / abs(ball.mid())).upper())


def _check(cls, value, eps, fixed, reference):
    with working_precision(256):
        narrow = cls.profile_ball(arb_of(value), arb_of(eps), **fixed)
    with working_precision(128):
        ind = cls.independent_profile_ball(arb_of(value), arb_of(eps), **fixed)
    assert ind.is_finite()
    assert _inside(ind, reference), (ind, reference)
    if narrow.rad() < ind.rad():
        assert ind.contains(narrow), (ind, narrow)
    else:
        assert ind.overlaps(narrow), (ind, narrow)
    if reference != 0:
        assert _rel_width(ind) < 1e-10, (ind, _rel_width(ind))
    return ind


# ----------------------------------------------------------------- Laplace
LAPLACE_POINTS = [
    ("1", "0.5", 1), ("2", "0.1", 1), ("10", "0.01", 1), ("0.1", "10", 1), ("0.5", "3", 1),
    ("1", "0.999999999999", 1), ("3", "0.01", "2.5"), ("0.25", "1", "0.1"),
]


@pytest.mark.parametrize("b,eps,sens", LAPLACE_POINTS)
def test_laplace_independent_matches_quadrature_and_closed_form(b, eps, sens):
    fixed = {"sensitivity": Fraction(sens)}
    _check(Laplace, b, eps, fixed, mp_laplace(b, eps, sens))


def test_laplace_independent_zero_in_pure_dp_regime():
    with working_precision(128):
        assert Laplace.independent_profile_ball(arb(1), arb(1), sensitivity=Fraction(1)) == 0
        assert Laplace.independent_profile_ball(arb(2), arb(1), sensitivity=Fraction(1)) == 0


def test_laplace_independent_rejects_perturbed_integral():
    with working_precision(128):
        ind = Laplace.independent_profile_ball(arb(2), arb("0.1"), sensitivity=Fraction(1))
    wrong = mp_laplace("2", "0.1", Fraction(1) * (1 + Fraction(1, 10**8)))
    assert not (_inside(ind, wrong))


# ----------------------------------------------------------------- uniform
UNIFORM_POINTS = [("0.1", "1", 1), ("0.5", "0.01", 1), ("1", "1", 1), ("3", "10", 1), ("100", "0.5", 1),
                  ("0.7", "2", "0.3")]


@pytest.mark.parametrize("b,eps,sens", UNIFORM_POINTS)
def test_uniform_independent_matches_quadrature_and_closed_form(b, eps, sens):
    _check(Uniform, b, eps, {"sensitivity": Fraction(sens)}, mp_uniform(b, eps, sens))


def test_uniform_independent_rejects_perturbed_integral():
    with working_precision(128):
        ind = Uniform.independent_profile_ball(arb(3), arb(1), sensitivity=Fraction(1))
    wrong = mp_uniform("3", "1", Fraction(1) * (1 + Fraction(1, 10**8)))
    assert not (_inside(ind, wrong))


# ----------------------------------------------------------------- GGM 1-D
GGM_POINTS = [
    ("1.5", "1", "1"), ("2", "1", "1"), ("3", "2", "0.5"), ("1.1", "1.4543538444386", "1"),
    ("4", "0.3", "2"), ("2", "5", "0.1"), ("1.5", "217.05673744183", "0.01"), ("3", "22.765045131216", "1"),
    ("2", "0.2", "10"), ("1.25", "0.14", "10"), ("10", "2", "0.5"),
]


@pytest.mark.parametrize("p,b,eps", GGM_POINTS)
def test_ggm_independent_matches_quadrature_and_incomplete_gamma(p, b, eps):
    fixed = GeneralizedGaussian.parse_fixed(shape=p, sensitivity=1)
    _check(GeneralizedGaussian, b, eps, fixed, mp_ggm(p, b, eps, 1))


@pytest.mark.parametrize("shape,reference", [("1", mp_laplace), ("inf", mp_uniform)])
def test_ggm_independent_closed_form_shapes(shape, reference):
    fixed = GeneralizedGaussian.parse_fixed(shape=shape, sensitivity=1)
    for b, eps in (("0.7", "0.5"), ("3", "0.1")):
        _check(GeneralizedGaussian, b, eps, fixed, reference(b, eps, 1))


def test_ggm_independent_rejects_perturbed_integral():
    fixed = GeneralizedGaussian.parse_fixed(shape="1.5", sensitivity=1)
    with working_precision(128):
        ind = GeneralizedGaussian.independent_profile_ball(arb(3), arb(1), **fixed)
    right = mp_ggm("1.5", "3", "1", 1)
    wrong = mp_ggm("1.5", "3", "1", 1, shift_factor=1 + mp.mpf(10) ** -8)
    assert _inside(ind, right)
    assert not (_inside(ind, wrong))


def test_ggm_independent_huge_root_escalates_and_agrees():
    """p = 1.01, b = 20: the root is astronomically far out; both paths agree at 1024 bits."""
    fixed = GeneralizedGaussian.parse_fixed(shape="1.01", sensitivity=1)
    with working_precision(1024):
        ind = GeneralizedGaussian.independent_profile_ball(arb(20), arb("0.5"), **fixed)
        closed = GeneralizedGaussian.profile_ball(arb(20), arb("0.5"), **fixed)
    assert ind.is_finite() and ind > 0 and ind.overlaps(closed)


def test_independent_on_parameter_balls():
    """A scale ball of nonzero radius: the enclosure holds at every point (ends and middle)."""
    fixed = GeneralizedGaussian.parse_fixed(shape="1.5", sensitivity=1)
    with working_precision(128):
        ggm = GeneralizedGaussian.independent_profile_ball(arb(3, 2e-6), arb(1), **fixed)
        lap = Laplace.independent_profile_ball(arb(2, 2e-6), arb("0.1"), sensitivity=Fraction(1))
        uni = Uniform.independent_profile_ball(arb(3, 2e-6), arb(1), sensitivity=Fraction(1))
    for d in (Fraction(-1, 10**6), Fraction(0), Fraction(1, 10**6)):
        assert _inside(ggm, mp_ggm("1.5", 3 + d, "1", 1))
        assert _inside(uni, mp_uniform(3 + d, "1", 1))
        assert _inside(lap, mp_laplace(2 + d, "0.1", 1))


def test_ggm_vector_sensitivity_falls_back_to_profile_ball():
    fixed = GeneralizedGaussian.parse_fixed(shape="inf", sensitivity="1,2")
    with working_precision(128):
        a = GeneralizedGaussian.independent_profile_ball(arb(5), arb(1), **fixed)
        b = GeneralizedGaussian.profile_ball(arb(5), arb(1), **fixed)
    assert a.mid() == b.mid() and a.rad() == b.rad()
    # a vector with a single nonzero entry is one-dimensional (Prop. 5.1): the quadrature applies
    fixed = GeneralizedGaussian.parse_fixed(shape="1.5", sensitivity="0,1")
    with working_precision(128):
        ind = GeneralizedGaussian.independent_profile_ball(arb(3), arb(1), **fixed)
    assert _inside(ind, mp_ggm("1.5", "3", "1", 1))


def test_independent_paths_give_finite_narrow_balls():
    """Typical inputs give finite, narrow balls at 256 bits (speed is measured in
    benchmarks/bench_independent_paths.py, not asserted here)."""
    cases = [(Laplace, "0.9999999999985", "1", {"sensitivity": Fraction(1)}),
             (Uniform, "50", "1", {"sensitivity": Fraction(1)}),
             (GeneralizedGaussian, "4.194359318128", "1", GeneralizedGaussian.parse_fixed(shape="1.5")),
             (GeneralizedGaussian, "119.43854424246", "0.01", GeneralizedGaussian.parse_fixed(shape="1.1"))]
    for cls, value, eps, fixed in cases:
        with working_precision(256):
            ball = cls.independent_profile_ball(arb_of(value), arb_of(eps), **fixed)
            assert ball.is_finite()
            assert ball.rad() <= abs(ball.mid()) * arb("1e-10") or ball.rad() < arb("1e-30")
