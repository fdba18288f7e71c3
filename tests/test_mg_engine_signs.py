"""Engine, certified signs (:mod:`certdp.engines.gaussian_mixture.signs`) and the lattice kernel sums
of the model (:mod:`~certdp.engines.gaussian_mixture.model`): soundness against mpmath.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certdp.engines.gaussian_mixture import MixtureDifference, interval_ball, sqr
from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
from certdp.numbers import working_precision
from mg_reference import sixty_digits, _q, _mp, _arb_end, MGShiftRef  # noqa: F401  (sixty_digits: autouse fixture)


SIGN_MIXES = [("0.4", "2", 3), ("0.2", "10", 10), ("2.3", "1", 10), ("0.5", "1", 1)]


_REFS: dict = {}


def _sign_check(mix_i: int, u_lo: float, width_exp: float, phi_c: float, phi_exp: float, use_interval: bool,
                lo: float | None = None):
    sigma, eps, K = SIGN_MIXES[mix_i]
    s = float(sigma)
    with working_precision(128):
        e = arb(eps)
        mix = multi_gaussian_mixture(arb(sigma), e, arb(1), K)
        diff = MixtureDifference(mix, e.exp(), float(e), e)  # same object: ties exact (interval_sign)
        if lo is None:
            lo = float(-K - 1 - 6 * s + u_lo * (2 * K + 1 + 12 * s))
        hi = lo + s * 10.0 ** width_exp
        rad = 10.0 ** phi_exp
        pa, pb = max(1e-3, phi_c - rad), min(1.0, phi_c + rad)
        phi = interval_ball(pa, pb)
        sgn = diff.logratio_sign(lo, hi, phi)
        isg = diff.interval_sign(interval_ball(lo, hi), phi) if use_interval else 0
    checks = [(sgn, "logratio_sign")] + ([(isg, "interval_sign")] if use_interval else [])
    if all(c == 0 for c, _ in checks):
        return 0
    xs = [_q(lo) + (_q(hi) - _q(lo)) * Fraction(i, 4) for i in range(5)]
    ps = [_q(pa) + (_q(pb) - _q(pa)) * Fraction(j, 3) for j in range(4)]
    for p in ps:
        key = (mix_i, p)
        if key not in _REFS:
            _REFS[key] = MGShiftRef(sigma, eps, K, p)
        ref = _REFS[key]
        for x in xs:
            true = ref.sign(x)
            for c, name in checks:
                if c != 0:
                    assert true == c, (name, sigma, eps, K, lo, hi, pa, pb, float(x), float(p), c, true)
    return 1


@settings(max_examples=80, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(mix_i=st.integers(0, len(SIGN_MIXES) - 1), u_lo=st.floats(0, 1), width_exp=st.floats(-4, 0.5),
       phi_c=st.floats(0.05, 1.0), phi_exp=st.sampled_from([-12.0, -6.0, -3.0, -2.0]),
       near_delta=st.booleans())
def test_logratio_sign_sound(mix_i, u_lo, width_exp, phi_c, phi_exp, near_delta):
    """Whenever ``MixtureDifference.logratio_sign`` (and ``interval_sign``, ties exact) returns +1/-1 on
    [lo, hi] x phi-ball, mpmath (40-640 digits, exact grouped ties) finds the same sign of
    f(x+phi) - e^eps f(x) at the 5 x 4 grid of points including all corners."""
    if near_delta:
        phi_c = 1.0  # balls [1 - r, 1]: the tied shift phi = Delta is inside
    _sign_check(mix_i, u_lo, width_exp, phi_c, phi_exp, True)


ROOT_PHIS = (0.37, 0.8, 1.0)


_ROOTS: dict = {}


@settings(max_examples=120, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(mix_i=st.integers(0, len(SIGN_MIXES) - 1), phi_i=st.integers(0, len(ROOT_PHIS) - 1),
       root_u=st.floats(0, 1), offset=st.floats(-3, 2), width_exp=st.floats(-6, -0.5),
       phi_exp=st.sampled_from([-12.0, -8.0, -5.0, -3.0]))
def test_sign_tests_sound_next_to_roots(mix_i, phi_i, root_u, offset, width_exp, phi_exp):
    """Same check as above, with the pieces placed at or next to a root of D (mpmath root of the
    shift-ball centre), where the mean-value spread decides the answer: a piece [r + o w, r + (o+1) w]."""
    sigma, eps, K = SIGN_MIXES[mix_i]
    phi_c = ROOT_PHIS[phi_i]
    key = (mix_i, phi_c)
    if key not in _ROOTS:
        _ROOTS[key] = [float(r) for r in MGShiftRef(sigma, eps, K, _q(phi_c)).roots()]
    roots = _ROOTS[key]
    r = roots[min(int(root_u * len(roots)), len(roots) - 1)]
    w = float(sigma) * 10.0 ** width_exp
    _sign_check(mix_i, 0.0, width_exp, phi_c, phi_exp, True, lo=r + offset * w)


@pytest.mark.parametrize("sigma,eps,K", [("0.296553", "2", 10), ("0.05", "1", 5), ("2.5", "0.3", 3), ("0.01", "2", 20)])
def test_lattice_kernel_sums_contain_mpmath(sigma, eps, K):
    """``log_kernel_sum`` and ``posterior_mean`` (lattice polynomial form, the fast path of the
    log-ratio sign test) contain the direct 60-digit sums ``log sum_k w_k exp(-(y - k)^2 / 2 s^2)``
    and ``sum_k k w_k g / sum_k w_k g`` at points across the lattice, between lattice points and
    far into both tails, and are tight (a radius that swallowed the value would pass vacuously)."""
    s = _mp(_q(sigma))
    e = _mp(_q(eps))
    raw = [mpmath.exp(-abs(k) * e) for k in range(-K, K + 1)]
    z = mpmath.fsum(raw)
    ys = [-K - 9 * float(sigma) - 2.3, -K + 0.49, -1.5, -0.37, 0.0, 0.5, 1.0 / 3, K - 0.51, K + 12 * float(sigma) + 1.7]
    with working_precision(64):
        mix = multi_gaussian_mixture(arb(sigma), arb(eps), arb(1), K)
        for y in ys:
            terms = [(w / z) * mpmath.exp(-(_mp(_q(y)) - k) ** 2 / (2 * s * s)) for w, k in zip(raw, range(-K, K + 1))]
            log_k = mpmath.log(mpmath.fsum(terms))
            mean = mpmath.fsum(t * k for t, k in zip(terms, range(-K, K + 1))) / mpmath.fsum(terms)
            lk, pm = mix.log_kernel_sum(arb(y)), mix.posterior_mean(arb(y))
            for ball, ref in ((lk, log_k), (pm, mean)):
                assert _arb_end(ball.lower()) <= ref <= _arb_end(ball.upper()), (sigma, K, y, ball, ref)
                assert float(ball.rad()) <= 1e-12 * (1 + abs(float(ref))), (sigma, K, y, ball)


@pytest.mark.parametrize("sigma,eps,K", [("0.35", "0.75", 10), ("0.05", "2", 5), ("3", "0.1", 10), ("0.18", "10", 10)])
def test_kernel_sum_bounds_contain_mpmath_and_match_endpoint_form(sigma, eps, K):
    """``kernel_sum_bounds`` (partial lattice sums at the ball's ends, the fast path of the
    endpoint enclosure of ``D``) contains the 60-digit ``sum_k w_k exp(-(t - k)^2 / 2 s^2)`` at the
    ends and inside of balls across the lattice, on lattice points, between them and in the tails,
    at widths 1e-9 .. 0.5; and it is never wider than the per-term endpoint form it replaces."""
    s = _mp(_q(sigma))
    e = _mp(_q(eps))
    raw = [mpmath.exp(-abs(k) * e) for k in range(-K, K + 1)]
    z = mpmath.fsum(raw)
    rng = __import__("random").Random(7)
    with working_precision(64):
        mix = multi_gaussian_mixture(arb(sigma), arb(eps), arb(1), K)
        for i in range(120):
            c = float(rng.randint(-K, K)) if i % 5 == 0 else rng.uniform(-K - 4, K + 4)
            w = 10 ** rng.uniform(-9, -0.3)
            lo, hi = mix.kernel_sum_bounds(interval_ball(c - w / 2, c + w / 2))
            for t in (c - w / 2, c - w / 7, c, c + w / 2):
                ref = mpmath.fsum((wk / z) * mpmath.exp(-(_mp(_q(t)) - k) ** 2 / (2 * s * s))
                                  for wk, k in zip(raw, range(-K, K + 1)))
                assert _arb_end(lo.lower()) <= ref <= _arb_end(hi.upper()), (sigma, K, c, w, t)
            g_lo, g_hi = arb(0), arb(0)
            for comp, lw in zip(mix.components, mix._logw):
                ex = lw - sqr(interval_ball(c - w / 2, c + w / 2) - comp.mean) * mix._half_inv_s2
                g_lo += ex.lower().exp()
                g_hi += ex.upper().exp()
            assert _arb_end(hi.upper()) <= _arb_end(g_hi.upper()) * (1 + mpmath.mpf(10) ** -12)
            assert _arb_end(lo.lower()) >= _arb_end(g_lo.lower()) * (1 - mpmath.mpf(10) ** -12)


def test_logratio_sign_decides_often():
    """Guard for the property test above: on a seeded sample, the sign tests decide most pieces
    (a test that always returns 0 would pass vacuously). Reference: same mpmath checks."""
    import random

    rng = random.Random(1234)
    decided = 0
    for _ in range(25):
        decided += _sign_check(rng.randrange(len(SIGN_MIXES)), rng.random(), rng.uniform(-3, -1),
                               rng.uniform(0.1, 1.0), -6.0, False)
    assert decided >= 12
