"""Engine, second-order model on a ball of shifts (:mod:`certdp.engines.gaussian_mixture.shift_model`):
``H'`` over a ball, the expansion and its grid model against mpmath.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb

from certdp.engines.gaussian_mixture import hockey_stick_at_shift, interval_ball
from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
from certdp.numbers import working_precision
from mg_reference import sixty_digits, DPS, _q, _mp, _exact, _mg_engine, _lo, _hi, ref_h  # noqa: F401  (sixty_digits: autouse fixture)


PHI_BALLS = [
    # (sigma, eps, K, phi_lo, phi_hi)
    ("0.4", "2", 3, 0.5, 0.5 + 2.0 ** -12),
    ("0.4", "2", 3, 1 - 2.0 ** -10, 1.0),          # contains the tied shift Delta
    ("2.3", "1", 10, 0.75, 0.75 + 2.0 ** -8),
    ("0.2", "8", 3, 0.9155, 0.9155 + 2.0 ** -14),  # at the sharp interior peak
]


@pytest.mark.parametrize("sigma,eps,K,pa,pb", PHI_BALLS)
def test_shift_ball_value_and_derivative(sigma, eps, K, pa, pb):
    """A ball of shifts [pa, pb]: ``hockey_stick_at_shift`` must enclose the mpmath H at pa, pb and
    the midpoint, and the engine's ``derivative_on`` enclosure of H' over the ball must contain the
    mpmath difference quotient (H(pb) - H(pa)) / (pb - pa) = H'(xi) for some xi in the ball
    (mean value theorem)."""
    from certdp.engines.gaussian_mixture import ShiftEngine

    with working_precision(128):
        e = arb(eps)
        mix = multi_gaussian_mixture(arb(sigma), e, arb(1), K)
        phi = interval_ball(pa, pb)
        val = hockey_stick_at_shift(mix, e, phi)
        dh = ShiftEngine(mix, e, 1e-12, 1e-14).derivative_on(phi)
    qa, qb = _q(pa), _q(pb)
    ha, hb = ref_h(sigma, eps, K, qa), ref_h(sigma, eps, K, qb)
    hm = ref_h(sigma, eps, K, (qa + qb) / 2)
    lo, hi = _lo(val.lower), _hi(val.upper)
    for h in (ha, hm, hb):
        assert lo <= h <= hi, (lo, h, hi)
    slope = (hb - ha) / _mp(qb - qa)
    assert _lo(dh) <= slope <= _hi(dh), (_lo(dh), slope, _hi(dh))


# balls where the second-order model is exercised: clean roots at the sharp interior peak, a
# root pair born inside the ball (phi ~ 0.703 for K = 10, sigma = 0.2966, eps = 2), and balls
# ending at the tied shift Delta (the narrow runs vanish there and a root runs off quickly)
EXPANSION_BALLS = [
    ("0.3075", "2", 5, 0.955, 0.956),
    ("0.3075", "2", 5, 0.9599, 0.9609),
    ("0.296553", "2", 10, 0.6875, 0.703125),
    ("0.3075", "2", 5, 1 - 2.0 ** -17, 1.0),
    ("0.4", "2", 3, 1 - 2.0 ** -10, 1.0),
    ("2.3", "1", 10, 0.75, 0.75 + 2.0 ** -8),
]


@pytest.mark.parametrize("sigma,eps,K,pa,pb", EXPANSION_BALLS)
def test_shift_expansion_bounds_mpmath(sigma, eps, K, pa, pb):
    """The second-order shift model of ``ShiftEngine.shift_expansion`` on a ball ``[pa, pb]`` around its
    midpoint ``m``: (i) its derivative enclosure holds the mpmath difference quotients over
    ``[pa, m]`` and ``[m, pb]``; (ii) ``H(t) - H(m) <= rise(|t - m|)`` and
    ``H(t) - max(H(pa), H(m), H(pb)) <= chord_rise`` for t at both ends, the quarter and the
    eighth points, with H from the mpmath reference; (iii) the rise is second order where the
    model is clean (it must shrink faster than linearly from a ball to its half)."""
    from certdp.engines.gaussian_mixture import ShiftEngine

    mpmath.mp.dps = DPS
    with working_precision(64):
        e = arb(eps)
        mix = multi_gaussian_mixture(arb(sigma), e, arb(1), K)
        eng = ShiftEngine(mix, e, 1e-4, 1e-9)
        ball = interval_ball(pa, pb)
        qm = (_q(pa) + _q(pb)) / 2
        mid = arb(qm.numerator) / qm.denominator
        ex = eng.shift_expansion(ball, mid)
        offsets = ball - mid
        dh = ex.derivative(offsets)
        h = offsets.abs_upper()
        rise = ex.rise(h)
        chord = ex.chord_rise((arb(pb) - arb(pa)) / 2)
    qa, qb = _q(pa), _q(pb)
    hm = ref_h(sigma, eps, K, qm)
    top = max(hm, ref_h(sigma, eps, K, qa), ref_h(sigma, eps, K, qb))
    for t in (qa, qb, (qa + qm) / 2, (qm + qb) / 2, (3 * qa + qm) / 4, (qm + 3 * qb) / 4):
        ht = ref_h(sigma, eps, K, t)
        assert ht - hm <= _hi(rise), (float(t), ht - hm, _hi(rise))
        # the chord form: above the largest of the three point values by at most chord_rise
        assert ht - top <= _hi(chord), (float(t), ht - top, _hi(chord))
        if t != qm:
            slope = (ht - hm) / _mp(t - qm)
            assert _lo(dh) <= slope <= _hi(dh), (_lo(dh), slope, _hi(dh))
    assert _hi(rise) < 1  # a real bound, not the trivial H <= 1


GRID_BALLS = [
    ("0.4", "2", 3, 1 - 2.0 ** -10, 1.0),
    ("0.35063125", "0.75", 10, 0.75, 0.8125),
] + [pytest.param(*b, marks=pytest.mark.slow) for b in (
    ("0.296553", "2", 10, 0.6875, 0.703125), ("0.35063125", "0.75", 10, 0.5625, 0.625),
    ("0.3075", "2", 5, 0.955, 0.956), ("0.3075", "2", 5, 0.9599, 0.9609), ("0.3075", "2", 5, 1 - 2.0 ** -17, 1.0),
    ("2.3", "1", 10, 0.75, 0.75 + 2.0 ** -8), ("0.35063125", "0.75", 10, 0.6875, 0.75))]


@pytest.mark.parametrize("sigma,eps,K,pa,pb", GRID_BALLS)
def test_grid_model_bounds_mpmath(sigma, eps, K, pa, pb):
    """The grid model of ``ShiftEngine.shift_expansion`` (8 sub-balls through the midpoint): at every grid
    point ``t_j`` the enclosure ``A_j + sum dh`` of ``H'(t_j)`` holds the mpmath derivative (central
    difference of the 60-digit ``H``, step 1e-9 of the ball; every other grid point);
    ``piecewise_sup`` from the certified point values at the two ends and the midpoint is above the
    mpmath ``H`` at the 8 sub-balls' midpoints; and a monotone verdict agrees with the mpmath values."""
    qa, qb = _q(pa), _q(pb)
    qm = (qa + qb) / 2
    steps = [qa + (qm - qa) * Fraction(i, 4) for i in range(4)] + [qm + (qb - qm) * Fraction(i, 4) for i in range(5)]

    with working_precision(64):
        eng = _mg_engine(sigma, eps, K)
        ex = eng.shift_expansion(_exact(qa).union(_exact(qb)), _exact(qm), grid=[_exact(t) for t in steps])
        known = {i: eng.value_at(_exact(steps[i])).upper for i in (0, 4, 8)}
        bound = ex.piecewise_sup(known)
        monotone = ex.monotone_on_grid()
        dh = sum((d for d, _ in ex.crude), arb(0))
    step = (qb - qa) / 10**9
    for j, t in list(enumerate(steps))[::2]:
        lo_t, hi_t = max(t - step, Fraction(0)), min(t + step, Fraction(1))
        slope = (ref_h(sigma, eps, K, hi_t) - ref_h(sigma, eps, K, lo_t)) / _mp(hi_t - lo_t)
        enc = ex.grid_values[j] + dh
        # a central difference is within ~step^2 of H'(t_j) (one-sided at Delta: within ~step)
        slack = mpmath.mpf(10) ** -6 * (1 + abs(slope))
        assert _lo(enc) - slack <= slope <= _hi(enc) + slack, (j, float(t), _lo(enc), slope, _hi(enc))
    # the sub-balls' midpoints: the model's bound is weakest away from the grid points
    values = [ref_h(sigma, eps, K, qa + (qb - qa) * Fraction(2 * i + 1, 16)) for i in range(8)]
    assert max(values) <= _hi(bound), (max(values), _hi(bound))
    assert _hi(bound) < 1
    if monotone:
        assert all(monotone * (v1 - v0) >= 0 for v0, v1 in zip(values, values[1:]))


