"""The near-tie bound of the mixture engine (issue 17, stop 31): ``H`` over a ball of shifts next to
MG's tied shift ``phi = Delta`` from the pairs' divided differences
(:meth:`ShiftEngine.near_tie_bound`), against the independent 60-digit mpmath hockey-stick of
``mg_reference`` (its own roots and CDF sums), and the calibration it unblocks against the
first-order tangency model of docs/mixtures.md.
"""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest
from flint import arb

import certdp
from certdp.engines.gaussian_mixture import ShiftEngine
from certdp.engines.gaussian_mixture.tied_end import _SortedTerms, _integral_of_max
from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
from certdp.mechanisms.quasi_gaussian import quasi_gaussian_mixture
from certdp.numbers import working_precision
from mg_reference import sixty_digits, _mp, _lo, _hi, lobe_reference, ref_h  # noqa: F401  (sixty_digits: autouse fixture)


def _engine(sigma: str, eps: str, k: int, scale: float) -> ShiftEngine:
    e = arb(eps)
    return ShiftEngine(multi_gaussian_mixture(arb(sigma), e, arb(1), k), e, scale, 1e-9)


def _shift(q: Fraction) -> arb:
    return arb(q.numerator) / arb(q.denominator)


BALLS = [(Fraction(127, 128), Fraction(1)), (Fraction(63, 64), Fraction(127, 128))]


@pytest.mark.parametrize("a,b", BALLS)
def test_near_tie_bound_settles_the_eps_50_cliff_and_stays_above_the_reference(a, b):
    """MG K = 12 at eps 50, sigma 0.09475 (just private of the tangency at phi = Delta): the bound on
    the ball is <= 1e-250 and >= the mpmath H at its ends and midpoint (H ~ 2.6e-261, the lone end
    component); the envelope bound from the same end values gives ~1e-26 there."""
    goal = arb("1e-250")
    with working_precision(64):
        eng = _engine("0.09475", "50", 12, 1e-250)
        near = eng.near_tie_bound(_shift(a), _shift(b), arb(1), goal)
        ends = [eng.value_at(_shift(t)).upper for t in (a, b)]
        envelope = eng.envelope_bound(_shift(a), _shift(b), ends[0], ends[1], goal)
    assert near is not None and near <= goal
    assert envelope is None or envelope > goal
    with working_precision(128):
        for t in (a, (a + b) / 2, b):
            assert _lo(near) >= ref_h(Fraction("0.09475"), 50, 12, t), t


def test_near_tie_bound_at_eps_1_is_above_and_near_the_reference():
    """MG K = 10 at eps 1, sigma 0.35895: on [127/128, 1] the bound holds the mpmath H at five shifts
    and is within a factor 4 of their max (H is carried by the lone end component, ~2e-5)."""
    a, b = BALLS[0]
    with working_precision(64):
        eng = _engine("0.35895", "1", 10, 1e-5)
        near = eng.near_tie_bound(_shift(a), _shift(b), arb(1), arb("1e-4"))
    refs = [ref_h(Fraction("0.35895"), 1, 10, a + (b - a) * Fraction(i, 4)) for i in range(5)]
    assert near is not None
    with working_precision(128):
        assert _lo(near) >= max(refs)
        assert _hi(near) <= 4 * max(refs)


def test_near_tie_bound_refuses_what_it_does_not_cover():
    """None when the tied shift lies inside the ball, when the named shift is not tied, and for a
    truncated mixture (the quasi-Gaussian has no exact matching)."""
    with working_precision(64):
        eng = _engine("0.5", "1", 5, 1e-6)
        assert eng.near_tie_bound(arb("0.75"), arb("1.25"), arb(1)) is None
        assert eng.near_tie_bound(arb("0.25"), arb("0.375"), arb("0.5")) is None
        assert eng.has_exact_tie(arb(1)) and not eng.has_exact_tie(arb(0))
        e = arb(1)
        qg = ShiftEngine(quasi_gaussian_mixture(arb("0.5"), arb("0.5"), arb(1)), e, 1e-6, 1e-9)
        assert qg.tie_matching(arb(1)) is None
        assert qg.near_tie_bound(arb("0.75"), arb(1), arb(1)) is None


