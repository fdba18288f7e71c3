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

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Callable

from flint import arb, ctx, fmpq

from certdp.numbers.balls import arb_of, round_fraction, round_ratio
from certdp.numbers.compare import Decision
from certdp.numbers.enclosure import Enclosure
from certdp.numbers.exact import UndecidedError, exact_str, fraction_of_float_repr
from certdp.numbers.precision import PRECISION_LADDER, decide_on_ladder, working_precision

__all__ = ["Bracket", "certified_monotone_bracket", "classify_point", "MAX_FAILED_PROBES_IN_A_ROW"]

#: The exponential search stops on a side after this many consecutive probes whose evaluation raised
#: :class:`UndecidedError` (it is walking away into a range the profile cannot evaluate).
MAX_FAILED_PROBES_IN_A_ROW = 6

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
        value = profile(arb(num) if den == 1 else arb(fmpq(num, den)))  # arb_of(point)
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


def certified_monotone_bracket(
    profile: Profile,
    delta: Fraction,
    *,
    increasing: bool,
    candidate: float | Fraction | Decimal | None = None,
    rtol: Fraction | float = Fraction(1, 10**12),
    ladder: tuple[int, ...] = PRECISION_LADDER,
    max_doublings: int = 4096,
) -> Bracket:
    """Certified bracket of the calibration boundary of a monotone privacy profile.

    ``profile(t)`` must return an enclosure of delta(t) for every point of the
    ball ``t`` at the current working precision; ``t`` ranges over ``(0, inf)``.
    ``increasing`` says whether delta(t) increases with t. See the module
    docstring for the guarantee. Raises :class:`UndecidedError` if no point on
    one side can be certified.
    """
    if type(rtol) is not Fraction:
        rtol = Fraction(rtol) if not isinstance(rtol, float) else Fraction(repr(rtol))
    if not 0 < rtol.numerator < rtol.denominator:
        raise ValueError("rtol must lie in (0, 1)")
    search = _Search(profile, delta if type(delta) is Fraction else Fraction(delta), increasing, ladder)
    safe_dir = -1 if increasing else 1  # direction of t in which delta decreases
    digits, sides = _walk_for(rtol.numerator, rtol.denominator, safe_dir)
    safe_pt: tuple[Fraction, Enclosure] | None = None
    unsafe_pt: tuple[Fraction, Enclosure] | None = None

    def record(t: Fraction, decision: Decision, enc: Enclosure | None) -> None:
        nonlocal safe_pt, unsafe_pt
        if decision is Decision.YES:
            if safe_pt is None or (t - safe_pt[0]) * safe_dir < 0:
                safe_pt = (t, enc)  # type: ignore[assignment]
        elif decision is Decision.NO:
            if unsafe_pt is None or (t - unsafe_pt[0]) * safe_dir > 0:
                unsafe_pt = (t, enc)  # type: ignore[assignment]

    seen: dict[Fraction, tuple[Decision, Enclosure | None]] = {}
    failures: list[str] = []   # reasons of probes whose evaluation raised UndecidedError

    def probe_point(point: Fraction) -> Decision:
        if point.numerator <= 0:
            return Decision.UNKNOWN
        if point in seen:  # a decided point is never evaluated twice (each may cost seconds)
            return seen[point][0]
        try:
            decision, enc = search.classify(point)
        except UndecidedError as exc:
            # one point the profile cannot evaluate (e.g. outside an engine's range, typically far from
            # the boundary, met by the exponential search): UNKNOWN there, the search goes on; the
            # reason is reported if no bracket is found
            failures.append(str(exc))
            decision, enc = Decision.UNKNOWN, None
        seen[point] = (decision, enc)
        record(point, decision, enc)
        return decision

    def probe(t: Fraction, direction: str) -> Decision:
        return probe_point(round_fraction(t, digits, direction))

    center = _as_fraction(candidate)
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
                    side_pts = [(q, e) for q, (d, e) in seen.items() if d is found and e is not None]
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
                    probe_point(round_ratio(num * factor_num, den * factor_den, digits, direction))
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
        while missing() and doublings < max_doublings and raised_in_a_row < MAX_FAILED_PROBES_IN_A_ROW:
            t = t * factor if sign > 0 else t / factor
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
    # step (geometric while the ratio is large), after which the secant is tried again.
    use_secant = True
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
            guess = _secant_guess(safe_pt, unsafe_pt, Fraction(delta))
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
                        if a < point < b:
                            probe(point, direction)
                else:
                    probe(guess, "up")
                new_a, new_b = sorted((safe_pt[0], unsafe_pt[0]))
                use_secant = (new_b - new_a) < (b - a) / 4 or _secant_converging(
                    err_before, safe_pt, unsafe_pt, Fraction(delta))
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
        use_secant = True

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


