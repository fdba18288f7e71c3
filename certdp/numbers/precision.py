"""Working precision for Arb and the escalation ladder.

python-flint keeps one global working precision (``flint.ctx.prec``, in
bits). :func:`working_precision` sets it for a block and restores it; every
certified computation in certdp runs inside one, so results never depend on
what a caller left in ``ctx``.

:func:`run_on_ladder` implements principle 1 of the design: a computation that
cannot decide at 64 bits is retried at 128, 256, ... 4096 bits before anyone
is told UNDECIDED. It is the one ladder loop of the package: :func:`escalate`
is its historical name and :func:`decide_on_ladder` (a certified ``ball <=
threshold`` decision with the last enclosure) is built on it.
"""

from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction
from typing import Callable, Iterator, TypeVar

from flint import arb, ctx, fmpq

from certdp.numbers.compare import Decision, certify_le
from certdp.numbers.deadline import _DEADLINE, check_deadline
from certdp.numbers.enclosure import Enclosure

__all__ = ["PRECISION_LADDER", "working_precision", "run_on_ladder", "escalate", "decide_on_ladder"]

PRECISION_LADDER: tuple[int, ...] = (64, 128, 256, 512, 1024, 2048, 4096)

T = TypeVar("T")


@contextmanager
def working_precision(bits: int) -> Iterator[int]:
    """Run the block with ``flint.ctx.prec = bits``; restore the previous value afterwards."""
    if bits < 2:
        raise ValueError(f"precision must be at least 2 bits (got {bits})")
    saved = ctx.prec
    ctx.prec = bits
    try:
        yield bits
    finally:
        ctx.prec = saved


def run_on_ladder(
    attempt: Callable[[int], T | None],
    ladder: tuple[int, ...] = PRECISION_LADDER,
) -> tuple[T | None, int]:
    """THE precision ladder: call ``attempt(bits)`` at each rung until it returns non-``None``.

    Each call runs inside :func:`working_precision` (so ``attempt`` may rely on
    ``flint.ctx.prec == bits``). Returns ``(result, bits)`` where ``bits`` is the
    precision that succeeded, or ``(None, ladder[-1])`` when every rung failed: the
    caller must then report UNDECIDED. Every other ladder loop in certdp
    (:func:`escalate`, :func:`decide_on_ladder`, ``classify_point``,
    ``Mechanism.privacy_profile``) is this loop.
    """
    for i, bits in enumerate(ladder):
        if bits < 2:
            raise ValueError(f"precision must be at least 2 bits (got {bits})")
        if i and _DEADLINE.get() is not None:
            check_deadline("a precision rung")
        saved = ctx.prec  # working_precision(bits), inlined: this loop runs for every Arb decision
        ctx.prec = bits
        try:
            result = attempt(bits)
        finally:
            ctx.prec = saved
        if result is not None:
            return result, bits
    return None, ladder[-1]


def escalate(
    attempt: Callable[[int], T | None],
    ladder: tuple[int, ...] = PRECISION_LADDER,
) -> tuple[T | None, int]:
    """Historical name of :func:`run_on_ladder` (same signature, same behaviour)."""
    return run_on_ladder(attempt, ladder)


def decide_on_ladder(
    ball_at: Callable[[], "arb | tuple"],
    threshold: "arb | Fraction | int",
    ladder: tuple[int, ...] = PRECISION_LADDER,
) -> tuple[Decision, Enclosure | None, int]:
    """Certified decision of ``value <= threshold``, raising the precision until it is decided.

    ``ball_at()`` is called inside each working precision of ``ladder`` and must return
    an enclosure of the value, valid for every point of its inputs: an ``arb``, or a
    pair ``(low, high)`` of balls with ``low.lower() <= value <= high.upper()``, or a
    triple ``(low, high, settled)`` where ``settled`` is true when more precision
    cannot help (the loop then stops at this rung even if UNKNOWN). ``threshold``
    (an exact rational or a ball) is converted at each rung.

    Returns ``(decision, enclosure, bits)``:

    * ``Decision.YES``: ``value <= threshold`` for every point (``high <= threshold``);
      ``Decision.NO``: ``value > threshold`` for every point (``low > threshold``);
      ``Decision.UNKNOWN``: no rung decided;
    * ``enclosure``: the :class:`Enclosure` of the last *finite* ball (the one that
      decided, or the last one tried), ``None`` if no rung gave a finite ball;
    * ``bits``: the precision of that ball (``ladder[0]`` if there was none).

    Non-finite balls are skipped (the next rung is tried). The decision itself is
    made by Arb's ball comparisons, never by a float.
    """
    state = [None, ladder[0]]  # the last finite enclosure and its precision
    if isinstance(threshold, arb):
        threshold_at = None
    else:
        q = threshold if type(threshold) is Fraction else Fraction(threshold)
        tn, td = q.numerator, q.denominator

        def threshold_at() -> arb:  # the exact rational as a ball at the current precision
            return arb(tn) if td == 1 else arb(fmpq(tn, td))

    def attempt(bits: int) -> Decision | None:
        value = ball_at()
        if isinstance(value, tuple):
            settled = len(value) == 3 and bool(value[2])
            low, high = value[0], value[1]
            if not (low.is_finite() and high.is_finite()):
                return None
        else:
            settled = False
            low = high = value
            if not value.is_finite():
                return None
        target = threshold if threshold_at is None else threshold_at()
        if low is high:
            decision = certify_le(low, target)
            state[0] = Enclosure.from_arb(low, bits)
        else:
            decision = Decision.YES if high <= target else Decision.NO if low > target else Decision.UNKNOWN
            state[0] = Enclosure.from_bounds(low, high, bits)
        state[1] = bits
        if decision is Decision.UNKNOWN and not settled:
            return None
        return decision

    decision, _ = run_on_ladder(attempt, ladder)
    return (Decision.UNKNOWN if decision is None else decision), state[0], state[1]



