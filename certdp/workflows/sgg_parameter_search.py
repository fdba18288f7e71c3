"""Shape search for SGG noise (seed 003 Alg. 5) and the advantage search (Alg. 6).

Alg. 5 asks for the (alpha, p) that minimise the MSE ``E R^2`` subject to
(eps, delta)-DP.  For fixed (alpha, p) the rate is calibrated (Alg. 4), so the
problem is a 2-D minimisation of

    MSE(alpha, p) = Gamma(k + 2/p) / Gamma(k) * beta*(alpha, p)^(-2/p),   k = (alpha+1)/p.

"Fast, then certain": the search runs on float64 estimates (SciPy quadrature
of Lemma 4.1 + Brent for ``beta*``; nothing here is certified), over
``alpha = -1 + T * sigmoid(a)`` (so alpha stays in (-1, T-1]) and ``log p``,
with Nelder-Mead from a few starts (the paper uses Bayesian optimisation; any
decent optimiser serves, since only the final answer is certified).  The
optimum is then rounded to exact decimals and **certified**: the rate by the
certified bracket of :func:`certdp.workflows.calibrate.calibrate` (safe end =
smaller beta), the MSE as an Arb ball at that safe rate, and the two
baselines (analytic Gaussian, l2-Laplace) by their own certified
calibrations.  The reported MSE ratios are therefore certified comparisons of
*certified-private* mechanisms (each baseline at its own safe end).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable


from certdp.certificate import Certificate
from certdp.mechanisms.gaussian import Gaussian
from certdp.mechanisms.sgg import radial_moment, sgg_rate_candidate
from certdp.numbers import arb_of, parse_positive, parse_positive_int, parse_probability, working_precision

__all__ = ["ShapeEstimate", "SearchResult", "float_mse", "search_shape", "certify_shape",
           "optimize_sgg", "baseline_mse_float"]


def float_mse(dimension: int, alpha: float, power: float, epsilon: float, delta: float,
              sensitivity: float = 1.0, fast: bool = False) -> tuple[float, float] | None:
    """float64 (MSE, beta) of the calibrated SGG(alpha, ., p); None if the calibration failed.

    ``fast`` uses a coarser quadrature (about 4x cheaper, ~1e-4 relative) for searches.
    """
    grid = {"panels": 100, "nodes": 10} if fast else {}
    beta = sgg_rate_candidate(dimension, alpha, power, epsilon, math.log(delta), sensitivity, **grid)
    if beta is None:
        return None
    k = (alpha + 1.0) / power
    log_mse = math.lgamma(k + 2.0 / power) - math.lgamma(k) - (2.0 / power) * math.log(beta)
    return math.exp(log_mse), beta


def baseline_mse_float(dimension: int, epsilon: float, delta: float, sensitivity: float = 1.0) -> dict[str, float]:
    """float64 MSE of the analytic Gaussian (T sigma^2) and of the l2-Laplace mechanism (SGG(T-1, ., 1))."""
    sigma = Gaussian.float_candidate(epsilon, math.log(delta), sensitivity=Fraction(repr(sensitivity)))
    out = {"gaussian": dimension * sigma * sigma if sigma else math.nan}
    l2 = float_mse(dimension, dimension - 1.0, 1.0, epsilon, delta, sensitivity)
    out["l2-laplace"] = l2[0] if l2 else math.nan
    return out


@dataclass
class ShapeEstimate:
    alpha: float
    power: float
    beta: float
    mse: float


@dataclass
class SearchResult:
    """Float search result plus the certified final answer (see :func:`certify_shape`)."""

    dimension: int
    epsilon: str
    delta: str
    sensitivity: str
    estimate: ShapeEstimate
    alpha: Fraction | None = None
    power: Fraction | None = None
    certificate: Certificate | None = None
    mse_enclosure: tuple[str, str] | None = None
    baselines: dict[str, dict[str, Any]] = field(default_factory=dict)
    evaluations: int = 0

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "dimension": self.dimension, "epsilon": self.epsilon, "delta": self.delta,
            "sensitivity": self.sensitivity,
            "float_estimate": {"alpha": self.estimate.alpha, "power": self.estimate.power,
                               "rate": self.estimate.beta, "mse": self.estimate.mse},
            "float_evaluations": self.evaluations,
        }
        if self.certificate is not None:
            d.update({
                "alpha": str(self.alpha), "power": str(self.power),
                "rate_safe": str(self.certificate.value),
                "rate_interval": [str(x) for x in self.certificate.interval],
                "mse_enclosure": list(self.mse_enclosure),
                "baselines": self.baselines,
                "certificate_digest": self.certificate.digest,
            })
        return d


def search_shape(dimension: int, epsilon: float, delta: float, sensitivity: float = 1.0, *,
                 starts: list[tuple[float, float]] | None = None, maxfev: int = 60, fast: bool = False,
                 progress: Callable[[int], None] | None = None) -> tuple[ShapeEstimate, int]:
    """float64 Nelder-Mead over (alpha, log p) minimising the calibrated MSE (NOT certified)."""
    from scipy.optimize import minimize

    T = int(dimension)
    count = [0]
    cache: dict[tuple[float, float], float] = {}

    def unpack(x) -> tuple[float, float]:
        a = -1.0 + T / (1.0 + math.exp(-x[0]))
        a = min(a, T - 1.0)
        return a, math.exp(x[1])

    def objective(x) -> float:
        alpha, power = unpack(x)
        key = (round(alpha, 10), round(power, 10))
        if key in cache:
            return cache[key]
        count[0] += 1
        if progress is not None:
            progress(count[0])
        if not (0.2 <= power <= 12.0):
            val = 1e300
        else:
            res = float_mse(T, alpha, power, epsilon, delta, sensitivity, fast=fast)
            val = math.log(res[0]) if res else 1e300
        cache[key] = val
        return val

    def logit(alpha: float) -> float:
        u = (alpha + 1.0) / T
        u = min(max(u, 1e-6), 1 - 1e-9)
        return math.log(u / (1 - u))

    if starts is None:
        # coarse grid (alpha in {T-1, (T-1)/2, 0}, p log-spaced in [0.6, 4]), then polish the best 2
        grid = []
        for a0 in sorted({T - 1.0 - 1e-6, (T - 1.0) / 2, 0.0}, reverse=True):
            for p0 in (0.6, 0.8, 1.0, 1.25, 1.6, 2.0, 2.6, 3.3, 4.0):
                grid.append((objective([logit(a0), math.log(p0)]), a0, p0))
        grid.sort()
        starts = [(a0, p0) for _, a0, p0 in grid[:2]]
    best = None
    for a0, p0 in starts:
        x0 = [logit(a0), math.log(p0)]
        simplex = [x0, [x0[0] - 1.0, x0[1]], [x0[0], x0[1] + 0.15]]
        res = minimize(objective, x0, method="Nelder-Mead",
                       options={"maxfev": maxfev, "xatol": 1e-3, "fatol": 1e-5, "initial_simplex": simplex})
        if best is None or res.fun < best.fun:
            best = res
    alpha, power = unpack(best.x)
    f = float_mse(T, alpha, power, epsilon, delta, sensitivity)
    return ShapeEstimate(alpha, power, f[1], f[0]), count[0]


def _round_exact(x: float, digits: int = 4) -> Fraction:
    return Fraction(f"{x:.{digits}g}")


def certify_shape(dimension: int, alpha: Fraction, power: Fraction, epsilon: object, delta: object,
                  sensitivity: object = 1, rtol: object = "1e-6") -> tuple[Certificate, tuple[str, str]]:
    """Certified calibration of SGG(alpha, ., p) and the certified MSE enclosure at the safe rate."""
    from certdp.numbers.balls import ball_endpoints
    from certdp.workflows.calibrate import calibrate

    cert = calibrate("sgg", epsilon=epsilon, delta=delta, rtol=rtol, dimension=dimension,
                     alpha=alpha, power=power, sensitivity=sensitivity)
    with working_precision(128):
        mse = radial_moment(2, arb_of(alpha), arb_of(power), arb_of(Fraction(str(cert.value))))
        lo, hi = ball_endpoints(mse)
    return cert, (f"{float(lo):.10g}", f"{float(hi):.10g}")


def certified_baselines(dimension: int, epsilon: object, delta: object, sensitivity: object = 1,
                        rtol: object = "1e-6", include_l2: bool = True) -> dict[str, dict[str, Any]]:
    """Certified lower bounds on the minimal MSE of the analytic Gaussian (T sigma^2) and of the
    l2-Laplace mechanism (E R^2 = T(T+1) theta^2), from the unsafe ends of their certified brackets."""
    from certdp.workflows.calibrate import calibrate

    out: dict[str, dict[str, Any]] = {}
    g = calibrate("gaussian", epsilon=epsilon, delta=delta, rtol=rtol, sensitivity=sensitivity)
    # the exact minimal sigma lies in [lo, hi]: T lo^2 is a certified LOWER bound on the minimal MSE
    sigma = Fraction(str(g.interval[0]))
    out["gaussian"] = {"sigma_interval": [str(x) for x in g.interval], "mse_lower": float(dimension * sigma * sigma)}
    if include_l2:
        lap = calibrate("l2-laplace", epsilon=epsilon, delta=delta, rtol=rtol, dimension=dimension,
                        sensitivity=sensitivity)
        theta = Fraction(str(lap.interval[0]))
        out["l2-laplace"] = {"theta_interval": [str(x) for x in lap.interval],
                             "mse_lower": float(dimension * (dimension + 1) * theta * theta)}
    return out


def optimize_sgg(dimension: object, epsilon: object, delta: object, sensitivity: object = 1, *,
                 certify: bool = True, baselines: bool = True, maxfev: int = 60,
                 progress: Callable[[int], None] | None = None) -> SearchResult:
    """Alg. 5: float search for the MSE-optimal (alpha, p), then a certified final answer.

    ``alpha`` and ``p`` of the answer are the float optimum rounded to 4
    significant digits (exact decimals); the certificate proves the returned
    rate (eps, delta)-DP for *that* (alpha, p).  Optimality itself is a float
    claim (the search is heuristic); the MSE and the baselines' MSEs are
    certified at their safe ends.
    """
    T = parse_positive_int(dimension, "dimension")
    eps = parse_positive(epsilon, "epsilon")
    dq = parse_probability(delta, "delta")
    s = parse_positive(sensitivity, "sensitivity")
    est, n = search_shape(T, float(eps), float(dq), float(s), maxfev=maxfev, progress=progress)
    from certdp.numbers import exact_str

    result = SearchResult(T, exact_str(eps), exact_str(dq), exact_str(s), est, evaluations=n)
    if certify:
        alpha = min(_round_exact(est.alpha), Fraction(T - 1))
        if alpha <= -1:
            alpha = Fraction(-999, 1000)
        power = _round_exact(est.power)
        cert, mse = certify_shape(T, alpha, power, eps, dq, s)
        result.alpha, result.power, result.certificate, result.mse_enclosure = alpha, power, cert, mse
        if baselines:
            result.baselines = certified_baselines(T, eps, dq, s)
            best_base = min(v["mse_lower"] for v in result.baselines.values())
            result.baselines["reduction_vs_best_baseline"] = {
                "ratio_upper": float(mse[1]) / best_base,
                "reduction_percent_at_least": 100.0 * (1.0 - float(mse[1]) / best_base),
            }
    return result
