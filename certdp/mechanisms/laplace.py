"""The Laplace mechanism Lap(b) (generalized Gaussian with p = 1), 1-D sensitivity Delta.

Privacy profile (seed 004 Prop. 3.3): delta(eps) = [1 - exp((eps - Delta/b)/2)]_+,
strictly decreasing in b until it reaches 0 at b = Delta/eps (pure eps-DP).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb

from certdp.engines.closed_form import laplace_profile
from certdp.engines.hockey_stick_integral import laplace_profile_by_integration
from certdp.generated import arb_laplace
from certdp.mechanisms.base import ScaleMechanism1D, register
from certdp.numbers import arb_of

__all__ = ["Laplace"]


@register
class Laplace(ScaleMechanism1D):
    """Laplace noise with density exp(-|x|/b)/(2b)."""

    name = "laplace"
    parameter = "scale"
    profile_increasing = False
    cheap_profile = True
    method = "closed-form Laplace profile evaluated on Arb balls; certified monotone bracket on the scale"
    lemma = "seed 004 Prop. 3.3: delta(eps) = [1 - exp((eps - Delta/b)/2)]_+, decreasing in b"


    @classmethod
    def profile_ball(cls, value: arb, epsilon: arb, sensitivity: Fraction = Fraction(1)) -> arb:
        return laplace_profile(value, epsilon, arb_of(sensitivity))

    @classmethod
    def independent_profile_ball(cls, value: arb, epsilon: arb, sensitivity: Fraction = Fraction(1)) -> arb:
        """delta(eps) by certified quadrature of the hockey-stick integral (used by ``verify``).

        :func:`certdp.engines.hockey_stick_integral.laplace_profile_by_integration`:
        ``acb.integral`` up to the proven root of the privacy-loss equation, analytic tail
        and sliver bounds; no closed form.  Encloses delta for every point of the balls
        ``value`` and ``epsilon`` (the balls are propagated through the integrand).
        """
        return laplace_profile_by_integration(value, epsilon, arb_of(sensitivity))

    @classmethod
    def float_candidate(cls, epsilon: float, log_delta: float, sensitivity: Fraction = Fraction(1)) -> float | None:
        """b = Delta / (eps - 2 log(1 - delta)), the closed-form inverse (float64)."""
        delta = math.exp(log_delta)
        denominator = epsilon - 2.0 * math.log1p(-delta)
        if not denominator > 0:
            return None
        return float(sensitivity) / denominator

    @staticmethod
    def pure_dp_scale(epsilon: Fraction, sensitivity: Fraction) -> Fraction:
        """Exact minimal scale for pure eps-DP: b = Delta/eps (delta(eps) = 0 iff b >= Delta/eps)."""
        return Fraction(sensitivity) / Fraction(epsilon)


    def mean_abs(self) -> arb:
        """E|X| = b."""
        return arb_laplace.mean_abs(self._scale_ball())

    def mean_square(self) -> arb:
        """E X^2 = 2 b^2."""
        return arb_laplace.mean_square(self._scale_ball())

    def sample(self, size: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        return rng.laplace(0.0, float(self._scale_ball().mid()), size=size)
