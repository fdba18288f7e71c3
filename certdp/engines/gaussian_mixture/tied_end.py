"""A bound on ``H`` over a ball of shifts that ends at a tied shift (MG: ``phi = Delta``), from the
first-order expansion of the matched pairs (:meth:`TiedEndMixin.tied_end_bound`).

Why it is needed: next to a tied shift ``tau`` the matched pairs ``w_j g(x - mu_k - h) - e^eps w_k
g(x - mu_k)`` differ by ``O(h)`` only, the positive lobe of one pair meets the ``e^eps``-heavier
negative lobe of the next, and whether their sum stays below 0 is decided by a margin that does
not shrink with ``h`` (docs/mixtures.md, "the tangency cliff"). The envelope and chord bounds
bound every term over boxes separately and never see that margin; this bound divides the pairs
by ``h`` first, so the margin is what its boxes have to resolve.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import arb, ctx

from certdp.engines.gaussian_mixture.balls import sqr, interval_ball
from certdp.engines.gaussian_mixture.settings import DEFAULT_SETTINGS as settings

__all__ = ["TieMatching", "TiedEndMixin"]


@dataclass(frozen=True)
class TieMatching:
    """``D(x, tau) `` split by how the shifted components land at a tied shift ``tau``.

    ``pairs``: ``(w_j, c_jk, mu_k)`` for a shifted component ``j`` landing exactly on an unshifted
    ``k`` (``mu_j - tau = mu_k``), with ``c_jk = w_j - e^eps w_k``; ``shifted``: ``(w_j, mu_j - tau)``
    for the shifted components left alone; ``unshifted``: ``(w_k, mu_k)`` for the unshifted ones left
    alone (they enter ``D`` as ``-e^eps w_k``)."""

    pairs: tuple[tuple[arb, arb, arb], ...]
    shifted: tuple[tuple[arb, arb], ...]
    unshifted: tuple[tuple[arb, arb], ...]


class TiedEndMixin:
    """Bound on ``sup H`` over a ball of shifts ending at a tied shift (fourth part of :class:`ShiftEngine`)."""

    def tie_matching(self, phi: arb) -> TieMatching | None:
        """The exact matching of shifted onto unshifted components at ``phi`` (:class:`TieMatching`), or
        None (no component matched, or a truncated mixture). Floats only propose the matches; each is
        certified by an exactly zero gap ``mu_j - phi - mu_k`` and each ``k`` is used once."""
        mix, diff = self.mix, self.diff
        if mix.breakpoints:
            return None
        pm, s = float(phi.mid()), mix._f_sig
        free = {round(float(m) / s * 64): k for k, m in enumerate(mix._f_mu)}
        pairs, shifted, matched = [], [], set()
        for j, cj in enumerate(mix.components):
            k = free.get(round((mix._f_mu[j] - pm) / s * 64))
            ck = mix.components[k] if k is not None else None
            gap = None if ck is None else cj.mean - phi - ck.mean
            if gap is None or not (gap.is_exact() and gap == 0):
                shifted.append((cj.weight, cj.mean - phi))
                continue
            del free[round(float(mix._f_mu[k]) / s * 64)]
            matched.add(k)
            pairs.append((cj.weight, diff._tie_coefficient(cj, ck), ck.mean))
        if not matched:
            return None
        unshifted = [(c.weight, c.mean) for k, c in enumerate(mix.components) if k not in matched]
        return TieMatching(tuple(pairs), tuple(shifted), tuple(unshifted))

    def has_exact_tie(self, phi: arb) -> bool:
        """Does ``phi`` match a shifted component onto an unshifted one with ``c_jk = 0`` exactly (a
        declared tie, MG at ``phi = Delta``)? There ``D`` is first order in the distance to ``phi``."""
        tie = self.tie_matching(phi) if phi.is_exact() else None
        return tie is not None and any(c.is_exact() and c == 0 for _, c, _ in tie.pairs)

    def near_tie_bound(self, phi_a: arb, phi_b: arb, tau: arb, goal: arb | None = None) -> arb | None:
        """Upper bound of ``H(t)`` for every ``t`` in ``[phi_a, phi_b]``, a ball on one side of a tied
        shift ``tau`` (:meth:`tie_matching`), or None (``tau`` not tied, or inside the ball; or, with a
        ``goal``, the bound is seen to exceed it, or its box budget ran out first).

        *Split.* With ``t = tau - h`` (``h`` in ``H = tau - [phi_a, phi_b]``, of one sign ``zeta``) and
        ``g`` the ``N(0, s^2)`` density, exactly ``D(x, t) = h Q(x, h) + N(x) + P(x, h)``: ``Q =
        sum_pairs w_j q(x - mu_k, h)`` with ``q(y, h) = (g(y - h) - g(y)) / h = -int_0^1 g'(y - s h)
        ds``; ``N = sum c_jk g(x - mu_k)`` over the pairs with ``c_jk`` certified ``< 0`` plus ``-e^eps
        w_k g(x - mu_k)`` over the unshifted components alone (``N <= 0``); ``P >= 0`` the rest
        (shifted components alone, pairs with ``c_jk`` not certified negative), of mass at most the
        sum of its coefficients' upper ends. As ``(a + b)_+ <= a_+ + b_+`` for ``b >= 0`` and
        ``D(x, t)_+ <= sup_{h in H} D(x, tau - h)_+``, ``H(t) <= int sup_h (|h| zeta Q + N)_+ dx +
        mass(P)``; the ``sup`` over ``h`` may be taken over a different split of ``H`` for every
        ``x``-box.

        *Taylor form.* ``q`` is smooth in ``(y, h)``: ``q_y = -int_0^1 g''(y - s h) ds``, ``q_h =
        int_0^1 s g''(y - s h) ds``, ``q_yy = -int g'''``, ``q_yh = int s g'''``, ``q_hh = -int s^2
        g'''`` (arguments ``y - s h``). On an ``x``-box ``X`` (centre ``c``) and a sub-ball ``H_i``
        (centre ``h_c``), Taylor's theorem with the Hessian at an intermediate point gives
        ``Q(x, h) in Q(c, h_c) + Q_y(c, h_c) dx + Q_h(c, h_c) dh + S3 (-dx^2 / 2 + dx dh / 2 -
        dh^2 / 6)``, ``dx = x - c``, ``dh = h - h_c``, where ``S3 = sum w_j g'''(X - mu_k -
        hull(0, H_i))`` encloses each Hessian entry up to the factors ``-1, 1/2, -1/3`` (mean value
        theorem for the integrals over ``s``, weights ``1, s, s^2 >= 0``). The point terms are
        closed forms: ``q = g(y) expm1((2 y h_c - h_c^2) / 2 s^2) / h_c``, ``q_y = -(y q - g(y -
        h_c)) / s^2``, ``q_h = ((y - h_c) g(y - h_c) / s^2 - q) / h_c`` (with ``2 log2(1 / h_c)``
        extra bits against the cancellation). With ``S`` the upper end of ``zeta Q`` on ``X x H_i``,
        ``|h| zeta Q + N <= |h|_max S`` (``S > 0``; else ``|h|_min S``) ``+ sup_X N``.

        *Boxes.* Where that is not ``<= 0``, the box is bisected in ``x`` or in ``h``, whichever
        term is the larger (floats only choose), down to ``sigma * settings.tied_end_min_box`` in
        ``x``; a box whose excess times its width is below a small share of ``goal`` per unit of
        the window, or one left at the end of the budget, adds ``|X| sup U_+``. Outside the
        engine's window ``(|h| zeta Q + N)_+ <= f(x + t)``, whose mass there is added as in
        :meth:`value_at`.

        The point: ``Q`` stays ``O(1)`` as ``h -> 0`` while ``N`` does not shrink, so next to ``tau``
        the sign of ``D`` is that of the pairs' first-order sum where ``N ~ 0`` (exact ties), and
        its margin, not ``h``, sets the boxes' size (docs/mixtures.md, "the tangency cliff")."""
        if not tau.is_exact() or not (tau >= phi_b or tau <= phi_a):
            return None
        tie = self.tie_matching(tau)
        if tie is None:
            return None
        mix = self.mix
        h2 = mix._half_inv_s2
        zeta = 1 if tau >= phi_b else -1
        positive_mass = sum((wj for wj, _ in tie.shifted), arb(0))
        negative: list[tuple[arb, arb]] = []  # (a > 0, mean): N = -sum a g(x - mu)
        for wj, c, mu in tie.pairs:
            if c < 0:
                negative.append((-c, mu))
            elif not c <= 0:
                positive_mass += c.max(arb(0))
        negative += [(self.diff.exp_eps * wk, mu) for wk, mu in tie.unshifted]
        pairs = [(wj, mu) for wj, _, mu in tie.pairs]
        two_h2 = 2 * h2
        third = 4 * h2 * h2  # g'''(z) = third z (3 - 2 h2 z^2) g(z)

        def h_ball(h_lo: arb, h_hi: arb) -> tuple:
            """What a sub-ball [h_lo, h_hi] of H needs: ends, centre, deviation, hull(0, H_i), |h| range, bits."""
            h_c = (h_lo + h_hi) / 2
            extra = 16 + 2 * max(0, int(-float(h_c.abs_lower().log().mid()) / 0.69))
            h_min, h_max = (h_lo, h_hi) if zeta > 0 else (-h_hi, -h_lo)
            return (h_lo, h_hi, h_c, interval_ball(h_lo, h_hi) - h_c,
                    interval_ball(h_lo.min(arb(0)), h_hi.max(arb(0))), h_min, h_max, extra)

        def excess_upper(x0: float, x1: float, hb: tuple) -> tuple[arb, float, float]:
            """(upper end of U on [x0, x1] x H_i without g's factor 1 / (sqrt(2 pi) s), and the
            sizes of its x and h terms: floats that only choose the next split)."""
            _, _, h_c, h_dev, reach, h_min, h_max, extra = hb
            box = interval_ball(x0, x1)
            centre = arb(0.5 * (x0 + x1))  # a float midpoint: exact, and inside the box
            q_c = q_x = q_h = arb(0)
            with ctx.extraprec(extra):
                lin = (2 * h_c * h2, -h_c * h_c * h2)
                for wj, mu in pairs:
                    y = centre - mu
                    g_y = wj * (-y * y * h2).exp()
                    e1 = (lin[0] * y + lin[1]).expm1()
                    g_shift = g_y + g_y * e1  # w g(y - h_c)
                    q = g_y * e1 / h_c
                    q_c += q
                    q_x -= two_h2 * (y * q - g_shift)
                    q_h += (two_h2 * (y - h_c) * g_shift - q) / h_c
            s3 = arb(0)
            for wj, mu in pairs:
                z = box - mu - reach
                sq = sqr(z)
                s3 += wj * third * z * (3 - two_h2 * sq) * (-sq * h2).exp()
            dx = box - centre
            x_part = q_x * dx - s3 * sqr(dx) / 2
            h_part = q_h * h_dev + s3 * (dx * h_dev / 2 - sqr(h_dev) / 6)
            upper = (zeta * (q_c + x_part + h_part)).upper()
            first = h_max * upper if upper > 0 else h_min * upper
            n_sup = arb(0)
            for a, mu in negative:
                n_sup -= a * (-sqr(box - mu) * h2).exp()
            return (first + n_sup.upper()).upper(), float(x_part.abs_upper()), float(h_part.abs_upper())

        s = mix._f_sig
        xl, xr = self.window(float(phi_b.upper()))
        step = s * settings.tied_end_box
        min_box = s * settings.tied_end_min_box
        whole = h_ball(tau - phi_b, tau - phi_a)
        n0 = max(1, int((xr - xl) / step))
        todo = [(xl + (xr - xl) * i / n0, xl + (xr - xl) * (i + 1) / n0, whole) for i in range(n0)]
        todo[-1] = (todo[-1][0], xr, whole)
        positive = arb(0)
        budget = settings.tied_end_budget
        norm = mix._norm
        limit = None if goal is None else goal - positive_mass
        # a box whose U_+ |X| is below this share of the goal's room, spread over the window, is
        # added as it stands instead of bisected (far tails, where U ~ 0 has no certified sign)
        density = 0.0 if limit is None else float((settings.negligible_share * limit / (xr - xl)).lower())
        while todo:
            x0, x1, hb = todo.pop()
            u, x_size, h_size = excess_upper(x0, x1, hb)
            budget -= 1
            if not u > 0:
                continue
            if budget > 0 and not u * norm <= density:
                if h_size > x_size:
                    h_lo, h_hi = hb[0], hb[1]
                    h_m = (h_lo + h_hi) / 2
                    todo += [(x0, x1, h_ball(h_m, h_hi)), (x0, x1, h_ball(h_lo, h_m))]
                    continue
                if x1 - x0 > min_box:
                    m = 0.5 * (x0 + x1)
                    todo += [(m, x1, hb), (x0, m, hb)]
                    continue
            elif budget <= 0 and goal is not None:
                return None
            # (an x-box split in h adds each part: their sum bounds the sup over H)
            positive += arb(x1 - x0) * u * norm
            if limit is not None and not positive < limit:
                return None
        t_ball = phi_a.union(phi_b)
        tails = mix.mass_below(arb(xl) + t_ball) + mix.mass_above(arb(xr) + t_ball)
        return (positive_mass + positive + tails).upper().min(arb(1))