def test_integral_of_max_over_boxes():
    """``int max_i u_i 1[x0_i, x1_i]``: >= each box's own integral, <= their sum, equal to the sum for
    disjoint boxes and to the larger one for two boxes on the same range; checked on random dyadic
    boxes against an exact rational sweep."""
    assert _integral_of_max([]) == 0
    assert _integral_of_max([(0.0, 1.0, arb(2)), (1.0, 1.5, arb(4))]) == 4
    assert _integral_of_max([(0.0, 1.0, arb(2)), (0.0, 1.0, arb(3))]) == 3
    rng = random.Random(17)
    for _ in range(20):
        boxes = []
        for _ in range(rng.randint(1, 8)):
            x0 = rng.randint(0, 64) / 16
            boxes.append((x0, x0 + rng.randint(1, 32) / 16, rng.randint(1, 9)))
        got = _integral_of_max([(x0, x1, arb(u)) for x0, x1, u in boxes])
        grid = sorted({Fraction(e) for x0, x1, _ in boxes for e in (x0, x1)})
        exact = sum((b - a) * max((u for x0, x1, u in boxes if x0 <= a and b <= x1), default=0)
                    for a, b in zip(grid, grid[1:]))
        assert got == arb(exact.numerator) / exact.denominator
        assert exact <= sum(Fraction(x1 - x0) * u for x0, x1, u in boxes)
        assert all(exact >= Fraction(x1 - x0) * u for x0, x1, u in boxes)


def test_sorted_terms_split_certifies_the_distance_of_every_far_term():
    """Every term left out of the near list is at certified distance >= d >= least from ``x - mean - r``
    on the whole box, and the far weight is exactly the weights left out."""
    rng = random.Random(5)
    with working_precision(64):
        terms = [(arb(rng.randint(1, 100)), arb(k) / 4) for k in range(-40, 41)]
        sorted_terms = _SortedTerms(terms)
        least = arb(1)
        for _ in range(40):
            x0 = rng.uniform(-12, 12)
            x1 = x0 + rng.uniform(0, 0.5)
            r_lo, r_hi = arb(0), arb(rng.uniform(0, 0.1))
            near, far, d = sorted_terms.split(x0, x1, r_lo, r_hi, 2.0, least)
            left_out = [t for t in sorted_terms.terms if t not in near]
            assert far == sum((w for w, _ in left_out), arb(0))
            if d is None:
                assert not left_out
                continue
            assert d >= least
            for _, m in left_out:
                lo_z = arb(x0) - r_hi - m  # z = x - m - r ranges over [lo_z, hi_z]
                hi_z = arb(x1) - r_lo - m
                assert lo_z >= d or hi_z <= -d


def test_alg1_calibration_at_the_eps_50_cliff_meets_the_tangency_model():
    """MG K = 50, Alg. 1 at (eps 50, delta 1e-300) (a 30 s timeout before stop 31): the certified
    bracket holds the first-order tangency sigma_c of docs/mixtures.md (mpmath, 40 digits:
    max_u log(u / (1 - u)) - eps + (1 - 2u) / (2 sigma^2) = 0, the maximiser u (1 - u) = sigma^2)."""
    cert = certdp.calibrate("multi-gaussian", epsilon=50, delta="1e-300", components=50, rtol="1e-6",
                            sensitivity=1)
    lo, hi = (mpmath.mpf(str(v)) for v in cert.interval)

    def tangency(s):
        u = (1 - mpmath.sqrt(1 - 4 * s * s)) / 2
        return mpmath.log(u / (1 - u)) - 50 + (1 - 2 * u) / (2 * s * s)

    sigma_c = mpmath.findroot(tangency, mpmath.mpf("0.0947"))
    assert lo <= sigma_c <= hi, (lo, sigma_c, hi)
    assert (hi - lo) / hi <= mpmath.mpf("1e-6")


LOBE_SIGMA = "0.35894986"


def test_near_tie_point_holds_the_thin_lobes_at_eps_1():
    """MG K = 30 at eps 1, sigma 0.35894986 (just private of the eps-1 tangency): at phi = 1 - 5/4096
    ``D`` has ~30 lobes ~1e-3 wide (mass ~9e-13 in all, the end component ~4e-14); the near-tie point
    bounds hold the independent reference and are within 5 % of it (the float-run lower bound misses
    the lobes: it sees the end component alone, below a tenth of it)."""
    h = Fraction(5, 4096)
    ref = lobe_reference(LOBE_SIGMA, 30, h)
    assert ref > mpmath.mpf("5e-13")
    with working_precision(64):
        eng = _engine(LOBE_SIGMA, "1", 30, 1e-12)
        phi = _shift(1 - h)
        upper, lower = eng.near_tie_point(phi, arb(1), arb("1e-12"))
        cheap = eng.lower_bound_at(phi)
    assert upper is not None
    with working_precision(128):
        assert _lo(lower) <= ref <= _hi(upper)
        assert _hi(upper) <= mpmath.mpf("1.05") * ref and _lo(lower) >= mpmath.mpf("0.95") * ref
        assert _hi(cheap) <= ref / 10


