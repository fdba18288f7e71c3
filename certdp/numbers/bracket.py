"""Certified monotone bracket: the root-finding workhorse of every calibration.

Problem. A mechanism family indexed by a scale parameter ``t`` (sigma, a
scale b, a rate beta) has a privacy profile ``delta(t)`` at fixed epsilon that
is monotone in ``t``. Given a target ``delta`` we want the boundary
``t* = inf{t : delta(t) <= delta}`` (or ``sup`` when delta increases in t).

Guarantee. :func:`certified_monotone_bracket` returns decimals ``lo < hi``
such that, *proven* by Arb enclosures,

* the safe end (``hi`` when the profile decreases in ``t``, ``lo`` when it
  increases) satisfies ``delta(safe) <= delta``: the mechanism is private there;
* the other end satisfies ``delta(unsafe) > delta``: it is not.

Monotonicity (a property of the mechanism, stated in its docstring) then
places the exact optimum between them, so the bracket is both safe and tight.

Method ("fast, then certain"). Start from a float64 ``candidate`` if one is
given; step outward from it by relative amounts ``rtol/2`` (safe side) or ``rtol/4`` (other
side), then ``rtol, 1e-11, ...``
until each side is certified, then bisect with Arb until the relative width is
``<= rtol``. Every decision escalates the working precision along
``PRECISION_LADDER``; a point that stays undecided at 4096 bits is never used
as an endpoint. Without a candidate (floats failed), an exponential search
from ``t = 1`` finds a bracket, then bisection in log space narrows it.
A probe whose evaluation raises :class:`UndecidedError` (an engine refusing a
parameter far from the boundary) counts as undecided and the search goes on;
only if no bracket is found is the calibration UNDECIDED, with that reason.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Callable

from flint import arb, ctx, fmpq

from certdp.numbers.balls import _pow10, arb_of, round_fraction, round_ratio, round_ratio_digits
from certdp.numbers.compare import Decision, certify_le
from certdp.numbers.deadline import ResourceExhausted, check_deadline
from certdp.numbers.enclosure import Enclosure
from certdp.numbers.exact import UndecidedError, decimal_text, exact_str, fraction_of_float_repr
from certdp.numbers.precision import PRECISION_LADDER, decide_on_ladder, working_precision

__all__ = ["Bracket", "certified_monotone_bracket", "classify_point", "bracket_reached", "decision_threshold",
           "name_reached_parameter", "describe_reached",
           "MAX_FAILED_PROBES_IN_A_ROW"]

_REACHED: ContextVar = ContextVar("certdp_bracket_reached", default=None)

#: The ``delta`` a :func:`classify_point` evaluation is being compared with, while its profile runs.
_DECISION_THRESHOLD: ContextVar = ContextVar("certdp_decision_threshold", default=None)


def decision_threshold() -> Fraction | None:
    """The target ``delta`` of the :func:`classify_point` whose profile evaluation is running, else None.

    A profile may use it to stop refining once its enclosure is entirely on one side of it (the ball is
    still a valid enclosure; it is only wider than asked).  Only a profile called *directly* by the
    bracket may read it: a profile that combines several evaluations (a composition) must not pass it on
    to them, since each part is then compared with nothing."""
    return _DECISION_THRESHOLD.get()


@contextmanager
def bracket_reached(record: dict):
    """Within the block, every :func:`certified_monotone_bracket` keeps ``record`` up to date with the
    best points it has *certified* so far: ``record["safe"] = (t, enclosure)`` (proven
    ``delta(t) <= delta``), ``record["unsafe"] = (t, enclosure)`` (proven ``delta(t) > delta``), and
    ``record["increasing"]``.  Each entry is a statement about that one exact point, valid on its own
    (no monotonicity needed), so a caller interrupted by a budget can still report it; the CLI does.
    With nested brackets (an outer search whose profile runs inner calibrations) only the outermost
    one writes: inner brackets answer a different question."""
    token = _REACHED.set(record)
    try:
        yield
    finally:
        _REACHED.reset(token)


def name_reached_parameter(name: str) -> None:
    """Tell an active :func:`bracket_reached` record what the bracketed parameter is called."""
    record = _REACHED.get()
    if record is not None:
        record["parameter"] = name

#: The exponential search stops on a side after this many consecutive probes whose evaluation raised
#: :class:`UndecidedError` (it is walking away into a range the profile cannot evaluate).
MAX_FAILED_PROBES_IN_A_ROW = 6
BISECTIONS_AFTER_FAILED_SECANTS = 6  # bisections after two failed secant steps in a row, before the secant again (_narrowed_bracket)

#: ``t -> enclosure of delta(t)``: one ball, or a pair ``(lower, upper)`` of balls meaning
#: ``lower.lower() <= delta(t) <= upper.upper()``. The pair form keeps a lower end that is exact
#: even when the upper end is far away (e.g. ``[4.95e-7, 1]``: a single Arb ball with a 30-bit
#: radius would blur its lower end by ~1e-9 and hide a decision that needs 1e-13).
#: A triple ``(lower, upper, True)`` also states that a higher precision will not decide the
#: comparison (e.g. a gap between a continuum bound and a grid condition): no escalation then.
Profile = Callable[[arb], "arb | tuple[arb, arb] | tuple[arb, arb, bool]"]


@dataclass(frozen=True)
class Bracket:
    """A certified bracket ``lo < hi`` around the calibration boundary.

    ``lo`` and ``hi`` are canonical decimals: ``Decimal(exact_str(end))`` of the exact end.
    ``safe`` is the end proven private; ``delta_at_safe`` / ``delta_at_unsafe``
    are the certified enclosures of the profile at the two ends.
    ``relative_width = (hi - lo) / safe``; ``notes`` records anything a user
    should know (e.g. bisection stopped early because the boundary could not
    be resolved at 4096 bits).
    """

    lo: Decimal
    hi: Decimal
    increasing: bool
    delta_at_safe: Enclosure
    delta_at_unsafe: Enclosure
    precision_bits: int
    evaluations: int
    notes: tuple[str, ...] = field(default=())

    @property
    def safe(self) -> Decimal:
        return self.lo if self.increasing else self.hi

    @property
    def unsafe(self) -> Decimal:
        return self.hi if self.increasing else self.lo

    @property
    def relative_width(self) -> Fraction:
        return (Fraction(self.hi) - Fraction(self.lo)) / Fraction(self.safe)


class _Search:
    """The profile, target and ladder of one bracket search, with its evaluation counters."""

    __slots__ = ("profile", "delta", "increasing", "ladder", "evaluations", "max_bits")

    def __init__(self, profile: Profile, delta: Fraction, increasing: bool, ladder: tuple[int, ...]):
        self.profile, self.delta, self.increasing, self.ladder = profile, delta, increasing, ladder
        self.evaluations = 0
        self.max_bits = 0

    def classify(self, t: Decimal) -> tuple[Decision, Enclosure | None]:
        """YES if delta(t) <= delta is proven, NO if delta(t) > delta is proven, else UNKNOWN."""
        return classify_point(self.profile, t, self.delta, self.ladder, self)


def classify_point(
    profile: Profile,
    t: Decimal | Fraction,
    delta: Fraction,
    ladder: tuple[int, ...] = PRECISION_LADDER,
    counter: object | None = None,
) -> tuple[Decision, Enclosure | None]:
    """Decide ``profile(t) <= delta`` with precision escalation.

    Returns the decision and the enclosure of ``profile(t)`` that decided it
    (``None`` if every rung gave a non-finite ball). The ladder loop is
    :func:`certdp.numbers.precision.decide_on_ladder`; ``profile`` may return a
    ball, a ``(low, high)`` pair or a ``(low, high, settled)`` triple.
    """
    point = t if type(t) is Fraction else Fraction(t)
    num, den = point.numerator, point.denominator

    def ball_at():
        token = _DECISION_THRESHOLD.set(delta)
        try:
            value = profile(arb(num) if den == 1 else arb(fmpq(num, den)))  # arb_of(point)
        finally:
            _DECISION_THRESHOLD.reset(token)
        if counter is not None:
            counter.evaluations += 1  # type: ignore[attr-defined]
            if ctx.prec > counter.max_bits:  # type: ignore[attr-defined]
                counter.max_bits = ctx.prec  # type: ignore[attr-defined]
        return value

    decision, enclosure, _ = decide_on_ladder(ball_at, delta, ladder)
    return decision, enclosure


def _digits_for(rtol: Fraction) -> int:
    """Significant digits for bracket points: enough that rounding moves a point by < rtol/8."""
    target = rtol / 8
    digits = 1 + max(0, len(str(target.denominator // max(target.numerator, 1))))
    return min(max(digits, 6), 17)


@lru_cache(maxsize=64)
def _walk_for(rtol_num: int, rtol_den: int,
              safe_dir: int) -> tuple[int, tuple[tuple[int, str, tuple[tuple[int, int], ...]], ...]]:
    """Per-rtol constants of the walk from the candidate (cached on the exact rtol): the digits of
    :func:`_digits_for` and, for each side (the safe one first), its sign, rounding direction and
    the factors ``1 + sign * step`` (as integer pairs ``(numerator, denominator)``) for the steps
    ``first, rtol, 1e-11, ...`` (coarse steps above rtol only). The first step is ``rtol/2`` on the safe side and ``rtol/4`` on the other: with the
    < rtol/8 rounding of each point the bracket is still <= rtol wide; "private" is usually the
    costlier decision (a sup over all neighbours), and its margin grows with the distance from the
    boundary."""
    rtol = Fraction(rtol_num, rtol_den)
    coarse = [rtol] + [c for c in _COARSE_STEPS if c > rtol]
    first_step = {safe_dir: rtol / 2, -safe_dir: rtol / 4}
    sides = tuple(
        (sign, "up" if sign > 0 else "down",
         tuple((f.numerator, f.denominator) for f in (1 + sign * step for step in [first_step[sign]] + coarse)))
        for sign in (safe_dir, -safe_dir)
    )
    return _digits_for(rtol), sides


def _width_within(a: Fraction, b: Fraction, safe: Fraction, rtol: Fraction) -> bool:
    """``(b - a) / safe <= rtol`` for positive ``safe``, exactly, by integer cross-multiplication."""
    an, ad, bn, bd = a.numerator, a.denominator, b.numerator, b.denominator
    return (bn * ad - an * bd) * safe.denominator * rtol.denominator <= rtol.numerator * safe.numerator * ad * bd


def describe_reached(reached: dict) -> tuple[str, dict] | None:
    """The certified points of an interrupted calibration bracket, as text and as JSON data.

    Each point is a proven statement on its own: delta at that exact parameter lies in the printed
    enclosure (so a *safe* point is a certified-private parameter, just not the tight one)."""
    if not reached.get("safe") and not reached.get("unsafe"):
        return None
    parts, data = [], {}
    name = reached.get("parameter", "parameter")
    for key, word in (("safe", "private"), ("unsafe", "NOT private")):
        point = reached.get(key)
        if point is None:
            continue
        t, enc = point
        bounds = enc.strings() if enc is not None else None
        where = f", delta in [{bounds[0]}, {bounds[1]}]" if bounds else ""
        parts.append(f"{name} = {exact_str(t)} is {word}{where}")
        data[key] = {name: exact_str(t), "delta_enclosure": bounds}
    if reached.get("safe") and reached.get("unsafe"):
        lo, hi = sorted((reached["safe"][0], reached["unsafe"][0]))
        data["relative_width"] = f"{float((hi - lo) / reached['safe'][0]):.3g}"
        parts.append(f"bracket relative width {data['relative_width']}")
    return "; ".join(parts), data


def certified_monotone_bracket(
    profile: Profile,
    delta: Fraction,
    *,
    increasing: bool,
    candidate: float | Fraction | Decimal | None = None,
    rtol: Fraction | float = Fraction(1, 10**12),
    ladder: tuple[int, ...] = PRECISION_LADDER,
    max_doublings: int = 4096,
    first_steps_at_first_rung: bool = False,
) -> Bracket:
    """Certified bracket of the calibration boundary of a monotone privacy profile.

    ``profile(t)`` must return an enclosure of delta(t) for every point of the
    ball ``t`` at the current working precision; ``t`` ranges over ``(0, inf)``.
    ``increasing`` says whether delta(t) increases with t. See the module
    docstring for the guarantee. Raises :class:`UndecidedError` if no point on
    one side can be certified.

    ``first_steps_at_first_rung`` (for cheap closed-form profiles): first evaluate the walk's first
    point on each side once at ``ladder[0]`` with none of the general bookkeeping; when those two
    points close the bracket (the usual case with an accurate candidate) it is returned at once,
    and otherwise the decided points are handed to the general search, which would have probed
    them first and decided them the same way. The result is the same bracket either way (same
    points, enclosures, ``evaluations`` and ``precision_bits``); only a point left undecided at
    the first rung is evaluated there twice, which is why expensive profiles leave this off.
    """
    if type(rtol) is not Fraction:
        rtol = Fraction(rtol) if not isinstance(rtol, float) else Fraction(repr(rtol))
    if not 0 < rtol.numerator < rtol.denominator:
        raise ValueError("rtol must lie in (0, 1)")
    if type(delta) is not Fraction:
        delta = Fraction(delta)
    reached = _REACHED.get()
    if reached is None:
        return _narrowed_bracket(profile, delta, increasing, candidate, rtol, ladder, max_doublings, None,
                                 first_steps_at_first_rung)
    reached.pop("safe", None)
    reached.pop("unsafe", None)
    reached["increasing"] = increasing
    token = _REACHED.set(None)  # inner brackets (inside the profile) must not overwrite it
    try:
        return _narrowed_bracket(profile, delta, increasing, candidate, rtol, ladder, max_doublings, reached,
                                 first_steps_at_first_rung)
    finally:
        _REACHED.reset(token)


def _narrowed_bracket(profile: Profile, delta: Fraction, increasing: bool, candidate, rtol: Fraction,
                      ladder: tuple[int, ...], max_doublings: int, reached: dict | None,
                      first_steps_at_first_rung: bool) -> Bracket:
    """The walk and the narrowing of :func:`certified_monotone_bracket` (``reached``: its record)."""
    safe_dir = -1 if increasing else 1  # direction of t in which delta decreases
    digits, sides = _walk_for(rtol.numerator, rtol.denominator, safe_dir)
    decided_first: dict[tuple[int, int], tuple[Decision, Enclosure]] = {}
    if first_steps_at_first_rung:
        ratio = _candidate_ratio(candidate)
        if ratio is not None:
            quick = _first_steps_at_first_rung(profile, delta, ratio, sides, digits, ladder[0], rtol, reached)
            if isinstance(quick, Bracket):
                return quick
            decided_first = quick
    search = _Search(profile, delta, increasing, ladder)
    safe_pt: tuple[Fraction, Enclosure] | None = None
    unsafe_pt: tuple[Fraction, Enclosure] | None = None

    def record(t: Fraction, decision: Decision, enc: Enclosure | None) -> None:
        nonlocal safe_pt, unsafe_pt
        if decision is Decision.YES:
            if safe_pt is None or (t - safe_pt[0]) * safe_dir < 0:
                safe_pt = (t, enc)  # type: ignore[assignment]
                if reached is not None:
                    reached["safe"] = safe_pt
        elif decision is Decision.NO:
            if unsafe_pt is None or (t - unsafe_pt[0]) * safe_dir > 0:
                unsafe_pt = (t, enc)  # type: ignore[assignment]
                if reached is not None:
                    reached["unsafe"] = unsafe_pt

    # probed points by (numerator, denominator): hashing a Fraction costs a modular inverse
    seen: dict[tuple[int, int], tuple[Fraction, Decision, Enclosure | None]] = {}
    center = _as_fraction(candidate)
    failures: list[str] = []   # reasons of probes whose evaluation raised UndecidedError

    def probe_point(point: Fraction) -> Decision:
        if point.numerator <= 0:
            return Decision.UNKNOWN
        key = (point.numerator, point.denominator)
        hit = seen.get(key)
        if hit is not None:  # a decided point is never evaluated twice (each may cost seconds)
            return hit[1]
        first = decided_first.pop(key, None) if decided_first else None
        if first is not None:  # decided at the first rung by the shortcut: the same result classify gives
            decision, enc = first
            search.evaluations += 1
            search.max_bits = max(search.max_bits, ladder[0])
        else:
            check_deadline("a calibration probe")
            try:
                decision, enc = search.classify(point)
            except ResourceExhausted:
                raise   # a budget or work limit ran out: the whole calibration stops, nothing is claimed
            except UndecidedError as exc:
                # one point the profile cannot evaluate (e.g. outside an engine's range, typically far
                # from the boundary, met by the exponential search): UNKNOWN there, the search goes on;
                # the reason is reported if no bracket is found
                failures.append(str(exc))
                decision, enc = Decision.UNKNOWN, None
        seen[key] = (point, decision, enc)
        record(point, decision, enc)
        return decision

    def probe(t: Fraction, direction: str) -> Decision:
        return probe_point(round_fraction(t, digits, direction))

    if center is not None and center.numerator > 0:
        # Walk outward on both sides of the float candidate: center * factor, rounded outward.  Once
        # two points of the side already found are certified, their enclosures extrapolate log delta
        # to the boundary (a float guess, like the candidate): the next probe goes just past that
        # guess instead of the next fixed step (a candidate 0.3 % off otherwise costs the steps rtol,
        # 1e-5, 1e-3, 1e-1 and a long narrowing).
        num, den = center.numerator, center.denominator
        for sign, direction, factors in sides:
            i, jumps = 0, 0
            found = Decision.NO if sign == safe_dir else Decision.YES
            while i < len(factors):
                if (sign == safe_dir and safe_pt is not None) or (sign != safe_dir and unsafe_pt is not None):
                    break
                guess = None
                if jumps < 6 and len(seen) >= 2:
                    side_pts = [(q, e) for q, d, e in seen.values() if d is found and e is not None]
                    guess = _extrapolated_guess(side_pts, Fraction(delta), sign, found is Decision.YES)
                    last = max((q * sign for q, _ in side_pts), default=None)
                    if not (guess is not None and last is not None and guess * sign > last
                            and (guess - center) * sign < center / 2):
                        guess = None
                if guess is not None:
                    jumps += 1
                    probe(guess * (1 + sign * rtol / 2), direction)
                else:
                    factor_num, factor_den = factors[i]
                    i += 1
                    point = round_ratio(num * factor_num, den * factor_den, digits, direction)
                    if jumps and any((q - point) * sign >= 0 for q, d, _ in seen.values() if d is found):
                        # a jump already decided a point beyond this step the same way (monotone
                        # profile): this step would be decided so too (sgg T=2 alpha=1/2 p=8 at (10, 0.5)
                        # probed the walk's 1e-5 step after a jump past it)
                        continue
                    probe_point(point)
    # Exponential search for whichever side is still missing (floats failed or were far off).
    start = center if center is not None and center.numerator > 0 else Fraction(1)
    searches = () if safe_pt is not None and unsafe_pt is not None else (
        (safe_dir, lambda: safe_pt is None), (-safe_dir, lambda: unsafe_pt is None))
    for sign, missing in searches:
        if not missing():
            continue
        factor = Fraction(2)
        t = start
        doublings = 0
        raised_in_a_row = 0
        found = Decision.NO if sign == safe_dir else Decision.YES   # the side already certified
        while missing() and doublings < max_doublings and raised_in_a_row < MAX_FAILED_PROBES_IN_A_ROW:
            t = t * factor if sign > 0 else t / factor
            side_pts = [(q, e) for q, d, e in seen.values() if d is found and e is not None]
            jump = _power_law_guess(side_pts, Fraction(delta), sign, found is Decision.YES)
            if jump is not None and (jump - t) * sign > 0:
                t = jump   # a power law through the two nearest certified points lies beyond the next step
            n_failed = len(failures)
            probe(t, "up" if sign > 0 else "down")
            raised_in_a_row = raised_in_a_row + 1 if len(failures) > n_failed else 0
            doublings += 1
            if doublings % 8 == 0:
                factor = factor * factor  # accelerate towards extreme exponents
    why = f"; last undecided probe: {failures[-1]}" if failures else ""
    if safe_pt is None:
        raise UndecidedError("could not certify any private parameter value (profile never <= delta)" + why)
    if unsafe_pt is None:
        raise UndecidedError("could not certify any non-private parameter value (profile never > delta)" + why)

    notes: list[str] = []
    # Narrowing: secant steps on log delta while they shrink the bracket fourfold (one probe at the
    # interpolated boundary; two straddling it once the bracket is within 8 rtol), else a bisection
    # step (geometric while the ratio is large), after which the secant is tried again.  An end that
    # consecutive secant steps leave in place has its residual halved from the second time on (the
    # Illinois step: regula falsi on a convex profile otherwise converges linearly from one side).
    use_secant = True
    kept_safe = kept_unsafe = 0   # secant steps in a row that left that end in place (Illinois)
    # secant steps that failed (neither a fourfold shrink nor converging), each followed by a
    # bisection: after two in a row the profile is not log-linear at this scale (a cliff, e.g. MG's
    # tangency at the tied shift, where every secant guess lands next to the private end and
    # moves it by a few per cent) and the next BISECTIONS_AFTER_FAILED_SECANTS steps bisect; then
    # the secant is tried again (bisection alone to the end made a smooth SGG profile whose secant
    # failed twice early 3x slower: T=2 alpha=-9/10 p=8 at (0.01, 1e-12), 15.6 s -> 45.8 s; 14.8 s with 6)
    secant_failures = bisect_streak = 0
    while True:
        a, b = _ordered(safe_pt[0], unsafe_pt[0])
        safe_value = safe_pt[0]
        if _width_within(a, b, safe_value, rtol):
            break
        if (b - a) / safe_value <= Fraction(7, 4) * rtol:   # halves <= 7/8 rtol, rounding < rtol/8
            # one midpoint closes a bracket this narrow whichever way it is decided (the secant's
            # two straddling probes would cost one evaluation more)
            if probe((a + b) / 2, "up") is not Decision.UNKNOWN:
                continue
        if use_secant:
            safe_before, unsafe_before = safe_pt[0], unsafe_pt[0]
            guess = _secant_guess(safe_pt, unsafe_pt, Fraction(delta),
                                  (0.5 ** max(0, kept_safe - 1), 0.5 ** max(0, kept_unsafe - 1)))
            err_before = _log_miss(safe_pt, unsafe_pt, Fraction(delta))
            use_secant = False
            if guess is not None and a < guess < b:
                half = rtol * guess / 3
                # straddle the guess once the bracket is within 8 rtol, and also when the guess sits
                # within rtol of an end: a one-sided secant (regula falsi) keeps returning the same
                # rounded point next to the end it came from, and only the other side moves the bracket
                if (b - a) / safe_value <= 8 * rtol or min(guess - a, b - guess) < 3 * half:
                    for point, direction in ((guess - safe_dir * half, "down" if safe_dir > 0 else "up"),
                                             (guess + safe_dir * half, "up" if safe_dir > 0 else "down")):
                        now_a, now_b = _ordered(safe_pt[0], unsafe_pt[0])   # the first may decide the second
                        if now_a < point < now_b:
                            probe(point, direction)
                else:
                    probe(guess, "up")
                moved_safe, moved_unsafe = safe_pt[0] != safe_before, unsafe_pt[0] != unsafe_before
                kept_safe = kept_safe + 1 if moved_unsafe and not moved_safe else 0
                kept_unsafe = kept_unsafe + 1 if moved_safe and not moved_unsafe else 0
                new_a, new_b = sorted((safe_pt[0], unsafe_pt[0]))
                use_secant = (new_b - new_a) < (b - a) / 4 or _secant_converging(
                    err_before, safe_pt, unsafe_pt, Fraction(delta))
                secant_failures = 0 if use_secant else secant_failures + 1
                continue
        if b / a > 4:
            mid = _geometric_mean(a, b)
        else:
            mid = (a + b) / 2
        # If the midpoint is undecidable (it sits on the boundary itself), try off-centre points.
        decision = Decision.UNKNOWN
        tried: list[Fraction] = []
        for offset in (Fraction(0), Fraction(1, 8), Fraction(-1, 8), Fraction(1, 3), Fraction(-1, 3)):
            point = mid + offset * (b - a)
            point_dec = round_fraction(point, digits, "up")
            if not a < point_dec < b:
                point_dec = round_fraction(point, digits, "down")
            if not a < point_dec < b or point_dec in tried:
                continue
            tried.append(point_dec)
            decision = probe(point_dec, "up")
            if decision is not Decision.UNKNOWN:
                break
        if not tried:
            notes.append("bisection reached the decimal resolution before the requested width")
            break
        if decision is Decision.UNKNOWN:
            notes.append(
                "bisection stopped: the profile near {} could not be compared with delta (at up to {} bits, "
                "or the profile reported that precision does not help)".format(_fmt(tried[0]), ladder[-1])
            )
            break
        if secant_failures >= 2:
            secant_failures, bisect_streak = 0, BISECTIONS_AFTER_FAILED_SECANTS
        use_secant = bisect_streak == 0
        bisect_streak = max(0, bisect_streak - 1)
        kept_safe = kept_unsafe = 0

    lo, hi = _ordered(safe_pt[0], unsafe_pt[0])
    return Bracket(
        lo=_to_decimal(lo),
        hi=_to_decimal(hi),
        increasing=increasing,
        delta_at_safe=safe_pt[1],
        delta_at_unsafe=unsafe_pt[1],
        precision_bits=search.max_bits,
        evaluations=search.evaluations,
        notes=tuple(notes),
    )


def _candidate_ratio(candidate: float | Fraction | Decimal | None) -> tuple[int, int] | None:
    """``(numerator, denominator)``, both positive and not necessarily reduced, of the exact
    rational :func:`_as_fraction` makes of ``candidate`` (a float through its shortest repr), or
    None when there is no positive candidate."""
    if type(candidate) is float:
        if not (candidate > 0 and candidate < float("inf")):
            return None
        mantissa, _, exponent = repr(candidate).partition("e")
        whole, _, decimals = mantissa.partition(".")
        n = int(whole + decimals)
        e = (int(exponent) if exponent else 0) - len(decimals)
        return (n * _pow10(e), 1) if e >= 0 else (n, _pow10(-e))
    center = _as_fraction(candidate)
    if center is None or center.numerator <= 0:
        return None
    return center.numerator, center.denominator


def _first_steps_at_first_rung(profile: Profile, delta: Fraction, center: tuple[int, int], sides: tuple, digits: int,
                               bits: int, rtol: Fraction, reached: dict | None = None,
                               ) -> "Bracket | dict[tuple[int, int], tuple[Decision, Enclosure]]":
    """The walk's first point on the safe side, then (if that one is private) on the other side,
    each decided at ``bits`` exactly as :func:`classify_point` decides at its first rung: the same
    point (``center`` times the first factor, rounded outward to ``digits`` digits), the same ball
    of it, the same comparison with the same ball of ``delta``, the same :class:`Enclosure`.

    ``center`` is the candidate as ``(numerator, denominator)``. Returns the :class:`Bracket` when the safe point is proven private, the other proven not and
    the two are within ``rtol`` -- what the general search returns after these two probes --, else
    the decided points keyed by ``(numerator, denominator)``.
    """
    num, den = center
    tn, td = delta.numerator, delta.denominator
    found: list[tuple[int, int, int, int, Decision, Enclosure]] = []
    saved = ctx.prec
    ctx.prec = bits
    try:
        target = arb(tn) if td == 1 else arb(fmpq(tn, td))
        for (_, direction, factors), wanted in zip(sides, (Decision.YES, Decision.NO)):
            factor_num, factor_den = factors[0]
            n, shift = round_ratio_digits(num * factor_num, den * factor_den, digits, direction)
            pn, pd = (n, _pow10(shift)) if shift > 0 else (n * _pow10(-shift), 1)
            check_deadline("a calibration probe")
            # the ball classify_point makes of the reduced point: arb(int) for an integer, else of the fmpq
            value = profile(arb(fmpq(pn, pd)) if pn % pd else arb(pn // pd))
            if isinstance(value, tuple):
                low, high = value[0], value[1]
                if not (low.is_finite() and high.is_finite()):
                    break
            else:
                low = high = value
                if not value.is_finite():
                    break
            if low is high:
                decision = certify_le(low, target)
                enc = Enclosure.from_arb(low, bits)
            else:
                decision = Decision.YES if high <= target else Decision.NO if low > target else Decision.UNKNOWN
                enc = Enclosure.from_bounds(low, high, bits)
            if decision is Decision.UNKNOWN:
                break
            found.append((n, shift, pn, pd, decision, enc))
            if reached is not None:  # what the general search's record() writes: the safe side's point
                # first, then the other side's, each the best of its kind so far (nearer the boundary)
                reached["safe" if decision is Decision.YES else "unsafe"] = (Fraction(pn, pd), enc)
            if decision is not wanted:
                break
    finally:
        ctx.prec = saved
    if len(found) == 2 and found[0][4] is Decision.YES and found[1][4] is Decision.NO:
        (sn, ss, spn, spd, _, safe_enc), (un, us, upn, upd, _, unsafe_enc) = found
        # safe at a, unsafe at b: |b - a| / a <= rtol, by cross-multiplication (positive denominators)
        gap = abs(spn * upd - upn * spd)
        if gap * rtol.denominator <= rtol.numerator * spn * upd:
            low_pair, high_pair = ((un, us), (sn, ss)) if upn * spd < spn * upd else ((sn, ss), (un, us))
            bracket = object.__new__(Bracket)  # Bracket(...) without the frozen dataclass's per-field setattr
            bracket.__dict__.update(
                lo=Decimal(decimal_text(low_pair[0], -low_pair[1])),
                hi=Decimal(decimal_text(high_pair[0], -high_pair[1])),
                increasing=sides[0][0] < 0, delta_at_safe=safe_enc, delta_at_unsafe=unsafe_enc,
                precision_bits=bits, evaluations=2, notes=(),
            )
            return bracket
    out = {}
    for _, _, pn, pd, decision, enc in found:
        q = Fraction(pn, pd)
        out[(q.numerator, q.denominator)] = (decision, enc)
    return out


_COARSE_STEPS = tuple(Fraction(1, 10**k) for k in (11, 9, 7, 5, 3, 1))


def _secant_guess(safe_pt: tuple[Fraction, Enclosure], unsafe_pt: tuple[Fraction, Enclosure],
                  delta: Fraction, damping: tuple[float, float] = (1.0, 1.0)) -> Fraction | None:
    """Interpolate log delta linearly in t between the two certified points (float64; only a guess).

    Each point is represented by the end of its enclosure that decided it (the upper end at the
    safe point, the lower end at the unsafe one): a decision mode may stop with the other end far
    off (e.g. ``[0, x]`` or ``[x, 1]``), which would make a midpoint useless.  ``damping`` scales the
    residuals (distance to the target in the interpolated coordinate) of the safe and the unsafe end:
    the Illinois step of regula falsi, which halves the residual of an end the secant keeps leaving
    in place, so that the next guess lands on its other side."""
    try:
        (t0, e0), (t1, e1) = safe_pt, unsafe_pt
        m0 = e0.upper if e0.upper > 0 else (e0.lower + e0.upper) / 2
        m1 = e1.lower if e1.lower > 0 else (e1.lower + e1.upper) / 2
        # an enclosure narrower than a factor 2 (e.g. stopped early once decided, 2^-12 wide: see
        # :func:`decision_threshold`) is represented by its midpoint, the better estimate: its deciding
        # end is up to its whole width off, which at delta ~ 0.5 is as far as the target itself and made the
        # secant crawl (sgg T=5 alpha=-9/10 p=8 at (50, 0.5): 28 probes)
        m0, m1 = (_midpoint_if_narrow(e, m) for e, m in ((e0, m0), (e1, m1)))
        if m0 <= 0 or m1 <= 0 or m0 == m1:
            return None
        # a bracket wider than a factor 4 (left by the exponential search): power law in t
        wide = max(t0, t1) > 4 * min(t0, t1)
        return _log_delta_point(t0, m0, t1, m1, delta, lambda frac: 0.0 < frac < 1.0, log_t=wide,
                                damping=damping)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


def _midpoint_if_narrow(enc: Enclosure, end: Fraction) -> Fraction:
    """The midpoint of ``enc`` if ``0 < lower`` and ``upper < 2 lower``, else ``end`` (a guess only)."""
    if enc.lower > 0 and enc.upper < 2 * enc.lower:
        return (enc.lower + enc.upper) / 2
    return end


def _log_delta_point(t0: Fraction, m0: Fraction, t1: Fraction, m1: Fraction, delta: Fraction,
                     accept: Callable[[float], bool], log_t: bool = False,
                     damping: tuple[float, float] = (1.0, 1.0)) -> Fraction | None:
    """Where the line through ``(t0, ln m0)`` and ``(t1, ln m1)`` reaches ``ln delta`` (float64; a guess).

    Below ``delta = e^-69`` the line is drawn in ``ln(-ln delta)`` against ``ln t`` (nearly straight for
    Gaussian-like ``-ln delta ~ c t^-g``, where ``ln delta`` against ``t`` is curved enough that a
    one-sided secant crawled: 21 probes for one SGG p = 8 cell at 1e-100), except for a flat power law
    (log-log slope at most 1/2 between the two points, ``delta ~ c t^k`` with small ``k``: SGG alpha = -9/10,
    p = 8 has ``k = 1/80``), where ``ln(-ln delta)`` is curved and the secant converged linearly (a tenth of
    the remaining way per probe) while ``ln delta`` against ``ln t`` is straight.  ``frac`` is the position
    along the line (0 at ``t0``, 1 at ``t1``); None unless ``accept(frac)`` (interpolation or
    extrapolation).  ``log_t``: ``ln delta`` against ``ln t`` above ``e^-69`` too (a power law, for
    brackets spanning orders of magnitude).  ``damping``: factors on the residuals of the two points (see
    :func:`_secant_guess`).  Float errors propagate to the caller."""
    import math

    l0 = math.log(m0.numerator) - math.log(m0.denominator)
    l1 = math.log(m1.numerator) - math.log(m1.denominator)
    ld = math.log(delta.numerator) - math.log(delta.denominator)
    w0, w1 = damping
    if ld < _TINY_LOG_DELTA and l0 < 0 and l1 < 0:
        lt0 = math.log(t0.numerator) - math.log(t0.denominator)
        lt1 = math.log(t1.numerator) - math.log(t1.denominator)
        if not abs(l1 - l0) <= 0.5 * abs(lt1 - lt0):
            u0, u1, ud = math.log(-l0), math.log(-l1), math.log(-ld)
            f0, f1 = (u0 - ud) * w0, (u1 - ud) * w1
            frac = f0 / (f0 - f1)
            return t0 * _ratio_power(t1 / t0, frac) if accept(frac) else None
        log_t = True   # a flat power law: ln delta against ln t
    f0, f1 = (l0 - ld) * w0, (l1 - ld) * w1
    frac = f0 / (f0 - f1)
    if not accept(frac):
        return None
    return t0 * _ratio_power(t1 / t0, frac) if log_t else t0 + (t1 - t0) * Fraction(frac)


def _ratio_power(ratio: Fraction, frac: float) -> Fraction:
    """``ratio^frac`` as a rational guess, also for ratios beyond the double range (1e-4800)."""
    import math

    lr = math.log(ratio.numerator) - math.log(ratio.denominator)
    if abs(lr * frac) < 700.0:
        return Fraction(math.exp(lr * frac))
    if not abs(lr * frac) < _MAX_LOG_JUMP:
        # a line through two enclosures that only state an absolute floor (sgg T=128 alpha=127 p=1/2 at
        # (0.01, 1e-300): [+-9e-1235] at every probe, the ln(-ln delta) secant put frac at ~1e300) asked for
        # 10^(1e300): the rational guess never finished
        raise OverflowError("guess beyond e^(+-2^16) times the last point")
    return _fraction_of_log(lr * frac)


#: A float guess never moves ``t`` by more than this in ``ln t`` (a factor e^65536) from a certified point.
_MAX_LOG_JUMP = 2.0 ** 16


#: Below ``delta = e^-69 ~ 1e-30`` the secant interpolates ``ln(-ln delta)`` in ``ln t`` (a guess only).
_TINY_LOG_DELTA = -69.0


def _log_miss(safe_pt, unsafe_pt, delta: Fraction) -> float | None:
    """Tiny delta only: how far (in ``|ln delta(end) - ln delta|``, floats) the nearer bracket end is from
    the target; ``None`` otherwise."""
    import math

    try:
        ld = math.log(delta.numerator) - math.log(delta.denominator)
        if not ld < _TINY_LOG_DELTA:
            return None
        misses = []
        for (_, enc), use_upper in ((safe_pt, True), (unsafe_pt, False)):
            m = enc.upper if use_upper else enc.lower
            if m <= 0:
                return None
            misses.append(abs(math.log(m.numerator) - math.log(m.denominator) - ld))
        return min(misses)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


def _secant_converging(err_before: float | None, safe_pt, unsafe_pt, delta: Fraction) -> bool:
    """At tiny delta, keep the secant while each probe lands 4 times closer to the target (in log delta)
    even if it did not shrink the bracket fourfold (the far end stays where the walk left it)."""
    if err_before is None:
        return False
    err_after = _log_miss(safe_pt, unsafe_pt, delta)
    return err_after is not None and err_after < err_before / 4


def _extrapolated_guess(points: list[tuple[Fraction, Enclosure]], delta: Fraction, direction: int,
                        below: bool) -> Fraction | None:
    """Float guess of the boundary from the two points of one side nearest to it (log delta linear in t).

    ``below`` says the points have ``delta(t) <= delta`` (their upper ends are used), else ``> delta``
    (lower ends); ``direction`` is the sign of the step in t that moves delta towards the target.
    Only a place to probe next: nothing is decided by it."""
    import math

    pair = _nearest_two(points, direction, below)
    if pair is None:
        return None
    try:
        return _log_delta_point(*pair, delta, lambda frac: frac > 1.0 and math.isfinite(frac))
    except (ValueError, ZeroDivisionError, OverflowError, AttributeError):
        return None


def _nearest_two(points: list[tuple[Fraction, Enclosure]], direction: int,
                 below: bool) -> tuple[Fraction, Fraction, Fraction, Fraction] | None:
    """``(t0, m0, t1, m1)``: the two points of one side nearest to the boundary (``t1`` the nearer), each
    with the end of its enclosure facing the target (upper ends ``below`` it, else lower ends); ``None``
    if there are fewer than two or the line through them is undefined."""
    if len(points) < 2:
        return None
    (t0, e0), (t1, e1) = sorted(points, key=lambda pe: pe[0] * direction)[-2:]
    m0 = e0.upper if below else e0.lower
    m1 = e1.upper if below else e1.lower
    if m0 <= 0 or m1 <= 0 or m0 == m1 or t0 == t1:
        return None
    return t0, m0, t1, m1


def _power_law_guess(points: list[tuple[Fraction, Enclosure]], delta: Fraction, direction: int,
                     below: bool) -> Fraction | None:
    """Exponential search only: a point just past the boundary of a power law through the two points of
    one side nearest to it (``ln delta`` linear in ``ln t``), a guess.

    Profiles met there are power laws over many orders of ``t`` (SGG with ``alpha`` near -1 and large
    ``p``: ``delta ~ c beta^((alpha+1)/p)``, ``beta ~ 1e-77`` at ``delta = 1e-5`` for T = 2, alpha = -1/2,
    p = 8), which steps of 2, 4, 16, ... crossed in ~40 probes.  Only for slowly varying profiles
    (log-log slope at most 1/2 in absolute value between the two points).  The returned point is the
    extrapolated one moved a factor 2 further (so it is likely past the boundary), at most 2^64 or
    the square of the last step from the last point; ``None`` if the line does not reach ``delta``
    going ``direction`` (the sign of the step in ``t`` that moves delta towards it)."""
    import math

    pair = _nearest_two(points, direction, below)
    if pair is None:
        return None
    t0, m0, t1, m1 = pair
    try:
        lt0 = math.log(t0.numerator) - math.log(t0.denominator)
        lt1 = math.log(t1.numerator) - math.log(t1.denominator)
        l0 = math.log(m0.numerator) - math.log(m0.denominator)
        l1 = math.log(m1.numerator) - math.log(m1.denominator)
        ld = math.log(delta.numerator) - math.log(delta.denominator)
        if abs(l1 - l0) > 0.5 * abs(lt1 - lt0):
            return None  # |slope| > 1/2 in log-log: the doubling steps cross fast enough, and a steeper
            # (Gaussian-like) profile extrapolated as a power law lands where delta has ~1e12 digits
        frac = (l0 - ld) / (l0 - l1)
        if not (frac > 1.0 and math.isfinite(frac)):
            return None
        lt = lt0 + (lt1 - lt0) * frac + direction * math.log(2.0)
        if not math.isfinite(lt):
            return None
        # at most a factor 2^64, or the square of the last step: a profile that is flat here and steep
        # further out (a Gaussian at small eps) must not be asked where its delta has no decimal
        # representation; while it stays flat, the jumps grow geometrically
        last = lt1 if (lt1 - lt0) * direction > 0 else lt0
        reach = max(64 * math.log(2.0), 2 * abs(lt1 - lt0))
        lt = max(min(lt, last + reach), last - reach)
        return _fraction_of_log(lt)
    except (ValueError, ZeroDivisionError, OverflowError, AttributeError):
        return None


def _fraction_of_log(lt: float) -> Fraction:
    """A rational near ``e^lt`` (any exponent; 17 significant digits: only a place to probe)."""
    import math

    e10 = math.floor(lt / math.log(10.0))
    mant = math.exp(lt - e10 * math.log(10.0))
    q = Fraction(round(mant * 10**16), 10**16)
    return q * 10**e10 if e10 >= 0 else q / 10**(-e10)


def _as_fraction(candidate: float | Fraction | Decimal | None) -> Fraction | None:
    if candidate is None:
        return None
    if isinstance(candidate, float):
        if not (candidate > 0 and candidate < float("inf")):
            return None
        return fraction_of_float_repr(candidate)
    return Fraction(candidate)


def _ordered(x: Fraction, y: Fraction) -> tuple[Fraction, Fraction]:
    """``tuple(sorted((x, y)))`` with one comparison."""
    return (x, y) if x <= y else (y, x)


def _geometric_mean(a: Fraction, b: Fraction) -> Fraction:
    with working_precision(64):
        g = (arb_of(a) * arb_of(b)).sqrt()
        mantissa, exponent = g.mid().man_exp()
    mantissa, exponent = int(mantissa), int(exponent)
    return Fraction(mantissa * 2**exponent) if exponent >= 0 else Fraction(mantissa, 2**-exponent)


def _to_decimal(q: Fraction) -> Decimal:
    # Endpoints are produced by round_decimal, hence terminating decimals.
    return Decimal(exact_str(q))


def _fmt(q: Fraction) -> str:
    return exact_str(q)
