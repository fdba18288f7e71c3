"""Seed 003 Figure 3 (Sec. 4.4): per-invocation MSE of the l2 mechanism (SGG, T = 10, alpha = 9, p = 1)
needed for k invocations to meet (eps_tot, delta) = (1, 1e-5), two accountants.

* ``sequential``: the certified single-step calibration at (eps/k, delta/k) (Alg. 4;
  ``certdp.calibrate("l2-laplace", ...)``, certified-bracket, safe end);
* ``accountant``: the certified calibration under composition (``compositions=k``, method
  ``composed-pld``): connect-the-dots pairs from the radial engine's certified profile
  (:mod:`certdp.accounting.dominating`), composed exactly on the lattice; safe end's composed
  upper bound <= delta, other end's composed lower bound > delta.
* ``float``: an UNCERTIFIED float64 re-run in the spirit of Alg. 7 (profile by Gauss-Legendre
  quadrature, :func:`certdp.mechanisms.sgg.sgg_delta_float`; loss masses from the slopes of the
  interpolated profile on a uniform epsilon grid -- connect-the-dots at grid points, no error
  bound; FFT-free direct convolution), solved for theta by Brent. It is a guess, printed only for
  comparison, and is also the float candidate of the certified calibration.

MSE = E||X||^2 = E R^2 = T (T + 1) theta^2 for the l2 mechanism (R ~ Gamma(T, theta)).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["float_composed_delta", "l2_laplace_composed_candidate", "sgg_composition_table"]

EPS, DELTA, T, ALPHA, P = Fraction(1), Fraction(1, 10**5), 10, 9, 1


def float_composed_delta(dimension: int, theta: float, sensitivity: float, count: int, epsilon: float,
                         points: int = 32, panels: int = 40, nodes: int = 8) -> float:
    """Float64 delta(eps) of ``count`` l2-Laplace steps (NOT certified; see the module docstring)."""
    from certdp.mechanisms.sgg import sgg_delta_float

    E = sensitivity / theta  # pure DP: the loss is bounded by s / theta
    e = np.linspace(0.0, E, points + 1)
    g = np.array([sgg_delta_float(dimension, dimension - 1.0, 1.0, 1.0 / theta, float(v), sensitivity,
                                  panels, nodes) or 0.0 for v in e])
    g[-1] = 0.0
    xn = np.exp(-e[::-1][:-1])
    gn = 1 - xn + xn * g[::-1][:-1]
    xs = np.concatenate([xn, np.exp(e)])
    gs = np.concatenate([gn, g])
    slopes = np.diff(np.concatenate([[1.0], gs])) / np.diff(np.concatenate([[0.0], xs]))
    q = np.clip(np.concatenate([slopes[1:], [0.0]]) - slopes, 0.0, None)
    p = q * xs  # P-masses at losses -E, ..., E on the uniform grid of step E / points
    law = p
    for _ in range(count - 1):
        law = np.convolve(law, p)
    n = len(law)
    losses = (np.arange(n) - (n - 1) / 2) * (E / points)
    sel = losses > epsilon
    return float(np.sum(law[sel] * -np.expm1(epsilon - losses[sel])))


def l2_laplace_composed_candidate(epsilon: float, log_delta: float, dimension: int, sensitivity: float,
                                  count: int) -> float | None:
    """Float theta with float_composed_delta(theta) = delta (Brent on log theta); a guess only."""
    from scipy.optimize import brentq

    target = math.exp(log_delta)

    def f(t: float) -> float:
        d = float_composed_delta(dimension, math.exp(t), sensitivity, count, epsilon)
        return math.log(max(d, 1e-300)) - math.log(target)

    lo = math.log(sensitivity / (epsilon * 4))
    hi = math.log(sensitivity * count / epsilon)
    try:
        if not (f(lo) > 0 > f(hi)):
            return None
        return math.exp(brentq(f, lo, hi, xtol=1e-4))
    except (ValueError, ArithmeticError):
        return None


def _mse(theta: Fraction) -> Fraction:
    return T * (T + 1) * theta * theta


def sgg_composition_table(ks: list[int], *, rtol: str = "1e-3", grid_bits: int | None = None,
                          with_float: bool = True, accountant_rtol: str | None = None) -> list[dict[str, Any]]:
    """One row per k: sequential and accountant theta brackets and MSEs (certified), float column."""
    import certdp

    rows = []
    for k in ks:
        row: dict[str, Any] = {"k": k}
        t0 = time.perf_counter()
        seq = certdp.calibrate("l2-laplace", epsilon=str(EPS / k), delta=str(DELTA / k), dimension=T, rtol=rtol)
        row["sequential_theta"] = [str(x) for x in seq.interval]
        row["sequential_mse"] = [str(float(_mse(Fraction(x)))) for x in seq.interval]
        row["sequential_seconds"] = round(time.perf_counter() - t0, 1)
        t1 = time.perf_counter()
        acc = certdp.calibrate("l2-laplace", epsilon=str(EPS), delta=str(DELTA), dimension=T, compositions=k,
                               grid_bits=grid_bits, rtol=accountant_rtol)
        row["accountant_theta"] = [str(x) for x in acc.interval]
        row["accountant_mse"] = [str(float(_mse(Fraction(x)))) for x in acc.interval]
        row["accountant_grid_step"] = acc.inputs.get("grid_step")
        row["accountant_seconds"] = round(time.perf_counter() - t1, 1)
        row["accountant_digest"] = acc.digest
        if acc.extra.get("notes"):
            row["accountant_notes"] = acc.extra["notes"]
        if with_float:
            th = l2_laplace_composed_candidate(float(EPS), math.log(float(DELTA)), T, 1.0, k)
            row["float_theta"] = None if th is None else f"{th:.6g}"
            row["float_mse"] = None if th is None else f"{T * (T + 1) * th * th:.6g}"
        rows.append(row)
    return rows
