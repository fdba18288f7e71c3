"""Certified privacy profiles delta(epsilon) of a mechanism at a given parameter."""

from __future__ import annotations

from typing import Any, Iterable

from certdp.certificate import Certificate, Stopwatch
from certdp.mechanisms import get_mechanism
from certdp.numbers import Enclosure, exact_str, parse_nonnegative, parse_positive
from certdp.workflows.common import resolve_fixed

__all__ = ["profile", "profile_curve"]


def _build(mechanism: str, value: object, fixed: dict[str, Any]):
    cls = get_mechanism(mechanism)
    params = resolve_fixed(cls, fixed)
    val = parse_positive(value, cls.parameter)
    instance = cls(val, **params)
    return cls, params, val, instance


def profile(mechanism: str, *, value: object, epsilon: object, **fixed: Any) -> Certificate:
    """Certificate holding a certified enclosure of delta(epsilon) for ``mechanism`` at ``value``."""
    clock = Stopwatch()
    cls, params, val, instance = _build(mechanism, value, fixed)
    eps = parse_nonnegative(epsilon, "epsilon")
    enclosure = instance.privacy_profile(eps)
    return Certificate.for_profile(
        mechanism=cls.name, parameter=cls.parameter, parameters=params, epsilon=eps, value=val,
        delta_enclosure=enclosure, method="privacy-profile",
        lemma=f"{cls.method}; rests on {cls.lemma}", precision_bits=enclosure.precision_bits,
        timing_seconds=clock.elapsed(),
    )


def profile_curve(mechanism: str, *, value: object, epsilons: Iterable[object],
                  **fixed: Any) -> list[tuple[str, Enclosure]]:
    """Certified enclosures of delta(eps) for each eps in ``epsilons`` (exact eps strings, enclosures)."""
    _, _, _, instance = _build(mechanism, value, fixed)
    out = []
    for e in epsilons:
        eps = parse_nonnegative(e, "epsilon")
        out.append((exact_str(eps), instance.privacy_profile(eps)))
    return out
