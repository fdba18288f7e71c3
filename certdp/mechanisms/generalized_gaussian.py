"""The generalized Gaussian mechanism GGM(p, b) (seed 004).

Noise density per coordinate  g_{p,b}(x) = p / (2 b Gamma(1/p)) exp(-|x/b|^p),
p in [1, infinity] (p = 1 Laplace, p = 2 Gaussian with sigma = b/sqrt(2),
p = infinity uniform on [-b, b]); product over the d coordinates.

Sensitivity is coordinate-wise: a vector Delta = (Delta_1, ..., Delta_d) with
|h_i| <= Delta_i for every neighbouring difference h (a scalar with
``dimension = d`` means Delta_i = Delta for all i).  By seed 004 Lemma 3.5 the
worst shift is the corner Delta, and by Prop. 5.1 coordinates with Delta_i = 0
can be dropped.

Privacy profile, by case (all certified, all decreasing in b):

* one active coordinate, 1 < p < inf: monotone privacy-loss engine
  (:mod:`certdp.engines.monotone_loss`, seed 004 Thm 3.2);
* one active coordinate, p = 1: closed form, Prop. 3.3;
* p = infinity: 1 - prod_i (1 - Delta_i/(2b))_+ (seed 004 App. B.4);
* p = 2, any vector: Gaussian closed form with sigma = b/sqrt(2), Delta = ||Delta||_2
  (Prop. 3.4);
* several active coordinates otherwise: product engine
  (:mod:`certdp.engines.product_loss`) when available.

delta is decreasing in b for every p (seed 004 Thm 3.2; Sec. 3.6 "b < b(p) =>
delta > delta_target, b > b(p) => delta < delta_target", App. B.6), which is
what the certified bracket on the scale relies on.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from certdp.engines.closed_form import gaussian_profile
from certdp.engines.hockey_stick_integral import (
    ggm_profile_by_integration,
    laplace_profile_by_integration,
    uniform_profile_by_integration,
)
from certdp.engines.monotone_loss import (
    delta_enclosure,
    delta_laplace,
    float_scale,
)
from certdp.mechanisms.base import Mechanism, register
from certdp.numbers import InputError, arb_of, parse_exact, parse_positive, parse_positive_int

__all__ = ["GeneralizedGaussian", "parse_shape", "parse_sensitivity_vector", "log_moment_factor",
           "moment_factor"]

INF = math.inf
_UNDECIDED = arb(0, float("inf"))  # non-finite ball: "could not decide at this precision"


def parse_shape(value: object) -> Fraction | float:
    """Shape p in [1, infinity]: exact rational, or math.inf for "inf"/"infinity"/float('inf')."""
    if isinstance(value, str) and value.strip().lower() in ("inf", "infinity", "+inf", "oo"):
        return INF
    if isinstance(value, float) and math.isinf(value) and value > 0:
        return INF
    p = parse_exact(value, "shape")
    if p < 1:
        raise InputError("shape", f"must be >= 1 (got {value})")
    return p


def parse_sensitivity_vector(value: object, dimension: object = None) -> tuple[Fraction, ...]:
    """Coordinate-wise sensitivity: scalar, "1,2" string, or sequence; all >= 0, some > 0."""
    if isinstance(value, str) and "," in value:
        items: list[object] = [v.strip() for v in value.split(",") if v.strip()]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        items = [value]
    vec = []
    for item in items:
        q = parse_exact(item, "sensitivity")
        if q < 0:
            raise InputError("sensitivity", f"entries must be >= 0 (got {item})")
        vec.append(q)
    if not vec or all(q == 0 for q in vec):
        raise InputError("sensitivity", "at least one entry must be > 0")
    if dimension is not None:
        d = parse_positive_int(dimension, "dimension")
        if len(vec) == 1:
            vec = vec * d
        elif len(vec) != d:
            raise InputError("dimension", f"sensitivity has {len(vec)} entries but dimension is {d}")
    return tuple(vec)


def log_moment_factor(p: arb | float, m: int | Fraction) -> arb:
    """log M_m(p) = lgamma((m+1)/p) - lgamma(1/p) (p finite, ball allowed); log(1/(m+1)) at p = inf.

    M_m(p) = E|Y|^m for Y ~ GGD(0, 1, p) (seed 004 Sec. 2.4).  The log form (Arb
    log-gamma) is what the shape search needs on p-balls; it equals the log of the
    symbolic layer's ``shape_factor`` (tested).
    """
    m_arb = arb_of(m) if not isinstance(m, int) else arb(m)
    if isinstance(p, float) and math.isinf(p):
        return -(m_arb + 1).log()
    p = p if isinstance(p, arb) else arb_of(p)
    return ((m_arb + 1) / p).lgamma() - (1 / p).lgamma()


def moment_factor(p: arb | float, m: int | Fraction) -> arb:
    """M_m(p) = Gamma((m+1)/p) / Gamma(1/p), and 1/(m+1) at p = infinity.

    Taken from the symbolic layer's generated evaluator
    (``certdp.generated.arb_generalized_gaussian.shape_factor``, derived and checked in
    ``proofs/ggm_density_moments_sec2_4.py``).
    """
    from certdp.generated import arb_generalized_gaussian as gen

    m_arb = arb(m) if isinstance(m, int) else arb_of(m)
    if isinstance(p, float) and math.isinf(p):
        return gen.shape_factor_inf(m_arb)
    return gen.shape_factor(m_arb, p if isinstance(p, arb) else arb_of(p))


@register
class GeneralizedGaussian(Mechanism):
    """Generalized Gaussian noise GGD(0, b, p) in each coordinate; coordinate-wise sensitivity vector."""

    name = "ggm"
    aliases = ("generalized-gaussian",)
    calibration_methods = ("certified-bracket", "product-loss-engine", "quantile-coupling")

    @classmethod
    def default_method_for(cls, fixed: dict[str, Any]) -> str:
        """For a sensitivity vector with several active entries (p not 2 or inf) the vector engines
        (:func:`certdp.workflows.ggm_vector.calibrate_sensitivity_vector` chooses between the quantile
        coupling and the product engine; the certificate names the one used)."""
        p, active = fixed.get("shape"), cls._active(fixed.get("sensitivity", Fraction(1)))
        if len(active) > 1 and not isinstance(p, float) and p != 2:
            return "product-loss-engine"
        return "certified-bracket"
    parameter = "scale"
    profile_increasing = False
    method = ("1-D: certified root of the privacy-loss equation + regularized incomplete gamma "
              "(max-at-root enclosure); p = 1, 2, inf: closed forms; sensitivity vectors: product-loss "
              "engine (pessimistic discretisation, rigorous float error bounds); certified bracket on b")
    lemma = ("seed 004 Thm 3.2 (delta = S(z*) - e^eps S(z*+Delta), decreasing in b), Prop. 3.3 (p = 1), "
             "Prop. 3.4 (p = 2), App. B.4 (p = inf), Lemma 3.5 (worst shift = corner), Prop. 5.1")

    def __init__(self, scale: object, *, shape: object = 2, sensitivity: object = 1,
                 dimension: object = None):
        self.scale: Fraction | arb = scale if isinstance(scale, arb) else parse_positive(scale, "scale")
        fixed = self.parse_fixed(shape=shape, sensitivity=sensitivity, dimension=dimension)
        self.shape = fixed["shape"]
        self.sensitivity = fixed["sensitivity"]

    # ------------------------------------------------------------------ parameters
    @classmethod
    def parse_fixed(cls, shape: object = 2, sensitivity: object = 1, dimension: object = None) -> dict[str, Any]:
        vec = parse_sensitivity_vector(sensitivity, dimension)
        return {"shape": parse_shape(shape), "sensitivity": vec[0] if len(vec) == 1 else vec}

    @property
    def value(self) -> Fraction | arb:
        return self.scale

    @property
    def dimension(self) -> int:
        return len(self.sensitivity) if isinstance(self.sensitivity, tuple) else 1

    def fixed_parameters(self) -> dict[str, Any]:
        return {"shape": self.shape, "sensitivity": self.sensitivity}

    @staticmethod
    def _active(sensitivity) -> tuple[Fraction, ...]:
        vec = sensitivity if isinstance(sensitivity, tuple) else (sensitivity,)
        return tuple(q for q in vec if q != 0)

    # ------------------------------------------------------------------ profile
    @classmethod
    def profile_ball(cls, value: arb, epsilon: arb, shape: Fraction | float = Fraction(2),
                     sensitivity: Any = Fraction(1)) -> arb:
        """Enclosure of delta_{p,b}(eps; Delta) for every b in the ball ``value``."""
        active = cls._active(sensitivity)
        if isinstance(shape, float) and math.isinf(shape):
            # 1 - prod (1 - Delta_i / (2b))_+   (App. B.4)
            prod = arb(1)
            for d in active:
                prod *= (1 - arb_of(d) / (2 * value)).nonnegative_part()
            return (1 - prod).min(arb(1))
        p = Fraction(shape)
        if len(active) == 1:
            d = arb_of(active[0])
            if p == 1:
                return delta_laplace(value, epsilon, d)
            if p == 2:
                return gaussian_profile(value / arb(2).sqrt(), epsilon, d)
            enc = delta_enclosure(arb_of(p), value, epsilon, d)
            return _UNDECIDED if enc is None else enc
        if p == 2:
            norm = sum((arb_of(d) ** 2 for d in active), arb(0)).sqrt()
            return gaussian_profile(value / arb(2).sqrt(), epsilon, norm)
        try:
            from certdp.engines.product_loss import product_delta_enclosure
        except ImportError:  # pragma: no cover - product engine not built
            raise InputError("sensitivity", "vector sensitivities with p not in {2, inf} need the product "
                                            "engine (certdp.engines.product_loss)") from None
        return product_delta_enclosure(p, value, epsilon, active)

    @classmethod
    def has_independent_path(cls, fixed: dict[str, Any]) -> bool:
        """Whether :meth:`independent_profile_ball` is a quadrature here (one active coordinate)."""
        return len(cls._active(fixed.get("sensitivity", Fraction(1)))) == 1

    @classmethod
    def independent_profile_ball(cls, value: arb, epsilon: arb, shape: Fraction | float = Fraction(2),
                                 sensitivity: Any = Fraction(1)) -> arb:
        """delta(eps) by an evaluation independent of :meth:`profile_ball` (used by ``verify``).

        One active coordinate: certified quadrature (``acb.integral``) of the hockey-stick
        integral, :mod:`certdp.engines.hockey_stick_integral` --
        ``ggm_profile_by_integration`` for 1 < p < inf (p = 2 included: the GGM integral,
        not the Gaussian closed form), ``laplace_profile_by_integration`` for p = 1 and
        ``uniform_profile_by_integration`` for p = inf.  Encloses delta for every point of
        the balls ``value`` and ``epsilon`` (propagated through the integrands); a
        non-finite ball means "undecided at this precision".

        Several active coordinates (a sensitivity vector with > 1 nonzero entries): there is
        no independent path; this returns :meth:`profile_ball` unchanged (``verify`` then
        amounts to a recomputation at higher precision).
        """
        active = cls._active(sensitivity)
        if len(active) != 1:
            return cls.profile_ball(value, epsilon, shape=shape, sensitivity=sensitivity)
        d = arb_of(active[0])
        if isinstance(shape, float) and math.isinf(shape):
            return uniform_profile_by_integration(value, epsilon, d)
        p = Fraction(shape)
        if p == 1:
            return laplace_profile_by_integration(value, epsilon, d)
        return ggm_profile_by_integration(value, epsilon, d, arb_of(p))

    @classmethod
    def float_candidate(cls, epsilon: float, log_delta: float, shape: Fraction | float = Fraction(2),
                        sensitivity: Any = Fraction(1)) -> float | None:
        """float64 estimate of b(p) (scipy incomplete gamma + Brent), or None."""
        active = cls._active(sensitivity)
        delta = math.exp(log_delta)
        if not (delta > 0):
            return None
        if isinstance(shape, float) and math.isinf(shape):
            if len(active) == 1:
                return float(active[0]) / (2.0 * delta)
            return None
        p = float(shape)
        if len(active) == 1:
            return float_scale(p, epsilon, delta, float(active[0]))
        if Fraction(shape) == 2:
            from certdp.mechanisms.gaussian import Gaussian

            norm = math.sqrt(sum(float(d) ** 2 for d in active))
            sigma = Gaussian.float_candidate(epsilon, log_delta, sensitivity=Fraction(norm))
            return None if sigma is None else sigma * math.sqrt(2.0)
        try:
            from certdp.engines.product_loss import float_product_scale
        except ImportError:  # pragma: no cover
            return None
        return float_product_scale(p, epsilon, delta, [float(d) for d in active])

    # ------------------------------------------------------------------ moments
    def _scale_ball(self) -> arb:
        return self.scale if isinstance(self.scale, arb) else arb_of(self.scale)

    def absolute_moment(self, m: int | Fraction = 2) -> arb:
        """Per-coordinate E|X_i|^m = b^m M_m(p) (seed 004 Sec. 2.4), as a ball."""
        return self._scale_ball() ** arb_of(m) * moment_factor(self._p_for_moment(), m)

    def _p_for_moment(self):
        return self.shape if isinstance(self.shape, float) else arb_of(self.shape)

    def mean_abs(self) -> arb:
        """E|X_i| = b Gamma(2/p)/Gamma(1/p) per coordinate (b/2 at p = inf)."""
        return self.absolute_moment(1)

    def mean_square(self) -> arb:
        """E||X||^2 = d b^2 Gamma(3/p)/Gamma(1/p) (d b^2/3 at p = inf)."""
        return self.dimension * self.absolute_moment(2)

    # ------------------------------------------------------------------ sampler
    def sample(self, size: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """Noise of shape ``size + (d,)`` (``size`` when d = 1): b * sign * G^(1/p), G ~ Gamma(1/p, 1).

        Floating point, not certified.  p = inf: uniform on [-b, b].
        """
        b = float(self._scale_ball().mid())
        shp = (size,) if isinstance(size, int) else tuple(size)
        if self.dimension > 1:
            shp = shp + (self.dimension,)
        if isinstance(self.shape, float):
            return rng.uniform(-b, b, size=shp)
        p = float(self.shape)
        g = rng.gamma(1.0 / p, 1.0, size=shp)
        signs = rng.choice(np.array([-1.0, 1.0]), size=shp)
        return b * signs * g ** (1.0 / p)