def test_chord_form_on_a_ball_next_to_the_lobes_is_sharp():
    """On the ball h in [19/16384, 5/4096] (the chord form: at least its width from the tie) the bound
    holds the reference at both ends and the midpoint and is within 10 % of their max (the sup over h
    per x, the form before stop 32, was ~3 % above the true sup on a ball half as wide)."""
    h_lo, h_hi = Fraction(19, 16384), Fraction(5, 4096)
    refs = [lobe_reference(LOBE_SIGMA, 30, h) for h in (h_lo, (h_lo + h_hi) / 2, h_hi)]
    with working_precision(64):
        eng = _engine(LOBE_SIGMA, "1", 30, 1e-12)
        near = eng.near_tie_bound(_shift(1 - h_hi), _shift(1 - h_lo), arb(1), arb("2e-12"))
    assert near is not None
    with working_precision(128):
        assert _lo(near) >= max(refs)
        assert _hi(near) <= mpmath.mpf("1.1") * max(refs)


@pytest.mark.parametrize("alpha,beta,gamma", [(1, 0, -4), (0.25, 1, -2), (-0.1, 3, 1), (2, -5, 0),
                                              (-1, 0, -1), (0.5, 0.5, 0.5), (1e-3, 1, -100)])
def test_positive_part_integral_of_a_parabola(alpha, beta, gamma):
    """``int_{-1/2}^{1/2} (alpha + beta t + gamma t^2)_+ dt``: the bound holds the mpmath quadrature
    (split at the parabola's roots); for ``gamma <= 0`` it is within 1e-15 of it (exact formulas), for
    ``gamma > 0`` within the lift ``gamma / 4`` (the line above the parabola); the float piece where
    the parabola is positive holds every grid point where it is."""
    from certdp.engines.gaussian_mixture.tied_end import _parabola_piece, _positive_part_integral

    with working_precision(64):
        got = _positive_part_integral(arb(alpha), arb(beta), arb(gamma), arb(0.5))
    f = lambda t: max(alpha + beta * t + gamma * t * t, 0)  # noqa: E731
    cuts = [mpmath.mpf(-0.5), mpmath.mpf(0.5)]
    if gamma != 0 or beta != 0:
        cuts += [r.real for r in mpmath.polyroots([gamma, beta, alpha] if gamma else [beta, alpha])
                 if abs(r.imag) < 1e-30 and -0.5 < r.real < 0.5]
    cuts = sorted(cuts)
    exact = sum(mpmath.quad(f, [a, b]) for a, b in zip(cuts, cuts[1:]))
    with working_precision(128):
        assert _lo(got) >= exact - mpmath.mpf("1e-18")
        assert _hi(got) <= exact + mpmath.mpf("1e-15") + max(gamma, 0) / 4
    piece = _parabola_piece((arb(alpha), arb(beta), arb(gamma), arb(0.5)), -0.5, 0.5)
    for i in range(101):
        t = -0.5 + i / 100
        if alpha + beta * t + gamma * t * t > 1e-12:
            assert piece is not None and piece[0] - 1e-12 <= t <= piece[1] + 1e-12


@pytest.mark.slow
def test_alg1_calibration_at_eps_1_holds_the_lobe_boundary():
    """MG K = 50, Alg. 1 at (eps 1, delta 1e-12) (a timeout before stop 32; ~40-60 s): the certified
    bracket's private end has the reference's sup of ``H`` next to the tie below the target, and its
    other end above it (the lobes' mass at h = 5/4096, the peak's neighbourhood, by the independent
    reference; the engine's own decision used the whole shift range)."""
    cert = certdp.calibrate("multi-gaussian", epsilon=1, delta="1e-12", components=50, rtol="1e-6",
                            sensitivity=1)
    lo, hi = cert.interval
    assert (hi - lo) / hi <= 1e-6
    target = mpmath.mpf("0.99e-12")
    assert lobe_reference(str(lo), 50, Fraction(5, 4096)) > target * mpmath.mpf("0.5")
    assert lobe_reference(str(hi), 50, Fraction(5, 4096)) <= target
