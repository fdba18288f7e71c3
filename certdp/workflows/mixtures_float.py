"""Float64 versions of seed 000's calibrations (NOT certified).

Used as candidates for the certified brackets, for the float-only column of the benchmark and
to compare with the paper's Julia numbers. Nothing here decides a privacy inequality.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import log_ndtr, ndtr

__all__ = ["qg_sigma1_float", "qg_sigma2_float", "qg_paper_sigma_float", "analytic_gaussian_sigma_float",
           "qg_moments_float", "mg_moments_float"]


def _h_sum(sigma: float, eps: float, delta: float, d: float) -> float:
    a = -eps * sigma / d
    h1 = math.exp(2 * eps + float(log_ndtr(a - d / sigma))) - float(ndtr(a + d / sigma))
    h2 = (math.exp(eps) + 2 * float(ndtr(d / sigma))) * delta
    return h1 + h2


def qg_sigma1_float(eps: float, delta: float, d: float = 1.0) -> float:
    """sigma_1 of Thm 4.2 (Alg. 3, first part; Lemma 4.3)."""
    if math.exp(eps) + 2 >= 1 / delta:
        return 0.0
    hi = math.sqrt(2 * (eps - math.log(delta))) * d / eps
    lo = hi * 1e-6
    while _h_sum(lo, eps, delta, d) >= 0:
        lo /= 10
    return brentq(lambda s: _h_sum(s, eps, delta, d), lo, hi, xtol=1e-15 * hi, rtol=1e-15, maxiter=500)


def _log_f(x: float, s: float, eps: float, d: float) -> float:
    return float(np.logaddexp(eps - x * x / (2 * s * s), -(x - d) ** 2 / (2 * s * s)))


def _log_ratio(s: float, eps: float, d: float) -> float:
    """log(max_{[0,D]} F / min_{[0,D]} F), F = e^eps g(x) + g(x - D) (Lemma 4.4 regions)."""
    grid = np.linspace(0.0, d, 401)
    vals = np.logaddexp(eps - grid ** 2 / (2 * s * s), -(grid - d) ** 2 / (2 * s * s))
    i_max = int(np.argmax(vals))
    i_min = int(np.argmin(vals))
    lo, hi = grid[max(i_max - 1, 0)], grid[min(i_max + 1, 400)]
    r = minimize_scalar(lambda x: -_log_f(x, s, eps, d), bounds=(lo, hi), method="bounded",
                        options={"xatol": 1e-13 * d})
    vmax = max(vals[i_max], -r.fun)
    lo, hi = grid[max(i_min - 1, 0)], grid[min(i_min + 1, 400)]
    r = minimize_scalar(lambda x: _log_f(x, s, eps, d), bounds=(lo, hi), method="bounded",
                        options={"xatol": 1e-13 * d})
    vmin = min(vals[i_min], r.fun)
    return vmax - vmin


def qg_sigma2_float(eps: float, d: float = 1.0) -> float:
    """sigma_2 of Thm 4.2: smallest sigma with max f_q <= e^eps min f_q on [0, Delta] (Lemma 4.5)."""
    hi = d / math.sqrt(2 * eps)
    if _log_ratio(hi, eps, d) - eps > 0:
        while _log_ratio(hi, eps, d) - eps > 0:
            hi *= 2
    lo = hi / 2
    while _log_ratio(lo, eps, d) - eps <= 0:
        lo /= 2
    return brentq(lambda s: _log_ratio(s, eps, d) - eps, lo, hi, xtol=1e-14 * hi, rtol=1e-14, maxiter=500)


def qg_paper_sigma_float(eps: float, delta: float, d: float = 1.0) -> float:
    """sigma = max(sigma_1, sigma_2) of Thm 4.2 (Alg. 3) in float64."""
    return max(qg_sigma1_float(eps, delta, d), qg_sigma2_float(eps, d))


def analytic_gaussian_sigma_float(eps: float, delta: float, d: float = 1.0) -> float:
    """Balle-Wang analytic Gaussian sigma in float64 (for tables and candidates only)."""

    def g(s: float) -> float:
        a, b = d / (2 * s), eps * s / d
        la = float(log_ndtr(a - b))
        lb = float(log_ndtr(-a - b))
        val = math.exp(la) - math.exp(eps + lb)
        return math.log(val) - math.log(delta) if val > 0 else -math.inf

    lo, hi = 1e-3 * d, 10.0 * d
    while g(hi) > 0:
        hi *= 2
    while g(lo) < 0:
        lo /= 2
    return brentq(g, lo, hi, xtol=1e-15 * hi, rtol=1e-15, maxiter=500)


def qg_moments_float(sigma: float, eps: float, d: float = 1.0) -> tuple[float, float]:
    """(E|X|, E X^2) of QG (App. C.4) in float64."""
    ph = float(ndtr(d / sigma))
    r2p = math.sqrt(2 * math.pi)
    c = r2p * sigma * (math.exp(eps) + 2 * ph)
    ea = (2 * math.exp(eps) * sigma ** 2 + 2 * (sigma ** 2 * math.exp(-d * d / (2 * sigma ** 2))
                                                  + d * sigma * r2p * ph)) / c
    e2 = (math.exp(eps) * r2p * sigma ** 3
          + 2 * sigma * r2p * (ph * (sigma ** 2 + d * d) + sigma * d * math.exp(-d * d / (2 * sigma ** 2)) / r2p)) / c
    return ea, e2


def mg_moments_float(sigma: float, eps: float, k_max: int, d: float = 1.0) -> tuple[float, float]:
    ks = np.arange(-k_max, k_max + 1)
    p = np.exp(-np.abs(ks) * eps)
    p /= p.sum()
    mu = ks * d
    ea = float(np.sum(p * (sigma * math.sqrt(2 / math.pi) * np.exp(-mu ** 2 / (2 * sigma ** 2))
                           + mu * (1 - 2 * ndtr(-mu / sigma)))))
    e2 = float(sigma ** 2 + np.sum(p * mu ** 2))
    return ea, e2
