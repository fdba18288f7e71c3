"""The (analytic) Gaussian mechanism: N(0, sigma^2 I_T) with l2 sensitivity Delta.

Privacy profile: closed form of Balle & Wang (2018), Thm. 8 (seed 003 Eq. 6),
:func:`certdp.engines.closed_form.gaussian_profile`. It is strictly
decreasing in sigma (Balle & Wang, Lemma 7 / seed 003 Eq. 7: g(u) decreases in
u = sigma^2), which is what makes the certified bracket on sigma valid.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable

import numpy as np
from flint import arb, ctx, fmpq

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
    la = log_ndtr(a - b)
    lb = log_ndtr(-a - b)
    gap = epsilon + lb - la
    if gap >= 0.0:
        return -math.inf
    return la + math.log1p(-math.exp(gap))


#: SciPy's ``log_ndtr``, imported on first use (``import certdp`` stays light) and then held here:
#: an import statement inside a function called 15 times per calibration costs more than the float
#: arithmetic it serves.
_LOG_NDTR: list = []


def _load_scipy() -> tuple:
    try:  # the scalar entry point of the same function (same C++ code, no ufunc dispatch; returns a float)
        from scipy.special.cython_special import log_ndtr
    except ImportError:  # pragma: no cover - older SciPy
        from scipy.special import log_ndtr as log_ndtr_ufunc

        def log_ndtr(x: float) -> float:
            return float(log_ndtr_ufunc(x))

    _LOG_NDTR[:] = [log_ndtr]
    return (log_ndtr,)


def _exact_ball(num: int, den: int) -> arb:
    """``arb_of(Fraction(num, den))`` for a reduced fraction: the ball of the rational at the current precision."""
    return arb(num) if den == 1 else arb(fmpq(num, den))


@lru_cache(maxsize=256)
def _profile_closure(eps_num: int, eps_den: int, sens_num: int, sens_den: int) -> Callable[[arb], arb]:
    """The closure of :meth:`Gaussian.profile_at` for epsilon = eps_num/eps_den, Delta = sens_num/sens_den."""
    constants: dict[int, tuple[arb, arb, arb, arb, arb, arb]] = {}

    def at_precision(prec: int) -> tuple[arb, arb, arb, arb, arb, arb]:
        eps, sens = _exact_ball(eps_num, eps_den), _exact_ball(sens_num, sens_den)
        constants[prec] = values = (eps, eps.exp(), sens, -sens, arb(2), arb(2).sqrt())
        return values

    def profile(sigma: arb) -> arb:
        prec = ctx.prec
        eps, exp_eps, sens, neg_sens, two, sqrt2 = constants.get(prec) or at_precision(prec)
        # arb_gaussian.privacy_profile(eps, sigma, sens), operation by operation:
        # -(Phi(-Delta/(2 sigma) - eps sigma/Delta) e^eps) + Phi(Delta/(2 sigma) - eps sigma/Delta),
        # Phi(v) = erfc(-v / sqrt 2) / 2 (the generated _Phi)
        two_sigma = two * sigma
        shift = -(eps * sigma) / sens
        low_phi = (-(neg_sens / two_sigma + shift) / sqrt2).erfc() / 2
        high_phi = (-(sens / two_sigma + shift) / sqrt2).erfc() / 2
        return -(low_phi * exp_eps) + high_phi

    return profile


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
    def profile_at(cls, epsilon: Fraction, sensitivity: Fraction = Fraction(1),
                   dimension: int = 1) -> Callable[[arb], arb]:
        """``t -> profile_ball(t, arb_of(epsilon), sensitivity)``, the same ball bit for bit.

        It performs the generated evaluator's Arb operations (``arb_gaussian.privacy_profile``:
        the same operations on the same balls, so the same midpoints and radii), with what does
        not depend on ``t`` computed once per working precision: the balls of ``epsilon`` and
        ``Delta``, ``exp(epsilon)`` and ``sqrt 2``. ``tests/test_gaussian_fast_path.py`` checks the
        equality. Closures are kept per exact ``(epsilon, Delta)`` (at most 256)."""
        return _profile_closure(epsilon.numerator, epsilon.denominator, sensitivity.numerator,
                                sensitivity.denominator)

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
        log_ndtr = _LOG_NDTR[0] if _LOG_NDTR else _load_scipy()[0]
        exp, log1p, inf = math.exp, math.log1p, math.inf

        def gap(log_sigma: float) -> float:
            # gaussian_log_delta_float(exp(log_sigma), epsilon, sens) - log_delta, inlined (the same
            # float operations in the same order: the same root bit for bit)
            sigma = exp(log_sigma)
            a = sens / (2.0 * sigma)
            b = epsilon * sigma / sens
            la = log_ndtr(a - b)
            lb = log_ndtr(-a - b)
            g = epsilon + lb - la
            return (-inf if g >= 0.0 else la + log1p(-exp(g))) - log_delta

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
