"""The (analytic) Gaussian mechanism: N(0, sigma^2 I_T) with l2 sensitivity Delta.

Privacy profile: closed form of Balle & Wang (2018), Thm. 8 (seed 003 Eq. 6),
:func:`certdp.engines.closed_form.gaussian_profile`. It is strictly
decreasing in sigma (Balle & Wang, Lemma 7 / seed 003 Eq. 7: g(u) decreases in
u = sigma^2), which is what makes the certified bracket on sigma valid.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb

from certdp.engines.closed_form import gaussian_profile
from certdp.engines.hockey_stick_integral import gaussian_profile_by_integration
from certdp.generated import arb_gaussian, arb_sgg
from certdp.mechanisms.base import Mechanism, register
from certdp.numbers import arb_of, parse_positive, parse_positive_int
from certdp.numbers.float_brent import brent_root

__all__ = ["Gaussian", "gaussian_log_delta_float"]


def gaussian_log_delta_float(sigma: float, epsilon: float, sensitivity: float) -> float:
    """float64 log delta(eps) of the Gaussian mechanism (NOT certified: candidates and peers only)."""
    log_ndtr = _LOG_NDTR[0] if _LOG_NDTR else _load_scipy()[0]
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    la = float(log_ndtr(a - b))
    lb = float(log_ndtr(-a - b))
    gap = epsilon + lb - la
    if gap >= 0.0:
        return -math.inf
    return la + math.log1p(-math.exp(gap))


#: SciPy's ``log_ndtr``, imported on first use (``import certdp`` stays light) and then held here:
#: an import statement inside a function called 15 times per calibration costs more than the float
#: arithmetic it serves.
_LOG_NDTR: list = []


def _load_scipy() -> tuple:
    try:  # the scalar entry point of the same function (same C++ code, no ufunc dispatch)
        from scipy.special.cython_special import log_ndtr
    except ImportError:  # pragma: no cover - older SciPy
        from scipy.special import log_ndtr

    _LOG_NDTR[:] = [log_ndtr]
    return (log_ndtr,)


@register
class Gaussian(Mechanism):
    """Gaussian noise N(0, sigma^2) in each of ``dimension`` coordinates; l2 sensitivity ``sensitivity``.

    ``sigma`` may be exact (str / int / Fraction / Decimal / float) or an Arb
    ball (for audits of irrational claims such as the classic calibration).
    """

    name = "gaussian"
    aliases = ("analytic-gaussian", "spherical-gaussian-closed-form")
    parameter = "sigma"
    profile_increasing = False
    cheap_profile = True
    method = "closed-form analytic Gaussian profile evaluated on Arb balls; certified monotone bracket on sigma"
    lemma = "Balle & Wang 2018, Thm. 8 (seed 003 Eq. 6); delta decreasing in sigma (seed 003 Eq. 7)"

    def __init__(self, sigma: object, *, sensitivity: object = 1, dimension: object = 1):
        self.sigma: Fraction | arb = sigma if isinstance(sigma, arb) else parse_positive(sigma, "sigma")
        fixed = self.parse_fixed(sensitivity=sensitivity, dimension=dimension)
        self.sensitivity: Fraction = fixed["sensitivity"]
        self.dimension: int = fixed["dimension"]

    @classmethod
    def parse_fixed(cls, sensitivity: object = 1, dimension: object = 1) -> dict[str, Any]:
        return {
            "sensitivity": parse_positive(sensitivity, "sensitivity"),
            "dimension": parse_positive_int(dimension, "dimension"),
        }

    @property
    def value(self) -> Fraction | arb:
        return self.sigma

    def fixed_parameters(self) -> dict[str, Any]:
        return {"sensitivity": self.sensitivity, "dimension": self.dimension}

    @classmethod
    def profile_ball(cls, value: arb, epsilon: arb, sensitivity: Fraction = Fraction(1), dimension: int = 1) -> arb:
        return gaussian_profile(value, epsilon, arb_of(sensitivity))

    @classmethod
    def independent_profile_ball(cls, value: arb, epsilon: arb, sensitivity: Fraction = Fraction(1),
                                 dimension: int = 1) -> arb:
        """Same profile by certified quadrature of the hockey-stick integral (no erfc): used by `verify`."""
        return gaussian_profile_by_integration(value, epsilon, arb_of(sensitivity))

    @classmethod
    def float_candidate(cls, epsilon: float, log_delta: float, sensitivity: Fraction = Fraction(1),
                        dimension: int = 1) -> float | None:
        """Solve log delta(sigma) = log_delta in log sigma with Brent's method (float64).

        :func:`certdp.numbers.float_brent.brent_root` is SciPy's ``brentq`` ported line by line
        (the same root, bit for bit), fed the bracket-end values already computed here."""
        sens = float(sensitivity)
        if not (epsilon > 0 and math.isfinite(epsilon) and sens > 0 and math.isfinite(sens)):
            return None

        def gap(log_sigma: float) -> float:
            return gaussian_log_delta_float(math.exp(log_sigma), epsilon, sens) - log_delta

        classic = math.log(sens) + 0.5 * math.log(2.0 * (math.log(1.25) - log_delta)) - math.log(epsilon)
        lo, hi = classic - 2.0, classic + 0.5
        try:
            for _ in range(200):
                gap_lo = gap(lo)
                if gap_lo > 0:
                    break
                lo -= 2.0
            for _ in range(200):
                gap_hi = gap(hi)
                if gap_hi < 0:
                    break
                hi += 2.0
            if not (gap_lo > 0 > gap_hi):
                return None
            root = brent_root(gap, lo, hi, xtol=1e-15, rtol=8.9e-16, maxiter=200, fa=gap_lo, fb=gap_hi)
        except (ValueError, OverflowError, ZeroDivisionError):
            return None
        sigma = math.exp(root)
        return sigma if math.isfinite(sigma) and sigma > 0 else None

    # -------------------------------------------------------------- moments
    def _sigma_ball(self) -> arb:
        return self.sigma if isinstance(self.sigma, arb) else arb_of(self.sigma)

    def mean_abs(self) -> arb:
        """E|X| = sigma sqrt(2/pi) in 1-D; in T dimensions E||X|| = E R of the generalized-gamma
        radius with alpha = T - 1, p = 2, beta = 1/(2 sigma^2), i.e. sigma sqrt 2 Gamma((T+1)/2)/Gamma(T/2)."""
        sigma = self._sigma_ball()
        if self.dimension == 1:
            return arb_gaussian.mean_abs(sigma)
        return arb_sgg.radius_moment(1, self.dimension - 1, 1 / (2 * sigma**2), 2)

    def mean_square(self) -> arb:
        """E||X||^2 = T sigma^2."""
        return self.dimension * arb_gaussian.mean_square(self._sigma_ball())

    def sample(self, size: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        shape = (size,) if isinstance(size, int) else tuple(size)
        if self.dimension > 1:
            shape = shape + (self.dimension,)
        return rng.normal(0.0, float(self._sigma_ball().mid()), size=shape)