def test_shift_expansion_is_second_order_at_the_peak():
    """At the sharp interior peak of MG(0.3075, K = 5, eps = 2) every root is clean and the rise
    must be ``|H'(m)| h + O(h^2)`` with a small constant: at most ``2 |H'(m)| h + 0.05 h^2``
    (mpmath ``H'(m)`` by a central difference; ``|H''| ~ 0.0064`` there), where a first-order
    bound from a ball enclosure of ``H'`` (the previous engine) was ``~14 h^2`` and the global
    Lipschitz bound is ``1.3 h``."""
    from certdp.engines.gaussian_mixture import ShiftEngine

    with working_precision(64):
        e = arb(2)
        mix = multi_gaussian_mixture(arb("0.3075"), e, arb(1), 5)
        eng = ShiftEngine(mix, e, 1e-4, 1e-9)
        c = Fraction(96, 100)
        for w in (2.0 ** -10, 2.0 ** -12):
            ball, mid = interval_ball(float(c) - w / 2, float(c) + w / 2), arb(c.numerator) / c.denominator
            ex = eng.shift_expansion(ball, mid)
            assert not ex.crude, "the model should be clean at the peak"
            h = (ball - mid).abs_upper()
            rise = _hi(ex.rise(h))
            step = Fraction(1, 10**6)
            d1 = abs(ref_h("0.3075", "2", 5, c + step) - ref_h("0.3075", "2", 5, c - step)) / (2 * _mp(step))
            hf = _hi(h)
            assert rise <= 2 * d1 * hf + mpmath.mpf("0.05") * hf ** 2, (w, rise, d1)
