"""Certified shape search for the generalized Gaussian mechanism (seed 004 Sec. 4), 1-D sensitivity.

Problem.  For (eps, delta, Delta) let b(p) be the minimal privacy-feasible scale
of GGM(p, b) and F(p) = log L_m(p, b(p)) = m log b(p) + log M_m(p), with
M_m(p) = Gamma((m+1)/p)/Gamma(1/p) (1/(m+1) at p = inf).  Find p-hat and
certified numbers L* <= min_{p in [1, P_max] u {inf}} F(p) <= U* with U* - L* <= eta.

Rigorous interval bounds (our construction; the paper bounds |dH/dp| instead).
For an interval I = [a, c] we evaluate the privacy profile with p as an Arb
BALL covering I (:func:`certdp.engines.monotone_loss.delta_enclosure` encloses
delta_p(b) simultaneously for every p in the ball).  If that enclosure at a
scale b_lo lies entirely above delta, then delta_p(b_lo) > delta for every
p in I, and since delta_p(b) is decreasing in b (seed 004 Thm 3.2), b(p) > b_lo
for every p in I.  Hence

    inf_{p in I} F(p) >= m log b_lo + inf_{p in I} log M_m(p)  =: L_I,

the last term from Arb's log-gamma on the ball I.  No monotonicity of b(p) in
p is assumed anywhere.  Upper bounds come from points: at the midpoint p_I a
scale b_hi with delta_{p_I}(b_hi) <= delta proven gives F(p_I) <= U_I :=
m log b_hi + log M_m(p_I), and GGM(p_I, b_hi) is an actual
(eps, delta)-DP mechanism with L_m <= exp(U_I).  p = inf has the exact
closed form b(inf) = Delta / (2 delta).  Branch and bound (best-first on L_I,
pruning intervals with L_I > U*) stops when U* - L* <= eta; p-hat is the
point achieving U*.  Only the enclosure decides: float64 (SciPy) merely
proposes the trial scales.

The fast grid mode (:func:`grid_shape_search`) is float64 only and labelled an
ESTIMATE; it is for heatmaps (seed 004 Sec. 6 two-stage grid).
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from flint import arb

from certdp.engines.monotone_loss import delta_enclosure, delta_laplace, float_scale
from certdp.mechanisms.generalized_gaussian import log_moment_factor
from certdp.numbers import (
    InputError,
    UndecidedError,
    arb_of,
    decimal_bounds,
    exact_str,
    parse_positive,
    parse_probability,
    working_precision,
)

__all__ = ["ShapeSearchResult", "certified_shape_search", "grid_shape_search", "GridResult",
           "float_objective", "dyadic"]

_INF = math.inf


@dataclass
class ShapeSearchResult:
    """Outcome of the certified shape search (all bounds are on F = log L_m)."""

    epsilon: Fraction
    delta: Fraction
    sensitivity: Fraction
    moment: int
    tolerance: Fraction
    p_max: Fraction
    p_hat: Fraction | float
    scale: Fraction  # certified (eps, delta)-safe scale at p_hat
    objective_bounds: tuple[str, str]  # (L*, U*) outward-rounded decimals
    gap: float
    moment_upper: str  # certified upper bound on L_m(p_hat, scale)
    benchmarks: dict[str, dict[str, Any]]
    improvement_lower: float  # certified lower bound on 1 - L_m(p_hat)/min benchmark (percent)
    iterations: int
    evaluations: int
    seconds: float
    history: list[tuple[int, float, float]] = field(default_factory=list)  # (iteration, gap, best p)

    def p_hat_str(self) -> str:
        return "inf" if isinstance(self.p_hat, float) else exact_str(self.p_hat)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "shape-search",
            "mechanism": "ggm",
            "inputs": {"epsilon": exact_str(self.epsilon), "delta": exact_str(self.delta),
                       "sensitivity": exact_str(self.sensitivity), "moment": str(self.moment),
                       "tolerance": exact_str(self.tolerance), "p_max": exact_str(self.p_max)},
            "parameter": "scale",
            "shape": self.p_hat_str(),
            "shape_float": float(self.p_hat),
            "scale": exact_str(self.scale),
            "objective": f"log L_{self.moment}(p, b(p)) = {self.moment} log b(p) + log M_{self.moment}(p)",
            "objective_bounds": list(self.objective_bounds),
            "certified_gap": self.gap,
            "moment_upper": self.moment_upper,
            "benchmarks": self.benchmarks,
            "improvement_lower_percent": self.improvement_lower,
            "iterations": self.iterations,
            "evaluations": self.evaluations,
            "timing_seconds": self.seconds,
            "guarantee": (
                f"GGM(p = {self.p_hat_str()}, b = {exact_str(self.scale)}) is "
                f"({exact_str(self.epsilon)}, {exact_str(self.delta)})-DP for sensitivity "
                f"{exact_str(self.sensitivity)}; min over p in [1, {exact_str(self.p_max)}] u {{inf}} of "
                f"log L_{self.moment}(p, b(p)) lies in [{self.objective_bounds[0]}, {self.objective_bounds[1]}]"),
            "method": "branch and bound on p-intervals; delta enclosed for all p of an interval at once "
                      "(Arb balls), b(p) decreasing-in-b bracket; Arb log-gamma for M_m",
            "lemma": "seed 004 Thm 3.2 (monotone loss, delta decreasing in b), Sec. 4.3-4.4 (selection rule)",
        }


def dyadic(x: float | Fraction, bits: int = 60) -> Fraction:
    """``x`` rounded to ``bits`` significant bits, as an exact dyadic rational."""
    q = Fraction(x)
    if q == 0:
        return q
    e = q.numerator.bit_length() - q.denominator.bit_length()
    s = bits - e
    return Fraction(round(q * 2**s), 2**s) if s > 0 else Fraction(round(q / 2 ** (-s)) * 2 ** (-s))


class _Problem:
    """Certified building blocks for one (eps, delta, Delta, m)."""

    def __init__(self, eps: Fraction, delta: Fraction, sens: Fraction, m: int, prec: int = 64):
        self.eps, self.delta, self.sens, self.m = eps, delta, sens, m
        self.prec = prec
        self.eps_f, self.delta_f, self.sens_f = float(eps), float(delta), float(sens)
        self.float_cache: dict[Fraction, float | None] = {}
        self.evaluations = 0

    # --------------------------------------------------------------- floats (proposals only)
    def b_float(self, p: Fraction, hint: float | None = None) -> float | None:
        if p not in self.float_cache:
            if p == 1:
                val = float_scale(1.0, self.eps_f, self.delta_f, self.sens_f)
            else:
                val = float_scale(float(p), self.eps_f, self.delta_f, self.sens_f, hint=hint)
            self.float_cache[p] = val
        return self.float_cache[p]

    # --------------------------------------------------------------- certified pieces
    def _delta(self, p_ball: arb, b: arb) -> arb | None:
        self.evaluations += 1
        with working_precision(self.prec):
            return delta_enclosure(p_ball, b, arb_of(self.eps), arb_of(self.sens))

    def lower_bound(self, a: Fraction, c: Fraction, hint: float | None = None) -> tuple[arb, Fraction] | None:
        """(L_I ball, b_lo) with delta_p(b_lo) > delta proven for all p in [a, c]; None if undecided."""
        vals = [self.b_float(q, hint) for q in (a, (a + c) / 2, c)]
        if any(v is None for v in vals):
            return None
        bmin, bmax = min(vals), max(vals)
        margin = (bmax - bmin) / bmin + 1e-12
        slope = None
        with working_precision(self.prec):
            p_ball = arb_of(a).union(arb_of(c))
            target = arb_of(self.delta)
            b_try = bmin * (1.0 - margin)
            for _ in range(10):
                b_lo = dyadic(b_try)
                if b_lo <= 0:
                    return None
                enc = self._delta(p_ball, arb_of(b_lo))
                if enc is not None and enc.is_finite() and arb(enc.lower()) > target:
                    logm = log_moment_factor(p_ball, self.m)
                    val = self.m * arb_of(b_lo).log() + logm
                    return arb(val.lower()), b_lo
                if enc is not None and enc.is_finite() and slope is None:
                    slope = self._float_slope(float((a + c) / 2), b_try)
                if slope is not None and enc is not None and enc.is_finite():
                    # secant-style step: lower the scale by 1.5x the missing delta / |d delta / d b|
                    deficit = float(self.delta) - float(arb(enc.lower()).mid())
                    b_try = b_try - max(1.5 * deficit / slope, b_try * margin)
                else:
                    margin *= 2.0
                    b_try = bmin * (1.0 - margin)
        return None

    def _float_slope(self, p: float, b: float) -> float | None:
        """|d delta_p / d b| at (p, b) in float64 (a proposal heuristic only)."""
        from certdp.engines.monotone_loss import float_log_delta

        h = 1e-6
        l0 = float_log_delta(p, b, self.eps_f, self.sens_f)
        l1 = float_log_delta(p, b * (1 + h), self.eps_f, self.sens_f)
        if not (math.isfinite(l0) and math.isfinite(l1)):
            return None
        sl = (math.exp(l0) - math.exp(l1)) / (b * h)
        return sl if sl > 0 else None

    def safe_scale(self, p: Fraction | float) -> tuple[Fraction, arb]:
        """(b_hi, delta enclosure) with delta_p(b_hi) <= delta proven at the point p."""
        if isinstance(p, float):  # p = inf: exact
            b = self.sens / (2 * self.delta)
            with working_precision(self.prec):
                return b, arb_of(self.delta)
        guess = self.b_float(p)
        if guess is None:
            raise UndecidedError(f"shape search: no float candidate for b({float(p)})")
        rel = 2.0 ** -40
        for bits in (self.prec, 2 * self.prec, 4 * self.prec):
            for _ in range(12):
                b = dyadic(guess * (1.0 + rel))
                with working_precision(bits):
                    self.evaluations += 1
                    if p == 1:
                        enc = delta_laplace(arb_of(b), arb_of(self.eps), arb_of(self.sens))
                    else:
                        enc = delta_enclosure(arb_of(p), arb_of(b), arb_of(self.eps), arb_of(self.sens))
                    if enc is not None and enc.is_finite() and arb(enc.upper()) <= arb_of(self.delta):
                        return b, enc
                rel *= 8.0
            rel = 2.0 ** -40
        raise UndecidedError(f"shape search: could not certify a safe scale at p = {float(p)}")

    def unsafe_scale(self, p: Fraction) -> Fraction | None:
        """b_lo with delta_p(b_lo) > delta proven at the point p (so b(p) > b_lo)."""
        guess = self.b_float(p)
        if guess is None:
            return None
        rel = 2.0 ** -40
        for _ in range(12):
            b = dyadic(guess * (1.0 - rel))
            with working_precision(self.prec):
                self.evaluations += 1
                if p == 1:
                    enc = delta_laplace(arb_of(b), arb_of(self.eps), arb_of(self.sens))
                else:
                    enc = delta_enclosure(arb_of(p), arb_of(b), arb_of(self.eps), arb_of(self.sens))
                if enc is not None and enc.is_finite() and arb(enc.lower()) > arb_of(self.delta):
                    return b
            rel *= 8.0
        return None

    def objective_upper(self, p: Fraction | float) -> tuple[arb, Fraction]:
        b, _ = self.safe_scale(p)
        with working_precision(self.prec):
            val = self.m * arb_of(b).log() + log_moment_factor(p if isinstance(p, float) else arb_of(p), self.m)
            return arb(val.upper()), b

    def objective_enclosure(self, p: Fraction | float) -> tuple[arb, Fraction, Fraction | None]:
        """Two-sided enclosure of F(p) at a point, with the certified scale bracket."""
        b_hi, _ = self.safe_scale(p)
        if isinstance(p, float):
            with working_precision(self.prec):
                val = self.m * arb_of(b_hi).log() + log_moment_factor(p, self.m)
            return val, b_hi, b_hi
        b_lo = self.unsafe_scale(p)
        with working_precision(self.prec):
            logm = log_moment_factor(arb_of(p), self.m)
            hi = self.m * arb_of(b_hi).log() + logm
            lo = self.m * arb_of(b_lo).log() + logm if b_lo is not None else hi - 1000
            return arb(lo.lower()).union(arb(hi.upper())), b_hi, b_lo


def _initial_breakpoints(p_max: Fraction) -> list[Fraction]:
    pts = [Fraction(1), Fraction(9, 8), Fraction(5, 4), Fraction(3, 2), Fraction(7, 4), Fraction(2),
           Fraction(3), Fraction(4), Fraction(6), Fraction(8)]
    x = Fraction(16)
    while x < p_max:
        pts.append(x)
        x *= 2
    pts = [q for q in pts if q < p_max]
    pts.append(p_max)
    return pts


def certified_shape_search(epsilon: object, delta: object, sensitivity: object = 1, *, moment: int = 2,
                           tolerance: object = "1e-4", p_max: object = 1001,
                           progress: Callable[[float, int], None] | None = None,
                           max_iterations: int = 200_000) -> ShapeSearchResult:
    """Certified shape search (1-D sensitivity); see the module docstring for the guarantee."""
    start = time.perf_counter()
    eps = parse_positive(epsilon, "epsilon")
    dlt = parse_probability(delta, "delta")
    sens = parse_positive(sensitivity, "sensitivity")
    eta = parse_positive(tolerance, "tolerance")
    pmax = parse_positive(p_max, "p_max")
    if pmax <= 1:
        raise InputError("p_max", "must be > 1")
    if not isinstance(moment, int) or moment <= 0:
        raise InputError("moment", "must be a positive integer")
    prob = _Problem(eps, dlt, sens, moment)
    eta_f = float(eta)

    # p = inf (exact) and the benchmarks p = 1, 2
    f_inf, _b_inf = prob.objective_upper(_INF)
    best_u = float(f_inf.upper().mid())
    best_p: Fraction | float = _INF
    best_b: Fraction = prob.sens / (2 * prob.delta)
    f_inf_lower = float(arb(f_inf.lower()).mid())

    heap: list[tuple[float, Fraction, Fraction, float]] = []
    pts = _initial_breakpoints(pmax)

    def consider_point(p: Fraction) -> None:
        nonlocal best_u, best_p, best_b
        u, b = prob.objective_upper(p)
        uf = float(u.mid())  # u is an exact upper end; its double may round down by 1 ulp:
        uf = math.nextafter(uf, math.inf)
        if uf < best_u:
            best_u, best_p, best_b = uf, p, b

    def push(a: Fraction, c: Fraction) -> None:
        res = prob.lower_bound(a, c, hint=prob.float_cache.get(a))
        low = -math.inf if res is None else math.nextafter(float(res[0].mid()), -math.inf)
        heapq.heappush(heap, (low, a, c, float(c - a)))

    for q in pts[:-1]:
        consider_point(q)
    consider_point(pts[-1])
    for a, c in zip(pts[:-1], pts[1:]):
        push(a, c)

    history: list[tuple[int, float, float]] = []
    it = 0
    lower_star = -math.inf
    while heap and it < max_iterations:
        low, a, c, _w = heapq.heappop(heap)
        if low > best_u:
            continue  # pruned: L_I > U* (seed 004 Sec. 4.4)
        lower_star = min(low, f_inf_lower)
        gap = best_u - lower_star
        it += 1
        if it % 25 == 0 or gap <= eta_f:
            history.append((it, gap, float(best_p)))
            if progress is not None:
                progress(gap, prob.evaluations)
        if gap <= eta_f:
            heapq.heappush(heap, (low, a, c, _w))
            break
        if c - a < Fraction(1, 2**50):
            raise UndecidedError(f"shape search: interval [{float(a)}, {float(c)}] cannot be resolved")
        mid = dyadic((a + c) / 2, 64) if pmax.denominator == 1 else (a + c) / 2
        if not (a < mid < c):
            mid = (a + c) / 2
        ba, bc = prob.float_cache.get(a), prob.float_cache.get(c)
        if ba is not None and bc is not None:
            prob.b_float(mid, hint=0.5 * (ba + bc))  # Newton from the neighbours (float proposal)
        consider_point(mid)
        push(a, mid)
        push(mid, c)
    else:
        if heap:
            raise UndecidedError("shape search: iteration limit reached before the tolerance")
    if not heap:
        lower_star = f_inf_lower
    lower_star = min([lower_star] + [h[0] for h in heap if h[0] <= best_u] + [f_inf_lower])
    gap = best_u - lower_star

    # benchmarks p = 1, 2, inf: certified two-sided enclosures of L_m(p, b(p))
    benchmarks: dict[str, dict[str, Any]] = {}
    bench_upper_min = math.inf
    bench_lower_min = math.inf
    for key, p in (("1", Fraction(1)), ("2", Fraction(2)), ("inf", _INF)):
        enc, b_hi, b_lo = prob.objective_enclosure(p)
        with working_precision(prob.prec):
            lm = enc.exp()
            lo_s, hi_s = decimal_bounds(lm, 12)
        benchmarks[key] = {"scale_interval": [exact_str(b_lo) if b_lo is not None else None, exact_str(b_hi)],
                           "scale": f"{float(b_hi):.6g}", f"L{moment}_bounds": [lo_s, hi_s]}
        bench_upper_min = min(bench_upper_min, float(arb(enc.upper()).mid()))
        bench_lower_min = min(bench_lower_min, float(arb(enc.lower()).mid()))
    with working_precision(prob.prec):
        lo_s, hi_s = decimal_bounds(arb(lower_star), 12)
        obj_bounds = (lo_s, decimal_bounds(arb(best_u), 12)[1])
        moment_upper = decimal_bounds(arb(best_u).exp(), 12)[1]
    # improvement >= 1 - exp(U*)/min_benchmark >= 1 - exp(U* - lower(min benchmark F))
    improvement_lower = 100.0 * (1.0 - math.exp(best_u - bench_lower_min))
    return ShapeSearchResult(
        epsilon=eps, delta=dlt, sensitivity=sens, moment=moment, tolerance=eta, p_max=pmax,
        p_hat=best_p, scale=best_b, objective_bounds=obj_bounds, gap=gap, moment_upper=moment_upper,
        benchmarks=benchmarks, improvement_lower=improvement_lower, iterations=it,
        evaluations=prob.evaluations, seconds=time.perf_counter() - start, history=history,
    )


# ------------------------------------------------------------------------------------------
# Fast grid mode (float64 estimate, for heatmaps)
# ------------------------------------------------------------------------------------------

def float_objective(p: float, eps: float, delta: float, sens: float, m: int = 2,
                    hint: float | None = None) -> tuple[float, float | None]:
    """(F(p), b(p)) in float64: ESTIMATE only (SciPy), inf when the float solve fails."""
    b = float_scale(p, eps, delta, sens, hint=hint)
    if b is None:
        return math.inf, None
    if math.isinf(p):
        logm = -math.log(m + 1)
    else:
        logm = math.lgamma((m + 1) / p) - math.lgamma(1 / p)
    return m * math.log(b) + logm, b


@dataclass
class GridResult:
    """Two-stage grid estimate (seed 004 Sec. 6 "fast two-stage grid search"). NOT certified."""

    p_hat: float
    objective: float
    improvement_percent: float
    benchmark: str


def grid_shape_search(eps: float, delta: float, sens: float = 1.0, m: int = 2, p_max: float = 11.0,
                      coarse: float = 0.1, fine: float = 0.01) -> GridResult:
    """Coarse grid on [1, p_max] (step 0.1), then a fine grid (0.01) around the best point. Float64."""
    bench = {"1": float_objective(1.0, eps, delta, sens, m)[0],
             "2": float_objective(2.0, eps, delta, sens, m)[0],
             "inf": float_objective(math.inf, eps, delta, sens, m)[0]}
    best_p, best_f = 1.0, bench["1"]
    n = int(round((p_max - 1.0) / coarse))
    hint = None
    for i in range(n + 1):
        p = 1.0 + i * coarse
        f, hint = float_objective(p, eps, delta, sens, m, hint=hint)
        if f < best_f:
            best_p, best_f = p, f
    lo, hi = max(1.0, best_p - coarse), min(p_max, best_p + coarse)
    k = int(round((hi - lo) / fine))
    hint = None
    for i in range(k + 1):
        p = lo + i * fine
        f, hint = float_objective(p, eps, delta, sens, m, hint=hint)
        if f < best_f:
            best_p, best_f = p, f
    if bench["inf"] < best_f:
        best_p, best_f = math.inf, bench["inf"]
    key = min(bench, key=bench.get)
    improvement = 100.0 * (1.0 - math.exp(best_f - bench[key]))
    return GridResult(p_hat=best_p, objective=best_f, improvement_percent=max(improvement, 0.0),
                      benchmark=key)
