"""Quasi-Gaussian mixture mechanism QG(sigma) (seed 000, Def. 4.1).

Density, for the design epsilon ``e`` (the mixture's shape depends on the epsilon it was
built for) and sensitivity ``Delta``::

    f_q(x) = [e^e exp(-x^2 / 2 s^2) + exp(-(|x| - Delta)^2 / 2 s^2)] / c,
    c = sqrt(2 pi) s (e^e + 2 Phi(Delta / s))                      (App. C.1)

i.e. the mixture ``w0 N(0, s^2) + w1 N(Delta, s^2) 1[x >= 0] + w1 N(-Delta, s^2) 1[x < 0]`` with
``w0 = e^e / (e^e + 2 Phi(Delta/s))`` and ``w1 = 1 / (e^e + 2 Phi(Delta/s))``: an equal-variance
mixture with half-line truncated components and a continuous density, which is exactly what
:mod:`certdp.engines.gaussian_mixture` computes the exact privacy profile of. The density is
symmetric, so one shift direction suffices.

Monotonicity in sigma (needed by the exact calibration's bracket) is *not* proven in the
paper for QG (Lemma 3.4 is for the multi-Gaussian). The exact calibration therefore certifies
both ends of its bracket (safe end proven private, other end proven not private) but does not
claim that every sigma above the safe end is private; see :mod:`certdp.workflows.mixtures`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from certdp.engines.gaussian_mixture import Component, GaussianMixture, privacy_profile_sup
from certdp.engines.gaussian_mixture.balls import hull
from certdp.mechanisms.base import Mechanism, register
from certdp.numbers import arb_of, normal_cdf, parse_positive

__all__ = ["QuasiGaussian", "quasi_gaussian_mixture"]


def quasi_gaussian_mixture(sigma: arb, shape_epsilon: arb, sensitivity: arb) -> GaussianMixture:
    """The QG density as an engine mixture (current precision).

    The weights are declared as ``w = Z exp(u * shape_epsilon)`` with ``Z = 1 / (e^e + 2 Phi(Delta/s))``,
    ``u = 1`` for the centre and ``u = 0`` for the sides, so at the profile's own epsilon (the same ball)
    the centre shifted by ``Delta`` and the unshifted side component tie exactly (``w0 - e^eps w1 = 0``,
    :class:`GaussianMixture`): near ``phi = Delta`` their difference is then enclosed without the
    cancellation of two equal terms (at eps = 50 it made 64-bit point values there unsignable)."""
    ee = shape_epsilon.exp()
    denom = ee + 2 * normal_cdf(sensitivity / sigma)
    w0 = ee / denom
    w1 = 1 / denom
    comps = [
        Component(w1, -sensitivity, (0.0, -1), 0, weight_units=0),
        Component(w0, arb(0), None, 1, weight_units=1),
        Component(w1, sensitivity, (0.0, +1), 2, weight_units=0),
    ]
    return GaussianMixture(comps, sigma, (-sensitivity, sensitivity), design_epsilon=shape_epsilon)


@register
class QuasiGaussian(Mechanism):
    """Quasi-Gaussian mixture noise QG(sigma) for sensitivity ``sensitivity``.

    ``shape_epsilon`` is the epsilon in the density (Def. 4.1); ``None`` means "the epsilon the
    profile is evaluated at", which is what calibration wants.
    """

    name = "quasi-gaussian"
    aliases = ("qg",)
    calibration_methods = ("seed000-thm-4.2", "exact-mixture-engine")
    parameter = "sigma"
    profile_increasing = False
    method = ("exact hockey-stick engine for equal-variance Gaussian mixtures (certified roots, "
              "erfc sums, derivative branch and bound over the shift)")
    lemma = "seed 000 Def. 4.1; engine: certdp.engines.gaussian_mixture (profile = sup over |phi| <= Delta)"
    monotone_proven = False  # delta(sigma) of QG: monotonicity not proven, brackets certify their two ends only

    def __init__(self, sigma: object, *, sensitivity: object = 1, shape_epsilon: object = None):
        self.sigma: Fraction | arb = sigma if isinstance(sigma, arb) else parse_positive(sigma, "sigma")
        fixed = self.parse_fixed(sensitivity=sensitivity, shape_epsilon=shape_epsilon)
        self.sensitivity: Fraction = fixed["sensitivity"]
        self.shape_epsilon: Fraction | None = fixed["shape_epsilon"]

    @classmethod
    def parse_fixed(cls, sensitivity: object = 1, shape_epsilon: object = None) -> dict[str, Any]:
        return {
            "sensitivity": parse_positive(sensitivity, "sensitivity"),
            "shape_epsilon": None if shape_epsilon is None else parse_positive(shape_epsilon, "shape_epsilon"),
        }

    @property
    def value(self) -> Fraction | arb:
        return self.sigma

    def fixed_parameters(self) -> dict[str, Any]:
        out: dict[str, Any] = {"sensitivity": self.sensitivity}
        if self.shape_epsilon is not None:
            out["shape_epsilon"] = self.shape_epsilon
        return out

    # ------------------------------------------------------------------ profile
    @classmethod
    def profile_ball(cls, value: arb, epsilon: arb, sensitivity: Fraction = Fraction(1),
                     shape_epsilon: Fraction | None = None, rel_tol: float = 1e-7,
                     target: arb | None = None) -> arb:
        return hull(*cls.profile_bounds(value, epsilon, sensitivity, shape_epsilon, rel_tol, target))

    @classmethod
    def profile_bounds(cls, value: arb, epsilon: arb, sensitivity: Fraction = Fraction(1),
                       shape_epsilon: Fraction | None = None, rel_tol: float = 1e-7,
                       target: arb | None = None) -> tuple[arb, arb]:
        """``(lower, upper)`` with ``lower <= delta(eps) <= upper`` (exact engine, seed 000 QG)."""
        se = epsilon if shape_epsilon is None else arb_of(shape_epsilon)
        d = arb_of(sensitivity)
        mix = quasi_gaussian_mixture(value, se, d)
        res = privacy_profile_sup(mix, epsilon, d, symmetric=True, rel_tol=rel_tol, target=target)
        return res.lower, res.upper

    @classmethod
    def float_candidate(cls, epsilon: float, log_delta: float, sensitivity: Fraction = Fraction(1),
                        shape_epsilon: Fraction | None = None) -> float | None:
        if shape_epsilon is not None:
            return None
        from certdp.engines.gaussian_mixture.float_guide import qg_paper_sigma_float

        try:
            return qg_paper_sigma_float(epsilon, math.exp(log_delta), float(sensitivity))
        except (ValueError, ArithmeticError):
            return None

    # ------------------------------------------------------------------ moments
    def _parts(self) -> tuple[arb, arb, arb, arb]:
        s = self.sigma if isinstance(self.sigma, arb) else arb_of(self.sigma)
        d = arb_of(self.sensitivity)
        e = arb_of(self.shape_epsilon) if self.shape_epsilon is not None else None
        if e is None:
            raise ValueError("moments of QG need shape_epsilon (the design epsilon)")
        return s, d, e.exp(), normal_cdf(d / s)

    def mean_abs(self) -> arb:
        """E|X| (App. C.4), from the generated SymPy evaluator (certdp/generated/arb_quasi_gaussian.py)."""
        from certdp.generated import arb_quasi_gaussian as gen

        s, d, _, _ = self._parts()
        return gen.mean_abs(s, arb_of(self.shape_epsilon), d)

    def mean_square(self) -> arb:
        """E X^2 (App. C.4), from the generated SymPy evaluator."""
        from certdp.generated import arb_quasi_gaussian as gen

        s, d, _, _ = self._parts()
        return gen.mean_square(s, arb_of(self.shape_epsilon), d)

    # ------------------------------------------------------------------ sampler
    def sample(self, size: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """Seed 000 App. C.3 / Alg. 5 (floating point, not certified)."""
        from scipy.special import ndtr, ndtri

        s = float(self.sigma)
        d = float(self.sensitivity)
        e = float(self.shape_epsilon) if self.shape_epsilon is not None else None
        if e is None:
            raise ValueError("sampling QG needs shape_epsilon")
        pd = float(ndtr(d / s))
        p_center = 1.0 / (1.0 + 2.0 * pd * math.exp(-e))
        shape = (size,) if isinstance(size, int) else tuple(size)
        center = rng.random(shape) < p_center
        u = rng.random(shape)
        # truncated N(Delta, s^2) on [0, inf): Delta + s Phi^{-1}(Phi(-Delta/s) + u Phi(Delta/s))
        side = d + s * ndtri(ndtr(-d / s) + u * pd)
        sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        return np.where(center, rng.normal(0.0, s, shape), sign * side)

