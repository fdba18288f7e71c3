"""Engine, one shift (:mod:`certdp.engines.gaussian_mixture.shift_value`): ``H(phi)`` at fixed shifts,
for balls of epsilon, at the tied shift, and the reference's self-check.
"""

from __future__ import annotations

import mpmath
import pytest
from flint import arb

from certdp.engines.gaussian_mixture import hockey_stick_at_shift, interval_ball
from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
from certdp.numbers import working_precision
from mg_reference import sixty_digits, _q, _mg_engine, _lo, _hi, MGShiftRef, ref_h  # noqa: F401  (sixty_digits: autouse fixture)


def test_reference_against_plain_quadrature():
    """Self-check of the reference: the CDF-sum H(phi) agrees with mpmath.quad of (D)_+ split at
    its roots (densities written directly, no grouping) for a case without ties."""
    sigma, eps, K, phi = "0.45", "1", 2, "0.7"
    ref = ref_h(sigma, eps, K, phi)
    s, e, p = mpmath.mpf(sigma), mpmath.mpf(eps), mpmath.mpf(phi)
    ws = [mpmath.exp(-abs(k) * e) for k in range(-K, K + 1)]
    z = sum(ws)

    def f(x):
        return sum(w * mpmath.npdf(x, k, s) for w, k in zip(ws, range(-K, K + 1))) / z

    d = lambda x: f(x + p) - mpmath.exp(e) * f(x)  # noqa: E731
    roots = MGShiftRef(sigma, eps, K, phi).roots()
    pts = sorted(set([mpmath.mpf(-K - 1 - 20 * s)] + roots + [mpmath.mpf(K + 20 * s)]
                     + [mpmath.mpf(x) / 2 for x in range(int(-(K + 1 + 20 * 0.45) * 2), int((K + 20 * 0.45) * 2))]))
    quad = sum((mpmath.quad(d, [a, b]) for a, b in zip(pts, pts[1:]) if d((a + b) / 2) > 0), mpmath.mpf(0))
    assert abs(quad - ref) <= mpmath.mpf("1e-30") * ref, (quad, ref)


FIXED_CASES = [
    # (sigma, eps, K, phi, Delta)
    ("0.5", "1", 1, "1", "1"),            # K = 1 at phi = Delta: the k = -1 -> 0 pair ties
    ("0.3", "3", 1, "0.6", "1"),
    ("0.4", "2", 3, "1", "1"),
    ("0.25", "0.5", 3, "0.37", "1"),      # 13 sign changes of D (= the Descartes bound)
    ("0.3", "1.5", 3, "0.5", "0.5"),      # Delta != 1, phi = Delta
    ("0.2", "10", 10, "0.93", "1"),       # well separated, H ~ 2e-44
    ("0.2", "10", 10, "1", "1"),          # well separated, ties, H ~ 4e-44
    ("2.3", "1", 10, "1", "1"),           # wide, ties
    ("2.3", "1", 10, "0.41", "1"),        # wide, H ~ 2e-14
    ("0.7", "0.3", 10, "1", "1"),
    ("0.3", "0.05", 10, "0.2", "1"),      # small eps, H ~ 0.11
    ("0.4", "2", 3, "0.05", "1"),         # tiny shift: H ~ 2.5e-62, far-left root outside the window
]


# relative width (upper - lower) / H the enclosure must achieve, (ties, noties); None: not checked.
# At eps = 10, phi = Delta, H ~ 4e-44 is a cancellation of tied terms ~ 1e-22: with exact ties the
# root piece still costs ~0.5% (mid-rad enclosure of D on it); without ties the tied pairs cannot
# be signed in 128 bits, the point budget runs out and upper is a valid but useless ~32.
# For phi = 0.05 the only positive run is (-inf, ~ -11) (root at -K - s^2 eps/phi): the engine's
# window does not reach it and the tail mass (~1e-39 at delta_scale 1e-12) is the upper bound.
WIDTH = {("0.2", "10", 10, "1", "1"): (1e-2, None), ("0.4", "2", 3, "0.05", "1"): (None, None)}


