"""Engine, bounds from end values (:mod:`certdp.engines.gaussian_mixture.ball_bounds`, mode boxes of
:mod:`~certdp.engines.gaussian_mixture.model`): envelope and chord bounds against the mpmath profile.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb

from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
from certdp.numbers import working_precision
from mg_reference import sixty_digits, _q, _mp, _exact, _mg_engine, _hi, ref_h  # noqa: F401  (sixty_digits: autouse fixture)


def _mp_mixture_derivatives(sigma, eps, K):
    """mpmath ``f'`` and ``f''`` of MG(sigma, K), weights ``e^{-|k| eps} / Z``, means ``k`` (Delta = 1)."""
    s, e = _mp(_q(sigma)), _mp(_q(eps))
    ks = range(-K, K + 1)
    z = mpmath.fsum(mpmath.exp(-abs(k) * e) for k in ks)
    w = {k: mpmath.exp(-abs(k) * e) / z / (s * mpmath.sqrt(2 * mpmath.pi)) for k in ks}

    def d1(x):
        return mpmath.fsum(-w[k] * (x - k) / s**2 * mpmath.exp(-(x - k) ** 2 / (2 * s**2)) for k in ks)

    def d2(x):
        return mpmath.fsum(w[k] * ((x - k) ** 2 / s**2 - 1) / s**2 * mpmath.exp(-(x - k) ** 2 / (2 * s**2))
                           for k in ks)

    return d1, d2


@pytest.mark.parametrize("sigma,eps,K", [("0.35063125", "0.75", 10), ("0.3085", "2", 10), ("0.18444", "10", 10),
                                         ("2.3", "1", 10), ("0.2", "8", 3)])
def test_mode_boxes_hold_every_mpmath_mode(sigma, eps, K):
    """``GaussianMixture.mode_boxes``: every local maximum of ``f`` (60-digit mpmath: sign changes of
    ``f'`` from + to - on a grid of step sigma / 20 over the means' range, refined by bisection) lies
    in a box, and the boxes are few and narrow (each holds at most one mode here)."""
    d1, _ = _mp_mixture_derivatives(sigma, eps, K)
    s = float(sigma)
    xs = [mpmath.mpf(-K) + i * mpmath.mpf(s) / 20 for i in range(int(2 * K / (s / 20)) + 2)]
    modes = []
    for a, b in zip(xs, xs[1:]):
        if d1(a) > 0 >= d1(b):
            for _ in range(60):
                a, b = (a, (a + b) / 2) if d1((a + b) / 2) <= 0 else ((a + b) / 2, b)
            modes.append(a)
    with working_precision(64):
        boxes = multi_gaussian_mixture(arb(sigma), arb(eps), arb(1), K).mode_boxes
    assert modes and len(boxes) <= 2 * len(modes) + 1, (len(modes), len(boxes))
    for m in modes:
        assert any(mpmath.mpf(a) <= m <= mpmath.mpf(b) for a, b in boxes), float(m)
    assert max(b - a for a, b in boxes) <= 0.1 * s


ENVELOPE_CASES = [
    # ends ~ 2e-11 and 4e-11, a sharp interior peak ~ 2.7e-5: all of it comes from the correction
    ("0.2", "8", 3, Fraction(7, 8), Fraction(1)),
    ("0.3075", "2", 5, Fraction(7, 8), Fraction(1)),
    # a narrow interval over the peak: the ends are at most 2.1e-5, the max 2.8e-5 (the chord bound
    # with the convex instead of the concave part of f stays at 2.1e-5)
    ("0.2", "8", 3, Fraction(29, 32), Fraction(59, 64)),
] + [pytest.param(*c, marks=pytest.mark.slow) for c in (
    # the peak H ~ 5.0e-3 inside; the end values sum to 4.2e-3 only: the mode correction is needed
    ("0.35063125", "0.75", 10, Fraction(19, 32), Fraction(29, 32)),
    ("0.18444", "10", 10, Fraction(29, 32), Fraction(31, 32)))]


@pytest.mark.parametrize("sigma,eps,K,qa,qb", ENVELOPE_CASES)
def test_envelope_and_chord_bounds_above_mpmath_profile(sigma, eps, K, qa, qb):
    """``ShiftEngine.envelope_bound`` and ``ShiftEngine.chord_bound`` from the certified end results bound the
    60-digit ``H`` at 9 shifts
    of the interval and at its mpmath argmax (ternary search). In the first and third cases the end values
    alone are below that max (2e-6 of it in the first), so the test fails without the correction
    at the modes of ``f`` (envelope) or without the concave part of ``f`` on the positive set (chord)."""
    with working_precision(64):
        eng = _mg_engine(sigma, eps, K)
        end_a, end_b = eng.value_at(_exact(qa)), eng.value_at(_exact(qb))
        bound = eng.envelope_bound(_exact(qa), _exact(qb), end_a.upper, end_b.upper)
        chord = eng.chord_bound(_exact(qa), _exact(qb), end_a, end_b)
    shifts = [qa + (qb - qa) * Fraction(i, 8) for i in range(9)]
    values = [ref_h(sigma, eps, K, t) for t in shifts]
    i = max(range(9), key=lambda j: values[j])
    lo, hi = shifts[max(i - 1, 0)], shifts[min(i + 1, 8)]
    for _ in range(10):  # ternary search on the reference (H is unimodal next to its max here)
        m1, m2 = (2 * lo + hi) / 3, (lo + 2 * hi) / 3
        if ref_h(sigma, eps, K, m1) < ref_h(sigma, eps, K, m2):
            lo = m1
        else:
            hi = m2
    top = max(values + [ref_h(sigma, eps, K, (lo + hi) / 2)])
    assert top <= _hi(bound), (float(top), float(_hi(bound)))
    assert top <= _hi(chord), (float(top), float(_hi(chord)))
