"""The float reference of the Gaussian speed target, and the interleaved timing against it.

Standalone on purpose: it imports only SciPy and the public ``certdp.calibrate``, so
``benchmarks/compare_checkouts.py`` can run it against an *old* checkout (``PYTHONPATH`` = that
tree) and both checkouts are timed against the identical reference; ``benchmarks/bench_gaussian.py``
uses the same functions. Nothing here is certified; nothing here asserts a timing.
"""

from __future__ import annotations

import math
import statistics
import time

from scipy.optimize import brentq
from scipy.special import log_ndtr

import certdp


def plain_float_root(eps: float, log_d: float) -> float:
    """A plain float64 Brent root of log delta(log sigma) = log delta (NOT certified; the reference).

    SciPy ``brentq`` with ``log_ndtr`` on the analytic Gaussian's log-space formula (sensitivity 1),
    the bracket of ``Gaussian.float_candidate``; written here so the reference does not change with
    certdp."""

    def f(log_sigma: float) -> float:
        sigma = math.exp(log_sigma)
        a, b = 1.0 / (2.0 * sigma), eps * sigma
        la, lb = float(log_ndtr(a - b)), float(log_ndtr(-a - b))
        gap = eps + lb - la
        return (-math.inf if gap >= 0.0 else la + math.log1p(-math.exp(gap))) - log_d

    c = 0.5 * math.log(2.0 * (math.log(1.25) - log_d)) - math.log(eps)
    lo, hi = c - 2.0, c + 0.5
    while f(lo) <= 0:
        lo -= 2.0
    while f(hi) >= 0:
        hi += 2.0
    return math.exp(brentq(f, lo, hi, xtol=1e-15, rtol=8.9e-16, maxiter=200))


def interleaved_timing(grid: list[tuple[float, float]], reps: int = 21) -> dict[str, float]:
    """Per point: one warm-up, then ``reps`` interleaved rounds of the certified calibration, the
    float root, the certified calibration with its digest read (sealing is lazy) and with a
    never-seen epsilon (no input cache helps). Returns medians over points of per-point medians
    (seconds), the ratio certified / float (median and max) and the slowest certified point."""
    cert, flt, ratio, sealed, fresh = [], [], [], [], []
    for k, (e, d) in enumerate(grid):
        log_d = math.log(d)
        certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1)
        plain_float_root(e, log_d)
        tc, tf, ts, tn = [], [], [], []
        for r in range(reps):
            t0 = time.perf_counter()
            certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1)
            t1 = time.perf_counter()
            plain_float_root(e, log_d)
            t2 = time.perf_counter()
            certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1).digest
            t3 = time.perf_counter()
            certdp.calibrate("gaussian", epsilon=e * (1 + (k * reps + r + 1) * 2.0**-40), delta=d, sensitivity=1)
            t4 = time.perf_counter()
            tc.append(t1 - t0)
            tf.append(t2 - t1)
            ts.append(t3 - t2)
            tn.append(t4 - t3)
        c, f = statistics.median(tc), statistics.median(tf)
        cert.append(c)
        flt.append(f)
        ratio.append(c / f)
        sealed.append(statistics.median(ts))
        fresh.append(statistics.median(tn))
    med = statistics.median
    return {"certified": med(cert), "float_root": med(flt), "ratio": med(ratio), "ratio_max": max(ratio),
            "with_digest": med(sealed), "fresh_inputs": med(fresh), "certified_max": max(cert)}