def _engine_value(sigma, eps, K, phi, delta, same_eps: bool, shape_eps=None):
    # the tail window is set from delta_scale; the eps = 10 cases have H ~ 1e-44
    scale = 1e-46 if eps == "10" else 1e-12
    with working_precision(128):
        e = arb(eps)
        se = e if shape_eps is None else arb(shape_eps)
        mix = multi_gaussian_mixture(arb(sigma), se, arb(delta), K)
        eng_eps = e if same_eps else arb(eps)
        assert (mix.design_epsilon is eng_eps) == (same_eps and shape_eps is None)
        return hockey_stick_at_shift(mix, eng_eps, arb(phi), delta_scale=scale)


@pytest.mark.parametrize("same_eps", [True, False], ids=["ties", "noties"])
@pytest.mark.parametrize("sigma,eps,K,phi,delta", FIXED_CASES)
def test_hockey_stick_at_shift_encloses_mpmath(sigma, eps, K, phi, delta, same_eps):
    """``hockey_stick_at_shift`` lower <= H <= upper, H from :class:`MGShiftRef` (mpmath roots +
    exact Gaussian-CDF sums, 60+ digits). ``ties``: the engine's epsilon is the mixture's design
    epsilon object (exact ties used); ``noties``: an equal but distinct arb (ties off)."""
    res = _engine_value(sigma, eps, K, phi, delta, same_eps)
    ref = ref_h(sigma, eps, K, phi, delta)
    lo, hi = _lo(res.lower), _hi(res.upper)
    assert lo <= ref <= hi, (sigma, eps, K, phi, delta, same_eps, lo, ref, hi)
    # the enclosure is informative, not only valid
    assert ref > 0
    tol = WIDTH.get((sigma, eps, K, phi, delta), (1e-6, 1e-6))[0 if same_eps else 1]
    if tol is not None:
        assert hi - lo <= mpmath.mpf(tol) * ref, (lo, ref, hi)


@pytest.mark.parametrize("sigma,K,shape", [("0.4", 3, "0.5"), ("0.4", 3, "1.0000000001"), ("2.3", 10, "1.0000000001")])
def test_hockey_stick_shape_epsilon_differs_from_eps(sigma, K, shape):
    """Mixture designed for a shape epsilon != eps = 1, evaluated at phi = Delta: no exact ties exist.
    Shape 1 + 1e-10 is within the engine's float pairing tolerance (pairs are formed), so the tie
    coefficient w_{k+1} - e^eps w_k ~ 1e-10 w must NOT be replaced by 0 (the design epsilon is a
    different ball). Reference: mpmath with two independent weight exponents (no cancellation)."""
    res = _engine_value(sigma, "1", K, "1", "1", True, shape_eps=shape)
    ref = ref_h(sigma, "1", K, "1", 1, shape_eps=shape)
    tied = ref_h(sigma, "1", K, "1", 1)
    assert ref != tied
    assert _lo(res.lower) <= ref <= _hi(res.upper), (_lo(res.lower), ref, _hi(res.upper), tied)
    assert _hi(res.upper) - _lo(res.lower) <= mpmath.mpf("1e-6") * ref


EPS_LO, EPS_HI = 1 - 1e-10, 1 + 1e-10


@pytest.mark.parametrize("same_eps", [True, False], ids=["ties", "noties"])
@pytest.mark.parametrize("sigma,K,phi", [("0.4", 3, "1"), ("0.3", 3, "0.8")])
def test_hockey_stick_epsilon_ball(sigma, K, phi, same_eps):
    """Epsilon a ball [1 - 1e-10, 1 + 1e-10] (mixture weights AND the engine's e^eps built from it):
    the enclosure must hold at every point, checked at both ends and the centre, where the mpmath
    reference uses weights and e^eps from that same point (the exact tie w_{k+1} = e^eps w_k holds
    pointwise, never between two different points of the ball). With ties the enclosure must also
    be informative. Without ties only soundness is required: at phi = Delta the engine returns a
    valid but vacuous [0, ~11] there (and already for radius 1e-6 with ties, see the report)."""
    with working_precision(128):
        e = interval_ball(EPS_LO, EPS_HI)
        mix = multi_gaussian_mixture(arb(sigma), e, arb(1), K)
        eng_eps = e if same_eps else e + 0
        assert (mix.design_epsilon is eng_eps) == same_eps
        res = hockey_stick_at_shift(mix, eng_eps, arb(phi))
    lo, hi = _lo(res.lower), _hi(res.upper)
    refs = [ref_h(sigma, _q(pt), K, phi) for pt in (EPS_LO, 1.0, EPS_HI)]
    for ref in refs:
        assert lo <= ref <= hi, (lo, ref, hi)
    if same_eps:
        assert hi - lo <= mpmath.mpf("1e-6") * max(refs), (lo, refs, hi)


