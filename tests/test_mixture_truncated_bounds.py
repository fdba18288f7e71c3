"""End-value bounds for truncated mixtures (:attr:`GaussianMixture.convex_kinks`): the envelope and
chord bounds of :mod:`certdp.engines.gaussian_mixture.ball_bounds` for mixtures with half-line
components (QG and an MG with a QG-style side pair), against a 60-digit mpmath hockey-stick.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb

from certdp.engines.gaussian_mixture import Component, GaussianMixture, ShiftEngine, privacy_profile_sup
from certdp.mechanisms.quasi_gaussian import quasi_gaussian_mixture
from certdp.numbers import normal_cdf, working_precision


@pytest.fixture(autouse=True)
def _sixty_digits():
    with mpmath.workdps(60):
        yield


def _mpf(x) -> mpmath.mpf:
    q = Fraction(x)
    return mpmath.mpf(q.numerator) / q.denominator


class TruncatedRef:
    """``f = sum_j w_j N(m_j, s^2) 1[x in S_j]`` in mpmath (``S_j`` = R, ``x >= 0`` or ``x < 0``);
    ``H(phi) = int (f(x + phi) - e^eps f(x))_+ dx`` by exact CDF sums over the positive runs of
    ``D``, whose sign changes are found on a grid of step ``sigma / 10`` (plus both breakpoints) and
    bisected."""

    def __init__(self, terms, sigma, eps):
        self.terms = terms  # (weight, mean, support): support None, +1 (x >= 0) or -1 (x < 0)
        self.s = sigma
        self.big = mpmath.e ** eps

    def f(self, x):
        return mpmath.fsum(w * mpmath.npdf(x, m, self.s) for w, m, sup in self.terms
                           if sup is None or (sup > 0) == (x >= 0))

    def slope(self, x):
        """``f'(x)`` (one-sided at 0: the side of ``x``)."""
        return mpmath.fsum(-w * (x - m) / self.s**2 * mpmath.npdf(x, m, self.s) for w, m, sup in self.terms
                           if sup is None or (sup > 0) == (x >= 0))

    def cdf(self, x):
        out = mpmath.mpf(0)
        for w, m, sup in self.terms:
            if sup is None:
                out += w * mpmath.ncdf(x, m, self.s)
            elif sup < 0:
                out += w * mpmath.ncdf(min(x, 0), m, self.s)
            elif x > 0:
                out += w * (mpmath.ncdf(x, m, self.s) - mpmath.ncdf(0, m, self.s))
        return out

    def h(self, phi) -> mpmath.mpf:
        phi = _mpf(phi)
        d = lambda x: self.f(x + phi) - self.big * self.f(x)
        means = [m for _, m, _ in self.terms]
        lo, hi = min(means) - 14 * self.s, max(means) + 14 * self.s
        n = int((hi - lo) / (self.s / 10)) + 1
        xs = sorted({lo + (hi - lo) * i / n for i in range(n + 1)} | {mpmath.mpf(0), -phi})
        positive = [d(x) > 0 for x in xs]
        roots = []
        for a, b, pa, pb in zip(xs, xs[1:], positive, positive[1:]):
            if pa != pb:
                for _ in range(100):
                    m = (a + b) / 2
                    a, b = (m, b) if (d(m) > 0) == pa else (a, m)
                roots.append((a + b) / 2)
        edges = [-mpmath.inf] + roots + [mpmath.inf]
        total = mpmath.mpf(0)
        for a, b in zip(edges, edges[1:]):
            probe = (a + b) / 2 if a != -mpmath.inf and b != mpmath.inf else (
                b - 1 if b != mpmath.inf else (a + 1 if a != -mpmath.inf else mpmath.mpf(0)))
            if d(probe) > 0:
                cb = self.cdf(b + phi) if b != mpmath.inf else mpmath.fsum(w for w, _, _ in self.terms)
                ca = self.cdf(a + phi) if a != -mpmath.inf else mpmath.mpf(0)
                cb0 = self.cdf(b) if b != mpmath.inf else mpmath.fsum(w for w, _, _ in self.terms)
                ca0 = self.cdf(a) if a != -mpmath.inf else mpmath.mpf(0)
                total += (cb - ca) - self.big * (cb0 - ca0)
        return total


def _qg(sigma: str, eps: str):
    """QG(sigma) at its design eps (Delta = 1): the engine mixture and its mpmath reference."""
    s, e = _mpf(sigma), _mpf(eps)
    z = mpmath.e ** e + 2 * mpmath.ncdf(1 / s)
    ref = TruncatedRef([(1 / z, -1, -1), (mpmath.e ** e / z, 0, None), (1 / z, 1, +1)], s, e)
    return quasi_gaussian_mixture(arb(sigma), arb(eps), arb(1)), ref


