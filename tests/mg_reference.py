"""Independent mpmath references for the multi-Gaussian tests (``tests/test_mg_*.py``).

Shared by the engine and workflow test files; ``sixty_digits`` is an autouse fixture that each of them
imports (it pins mpmath's global precision for every test in the importing module); ``_cal`` caches
the Alg. 1 and exact calibrations of ``CAL_CASES`` across the files of one session.

The reference (:class:`MGShiftRef`) never touches Arb or certdp's evaluators. For a shift
``phi`` it writes ``D(x) = f(x + phi) - e^eps f(x)`` of ``MG(sigma, K)`` as a sum of Gaussians
``sum_g C_g N(x; mu_g, sigma^2)``; components of ``f(. + phi)`` and ``e^eps f`` with the same
mean *and* the same weight exponent cancel exactly by integer bookkeeping (at ``phi = Delta``
the tied pairs ``w_{k+1} = e^eps w_k``, ``k < 0``, vanish), so no precision is lost to the ties.
Roots come from a sign scan of ``log P(x) - log N(x)`` (P, N the positive / negative parts)
refined by ``mpmath.findroot``; their number is checked against the Descartes-Laguerre bound
(sign changes of ``C_g`` ordered by ``mu_g``). ``H(phi)`` is then the exact sum of Gaussian-CDF
differences over the positive runs, at 60+ digits (the precision is raised when the sum cancels).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb

from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
from certdp.numbers import working_precision
from certdp.workflows.mixtures import exact_calibration, mg_paper_calibration


DPS = 60


@pytest.fixture(autouse=True)
def sixty_digits():
    """Other test modules change mpmath's global precision: pin it for every test of a module importing this."""
    with mpmath.workdps(DPS):
        yield


def _q(v) -> Fraction:
    """Exact rational of a decimal string / Decimal / int / float (floats are exact dyadics)."""
    if isinstance(v, Fraction):
        return v
    if isinstance(v, float):
        return Fraction(v)
    return Fraction(str(v))


