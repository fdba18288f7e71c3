"""A bound on ``H`` over a ball of shifts that ends at a tied shift (MG: ``phi = Delta``), from the
first-order expansion of the matched pairs (:meth:`TiedEndMixin.near_tie_bound`), and point values
there that see the thin lobes of ``D`` (:meth:`TiedEndMixin.near_tie_point`).

Why it is needed: next to a tied shift ``tau`` the matched pairs ``w_j g(x - mu_k - h) - e^eps w_k
g(x - mu_k)`` differ by ``O(h)`` only, the positive lobe of one pair meets the ``e^eps``-heavier
negative lobe of the next, and whether their sum stays below 0 is decided by a margin that does
not shrink with ``h`` (docs/mixtures.md, "the tangency cliff"). The envelope and chord bounds
bound every term over boxes separately and never see that margin; this bound divides the pairs
by ``h`` first, so the margin is what its boxes have to resolve.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from flint import arb, ctx

from certdp.engines.gaussian_mixture.balls import sqr, interval_ball
from certdp.engines.gaussian_mixture.settings import DEFAULT_SETTINGS as settings

__all__ = ["TieMatching", "TiedEndMixin", "thin_lobes_likely"]


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


class _SortedTerms:
    """Terms ``(weight > 0, mean)`` sorted by mean, with prefix sums of the weights: the terms whose
    argument ``x - mean - r`` (``x`` in a box, ``r`` in ``[r_lo, r_hi]``) may come within
    ``cutoff`` of 0 are summed one by one; the rest, all at certified distance ``>= d`` from 0,
    only through ``(their total weight) x (a bound decreasing in d)`` (:meth:`split`)."""

    def __init__(self, terms: list[tuple[arb, arb]]):
        self.terms = sorted(terms, key=lambda t: float(t[1].mid()))
        self.means = [float(m.mid()) for _, m in self.terms]
        self.prefix = [arb(0)]
        for w, _ in self.terms:
            self.prefix.append(self.prefix[-1] + w)

    def split(self, x0: float, x1: float, r_lo: arb, r_hi: arb, cutoff: float, least: arb
              ) -> tuple[list[tuple[arb, arb]], arb, arb | None]:
        """``(near terms, total weight of the others, d)``: every other term has ``|x - mean - r| >=
        d >= least`` for all ``x`` in ``[x0, x1]``, ``r`` in ``[r_lo, r_hi]`` (certified in Arb; floats
        only choose the cut). ``d`` is None when there are no others; when the cut cannot be
        certified at ``least``, every term is near."""
        i0 = bisect.bisect_left(self.means, x0 - float(r_hi.upper()) - cutoff)
        i1 = bisect.bisect_right(self.means, x1 - float(r_lo.lower()) + cutoff)
        n = len(self.terms)
        if i0 == 0 and i1 == n:
            return self.terms, arb(0), None
        d = None
        if i0 > 0:  # x - mean_j - r >= x0 - r_hi - mean_{i0 - 1} for every j < i0
            d = (arb(x0) - r_hi - self.terms[i0 - 1][1]).lower()
        if i1 < n:  # mean_j + r - x >= mean_{i1} + r_lo - x1 for every j >= i1
            right = (self.terms[i1][1] + r_lo - arb(x1)).lower()
            d = right if d is None else d.min(right)
        if not d >= least:
            return self.terms, arb(0), None
        far = self.prefix[i0] + (self.prefix[n] - self.prefix[i1])
        return self.terms[i0:i1], far, d


def thin_lobes_likely(sigma: float, tie: float, epsilon: float) -> bool:
    """Do the pairs' Gaussians overlap enough, against a weight step ``e^eps`` small enough, that ``D``
    next to the tie ``tau`` is a near-cancellation with thin lobes (MG K = 50 at eps 1, sigma 0.359)
    where value_at's sign structure is slow and weak? ``sigma / |tau| >= settings.thin_lobe_overlap``
    and ``eps < tau^2 / (2 sigma^2)`` (the Gaussians' own decay over one step beats the weight
    step). A float choice of method only: every bound is valid either way."""
    ratio = sigma / abs(tie) if tie else 0.0
    return ratio >= settings.thin_lobe_overlap and epsilon * 2 * ratio * ratio < 1


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
        """Upper bound of ``H`` on ``[phi_a, phi_b]`` next to the tied shift ``tau``, or None
        (:meth:`_near_tie`, which states the method and what is guaranteed)."""
        return self._near_tie(phi_a, phi_b, tau, goal)[0]

    def near_tie_point(self, phi: arb, tau: arb, goal: arb) -> tuple[arb | None, arb]:
        """``(upper, lower)`` bounds of ``H(phi)`` at one exact shift next to the tied shift ``tau``:
        ``upper`` is :meth:`_near_tie`'s (None when it exceeds ``goal`` or its budget), ``lower`` is
        ``int_R D`` over the float pieces ``R`` where its parabolas are positive (an exact sum of
        Gaussian-CDF differences, :meth:`_integral_over`; valid for any ``R``, as in
        :meth:`lower_bound_at`, and unlike that one it sees the thin lobes of ``D`` next to a tie)."""
        upper, cover = self._near_tie(phi, phi, tau, goal, cover=True)
        # the pieces holding all but 1e-3 of the parabolas' mass (any subset gives a lower bound; the
        # CDF sums cost ~0.7 ms a piece): the lobes far out on the geometric tail are left out
        cover.sort(key=lambda p: p[2])
        room, drop = 1e-3 * sum(p[2] for p in cover), 0
        while drop < len(cover) and cover[drop][2] <= room:
            room -= cover[drop][2]
            drop += 1
        kept = cover[drop:]
        merged: list[list[float]] = []
        for a, b, _ in sorted(kept):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        lower = self._integral_over(merged, phi).lower().max(arb(0)) if merged else arb(0)
        return upper, lower

    def _near_tie(self, phi_a: arb, phi_b: arb, tau: arb, goal: arb | None = None, cover: bool = False
                  ) -> tuple[arb | None, list[tuple[float, float, float]]]:
        """The chord form where it applies (a single shift, or a ball at least its width away from
        the tie), else, or when it fails, the sup over ``h`` (:meth:`_near_tie_run`)."""
        ends = [abs(float((tau - phi).mid())) for phi in (phi_a, phi_b)]
        chord = min(ends) >= float((phi_b - phi_a).abs_upper())
        bound, pieces = self._near_tie_run(phi_a, phi_b, tau, goal, cover, chord)
        if bound is None and chord and min(ends) < max(ends):
            # a wide ball far below the goal (MG at eps 50): the chord's concavity term exceeds it
            bound = self._near_tie_run(phi_a, phi_b, tau, goal, cover, False)[0]
        return bound, pieces

    def _near_tie_run(self, phi_a: arb, phi_b: arb, tau: arb, goal: arb | None, cover: bool, chord: bool
                      ) -> tuple[arb | None, list[tuple[float, float, float]]]:
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

        *Chord form* (``chord``; a single shift, or a ball at least its width ``r`` from ``tau``).
        With ``G = h Q + N = sum_pairs w_j (g(x - mu_k - h) - g(x - mu_k)) + N``, ``G_hh = sum_pairs
        w_j g''(x - mu_k - h)``, and the chord's error ``G(x, h) - L(h) = G_hh(xi) (h - h_lo)(h - h_hi)
        / 2 <= r^2 / 8 sup (-G_hh)_+ =: E(x)``. As ``(.)_+`` is convex, ``G(x, h)_+ <= (1 - l)(G(x,
        h_lo) + E)_+ + l (G(x, h_hi) + E)_+`` (``l`` in ``[0, 1]``, the same for every ``x``), so
        ``sup_H H <= max_ends int (G(x, h_end) + E(x))_+ dx + mass(P) + tails``: the sup over the
        ball costs ``O(r^2)``, not the ``O(r)`` of the sup over ``h`` per ``x`` (MG K = 50, eps 1:
        1.5 % against 12 % on a ball 2e-4 wide next to the lobes). ``sup_X (-G_hh)_+`` is its value at
        the box centre plus ``sup |sum w_j g'''| (|dx| + |dh|)`` (a box evaluation of the sum itself
        loses its cancellation). At a single ``h`` the Taylor form above gives ``G <= alpha + beta dx
        + gamma dx^2`` on ``X`` (``gamma`` the upper end of ``-h zeta S3 / 2``), whose positive part
        is integrated exactly (:func:`_positive_part_integral`): a lobe narrower than its box costs
        third-order error, not its width times its height. The rules above then weigh the box's mean
        excess, and ``x_size`` is the spread of ``gamma`` and the radii (what splitting can remove).
        The float pieces where the parabolas are positive are returned for a lower bound
        (:meth:`near_tie_point`).

        The point: ``Q`` stays ``O(1)`` as ``h -> 0`` while ``N`` does not shrink, so next to ``tau``
        the sign of ``D`` is that of the pairs' first-order sum where ``N ~ 0`` (exact ties), and
        its margin, not ``h``, sets the boxes' size (docs/mixtures.md, "the tangency cliff")."""
        pieces: list[tuple[float, float, float]] = []  # (x0, x1, mass): where a single shift's parabolas are > 0
        if not tau.is_exact() or not (tau >= phi_b or tau <= phi_a):
            return None, pieces
        tie = self.tie_matching(tau)
        if tie is None:
            return None, pieces
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
        pairs = _SortedTerms([(wj, mu) for wj, _, mu in tie.pairs])
        negatives = _SortedTerms(negative)
        two_h2 = 2 * h2
        third = 4 * h2 * h2  # g'''(z) = third z (3 - 2 h2 z^2) g(z)
        # terms farther than `cutoff` from a box enter through one bound (_SortedTerms.split): at
        # that distance g is below 2^-80 of the lightest weight's share (a choice only)
        s_f = mix._f_sig
        logs = [float(w.log().mid()) for w, _ in pairs.terms + negatives.terms] or [0.0]
        cutoff = s_f * math.sqrt(2 * (max(logs) - min(logs) + 80 * math.log(2)))
        least = arb(4) * mix.sigma  # the far bounds below decrease in d beyond ~1.2 sigma
        zero = arb(0)

        def far_bounds(d: arb) -> tuple[arb, arb, arb, arb]:
            """Upper bounds of |g|, |g'|, |g''|, |g'''| (without 1 / sqrt(2 pi) s) over |z| >= d >= 4 s:
            ``e^{-h2 z^2}`` times ``1``, ``2 h2 z``, ``4 h2^2 z^2``, ``4 h2^2 z (3 + 2 h2 z^2)``, each
            decreasing in ``|z|`` there."""
            e = (-d * d * h2).exp()
            return e, two_h2 * d * e, third * d * d * e, third * d * (3 + two_h2 * d * d) * e

        def h_ball(h_lo: arb, h_hi: arb) -> tuple:
            """What a sub-ball [h_lo, h_hi] of H needs: ends, centre, deviation, hull(0, H_i), |h| range,
            extra bits, and the coefficients of the expm1 argument at its centre."""
            h_c = (h_lo + h_hi) / 2
            extra = 16 + 2 * max(0, int(-float(h_c.abs_lower().log().mid()) / 0.69))
            h_min, h_max = (h_lo, h_hi) if zeta > 0 else (-h_hi, -h_lo)
            with ctx.extraprec(extra):
                lin = (2 * h_c * h2, -h_c * h_c * h2)  # (2 y h_c - h_c^2) h2 = lin[0] y + lin[1]
            return (h_lo, h_hi, h_c, interval_ball(h_lo, h_hi) - h_c,
                    interval_ball(h_lo.min(arb(0)), h_hi.max(arb(0))), h_min, h_max, extra, lin)

        def excess_upper(x0: float, x1: float, hb: tuple) -> tuple[arb, float, float, tuple | None]:
            """(upper end of U on [x0, x1] x H_i without g's factor 1 / (sqrt(2 pi) s), the sizes of its
            x and h terms times |h|_max (floats that only choose the next step), and for a single h
            a parabola ``(alpha, beta, gamma, w / 2, S3)``: ``U(x) <= alpha + beta dx + gamma dx^2`` on the
            box, with the g''' sum S3 it used)."""
            _, _, h_c, h_dev, reach, h_min, h_max, extra, lin = hb
            box = interval_ball(x0, x1)
            centre = arb(0.5 * (x0 + x1))  # a float midpoint: exact, and inside the box
            q_c = q_x = q_h = s3 = arb(0)
            near, far, d = pairs.split(x0, x1, reach.lower(), reach.upper(), cutoff, least)
            if d is not None:
                # every far term's q, q_y, q_h and g''' argument lies in its z-range, |z| >= d
                _, b1, b2, b3 = far_bounds(d)
                unit = arb(0, 1)
                q_c, q_x, q_h, s3 = far * b1 * unit, far * b2 * unit, far * b2 * unit / 2, far * b3 * unit
            with ctx.extraprec(extra):
                for wj, mu in near:
                    y = centre - mu
                    g_y = wj * (-y * y * h2).exp()
                    e1 = (lin[0] * y + lin[1]).expm1()
                    g_shift = g_y + g_y * e1  # w g(y - h_c)
                    q = g_y * e1 / h_c
                    q_c += q
                    q_x -= two_h2 * (y * q - g_shift)
                    q_h += (two_h2 * (y - h_c) * g_shift - q) / h_c
            for wj, mu in near:
                z = box - mu - reach
                sq = sqr(z)
                s3 += wj * third * z * (3 - two_h2 * sq) * (-sq * h2).exp()
            dx = box - centre
            x_part = q_x * dx - s3 * sqr(dx) / 2
            h_part = q_h * h_dev + s3 * (dx * h_dev / 2 - sqr(h_dev) / 6)
            upper = (zeta * (q_c + x_part + h_part)).upper()
            first = h_max * upper if upper > 0 else h_min * upper
            # N's far terms are <= 0: dropping them only raises its upper end
            n_sup = arb(0)
            for a, mu in negatives.split(x0, x1, zero, zero, cutoff, least)[0]:
                n_sup -= a * (-sqr(box - mu) * h2).exp()
            scale = float(h_max)
            total = (first + n_sup.upper()).upper()
            if not h_dev.is_zero():
                return total, scale * float(x_part.abs_upper()), scale * float(h_part.abs_upper()), None
            # a single h: U(x) <= alpha + beta dx + gamma dx^2 on the box (Taylor in x with the
            # second derivative's enclosure -h zeta S3 / 2 <= gamma; beta, gamma exact floats), whose
            # positive part the chord form integrates exactly (_positive_part_integral); x_size is
            # then what that model may overstate: the spread of the curvature and the radii
            beta = h_max * zeta * q_x
            curv = h_max * zeta * (-s3) / 2
            slope, gamma = arb(float(beta.mid())), curv.upper()
            half = arb(0.5 * (x1 - x0))
            slack = (beta - slope).abs_upper() * half
            alpha = (h_max * zeta * q_c + n_sup + slack).upper()
            size = float(((gamma - curv.lower()) * half * half + slack).upper())
            return total, size, 0.0, (alpha, slope, gamma, half, s3)

        def concavity_upper(x0: float, x1: float, h_mid: arb, h_rad: arb, s3: arb) -> arb:
            """Upper end of ``(-G_hh)_+ = (-sum_pairs w_j g''(x - mu_k - h))_+`` over ``x`` in the box and
            ``h`` in ``h_mid +- h_rad`` (without g's factor; ``g''(z) = 2 h2 (2 h2 z^2 - 1) g(z)``): its
            value at the centre plus ``sup |sum w_j g'''| (|x - c| + |h - h_mid|)`` (mean value theorem;
            a box evaluation of the sum itself would lose its cancellation). ``s3``: that sum enclosed
            over ``X - mu_k - hull(0, h)`` for the end ``h`` farther from the tie (excess_upper's, a
            superset of the arguments needed here)."""
            reach = whole[4]
            value = arb(0)
            near, far, d = pairs.split(x0, x1, reach.lower(), reach.upper(), cutoff, least)
            if d is not None:
                value = far * far_bounds(d)[2] * arb(0, 1)
            centre = arb(0.5 * (x0 + x1))
            for wj, mu in near:
                sq = sqr(centre - mu - h_mid)
                value -= wj * two_h2 * (two_h2 * sq - 1) * (-sq * h2).exp()
            return (value + s3.abs_upper() * (arb(0.5 * (x1 - x0)) + h_rad)).upper().max(arb(0))

        s = mix._f_sig
        xl, xr = self.window(float(phi_b.upper()))
        step = s * settings.tied_end_box
        min_box = s * settings.tied_end_min_box
        whole = h_ball(tau - phi_b, tau - phi_a)
        if chord:
            # exact ends of a ball holding H: the chord inequality holds on any interval holding H
            h_lo_x, h_hi_x = whole[0].lower(), whole[1].upper()
            single = h_lo_x == h_hi_x  # one shift: one end, no chord term
            ends = (h_ball(h_lo_x, h_lo_x),) if single else (h_ball(h_lo_x, h_lo_x), h_ball(h_hi_x, h_hi_x))
            gap_sq = sqr(h_hi_x - h_lo_x) / 8
            h_mid, h_rad = (h_lo_x + h_hi_x) / 2, (h_hi_x - h_lo_x) / 2
            far_end = -1 if zeta > 0 else 0  # the end farther from the tie (its reach holds the others')
        n0 = max(1, int((xr - xl) / step))
        cuts = [xl + (xr - xl) * i / n0 for i in range(n0)] + [xr]
        # depth first: every descendant of an initial box is done before the next initial box
        todo = [(cuts[i], cuts[i + 1], whole, i) for i in reversed(range(n0))]
        positive = arb(0)
        chord_totals = [arb(0), arb(0)]  # chord form: int (G(., h_e) + E)_+ at the two ends
        budget = settings.tied_end_budget
        norm = mix._norm
        limit = None if goal is None else goal - positive_mass
        # a box whose U_+ |X| is below a share of the goal's room, spread over the window, is added
        # as it stands instead of bisected (far tails, where U ~ 0 has no certified sign, and the
        # lobes where D > 0 truly, far below the goal: eps 1, where H ~ 1e-16 next to the tie)
        density = 0.0 if limit is None else float((settings.tied_end_share * limit / (xr - xl)).lower())
        crumb = 0.0 if limit is None else float((limit / (4 * settings.tied_end_budget)).lower())
        leaves: list[tuple[float, float, arb]] = []  # positive leaves of the current initial box
        current = 0
        while True:
            item = todo.pop() if todo else None
            if item is None or item[3] != current:
                # the initial box is done: int over it of the max over h of its leaves' excess
                if chord:
                    for _, _, ends_u in leaves:
                        for i, value in enumerate(ends_u):
                            chord_totals[i] += value * norm
                    positive = chord_totals[0].max(chord_totals[-1])
                else:
                    positive += _integral_of_max(leaves) * norm
                if limit is not None and not positive < limit:
                    return None, pieces
                if item is None:
                    break
                leaves, current = [], item[3]
            x0, x1, hb, root = item
            if chord:
                models, x_size = [], 0.0
                for e in ends:
                    _, size, _, model = excess_upper(x0, x1, e)
                    models.append(model)
                    x_size = max(x_size, size)
                extra = arb(0) if single else gap_sq * concavity_upper(x0, x1, h_mid, h_rad, models[far_end][4])
                ends_u = []
                for alpha, slope, gamma, half, _ in models:
                    model = ((alpha + extra).upper(), slope, gamma, half)
                    ends_u.append(_positive_part_integral(*model))
                # the rules below weigh the box's mean excess (its integral over its width)
                u, h_size = ends_u[0].max(ends_u[-1]) / (x1 - x0), 0.0
            else:
                u, x_size, h_size, _ = excess_upper(x0, x1, hb)
            budget -= 1
            if not u > 0:
                continue
            # a positive excess that the Taylor terms account for only in small part is D > 0 itself
            # (a lobe): splitting would not lower it; it is added as it stands
            genuine = x_size + h_size <= float(u) / 8
            # as is a box whose whole excess is a tiny share of the goal (at a root of Q the
            # excess of every box straddling it stays positive while its width shrinks)
            tiny = (x1 - x0) * float(u) * float(norm) <= crumb
            if budget > 0 and not u * norm <= density and not genuine and not tiny:
                if h_size > x_size:
                    h_lo, h_hi = hb[0], hb[1]
                    h_m = (h_lo + h_hi) / 2
                    todo += [(x0, x1, h_ball(h_m, h_hi), root), (x0, x1, h_ball(h_lo, h_m), root)]
                    continue
                if x1 - x0 > min_box:
                    m = 0.5 * (x0 + x1)
                    todo += [(m, x1, hb, root), (x0, m, hb, root)]
                    continue
            elif budget <= 0 and goal is not None:
                return None, pieces
            if cover and chord:
                piece = _parabola_piece(model, x0, x1)
                if piece is not None:
                    pieces.append((*piece, float(ends_u[0])))
            leaves.append((x0, x1, ends_u if chord else u))
        t_ball = phi_a.union(phi_b)
        tails = mix.mass_below(arb(xl) + t_ball) + mix.mass_above(arb(xr) + t_ball)
        return (positive_mass + positive + tails).upper().min(arb(1)), pieces