def _mg_with_side_pair(sigma: str, eps: str, K: int, side: str, mean: str):
    """MG(sigma, K) plus the pair ``side * N(-mean) 1[x < 0] + side * N(mean) 1[x >= 0]``: continuous at 0,
    its slope jumps up there by ``2 side mean / s^2 N(mean; 0, s^2) > 0`` (a convex kink), and it keeps
    MG's sharp interior peak of ``H`` (sigma 0.2, eps 8)."""
    s, e, c, mu = _mpf(sigma), _mpf(eps), _mpf(side), _mpf(mean)
    ws = {k: mpmath.e ** (-abs(k) * e) for k in range(-K, K + 1)}
    z = mpmath.fsum(ws.values()) + 2 * c * mpmath.ncdf(mu / s)
    ref = TruncatedRef([(w / z, k, None) for k, w in ws.items()] + [(c / z, -mu, -1), (c / z, mu, +1)], s, e)
    ea, ca, ma = arb(eps), arb(side), arb(mean)
    wa = {k: (-abs(k) * ea).exp() for k in ws}
    za = sum(wa.values(), arb(0)) + 2 * ca * normal_cdf(ma / arb(sigma))
    comps = [Component(w / za, arb(k)) for k, w in wa.items()]
    comps += [Component(ca / za, -ma, (0.0, -1)), Component(ca / za, ma, (0.0, +1))]
    return GaussianMixture(comps, arb(sigma)), ref


def _top_of_reference(ref: TruncatedRef, qa: Fraction, qb: Fraction) -> mpmath.mpf:
    """The mpmath max of ``H`` over 9 shifts of ``[qa, qb]`` and a ternary search (6 steps) next to the best."""
    shifts = [qa + (qb - qa) * Fraction(i, 8) for i in range(9)]
    values = [ref.h(t) for t in shifts]
    i = max(range(9), key=lambda j: values[j])
    lo, hi = shifts[max(i - 1, 0)], shifts[min(i + 1, 8)]
    for _ in range(6):
        m1, m2 = (2 * lo + hi) / 3, (lo + 2 * hi) / 3
        lo, hi = (m1, hi) if ref.h(m1) < ref.h(m2) else (lo, m2)
    return max(values + [ref.h((lo + hi) / 2)])


def _hi(ball: arb) -> mpmath.mpf:
    return mpmath.mpf(ball.upper().str(40, radius=False)) * (1 + mpmath.mpf("1e-35"))


def test_kinks_of_qg_are_convex_and_a_concave_kink_is_refused():
    """QG's slope jumps up at 0 (``2 w1 Delta / s^2 N(Delta; 0, s^2)``), so its mode boxes exist; the same
    pair with the supports swapped (``N(+1)`` on ``x < 0``, ``N(-1)`` on ``x >= 0``: continuous, slope
    jumping down) may hold a local maximum at the kink, and the end-value bounds are refused."""
    with working_precision(64):
        mix, _ = _qg("0.3", "1")
        assert mix.convex_kinks and mix.mode_boxes
        w = mix.components[0].weight
        swapped = GaussianMixture([Component(w, arb(1), (0.0, -1)), mix.components[1],
                                   Component(w, arb(-1), (0.0, +1))], mix.sigma)
        assert not swapped.convex_kinks and swapped.mode_boxes is None
        eng = ShiftEngine(swapped, arb(1), 1e-12, 1e-9)
        a, b = eng.value_at(arb(0.5)), eng.value_at(arb(0.75))
        assert eng.envelope_bound(arb(0.5), arb(0.75), a.upper, b.upper) is None
        assert eng.chord_bound(arb(0.5), arb(0.75), a, b) is None
        # a jump in the value itself (supports that do not meet) is refused too
        gap = GaussianMixture([Component(w, arb(-1), (0.0, -1)), mix.components[1],
                               Component(2 * w, arb(1), (0.0, +1))], mix.sigma)
        assert not gap.convex_kinks


@pytest.mark.parametrize("sigma,eps", [("0.3", "1"), ("0.05", "4")])
def test_qg_mode_boxes_hold_every_mpmath_mode(sigma, eps):
    """Every local maximum of the QG density (sign changes of the 60-digit ``f'`` from + to - on both
    sides of the kink, where two modes sit within ``1e-2 sigma`` of it at sigma 0.3) lies in a box
    (up to 1e-30: at sigma 0.05 the outer modes are -1 + ~1e-84, i.e. -1 in 60 digits)."""
    mix, ref = _qg(sigma, eps)
    with working_precision(64):
        boxes = mix.mode_boxes
    s = _mpf(sigma)
    step = s / 400
    modes = []
    for side in (-1, 1):
        xs = [side * (mpmath.mpf(10) ** -40 + i * step) for i in range(int((1 + 4 * s) / step))]
        slope = ref.slope
        for a, b in zip(xs, xs[1:]):
            lo, hi = min(a, b), max(a, b)
            if slope(lo) > 0 >= slope(hi):
                for _ in range(150):
                    m = (lo + hi) / 2
                    lo, hi = (m, hi) if slope(m) > 0 else (lo, m)
                modes.append(lo)
    assert len(modes) >= 2
    for m in modes:
        assert any(mpmath.mpf(a) - 1e-30 <= m <= mpmath.mpf(b) + 1e-30 for a, b in boxes), float(m)


