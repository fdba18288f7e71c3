"""Helpers shared by the workflows: input parsing and the profile closure."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

from flint import arb, ctx

from certdp.mechanisms import get_mechanism
from certdp.mechanisms.base import Mechanism
from certdp.numbers import InputError, arb_of

__all__ = ["resolve_fixed", "profile_closure", "log_of_fraction", "float_or_none", "typed_key"]


def resolve_fixed(mechanism: type[Mechanism], fixed: dict[str, Any]) -> dict[str, Any]:
    """Parse a mechanism's fixed parameters, turning unexpected names into an InputError.

    Successful parses are memoized on the typed inputs (a fresh dict is returned each time; only
    results made of immutable values are kept)."""
    key = typed_key(mechanism, fixed)
    hit = _FIXED.get(key) if key is not None else None
    if hit is not None:
        return dict(hit)
    try:
        params = mechanism.parse_fixed(**fixed)
    except TypeError as exc:
        raise InputError("parameters", f"{mechanism.name}: {exc}") from None
    if key is not None and all(type(v) in _IMMUTABLE for v in params.values()):
        if len(_FIXED) >= 1024:
            _FIXED.clear()
        _FIXED[key] = dict(params)
    return params


_FIXED: dict[tuple, dict[str, Any]] = {}
_IMMUTABLE = (Fraction, int, float, str, bool, tuple, type(None))
_KEY_TYPES = (int, float, str, Fraction, type(None))


def typed_key(head: object, values: dict[str, Any]) -> tuple | None:
    """A cache key for keyword inputs that keeps ``1``, ``1.0``, ``"1"`` and ``True`` apart, or None
    when a value is of another type (then nothing is cached)."""
    items = []
    for k, v in values.items():
        t = type(v)
        if t not in _KEY_TYPES:
            return None
        items.append((k, t, v))
    return (head, tuple(items))


def profile_closure(mechanism: type[Mechanism], epsilon: Fraction, fixed: dict[str, Any],
                    independent: bool = False) -> Callable[[arb], arb]:
    """``t -> enclosure of delta(epsilon)`` at parameter ball ``t`` (current working precision).

    With ``independent=True`` and a mechanism that offers ``independent_profile_ball``
    (a second, formula-independent evaluation), that one is used. Otherwise a mechanism may offer
    ``profile_at(epsilon, **fixed)``, a closure returning the same balls as ``profile_ball`` with
    its ``t``-independent constants computed once (the analytic Gaussian does).
    """
    evaluate = mechanism.profile_ball
    if independent and hasattr(mechanism, "independent_profile_ball"):
        evaluate = mechanism.independent_profile_ball
    elif hasattr(mechanism, "profile_at"):  # a mechanism's own closure: the same balls, constants computed once
        return mechanism.profile_at(epsilon, **fixed)

    epsilon_balls: dict[int, arb] = {}  # arb_of(epsilon) at each working precision (a ball is immutable)

    def profile(t: arb) -> arb:
        prec = ctx.prec
        eps_ball = epsilon_balls.get(prec)
        if eps_ball is None:
            eps_ball = epsilon_balls[prec] = arb_of(epsilon)
        return evaluate(t, eps_ball, **fixed)

    return profile


def log_of_fraction(q: Fraction) -> float:
    """log(q) in float64 for any positive rational, including 1e-5000 (no underflow)."""
    return math.log(q.numerator) - math.log(q.denominator)


def float_or_none(q: Fraction) -> float | None:
    try:
        x = float(q)
    except OverflowError:
        return None
    return x if math.isfinite(x) else None


def get(name: str) -> type[Mechanism]:
    return get_mechanism(name)
