"""Second-order model of ``H`` on a ball of shifts around a centre ``m`` (package docstring,
"Second-order model on a ball of shifts"): :class:`ShiftExpansion` and the engine part that builds it
(boundary terms, clean roots moved by the implicit function theorem, int D_+ of uncertain pieces).
"""

from __future__ import annotations

import functools
import heapq
import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

from flint import arb

from certdp.engines.gaussian_mixture.balls import float_down, float_up, interval_ball
from certdp.engines.gaussian_mixture.settings import DEFAULT_SETTINGS as settings
from certdp.engines.gaussian_mixture.signs import Piece

__all__ = ["ShiftExpansion", "ShiftModelMixin"]


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
    :meth:`ShiftEngine.shift_expansion`): ``H = H_R + sum_Q H_Q`` where, for every ``t`` in the ball,
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


class ShiftModelMixin:
    """Second-order model of ``H`` on a ball of shifts (third part of :class:`ShiftEngine`)."""

    def derivative_on(self, phi: arb) -> arb:
        """Enclosure of H'(t) for every t in the ball phi (see the package docstring)."""
        mid = arb(phi.mid())
        ex = self.shift_expansion(phi, mid)
        return ex.derivative(phi - mid)

    def shift_expansion(self, phi: arb, mid: arb, allowance: float = 0.0,
                        grid: Sequence[arb] | None = None) -> ShiftExpansion:
        """Second-order model of ``H`` on the ball of shifts ``phi`` around ``m`` in ``mid``.

        ``H'(t) = int_{D > 0} f'(x + t) dx`` (package docstring) is a sum of boundary terms:
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
        pieces: list[Piece] = []
        for p in st.pieces:  # adjacent uncertain pieces are one piece here (a root may sit on the seam)
            if p.sign == 0 and pieces and pieces[-1].sign == 0 and pieces[-1].hi == p.lo:
                pieces[-1] = Piece(pieces[-1].lo, p.hi, 0)
            else:
                pieces.append(p)
        const = arb(0)
        slope = arb(0)
        crude: list[tuple[arb, Callable[[], arb]]] = []
        coefficient: dict[float, int] = {}
        chunk = mix._f_sig / 8
        budget = [settings.excess_budget]
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
                fp = mix.density_derivative(interval_ball(a, b) + phi)
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
        xb = interval_ball(lo, hi)
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
        (:meth:`MixtureDifference.logratio_x_bounds` on the grids of ``CLEAN_ROOT_PARTS``: monotone on
        each sub-box with one strict sign is monotone on ``Q x phi``); then ``r' = -l_t / l_x`` and
        ``d/dt f(r + t) = f'(r + t) (1 + r') = -f'(r + t) (log f)'(r) / l_x``. The root at ``m``
        is enclosed by an interval Newton step on ``l(., m) - eps``. ``slope_tol``: see
        :meth:`_root_term_derivative`."""
        diff, mix = self.diff, self.mix
        for parts in settings.clean_root_parts:
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
        value = mix.density(interval_ball(*bracket) + mid)
        derivative = self._root_term_derivative(lo, hi, phi, lx, act_x, act_y, slope_tol,
                                                refine_lx=parts != settings.clean_root_parts[-1], grid=grid)
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
            n_lo = max(a, float_down(newton.lower()))
            n_hi = min(b, float_up(newton.upper()))
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
            return -mix.density_derivative(interval_ball(a, b) + shifts) * diff.log_density_slope(a, b, act_x) / lx_box

        whole = term(lo, hi, phi, lx)
        if float(whole.rad()) <= slope_tol:
            return _RootTerm(whole)
        if refine_lx:
            finest = diff.logratio_x_bounds(lo, hi, phi, *settings.clean_root_parts[-1])
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
            [t0 + (t1 - t0) * arb(i) / settings.root_slope_parts for i in range(settings.root_slope_parts)] + [t1]
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
            for _ in range(settings.sub_iters):
                # r(T_j) lies in [a, b]: the speed bound on the smaller box narrows [a, b] again
                bounds = diff.logratio_x_bounds(a, b, sub, settings.sub_parts) if a < b else None
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
        values = [mix.density(interval_ball(a, b) + t) for (a, b), t in zip(brackets, shifts)]
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
        ends = [interval_ball(lo, hi) + t for lo, hi, t in (start, end)]
        s_lo = min(float_down(e.lower()) for e in ends) - reach
        s_hi = max(float_up(e.upper()) for e in ends) + reach
        outer = interval_ball(a, b) + sub  # s = r + t in any case
        s_lo, s_hi = max(s_lo, float_down(outer.lower())), min(s_hi, float_up(outer.upper()))
        if not s_lo <= s_hi:
            return None
        dlogf_s = diff.log_density_slope(s_lo, s_hi, act_y)
        lx = (dlogf_s - dlogf_r).intersection(lx_box)
        if not (lx > 0 or lx < 0):
            return None
        return -mix.density_derivative(interval_ball(s_lo, s_hi)) * dlogf_r / lx