_COARSE_STEPS = tuple(Fraction(1, 10**k) for k in (11, 9, 7, 5, 3, 1))


def _secant_guess(safe_pt: tuple[Fraction, Enclosure], unsafe_pt: tuple[Fraction, Enclosure],
                  delta: Fraction) -> Fraction | None:
    """Interpolate log delta linearly in t between the two certified points (float64; only a guess).

    Each point is represented by the end of its enclosure that decided it (the upper end at the
    safe point, the lower end at the unsafe one): a decision mode may stop with the other end far
    off (e.g. ``[0, x]`` or ``[x, 1]``), which would make a midpoint useless."""
    import math

    try:
        (t0, e0), (t1, e1) = safe_pt, unsafe_pt
        m0 = e0.upper if e0.upper > 0 else (e0.lower + e0.upper) / 2
        m1 = e1.lower if e1.lower > 0 else (e1.lower + e1.upper) / 2
        if m0 <= 0 or m1 <= 0 or m0 == m1:
            return None
        l0 = math.log(m0.numerator) - math.log(m0.denominator)
        l1 = math.log(m1.numerator) - math.log(m1.denominator)
        ld = math.log(delta.numerator) - math.log(delta.denominator)
        if ld < _TINY_LOG_DELTA and l0 < 0 and l1 < 0:
            # tiny delta: ln(-ln delta) is nearly linear in ln t for the profiles met there (Gaussian-
            # like -ln delta ~ c t^-g, power laws delta ~ c t^k), where ln delta against t is curved
            # enough that a one-sided secant crawled (21 probes for one SGG p = 8 cell at 1e-100)
            u0, u1, ud = math.log(-l0), math.log(-l1), math.log(-ld)
            frac = (u0 - ud) / (u0 - u1)
            if not 0.0 < frac < 1.0:
                return None
            ratio = float(t1 / t0)
            return t0 * Fraction(ratio ** frac)
        frac = (l0 - ld) / (l0 - l1)
        if not 0.0 < frac < 1.0:
            return None
        return t0 + (t1 - t0) * Fraction(frac)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


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

    if len(points) < 2:
        return None
    (t0, e0), (t1, e1) = sorted(points, key=lambda pe: pe[0] * direction)[-2:]
    try:
        m0 = e0.upper if below else e0.lower
        m1 = e1.upper if below else e1.lower
        if m0 <= 0 or m1 <= 0 or m0 == m1 or t0 == t1:
            return None
        l0 = math.log(m0.numerator) - math.log(m0.denominator)
        l1 = math.log(m1.numerator) - math.log(m1.denominator)
        ld = math.log(delta.numerator) - math.log(delta.denominator)
        if ld < _TINY_LOG_DELTA and l0 < 0 and l1 < 0:
            # tiny delta: ln(-ln delta) linear in ln t, as in :func:`_secant_guess`
            u0, u1, ud = math.log(-l0), math.log(-l1), math.log(-ld)
            frac = (ud - u0) / (u1 - u0)
            if not (frac > 1.0 and math.isfinite(frac)):
                return None
            return t0 * Fraction(float(t1 / t0) ** frac)
        frac = (ld - l0) / (l1 - l0)
        if not (frac > 1.0 and math.isfinite(frac)):
            return None
        return t0 + (t1 - t0) * Fraction(frac)
    except (ValueError, ZeroDivisionError, OverflowError, AttributeError):
        return None


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
