"""Exact hockey-stick engine for equal-variance Gaussian mixtures (seed 000, made rigorous).

Setting
-------
``f(x) = sum_j w_j * N(x; m_j, s^2) * 1[x in S_j]`` with one common ``s`` (``sigma``),
weights ``w_j > 0`` and supports ``S_j`` that are the whole line or a half-line. The
density must be *continuous* (plain mixtures always are; the quasi-Gaussian's folded
component ``exp(-(|x| - Delta)^2 / 2 s^2)`` is continuous at 0). For the additive mechanism
``M(D) = q(D) + X``, ``X ~ f``, with sensitivity ``Delta`` the privacy profile is::

    delta(eps) = sup_{|phi| <= Delta} H(phi),   H(phi) = int (f(x + phi) - e^eps f(x))_+ dx.

The sup over ``phi in [-Delta, Delta]`` covers both orders of a neighbouring pair:
``int (f(x) - e^eps f(x + phi))_+ dx = H(-phi)`` (substitute ``y = x + phi``). Negative shifts
of ``f`` are positive shifts of the mirrored density ``f(-x)``, so the engine runs the search on
``phi in [0, Delta]`` for ``f`` and, unless the caller declares ``f`` symmetric
(``f(-x) = f(x)`` gives ``H(-phi) = H(phi)``: substitute ``x -> -x``), once more for the mirror.

Fixed shift: exact integral, no quadrature
-------------------------------------------
``D(x) = f(x + phi) - e^eps f(x)`` is ``exp(-x^2 / 2 s^2)`` times the exponential sum
``sum_j c_j exp(lambda_j x)`` (``lambda_j = (m_j - phi)/s^2`` with ``c_j > 0`` for the shifted
components, ``lambda_j = m_j / s^2`` with ``c_j < 0`` for the others), so by the
Descartes-Laguerre rule it has at most as many real roots as sign changes of the ``c_j``
ordered by ``lambda_j``. We do not rely on that count for correctness: we *certify* the sign
structure of ``D`` on a finite window ``[XL, XR]`` directly with Arb:

* the window is cut into pieces (float root estimates only choose the cut points);
* a piece is certified positive / negative if the Arb enclosure of ``D`` on the whole piece
  excludes 0, or if the enclosure of ``D'`` on the piece excludes 0 (``D`` monotone) and
  ``D`` has the same certified sign at both ends; a monotone piece whose ends have opposite
  certified signs holds exactly one simple root and is shrunk by certified bisection;
* what cannot be signed (a root piece of tiny width, a breakpoint of a truncated component
  under a ball of shifts) is an *uncertain* piece ``Q``.

The one place where the count *is* used: at a shift that moves components exactly onto others
(MG at ``phi = Delta``), ``D`` summed term by term cancels on long ranges and its pieces cannot be
signed, but the matched terms can be merged exactly; the merged sum has one sign change, so one
root, and ``H`` is a sum of Gaussian CDFs at it (:meth:`_Engine.tied_value`).

The main sign test is on the log-ratio ``l = log f(x + phi) - log f(x)`` (``D > 0`` iff
``l > eps``), whose partials are enclosed from posterior means at box corners
(:meth:`_Difference.logratio_sign`); for lattice mixtures (MG) the kernel sums and posterior
means are polynomial evaluations (:meth:`GaussianMixture.log_kernel_sum`). A float version of the
same test (:meth:`_Difference.float_signability`) decides *where* to spend Arb evaluations:
pieces are split in floats while it predicts failure, and a piece it still predicts unsignable at
the depth limit is left uncertain without evaluation (uncertain is always sound).

Then, with ``P`` the certified-positive pieces,

    int_P D  <=  H(phi)  <=  int_P D + sum_Q |Q| * max(0, sup_Q D) + tail(XL, XR),

where ``int_P D`` is an exact sum of Gaussian-CDF differences (through ``erfc``, no
cancellation in the tails, no exponent limit) and the tail term is the mass of
``f(. + phi)`` outside the window, ``sum_j w_j [Phi((XL+phi-m_j)/s) + Phi((m_j-phi-XR)/s)]``
(``D <= f(. + phi)``). Lower end: ``P`` is contained in the positive set. Upper end: the
positive set is contained in ``P`` union the ``Q`` pieces union the tails.

Sup over the shift: branch and bound with derivative enclosures
---------------------------------------------------------------
*Lipschitz constant.* ``(a)_+ - (b)_+ <= (a - b)_+`` gives, for ``h = phi_1 - phi_2``,
``H(phi_1) - H(phi_2) <= int (f(x + phi_1) - f(x + phi_2))_+ dx = TV(f, f(. + h))`` and the
total variation of a mixture shift is at most the weighted sum of the components' ones
(convexity; truncation to a half-line keeps each ``<=``)::

    |H(phi_1) - H(phi_2)| <= sum_j w_j (2 Phi(|h| / 2s) - 1) <= |h| / (sqrt(2 pi) s)

since ``2 Phi(t) - 1 <= 2 t phi(0) = t sqrt(2/pi)`` and ``sum_j w_j = 1``. This is the
constant ``1 / (sqrt(2 pi) sigma)`` of seed 000 (proof of Thm 3.5). It is far too weak to
certify a sup to relative accuracy ``1e-12`` when ``delta`` is ``1e-7`` (it needs ``O(1/delta)``
shifts, which is the paper's grid), so we use the *local* derivative instead:

*Derivative.* Since ``{D = 0}`` is a null set (``D`` is real-analytic on each piece and not
identically 0 for ``eps > 0``) and ``|d/dphi D| = |f'(x + phi)|`` is integrable, dominated
convergence gives ``H'(phi) = int_{D > 0} f'(x + phi) dx``. On a run ``[a, b]`` of positive
pieces this is ``f(b + phi) - f(a + phi)`` (``f`` continuous); an uncertain piece contributes a
value in ``|Q| * [min(0, inf f'), max(0, sup f')]`` over ``Q + phi``; a tail contributes at most
``sum_j w_j N(XR + phi - m_j; 0, s^2)`` in absolute value (``f`` decreasing there). All these
are evaluated with ``phi`` a *ball* ``[phi_a, phi_b]``: the sign structure is certified for
every shift in the ball at once, so ``H'([phi_a, phi_b])`` is a certified enclosure.

*Second-order model on a ball of shifts* (:meth:`_Engine.shift_expansion`). A ball enclosure of
``f(b + phi) - f(a + phi)`` for a narrow run loses the near-cancellation of its two ends: its
width grows like ``|f'| * w`` per run while the true ``H''`` is small (for MG with
``sigma << Delta``, ~35 runs and a sharp interior peak of ``phi -> H(phi)``). So ``H'`` is written
as boundary terms and each is expanded around the ball's centre ``m`` by the mean value theorem:
fixed piece ends ``c`` give ``f(c + m) + f'(c + phi) (t - m)``; a *clean* root piece (neighbours
of opposite certified signs, ``l_x = d/dx [log f(x + t) - log f(x)]`` bounded away from 0 on the
piece times the ball, from posterior means) holds one simple root ``r(t)`` for every shift, and
``f(r(t) + t)`` has derivative ``-f'(r + t) (log f)'(r) / l_x`` (implicit function theorem), its
value at ``m`` being enclosed by an interval Newton step. Hence
``H'(t) in A + B (t - m)`` with ``A`` tight (point values) and ``B`` an enclosure of ``H''``-like
terms, and ``H(m + u) - H(m) <= A u + B u^2 / 2``: the error is second order in the ball's width.
Every other uncertain piece ``Q`` (a root pair born or dying in the ball, a region where ``D`` is
too small to sign, the vanishing runs at the tied shift ``phi = Delta``) either enters ``A``
with the crude enclosure above or is split off as ``0 <= int_Q D_+ <= excess`` (``excess`` from
``|piece| * max(0, sup D)`` on adaptively bisected pieces), whichever bound is smaller.

*Bounds from the two end values alone* (no model of the interval; untruncated mixtures). For each
``x``, ``t -> f(x + t)`` on ``I = [a, b]`` (width ``w``) is a function of one variable:

* *envelope* (:meth:`_Engine.envelope_bound`): where ``f`` has no local maximum inside ``x + I``,
  ``sup_t D(x, t)_+ <= D(x, a)_+ + D(x, b)_+``; at a maximum the ends are within
  ``(w^2 / 8) sup (-f'')_+`` of it. With the certified boxes holding the modes of ``f``
  (:attr:`GaussianMixture.mode_boxes`), ``H(t) <= H(a) + H(b) + O(w^3)``: it settles wide
  intervals whose end values are both well below the goal (including the tied region next to
  ``phi = Delta``, where the model's uncertain pieces are wide);
* *chord* (:meth:`_Engine.chord_bound`): ``f(x + t)`` is at most its chord plus
  ``(w^2 / 8) sup (-f'')_+``, so ``H(t) <= max(H(a), H(b)) + (w^2 / 8) int_{X+} sup (-f'')_+``
  over the set ``X+`` where ``D`` can be positive (inside the ends' certified positive covers,
  or next to a mode of ``f``): it settles narrow intervals on the flanks of a sharp peak;
* *tie* (:meth:`_Engine.tie_upper_bound`): at a shift that moves components exactly onto others
  (MG at ``phi = Delta``) the weights alone bound ``H`` (``H(Delta) <= w_{-K}``), used where that
  is far below the goal instead of the slow certified point value there.

*Branch and bound.* For a shift interval ``I``: the envelope and chord bounds are tried first
(from the end values, which every interval needs anyway); then the model: if its ``H'(I) > 0`` the
sup over ``I`` is ``H(phi_b)`` (a point evaluation), if ``H'(I) < 0`` it is ``H(phi_a)``; otherwise
``H(m) + rise`` bounds it (never worse than the Lipschitz bound from the ends), and ``I`` is
split while its upper bound exceeds the best certified lower bound by more than the tolerance
(or, in decision mode, until the comparison with the target is decided). Intervals are
sub-intervals of ``[0, Delta]`` with rational ends that cover the shift range exactly: quarters,
and around a float argmax hint an interval centred on it (``Delta / 16``, or a power of 2 near the
float width of the peak: 1/8 for a broad peak, 1/32 for a sharp one) with neighbours half as wide,
then doubling outwards up to the quarters; an interval holding a hint is split into three, the hint staying at the centre of the
middle one. The centre ``m`` is the midpoint, or a float argmax hint inside ``I``:
there ``A ~ 0``, so a model with a certified negative slope bounds the peak by ``H(m)`` plus a
negligible ``A^2 / (2 |B|)``. With a hint, intervals away from it wider than the peak's are
split without a model (their end values are below the goal by a margin that their halves'
end-value bounds will show). The model is also kept per sub-ball on a grid of 8 sub-balls through
``m`` (:meth:`ShiftExpansion.piecewise_sup`), integrated from the point values at both ends and
``m``: the same second-order bound with each sub-ball's own, much narrower, slope enclosure.

Guarantee of :func:`privacy_profile_sup`: the returned ``(lower, upper)`` arb balls satisfy
``lower <= delta(eps) <= upper`` for every point of the input balls (``sigma``, weights and
``eps`` may be balls). Floats are used only to choose cut points and candidate roots; a bad
float guess costs time, never correctness.
"""

from __future__ import annotations

import functools
import heapq
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np
from flint import arb, arb_poly

__all__ = [
    "Component",
    "GaussianMixture",
    "ShiftResult",
    "SupResult",
    "hockey_stick_at_shift",
    "privacy_profile_sup",
    "lipschitz_constant",
    "shift_tv_bound",
]


# ----------------------------------------------------------------------------------------
# small ball helpers (local to the engine; they need no precision beyond ctx.prec)


_ZERO = arb(0)


def _sqr(z: arb) -> arb:
    """Enclosure of ``{x^2 : x in z}`` that stays tight when ``z`` reaches 0.

    Arb's ``z * z`` for ``z = m +- r`` is ``m^2 +- (2|m| r + r^2)``: valid, and within ``2 r^2`` of
    tight while it is positive (the common, fast case). Near 0 it goes negative (an exponent
    ``-x^2 / 2 s^2`` would then exceed 0), so the endpoint form ``[lo^2, hi^2]`` is used there."""
    sq = z * z
    if sq > 0:
        return sq
    hi = z.abs_upper()
    if z.contains(0):
        return _ZERO.union(hi * hi)
    lo = z.abs_lower()
    return (lo * lo).union(hi * hi)


def _ncdf(z: arb) -> arb:
    """Phi(z) = erfc(-z/sqrt 2)/2: no cancellation for z -> -inf, any exponent."""
    return (-z / arb(2).sqrt()).erfc() / 2


def _nsf(z: arb) -> arb:
    """1 - Phi(z) = erfc(z/sqrt 2)/2."""
    return (z / arb(2).sqrt()).erfc() / 2


def _phi_diff(a: arb, b: arb) -> arb:
    """Phi(b) - Phi(a), computed on the side of the tails that avoids cancellation."""
    if a > 0:
        return _nsf(a) - _nsf(b)
    return _ncdf(b) - _ncdf(a)


def _float_down(x: arb) -> float:
    """A float ``<= x`` (``x`` an exact arb point)."""
    f = float(x)
    return f if arb(f) <= x else math.nextafter(f, -math.inf)


def _float_up(x: arb) -> float:
    """A float ``>= x`` (``x`` an exact arb point)."""
    f = float(x)
    return f if arb(f) >= x else math.nextafter(f, math.inf)


def _ball(lo: float, hi: float) -> arb:
    """Arb ball containing the real interval [lo, hi] (float endpoints are exact dyadics)."""
    a, b = arb(lo), arb(hi)
    return (a + b) / 2 + (b - a) / 2 * arb(0, 1)


def shift_tv_bound(h: arb, sigma: arb) -> arb:
    """Upper bound 2 Phi(|h|/(2 sigma)) - 1 on |H(phi + h) - H(phi)| (see module docstring)."""
    return 2 * _ncdf(abs(h) / (2 * sigma)) - 1


def lipschitz_constant(sigma: arb) -> arb:
    """The global Lipschitz constant 1 / (sqrt(2 pi) sigma) of phi -> H(phi) (seed 000, Thm 3.5)."""
    return 1 / ((2 * arb.pi()).sqrt() * sigma)