BOUND_CASES = [
    # QG at the exact calibration of (0.01, 1e-12): the search's wide intervals, H ~ 1e-12
    ("qg", ("579.36", "0.01"), Fraction(0), Fraction(1, 4)),
    ("qg", ("579.36", "0.01"), Fraction(3, 4), Fraction(1)),
    # small sigma: the modes next to the kink, the shifted kink crossing the interval
    ("qg", ("0.3", "1"), Fraction(1, 8), Fraction(3, 8)),
    # MG's sharp interior peak (~2.7e-5 against end values ~1e-11) with a side pair truncated at 0
    ("mg+pair", ("0.2", "8", 3, "1e-11", "0.5"), Fraction(7, 8), Fraction(1)),
]


@pytest.mark.parametrize("kind,args,qa,qb", BOUND_CASES)
def test_truncated_envelope_and_chord_bounds_above_mpmath(kind, args, qa, qb):
    """``envelope_bound`` and ``chord_bound`` from the certified end results hold the 60-digit max of ``H``
    over the interval. In the MG case with the side pair the end values are 1e-6 of that max, so the
    bounds fail without the mode correction next to the (smooth) peak of ``f``."""
    mix, ref = _qg(*args) if kind == "qg" else _mg_with_side_pair(*args)
    eps = arb(args[1])
    with working_precision(64):
        eng = ShiftEngine(mix, eps, 1e-14, 1e-9)
        pa, pb = (arb(q.numerator) / q.denominator for q in (qa, qb))
        end_a, end_b = eng.value_at(pa), eng.value_at(pb)
        envelope = eng.envelope_bound(pa, pb, end_a.upper, end_b.upper)
        chord = eng.chord_bound(pa, pb, end_a, end_b)
    assert envelope is not None and chord is not None
    top = _top_of_reference(ref, qa, qb)
    if kind == "mg+pair":
        assert max(ref.h(qa), ref.h(qb)) < 1e-5 * top  # the interior peak is what the bounds must see
    assert top <= _hi(envelope), (float(top), float(_hi(envelope)))
    assert top <= _hi(chord), (float(top), float(_hi(chord)))


def test_qg_profile_sup_at_calibrated_sigma_holds_mpmath():
    """The certified sup of QG(579.36) at eps 0.01 (the exact calibration of delta 1e-12) holds the mpmath
    ``H(Delta)`` and stays within 2 % of it; before the convex-kink bounds it needed ~400 intervals with
    a shift model each (7-8 s), now a few dozen."""
    mix, ref = _qg("579.36", "0.01")
    with working_precision(128):
        res = privacy_profile_sup(mix, arb("0.01"), arb(1), symmetric=True, rel_tol=1e-2)
    h1 = ref.h(1)
    assert mpmath.mpf(res.lower.lower().str(40, radius=False)) <= h1 <= _hi(res.upper)
    assert _hi(res.upper) <= h1 * mpmath.mpf("1.02")
    assert res.intervals <= 150, res.intervals


@pytest.mark.parametrize("phi", [Fraction(1), 1 - Fraction(1, 2**41)])
def test_qg_tie_next_to_delta_is_exact_at_64_bits(phi):
    """QG at eps 50: the centre shifted by ~Delta and the unshifted side component are equal terms up to
    ``w0 - e^eps w1 = 0``, declared exactly (``weight_units``): at 64 bits the point values at and next
    to ``phi = Delta`` hold the mpmath ``H`` with a relative width below 2 % (before: upper bounds of
    0.02 at Delta and the trivial 1 at ``Delta - 2^-41``, 20000 sign evaluations each)."""
    mix64 = None
    with working_precision(64):
        eps = arb(50)
        mix64 = quasi_gaussian_mixture(arb("0.1042611"), eps, arb(1))
        r = ShiftEngine(mix64, eps, 1e-12, 1e-7).value_at(arb(phi.numerator) / phi.denominator)
    _, ref = _qg("0.1042611", "50")
    h = ref.h(phi)
    lo, up = mpmath.mpf(r.lower.lower().str(40, radius=False)), _hi(r.upper)
    assert lo <= h <= up, (float(lo), float(h), float(up))
    assert up - lo <= mpmath.mpf("2e-2") * h