@pytest.mark.parametrize("sigma,eps,K", [("0.35063125", "0.75", 10), ("0.3075", "2", 5), ("2.3", "1", 10)])
def test_tie_upper_bound_above_mpmath_at_the_tied_shift(sigma, eps, K):
    """``ShiftEngine.tie_upper_bound`` at ``phi = Delta`` bounds the 60-digit ``H(Delta)``; for sigma < Delta
    it is within 1e-3 of it (``H(Delta)`` is then carried by the unmatched end component); at a shift
    that matches no components it declines (None)."""
    with working_precision(64):
        eng = _mg_engine(sigma, eps, K)
        bound = eng.tie_upper_bound(arb(1))
        assert eng.tie_upper_bound(arb(1) / 2) is None
    ref = ref_h(sigma, eps, K, 1)
    assert ref <= _hi(bound), (ref, _hi(bound))
    if float(sigma) < 1:
        assert _hi(bound) <= ref * (1 + mpmath.mpf("1e-3")), (ref, _hi(bound))


def test_tie_upper_bound_counts_a_positive_matched_coefficient():
    """A two-component mixture ``0.1 N(0, s^2) + 0.9 N(1, s^2)`` at ``phi = 1``, eps = 0.1: the shifted
    heavy component lands on the light one with coefficient ``0.9 - e^0.1 0.1 > 0``; the bound must
    count it (plus the unmatched weight 0.1) and hold the mpmath ``H(1)`` by quadrature."""
    from certdp.engines.gaussian_mixture import Component, GaussianMixture, ShiftEngine

    s, e = mpmath.mpf("0.3"), mpmath.mpf("0.1")

    def f(x):
        return (mpmath.mpf("0.1") * mpmath.npdf(x, 0, s) + mpmath.mpf("0.9") * mpmath.npdf(x, 1, s))

    ref = mpmath.quad(lambda x: max(f(x + 1) - mpmath.exp(e) * f(x), 0), [-6, -1, -0.5, 0, 0.5, 1, 6])
    with working_precision(64):
        mix = GaussianMixture([Component(arb("0.1"), arb(0)), Component(arb("0.9"), arb(1))], arb("0.3"))
        bound = ShiftEngine(mix, arb("0.1"), 1e-4, 1e-9).tie_upper_bound(arb(1))
    assert ref <= _hi(bound) <= 1, (ref, _hi(bound))
    assert ref > mpmath.mpf("0.5")  # most of H comes from the matched pair


TIED_CASES = [("0.28", "0.1", 10), ("0.3", "1", 10), ("0.6", "0.5", 3), ("0.15", "2", 5), ("1.3", "0.25", 10),
               ("0.2", "10", 10)]


@pytest.mark.parametrize("sigma,eps,K", TIED_CASES)
def test_tied_value_encloses_mpmath_at_the_tied_shift(sigma, eps, K):
    """``ShiftEngine.tied_value`` at ``phi = Delta`` (matched terms merged, one sign change, one root) holds
    the 60-digit ``H(Delta)`` to 1e-15 relative, also where it is 4e-44 (eps = 10) and where sigma > Delta;
    it declines (None) at a shift that matches no components. ``value_at`` must take this route."""
    with working_precision(64):
        eng = _mg_engine(sigma, eps, K)
        res = eng.tied_value(arb(1))
        assert eng.tied_value(arb(1) / 2) is None
        via_value_at = eng.value_at(arb(1))
    ref = ref_h(sigma, eps, K, 1)
    assert res is not None
    assert _lo(res.lower) <= ref <= _hi(res.upper), (_lo(res.lower), ref, _hi(res.upper))
    assert _hi(res.upper) - _lo(res.lower) <= mpmath.mpf("1e-15") * ref
    assert _lo(via_value_at.lower) == _lo(res.lower) and _hi(via_value_at.upper) == _hi(res.upper)


