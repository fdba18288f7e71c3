"""Certified comparisons of balls: YES, NO or UNKNOWN, never a guess."""

from __future__ import annotations

from enum import Enum

from flint import arb

__all__ = ["Decision", "certify_le", "certify_lt"]


class Decision(Enum):
    """Outcome of a certified comparison."""

    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"

    def __bool__(self) -> bool:  # a Decision must never be used as a bool by accident
        raise TypeError("compare a Decision with Decision.YES / NO / UNKNOWN explicitly")


def certify_le(x: arb, y: arb) -> Decision:
    """YES if a <= b for every a in x and b in y; NO if a > b for all of them; else UNKNOWN.

    NaN or infinite-radius balls give UNKNOWN.
    """
    if x <= y:
        return Decision.YES
    if x > y:
        return Decision.NO
    return Decision.UNKNOWN


def certify_lt(x: arb, y: arb) -> Decision:
    """YES if a < b for every a in x and b in y; NO if a >= b for all of them; else UNKNOWN."""
    if x < y:
        return Decision.YES
    if x >= y:
        return Decision.NO
    return Decision.UNKNOWN
