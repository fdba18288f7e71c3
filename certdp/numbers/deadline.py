"""A wall-clock budget for the Python API: ``with time_budget(seconds): ...``.

Every long computation in certdp checks the deadline *cooperatively*, between Arb / FLINT calls:
before each profile evaluation of a calibration bracket, before each precision rung, after each
refinement round of the radial engine, in the mixture engine's branch and bound and in every lattice
product of the accountant.  Past the deadline :func:`check_deadline` raises
:class:`BudgetExhausted`, an :class:`~certdp.numbers.UndecidedError`: no answer is claimed (the
public API adds what was already certified, e.g. the bracket's proven points).

Guarantee: nothing, beyond "stops at the next check".  A single FLINT call is not interrupted; the
engines bound the size of their calls so that one call stays short (python-flint holds the interpreter
lock during a call, so no Python-level timer runs inside one; the CLI adds faulthandler's C-level timer,
which ends a process that overruns its budget by 10 s).  Without an active budget a check costs one ContextVar lookup.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from certdp.numbers.exact import UndecidedError

__all__ = ["ResourceExhausted", "BudgetExhausted", "time_budget", "check_deadline", "deadline_active"]

_DEADLINE: ContextVar = ContextVar("certdp_deadline", default=None)


class ResourceExhausted(UndecidedError):
    """A time budget or a work limit ran out: the whole computation stops (a search must not treat it
    as one undecidable point and go on)."""


class BudgetExhausted(ResourceExhausted):
    """The time budget ran out before a certified answer: nothing is claimed."""


@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    """Within the block, :func:`check_deadline` raises once ``seconds`` have passed.

    ``None`` means no budget. A nested budget never extends an outer one (the earlier deadline wins)."""
    if seconds is None:
        yield
        return
    if not seconds > 0:
        raise ValueError("the time budget must be positive")
    deadline = time.monotonic() + float(seconds)
    outer = _DEADLINE.get()
    if outer is not None and outer[0] < deadline:
        deadline, seconds = outer[0], outer[1]
    token = _DEADLINE.set((deadline, float(seconds)))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def deadline_active() -> bool:
    return _DEADLINE.get() is not None


def check_deadline(what: str = "") -> None:
    """Raise :class:`BudgetExhausted` if an active :func:`time_budget` has run out."""
    active = _DEADLINE.get()
    if active is not None and time.monotonic() > active[0]:
        where = f" (at {what})" if what else ""
        raise BudgetExhausted(f"the time budget of {active[1]:g} s was exceeded before a certified answer{where}")