# ----------------------------------------------------------------------------------------
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

    def density(self, x: arb) -> arb:
        total = arb(0)
        for c in self.components:
            ind = self._indicator(c, x)
            if ind == 0:
                continue
            term = c.weight * (-_sqr(x - c.mean) * self._half_inv_s2).exp()
            total += term if ind == 1 else arb(0).union(term)
        return total * self._norm

    def density_derivative(self, x: arb) -> arb:
        total = arb(0)
        for c in self.components:
            ind = self._indicator(c, x)
            if ind == 0:
                continue
            d = x - c.mean
            term = -c.weight * d * self._inv_s2 * (-_sqr(d) * self._half_inv_s2).exp()
            total += term if ind == 1 else arb(0).union(term)
        return total * self._norm

    def density_second_derivative(self, x: arb) -> arb:
        """Enclosure of ``f''`` on the ball ``x`` (untruncated mixtures: ``f`` is C^2 only there)."""
        if self.breakpoints:
            raise ValueError("f'' is defined for untruncated mixtures only")
        total = arb(0)
        for c in self.components:
            d2 = _sqr(x - c.mean) * self._inv_s2
            total += c.weight * (d2 - 1) * (-d2 / 2).exp()
        return total * self._inv_s2 * self._norm

    @functools.cached_property
    def mode_boxes(self) -> tuple[tuple[float, float], ...] | None:
        """Float boxes that hold every local maximum of ``f`` (certified), or None for a truncated
        mixture (``f`` is not C^2 at its breakpoints).

        Outside ``[min m_j, max m_j]`` every term of ``f'`` has the same strict sign, so no
        critical point lies there. Inside, a box is dropped when ``f`` is certified strictly
        monotone on it, or ``f'' > 0`` on it (strictly convex: no local maximum); the others are
        bisected down to ``MODE_BOX_WIDTH * sigma`` and returned (adjacent ones merged). For lattice
        mixtures monotonicity comes from the posterior mean ``p(x) = E[m_J | x]``:
        ``f' = f (p(x) - x) / s^2`` and ``p' = Var[m_J | x] / s^2 >= 0``, so ``p(a) > b`` gives
        ``f' > 0`` on ``[a, b]`` and ``p(b) < a`` gives ``f' < 0`` (two point evaluations, no
        dependency loss); otherwise from the Arb enclosure of ``f'`` on the box. Floats only
        choose the cuts."""
        if self.breakpoints:
            return None
        lo, hi = self.mean_range
        width = MODE_BOX_WIDTH * self._f_sig
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
            slope = self.density_derivative(_ball(a, b))
            return bool(slope > 0 or slope < 0)

        todo = list(zip(cuts, cuts[1:]))
        found: list[tuple[float, float]] = []
        while todo:
            a, b = todo.pop()
            if monotone(a, b) or self.density_second_derivative(_ball(a, b)) > 0:
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
                if direction > 0:
                    lo, hi = lo.max(sa), hi.max(sa)
                else:
                    lo, hi = lo.min(sa), hi.min(sa)
            total += c.weight * _phi_diff((lo - c.mean) / self.sigma, (hi - c.mean) / self.sigma)
        return total

    def mass_below(self, a: arb) -> arb:
        """Upper bound of P(X <= a) (truncation ignored, so >= the true mass)."""
        total = arb(0)
        for c in self.components:
            total += c.weight * _ncdf((a - c.mean) / self.sigma)
        return total

    def mass_above(self, b: arb) -> arb:
        """Upper bound of P(X >= b) (truncation ignored)."""
        total = arb(0)
        for c in self.components:
            total += c.weight * _nsf((b - c.mean) / self.sigma)
        return total

    def tail_derivative_mass(self, b: arb, right: bool) -> arb:
        """Upper bound of int_{x>b} |f'| (right) or int_{x<b} |f'| (left), b beyond all means."""
        total = arb(0)
        for c in self.components:
            z = (b - c.mean) / self.sigma
            total += c.weight * (-_sqr(z) / 2).exp()
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
                c[k] = c[k] + comp.weight * (-_sqr((k - k0) * h) * self._half_inv_s2).exp()
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
        return (pa(e) + pb(1 / e)).log() - _sqr(v) * self._half_inv_s2

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
        return (polys[0](e) + polys[1](1 / e)) * (-_sqr(v) * self._half_inv_s2).exp()

    def kernel_sum_bounds(self, y: arb) -> tuple[arb, arb]:
        """``(lo, hi)`` with ``lo <= K(t) <= hi`` for every ``t`` in the ball ``y``,
        ``K(t) = sum_j w_j exp(-(t - m_j)^2 / 2 s^2)`` (untruncated lattice mixtures).

        Each term is monotone on the ball unless its mean lies inside: terms with ``m_j <= lo(y)``
        decrease, those with ``m_j >= hi(y)`` increase (both comparisons certified), so their sums
        take their extremes at the ball's two ends (point evaluations of the partial lattice sums,
        :meth:`_partial_kernel_sum`); a term whose mean lies inside (or is not certified outside) is
        bounded by its weight above and by its smaller end value below. The same per-term extremes
        as the endpoint form of :meth:`_Difference.interval_bounds`, in a few polynomial
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
                ends = [(-_sqr(e - c.mean) * self._half_inv_s2).exp() for e in (y_lo, y_hi)]
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


# ----------------------------------------------------------------------------------------
# sign structure of D(x) = f(x + phi) - e^eps f(x) on a window, for a ball of shifts


@dataclass
class _Piece:
    lo: float
    hi: float
    sign: int  # +1 certified positive, -1 certified negative, 0 uncertain


class _Difference:
    """D(x; phi) = f(x + phi) - e^eps f(x) for a fixed mixture and eps."""

    def __init__(self, mix: GaussianMixture, exp_eps: arb, eps_float: float, epsilon: arb | None = None):
        self.mix = mix
        self.ties_exact = epsilon is not None and mix.design_epsilon is epsilon
        self.exp_eps = exp_eps
        self.log_exp_eps = exp_eps.log()
        self.eps_f = eps_float
        self._poly_cache: dict = {}

    def value(self, x: arb, phi: arb) -> arb:
        return self.mix.density(x + phi) - self.exp_eps * self.mix.density(x)

    def derivative(self, x: arb, phi: arb) -> arb:
        return self.mix.density_derivative(x + phi) - self.exp_eps * self.mix.density_derivative(x)

    def _pairs(self, phi: arb) -> dict[int, int]:
        """Shifted component j -> unshifted component k whose terms nearly cancel.

        ``w_j g(x + phi - m_j)`` and ``e^eps w_k g(x - m_k)`` with ``w_j ~ e^eps w_k`` and
        ``m_j - phi ~ m_k`` (multi-Gaussian near phi = Delta: k = j - 1 for j <= 0; quasi-Gaussian:
        centre vs side component). Pairing only changes how the sum is enclosed, never its value.
        """
        pm = float(phi.mid())
        key = ("pairs", pm)  # any pairing is valid (see above): a float key is enough
        cached = self._poly_cache.get(key)
        if cached is not None:
            return cached
        mix = self.mix
        s = mix._f_sig
        pairs: dict[int, int] = {}
        used: set[int] = set()
        for j, cj in enumerate(mix.components):
            for k, ck in enumerate(mix.components):
                if k in used:
                    continue
                if abs((mix._f_mu[j] - pm) - mix._f_mu[k]) <= 0.25 * s and \
                        abs(mix._f_logw[j] - (self.eps_f + mix._f_logw[k])) <= 1e-9 * (1 + abs(mix._f_logw[j])):
                    pairs[j] = k
                    used.add(k)
                    break
        self._poly_cache[key] = pairs
        return pairs

    # -- log-ratio sign test (dependency-free mean value form) --
    def _active(self, lo: arb, hi: arb) -> tuple[int, ...] | None:
        """Indices of the components active on the whole of [lo, hi], None if a support edge lies inside."""
        if not self.mix.breakpoints:
            return self.mix.all_components
        ball = lo.union(hi)
        act = []
        for i, c in enumerate(self.mix.components):
            ind = self.mix._indicator(c, ball)
            if ind is None:
                return None
            if ind:
                act.append(i)
        return tuple(act)

    def _exponents(self, y: arb, act: tuple[int, ...]) -> list[arb]:
        mix = self.mix
        return [mix._logw[i] - _sqr(y - mix.components[i].mean) * mix._half_inv_s2 for i in act]

    def _log_density(self, y: arb, act: tuple[int, ...]) -> arb:
        """log of sum_{i in act} w_i exp(-(y - m_i)^2 / 2 s^2) (normalising constant dropped)."""
        if self.mix._lattice_sums and act is self.mix.all_components:
            return self.mix.log_kernel_sum(y)
        ts = self._exponents(y, act)
        top = max(ts, key=lambda t: float(t.mid()))
        return top + sum(((t - top).exp() for t in ts), arb(0)).log()

    def _posterior_mean(self, y: arb, act: tuple[int, ...]) -> arb:
        """E[m_I | y] for the component posterior restricted to ``act``."""
        if self.mix._lattice_sums and act is self.mix.all_components:
            return self.mix.posterior_mean(y)
        ts = self._exponents(y, act)
        top = max(ts, key=lambda t: float(t.mid()))
        ws = [(t - top).exp() for t in ts]
        num = sum((w * self.mix.components[i].mean for w, i in zip(ws, act)), arb(0))
        return num / sum(ws, arb(0))

    def _posterior_mean_cached(self, y: arb, act: tuple[int, ...]) -> arb:
        """:meth:`_posterior_mean`, cached per structure (piece ends are shared by neighbours)."""
        key = ("pm", float(y.mid()), float(y.rad()), act)
        v = self._poly_cache.get(key)
        if v is None:
            v = self._poly_cache[key] = self._posterior_mean(y, act)
        return v

    def log_density_slope(self, lo: float, hi: float, act: tuple[int, ...]) -> arb:
        """Enclosure of ``(log f)'(y) = (E[m | y] - y) / s^2`` for every ``y`` in ``[lo, hi]`` (components
        ``act`` active there): ``E[m | y]`` is non-decreasing in ``y``, so its values at the two ends
        bound it (see :meth:`logratio_sign`)."""
        pmean, inv = self._posterior_mean_cached, self.mix._inv_s2
        return ((pmean(arb(lo), act).lower() - hi) * inv).union((pmean(arb(hi), act).upper() - lo) * inv)

    def logratio_partials(self, lo: float, hi: float, phi: arb):
        """``((lx_lo, lx_hi), (lp_lo, lp_hi), (act_x, act_y))``: bounds of ``l_x`` and ``l_phi`` over
        ``[lo, hi] x phi`` for ``l(x, t) = log f(x + t) - log f(x)``, from posterior means at the
        corners (see :meth:`logratio_sign`); None where a support edge meets the box."""
        xa, xb = arb(lo), arb(hi)
        pa, pb = phi.lower(), phi.upper()
        act_x = self._active(xa, xb)
        act_y = self._active(xa + pa, xb + pb)
        if act_x is None or act_y is None or not act_x or not act_y:
            return None
        pmean = self._posterior_mean_cached
        b_lo = pmean(xa, act_x).lower()
        b_hi = pmean(xb, act_x).upper()
        a_lo = pmean(xa + pa, act_y).lower()
        a_hi = pmean(xb + pb, act_y).upper()
        inv = self.mix._inv_s2
        lx = ((a_lo - b_hi - pb) * inv, (a_hi - b_lo - pa) * inv)
        lp = ((a_lo - xb - pb) * inv, (a_hi - xa - pa) * inv)
        return lx, lp, (act_x, act_y)

    def logratio_x_bounds(self, lo: float, hi: float, phi: arb, parts: int, shift_parts: int = 1):
        """``(lx_lo, lx_hi, (act_x, act_y))``: bounds of ``l_x`` over ``[lo, hi] x phi`` as the hull of
        :meth:`logratio_partials` on a grid of ``parts`` equal sub-pieces times ``shift_parts``
        sub-balls of ``phi`` (the corner bounds lose the variation of both posterior means across
        a box, in ``x`` and in the shift; neighbouring boxes share their corners' means through
        the cache). None where a support edge meets a sub-box or the active sets differ."""
        edges = [lo + (hi - lo) * j / parts for j in range(parts)] + [hi]
        if shift_parts > 1 and phi.rad() > 0:
            t0, t1 = phi.lower(), phi.upper()
            ts = [t0 + (t1 - t0) * arb(j) / shift_parts for j in range(shift_parts)] + [t1]
            balls = [ta.union(tb) for ta, tb in zip(ts, ts[1:])]
        else:
            balls = [phi]
        out = None
        for ball in balls:
            for a, b in zip(edges, edges[1:]):
                partials = self.logratio_partials(a, b, ball)
                if partials is None or (out is not None and partials[2] != out[2]):
                    return None
                (l0, l1), _, act = partials
                out = (l0, l1, act) if out is None else (out[0].min(l0), out[1].max(l1), act)
        return out

    def logratio_sign(self, lo: float, hi: float, phi: arb) -> int:
        """Certified sign of ``D`` on ``[lo, hi]`` for every shift in ``phi`` (0: undecided).

        ``D > 0`` iff ``l(x, phi) = log f(x + phi) - log f(x) > eps``. On a piece where the set of
        active components is fixed, ``(log f)'(y) = (E[m | y] - y) / s^2`` and the posterior mean
        ``E[m | y]`` is non-decreasing in ``y`` (an exponential family in ``y / s^2``), so both
        partial derivatives of ``l`` are enclosed from the posterior means at the two ends of each
        ball, with no dependency blow-up; the mean value theorem on the segment from the centre
        then gives ``l(X, Phi) in l(xm, pm) + l_x(X, Phi) [-rx, rx] + l_phi(X, Phi) [-rp, rp]``.
        """
        partials = self.logratio_partials(lo, hi, phi)
        if partials is None:
            return 0
        (lx_lo, lx_hi), (lp_lo, lp_hi), (act_x, act_y) = partials
        xa, xb = arb(lo), arb(hi)
        xm = (xa + xb) / 2
        rx = (xb - xa) / 2
        pm = arb(phi.mid())
        rp = arb(phi.rad())
        def excess(xv: arb) -> arb:  # l(xv, pm) - eps
            return self._log_density(xv + pm, act_y) - self._log_density(xv, act_x) - self.log_exp_eps

        centre = excess(xm)
        spread = lx_lo.abs_upper().max(lx_hi.abs_upper()) * rx + lp_lo.abs_upper().max(lp_hi.abs_upper()) * rp
        if centre.lower() > spread:
            return 1
        if centre.upper() < -spread:
            return -1
        if lx_lo > 0 or lx_hi < 0:
            # l is monotone in x on the piece for every shift: its extremes are at the two ends
            lp = lp_lo.abs_upper().max(lp_hi.abs_upper()) * rp
            ends = [excess(xa), excess(xb)]
            if all(v.lower() > lp for v in ends):
                return 1
            if all(v.upper() < -lp for v in ends):
                return -1
        return 0

    def float_signability(self, lo: np.ndarray, hi: np.ndarray, plo: float, phi_hi: float):
        """Float guide to :meth:`logratio_sign` on the boxes ``[lo_i, hi_i] x [plo, phi_hi]``:
        ``(ratio, log_top, shift_bound)`` with ``ratio`` = the margin ``|l - eps| / spread`` of the
        same mean-value test evaluated in floats (> 1: the certified test will likely decide the
        box), ``log_top`` ~ ``log`` of the largest ``w_j exp(-(y - m_j)^2 / 2 s^2)`` on the box's
        shifted ends, and ``shift_bound`` true where ``l(x, .) - eps`` changes sign across the shift
        ball (to first order) at the centre and both ends. It only chooses which boxes are worth an
        Arb test."""
        mix = self.mix
        inv = 1.0 / (mix._f_sig * mix._f_sig)
        pm, rp = 0.5 * (plo + phi_hi), 0.5 * (phi_hi - plo)
        xm, rx = 0.5 * (lo + hi), 0.5 * (hi - lo)
        n = lo.size
        ys = np.concatenate([lo, hi, lo + plo, hi + phi_hi, xm, xm + pm, lo + pm, hi + pm])
        mu = mix.posterior_mean_float(ys[:4 * n])
        b_lo, b_hi, a_lo, a_hi = mu[:n], mu[n:2 * n], mu[2 * n:3 * n], mu[3 * n:]
        lx_lo, lx_hi = (a_lo - b_hi - phi_hi) * inv, (a_hi - b_lo - plo) * inv
        lp = np.maximum(np.abs(a_lo - hi - phi_hi), np.abs(a_hi - lo - plo)) * inv * rp
        logk = mix.log_density_float(ys[4 * n:])
        centre = logk[n:2 * n] - logk[:n] - self.eps_f
        spread = np.maximum(np.abs(lx_lo), np.abs(lx_hi)) * rx + lp
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.abs(centre) / spread
            # monotone in x: the ends decide (second branch of logratio_sign)
            ea = logk[2 * n:3 * n] - mix.log_density_float(lo) - self.eps_f
            eb = logk[3 * n:] - mix.log_density_float(hi) - self.eps_f
            ends = np.where(ea * eb > 0, np.minimum(np.abs(ea), np.abs(eb)) / lp, 0.0)
        ratio = np.where((lx_lo > 0) | (lx_hi < 0), np.maximum(ratio, ends), ratio)
        top = np.maximum(logk[2 * n:3 * n], logk[3 * n:])
        # at the centre and both ends, l(x, .) - eps changes sign over the shifts (first order,
        # l_t = (log f)'(x + pm) at that very x): splitting in x will not help there (e.g. next to
        # a tied shift, where l ~ eps on long ranges)
        mu_m = mix.posterior_mean_float(ys[5 * n:])
        lt_c = np.abs(mu_m[:n] - xm - pm) * inv * rp
        lt_a = np.abs(mu_m[n:2 * n] - lo - pm) * inv * rp
        lt_b = np.abs(mu_m[2 * n:] - hi - pm) * inv * rp
        shift_bound = (np.abs(centre) < lt_c) & (np.abs(ea) < lt_a) & (np.abs(eb) < lt_b)
        return np.nan_to_num(ratio, nan=0.0, posinf=1e300), top, shift_bound

    def _tie_coefficient(self, cj: Component, ck: Component) -> arb:
        """``w_j - e^eps w_k``: exactly 0 for a declared tie (see ``GaussianMixture``)."""
        if (self.ties_exact and cj.weight_units is not None and ck.weight_units is not None
                and cj.weight_units == ck.weight_units + 1):
            return arb(0)
        return cj.weight - self.exp_eps * ck.weight

    def interval_sign(self, x: arb, phi: arb) -> int:
        """Certified sign of D on the whole ball x for every shift in the ball phi (0: unknown),
        from the bounds of :meth:`interval_bounds`."""
        lower, upper = self.interval_bounds(x, phi)
        if lower > 0:
            return 1
        if upper < 0:
            return -1
        return 0

    def interval_bounds(self, x: arb, phi: arb) -> tuple[arb, arb]:
        """``(lo, hi)`` with ``lo <= D(y, t) / N <= hi`` for every ``y`` in the ball ``x`` and ``t`` in
        the ball ``phi``, ``N = 1 / (sqrt(2 pi) s)`` the normal density's constant.

        Endpoint interval arithmetic on the log-terms: every term is positive, so the sums'
        lower (upper) bounds are sums of exp(lower) (exp(upper)) of the exponents. This avoids
        the mid-radius blow-up of products of wide balls. Nearly cancelling pairs (see
        :meth:`_pairs`) are enclosed together by the mean value theorem:
        ``w_j g(u1) - e^eps w_k g(u2) = w_j (u1 - u2) g'(xi) + (w_j - e^eps w_k) g(u2)``,
        ``xi`` in the hull of ``u1 = x + phi - m_j`` and ``u2 = x - m_k``."""
        mix = self.mix
        xp = x + phi
        pairs = self._pairs(phi)
        if mix._lattice_sums and not pairs:
            p_lo, p_hi = mix.kernel_sum_bounds(xp)
            m_lo, m_hi = mix.kernel_sum_bounds(x)
            return p_lo - self.exp_eps * m_hi, p_hi - self.exp_eps * m_lo
        h2 = mix._half_inv_s2
        p_lo = arb(0)
        p_hi = arb(0)
        m_lo = arb(0)
        m_hi = arb(0)
        paired = arb(0)
        skip_minus: set[int] = set()
        comps = mix.components
        for j, k in pairs.items():
            cj, ck = comps[j], comps[k]
            if mix._indicator(cj, xp) == 1 and mix._indicator(ck, x) == 1:
                u1 = xp - cj.mean
                u2 = x - ck.mean
                lo = u1.lower().min(u2.lower())
                hi = u1.upper().max(u2.upper())
                xi = (lo + hi) / 2 + (hi - lo) / 2 * arb(0, 1)
                gprime = -xi * mix._inv_s2 * (-_sqr(xi) * h2).exp()
                wj = cj.weight
                paired += wj * (phi - cj.mean + ck.mean) * gprime \
                    + self._tie_coefficient(cj, ck) * (-_sqr(u2) * h2).exp()
                skip_minus.add(k)
            else:
                skip_minus.add(-1)  # placeholder: keep j unpaired below
        done_plus = {j for j, k in pairs.items() if k in skip_minus}
        for idx, (c, lw) in enumerate(zip(comps, mix._logw)):
            if idx not in done_plus:
                ip = mix._indicator(c, xp)
                if ip != 0:
                    t = lw - _sqr(xp - c.mean) * h2
                    p_hi += t.upper().exp()
                    if ip == 1:
                        p_lo += t.lower().exp()
            if idx not in skip_minus:
                im = mix._indicator(c, x)
                if im != 0:
                    t = lw - _sqr(x - c.mean) * h2
                    m_hi += t.upper().exp()
                    if im == 1:
                        m_lo += t.lower().exp()
        return p_lo - self.exp_eps * m_hi + paired.lower(), p_hi - self.exp_eps * m_lo + paired.upper()

    # -- sign evaluators: q(x) has the sign of D(x) (a positive factor removed) --
    def _polys(self, x: arb, phi: arb):
        """Polynomials (P+, P-, P+', P-') for the region of x, or None if not lattice / ambiguous."""
        mix = self.mix
        if mix.lattice is None:
            return None
        act_p = []
        act_m = []
        for c in mix.components:
            i_m = mix._indicator(c, x)
            i_p = mix._indicator(c, x + phi)
            if i_m is None or i_p is None:
                return None
            act_p.append(i_p)
            act_m.append(i_m)
        key = (tuple(act_p), tuple(act_m), id(phi))
        cached = self._poly_cache.get(key)
        if cached is not None and cached[0] is phi:
            return cached[1]
        n = max(c.lattice_index for c in mix.components) + 1
        cp = [arb(0)] * n
        cm = [arb(0)] * n
        h2 = mix._half_inv_s2
        for c, ap, am in zip(mix.components, act_p, act_m):
            k = c.lattice_index
            if ap:
                cp[k] = cp[k] + c.weight * (-_sqr(c.mean - phi) * h2).exp()
            if am:
                cm[k] = cm[k] + self.exp_eps * c.weight * (-_sqr(c.mean) * h2).exp()
        pp, pm = arb_poly(cp), arb_poly(cm)
        res = (pp, pm, pp.derivative(), pm.derivative())
        self._poly_cache[key] = (phi, res)  # holding phi keeps id(phi) unique while cached
        return res

    def sign_value(self, x: arb, phi: arb) -> arb:
        polys = self._polys(x, phi)
        if polys is None:
            return self.value(x, phi)
        pp, pm, _, _ = polys
        mix = self.mix
        e = (x * mix.lattice[1] * mix._inv_s2).exp()
        return (-phi * x * mix._inv_s2).exp() * pp(e) - pm(e)

    def sign_derivative(self, x: arb, phi: arb) -> arb:
        polys = self._polys(x, phi)
        if polys is None:
            return self.derivative(x, phi)
        pp, pm, dpp, dpm = polys
        mix = self.mix
        a = mix.lattice[1] * mix._inv_s2
        e = (x * a).exp()
        g = (-phi * x * mix._inv_s2).exp()
        return a * e * (g * dpp(e) - dpm(e)) - phi * mix._inv_s2 * g * pp(e)

    # float guide: g(x) = log f(x + phi) - eps - log f(x) has the sign of D
    def float_roots(self, phi: float, xl: float, xr: float) -> list[float]:
        s = self.mix._f_sig
        n = int(min(20000, max(400, 24 * (xr - xl) / s)))
        xs = np.linspace(xl, xr, n)

        def g(x: np.ndarray) -> np.ndarray:
            return self.mix.log_density_float(x + phi) - self.eps_f - self.mix.log_density_float(x)

        gs = g(xs)
        sg = np.sign(gs)
        idx = np.nonzero(sg[:-1] * sg[1:] < 0)[0]
        if idx.size == 0:
            return []
        a = xs[idx].copy()
        b = xs[idx + 1].copy()
        fa = gs[idx].copy()
        fb = gs[idx + 1].copy()
        # Illinois (modified regula falsi), vectorised: superlinear on these smooth brackets; a
        # poor float root only costs the certified stage more work, never correctness
        wa, wb = fa.copy(), fb.copy()  # secant weights (halved at a stale end)
        side = np.zeros(a.shape)
        tol = 1e-13 * (np.abs(a) + np.abs(b) + self.mix._f_sig)
        for _ in range(40):
            with np.errstate(invalid="ignore", divide="ignore"):
                m = b - wb * (b - a) / (wb - wa)
            # a secant point within tol of the bracket (at an end, even): the root is there to second
            # order (regula falsi approaches it from one side; Illinois halvings would take ~30 steps)
            near = np.isfinite(m) & (m >= a - tol) & (m <= b + tol) & (np.minimum(np.abs(m - a), np.abs(b - m)) <= tol)
            if np.all((b - a <= tol) | near):
                return list(np.where(near, np.clip(m, a, b), np.where(np.abs(fa) <= np.abs(fb), a, b)))
            m = np.where(np.isfinite(m) & (m > a) & (m < b), m, 0.5 * (a + b))
            fm = g(m)
            left = np.sign(fm) == np.sign(fa)  # the root is in [m, b]
            a, fa, wa = np.where(left, m, a), np.where(left, fm, fa), np.where(left, fm, wa)
            b, fb, wb = np.where(left, b, m), np.where(left, fb, fm), np.where(left, wb, fm)
            wb = np.where(left & (side > 0), 0.5 * wb, wb)
            wa = np.where(~left & (side < 0), 0.5 * wa, wa)
            side = np.where(left, 1.0, -1.0)
            if np.all(b - a <= tol):
                break
        return list(np.where(np.abs(fa) <= np.abs(fb), a, b))


CUT_STEP = 0.5
GUIDE_DEPTH = 12  # float-only bisection levels of the guide
GUIDE_DEPTH_TIED = 4  # same, near a tied shift (D ~ 0 over long ranges: the Arb tests with pairs decide)
GUIDE_MARGIN = 1.25  # float margin of the log-ratio test above which a piece gets an Arb test
BALL_BUDGET = 2000
BALL_BUDGET_PER_ROOT = 200
ROOT_SLOPE_PARTS = 8  # sub-balls of the shift for the derivative of a clean root's boundary term
SUB_ITERS = 2  # passes narrowing a root sub-box by its speed bound
SUB_PARTS = 2  # parts of each root sub-box in its l_x enclosure (4: same intervals, slower)
GRID_HALF = 4  # sub-balls on each side of the centre in the branch and bound's model grid
INITIAL_NEAR_PEAK = Fraction(1, 16)  # width of the first intervals around an interior argmax hint ...
PEAK_SCALE_SHARE = 1.5  # ... or, given the peak's scale (H halves within it), the power of 2 nearest scale / this
NEAR_PEAK_RANGE = (Fraction(1, 64), Fraction(1, 8))  # (narrowest, widest) of those widths


def _near_peak_width(peak_scale: float | None) -> Fraction:
    """Width (in units of the shift range) of the first intervals around an interior hint: the power
    of 2 nearest ``peak_scale / PEAK_SCALE_SHARE`` within ``NEAR_PEAK_RANGE``, or INITIAL_NEAR_PEAK.
    A float choice of where to cut only: it never enters a bound."""
    if peak_scale is None or not peak_scale > 0 or not math.isfinite(peak_scale):
        return INITIAL_NEAR_PEAK
    k = round(math.log2(PEAK_SCALE_SHARE / peak_scale))
    lo, hi = NEAR_PEAK_RANGE
    return min(max(Fraction(1, 2 ** k) if k >= 0 else Fraction(2 ** -k), lo), hi)
# (sub-pieces, sub-balls of the shift) tried, in turn, to prove a root piece monotone in x
CLEAN_ROOT_PARTS = ((1, 1), (4, 1), (16, 1), (16, 4))
EXCESS_BUDGET = 96  # bisections per shift ball for the int D_+ bounds of its uncertain pieces
# a shift ball's structure leaves a piece uncertain, unrefined, once sup D on it is below this share
# of the caller's allowance spread over the window (the pieces' int D_+ then add at most that share)
NEGLIGIBLE_SHARE = 0.02
CHORD_SPLIT = True  # split without a model where the halves' chord bounds would settle them
MODE_SPLIT = 16  # a mode set is bisected down to this fraction of it where D < 0 is not yet certified
MODE_BOX_WIDTH = 2.0 ** -8  # width (in sigma) to which the boxes holding the modes of f are bisected


class _Structure:
    """Certified decomposition of [XL, XR] into signed / uncertain pieces for a ball of shifts."""

    def __init__(self, diff: _Difference, phi: arb, phi_floats: Sequence[float], xl: float, xr: float,
                 root_width: float, max_depth: int = 48, min_piece: float | None = None,
                 negligible: float = 0.0, negligible_density: float = 0.0):
        self.diff = diff
        self.phi = phi
        self.xl = xl
        self.xr = xr
        self.root_width = root_width
        self.max_depth = max_depth
        self.min_piece = min_piece if min_piece is not None else root_width * 1e-3
        self.budget = BALL_BUDGET  # ball mode: evaluations before the remaining unsigned pieces stay uncertain
        self.point_budget = 20000  # point mode: same, as a guard (uncertain pieces only widen the bounds)
        # an unsigned piece whose |D| and |f'| enclosures times its width are below this stays
        # uncertain without further splitting: its contribution to either bound is negligible
        # (64-bit cancellation between exactly tied components can make such pieces unsignable)
        self.negligible = negligible
        # ball mode with a known allowance: an unsigned piece where sup D < this density stays
        # uncertain; its int D_+ (the route ShiftExpansion.rise can take) is < density * width
        self.negligible_density = negligible_density
        self.evaluations = 0
        diff._poly_cache = {}
        ball_mode = len(phi_floats) > 1
        self.ball_mode = ball_mode
        per_sample = [diff.float_roots(pf, xl, xr) for pf in phi_floats]
        roots: list[float] = sorted(r for rs in per_sample for r in rs)
        # each root costs ~100 evaluations to isolate (its sweep's neighbours are signed at
        # geometrically shrinking widths): the guard must grow with the number of roots
        self.budget += BALL_BUDGET_PER_ROOT * max(len(rs) for rs in per_sample) if per_sample else 0
        cuts = {xl, xr}
        uncertain: list[tuple[float, float]] = []
        if not ball_mode:
            # cut points: separators between consecutive root estimates
            for r0, r1 in zip(roots, roots[1:]):
                if r1 - r0 > 4 * root_width:
                    cuts.add(0.5 * (r0 + r1))
        else:
            # a ball of shifts: each root sweeps a range; the hull of its sampled positions
            # (padded) is an uncertain piece, the gaps are certified for every shift at once
            pad = root_width
            mids = per_sample[len(per_sample) // 2]
            for r in roots:
                uncertain.append((r - pad, r + pad))
            reach = max(0.25 * diff.mix._f_sig, 50.0 * (float(phi.upper()) - float(phi.lower())))
            if len({len(rs) for rs in per_sample}) == 1:
                # same number of roots at every sampled shift: follow each root by its rank
                for tup in zip(*per_sample):
                    uncertain.append((min(tup) - pad, max(tup) + pad))
                mids = []
            for r in mids:
                lo_r, hi_r = r, r
                for rs in per_sample:
                    if rs:
                        nearest = min(rs, key=lambda t: abs(t - r))
                        if abs(nearest - r) <= reach:  # else: a root pair is born/dies in the ball
                            lo_r, hi_r = min(lo_r, nearest), max(hi_r, nearest)
                uncertain.append((lo_r - pad, hi_r + pad))
        if ball_mode:
            # start from pieces narrow enough for the endpoint enclosures of the Gaussian terms
            # to sign them; blind dyadic bisection from the whole window wastes the budget
            step = CUT_STEP * diff.mix._f_sig
            n_cuts = int((xr - xl) / step)
            cuts.update(xl + i * step for i in range(1, n_cuts))
        plo, phi_hi = float(phi.lower()), float(phi.upper())
        for s_ in diff.mix.breakpoints:
            if xl < s_ < xr:
                cuts.add(s_)
            # shifted breakpoint x = s - phi: uncertain when phi is a ball
            a, b = s_ - phi_hi, s_ - plo
            if ball_mode and b > xl and a < xr:
                pad = max(root_width, 1e-12 * (abs(s_) + 1))
                uncertain.append((a - pad, b + pad))
            elif not ball_mode and xl < a < xr:
                cuts.add(a)
        # merge overlapping uncertain ranges, clip to the window
        merged: list[tuple[float, float]] = []
        for a, b in sorted((max(xl, a), min(xr, b)) for a, b in uncertain):
            if a >= b:
                continue
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        uncertain = merged
        cut_list = sorted(cuts)
        # remove cut points lying inside uncertain ranges, then add their ends
        for a, b in uncertain:
            cut_list = [c for c in cut_list if not (a < c < b)] + [a, b]
        cut_list = sorted(set(cut_list))
        self.pieces: list[_Piece] = []
        guided: list[tuple[float, float]] = []
        for lo, hi in zip(cut_list, cut_list[1:]):
            if any(a <= lo and hi <= b for a, b in uncertain):
                self.pieces.append(_Piece(lo, hi, 0))
                continue
            hint = [] if ball_mode else [r for r in roots if lo < r < hi]
            if len(hint) <= 1:
                if hint:
                    h = self.root_width / 2
                    a, b = max(lo, hint[0] - h), min(hi, hint[0] + h)
                    around = self._monotone_root_piece(lo, hi, a, b) if lo < a < b < hi else None
                    if around is not None:
                        self.pieces.extend(around[0])
                        guided.extend(around[1])
                        continue
                else:
                    guided.append((lo, hi))
                    continue
            self.pieces.extend(self._classify(lo, hi, hint, 0))
        if guided:
            self.pieces.extend(self._classify_guided(guided, plo, phi_hi))
        self.pieces.sort(key=lambda p: p.lo)

    def _classify_guided(self, todo: list[tuple[float, float]], plo: float, phi_hi: float) -> list[_Piece]:
        """Bisect in floats first, Arb only where it will decide.

        Pieces are split breadth-first while the float guide (:meth:`_Difference.float_signability`)
        predicts that the log-ratio test fails on them; a piece predicted to pass goes to the
        certified :meth:`_classify` (which bisects further if the prediction was wrong), one
        predicted to be negligible to the certified :meth:`_negligible`, and one still predicted to
        fail at the depth or width limit stays uncertain without any Arb evaluation (the sound
        default). Floats decide nothing here: every signed piece is certified by Arb."""
        mix = self.diff.mix
        log_norm = math.log(float(mix._norm.upper()))
        exp_eps = math.exp(self.diff.eps_f)
        out: list[_Piece] = []
        depth = 0
        guide_depth = GUIDE_DEPTH_TIED if not self.ball_mode and self.diff._pairs(self.phi) else GUIDE_DEPTH
        while todo:
            lo = np.array([a for a, _ in todo])
            hi = np.array([b for _, b in todo])
            ratio, log_top, shift_bound = self.diff.float_signability(lo, hi, plo, phi_hi)
            # a generous float estimate of sup D+ on the piece (for the negligibility test)
            top = np.exp(log_top + log_norm + math.log(4 * len(mix.components)))
            nxt: list[tuple[float, float]] = []
            for (a, b), r, t, stuck in zip(todo, ratio, top, shift_bound):
                width = b - a
                if r > GUIDE_MARGIN:
                    out.extend(self._classify(a, b, [], depth))
                    continue
                if t * exp_eps <= 0.1 * max(self.negligible_density, self.negligible / width) and \
                        self._negligible(_ball(a, b), width):
                    out.append(_Piece(a, b, 0))
                    continue
                m = 0.5 * (a + b)
                if depth >= self.max_depth or width <= self.min_piece or not a < m < b or (stuck and self.ball_mode):
                    out.append(_Piece(a, b, 0))
                elif depth >= guide_depth:
                    # beyond the guide's depth (point mode: ties, tangencies) the certified
                    # classification, with its own tests and budget, takes over
                    out.extend(self._classify(a, b, [], depth))
                else:
                    nxt += [(a, m), (m, b)]
            todo = nxt
            depth += 1
        return out

    def _negligible(self, xb: arb, width: float) -> bool:
        if self.negligible <= 0 and self.negligible_density <= 0:
            return False
        self.evaluations += 1
        d = self.diff.value(xb, self.phi)
        if d.upper() <= self.negligible_density:
            return True
        if not d.upper() * width <= self.negligible:
            return False
        fp = self.diff.mix.density_derivative(xb + self.phi)
        return bool(fp.abs_upper() * width <= self.negligible)

    # -- certified sign of D at a point / on a piece --
    def _sign_at(self, x: float) -> int:
        self.evaluations += 1
        d = self.diff.sign_value(arb(x), self.phi)
        return 1 if d > 0 else (-1 if d < 0 else 0)

    def _classify(self, lo: float, hi: float, hint: list[float], depth: int) -> list[_Piece]:
        xb = _ball(lo, hi)
        self.evaluations += 1
        sgn = self.diff.logratio_sign(lo, hi, self.phi)
        if sgn == 0 and (self.diff.mix.lattice is None or self.diff._pairs(self.phi)):
            # (for lattice mixtures the endpoint test rarely decides what the log-ratio test did
            # not, except through its tied pairs near phi = Delta: it is tried only there)
            self.evaluations += 1
            sgn = self.diff.interval_sign(xb, self.phi)
        if sgn != 0:
            return [_Piece(lo, hi, sgn)]
        if self.evaluations > self.point_budget or self._negligible(xb, hi - lo):
            return [_Piece(lo, hi, 0)]
        if self.ball_mode:
            if depth >= self.max_depth or hi - lo <= self.min_piece or self.evaluations > self.budget:
                return [_Piece(lo, hi, 0)]
            m = 0.5 * (lo + hi)
            return self._classify(lo, m, [], depth + 1) + self._classify(m, hi, [], depth + 1)
        # a float root hint: try a tight certified bracket around it first
        if len(hint) == 1 and depth == 0:
            r = hint[0]
            h = self.root_width / 2
            a, b = max(lo, r - h), min(hi, r + h)
            if lo < a < b < hi:  # (the caller has tried _monotone_root_piece already)
                left = self._classify(lo, a, [], 1)
                mid = self._classify_monotone(a, b)
                right = self._classify(b, hi, [], 1)
                if mid is not None:
                    return left + mid + right
        dd = self.diff.sign_derivative(xb, self.phi)
        self.evaluations += 1
        if dd > 0 or dd < 0:
            res = self._classify_monotone(lo, hi, known_monotone=True)
            if res is not None:
                return res
        else:
            # centered (mean value) form: q(X) in q(mid) + q'(X) [-r, r]
            mid = 0.5 * (lo + hi)
            qc = self.diff.sign_value(arb(mid), self.phi) + dd * arb(0, 0.5 * (hi - lo))
            self.evaluations += 1
            if qc > 0:
                return [_Piece(lo, hi, 1)]
            if qc < 0:
                return [_Piece(lo, hi, -1)]
        if depth >= self.max_depth or hi - lo <= self.min_piece:
            return [_Piece(lo, hi, 0)]
        m = 0.5 * (lo + hi)
        if not lo < m < hi:
            return [_Piece(lo, hi, 0)]
        return (self._classify(lo, m, [r for r in hint if r < m], depth + 1)
                + self._classify(m, hi, [r for r in hint if r >= m], depth + 1))

    def _monotone_root_piece(self, lo: float, hi: float, a: float, b: float
                             ) -> tuple[list[_Piece], list[tuple[float, float]]] | None:
        """Point mode: ``(pieces, rest)`` for ``[lo, hi]`` around a float root bracket ``[a, b]``,
        or None; ``rest`` are the parts of ``[lo, hi]`` left to classify (unordered output).

        If ``l(., phi) = log f(. + phi) - log f`` is certified strictly monotone on some
        ``[ql, qh]`` around ``[a, b]`` (:meth:`_Difference.logratio_x_bounds`) and ``D`` has certified
        opposite signs at ``a`` and ``b``, then ``D`` has exactly one root on ``[ql, qh]``, inside
        ``[a, b]``, and the sign of ``a`` (``b``) holds on all of ``[ql, a]`` (``[b, qh]``). The rest
        of ``[lo, hi]`` holds no float root and is classified as usual. This replaces the geometric
        grading of certified pieces towards the root (~30 levels at ``root_width = 1e-9 sigma``)."""
        r = 0.5 * (a + b)
        sa = sb = None
        for q in (hi - lo, (hi - lo) / 8, (hi - lo) / 64):
            ql, qh = max(lo, r - q), min(hi, r + q)
            if not ql <= a < b <= qh:
                return None
            bounds = self.diff.logratio_x_bounds(ql, qh, self.phi, 4)
            self.evaluations += 4
            if bounds is None:
                return None
            if not (bounds[0] > 0 or bounds[1] < 0):
                continue
            if sa is None:
                sa, sb = self._sign_at(a), self._sign_at(b)
            if sa == 0 or sa != -sb:
                return None
            rest = [(u, v) for u, v in ((lo, ql), (qh, hi)) if u < v]
            return [p for p in (_Piece(ql, a, sa), _Piece(a, b, 0), _Piece(b, qh, sb)) if p.lo < p.hi], rest
        return None

    def _classify_monotone(self, lo: float, hi: float, known_monotone: bool = False) -> list[_Piece] | None:
        """Pieces for [lo, hi] when D is monotone there (checked here unless known)."""
        if not known_monotone:
            self.evaluations += 1
            dd = self.diff.sign_derivative(_ball(lo, hi), self.phi)
            if not (dd > 0 or dd < 0):
                return None
        sl, sh = self._sign_at(lo), self._sign_at(hi)
        if sl == 0 or sh == 0:
            if hi - lo <= self.root_width:
                return [_Piece(lo, hi, 0)]
            return None
        if sl == sh:
            return [_Piece(lo, hi, sl)]
        # exactly one simple root in (lo, hi): certified bisection down to root_width
        out_left: list[_Piece] = []
        out_right: list[_Piece] = []
        a, b = lo, hi
        while b - a > self.root_width:
            m = 0.5 * (a + b)
            if not a < m < b:
                break
            sm = self._sign_at(m)
            if sm == 0:
                break
            if sm == sl:
                out_left.append(_Piece(a, m, sl))
                a = m
            else:
                out_right.append(_Piece(m, b, sh))
                b = m
        return out_left + [_Piece(a, b, 0)] + out_right[::-1]

    # -- runs --
    def runs(self) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
        """(maximal positive runs, uncertain pieces)."""
        pos: list[tuple[float, float]] = []
        unc: list[tuple[float, float]] = []
        for p in self.pieces:
            if p.sign > 0:
                if pos and pos[-1][1] == p.lo:
                    pos[-1] = (pos[-1][0], p.hi)
                else:
                    pos.append((p.lo, p.hi))
            elif p.sign == 0:
                unc.append((p.lo, p.hi))
        return pos, unc


# ----------------------------------------------------------------------------------------
# public API


@dataclass
class ShiftResult:
    """Certified bounds on H(phi) (and, for a ball of shifts, on H' over the ball)."""

    lower: arb
    upper: arb
    derivative: arb | None
    roots: int
    uncertain: int
    evaluations: int
    #: float pieces covering every x with D(x, phi) > 0 inside ``window`` (runs and uncertain pieces)
    positive_cover: tuple[tuple[float, float], ...] | None = None
    window: tuple[float, float] | None = None


@dataclass
class _RootTerm:
    """A clean root's boundary term ``f(s(t))``, ``s = r + t``, on a ball of shifts: ``derivative``
    encloses ``d/dt f(s(t))`` over the whole ball; with a grid, ``per_sub`` over each sub-ball and
    ``values`` encloses ``f(s(t_i))`` at each grid point (else None)."""

    derivative: arb
    per_sub: list[arb] | None = None
    values: list[arb] | None = None


@dataclass
class ShiftExpansion:
    """Model of ``H`` on a ball of shifts ``phi`` around a centre ``m`` (see
    :meth:`_Engine.shift_expansion`): ``H = H_R + sum_Q H_Q`` where, for every ``t`` in the ball,
    ``H_R'(t) = a(t) + b(t) (t - m)`` with ``a(t)`` in ``const`` plus the chosen pieces' ``dh`` and
    ``b(t)`` in ``slope``, and each uncertain piece ``Q`` contributes either through ``H_R'``
    (its ``dh``) or as ``0 <= H_Q(t) <= excess``."""

    const: arb
    slope: arb
    #: per uncertain piece: (dh enclosure over the ball, () -> upper bound of int_Q D_+ over the ball)
    crude: list[tuple[arb, Callable[[], arb]]]
    #: optional grid model (see :meth:`piecewise_sup`): shifts t_0..t_n, A_j at t_j, B_j on [t_j, t_{j+1}]
    grid: list[arb] = field(default_factory=list)
    grid_values: list[arb] = field(default_factory=list)
    grid_slopes: list[arb] = field(default_factory=list)

    def derivative(self, offsets: arb) -> arb:
        """Enclosure of ``H'(t)`` on the ball, ``offsets`` enclosing every ``t - m``."""
        return self.const + sum((dh for dh, _ in self.crude), arb(0)) + self.slope * offsets

    def rise(self, h: arb, enough: arb | None = None) -> arb:
        """Upper bound of ``H(t) - H(m)`` for ``|t - m| <= h``.

        ``H(t) - H(m) <= H_R(t) - H_R(m) + sum_direct H_Q(t)`` (``H_Q(m) >= 0``), and
        ``H_R(m + u) - H_R(m) = int_0^u H_R' <= A u + B u^2 / 2`` for ``u >= 0`` (``-A u + B u^2/2``
        for ``u < 0``, with ``A`` replaced by its lower end) by the mean value model. The pieces'
        ``int D_+`` bounds (bisections) are computed only when the bound with every piece taken
        through ``H'`` is not already ``<= enough``; then each piece takes the smaller route."""
        const = self.const + sum((dh for dh, _ in self.crude), arb(0))
        beta = self.slope.upper()
        up = _two_sided_rise(const, beta, h)
        if not self.crude or (enough is not None and up <= enough):
            return up
        const = self.const
        direct = arb(0)
        # the pieces share one bisection budget: the largest first
        for dh, excess_of in sorted(self.crude, key=lambda item: -float(item[0].abs_upper())):
            through_derivative = dh.abs_upper() * h
            excess = excess_of()
            if through_derivative <= excess:
                const += dh
            else:
                direct += excess
        up2 = _two_sided_rise(const, beta, h)
        return (up2 + direct).upper().min(up)

    def piecewise_sup(self, known: dict[int, arb], enough: arb | None = None) -> arb | None:
        """Upper bound of ``sup H`` over the ball from the grid model, given upper bounds ``known[i]``
        of ``H(t_i)`` at some grid points (None without a grid).

        On ``T_j = [t_j, t_{j+1}]`` every term of ``H_R'`` is its value at ``t_j`` (or ``t_{j+1}``) plus
        its derivative on ``T_j`` times the offset (mean value theorem), so ``H_R'(t_j + u) in A_j + B_j u``
        and ``H_R'(t_{j+1} - d) in A_{j+1} - B_j d``. Integrating, with ``U_j >= H_R(t_j)``:
        ``H_R(t_j + u) <= U_j + A_j^+ u + B_j^+ u^2 / 2`` and
        ``H_R(t_{j+1} - d) <= U_{j+1} - A_{j+1}^- d + B_j^+ d^2 / 2``. ``U`` starts from the known
        points (``H_R <= H`` there, ``H_Q >= 0``) and is propagated both ways; each half of ``T_j``
        is bounded from its nearer end. Uncertain pieces enter ``A_j`` through their ``dh`` or are
        split off with their ``int D_+`` bound, as in :meth:`rise`. The quadratic error is that of
        the sub-balls, whose slope enclosures are much tighter than the whole ball's."""
        n = len(self.grid_slopes)
        if n == 0 or not known:
            return None
        widths = [b - a for a, b in zip(self.grid, self.grid[1:])]
        reach = 2 * max(float(w.upper()) for w in widths)  # a grid point is <= 2 sub-balls from a known one

        def evaluate(pieces_dh: arb, direct: arb) -> arb:
            a = [v + pieces_dh for v in self.grid_values]
            bh = [b.upper() for b in self.grid_slopes]
            up: list[arb | None] = [known.get(i) for i in range(n + 1)]
            for order in (range(n), range(n - 1, -1, -1), range(n)):
                for j in order:
                    w = widths[j]
                    if up[j] is not None:  # forward
                        cand = (up[j] + a[j].upper() * w + bh[j] * w * w / 2).upper()
                        up[j + 1] = cand if up[j + 1] is None else up[j + 1].min(cand)
                    if up[j + 1] is not None:  # backward
                        cand = (up[j + 1] - a[j + 1].lower() * w + bh[j] * w * w / 2).upper()
                        up[j] = cand if up[j] is None else up[j].min(cand)
            top = None
            for j in range(n):
                half = widths[j] / 2
                left = up[j] + _quadratic_rise(a[j].upper(), bh[j], half)
                right = up[j + 1] + _quadratic_rise((-a[j + 1]).upper(), bh[j], half)
                v = left.max(right)
                top = v if top is None else top.max(v)
            return (top + direct).upper()

        all_dh = sum((dh for dh, _ in self.crude), arb(0))
        best = evaluate(all_dh, arb(0))
        if not self.crude or (enough is not None and best <= enough):
            return best
        dh_sum, direct = arb(0), arb(0)
        for dh, excess_of in self.crude:
            excess = excess_of()
            if dh.abs_upper() * reach <= excess:
                dh_sum += dh
            else:
                direct += excess
        return best.min(evaluate(dh_sum, direct))

    def monotone_on_grid(self) -> int:
        """+1 / -1 if the grid model proves ``H' > 0`` / ``< 0`` on the whole ball, else 0."""
        if not self.grid_slopes:
            return 0
        dh = sum((d for d, _ in self.crude), arb(0))
        signs = set()
        for j, (a, b) in enumerate(zip(self.grid, self.grid[1:])):
            v = self.grid_values[j] + dh + self.grid_slopes[j] * arb(0).union(b - a)
            signs.add(1 if v > 0 else (-1 if v < 0 else 0))
        return signs.pop() if len(signs) == 1 else 0

    def chord_rise(self, half: arb, enough: arb | None = None) -> arb:
        """Upper bound of ``H(t) - max(H(m - L), H(m), H(m + L))`` for ``|t - m| <= L``, ``L`` the
        exact half-width ``half`` of the ball (the caller has the three point values).

        On ``[m, m + L]``, with ``d1 = t - m``, ``d2 = m + L - t`` and ``H_R' = A + c(u) + b(u) (u - m)``
        (``A`` fixed, ``c(u)`` in an enclosure of width ``w``, ``b(u)`` in ``slope = [s_lo, s_hi]``),
        integrating from ``m`` up to ``t`` and from ``t`` up to ``m + L`` and weighting the two bounds
        by ``d2`` and ``d1`` cancels ``A``:
        ``H_R(t) <= chord(t) + (d1 d2 / L) (w + (d1 s_hi - (L + d1) s_lo) / 2)``, at most
        ``chord + (L / 4) (w + L max(0, s_hi - 2 s_lo) / 2)``; ``[m - L, m]`` is the mirror image
        (same ``w`` and slope). ``H_R`` at the three points is at most ``H`` there (``H_Q >= 0``),
        and the pieces split off directly add their ``int D_+`` bounds. Unlike :meth:`rise` this
        has no first-order term, so it wins where ``H`` has a slope across the ball."""
        kappa = (self.slope.upper() - 2 * self.slope.lower()).max(arb(0))
        quarter = half / 4

        def bound(width: arb, direct: arb) -> arb:
            return (quarter * (width + half * kappa / 2) + direct).upper()

        width = 2 * self.const.rad()
        widths = [2 * dh.rad() for dh, _ in self.crude]
        up = bound(width + sum(widths, arb(0)), arb(0))
        if not self.crude or (enough is not None and up <= enough):
            return up
        direct = arb(0)
        order = sorted(range(len(self.crude)), key=lambda i: -float(widths[i]))
        for i in order:
            excess = self.crude[i][1]()
            if quarter * widths[i] <= excess:
                width += widths[i]
            else:
                direct += excess
        return bound(width, direct).min(up)


class _Engine:
    def __init__(self, mix: GaussianMixture, epsilon: arb, delta_scale: float, rel_tol: float):
        self.mix = mix
        self.eps = epsilon
        self.diff = _Difference(mix, epsilon.exp(), float(epsilon), epsilon)
        s = mix._f_sig
        scale = max(delta_scale, 1e-300)
        tail_tol = max(scale * rel_tol * 1e-3, 1e-4000)
        self.tail_tol = tail_tol
        # Phi(-T) <= tail_tol with T = sqrt(2 log(1/tail_tol)) + 1 (Mills: Phi(-T) <= phi(T)/T)
        big_t = math.sqrt(2 * math.log(1 / min(tail_tol, 1e-3))) + 1.0 if tail_tol > 0 else 40.0
        lo_m, hi_m = mix.mean_range
        self.big_t = big_t
        self.xr = hi_m + big_t * s
        self.xl_base = lo_m - big_t * s  # XL = xl_base - phi_max
        self.root_width = s * 1e-9
        self.excess_tol = 1e-6 * scale
        self.ball_depth = 8
        self.evaluations = 0

    def window(self, phi_hi: float) -> tuple[float, float]:
        return self.xl_base - phi_hi, self.xr

    def structure(self, phi: arb, allowance: float = 0.0) -> _Structure:
        plo, phi_ = float(phi.lower()), float(phi.upper())
        # float root samples slightly inside the ball: at an end such as phi = Delta exactly, tied
        # components cancel in float64 and the sampled roots are noise (the padding covers the gap)
        inset = (phi_ - plo) / 256
        floats = [0.5 * (plo + phi_)] if phi_ - plo < 1e-15 * (abs(phi_) + 1) else \
            [plo + inset, 0.5 * (plo + phi_), phi_ - inset]
        xl, xr = self.window(phi_)
        # ball shifts move roots: allow wider root pieces
        if len(floats) == 1:
            st = _Structure(self.diff, phi, floats, xl, xr, self.root_width, negligible=self.tail_tol)
        else:
            rw = max(self.root_width, (phi_ - plo) * 0.02)
            st = _Structure(self.diff, phi, floats, xl, xr, rw, max_depth=self.ball_depth, min_piece=rw,
                            negligible=self.tail_tol,
                            negligible_density=NEGLIGIBLE_SHARE * allowance / (xr - xl))
        self.evaluations += st.evaluations
        return st

    def value_at(self, phi: arb) -> ShiftResult:
        """Certified bounds on ``H(phi)`` at one shift (module docstring, "Fixed shift"; at a tied
        shift :meth:`tied_value` when it applies)."""
        tied = self.tied_value(phi)
        if tied is not None:
            return tied
        st = self.structure(phi)
        pos, unc = st.runs()
        mix = self.mix
        core = arb(0)
        for a, b in pos:
            aa, bb = arb(a), arb(b)
            core += mix.mass(aa + phi, bb + phi) - self.diff.exp_eps * mix.mass(aa, bb)
        extra = arb(0)
        for a, b in unc:
            d = self.diff.value(_ball(a, b), phi)
            up = d.upper()
            if up > 0:
                extra += arb(b - a) * up
        xl, xr = st.xl, st.xr
        extra += mix.mass_below(arb(xl) + phi) + mix.mass_above(arb(xr) + phi)
        lower = core.lower()
        if lower < 0:
            lower = arb(0)
        upper = (core + extra).upper().min(arb(1))  # H <= int f(x + phi) dx = 1 always
        return ShiftResult(lower, upper, None, len(unc), len(unc), st.evaluations,
                           tuple(sorted(pos + unc)), (xl, xr))

    def _tied_terms(self, phi: arb) -> list[tuple[arb, arb]] | None:
        """``D(x, phi) = sum_m c_m g(x - mu_m)`` with matched components merged: ``(c_m, mu_m)`` at a
        shift that moves components exactly onto others (multi-Gaussian at ``phi = Delta``), or None
        (no exact match, or a truncated mixture). ``g`` is the common ``N(0, s^2)`` density.

        A shifted component ``j`` matched to an unshifted ``k`` of certified equal mean
        ``m_j - phi = m_k`` (each ``k`` used once; floats only propose the matches) gives the term
        ``(w_j - e^eps w_k, m_k)``, dropped when that coefficient is exactly 0 (a declared tie,
        :meth:`_Difference._tie_coefficient`); an unmatched shifted component gives ``(w_j, m_j - phi)``
        and an unmatched unshifted one ``(-e^eps w_k, m_k)``. The merge is exact, so the terms hold
        none of the cancellation that makes ``D`` unsignable on long ranges at a tied shift."""
        mix, diff = self.mix, self.diff
        if mix.breakpoints:
            return None
        pm, s = float(phi.mid()), mix._f_sig
        free = {round(float(m) / s * 64): k for k, m in enumerate(mix._f_mu)}  # float proposals only
        terms: list[tuple[arb, arb]] = []
        matched: set[int] = set()
        for j, cj in enumerate(mix.components):
            k = free.get(round((mix._f_mu[j] - pm) / s * 64))
            ck = mix.components[k] if k is not None else None
            gap = None if ck is None else cj.mean - phi - ck.mean
            if gap is None or not (gap.is_exact() and gap == 0):
                terms.append((cj.weight, cj.mean - phi))
                continue
            del free[round(float(mix._f_mu[k]) / s * 64)]
            matched.add(k)
            coefficient = diff._tie_coefficient(cj, ck)
            if not (coefficient.is_exact() and coefficient == 0):
                terms.append((coefficient, ck.mean))
        if not matched:
            return None
        terms += [(-diff.exp_eps * c.weight, c.mean) for k, c in enumerate(mix.components) if k not in matched]
        return terms

    def tie_upper_bound(self, phi: arb) -> arb | None:
        """Upper bound of ``H(phi)`` from the weights alone at a tied shift (:meth:`_tied_terms`), or
        None: ``(sum a_i)_+ <= sum (a_i)_+``, so ``H <= sum`` of the coefficients not certified
        ``<= 0`` (each term integrates to its coefficient). Nearly sharp where ``H(phi)`` is carried
        by the unmatched end components (MG at the tied shift: ``H(Delta) <= w_{-K}``)."""
        terms = self._tied_terms(phi)
        if terms is None:
            return None
        return sum((c.max(arb(0)) for c, _ in terms if not c <= 0), arb(0)).upper()

    def tied_value(self, phi: arb) -> ShiftResult | None:
        """Certified ``H(phi)`` at a tied shift from the merged terms of :meth:`_tied_terms`, or None
        (not a tied shift, or more than one sign change).

        *Rule of signs.* ``D(x) e^{x^2 / 2 s^2} sqrt(2 pi) s = sum_m c_m e^{-mu_m^2 / 2 s^2}
        e^{x mu_m / s^2}`` is an exponential sum with distinct exponents, so ``D`` has at most as
        many real zeros as the ``c_m``, ordered by ``mu_m``, have sign changes (Laguerre's
        extension of Descartes' rule; Polya and Szego, Problems and Theorems II, Part V, Chap. 1).
        With one change ``D`` has exactly one root ``r`` and one sign on each side (at ``-inf``
        that of the leftmost term); MG at ``phi = Delta`` has signs ``+, -, ..., -``. Then
        ``H = F(r)`` with ``F(y) = int_{-inf}^y D`` (or the mass above ``r`` when the positive side
        is the right one), and on a box ``[a, b]`` holding ``r`` with certified signs of ``D`` at
        its ends, ``F`` is largest at ``r``:
        ``max(F(a), F(b)) <= H <= max(F(a), F(b)) + (b - a) sup_[a, b] |D|``. With no sign change
        ``D <= 0`` and ``H = 0``."""
        terms = self._tied_terms(phi)
        if terms is None:
            return None
        signs = []
        for c, _ in terms:
            if not (c > 0 or c < 0):
                return None
            signs.append(1 if c > 0 else -1)
        order = sorted(range(len(terms)), key=lambda i: float(terms[i][1].mid()))
        if any(not terms[i][1] < terms[j][1] for i, j in zip(order, order[1:])):
            return None
        terms = [terms[i] for i in order]
        signs = [signs[i] for i in order]
        changes = sum(1 for u, v in zip(signs, signs[1:]) if u != v)
        mix = self.mix
        xl, xr = self.window(float(phi.upper()))
        if changes == 0 and signs[0] < 0:
            return ShiftResult(arb(0), arb(0), None, 0, 0, 0, (), (xl, xr))
        if changes != 1:
            return None
        sigma, h2 = mix.sigma, mix._half_inv_s2
        left_positive = signs[0] > 0
        f_c = np.array([float(c.mid()) for c, _ in terms])
        f_mu = np.array([float(m.mid()) for _, m in terms])
        s = mix._f_sig
        pos = f_c > 0

        def excess(x: float) -> float:  # log of the positive terms minus log of the negative ones (floats)
            e = np.log(np.abs(f_c)) - (x - f_mu) ** 2 / (2 * s * s)
            return float(np.logaddexp.reduce(e[pos]) - np.logaddexp.reduce(e[~pos]))

        lo, hi = float(f_mu.min()) - 40 * s, float(f_mu.max()) + 40 * s
        if not (excess(lo) > 0) == left_positive or not (excess(hi) > 0) != left_positive:
            return None
        for _ in range(200):  # float bisection: the root is unique
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            if (excess(mid) > 0) == left_positive:
                lo = mid
            else:
                hi = mid

        def d_at(x: arb) -> arb:
            return sum((c * (-_sqr(x - m) * h2).exp() for c, m in terms), arb(0))

        half = 4 * (abs(lo) + abs(hi) + s) * 2.0 ** -52
        for _ in range(12):
            a, b = lo - half, hi + half
            da, db = d_at(arb(a)), d_at(arb(b))
            if (da > 0 and db < 0) if left_positive else (da < 0 and db > 0):
                break
            half *= 16
        else:
            return None

        def side_mass(y: arb) -> arb:
            if left_positive:
                return sum((c * _ncdf((y - m) / sigma) for c, m in terms), arb(0))
            return sum((c * _nsf((y - m) / sigma) for c, m in terms), arb(0))

        fa, fb = side_mass(arb(a)), side_mass(arb(b))
        box = _ball(a, b)
        rise = arb(b - a) * d_at(box).abs_upper() * mix._norm
        lower = fa.max(fb).lower().max(arb(0))
        upper = (fa.max(fb) + rise).upper().min(arb(1))
        cover = ((xl, b),) if left_positive else ((a, xr),)
        return ShiftResult(lower, upper, None, 1, 0, 0, cover, (xl, xr))

    def _mode_sets(self, phi_a: arb, phi_b: arb, small: float = 0.0) -> list[tuple[float, float, arb, arb]] | None:
        """The ``x`` where ``x + [phi_a, phi_b]`` may hold a local maximum of ``f`` and ``D`` may be
        positive: boxes ``(x0, x1, top, curvature)`` with ``top >= sup_t D(x, t)`` and ``curvature >=
        sup_{x + T} (-f'')_+`` for every ``x`` in ``[x0, x1]`` (None for a truncated mixture).

        For a box ``U_i`` of :attr:`GaussianMixture.mode_boxes` the set is ``X_i = U_i - T``, and
        ``x + T`` lies in ``U_i + [-w, w]`` (one curvature bound per mode). Where the max ``M(x)`` of
        ``f`` over ``x + T`` exceeds both end values it sits at a local maximum, in some ``U_j``
        inside ``x + T``, so there ``sup_t D(x, t) <= sup f(U_j) - e^eps f(x)`` (tight: ``U_j`` is
        narrow). A part of ``X_i`` is dropped where ``top = sup f(U_i) - e^eps inf f < 0`` on it; a
        set whose curvature term ``|X_i| (w^2 / 8) curvature`` exceeds ``small`` is bisected (down
        to ``|X_i| / MODE_SPLIT``) to drop what it can."""
        mix = self.mix
        boxes = mix.mode_boxes
        if boxes is None:
            return None
        a_lo, b_hi = _float_down(phi_a.lower()), _float_up(phi_b.upper())
        w = b_hi - a_lo
        out = []
        for u0, u1 in boxes:
            x0, x1 = u0 - b_hi, u1 - a_lo
            peak = mix.density(_ball(u0, u1)).upper()
            top = peak - self.diff.exp_eps * mix.density(_ball(x0, x1))
            if top < 0:
                continue
            curvature = (-mix.density_second_derivative(_ball(u0 - w, u1 + w))).upper().max(arb(0))
            if float(curvature) * w * w / 8 * (x1 - x0) <= small:
                out.append((x0, x1, top.upper(), curvature))
                continue
            h = 0.5 * (x0 + x1)
            parts = [(x0, h), (h, x1)]  # the whole set's top is known: go on with its halves
            while parts:
                c0, c1 = parts.pop()
                top = peak - self.diff.exp_eps * mix.density(_ball(c0, c1))
                if top < 0:
                    continue
                if c1 - c0 > (x1 - x0) / MODE_SPLIT:
                    c = 0.5 * (c0 + c1)
                    parts += [(c0, c), (c, c1)]
                else:
                    out.append((c0, c1, top.upper(), curvature))
        return out

    def envelope_bound(self, phi_a: arb, phi_b: arb, upper_a: arb, upper_b: arb,
                       goal: arb | None = None) -> arb | None:
        """Upper bound of ``H(t)`` for every ``t`` in ``[phi_a, phi_b]`` from upper bounds of the two
        end values, or None (truncated mixtures). ``goal`` (what the caller needs the bound below)
        only sets how much work goes into the mode sets (:meth:`_mode_sets`).

        For each ``x``, ``sup_t D(x, t) = M(x) - e^eps f(x)`` with ``M(x) = sup f`` over ``x + T``,
        ``T = [phi_a, phi_b]`` of width ``w``. Where ``f`` has no local maximum inside ``x + T``,
        ``M(x) = max(f(x + phi_a), f(x + phi_b))``, so ``sup_t D(x, t)_+ <= D(x, phi_a)_+ + D(x, phi_b)_+``.
        Otherwise, with ``f'`` = 0 at the interior maximum, each end lies within ``w / 2`` of it on
        one side: ``M(x) - max(ends) <= (w^2 / 8) sup_{x + T} (-f'')_+``; such ``x`` lie in
        ``X_i = U_i - T`` for a box ``U_i`` of :attr:`GaussianMixture.mode_boxes`, of length
        ``|U_i| + w``, with ``x + T`` inside ``U_i + [-w, w]``; there the excess is also at most
        ``sup_t D(x, t)_+`` itself, and nothing where ``D < 0`` is certified (:meth:`_mode_sets`).
        Integrating: ``H(t) <= H(phi_a) + H(phi_b) + sum_i |X_i| min((w^2 / 8) sup (-f'')_+,
        sup D_+)``, third order in ``w``. No shift model is needed: this settles wide intervals whose end values are both
        well below the goal (and the tied region next to ``phi = Delta``, where the model's
        uncertain pieces are wide)."""
        total = upper_a + upper_b
        slack = float((goal - total).lower()) if goal is not None else 0.0
        sets = self._mode_sets(phi_a, phi_b, slack / (4 * len(self.mix.mode_boxes or [1])))
        if sets is None:
            return None
        w = _float_up((phi_b - phi_a).upper())
        w2 = arb(w) * arb(w) / 8
        for x0, x1, top, curvature in sets:
            # sup_t D_+ exceeds the ends' sum by at most M - max(ends), and by at most sup_t D_+ itself
            total += arb(x1 - x0) * (w2 * curvature).min(top)
        return total.upper()

    def chord_bound(self, phi_a: arb, phi_b: arb, end_a: ShiftResult, end_b: ShiftResult,
                    goal: arb | None = None) -> arb | None:
        """Upper bound of ``H(t)`` for every ``t`` in ``[phi_a, phi_b]`` from the certified point
        results at its ends (with their positive covers), or None (truncated mixtures, or an end
        without a cover).

        For fixed ``x``, ``g(t) = f(x + t)`` equals its chord on ``T`` minus ``(t - phi_a)(phi_b - t)
        g''(xi) / 2``, so ``D(x, t) <= lam D(x, phi_a) + (1 - lam) D(x, phi_b) + E(x)`` with ``E(x) =
        (w^2 / 8) sup_{x + T} (-f'')_+`` (only where ``f`` is concave), and ``D(x, t)_+ <= lam D(x, phi_a)_+ + (1 - lam) D(x, phi_b)_+
        + E(x) 1[x in X+]``, ``X+`` the set of ``x`` with ``D(x, t) > 0`` for some ``t``.
        Integrating: ``H(t) <= max(H(phi_a), H(phi_b)) + int_{X+} E``. Where ``f`` has no local
        maximum inside ``x + T``, ``sup_t D(x, t)`` is at an end, so ``X+`` lies in the two ends'
        positive covers (certified runs and uncertain pieces, or outside their windows); elsewhere
        ``x`` lies in some ``U_i - T`` (:attr:`GaussianMixture.mode_boxes`), counted unless
        ``D < 0`` is certified there (:meth:`_mode_sets`). ``E`` is enclosed by Arb on each
        covering piece (cut to ``sigma / 4``). Beyond both windows ``x + T`` lies more than ``sigma``
        outside the means' range, where every term of ``f''`` is positive: ``E = 0``. Second order in ``w`` with no first-order term:
        it settles narrow intervals on the flanks of a sharp peak, where the positive set is small."""
        mix = self.mix
        if end_a.positive_cover is None or end_b.positive_cover is None:
            return None
        slack = float((goal - end_a.upper.max(end_b.upper)).lower()) if goal is not None else 0.0
        sets = self._mode_sets(phi_a, phi_b, slack / (4 * len(mix.mode_boxes or [1])))
        if sets is None:
            return None
        w = _float_up((phi_b - phi_a).upper())
        (xl_a, xr_a), (xl_b, xr_b) = end_a.window, end_b.window
        xl, xr = min(xl_a, xl_b), max(xr_a, xr_b)
        pieces = list(end_a.positive_cover) + list(end_b.positive_cover)
        # between the two windows' left edges one end's positive set is unknown (its left tail)
        pieces.append((xl, max(xl_a, xl_b)))
        pieces.append((min(xr_a, xr_b), xr))
        pieces += [(x0, x1) for x0, x1, _, _ in sets]
        merged: list[list[float]] = []
        for lo, hi in sorted(pieces):
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            elif lo < hi:
                merged.append([lo, hi])
        chunk = mix._f_sig / 4
        total = arb(0)
        for lo, hi in merged:
            n = min(64, int((hi - lo) / chunk) + 1)
            for i in range(n):
                c0, c1 = lo + (hi - lo) * i / n, lo + (hi - lo) * (i + 1) / n if i + 1 < n else hi
                up = (-mix.density_second_derivative(_ball(c0, c1) + phi_a.union(phi_b))).upper()
                if up > 0:
                    total += arb(c1 - c0) * up
        top = end_a.upper.max(end_b.upper)
        return (top + arb(w) * arb(w) / 8 * total).upper()

    def derivative_on(self, phi: arb) -> arb:
        """Enclosure of H'(t) for every t in the ball phi (see module docstring)."""
        mid = arb(phi.mid())
        ex = self.shift_expansion(phi, mid)
        return ex.derivative(phi - mid)

    def shift_expansion(self, phi: arb, mid: arb, allowance: float = 0.0,
                        grid: Sequence[arb] | None = None) -> "ShiftExpansion":
        """Second-order model of ``H`` on the ball of shifts ``phi`` around ``m`` in ``mid``.

        ``H'(t) = int_{D > 0} f'(x + t) dx`` (module docstring) is a sum of boundary terms:
        ``f(c + t)`` at the fixed ends ``c`` of certified-positive pieces (interior ends cancel
        exactly, with integer coefficients), ``+-f(r(t) + t)`` at each *clean* root, and the
        integrals over the other uncertain pieces. A clean root piece ``Q`` (:meth:`_clean_root`)
        has certified opposite signs on its two neighbours and ``D`` strictly monotone in ``x`` on
        ``Q x phi``, so for every shift it holds exactly one simple root ``r(t)``, C^1 by the
        implicit function theorem, with ``d/dt f(r(t) + t) = f'(r + t) (1 + r')``. Every
        boundary term is expanded by the mean value theorem around ``m``: its value at ``m`` (a
        root enclosed there by an interval Newton step) goes to ``const``, its derivative enclosed
        over the ball goes to ``slope``. Unlike a ball evaluation of ``f(b + t) - f(a + t)``, this
        keeps the near-cancellation between the two ends of a narrow run: the model's error is
        second order in the width of the ball.

        Each other uncertain piece ``Q`` (a root pair born or dying in the ball, a region where
        ``D`` is too small to sign) is returned with two alternative certificates: an enclosure of
        its contribution to ``H'`` over the ball, and an upper bound of ``int_Q D(x, t)_+ dx`` over
        the ball. :meth:`ShiftExpansion.rise` uses the cheaper one per piece.

        With a ``grid`` (exact shifts ``t_0 < ... < t_n`` spanning the ball, ``m`` among them) the
        same terms are also collected per sub-ball ``T_j = [t_j, t_{j+1}]``: ``A_j`` encloses the
        boundary terms at ``t_j`` (roots from their brackets there) and ``B_j`` their derivatives on
        ``T_j`` (:meth:`ShiftExpansion.piecewise_sup`). ``allowance`` (the
        rise the caller can afford) only stops refinement early: of the structure, where ``sup D``
        is below ``NEGLIGIBLE_SHARE * allowance`` per unit length, and of the ``int D_+`` bounds.
        """
        st = self.structure(phi, allowance)
        mix = self.mix
        pieces: list[_Piece] = []
        for p in st.pieces:  # adjacent uncertain pieces are one piece here (a root may sit on the seam)
            if p.sign == 0 and pieces and pieces[-1].sign == 0 and pieces[-1].hi == p.lo:
                pieces[-1] = _Piece(pieces[-1].lo, p.hi, 0)
            else:
                pieces.append(p)
        const = arb(0)
        slope = arb(0)
        crude: list[tuple[arb, Callable[[], arb]]] = []
        coefficient: dict[float, int] = {}
        chunk = mix._f_sig / 8
        budget = [EXCESS_BUDGET]
        # a root term's slope narrower than this costs the rise (B h^2 / 2) under 1/200 of the
        # allowance: its sub-ball refinement is skipped (sup mode: allowance 0, always refined)
        half_width = float(phi.rad())
        slope_tol = 0.01 * allowance / (half_width * half_width) if half_width > 0 else 0.0

        def add(c: float, k: int) -> None:
            coefficient[c] = coefficient.get(c, 0) + k

        subs = [a.union(b) for a, b in zip(grid, grid[1:])] if grid is not None else []
        grid_values = [arb(0) for _ in range(len(subs) + 1)] if grid is not None else []
        grid_slopes = [arb(0) for _ in subs]

        for i, p in enumerate(pieces):
            if p.sign > 0:
                add(p.hi, 1)
                add(p.lo, -1)
                continue
            if p.sign < 0:
                continue
            left = pieces[i - 1].sign if i > 0 and pieces[i - 1].hi == p.lo else 0
            right = pieces[i + 1].sign if i + 1 < len(pieces) and pieces[i + 1].lo == p.hi else 0
            root = self._clean_root(p.lo, p.hi, phi, mid, slope_tol, grid) if left * right == -1 else None
            if root is not None:
                value, term = root
                sign = 1 if left > 0 else -1
                if left > 0:  # int_{lo}^{r} f'(x + t) dx = f(r + t) - f(lo + t)
                    add(p.lo, -1)
                else:  # int_{r}^{hi} f'(x + t) dx = f(hi + t) - f(r + t)
                    add(p.hi, 1)
                const += sign * value
                slope += sign * term.derivative
                if grid is not None:
                    for j, t in enumerate(grid):
                        grid_values[j] += sign * (term.values[j] if term.values is not None
                                                  else value + term.derivative * (t - mid))
                    for j in range(len(subs)):
                        grid_slopes[j] += sign * (term.per_sub[j] if term.per_sub is not None else term.derivative)
                continue
            n = max(1, min(64, int((p.hi - p.lo) / chunk) + 1))
            edges = [p.lo + (p.hi - p.lo) * j / n for j in range(n)] + [p.hi]
            # (a) int over Q cap {D > 0} of f'(x + t), for every t in the ball
            dh = arb(0)
            for a, b in zip(edges, edges[1:]):
                fp = mix.density_derivative(_ball(a, b) + phi)
                if fp > 0 or fp < 0:
                    # f monotone on Q + t: the integral lies between 0 and f(b + t) - f(a + t)
                    dh += arb(0).union(mix.density(arb(b) + phi) - mix.density(arb(a) + phi))
                else:
                    dh += arb(b - a) * arb(0).union(fp)
            # (b) int_Q D(x, t)_+ dx, bounded uniformly over the ball: computed only if asked for
            crude.append((dh, functools.cache(functools.partial(self._positive_part_integral, edges, phi, budget,
                                                                0.05 * allowance))))
        for c, k in coefficient.items():
            if k:
                # f is continuous and piecewise smooth: f(c + t) in f(c + m) + f'(c + phi) (t - m)
                const += k * mix.density(arb(c) + mid)
                slope += k * mix.density_derivative(arb(c) + phi)
                for j, t in enumerate(grid or ()):
                    grid_values[j] += k * mix.density(arb(c) + t)
                for j, sub in enumerate(subs):
                    grid_slopes[j] += k * mix.density_derivative(arb(c) + sub)
        tails = mix.tail_derivative_mass(arb(st.xr) + phi, True) + mix.tail_derivative_mass(arb(st.xl) + phi, False)
        const += tails * arb(0, 1)  # [-tails, tails]
        grid_values = [v + tails * arb(0, 1) for v in grid_values]
        return ShiftExpansion(const, slope, crude, list(grid) if grid is not None else [], grid_values, grid_slopes)

    def _positive_part_bound(self, lo: float, hi: float, phi: arb, mid: arb) -> arb:
        """``|piece| * max(0, sup D)`` over ``[lo, hi] x phi`` (0 when ``D < 0`` is certified).

        Where the log-ratio partial ``l_t`` has a certified sign on the box (``D`` is then monotone
        in the shift for each ``x``), ``sup D`` is the enclosure at the end shift; this keeps balls
        next to the tied shift ``phi = Delta`` cheap (there ``l ~ eps`` on long ranges, increasing
        in ``t``, and ``D(., Delta)`` is only the tie residual). Otherwise it is the smaller of the
        ball enclosure and the mean value form in the shift around ``mid``."""
        diff, mix = self.diff, self.mix
        xb = _ball(lo, hi)
        partials = diff.logratio_partials(lo, hi, phi)
        if partials is not None:
            # D > 0 iff l > eps: where l is monotone in the shift on the box, sup D is at an end
            # shift (for each x), so that one enclosure is all that is needed
            (_, _), (lp_lo, lp_hi), _ = partials
            if lp_lo > 0 or lp_hi < 0:
                top = diff.interval_bounds(xb, phi.upper() if lp_lo > 0 else phi.lower())[1]
                if top < 0:
                    return arb(0)
                return (arb(hi - lo) * top * mix._norm).upper()
        top = diff.interval_bounds(xb, phi)[1]
        if top < 0:
            return arb(0)
        # mean value form in the shift: D(x, t) <= D(x, m) + sup |f'(x + phi)| |t - m|
        near = diff.interval_bounds(xb, mid)[1] + \
            mix.density_derivative(xb + phi).abs_upper() / mix._norm * (phi - mid).abs_upper()
        top = top.min(near)
        if top < 0 or diff.logratio_sign(lo, hi, phi) < 0:
            return arb(0)
        return (arb(hi - lo) * top.max(arb(0)) * mix._norm).upper()

    def _positive_part_integral(self, edges: Sequence[float], phi: arb, budget: list[int], enough: float) -> arb:
        """Upper bound of ``int D(x, t)_+ dx`` over ``[edges[0], edges[-1]]``, valid for every ``t``
        in the ball ``phi``: the sum of :meth:`_positive_part_bound` over pieces, refining the piece
        with the largest bound by bisection while ``budget[0]`` lasts and the sum exceeds ``enough``."""
        mid = arb(phi.mid())
        heap = []
        for a, b in zip(edges, edges[1:]):
            v = self._positive_part_bound(a, b, phi, mid)
            if v > 0:
                heap.append((-float(v), a, b, v))
        heapq.heapify(heap)
        while heap and budget[0] > 0:
            if -heap[0][0] <= self.excess_tol or -sum(item[0] for item in heap) <= enough:
                break
            budget[0] -= 1
            _, a, b, v = heap[0]
            m = 0.5 * (a + b)
            if not a < m < b or b - a <= self.root_width:
                break
            left, right = self._positive_part_bound(a, m, phi, mid), self._positive_part_bound(m, b, phi, mid)
            heapq.heappop(heap)
            for c0, c1, val in ((a, m, left), (m, b, right)):
                if val > 0:
                    heapq.heappush(heap, (-float(val), c0, c1, val))
        return sum((item[3] for item in heap), arb(0))

    def _clean_root(self, lo: float, hi: float, phi: arb, mid: arb, slope_tol: float = 0.0,
                    grid: Sequence[arb] | None = None) -> tuple[arb, "_RootTerm"] | None:
        """``(f(r(m) + m), d/dt f(r(t) + t) over the ball)`` for the single simple root of a piece
        whose neighbours have opposite certified signs; None unless ``D`` is strictly monotone in
        ``x`` on ``[lo, hi] x phi`` and no support breakpoint meets the piece or its shift.

        Monotonicity is certified on the log-ratio ``l = log f(x + t) - log f(x)`` (``D > 0`` iff
        ``l > eps``), whose partials are enclosed from posterior means without dependency loss
        (:meth:`_Difference.logratio_x_bounds` on the grids of ``CLEAN_ROOT_PARTS``: monotone on
        each sub-box with one strict sign is monotone on ``Q x phi``); then ``r' = -l_t / l_x`` and
        ``d/dt f(r + t) = f'(r + t) (1 + r') = -f'(r + t) (log f)'(r) / l_x``. The root at ``m``
        is enclosed by an interval Newton step on ``l(., m) - eps``. ``slope_tol``: see
        :meth:`_root_term_derivative`."""
        diff, mix = self.diff, self.mix
        for parts in CLEAN_ROOT_PARTS:
            bounds = diff.logratio_x_bounds(lo, hi, phi, *parts)
            if bounds is None:
                return None
            lx_lo, lx_hi, (act_x, act_y) = bounds
            if lx_lo > 0 or lx_hi < 0:
                break
        else:
            return None
        lx = lx_lo.union(lx_hi)
        bracket = self._root_bracket(lo, hi, mid, act_x, act_y, float(lx.mid()))
        if bracket is None:
            return None
        value = mix.density(_ball(*bracket) + mid)
        derivative = self._root_term_derivative(lo, hi, phi, lx, act_x, act_y, slope_tol,
                                                refine_lx=parts != CLEAN_ROOT_PARTS[-1], grid=grid)
        return value, derivative

    def _root_bracket(self, lo: float, hi: float, shift: arb, act_x, act_y, slope_f: float
                      ) -> tuple[float, float] | None:
        """Float box ``[a, b]`` inside ``[lo, hi]`` holding every root of ``l(., t) = eps`` in
        ``[lo, hi]`` for ``t`` in the (tiny) ball ``shift``: interval Newton steps
        ``N = x0 - (l(x0, t) - eps) / l_x([a, b], t)`` from ``[lo, hi]``, each intersected with the
        box and rounded outward (``x0`` from a float polish, which the enclosure does not rely on).
        First, though, a tight box around the polished ``x0`` whose ends have certified opposite
        signs of ``l - eps`` is returned as is: the caller has certified ``l`` monotone on
        ``[lo, hi]``, so the root lies in that box. None if a Newton step comes out empty
        (impossible for a true root: refuse rather than guess)."""
        diff = self.diff

        def excess(x: arb) -> arb:  # l(x, t) - eps
            return diff._log_density(x + shift, act_y) - diff._log_density(x, act_x) - diff.log_exp_eps

        x0 = 0.5 * (lo + hi)
        for _ in range(4):
            step = float(excess(arb(x0)).mid()) / slope_f
            if not math.isfinite(step):
                break
            x0 = min(max(x0 - step, lo), hi)
        # l(., t) is monotone on [lo, hi] (the caller's certificate): opposite certified signs of
        # l - eps at the ends of a tight box around the polished x0 bracket the root
        half = self.root_width + 4 * abs(step if math.isfinite(step) else 0.0)
        a, b = max(lo, x0 - half), min(hi, x0 + half)
        if lo < a < b < hi:
            ea, eb = excess(arb(a)), excess(arb(b))
            if (ea < 0 and eb > 0) or (ea > 0 and eb < 0):
                return a, b
        a, b = lo, hi
        for _ in range(3):
            part = diff.logratio_partials(a, b, shift)
            if part is None:
                return None
            newton = arb(x0) - excess(arb(x0)) / part[0][0].union(part[0][1])
            if not newton.is_finite():
                break
            n_lo = max(a, _float_down(newton.lower()))
            n_hi = min(b, _float_up(newton.upper()))
            if n_lo > n_hi:
                return None
            a, b = n_lo, n_hi
            x0 = min(max(0.5 * (a + b), a), b)
        return a, b

    def _root_term_derivative(self, lo: float, hi: float, phi: arb, lx: arb, act_x, act_y,
                              slope_tol: float = 0.0, refine_lx: bool = False,
                              grid: Sequence[arb] | None = None) -> "_RootTerm":
        """Enclosure over the ball ``phi`` of ``d/dt f(r(t) + t) = -f'(r + t) (log f)'(r) / l_x`` for
        the clean root ``r(t)`` of ``[lo, hi]`` (``l_x`` enclosed by ``lx`` on the whole box).

        Both factors vanish near a mode of ``f``, so one product of enclosures over the whole box
        is loose. Instead, roots bracketed at ``ROOT_SLOPE_PARTS + 1`` shifts across the ball
        (:meth:`_root_bracket`) confine ``r`` over each sub-ball ``T_j`` to ``Q_j``: the hull of its
        end brackets widened by ``|r'| rad(T_j)`` with ``|r'| = |l_t / l_x| <= max |l_t| / min |l_x|``
        on the box (mean value theorem), and the product is enclosed on each ``Q_j x T_j``. The
        result is the union over ``j``. That work is skipped when the whole-box enclosure is
        already narrower than ``slope_tol`` (the caller's share of the slope it can afford);
        ``refine_lx`` asks for the finest ``l_x`` grid first (``lx`` came from a coarser one).

        ``grid`` (shifts ``t_0 < ... < t_n`` spanning the ball, exact points) replaces the uniform
        sub-balls; then the result also holds each sub-ball's enclosure and ``f(s(t_i))`` at the grid
        points (from the brackets there), for :meth:`ShiftExpansion.piecewise_sup`."""
        diff, mix = self.diff, self.mix

        def term(a: float, b: float, shifts: arb, lx_box: arb) -> arb:
            return -mix.density_derivative(_ball(a, b) + shifts) * diff.log_density_slope(a, b, act_x) / lx_box

        whole = term(lo, hi, phi, lx)
        if float(whole.rad()) <= slope_tol:
            return _RootTerm(whole)
        if refine_lx:
            finest = diff.logratio_x_bounds(lo, hi, phi, *CLEAN_ROOT_PARTS[-1])
            if finest is not None and (finest[0] > 0 or finest[1] < 0):
                lx = finest[0].union(finest[1])
                whole = term(lo, hi, phi, lx)
                if float(whole.rad()) <= slope_tol:
                    return _RootTerm(whole)
        partials = diff.logratio_partials(lo, hi, phi)
        if partials is None or phi.rad() == 0:
            return _RootTerm(whole)
        # |r'| <= max |l_t| / min |l_x| on the box (mean value theorem in t)
        speed = float((partials[1][0].abs_upper().max(partials[1][1].abs_upper())
                       / lx.abs_lower()).upper())
        t0, t1 = phi.lower(), phi.upper()
        shifts = list(grid) if grid is not None else \
            [t0 + (t1 - t0) * arb(i) / ROOT_SLOPE_PARTS for i in range(ROOT_SLOPE_PARTS)] + [t1]
        slope_f = float(lx.mid())
        brackets = [self._root_bracket(lo, hi, t, act_x, act_y, slope_f) for t in shifts]
        if any(br is None for br in brackets):
            return _RootTerm(whole)
        out = None
        per_sub: list[arb] = []
        for (a0, b0), (a1, b1), ta, tb in zip(brackets, brackets[1:], shifts, shifts[1:]):
            sub = ta.union(tb)
            # every t in the sub-ball is within rad of one of its ends, so r(t) within speed * rad
            reach = speed * float(sub.rad().upper()) * (1 + 1e-9)
            if not math.isfinite(reach):
                return _RootTerm(whole)
            a, b = max(lo, min(a0, a1) - reach), min(hi, max(b0, b1) + reach)
            lx_box = lx
            for _ in range(SUB_ITERS):
                # r(T_j) lies in [a, b]: the speed bound on the smaller box narrows [a, b] again
                bounds = diff.logratio_x_bounds(a, b, sub, SUB_PARTS) if a < b else None
                if bounds is None or not (bounds[0] > 0 or bounds[1] < 0):
                    break
                lx_box = bounds[0].union(bounds[1])
                part = diff.logratio_partials(a, b, sub)
                if part is None:
                    break
                reach = float((part[1][0].abs_upper().max(part[1][1].abs_upper()) / lx_box.abs_lower()).upper()) \
                    * float(sub.rad().upper()) * (1 + 1e-9)
                if not math.isfinite(reach):
                    break
                a, b = max(a, min(a0, a1) - reach), min(b, max(b0, b1) + reach)
            t = term(a, b, sub, lx_box)
            shifted = self._shifted_root_term(a, b, (a0, b0, ta), (a1, b1, tb), sub, lx_box, act_x, act_y)
            if shifted is not None:
                t = t.intersection(shifted)
            per_sub.append(t)
            out = t if out is None else out.union(t)
        if grid is None:
            return _RootTerm(out)
        values = [mix.density(_ball(a, b) + t) for (a, b), t in zip(brackets, shifts)]
        return _RootTerm(out, per_sub, values)

    def _shifted_root_term(self, a: float, b: float, start: tuple[float, float, arb], end: tuple[float, float, arb],
                           sub: arb, lx_box: arb, act_x, act_y) -> arb | None:
        """Enclosure of ``d/dt f(s(t)) = -f'(s) (log f)'(r) / l_x(r, t)`` over the sub-ball ``sub`` with
        the shifted root ``s(t) = r(t) + t`` confined on its own, or None.

        ``r(t)`` lies in ``[a, b]`` for ``t`` in ``sub``, and at the sub-ball's ends in the brackets
        ``start``/``end`` = ``(lo, hi, t)``. Since ``s' = 1 + r' = -(log f)'(r) / l_x`` (as
        ``l_x - l_t = -(log f)'(x)``), ``s(t)`` lies within ``|s'| rad(sub)`` of ``s`` at one of the
        ends, ``|s'| <= max |(log f)'([a, b])| / min |l_x|``. Where the root moves against the shift
        (``r' ~ -1``), ``s`` barely moves while ``[a, b] + sub`` is as wide as both: evaluating
        ``f'`` on the hull ``S`` of ``s`` removes that dependency. At the root
        ``l_x = (log f)'(s) - (log f)'(r)`` is enclosed from posterior means on ``S`` and ``[a, b]``
        (intersected with ``lx_box``, the bound on the whole box)."""
        diff, mix = self.diff, self.mix
        dlogf_r = diff.log_density_slope(a, b, act_x)
        speed = float((dlogf_r.abs_upper() / lx_box.abs_lower()).upper())
        reach = speed * float(sub.rad().upper()) * (1 + 1e-9)
        if not math.isfinite(reach):
            return None
        ends = [_ball(lo, hi) + t for lo, hi, t in (start, end)]
        s_lo = min(_float_down(e.lower()) for e in ends) - reach
        s_hi = max(_float_up(e.upper()) for e in ends) + reach
        outer = _ball(a, b) + sub  # s = r + t in any case
        s_lo, s_hi = max(s_lo, _float_down(outer.lower())), min(s_hi, _float_up(outer.upper()))
        if not s_lo <= s_hi:
            return None
        dlogf_s = diff.log_density_slope(s_lo, s_hi, act_y)
        lx = (dlogf_s - dlogf_r).intersection(lx_box)
        if not (lx > 0 or lx < 0):
            return None
        return -mix.density_derivative(_ball(s_lo, s_hi)) * dlogf_r / lx


def hockey_stick_at_shift(mix: GaussianMixture, epsilon: arb, phi: arb, *, delta_scale: float = 1e-12,
                          rel_tol: float = 1e-14) -> ShiftResult:
    """Certified ``lower <= H(phi) <= upper`` with ``H(phi) = int (f(x+phi) - e^eps f(x))_+ dx``.

    Valid for every point of the balls ``phi``, ``epsilon`` and the mixture's parameters.
    ``delta_scale`` only sets the tail window (tails of mass ``<~ 1e-3 rel_tol delta_scale``
    are bounded, not dropped: they are added to ``upper``).
    """
    eng = _Engine(mix, epsilon, delta_scale, rel_tol)
    return eng.value_at(phi)


@dataclass
class SupResult:
    """Certified enclosure of delta(eps) = sup over shifts of H, plus search statistics."""

    lower: arb
    upper: arb
    argmax: float
    intervals: int
    point_evaluations: int
    decided: str | None  # "le" / "gt" in decision mode when decided, else None


def _two_sided_rise(const: arb, beta: arb, h: arb) -> arb:
    """Upper bound of ``max_{|u| <= h} (a u + b u^2 / 2)`` for all ``a`` in ``const``, ``b <= beta``
    (``u < 0`` is the ``u > 0`` case with ``a`` negated)."""
    return _quadratic_rise(const.upper(), beta, h).max(_quadratic_rise((-const).upper(), beta, h))


def _quadratic_rise(alpha: arb, beta: arb, h: arb) -> arb:
    """Upper bound of ``max_{0 <= t <= h} (a t + b t^2 / 2)`` for all ``a <= alpha``, ``b <= beta``."""
    if beta < 0:
        if not alpha > 0:
            return arb(0)
        return (alpha * h).min(alpha * alpha / (-2 * beta)).upper()
    b = beta.max(arb(0))
    return (alpha * h + b * h * h / 2).max(arb(0)).upper()


def _sup_one_direction(eng: _Engine, delta_max: arb, rel_tol: float, target: arb | None,
                       max_intervals: int, initial: int, trace: list | None = None,
                       hints: Sequence[float] = (), near_peak: Fraction = INITIAL_NEAR_PEAK
                       ) -> tuple[arb, arb, float, int, int, str | None]:
    best_lower = arb(0)
    best_arg = 0.0
    points: dict[Fraction, ShiftResult] = {}

    def phi_of(t: Fraction) -> arb:
        return delta_max * arb(t.numerator) / arb(t.denominator)

    def point(t: Fraction, enough: arb | None = None) -> ShiftResult:
        nonlocal best_lower, best_arg
        if t not in points:
            # at a tied shift (MG: phi = Delta) the merged terms give H at once; failing that, the
            # weights alone may bound it far below the goal: then its certified point value (slow
            # there: D ~ 0 on long ranges) is not needed
            r = eng.tied_value(phi_of(t))
            if r is None and enough is not None:
                tie = eng.tie_upper_bound(phi_of(t))
                if tie is not None and tie <= enough:
                    r = ShiftResult(arb(0), tie, None, 0, 0, 0)
            if r is None:
                r = eng.value_at(phi_of(t))
            points[t] = r
            if r.lower > best_lower:
                best_lower = r.lower
                best_arg = float(t)
        return points[t]

    # float argmax hints, as dyadic shifts: an interval holding one is expanded around it (below)
    centres = sorted({Fraction(round(h * 2**24), 2**24) for h in hints if 0 <= h <= 1})

    def bound(ta: Fraction, tb: Fraction) -> tuple[arb, bool]:
        """(upper bound of H on [ta, tb], final?)"""
        ball = phi_of(ta).union(phi_of(tb))
        # the model may be centred anywhere in the ball: at a hinted argmax H'(m) ~ 0, so where the
        # model's slope is certified negative its rise A^2 / (2 |B|) is ~0 and the sup is ~H(m); at
        # the midpoint the same bound needs |m - argmax| tiny (many splits)
        inside = [c for c in centres if ta < c < tb]
        tm = min(inside, key=lambda c: abs(2 * c - ta - tb)) if inside else (ta + tb) / 2
        mid = phi_of(tm)
        goal = target if target is not None else best_lower * (1 + rel_tol)
        # an end value far below the goal may come from a cheap bound (point)
        end_a, end_b = point(ta, goal / 16).upper, point(tb, goal / 16).upper
        # never worse than the global Lipschitz / TV bound from the two ends
        alt = end_a.min(end_b) + shift_tv_bound(phi_of(tb) - phi_of(ta), eng.mix.sigma)
        # both ends well below the goal: the envelope bound needs no model of the interval
        if end_a + end_b < goal:
            envelope = eng.envelope_bound(phi_of(ta), phi_of(tb), end_a, end_b, goal)
            if envelope is not None and envelope <= goal:
                return envelope.min(alt).upper(), False
        if end_a.max(end_b) < goal:
            chord = eng.chord_bound(phi_of(ta), phi_of(tb), point(ta), point(tb), goal)
            if chord is not None:
                top = end_a.max(end_b)
                # the halves' chord bounds rise 4x less: when that would settle them, split at
                # once instead of paying for a shift model (the chord bound is still valid here)
                # (not across a hinted argmax: its halves would lose the model centred on it)
                if chord <= goal or (CHORD_SPLIT and not inside and top + (chord - top) / 4 < goal):
                    return chord.min(alt).upper(), False
        if centres and not inside and tb - ta > near_peak:
            # the argmax is hinted elsewhere: a wide interval here is only below the goal by a margin
            # its halves' end values will show; a model of it rarely settles it
            return alt.upper(), False
        allowance = float((goal - end_a.max(end_b)).mid())  # what the model may add (a guide only)
        if not allowance > 0:
            if target is not None:
                return alt.upper(), False  # cannot be settled below the target: split it
            allowance = 0.0  # sup mode: a monotone interval at the argmax must still be found final
        # model grid: GRID_HALF sub-balls on each side of the centre, exact dyadic shifts
        steps = [ta + (tm - ta) * Fraction(i, GRID_HALF) for i in range(GRID_HALF)] + \
            [tm + (tb - tm) * Fraction(i, GRID_HALF) for i in range(GRID_HALF + 1)]
        ex = eng.shift_expansion(ball, mid, allowance, grid=[phi_of(t) for t in steps])
        offsets = ball - mid  # every t - m
        dh = ex.derivative(offsets)
        if trace is not None:
            trace.append((float(ta), float(tb), dh))
        monotone = 1 if dh > 0 else (-1 if dh < 0 else ex.monotone_on_grid())
        if monotone > 0:
            return end_b, True
        if monotone < 0:
            return end_a, True
        # from the two end values alone (a settled interval then costs no centre evaluation)
        from_ends = ex.piecewise_sup({0: end_a, 2 * GRID_HALF: end_b}, goal)
        if from_ends is not None and from_ends <= goal:
            return from_ends.min(alt).upper(), False
        centre = point(tm).upper
        up = centre + ex.rise(offsets.abs_upper(), goal - centre)
        if not up <= goal and 2 * tm == ta + tb:
            # the three point values and the curvature alone (no first-order term)
            top = end_a.max(end_b).max(centre)
            up = up.min(top + ex.chord_rise((phi_of(tb) - phi_of(ta)) / 2, goal - top))
        if not up <= goal:
            # the sub-balls' model from the three known points
            piecewise = ex.piecewise_sup({0: end_a, GRID_HALF: centre, 2 * GRID_HALF: end_b}, goal)
            if piecewise is not None:
                up = up.min(piecewise)
        return up.min(alt).upper(), False

    # float hints (e.g. a float argmax) are evaluated first, at nearby dyadic shifts: a certified
    # lower bound there often decides "gt" at once; they never affect the upper bound
    for t in centres:
        point(t)
        if target is not None and best_lower > target:
            # decided before any search: the only upper bound known is the trivial H <= 1
            return best_lower, arb(1), best_arg, 0, len(points), "gt"
    heap: list[tuple[float, int, Fraction, Fraction, arb, bool]] = []
    counter = 0
    step = Fraction(1, initial)
    start = [(i * step, (i + 1) * step) for i in range(initial)]
    interior = [c for c in centres if 0 < c < 1]
    # each interior hint gets an interval of width near_peak centred on it (its model is centred
    # there too): a dyadic cut a little beside the peak leaves an end value within a hair of the
    # sup on each side, and then both neighbours need a shift model. Outwards the intervals double
    # up to the quarters: the farther from the peak, the farther below the goal the end values,
    # and the wider the interval that the end value bounds settle (or splits of those wider than
    # near_peak, see bound())
    half = near_peak / 2
    for c in interior:
        cuts = {a for a, _ in start} | {Fraction(1)}
        reach = half  # cuts at c +- half, c +- 2 half, ... up to a quarter of the range
        while 4 * reach <= Fraction(1, 4):
            reach *= 2
        cuts = {x for x in cuts if not c - 2 * reach < x < c + 2 * reach} | {Fraction(0), Fraction(1)}
        r = half
        while r <= reach:
            cuts |= {x for x in (c - r, c + r) if 0 < x < 1}
            r *= 2
        cuts = sorted(cuts)
        start = list(zip(cuts, cuts[1:]))
    for ta, tb in start:
        up, fin = bound(ta, tb)
        heap.append((-float(up), counter, ta, tb, up, fin))
        counter += 1
    heapq.heapify(heap)
    decided = None
    n_intervals = len(start)
    while True:
        neg_up, _, ta, tb, up, fin = heap[0]
        global_upper = up  # heap top has the largest upper bound
        if target is not None:
            if global_upper <= target:
                decided = "le"
                break
            if best_lower > target:
                decided = "gt"
                break
        gap = global_upper - best_lower
        if gap <= rel_tol * best_lower or (best_lower == 0 and global_upper <= 0):
            break
        if n_intervals >= max_intervals or (tb - ta) < Fraction(1, 2 ** 50):
            break
        if fin:
            # a monotone interval on top: its sup is a certified point value already, so the
            # remaining gap is that point enclosure's own width (precision / root pieces)
            break
        heapq.heappop(heap)
        q = (tb - ta) / 4
        hinted = [c for c in interior if ta + q <= c <= tb - q]
        if hinted:
            # keep the hinted argmax at the centre of a half-width interval (its model is centred
            # there); bisecting at it would leave it at an end of both halves
            c = hinted[0]
            children = ((ta, c - q), (c - q, c + q), (c + q, tb))
        else:
            tm = (ta + tb) / 2
            children = ((ta, tm), (tm, tb))
        for a, b in children:
            u, f2 = bound(a, b)
            heapq.heappush(heap, (-float(u), counter, a, b, u, f2))
            counter += 1
            n_intervals += 1
    global_upper = heap[0][4]
    return best_lower, global_upper, best_arg, n_intervals, len(points), decided


def privacy_profile_sup(mix: GaussianMixture, epsilon: arb, sensitivity: arb, *, symmetric: bool,
                        rel_tol: float = 1e-12, target: arb | None = None, delta_scale: float | None = None,
                        max_intervals: int = 4000, initial: int = 4,
                        hints: Sequence[float] = (), peak_scale: float | None = None) -> SupResult:
    """Certified enclosure of ``delta(eps) = sup_{|phi| <= Delta} H(phi)``.

    ``symmetric=True`` is the caller's statement that ``f(-x) = f(x)`` (then ``H(-phi) = H(phi)``
    and one direction suffices); otherwise the mirrored mixture is searched too.

    Without ``target`` the search stops when ``upper - lower <= rel_tol * lower``. With a
    ``target`` it stops as soon as ``upper <= target`` (decided "le": the mechanism is
    (eps, target)-DP) or ``lower > target`` (decided "gt": it is not), so a calibration decision
    costs only the evaluations it needs. ``lower``/``upper`` are certified in every case; when
    the search runs out of ``max_intervals`` they are still valid, only wider. ``hints`` are float
    shifts (e.g. a float argmax) evaluated first; they speed up a "gt" decision and the first
    intervals are laid out around them, ``Delta / 16`` wide or, with ``peak_scale`` (a float
    distance over which ``H`` halves next to the hint), about ``peak_scale / 1.5``. Floats only
    choose cut points: the bounds hold whatever they are.
    """
    scale = delta_scale if delta_scale is not None else (float(target) if target is not None else 1e-6)
    lowers, uppers, args = [], [], []
    n_int = n_pts = 0
    decisions: list[str | None] = []
    mixes = [mix] if symmetric else [mix, mix.mirrored()]
    for m in mixes:
        eng = _Engine(m, epsilon, scale, rel_tol)
        lo, up, arg, ni, npnt, dec = _sup_one_direction(
            eng, sensitivity, rel_tol, target, max_intervals, initial,
            hints=[abs(h) / float(sensitivity) for h in hints],
            near_peak=_near_peak_width(None if peak_scale is None else peak_scale / float(sensitivity)))
        lowers.append(lo)
        uppers.append(up)
        args.append(arg)
        n_int += ni
        n_pts += npnt
        decisions.append(dec)
        if dec == "gt":
            break
    lower = lowers[0]
    upper = uppers[0]
    for lo in lowers[1:]:
        lower = lower.max(lo)
    for up in uppers[1:]:
        upper = upper.max(up)
    if "gt" in decisions:
        decided: str | None = "gt"
    elif len(decisions) == len(mixes) and all(d == "le" for d in decisions):
        decided = "le"
    else:
        decided = None
    i = max(range(len(lowers)), key=lambda k: float(lowers[k]))
    return SupResult(lower, upper, args[i] * (1 if i == 0 else -1), n_int, n_pts, decided)
