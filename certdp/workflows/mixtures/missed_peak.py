"""The missed-peak retry shared by the MG calibrations (:mod:`.mg_alg1`, :mod:`.exact`).

The float guide's candidate sigma comes from a float sup over a grid of shifts; a peak of
``phi -> H(phi)`` narrower than that grid is missed, and the candidate is then far too small. The
certified bracket's first probe (just above the candidate) is then certified far above the target:
the profile raises :class:`MissedPeak` with the engine's argmax, and :func:`retry_missed_peak` runs
the bracket once more from the guide's candidate with that shift added. A float guess costs time,
never correctness: the retry only changes where the certified bracket starts.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from flint import arb

__all__ = ["MissedPeak", "missed_peak", "retry_missed_peak"]


class MissedPeak(Exception):
    """The float candidate's first probe was certified far above the target: the float guide missed
    the peak at ``shift`` (narrower than its shift grid)."""

    def __init__(self, shift: float):
        super().__init__(shift)
        self.shift = shift


def missed_peak(t: arb, first: arb | float | None, lower: arb, target: arb) -> bool:
    """True when a probe at ``sigma = t >= first`` (the float candidate) is certified more than 1 %
    above the target: the float guide must have missed a peak (see :class:`MissedPeak`)."""
    return first is not None and bool(t >= first) and bool(lower > target * arb("1.01"))


T = TypeVar("T")


def retry_missed_peak(first: Callable[[], T], retry: Callable[[float], T]) -> T:
    """``first()``; if it raised :class:`MissedPeak`, ``retry(shift)`` with the missed peak's shift."""
    try:
        return first()
    except MissedPeak as miss:
        return retry(miss.shift)
