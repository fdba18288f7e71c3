"""The mechanism interface and registry.

A mechanism is a small class: it states its density's parameters, which
engine computes its privacy profile, its exact moments and its sampler. The
calibration, audit and verification workflows are generic over this class.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from flint import arb

from certdp.numbers import (
    Enclosure,
    InputError,
    UndecidedError,
    arb_of,
    exact_str,
    parse_nonnegative,
    parse_positive,
    run_on_ladder,
)

__all__ = ["Mechanism", "ScaleMechanism1D", "register", "get_mechanism", "mechanism_names", "parameter_string", "REGISTRY"]

REGISTRY: dict[str, type["Mechanism"]] = {}


def register(cls: type["Mechanism"]) -> type["Mechanism"]:
    """Class decorator: make ``cls`` available under ``cls.name`` (and ``cls.aliases``)."""
    for key in (cls.name, *cls.aliases):
        if key in REGISTRY and REGISTRY[key] is not cls:
            raise ValueError(f"mechanism name {key!r} registered twice")
        REGISTRY[key] = cls
    return cls


def get_mechanism(name: str) -> type["Mechanism"]:
    """The mechanism class registered under ``name``; :class:`InputError` naming ``mechanism`` otherwise."""
    try:
        return REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted({c.name for c in REGISTRY.values()}))
        raise InputError("mechanism", f"unknown mechanism {name!r} (known: {known})") from None


def mechanism_names() -> list[str]:
    return sorted({c.name for c in REGISTRY.values()})


class Mechanism(ABC):
    """An additive-noise mechanism with a certified privacy profile.

    Subclasses set the class attributes and implement :meth:`profile_ball`
    (an Arb enclosure of delta(eps) valid for every point of the input balls),
    :meth:`fixed_parameters`, the moments and the sampler.
    """

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    parameter: ClassVar[str]
    #: Whether delta(eps) increases with ``parameter`` (True for a rate, False for a scale).
    profile_increasing: ClassVar[bool] = False
    #: Whether monotonicity of delta in ``parameter`` is proven (then a bracket brackets *the* optimum).
    monotone_proven: ClassVar[bool] = True
    #: Whether one profile evaluation costs microseconds (a closed form): the calibration bracket
    #: then tries its first two points at the first precision rung before its general search
    #: (``certified_monotone_bracket(first_steps_at_first_rung=True)``; same bracket either way).
    cheap_profile: ClassVar[bool] = False
    #: How the profile is computed and the result it rests on (recorded in certificates).
    method: ClassVar[str]
    lemma: ClassVar[str]

    # ------------------------------------------------------------------ profile
    @classmethod
    @abstractmethod
    def profile_ball(cls, value: arb, epsilon: arb, **fixed: Any) -> arb:
        """Enclosure of delta(epsilon) at parameter ``value`` (a ball), current precision."""

    @classmethod
    def float_candidate(cls, epsilon: float, log_delta: float, **fixed: Any) -> float | None:
        """A float64 estimate of the calibration boundary, or None (the bracket then searches with Arb)."""
        return None

    @classmethod
    def parse_fixed(cls, **fixed: Any) -> dict[str, Any]:
        """Validate and normalise the fixed (non-calibrated) parameters; raise InputError on bad input."""
        return fixed

    @property
    @abstractmethod
    def value(self) -> Fraction | arb:
        """The calibrated parameter's value (exact where it was given exactly)."""

    @abstractmethod
    def fixed_parameters(self) -> dict[str, Any]:
        """Everything except ``parameter``, as parsed values accepted by :meth:`profile_ball`."""

    def privacy_profile(self, epsilon: object, *, relative_accuracy_bits: int = 40) -> Enclosure:
        """Certified enclosure of delta(epsilon) over both shift directions.

        Escalates the working precision until the enclosure has
        ``relative_accuracy_bits`` correct bits (or is below 2^-60000 wide, or
        the ladder ends); raises :class:`UndecidedError` if it never becomes finite.
        """
        eps = parse_nonnegative(epsilon, "epsilon")
        fixed = self.fixed_parameters()
        best: list[Enclosure] = []

        def attempt(bits: int) -> Enclosure | None:
            value = self.value if isinstance(self.value, arb) else arb_of(self.value)
            ball = self.profile_ball(value, arb_of(eps), **fixed)
            if not ball.is_finite():
                return None
            enc = Enclosure.from_arb(ball, bits)
            best.append(enc)
            if ball.rel_accuracy_bits() >= relative_accuracy_bits or ball.rad() < arb(2) ** -60000:
                return enc
            return None

        result, _ = run_on_ladder(attempt)
        if result is not None:
            return result
        if best:
            return best[-1]
        raise UndecidedError(f"{self.name}: privacy profile did not evaluate to a finite ball")

    # ------------------------------------------------------------------ utility
    @abstractmethod
    def mean_abs(self) -> arb:
        """E|X| (per coordinate for product noise; E||X|| for spherical), as a ball."""

    @abstractmethod
    def mean_square(self) -> arb:
        """E X^2 (E||X||^2 in several dimensions), as a ball."""

    @abstractmethod
    def sample(self, size: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """Draw noise with NumPy (not certified: sampling is floating point)."""


class ScaleMechanism1D(Mechanism):
    """A 1-D mechanism with one scale parameter ``scale`` and a scalar sensitivity (Laplace, uniform)."""

    parameter = "scale"

    def __init__(self, scale: object, *, sensitivity: object = 1):
        self.scale: Fraction | arb = scale if isinstance(scale, arb) else parse_positive(scale, "scale")
        self.sensitivity: Fraction = self.parse_fixed(sensitivity=sensitivity)["sensitivity"]

    @classmethod
    def parse_fixed(cls, sensitivity: object = 1) -> dict[str, Any]:
        return {"sensitivity": parse_positive(sensitivity, "sensitivity")}

    @property
    def value(self) -> Fraction | arb:
        return self.scale

    def fixed_parameters(self) -> dict[str, Any]:
        return {"sensitivity": self.sensitivity}

    def _scale_ball(self) -> arb:
        return self.scale if isinstance(self.scale, arb) else arb_of(self.scale)


def parameter_string(v: Any) -> str:
    """Exact string form of a parsed parameter (Fraction, int, vector, infinity) for certificates."""
    if isinstance(v, Fraction):
        return exact_str(v)
    if isinstance(v, (tuple, list)):
        return ",".join(parameter_string(x) for x in v)
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    return str(v)
