"""Certified decomposition of the window ``[XL, XR]`` into signed and uncertain pieces for a ball of
shifts (:class:`SignStructure`), and its runs of positive pieces.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from flint import arb

from certdp.engines.gaussian_mixture.balls import interval_ball
from certdp.engines.gaussian_mixture.settings import DEFAULT_SETTINGS as settings
from certdp.engines.gaussian_mixture.signs import MixtureDifference, Piece

__all__ = ["SignStructure"]


class SignStructure:
    """Certified decomposition of [XL, XR] into signed / uncertain pieces for a ball of shifts."""

    def __init__(self, diff: MixtureDifference, phi: arb, phi_floats: Sequence[float], xl: float, xr: float,
                 root_width: float, max_depth: int = 48, min_piece: float | None = None,
                 negligible: float = 0.0, negligible_density: float = 0.0):
        self.diff = diff
        self.phi = phi
        self.xl = xl
        self.xr = xr
        self.root_width = root_width
        self.max_depth = max_depth
        self.min_piece = min_piece if min_piece is not None else root_width * 1e-3
        self.budget = settings.ball_budget  # ball mode: evaluations before the remaining unsigned pieces stay uncertain
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
        self.budget += settings.ball_budget_per_root * max(len(rs) for rs in per_sample) if per_sample else 0
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
            step = settings.cut_step * diff.mix._f_sig
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
        self.pieces: list[Piece] = []
        guided: list[tuple[float, float]] = []
        for lo, hi in zip(cut_list, cut_list[1:]):
            if any(a <= lo and hi <= b for a, b in uncertain):
                self.pieces.append(Piece(lo, hi, 0))
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

    def _classify_guided(self, todo: list[tuple[float, float]], plo: float, phi_hi: float) -> list[Piece]:
        """Bisect in floats first, Arb only where it will decide.

        Pieces are split breadth-first while the float guide (:meth:`MixtureDifference.float_signability`)
        predicts that the log-ratio test fails on them; a piece predicted to pass goes to the
        certified :meth:`_classify` (which bisects further if the prediction was wrong), one
        predicted to be negligible to the certified :meth:`_negligible`, and one still predicted to
        fail at the depth or width limit stays uncertain without any Arb evaluation (the sound
        default). Floats decide nothing here: every signed piece is certified by Arb."""
        mix = self.diff.mix
        log_norm = math.log(float(mix._norm.upper()))
        exp_eps = math.exp(self.diff.eps_f)
        out: list[Piece] = []
        depth = 0
        guide_depth = settings.guide_depth_tied if not self.ball_mode and self.diff._pairs(self.phi) else settings.guide_depth
        while todo:
            lo = np.array([a for a, _ in todo])
            hi = np.array([b for _, b in todo])
            ratio, log_top, shift_bound = self.diff.float_signability(lo, hi, plo, phi_hi)
            # a generous float estimate of sup D+ on the piece (for the negligibility test)
            top = np.exp(log_top + log_norm + math.log(4 * len(mix.components)))
            nxt: list[tuple[float, float]] = []
            for (a, b), r, t, stuck in zip(todo, ratio, top, shift_bound):
                width = b - a
                if r > settings.guide_margin:
                    out.extend(self._classify(a, b, [], depth))
                    continue
                if t * exp_eps <= 0.1 * max(self.negligible_density, self.negligible / width) and \
                        self._negligible(interval_ball(a, b), width):
                    out.append(Piece(a, b, 0))
                    continue
                m = 0.5 * (a + b)
                if depth >= self.max_depth or width <= self.min_piece or not a < m < b or (stuck and self.ball_mode):
                    out.append(Piece(a, b, 0))
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

    def _classify(self, lo: float, hi: float, hint: list[float], depth: int) -> list[Piece]:
        xb = interval_ball(lo, hi)
        self.evaluations += 1
        sgn = self.diff.logratio_sign(lo, hi, self.phi)
        if sgn == 0 and (self.diff.mix.lattice is None or self.diff._pairs(self.phi)):
            # (for lattice mixtures the endpoint test rarely decides what the log-ratio test did
            # not, except through its tied pairs near phi = Delta: it is tried only there)
            self.evaluations += 1
            sgn = self.diff.interval_sign(xb, self.phi)
        if sgn != 0:
            return [Piece(lo, hi, sgn)]
        if self.evaluations > self.point_budget or self._negligible(xb, hi - lo):
            return [Piece(lo, hi, 0)]
        if self.ball_mode:
            if depth >= self.max_depth or hi - lo <= self.min_piece or self.evaluations > self.budget:
                return [Piece(lo, hi, 0)]
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
                return [Piece(lo, hi, 1)]
            if qc < 0:
                return [Piece(lo, hi, -1)]
        if depth >= self.max_depth or hi - lo <= self.min_piece:
            return [Piece(lo, hi, 0)]
        m = 0.5 * (lo + hi)
        if not lo < m < hi:
            return [Piece(lo, hi, 0)]
        return (self._classify(lo, m, [r for r in hint if r < m], depth + 1)
                + self._classify(m, hi, [r for r in hint if r >= m], depth + 1))

    def _monotone_root_piece(self, lo: float, hi: float, a: float, b: float
                             ) -> tuple[list[Piece], list[tuple[float, float]]] | None:
        """Point mode: ``(pieces, rest)`` for ``[lo, hi]`` around a float root bracket ``[a, b]``,
        or None; ``rest`` are the parts of ``[lo, hi]`` left to classify (unordered output).

        If ``l(., phi) = log f(. + phi) - log f`` is certified strictly monotone on some
        ``[ql, qh]`` around ``[a, b]`` (:meth:`MixtureDifference.logratio_x_bounds`) and ``D`` has certified
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
            return [p for p in (Piece(ql, a, sa), Piece(a, b, 0), Piece(b, qh, sb)) if p.lo < p.hi], rest
        return None

    def _classify_monotone(self, lo: float, hi: float, known_monotone: bool = False) -> list[Piece] | None:
        """Pieces for [lo, hi] when D is monotone there (checked here unless known)."""
        if not known_monotone:
            self.evaluations += 1
            dd = self.diff.sign_derivative(interval_ball(lo, hi), self.phi)
            if not (dd > 0 or dd < 0):
                return None
        sl, sh = self._sign_at(lo), self._sign_at(hi)
        if sl == 0 or sh == 0:
            if hi - lo <= self.root_width:
                return [Piece(lo, hi, 0)]
            return None
        if sl == sh:
            return [Piece(lo, hi, sl)]
        # exactly one simple root in (lo, hi): certified bisection down to root_width
        out_left: list[Piece] = []
        out_right: list[Piece] = []
        a, b = lo, hi
        while b - a > self.root_width:
            m = 0.5 * (a + b)
            if not a < m < b:
                break
            sm = self._sign_at(m)
            if sm == 0:
                break
            if sm == sl:
                out_left.append(Piece(a, m, sl))
                a = m
            else:
                out_right.append(Piece(m, b, sh))
                b = m
        return out_left + [Piece(a, b, 0)] + out_right[::-1]

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
