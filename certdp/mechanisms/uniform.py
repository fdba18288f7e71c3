"""Uniform noise on [-b, b] (generalized Gaussian with p = infinity), 1-D sensitivity Delta.

Privacy profile: delta(eps) = min{1, Delta/(2b)} for every eps >= 0 (the loss is
0 or infinite), strictly decreasing in b while below 1.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb

from certdp.engines.closed_form import uniform_profile
from certdp.engines.hockey_stick_integral import uniform_profile_by_integration
from certdp.generated import arb_uniform
from certdp.mechanisms.base import ScaleMechanism1D, register
from certdp.numbers import arb_of

__all__ = ["Uniform"]


@register
class Uniform(ScaleMechanism1D):
    """Uniform noise with density 1/(2b) on [-b, b]."""

    name = "uniform"
    parameter = "scale"
    profile_increasing = False
    cheap_profile = True
    method = "closed-form uniform profile (total variation) on Arb balls; certified monotone bracket"
    lemma = "seed 004 Sec. 3.2 (p = infinity): delta(eps) = min{1, Delta/(2b)}"


    @classmethod
    def profile_ball(cls, value: arb, epsilon: arb, sensitivity: Fraction = Fraction(1)) -> arb:
        return uniform_profile(value, epsilon, arb_of(sensitivity))

    @classmethod
    def independent_profile_ball(cls, value: arb, epsilon: arb, sensitivity: Fraction = Fraction(1)) -> arb:
        """delta(eps) as the hockey-stick integral over its positive set (used by ``verify``).

        :func:`certdp.engines.hockey_stick_integral.uniform_profile_by_integration`: the range
        is split at the discontinuities and each piece integrated by ``acb.integral``; not the
        closed form.  Encloses delta for every point of the balls ``value``, ``epsilon``.
        """
        return uniform_profile_by_integration(value, epsilon, arb_of(sensitivity))

    @classmethod
    def exact_candidate(cls, delta: Fraction, sensitivity: Fraction = Fraction(1)) -> Fraction:
        """The exact boundary b* = Delta/(2 delta) (a rational number)."""
        return Fraction(sensitivity) / (2 * Fraction(delta))


    def mean_abs(self) -> arb:
        """E|X| = b/2."""
        return arb_uniform.mean_abs(self._scale_ball())

    def mean_square(self) -> arb:
        """E X^2 = b^2/3."""
        return arb_uniform.mean_square(self._scale_ball())

    def sample(self, size: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        b = float(self._scale_ball().mid())
        return rng.uniform(-b, b, size=size)
