"""Working precision for Arb and the escalation ladder.

python-flint keeps one global working precision (``flint.ctx.prec``, in
bits). :func:`working_precision` sets it for a block and restores it; every
certified computation in certdp runs inside one, so results never depend on
what a caller left in ``ctx``.

:func:`escalate` implements principle 1 of the design: a computation that
cannot decide at 64 bits is retried at 128, 256, ... 4096 bits before anyone
is told UNDECIDED.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

from flint import ctx

__all__ = ["PRECISION_LADDER", "working_precision", "escalate"]

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


def escalate(
    attempt: Callable[[int], T | None],
    ladder: tuple[int, ...] = PRECISION_LADDER,
) -> tuple[T | None, int]:
    """Call ``attempt(bits)`` at each precision of ``ladder`` until it returns non-``None``.

    Each call runs inside :func:`working_precision`. Returns ``(result, bits)``
    where ``bits`` is the precision that succeeded, or ``(None, ladder[-1])``
    when every rung failed: the caller must then report UNDECIDED.
    """
    for bits in ladder:
        with working_precision(bits):
            result = attempt(bits)
        if result is not None:
            return result, bits
    return None, ladder[-1]
