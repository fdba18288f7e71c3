"""The equal-variance Gaussian mixture ``f`` (:class:`Component`, :class:`GaussianMixture`): density and
derivatives, masses, the boxes holding its modes and, for lattice mixtures (MG), kernel sums and
posterior means as polynomial evaluations (the exponential sums of the package docstring).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from flint import arb, arb_poly

from certdp.engines.gaussian_mixture.balls import sqr, ncdf, nsf, phi_diff, interval_ball
from certdp.engines.gaussian_mixture.settings import DEFAULT_SETTINGS as settings

__all__ = ["Component", "GaussianMixture"]


# the mixture


@dataclass(frozen=True)
class Component:
    """One term ``weight * N(x; mean, sigma^2) * 1[x in support]``.

    ``weight`` multiplies the *untruncated* normal density. ``support`` is ``None`` (whole
    line) or ``(s, +1)`` for ``x >= s`` or ``(s, -1)`` for ``x < s``, with ``s`` a float that is
    an exact dyadic (e.g. ``0.0``).
    """

    weight: arb
    mean: arb
    support: tuple[float, int] | None = None
    lattice_index: int | None = None
    #: ``weight = Z * exp(weight_units * design_epsilon)`` exactly (see ``GaussianMixture``), or None
    weight_units: int | None = None


class GaussianMixture:
    """An equal-variance (possibly half-line truncated) Gaussian mixture with continuous density.

    Build it inside the working precision it will be used at (weights and sigma are arb balls).
    """

    def __init__(self, components: Sequence[Component], sigma: arb,
                 lattice: tuple[arb, arb] | None = None, design_epsilon: arb | None = None):
        """``lattice=(m0, h)`` states ``mean_j = m0 + k_j h`` with ``k_j = lattice_index >= 0``
        (exact, e.g. multi-Gaussian ``m0 = -K Delta, h = Delta``); it enables the fast
        polynomial sign evaluator. The means are still used as given for all integrals."""
        if not components:
            raise ValueError("a mixture needs at least one component")
        self.components = tuple(components)
        self.sigma = sigma
        if lattice is not None and any(c.lattice_index is None or c.lattice_index < 0 for c in components):
            raise ValueError("lattice mixtures need a nonnegative lattice_index on every component")
        self.lattice = lattice
        # ``design_epsilon``: the caller states ``w_j = Z exp(u_j * design_epsilon)`` exactly for the
        # components with ``weight_units = u_j``. When the engine's epsilon is this very ball
        # (same object), pairs with ``u_j = u_k + 1`` have ``w_j - e^eps w_k = 0`` *exactly*,
        # which removes the 64-bit cancellation between tied components (multi-Gaussian).
        self.design_epsilon = design_epsilon
        self._inv_s2 = 1 / (sigma * sigma)
        self._half_inv_s2 = self._inv_s2 / 2
        self._norm = 1 / ((2 * arb.pi()).sqrt() * sigma)
        self._logw = [c.weight.log() for c in self.components]
        # float mirror for the guide stage (never used to decide anything)
        self._f_logw = np.array([float(c.weight.log()) for c in self.components])
        self._f_mu = np.array([float(c.mean) for c in self.components])
        self._f_sig = float(sigma)
        self._f_sdir = np.array([0 if c.support is None else c.support[1] for c in self.components])
        self._f_sval = np.array([0.0 if c.support is None else c.support[0] for c in self.components])
        self.breakpoints = sorted({c.support[0] for c in self.components if c.support is not None})
        self._f_has_support = bool(self.breakpoints)
        self.all_components = tuple(range(len(self.components)))
        # lattice form of the kernel sum (untruncated lattice mixtures only), see log_kernel_sum
        self._lattice_sums = lattice is not None and not self.breakpoints
        self._lattice_polys: dict[int, tuple] = {}  # k0 -> (A, B, A1, B1, m0 + k0 h)
        self._partial_polys: dict[tuple[int, int, int], tuple[arb_poly, arb_poly]] = {}
        if self._lattice_sums:
            m0, h = lattice
            self._lattice_h_inv_s2 = h * self._inv_s2
            kmax = max(c.lattice_index for c in self.components)
            self._by_lattice_index: list[list[Component]] = [[] for _ in range(kmax + 1)]
            for c in self.components:
                self._by_lattice_index[c.lattice_index].append(c)
            self._lattice_f = (float(m0), float(h), max(c.lattice_index for c in self.components))

    # -- structure --
    def mirrored(self) -> "GaussianMixture":
        """The density x -> f(-x)."""
        comps = []
        for c in self.components:
            sup = None if c.support is None else (-c.support[0], -c.support[1])
            comps.append(Component(c.weight, -c.mean, sup, None, c.weight_units))
        if self.lattice is None:
            return GaussianMixture(comps, self.sigma, None, self.design_epsilon)
        m0, h = self.lattice
        kmax = max(c.lattice_index for c in self.components)
        comps = [Component(c.weight, c.mean, c.support, kmax - k.lattice_index, c.weight_units)
                 for c, k in zip(comps, self.components)]
        # -mean_j = -(m0 + k h) = (-m0 - kmax h) + (kmax - k) h
        return GaussianMixture(comps, self.sigma, (-m0 - kmax * h, h), self.design_epsilon)

    @property
    def mean_range(self) -> tuple[float, float]:
        return float(self._f_mu.min()), float(self._f_mu.max())

    # -- Arb evaluations (valid for every point of the balls) --
    def _indicator(self, c: Component, x: arb) -> int | None:
        """1 if x is certainly in the support, 0 if certainly outside, None if the ball straddles."""
        if c.support is None:
            return 1
        s, direction = c.support
        if direction > 0:
            if x >= s:
                return 1
            if x < s:
                return 0
            return None
        if x < s:
            return 1
        if x >= s:
            return 0
        return None

    def _straddled(self, x: arb) -> list[float]:
        """The breakpoints strictly inside the ball ``x``."""
        return [s for s in self.breakpoints if x.lower() < s < x.upper()] if self.breakpoints else []

    def _split_sum(self, x: arb, cuts: list[float], term) -> arb:
        """``sum_j term(c_j, y)`` over the active components, for a ball ``x`` across the breakpoints
        ``cuts``: joined over the closed pieces between them.

        On each closed piece the same components are active; at its ends the density equals that
        piece's formula by continuity (the class's contract), derivatives take their one-sided values.
        (Counting a component whose support edge lies inside the ball as ``[0, term]`` instead loses it
        from the lower bound entirely, e.g. half of QG's mass on a ball around 0.)"""
        ends = [x.lower()] + [arb(s) for s in cuts] + [x.upper()]
        out = None
        for a, b in zip(ends, ends[1:]):
            piece = a.union(b)
            inside = (a + b) / 2  # strictly between two breakpoints: every indicator is decided there
            total = arb(0)
            for c in self.components:
                if self._indicator(c, inside) == 1:
                    total += term(c, piece)
            out = total if out is None else out.union(total)
        return out

    def _density_term(self, c: Component, y: arb) -> arb:
        return c.weight * (-sqr(y - c.mean) * self._half_inv_s2).exp()

    def _slope_term(self, c: Component, y: arb) -> arb:
        d = y - c.mean
        return -c.weight * d * self._inv_s2 * (-sqr(d) * self._half_inv_s2).exp()

    def _curvature_term(self, c: Component, y: arb) -> arb:
        d2 = sqr(y - c.mean) * self._inv_s2
        return c.weight * (d2 - 1) * (-d2 / 2).exp()

    def density(self, x: arb) -> arb:
        """Enclosure of ``f`` on the ball ``x`` (a ball across a breakpoint: :meth:`_split_sum`)."""
        cuts = self._straddled(x)
        if cuts:
            return self._split_sum(x, cuts, self._density_term) * self._norm
        total = arb(0)
        for c in self.components:
            ind = self._indicator(c, x)
            if ind == 0:
                continue
            t = c.weight * (-sqr(x - c.mean) * self._half_inv_s2).exp()
            total += t if ind == 1 else arb(0).union(t)  # ind None: a support edge at an end of the ball
        return total * self._norm

    def density_derivative(self, x: arb) -> arb:
        """Enclosure of ``f'`` on the ball ``x`` (one-sided values at a breakpoint)."""
        cuts = self._straddled(x)
        if cuts:
            return self._split_sum(x, cuts, self._slope_term) * self._norm
        total = arb(0)
        for c in self.components:
            ind = self._indicator(c, x)
            if ind == 0:
                continue
            d = x - c.mean
            t = -c.weight * d * self._inv_s2 * (-sqr(d) * self._half_inv_s2).exp()
            total += t if ind == 1 else arb(0).union(t)
        return total * self._norm

    def density_second_derivative(self, x: arb) -> arb:
        """Enclosure of ``f''`` on the ball ``x``. For a truncated mixture ``f`` is C^2 only between its
        breakpoints: the enclosure then holds the one-sided second derivatives at every point of the ball."""
        cuts = self._straddled(x)
        if cuts:
            return self._split_sum(x, cuts, self._curvature_term) * self._inv_s2 * self._norm
        total = arb(0)
        for c in self.components:
            ind = self._indicator(c, x)
            if ind == 0:
                continue
            d2 = sqr(x - c.mean) * self._inv_s2
            t = c.weight * (d2 - 1) * (-d2 / 2).exp()
            total += t if ind == 1 else arb(0).union(t)
        return total * self._inv_s2 * self._norm

    @functools.cached_property
    def convex_kinks(self) -> bool:
        """True when ``f``'s distributional second derivative has no negative point mass: no
        breakpoints, or at every breakpoint ``s`` the jump ``f'(s+) - f'(s-)`` is certified ``> 0``
        (with one untruncated component, so that ``f > 0`` everywhere).

        The density is continuous by the class's contract (e.g. QG: both sides equal
        ``w1 N(Delta; 0, s^2)`` at 0); the value jump's enclosure is still checked to contain 0.
        With upward kinks, ``f + C x^2 / 2`` is convex on every interval where the one-sided
        ``(-f'')_+ <= C`` (:meth:`density_second_derivative`), so ``f`` lies below its chord plus
        ``C (t - a)(b - t) / 2`` there, and no local maximum of ``f`` sits at a breakpoint (it would
        need ``f'(s-) >= 0 >= f'(s+)``): the end-value bounds of
        :class:`~certdp.engines.gaussian_mixture.ball_bounds.BallBoundsMixin` hold as for an
        untruncated mixture."""
        if not self.breakpoints:
            return True
        if all(c.support is not None for c in self.components):
            return False
        for s in self.breakpoints:
            value_jump, slope_jump = arb(0), arb(0)
            for c in self.components:
                if c.support is None or c.support[0] != s:
                    continue
                d = arb(s) - c.mean
                g = c.weight * (-sqr(d) * self._half_inv_s2).exp()
                side = c.support[1]  # +1: the term starts at s (enters f(s+)), -1: it ends there
                value_jump += side * g
                slope_jump += side * (-d * self._inv_s2) * g
            if not value_jump.contains(0) or not slope_jump > 0:
                return False
        return True

    @functools.cached_property
    def mode_boxes(self) -> tuple[tuple[float, float], ...] | None:
        """Float boxes that hold every local maximum of ``f`` (certified), or None for a truncated
        mixture with a kink that is not certified convex (:attr:`convex_kinks`).

        Outside ``[min m_j, max m_j]`` every term of ``f'`` has the same strict sign, so no
        critical point lies there. Inside, a box is dropped when ``f`` is certified strictly
        monotone on it, or ``f'' > 0`` on it (strictly convex: no local maximum); the others are
        bisected down to ``MODE_BOX_WIDTH * sigma`` and returned (adjacent ones merged). For lattice
        mixtures monotonicity comes from the posterior mean ``p(x) = E[m_J | x]``:
        ``f' = f (p(x) - x) / s^2`` and ``p' = Var[m_J | x] / s^2 >= 0``, so ``p(a) > b`` gives
        ``f' > 0`` on ``[a, b]`` and ``p(b) < a`` gives ``f' < 0`` (two point evaluations, no
        dependency loss); otherwise from the Arb enclosure of ``f'`` on the box. Floats only
        choose the cuts. A breakpoint holds no local maximum (:attr:`convex_kinks`); on a box across
        one, the Arb enclosures of ``f'`` and ``f''`` hold both one-sided values."""
        if not self.convex_kinks:
            return None
        lo, hi = self.mean_range
        width = settings.mode_box_width * self._f_sig
        n = max(1, math.ceil((hi - lo) / (self._f_sig / 2)))
        cuts = [lo + (hi - lo) * i / n for i in range(n)] + [hi]
        means: dict[float, arb] = {}

        def posterior(x: float) -> arb:
            if x not in means:
                means[x] = self.posterior_mean(arb(x))
            return means[x]

        def monotone(a: float, b: float) -> bool:
            if self._lattice_sums:
                return bool(posterior(a) > b or posterior(b) < a)
            slope = self.density_derivative(interval_ball(a, b))
            return bool(slope > 0 or slope < 0)

        todo = list(zip(cuts, cuts[1:]))
        found: list[tuple[float, float]] = []
        while todo:
            a, b = todo.pop()
            if monotone(a, b) or self.density_second_derivative(interval_ball(a, b)) > 0:
                continue
            m = 0.5 * (a + b)
            if b - a <= width or not a < m < b:
                found.append((a, b))
            else:
                todo += [(a, m), (m, b)]
        merged: list[tuple[float, float]] = []
        for a, b in sorted(found):
            if merged and merged[-1][1] >= a:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return tuple(merged)

    def mass(self, a: arb, b: arb) -> arb:
        """P(a <= X <= b) for a <= b (exact, through erfc)."""
        total = arb(0)
        for c in self.components:
            lo, hi = a, b
            if c.support is not None:
                s, direction = c.support
                sa = arb(s)
                # [a, b] certified outside the support: the mass is exactly 0. Clipping both ends to
                # s instead gave Phi(z) - Phi(z) for two independent balls z (sigma is a ball), an
                # absolute error floor ~1e-21 that no precision removes (issue 17, branch mix2)
                if (direction > 0 and hi <= sa) or (direction < 0 and lo >= sa):
                    continue
                if direction > 0:
                    lo, hi = lo.max(sa), hi.max(sa)
                else:
                    lo, hi = lo.min(sa), hi.min(sa)
            total += c.weight * phi_diff((lo - c.mean) / self.sigma, (hi - c.mean) / self.sigma)
        return total

    def mass_below(self, a: arb) -> arb:
        """Upper bound of P(X <= a) (truncation ignored, so >= the true mass)."""
        total = arb(0)
        for c in self.components:
            total += c.weight * ncdf((a - c.mean) / self.sigma)
        return total

    def mass_above(self, b: arb) -> arb:
        """Upper bound of P(X >= b) (truncation ignored)."""
        total = arb(0)
        for c in self.components:
            total += c.weight * nsf((b - c.mean) / self.sigma)
        return total

    def tail_derivative_mass(self, b: arb, right: bool) -> arb:
        """Upper bound of int_{x>b} |f'| (right) or int_{x<b} |f'| (left), b beyond all means."""
        total = arb(0)
        for c in self.components:
            z = (b - c.mean) / self.sigma
            total += c.weight * (-sqr(z) / 2).exp()
        return total * self._norm

    # -- lattice form of the kernel sum K(y) = sum_j w_j exp(-(y - m_j)^2 / 2 s^2) --
    def _lattice_centre(self, y: arb) -> tuple[int, arb, tuple[arb_poly, ...]]:
        """``(k0, v, (A, B, A1, B1))`` for :meth:`log_kernel_sum` and :meth:`posterior_mean`:
        ``v = y - m0 - k0 h`` with ``k0`` the lattice point nearest to ``y`` (clamped to the lattice;
        any ``k0`` is exact, it only keeps the exponents small), and, with
        ``c_k = sum_{k_j = k} w_j exp(-(k - k0)^2 h^2 / 2 s^2)``, the polynomials
        ``A(E) = sum_{k >= k0} c_k E^(k - k0)``, ``B(F) = sum_{k < k0} c_k F^(k0 - k)``,
        ``A1(E) = sum_{k > k0} (k - k0) c_k E^(k - k0)``, ``B1(F) = sum_{k < k0} (k0 - k) c_k F^(k0 - k)``
        (all coefficients >= 0)."""
        m0f, hf, kmax = self._lattice_f
        mid = float(y.mid())
        k0 = min(max(int(round((mid - m0f) / hf)), 0), kmax) if math.isfinite(mid) else 0
        polys = self._lattice_polys.get(k0)
        if polys is None:
            m0, h = self.lattice
            c = [arb(0)] * (kmax + 1)
            for comp in self.components:
                k = comp.lattice_index
                c[k] = c[k] + comp.weight * (-sqr((k - k0) * h) * self._half_inv_s2).exp()
            up = c[k0:]
            down = [arb(0)] + c[:k0][::-1]
            polys = self._lattice_polys[k0] = (
                arb_poly(up), arb_poly(down),
                arb_poly([j * a for j, a in enumerate(up)]), arb_poly([j * a for j, a in enumerate(down)]),
                m0 + k0 * h)  # the lattice point k0 (exact arithmetic on m0, h)
        return k0, y - polys[4], polys

    def log_kernel_sum(self, y: arb) -> arb:
        """Enclosure of ``log K(y)`` over the ball ``y``, ``K(y) = sum_j w_j exp(-(y - m_j)^2 / 2 s^2)``
        (untruncated lattice mixtures only).

        Method: with ``m_j = m0 + k_j h`` and ``v = y - m0 - k0 h``,
        ``(y - m_j)^2 = v^2 - 2 (k_j - k0) h v + (k_j - k0)^2 h^2``, so
        ``K(y) = exp(-v^2 / 2 s^2) (A(E) + B(1 / E))`` with ``E = exp(h v / s^2)`` (polynomials of
        :meth:`_lattice_centre`). Their coefficients are positive, so Horner evaluation at ``E > 0``
        has no cancellation, and with ``k0`` nearest to ``y`` the powers stay moderate. Four
        polynomial evaluations in C replace a Python loop over the components."""
        _, v, (pa, pb, _, _, _) = self._lattice_centre(y)
        e = (v * self._lattice_h_inv_s2).exp()
        return (pa(e) + pb(1 / e)).log() - sqr(v) * self._half_inv_s2

    def _partial_kernel_sum(self, y: arb, first: int, last: int) -> arb:
        """``sum_{first <= k_j <= last} w_j exp(-(y - m_j)^2 / 2 s^2)`` at the (narrow) ball ``y``, in the
        lattice form of :meth:`log_kernel_sum` with the coefficients outside ``[first, last]``
        dropped (they are all >= 0, so the evaluation has no cancellation)."""
        if first > last:
            return arb(0)
        k0, v, _ = self._lattice_centre(y)
        key = (k0, first, last)
        polys = self._partial_polys.get(key)
        if polys is None:
            full_up, full_down = self._lattice_polys[k0][:2]
            up = full_up.coeffs()
            down = full_down.coeffs()
            pe = [c if first <= k0 + i <= last else arb(0) for i, c in enumerate(up)]
            pf = [c if first <= k0 - i <= last else arb(0) for i, c in enumerate(down)]
            polys = self._partial_polys[key] = (arb_poly(pe or [0]), arb_poly(pf or [0]))
        e = (v * self._lattice_h_inv_s2).exp()
        return (polys[0](e) + polys[1](1 / e)) * (-sqr(v) * self._half_inv_s2).exp()

    def kernel_sum_bounds(self, y: arb) -> tuple[arb, arb]:
        """``(lo, hi)`` with ``lo <= K(t) <= hi`` for every ``t`` in the ball ``y``,
        ``K(t) = sum_j w_j exp(-(t - m_j)^2 / 2 s^2)`` (untruncated lattice mixtures).

        Each term is monotone on the ball unless its mean lies inside: terms with ``m_j <= lo(y)``
        decrease, those with ``m_j >= hi(y)`` increase (both comparisons certified), so their sums
        take their extremes at the ball's two ends (point evaluations of the partial lattice sums,
        :meth:`_partial_kernel_sum`); a term whose mean lies inside (or is not certified outside) is
        bounded by its weight above and by its smaller end value below. The same per-term extremes
        as the endpoint form of :meth:`MixtureDifference.interval_bounds`, in a few polynomial
        evaluations."""
        m0, h = self.lattice
        m0f, hf, kmax = self._lattice_f
        y_lo, y_hi = y.lower(), y.upper()
        left = min(max(math.floor((float(y_lo) - m0f) / hf), -1), kmax)
        while left >= 0 and not m0 + left * h <= y_lo:
            left -= 1
        right = max(min(math.ceil((float(y_hi) - m0f) / hf), kmax + 1), left + 1)
        while right <= kmax and not m0 + right * h >= y_hi:
            right += 1
        lo = self._partial_kernel_sum(y_hi, 0, left) + self._partial_kernel_sum(y_lo, right, kmax)
        hi = self._partial_kernel_sum(y_lo, 0, left) + self._partial_kernel_sum(y_hi, right, kmax)
        for k in range(left + 1, min(right, kmax + 1)):  # means inside the ball (or not certified out)
            for c in self._by_lattice_index[k]:
                hi += c.weight
                ends = [(-sqr(e - c.mean) * self._half_inv_s2).exp() for e in (y_lo, y_hi)]
                lo += c.weight * ends[0].min(ends[1])
        return lo, hi

    def posterior_mean(self, y: arb) -> arb:
        """Enclosure of ``E[m_J | y] = sum_j m_j w_j g(y - m_j) / sum_j w_j g(y - m_j)`` over the
        ball ``y`` (untruncated lattice mixtures only): in the notation of :meth:`_lattice_centre`,
        ``m0 + h (k0 + (A1(E) - B1(1/E)) / (A(E) + B(1/E)))`` (the factor ``exp(-v^2 / 2 s^2)``
        cancels)."""
        _, v, (pa, pb, pa1, pb1, base) = self._lattice_centre(y)
        e = (v * self._lattice_h_inv_s2).exp()
        f = 1 / e
        return base + self.lattice[1] * ((pa1(e) - pb1(f)) / (pa(e) + pb(f)))

    # -- float guide --
    def _log_terms_float(self, x: np.ndarray) -> np.ndarray:
        """Float ``log(w_j exp(-(x - m_j)^2 / 2 s^2) 1[x in S_j])`` (-inf outside a support)."""
        z = (x[:, None] - self._f_mu[None, :]) / self._f_sig
        terms = self._f_logw[None, :] - 0.5 * z * z
        if self._f_has_support:
            inside = np.ones_like(terms, dtype=bool)
            pos = self._f_sdir > 0
            neg = self._f_sdir < 0
            inside[:, pos] = x[:, None] >= self._f_sval[None, pos]
            inside[:, neg] = x[:, None] < self._f_sval[None, neg]
            terms = np.where(inside, terms, -np.inf)
        return terms

    def posterior_mean_float(self, x: np.ndarray) -> np.ndarray:
        """Float ``E[m_J | x]`` (a guide only)."""
        terms = self._log_terms_float(x)
        w = np.exp(terms - terms.max(axis=1)[:, None])
        return (w * self._f_mu[None, :]).sum(axis=1) / w.sum(axis=1)

    def log_density_float(self, x: np.ndarray) -> np.ndarray:
        terms = self._log_terms_float(x)
        mx = terms.max(axis=1)
        mx_safe = np.where(np.isfinite(mx), mx, 0.0)
        with np.errstate(divide="ignore"):
            return mx_safe + np.log(np.exp(terms - mx_safe[:, None]).sum(axis=1))
