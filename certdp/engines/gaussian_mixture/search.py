"""Branch and bound over the shift: the certified ``sup_phi H(phi)`` of :func:`privacy_profile_sup`
(package docstring, "Branch and bound").
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from flint import arb

from certdp.numbers.deadline import check_deadline
from certdp.engines.gaussian_mixture.ball_bounds import shift_tv_bound
from certdp.engines.gaussian_mixture.engine import ShiftEngine
from certdp.engines.gaussian_mixture.model import GaussianMixture
from certdp.engines.gaussian_mixture.settings import DEFAULT_SETTINGS as settings
from certdp.engines.gaussian_mixture.shift_value import ShiftResult
from certdp.engines.gaussian_mixture.tied_end import thin_lobes_likely
from certdp.numbers import Decision

__all__ = ["SupResult", "privacy_profile_sup"]


def _near_peak_width(peak_scale: float | None) -> Fraction:
    """Width (in units of the shift range) of the first intervals around an interior hint: the power
    of 2 nearest ``peak_scale / settings.peak_scale_share`` within ``NEAR_PEAK_RANGE``, or settings.initial_near_peak.
    A float choice of where to cut only: it never enters a bound."""
    if peak_scale is None or not peak_scale > 0 or not math.isfinite(peak_scale):
        return settings.initial_near_peak
    k = round(math.log2(settings.peak_scale_share / peak_scale))
    lo, hi = settings.near_peak_range
    return min(max(Fraction(1, 2 ** k) if k >= 0 else Fraction(2 ** -k), lo), hi)


@dataclass
class SupResult:
    """Certified enclosure of delta(eps) = sup over shifts of H, plus search statistics."""

    lower: arb
    upper: arb
    argmax: float
    intervals: int
    point_evaluations: int
    #: decision mode: YES (delta(eps) <= target proven), NO (> target proven); else UNKNOWN
    decided: Decision


def _sup_one_direction(eng: ShiftEngine, delta_max: arb, rel_tol: float, target: arb | None,
                       max_intervals: int, initial: int, trace: list | None = None,
                       hints: Sequence[float] = (), near_peak: Fraction = settings.initial_near_peak
                       ) -> tuple[arb, arb, float, int, int, Decision]:
    best_lower = arb(0)
    best_arg = 0.0
    points: dict[Fraction, ShiftResult] = {}
    from_tie: set[Fraction] = set()  # shifts whose point value is the near-tie bound's

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
            tau = None if r is not None or not tie_points else tied_neighbour(t)
            if tau is not None:
                # next to a tied shift D ~ 0 on long ranges and value_at's sign structure is slow
                # (MG K = 50, eps 1: 3 s, upper 1): the near-tie bound at the single shift instead,
                # with its lower bound over the lobes it found (near_tie_point)
                near, lower = eng.near_tie_point(phi_of(t), phi_of(tau), target)
                if near is not None or lower > target:
                    upper = arb(1) if near is None else near
                    r = ShiftResult(lower.min(upper), upper, None, 0, 0, 0)
                    from_tie.add(t)
            if r is None:
                r = eng.value_at(phi_of(t))
            points[t] = r
            if r.lower > best_lower:
                best_lower = r.lower
                best_arg = float(t)
        return points[t]

    # tied shifts at the ends of the range with an exact tie (MG: phi = Delta); balls near them get
    # TiedEndMixin.near_tie_bound first (a choice only: it is valid wherever it applies)
    taus = [t for t in (Fraction(0), Fraction(1)) if eng.has_exact_tie(phi_of(t))]
    sigma_t = Fraction(float(eng.mix.sigma.mid())) / Fraction(float(delta_max.mid()))
    narrow, tie_reach = Fraction(settings.tied_end_width) * sigma_t, Fraction(settings.tied_end_reach) * sigma_t
    # point values next to a tie from the near-tie bound where D has thin lobes there (a choice only)
    tie_points = target is not None and bool(taus) and thin_lobes_likely(
        float(eng.mix.sigma.mid()), float(delta_max.mid()), float(eng.eps.mid()))

    def tied_neighbour(t: Fraction) -> Fraction | None:
        """A tied shift within reach of ``t`` (not ``t`` itself), or None."""
        for tau in taus:
            if 0 < abs(t - tau) <= tie_reach:
                return tau
        return None

    def near_tie(ta: Fraction, tb: Fraction) -> Fraction | None:
        """A tied shift within reach of the narrow ball [ta, tb], on one side of it and at most 4
        widths away, or None (farther off, the peak of H may be there, where the bound fails at a
        cost: MG K = 1 at eps 50)."""
        w = tb - ta
        if w > narrow:
            return None
        for t in taus:
            gap = t - tb if t >= tb else (ta - t if t <= ta else None)
            if gap is not None and gap <= 4 * w and gap + w <= tie_reach:
                return t
        return None

    def cheap_lower(t: Fraction) -> arb | None:
        """The float-run lower bound of H(t) (ShiftEngine.lower_bound_at), kept as best_lower if
        larger; None once best_lower exceeds the target (a NO decision)."""
        nonlocal best_lower, best_arg
        cheap = eng.lower_bound_at(phi_of(t))
        if cheap > best_lower:
            best_lower, best_arg = cheap, float(t)
        return None if best_lower > target else cheap

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
        if {ta, tb} <= from_tie | set(taus) and {ta, tb} & from_tie and end_a.max(end_b) < goal:
            # both ends valued by the near-tie bound (value_at was too slow there): so is the ball,
            # or it is split (the models below need the sign structure of value_at)
            tau = tied_neighbour(ta) if ta not in taus else tied_neighbour(tb)
            near = eng.near_tie_bound(phi_of(ta), phi_of(tb), phi_of(tau), goal)
            if near is not None and near <= goal:
                return near, False
            return end_a.max(end_b) + shift_tv_bound(phi_of(tb) - phi_of(ta), eng.mix.sigma), False
        tau = near_tie(ta, tb)
        if tau is not None and 16 * end_a.max(end_b) < goal:
            # next to a tied shift the pairs' first-order sum decides (TiedEndMixin): the bounds
            # below bound its terms separately and split such a ball at every level. (Not where an
            # end is near the goal: there the peak of H is, and the bound costs without settling.)
            near = eng.near_tie_bound(phi_of(ta), phi_of(tb), phi_of(tau), goal)
            if near is not None and near <= goal:
                return near, False
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
                if chord <= goal or (settings.chord_split and not inside and top + (chord - top) / 4 < goal):
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
        # model grid: settings.grid_half sub-balls on each side of the centre, exact dyadic shifts
        steps = [ta + (tm - ta) * Fraction(i, settings.grid_half) for i in range(settings.grid_half)] + \
            [tm + (tb - tm) * Fraction(i, settings.grid_half) for i in range(settings.grid_half + 1)]
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
        from_ends = ex.piecewise_sup({0: end_a, 2 * settings.grid_half: end_b}, goal)
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
            piecewise = ex.piecewise_sup({0: end_a, settings.grid_half: centre, 2 * settings.grid_half: end_b}, goal)
            if piecewise is not None:
                up = up.min(piecewise)
        return up.min(alt).upper(), False

    # float hints (e.g. a float argmax) are evaluated first, at nearby dyadic shifts: a certified
    # lower bound there often decides NO (above the target) at once; they never affect the upper bound
    if target is not None:
        # next to a tied shift, H can exceed the target in a thin layer (MG at eps 50: h < ~5e-4
        # sigma just below the calibration boundary) that the float hints miss: the float-run lower
        # bound at a few shifts tau -+ sigma 2^-k (0.02 s each) decides NO there at once
        probes = [(tau, tau - Fraction(round(float(sigma_t) * 2.0 ** (24 - k)), 2 ** 24) * (1 if tau > 0 else -1))
                  for tau in taus for k in settings.tied_probe_levels]
        probes = [(tau, t) for tau, t in probes if 0 < t < 1]
        for _, t in probes:
            if cheap_lower(t) is None:
                return best_lower, arb(1), best_arg, 0, len(points), Decision.NO
        # the float runs miss the thin lobes of D next to a tie (MG at eps 1); the near-tie bound's
        # pieces do not (0.2 s each): its point values there, kept for the search below
        for _, t in probes if tie_points else ():
            point(t, target)
            if best_lower > target:
                return best_lower, arb(1), best_arg, 0, len(points), Decision.NO
    for t in centres:
        if target is not None and t not in points:
            # a NO decision needs only H > target: the float-run lower bound first (no sign
            # structure, ShiftEngine.lower_bound_at), the certified point value if it falls short
            cheap = cheap_lower(t)
            if cheap is None:
                return best_lower, arb(1), best_arg, 0, len(points), Decision.NO
            if 0 < cheap < target / 1024:
                # far below the target (the point value's lower end agrees with this bound to
                # ~1e-9 where the float runs are right): no NO decision here; the branch and bound
                # computes the point value if it needs it (2.7 s at MG K = 50, eps 1, phi ~0.994)
                continue
        point(t)
        if target is not None and best_lower > target:
            # decided before any search: the only upper bound known is the trivial H <= 1
            return best_lower, arb(1), best_arg, 0, len(points), Decision.NO
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
    decided = Decision.UNKNOWN
    n_intervals = len(start)
    while True:
        check_deadline("the mixture engine's branch and bound")
        neg_up, _, ta, tb, up, fin = heap[0]
        global_upper = up  # heap top has the largest upper bound
        if target is not None:
            if global_upper <= target:
                decided = Decision.YES
                break
            if best_lower > target:
                decided = Decision.NO
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
    ``target`` it stops as soon as ``upper <= target`` (decided ``Decision.YES``: the mechanism is
    (eps, target)-DP) or ``lower > target`` (``Decision.NO``: it is not), so a calibration decision
    costs only the evaluations it needs. ``lower``/``upper`` are certified in every case; when
    the search runs out of ``max_intervals`` they are still valid, only wider. ``hints`` are float
    shifts (e.g. a float argmax) evaluated first; they speed up a NO decision and the first
    intervals are laid out around them, ``Delta / 16`` wide or, with ``peak_scale`` (a float
    distance over which ``H`` halves next to the hint), about ``peak_scale / 1.5``. Floats only
    choose cut points: the bounds hold whatever they are.
    """
    scale = delta_scale if delta_scale is not None else (float(target) if target is not None else 1e-6)
    lowers, uppers, args = [], [], []
    n_int = n_pts = 0
    decisions: list[Decision] = []
    mixes = [mix] if symmetric else [mix, mix.mirrored()]
    for m in mixes:
        eng = ShiftEngine(m, epsilon, scale, rel_tol)
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
        if dec is Decision.NO:
            break
    lower = lowers[0]
    upper = uppers[0]
    for lo in lowers[1:]:
        lower = lower.max(lo)
    for up in uppers[1:]:
        upper = upper.max(up)
    if Decision.NO in decisions:
        decided = Decision.NO
    elif len(decisions) == len(mixes) and all(d is Decision.YES for d in decisions):
        decided = Decision.YES
    else:
        decided = Decision.UNKNOWN
    i = max(range(len(lowers)), key=lambda k: float(lowers[k]))
    return SupResult(lower, upper, args[i] * (1 if i == 0 else -1), n_int, n_pts, decided)