def _two_sided_reference(weights, means, s, e, phi) -> mpmath.mpf:
    """``H(phi)`` for ``sum w_i N(m_i, s^2)`` by mpmath quadrature of ``D_+`` split at every root of ``D``
    found by a sign scan and bisection (independent of the engine's merged-term formula)."""
    def f(x):
        return sum(w * mpmath.npdf(x, m, s) for w, m in zip(weights, means))

    def d(x):
        return f(x + phi) - mpmath.exp(e) * f(x)

    grid = [mpmath.mpf(-8) + mpmath.mpf(i) / 100 for i in range(1801)]
    roots = [mpmath.findroot(d, (a, b), solver="anderson") for a, b in zip(grid, grid[1:]) if d(a) * d(b) < 0]
    edges = [-mpmath.inf] + roots + [mpmath.inf]
    return sum((mpmath.quad(d, [a, b]) for a, b in zip(edges, edges[1:])
                if d((a + b) / 2 if mpmath.isfinite(a + b) else (b - 1 if mpmath.isfinite(b) else a + 1)) > 0),
               mpmath.mpf(0))


def test_tied_value_with_a_positive_matched_coefficient_and_its_limit():
    """Two tied shifts of non-MG mixtures, against mpmath quadrature split at the roots:
    ``0.1 N(0) + 0.9 N(1)`` at ``phi = 1`` (eps = 0.1, s = 0.3) merges to signs ``+, +, -`` (one change:
    ``tied_value`` applies, and most of ``H`` comes from the positive matched pair);
    ``0.45 N(0) + 0.1 N(1) + 0.45 N(2)`` merges to ``+, -, +, -`` (three changes): it must decline, and
    ``value_at`` (the general route) must still hold the reference."""
    from certdp.engines.gaussian_mixture import Component, GaussianMixture, ShiftEngine

    s, e = mpmath.mpf("0.3"), mpmath.mpf("0.1")
    for weights, expect in ((("0.1", "0.9"), True), (("0.45", "0.1", "0.45"), False)):
        ref = _two_sided_reference([mpmath.mpf(w) for w in weights], list(range(len(weights))), s, e, 1)
        with working_precision(64):
            mix = GaussianMixture([Component(arb(w), arb(i)) for i, w in enumerate(weights)], arb("0.3"))
            eng = ShiftEngine(mix, arb("0.1"), 1e-4, 1e-9)
            tied = eng.tied_value(arb(1))
            general = eng.value_at(arb(1))
        assert (tied is not None) is expect, weights
        for res in ([tied] if expect else []) + [general]:
            assert _lo(res.lower) <= ref <= _hi(res.upper), (weights, _lo(res.lower), ref, _hi(res.upper))
            assert _hi(res.upper) - _lo(res.lower) <= mpmath.mpf("1e-9") * ref
    assert ref > 0


def test_multi_gaussian_core_slack_encloses_the_full_profile():
    """``multi_gaussian_core`` drops MG's outer components and returns the certified slack
    ``(1 + e^eps) * (their weight)``: the engine's enclosure of ``H`` for the core, widened by it,
    holds the 60-digit ``H`` of the *full* mixture at shifts across ``[0, Delta]``. The allowance
    (1e-4) is set so large that the dropped components visibly matter: the core's enclosure alone
    misses the full ``H`` somewhere (else this test could not fail without the slack)."""
    from certdp.mechanisms.multi_gaussian import multi_gaussian_core

    sigma, eps, K = "0.3", "3", 6
    with working_precision(64):
        e = arb(eps)
        core, slack = multi_gaussian_core(arb(sigma), e, arb(1), K, e, arb("1e-4"))
        assert 1 <= len(core.components) < 2 * K + 1
        assert slack <= arb("1e-4")
        results = {p: hockey_stick_at_shift(core, e, arb(p)) for p in ("0.25", "0.5", "0.75", "1")}
    missed = False
    for p, r in results.items():
        ref = ref_h(sigma, eps, K, p)
        assert _lo((r.lower - slack)) <= ref <= _hi(r.upper + slack), (p, ref)
        missed = missed or not (_lo(r.lower) <= ref <= _hi(r.upper))
    assert missed