def _mp(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def _exact(q: Fraction) -> arb:
    """The exact rational ``q`` as an arb (dyadic shifts are exact)."""
    return arb(q.numerator) / q.denominator


def _mg_engine(sigma, eps, K: int):
    """A shift engine for MG(sigma, K) at eps (build inside ``working_precision``)."""
    from certdp.engines.gaussian_mixture import ShiftEngine

    e = arb(eps)
    return ShiftEngine(multi_gaussian_mixture(arb(sigma), e, arb(1), K), e, 1e-4, 1e-9)


def _arb_end(x: arb) -> mpmath.mpf:
    """The exact value of an exact arb (e.g. ``ball.upper()``) as an mpf (no decimal rounding)."""
    assert x.is_finite(), x
    m, e = x.man_exp()
    with mpmath.workdps(max(DPS, 60)):
        return mpmath.ldexp(mpmath.mpf(int(m)), int(e))


def _lo(ball: arb) -> mpmath.mpf:
    return _arb_end(ball.lower())


def _hi(ball: arb) -> mpmath.mpf:
    return _arb_end(ball.upper())


class MGShiftRef:
    """``D(x) = f(x + phi) - e^eps f(x)`` for MG(sigma, K) with means ``k Delta`` and weights
    ``p_k = e^{-|k| se} / Z`` (``se`` the shape epsilon, default ``eps``), all inputs exact rationals.

    Each weight is ``exp(a * se + b * eps) / Z`` with integers ``(a, b)``; terms with the same mean
    and the same ``(a, b)`` (or the same ``a + b`` when ``se = eps``) are added as integers, so
    exact ties cancel exactly. Normalising constants are kept (``N(x; mu, s^2)`` densities).
    """

    def __init__(self, sigma, eps, K: int, phi, delta=1, shape_eps=None):
        self.s_q = _q(sigma)
        self.e_q = _q(eps)
        self.se_q = None if shape_eps is None else _q(shape_eps)
        self.phi_q = _q(phi)
        self.d_q = _q(delta)
        self.K = K
        groups: dict[Fraction, dict[tuple[int, ...], int]] = {}
        for k in range(-K, K + 1):
            for mean, b, sgn in ((k * self.d_q - self.phi_q, 0, 1), (k * self.d_q, 1, -1)):
                key = (-abs(k) + b,) if self.se_q is None else (-abs(k), b)
                g = groups.setdefault(mean, {})
                g[key] = g.get(key, 0) + sgn
        self.groups = {m: {k: c for k, c in g.items() if c} for m, g in groups.items()}
        self.groups = {m: g for m, g in self.groups.items() if g}
        self._cache: dict[int, tuple] = {}

    # -- coefficients at the current precision --
    def _coeffs(self):
        dps = mpmath.mp.dps
        if dps not in self._cache:
            s = _mp(self.s_q)
            e = _mp(self.e_q)
            se = e if self.se_q is None else _mp(self.se_q)
            z = sum(mpmath.exp(-abs(k) * se) for k in range(-self.K, self.K + 1))
            out = []
            for m in sorted(self.groups):
                c = mpmath.mpf(0)
                for key, n in self.groups[m].items():
                    expo = key[0] * e if self.se_q is None else key[0] * se + key[1] * e
                    c += n * mpmath.exp(expo)
                out.append((_mp(m), c / z))
            self._cache[dps] = (s, e, out)
        return self._cache[dps]

    def descartes_bound(self) -> int:
        """Sign changes of C_g ordered by mu_g: an upper bound on the number of real roots of D."""
        with mpmath.workdps(DPS):
            _, _, cs = self._coeffs()
        signs = [1 if c > 0 else -1 for _, c in cs if c != 0]
        return sum(1 for a, b in zip(signs, signs[1:]) if a != b)

    def parts(self, x) -> tuple[mpmath.mpf, mpmath.mpf]:
        """(P(x), N(x)) with D = P - N up to the positive factor 1/(sqrt(2 pi) s)."""
        s, _, cs = self._coeffs()
        x = mpmath.mpf(x)
        p = n = mpmath.mpf(0)
        two_s2 = 2 * s * s
        for m, c in cs:
            t = mpmath.exp(-(x - m) ** 2 / two_s2)
            if c > 0:
                p += c * t
            else:
                n -= c * t
        return p, n

    def logratio(self, x) -> mpmath.mpf:
        """log P(x) - log N(x): has the sign of D(x)."""
        p, n = self.parts(x)
        return mpmath.log(p) - mpmath.log(n)

    def sign(self, x) -> int:
        """Sign of D at the exact point x, precision raised until the difference is resolved."""
        x = mpmath.mpf(x) if not isinstance(x, Fraction) else x
        for dps in (40, 80, 160, 320, 640):
            with mpmath.workdps(dps):
                xx = _mp(x) if isinstance(x, Fraction) else mpmath.mpf(x)
                p, n = self.parts(xx)
                diff = p - n
                if abs(diff) > mpmath.mpf(10) ** (15 - dps) * max(p, n):
                    return 1 if diff > 0 else -1
        return 0

    # -- roots and the integral --
    def window(self) -> tuple[float, float]:
        s, e, phi = float(self.s_q), float(self.e_q), float(self.phi_q)
        lo_m, hi_m = -self.K * float(self.d_q), self.K * float(self.d_q)
        # the outermost components alone cross zero at x = m - s^2 eps/phi - phi/2; beyond the
        # window the sign is that of the extreme coefficient (the runs there are integrated to +-inf)
        return lo_m - phi - s * s * e / phi - phi - 15 * s, hi_m + 15 * s

    def roots(self) -> list[mpmath.mpf]:
        xl, xr = self.window()
        s = float(self.s_q)
        n = int(min(4000, max(400, 6 * (xr - xl) / s)))
        with mpmath.workdps(30):
            xs = [mpmath.mpf(xl) + (mpmath.mpf(xr) - mpmath.mpf(xl)) * i / n for i in range(n + 1)]
            ls = [self.logratio(x) for x in xs]
        brackets = [(xs[i], xs[i + 1]) for i in range(n) if (ls[i] > 0) != (ls[i + 1] > 0)]
        # a pair of roots between two samples needs a local extremum of the samples whose value is
        # within about one sample-to-sample change of 0: rescan those neighbourhoods finely
        for i in range(1, n):
            a, b, c = ls[i - 1], ls[i], ls[i + 1]
            extremum = (b > 0 and b <= a and b <= c) or (b < 0 and b >= a and b >= c)
            if extremum and abs(b) <= 4 * max(abs(a - b), abs(c - b)):
                with mpmath.workdps(30):
                    fine = [xs[i - 1] + (xs[i + 1] - xs[i - 1]) * j / 64 for j in range(65)]
                    lf = [self.logratio(x) for x in fine]
                brackets.extend((fine[j], fine[j + 1]) for j in range(64)
                                if (lf[j] > 0) != (lf[j + 1] > 0))
        out = []
        for a, b in brackets:
            with mpmath.workdps(DPS + 10):
                a, b = mpmath.mpf(a), mpmath.mpf(b)
                r = mpmath.findroot(self.logratio, (a, b), solver="anderson")
                if not a <= r <= b:  # fall back to plain bisection
                    fa = self.logratio(a) > 0
                    for _ in range(260):
                        m = (a + b) / 2
                        if (self.logratio(m) > 0) == fa:
                            a = m
                        else:
                            b = m
                    r = (a + b) / 2
                out.append(r)
        out = sorted(set(out))
        v = self.descartes_bound()
        assert len(out) <= v and (v - len(out)) % 2 == 0, ("reference root count", len(out), v)
        return out

    def hockey_stick(self) -> mpmath.mpf:
        """H(phi) = int (f(x + phi) - e^eps f(x))_+ dx, exact CDF sums over the positive runs."""
        roots = self.roots()
        dps = DPS
        while True:
            with mpmath.workdps(dps):
                s, _, cs = self._coeffs()
                edges = [mpmath.mpf("-inf")] + [mpmath.mpf(r) for r in roots] + [mpmath.mpf("inf")]
                total = mpmath.mpf(0)
                biggest = mpmath.mpf(0)
                for a, b in zip(edges, edges[1:]):
                    probe = (a + b) / 2 if a != -mpmath.inf and b != mpmath.inf else (
                        b - 10 * s if a == -mpmath.inf and b != mpmath.inf else
                        (a + 10 * s if b == mpmath.inf and a != -mpmath.inf else mpmath.mpf(0)))
                    if self.logratio(probe) <= 0:
                        continue
                    for m, c in cs:
                        za, zb = (a - m) / s, (b - m) / s
                        if za > 0:
                            piece = mpmath.ncdf(-za) - mpmath.ncdf(-zb)
                        else:
                            piece = mpmath.ncdf(zb) - mpmath.ncdf(za)
                        term = c * piece
                        biggest = max(biggest, abs(term))
                        total += term
                if total > 0 and total > biggest * mpmath.mpf(10) ** (25 - dps):
                    return +total
                if biggest == 0:
                    return mpmath.mpf(0)
            dps *= 2
            assert dps <= 1000, "reference: cancellation not resolved"


_REF_CACHE: dict[tuple, mpmath.mpf] = {}


def ref_h(sigma, eps, K, phi, delta=1, shape_eps=None) -> mpmath.mpf:
    key = (str(_q(sigma)), str(_q(eps)), K, str(_q(phi)), str(_q(delta)), shape_eps and str(_q(shape_eps)))
    if key not in _REF_CACHE:
        _REF_CACHE[key] = MGShiftRef(sigma, eps, K, phi, delta, shape_eps).hockey_stick()
    return _REF_CACHE[key]


def lobe_reference(sigma: str, K: int, h: Fraction, eps: int = 1) -> mpmath.mpf:
    """``H(Delta - h)`` of MG(sigma, K) at ``eps`` (``Delta = 1``) by a route that shares nothing with the
    engine: ``D`` summed directly in 50-digit mpmath; its sign changes located by a float64 scan of
    the pairs' form (``p_{k+1} g(x - k) expm1(...)``, spacing sigma / 2048, fine beside the ~1e-3
    lobes) and refined by ``findroot``; ``H`` the exact sum of Gaussian-CDF differences over the
    positive runs (their signs checked in mpmath)."""
    import numpy as np

    with mpmath.workdps(50):
        s, e, phi = mpmath.mpf(sigma), mpmath.mpf(eps), 1 - mpmath.mpf(h.numerator) / h.denominator
        z = sum(mpmath.exp(-abs(k) * e) for k in range(-K, K + 1))
        comps = [(mpmath.exp(-abs(k) * e) / z, k - phi) for k in range(-K, K + 1)]
        comps += [(-mpmath.exp(e) * mpmath.exp(-abs(k) * e) / z, mpmath.mpf(k)) for k in range(-K, K + 1)]

        def d_mp(x):
            return sum(c * mpmath.npdf(x, m, s) for c, m in comps)

        sf, hf = float(s), float(h)
        x = np.arange(-K - 4.0, 4.0, sf / 2048)
        g = lambda y: np.exp(-y * y / (2 * sf * sf))  # noqa: E731
        p = lambda k: np.exp(-abs(k) * eps)  # noqa: E731  (the common factor 1 / Z drops from signs)
        d = np.zeros_like(x)
        for k in range(-K, 0):  # pairs: shifted k + 1 onto unshifted k
            d += p(k + 1) * g(x - k) * np.expm1((2 * (x - k) * hf - hf * hf) / (2 * sf * sf))
        for j in [-K] + list(range(1, K + 1)):
            d += p(j) * g(x - (j - 1 + hf))
        for k in range(0, K + 1):
            d -= np.exp(eps) * p(k) * g(x - k)
        flips = np.nonzero(np.diff(np.sign(d)))[0]
        roots = [mpmath.findroot(d_mp, (mpmath.mpf(x[i]), mpmath.mpf(x[i + 1])), solver="anderson")
                 for i in flips]
        edges = [mpmath.ninf] + roots + [mpmath.inf]
        total = mpmath.mpf(0)
        for a, b in zip(edges, edges[1:]):
            mid = (a + b) / 2 if a != mpmath.ninf and b != mpmath.inf else (b - 1 if a == mpmath.ninf else a + 1)
            if d_mp(mid) > 0:
                total += sum(c * (mpmath.ncdf(b, m, s) - mpmath.ncdf(a, m, s)) for c, m in comps)
        return total


CAL_CASES = [("2", "1e-3", 3), ("1", "1e-5", 10)]


SHIFTS = [Fraction(i, 8) for i in range(1, 9)]


_CAL: dict = {}


def _cal(eps, delta, K):
    key = (eps, delta, K)
    if key not in _CAL:
        paper = mg_paper_calibration(epsilon=eps, delta=delta, components=K)
        exact = exact_calibration("multi-gaussian", epsilon=eps, delta=delta, components=K)
        _CAL[key] = (paper, exact)
    return _CAL[key]