def _integral_of_max(leaves: list[tuple[float, float, arb]]) -> arb:
    """``int max_i u_i 1[x0_i, x1_i](x) dx`` over the boxes ``(x0_i, x1_i, u_i)`` (``u_i > 0``): the
    boxes of one ``x``-range split in ``x`` and ``h`` cover, at each ``x``, every ``h``, so the sup
    over ``h`` of the excess at ``x`` is at most the largest ``u_i`` of the boxes holding ``x``."""
    if not leaves:
        return arb(0)
    edges = sorted({e for x0, x1, _ in leaves for e in (x0, x1)})
    total = arb(0)
    for a, b in zip(edges, edges[1:]):
        top = None
        for x0, x1, u in leaves:
            if x0 <= a and b <= x1:
                top = u if top is None else top.max(u)
        if top is not None:
            total += (arb(b) - arb(a)) * top
    return total


def _positive_part_integral(alpha: arb, beta: arb, gamma: arb, half: arb) -> arb:
    """Upper end of ``int_{-w/2}^{w/2} (alpha + beta t + gamma t^2)_+ dt`` (``half = w / 2``; exact
    ``alpha``, ``beta``, ``gamma``): an upper bound of ``int U_+`` for every ``U`` below that parabola.

    Concave (``gamma < 0``): the integral of the parabola between its roots clipped to the box (Arb
    balls for the roots: the polynomial antiderivative evaluated on balls holding the true ends
    encloses the true value); otherwise ``gamma t^2 <= gamma w^2 / 4`` and the positive part of the
    line with end values ``v1``, ``v2`` is integrated exactly (nondecreasing in both)."""
    zero = arb(0)
    width = 2 * half
    if gamma < zero:
        disc = beta * beta - 4 * alpha * gamma
        if disc < zero:
            return zero
        if not disc > zero:  # the parabola's top, alpha - beta^2 / (4 gamma), is ~0: bound by it
            return (width * (alpha - beta * beta / (4 * gamma))).upper().max(zero)
        root = disc.sqrt()
        a = ((-beta + root) / (2 * gamma)).max(-half)
        b = ((-beta - root) / (2 * gamma)).min(half)
        if b < a:
            return zero
        value = alpha * (b - a) + beta * (b * b - a * a) / 2 + gamma * (b * b * b - a * a * a) / 3
        return value.upper().max(zero)
    lift = alpha + gamma.max(zero) * half * half
    v1, v2 = (lift - beta * half).upper(), (lift + beta * half).upper()
    if not v1 > zero and not v2 > zero:
        return zero
    if v1 >= zero and v2 >= zero:
        return (width * (v1 + v2) / 2).upper()
    p, n = (v1, v2) if v1 > zero else (v2, v1)
    return (width * p * p / (2 * (p - n))).upper()


def _parabola_piece(model: tuple[arb, arb, arb, arb], x0: float, x1: float) -> tuple[float, float] | None:
    """Float sub-interval of ``[x0, x1]`` where the parabola ``alpha + beta t + gamma t^2`` (``t`` from the
    centre) is positive, or None: it only chooses where a lower bound integrates ``D``."""
    alpha, beta, gamma, _ = (float(v) for v in model)
    c, half = 0.5 * (x0 + x1), 0.5 * (x1 - x0)
    if gamma < 0:
        disc = beta * beta - 4 * alpha * gamma
        if not disc > 0:
            return None
        root = math.sqrt(disc)
        a, b = (-beta + root) / (2 * gamma), (-beta - root) / (2 * gamma)
    elif beta != 0:
        t0 = -alpha / beta
        a, b = (t0, half) if beta > 0 else (-half, t0)
    else:
        a, b = (-half, half) if alpha > 0 else (0.0, 0.0)
    a, b = max(a, -half), min(b, half)
    return (c + a, c + b) if b > a else None
