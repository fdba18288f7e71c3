"""Bounds on ``H`` over a ball of shifts ``[a, b]`` without a model of the ball: the global Lipschitz /
total-variation bounds (:func:`lipschitz_constant`, :func:`shift_tv_bound`) and, from the two end
values, the envelope and chord bounds (package docstring, "Bounds from the two end values alone").
"""

from __future__ import annotations

from flint import arb

from certdp.engines.gaussian_mixture.balls import ncdf, float_down, float_up, interval_ball
from certdp.engines.gaussian_mixture.settings import DEFAULT_SETTINGS as settings
from certdp.engines.gaussian_mixture.shift_value import ShiftResult

__all__ = ["lipschitz_constant", "shift_tv_bound", "BallBoundsMixin"]


def shift_tv_bound(h: arb, sigma: arb) -> arb:
    """Upper bound 2 Phi(|h|/(2 sigma)) - 1 on |H(phi + h) - H(phi)| (see the package docstring)."""
    return 2 * ncdf(abs(h) / (2 * sigma)) - 1


def lipschitz_constant(sigma: arb) -> arb:
    """The global Lipschitz constant ``1 / (sqrt(2 pi) sigma)`` of ``phi -> H(phi)`` for a mixture of
    ``N(., sigma^2)`` components of total weight <= 1 (used in seed 000's proof of Thm 3.2).

    Proof: ``(a)_+ - (b)_+ <= (a - b)_+`` gives ``H(p) - H(q) <= int (f(x + p) - f(x + q))_+ dx``, and
    ``(sum a_k)_+ <= sum (a_k)_+`` bounds that by ``sum_k w_k TV(N(0, s^2), N(p - q, s^2)) <=
    2 Phi(|p - q| / 2 s) - 1 <= |p - q| / (sqrt(2 pi) s)``; ``e^eps f(x)`` does not move with the shift.
    Stated for plain (untruncated) components: Alg. 1 (MG) is its caller."""
    return 1 / ((2 * arb.pi()).sqrt() * sigma)


class BallBoundsMixin:
    """Bounds on ``sup H`` over a ball of shifts from its two end values (second part of :class:`ShiftEngine`)."""

    def _mode_sets(self, phi_a: arb, phi_b: arb, small: float = 0.0) -> list[tuple[float, float, arb, arb]] | None:
        """The ``x`` where ``x + [phi_a, phi_b]`` may hold a local maximum of ``f`` and ``D`` may be
        positive: boxes ``(x0, x1, top, curvature)`` with ``top >= sup_t D(x, t)`` and ``curvature >=
        sup_{x + T} (-f'')_+`` for every ``x`` in ``[x0, x1]`` (None for a truncated mixture with a kink
        not certified convex, :attr:`GaussianMixture.convex_kinks`; across a convex kink ``f''`` is the
        one-sided second derivative).

        For a box ``U_i`` of :attr:`GaussianMixture.mode_boxes` the set is ``X_i = U_i - T``, and
        ``x + T`` lies in ``U_i + [-w, w]`` (one curvature bound per mode). Where the max ``M(x)`` of
        ``f`` over ``x + T`` exceeds both end values it sits at a local maximum, in some ``U_j``
        inside ``x + T``, so there ``sup_t D(x, t) <= sup f(U_j) - e^eps f(x)`` (tight: ``U_j`` is
        narrow). A part of ``X_i`` is dropped where ``top = sup f(U_i) - e^eps inf f < 0`` on it; a
        set whose curvature term ``|X_i| (w^2 / 8) curvature`` exceeds ``small`` is bisected (down
        to ``|X_i| / settings.mode_split``) to drop what it can."""
        mix = self.mix
        boxes = mix.mode_boxes
        if boxes is None:
            return None
        a_lo, b_hi = float_down(phi_a.lower()), float_up(phi_b.upper())
        w = b_hi - a_lo
        out = []
        for u0, u1 in boxes:
            x0, x1 = u0 - b_hi, u1 - a_lo
            peak = mix.density(interval_ball(u0, u1)).upper()
            top = peak - self.diff.exp_eps * mix.density(interval_ball(x0, x1))
            if top < 0:
                continue
            curvature = (-mix.density_second_derivative(interval_ball(u0 - w, u1 + w))).upper().max(arb(0))
            if float(curvature) * w * w / 8 * (x1 - x0) <= small:
                out.append((x0, x1, top.upper(), curvature))
                continue
            h = 0.5 * (x0 + x1)
            parts = [(x0, h), (h, x1)]  # the whole set's top is known: go on with its halves
            while parts:
                c0, c1 = parts.pop()
                top = peak - self.diff.exp_eps * mix.density(interval_ball(c0, c1))
                if top < 0:
                    continue
                if c1 - c0 > (x1 - x0) / settings.mode_split:
                    c = 0.5 * (c0 + c1)
                    parts += [(c0, c), (c, c1)]
                else:
                    out.append((c0, c1, top.upper(), curvature))
        return out

    def envelope_bound(self, phi_a: arb, phi_b: arb, upper_a: arb, upper_b: arb,
                       goal: arb | None = None) -> arb | None:
        """Upper bound of ``H(t)`` for every ``t`` in ``[phi_a, phi_b]`` from upper bounds of the two
        end values, or None (a truncated mixture without :attr:`GaussianMixture.convex_kinks`). ``goal`` (what the caller needs the bound below)
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
        w = float_up((phi_b - phi_a).upper())
        w2 = arb(w) * arb(w) / 8
        for x0, x1, top, curvature in sets:
            # sup_t D_+ exceeds the ends' sum by at most M - max(ends), and by at most sup_t D_+ itself
            total += arb(x1 - x0) * (w2 * curvature).min(top)
        return total.upper()

    def chord_bound(self, phi_a: arb, phi_b: arb, end_a: ShiftResult, end_b: ShiftResult,
                    goal: arb | None = None) -> arb | None:
        """Upper bound of ``H(t)`` for every ``t`` in ``[phi_a, phi_b]`` from the certified point
        results at its ends (with their positive covers), or None (a truncated mixture without
        :attr:`GaussianMixture.convex_kinks`, or an end
        without a cover).

        For fixed ``x``, ``g(t) = f(x + t)`` equals its chord on ``T`` minus ``(t - phi_a)(phi_b - t)
        g''(xi) / 2`` (across a convex kink: ``g + C t^2 / 2`` is convex for ``C >= sup (-g'')_+``, so
        ``g`` lies below its chord plus ``C (t - phi_a)(phi_b - t) / 2``), so ``D(x, t) <= lam D(x, phi_a) + (1 - lam) D(x, phi_b) + E(x)`` with ``E(x) =
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
        w = float_up((phi_b - phi_a).upper())
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
                up = (-mix.density_second_derivative(interval_ball(c0, c1) + phi_a.union(phi_b))).upper()
                if up > 0:
                    total += arb(c1 - c0) * up
        top = end_a.upper.max(end_b.upper)
        return (top + arb(w) * arb(w) / 8 * total).upper()
