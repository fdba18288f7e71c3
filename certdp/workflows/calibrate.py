"""Certified calibration: the smallest noise (largest rate) that is (epsilon, delta)-DP.

Works for every registered mechanism whose privacy profile is monotone in its
``parameter``; the result rests on that monotonicity (stated by each
mechanism) and on :func:`certdp.numbers.certified_monotone_bracket`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from certdp.certificate import Certificate, Stopwatch
from certdp.mechanisms import get_mechanism
from certdp.mechanisms.base import parameter_string
from certdp.numbers import (
    InputError,
    certified_monotone_bracket,
    exact_str,
    parse_exact,
    parse_positive,
    parse_probability,
)
from certdp.workflows.common import float_or_none, log_of_fraction, profile_closure, resolve_fixed

__all__ = ["calibrate", "DEFAULT_RTOL"]

DEFAULT_RTOL = Fraction(1, 10**12)


def calibrate(mechanism: str, *, epsilon: object, delta: object, rtol: object = DEFAULT_RTOL,
              **fixed: Any) -> Certificate:
    """Certified calibration of ``mechanism`` at (epsilon, delta).

    Returns a sealed :class:`Certificate` whose ``interval = [lo, hi]`` has
    relative width ``<= rtol``; the safe end (``value``) is proven
    (epsilon, delta)-DP and the other end proven not to be. Raises
    :class:`InputError` for bad input and :class:`UndecidedError` if the
    boundary cannot be certified even at 4096 bits.
    """
    clock = Stopwatch()
    cls = get_mechanism(mechanism)
    eps = parse_positive(epsilon, "epsilon")
    tol = parse_positive(rtol, "rtol")
    if not tol < 1:
        raise InputError("rtol", "must be < 1")
    delta_q = parse_exact(delta, "delta")
    params = resolve_fixed(cls, fixed)
    if delta_q == 0 and hasattr(cls, "pure_dp_scale"):
        return _pure_dp(cls, eps, params, clock)
    delta_q = parse_probability(delta, "delta")

    candidate: object = None
    if hasattr(cls, "exact_candidate"):
        candidate = cls.exact_candidate(delta_q, **params)
    else:
        eps_float = float_or_none(eps)
        if eps_float is not None:
            try:
                candidate = cls.float_candidate(eps_float, log_of_fraction(delta_q), **params)
            except (ArithmeticError, ValueError):
                candidate = None
    bracket = certified_monotone_bracket(
        profile_closure(cls, eps, params), delta_q,
        increasing=cls.profile_increasing, candidate=candidate, rtol=tol,
    )
    safe_word = "at least" if not cls.profile_increasing else "at most"
    unsafe_word = "below" if not cls.profile_increasing else "above"
    if cls.monotone_proven:
        guarantee = (
            f"{cls.name} noise with {cls.parameter} {safe_word} {bracket.safe} is "
            f"({exact_str(eps)}, {exact_str(delta_q)})-DP; every {cls.parameter} {unsafe_word} "
            f"{bracket.unsafe} is not."
        )
    else:
        guarantee = (
            f"{cls.name} noise with {cls.parameter} = {bracket.safe} is ({exact_str(eps)}, {exact_str(delta_q)})-DP "
            f"and with {cls.parameter} = {bracket.unsafe} it is not (monotonicity in {cls.parameter} is not "
            "proven, so nothing is claimed about other values)."
        )
    return Certificate(
        kind="calibration",
        mechanism=cls.name,
        parameters={k: parameter_string(v) for k, v in params.items()},
        inputs={"epsilon": exact_str(eps), "delta": exact_str(delta_q), "rtol": exact_str(tol)},
        method=cls.method,
        lemma=cls.lemma,
        delta_enclosure=bracket.delta_at_safe.strings(),
        parameter=cls.parameter,
        value=bracket.safe,
        interval=(bracket.lo, bracket.hi),
        safe_side="lower" if cls.profile_increasing else "upper",
        guarantee=guarantee,
        precision_bits=bracket.precision_bits,
        timing_seconds=clock.elapsed(),
        extra={
            "evaluations": bracket.evaluations,
            "relative_width": f"{float(bracket.relative_width):.3e}",
            "delta_enclosure_at_unsafe_end": bracket.delta_at_unsafe.strings(),
            **({"notes": list(bracket.notes)} if bracket.notes else {}),
        },
    ).seal()


def _pure_dp(cls: Any, eps: Fraction, params: dict[str, Any], clock: Stopwatch) -> Certificate:
    """Pure eps-DP (delta = 0) for mechanisms with an exact rational answer (Laplace: b = Delta/eps)."""
    from decimal import Decimal

    from certdp.numbers import round_decimal

    exact = cls.pure_dp_scale(eps, **params)
    value = round_decimal(exact, 17, "up")
    below = round_decimal(exact, 17, "down")
    if below == value:
        below = round_decimal(exact * (1 - Fraction(1, 10**16)), 17, "down")
    return Certificate(
        kind="calibration",
        mechanism=cls.name,
        parameters={k: parameter_string(v) for k, v in params.items()},
        inputs={"epsilon": exact_str(eps), "delta": "0"},
        method="exact rational closed form (pure eps-DP)",
        lemma=cls.lemma,
        delta_enclosure=["0", "0"],
        parameter=cls.parameter,
        value=Decimal(exact_str(Fraction(value))),
        interval=(Decimal(exact_str(Fraction(below))), Decimal(exact_str(Fraction(value)))),
        safe_side="upper",
        guarantee=f"{cls.name} noise with {cls.parameter} at least {value} is {exact_str(eps)}-DP (delta = 0); "
                  f"the exact minimum is {exact_str(exact)}.",
        timing_seconds=clock.elapsed(),
        extra={"exact_minimum": exact_str(exact)},
    ).seal()

