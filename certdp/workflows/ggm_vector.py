"""Certified GGM calibration for a sensitivity VECTOR (seed 004 Sec. 3.3-3.6), through the product engine.

:func:`calibrate_vector` brackets the scale ``b(p)`` of GGM(p) for a sensitivity vector: with
``p = 2``, ``p = inf`` or one non-zero entry by the exact 1-D calibration, otherwise by the
deterministic, pessimistic product-loss engine (:mod:`certdp.engines.product_loss`).
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb

from certdp.numbers import (
    UndecidedError,
    arb_of,
    decimal_bounds,
    exact_str,
    parse_positive,
    parse_probability,
    working_precision,
)
from certdp.workflows.ggm_shape_search import dyadic
from certdp.workflows.methods import METHODS

__all__ = ["calibrate_vector", "vector_shape_search", "VECTOR_GRID_STEP", "CUT_POINTS_SHARED"]

VECTOR_GRID_STEP = 2.0**-13
#: ``extra["cut_points"]`` of a vector certificate whose enclosures used one set of standardized cut
#: points, chosen at ``extra["float_candidate"]``, at every scale (``verify`` rebuilds them from it;
#: a certificate without the key cut each scale at itself, as certdp did before).
CUT_POINTS_SHARED = "standardized at the float candidate"


def calibrate_vector(shape: object, epsilon: object, delta: object, sensitivity: object, *,
                     grid_step: float = VECTOR_GRID_STEP, rtol: float = 2e-3):
    """Certified scale bracket for GGM(p) with a sensitivity VECTOR, as a Certificate.

    p = 2 and p = inf (and vectors with one non-zero entry) use the exact
    calibration (closed forms / 1-D engine) through :func:`certdp.workflows.calibrate.calibrate`.
    Otherwise delta is enclosed by :func:`certdp.engines.product_loss.product_delta_bounds`
    (deterministic, pessimistic discretisation): the safe end b_hi has a proven upper
    bound <= delta, the other end b_lo a proven lower bound > delta, so the exact
    minimal scale b(p) lies in (b_lo, b_hi].  The bracket's relative width is limited
    by the grid (about 1e-3 at the default step), not by precision.  No Monte Carlo,
    no alpha slack: the mechanism at b_hi is (eps, delta)-DP outright.
    """
    from certdp.certificate import Certificate, Stopwatch
    from certdp.engines.product_loss import float_product_scale, product_delta_bounds, standard_coordinates
    from certdp.mechanisms.generalized_gaussian import GeneralizedGaussian, parse_sensitivity_vector, parse_shape
    from certdp.workflows.calibrate import calibrate

    p = parse_shape(shape)
    vec = parse_sensitivity_vector(sensitivity)
    active = tuple(q for q in vec if q != 0)
    if isinstance(p, float) or p == 2 or len(active) == 1:
        return calibrate("ggm", epsilon=epsilon, delta=delta, shape=shape,
                         sensitivity=",".join(exact_str(q) for q in vec) if len(vec) > 1 else vec[0])
    clock = Stopwatch()
    eps = parse_positive(epsilon, "epsilon")
    dlt = parse_probability(delta, "delta")
    # the walk's first steps are rtol/2 wide: a candidate to 1e-5 is plenty
    cand = float_product_scale(float(p), float(eps), float(dlt), [float(q) for q in active], polish_tol=1e-5)
    if cand is None:
        raise UndecidedError("vector calibration: no float candidate")
    target = arb_of(dlt)
    w = rtol / 2
    b_hi = b_lo = None
    enc_hi = enc_lo = None
    evaluations = 0
    with working_precision(64):
        # cut points and bin masses once, at the candidate scale: every trial scale reuses them
        standard = standard_coordinates(p, cand, active, dt=grid_step)
        for _ in range(12):
            if b_hi is None:
                trial = dyadic(cand * (1 + w), 40)
                lo, hi = product_delta_bounds(p, arb_of(trial), arb_of(eps), active, dt=grid_step,
                                              standard=standard)
                evaluations += 1
                if arb(hi) <= target:
                    b_hi, enc_hi = trial, (lo, hi)
            if b_lo is None:
                trial = dyadic(cand * (1 - w), 40)
                lo, hi = product_delta_bounds(p, arb_of(trial), arb_of(eps), active, dt=grid_step,
                                              standard=standard)
                evaluations += 1
                if arb(lo) > target:
                    b_lo, enc_lo = trial, (lo, hi)
            if b_hi is not None and b_lo is not None:
                break
            w *= 2
    if b_hi is None or b_lo is None:
        raise UndecidedError("vector calibration: could not certify a bracket (refine grid_step)")
    params = GeneralizedGaussian.parse_fixed(shape=shape, sensitivity=sensitivity)
    method = METHODS["product-loss-engine"]
    return Certificate.for_calibration(
        claim=method.claim(GeneralizedGaussian), mechanism="ggm", parameter="scale", parameters=params,
        epsilon=eps, delta=dlt, interval=(b_lo, b_hi), safe_side="upper", method=method.name,
        lemma=method.lemma(GeneralizedGaussian), inputs={"grid_step": Fraction(grid_step)},
        delta_enclosure=decimal_bounds(arb(enc_hi[0]).union(arb(enc_hi[1])), 17),
        precision_bits=64, timing_seconds=clock.elapsed(),
        extra={"evaluations": evaluations,
               "delta_enclosure_at_unsafe_end": list(decimal_bounds(arb(enc_lo[0]).union(arb(enc_lo[1])), 17)),
               "float_candidate": repr(cand), "cut_points": CUT_POINTS_SHARED},
    )


def vector_shape_search(epsilon: object, delta: object, sensitivity: object, *, moment: int = 2,
                        p_max: float = 4.0, evaluations: int = 14, progress=None) -> dict:
    """Shape choice for GGM with a sensitivity VECTOR: float search for p-hat, certified comparison.

    What is certified and what is not:

    * p-hat comes from a float64 golden-section search of ``m log b(p) + log M_m(p)`` over
      ``[1, p_max]`` with the float product-loss scale (NOT certified: p-hat is a heuristic
      optimum; the interval branch and bound of the 1-D search needs bin masses over p-balls,
      see docs/ggm.md);
    * the scale at p-hat is a certified bracket (:func:`calibrate_vector`), so GGM(p-hat, b_safe)
      is (eps, delta)-DP and ``E|X_i|^m = M_m(p-hat) b_safe^m`` is a certified *upper* bound;
    * the benchmarks p = 1, 2, inf are certified brackets too; their unsafe ends give certified
      *lower* bounds on their minimal ``E|X_i|^m``, so ``improvement_lower_percent`` is a certified
      lower bound on the gain of p-hat over the best benchmark.

    Returns a JSON-able dict (``kind = "shape-search-vector"``).
    """
    import math
    import time

    from certdp.engines.product_loss import float_product_scale
    from certdp.mechanisms.generalized_gaussian import moment_factor, parse_sensitivity_vector

    t0 = time.perf_counter()
    eps = parse_positive(epsilon, "epsilon")
    dlt = parse_probability(delta, "delta")
    vec = parse_sensitivity_vector(sensitivity)
    active = [float(q) for q in vec if q != 0]
    ef, df = float(eps), float(dlt)

    def objective(p: float) -> float:
        b = float_product_scale(p, ef, df, active, polish=False)
        if b is None:
            return math.inf
        return moment * math.log(b) + float(moment_factor(arb(p), moment).log().mid())

    # golden-section search on [1, p_max] (float; the objective is unimodal in the paper's tables)
    g = (math.sqrt(5) - 1) / 2
    a, c = 1.0, float(p_max)
    x1, x2 = c - g * (c - a), a + g * (c - a)
    f1, f2 = objective(x1), objective(x2)
    for i in range(max(evaluations - 2, 0)):
        if f1 <= f2:
            c, x2, f2 = x2, x1, f1
            x1 = c - g * (c - a)
            f1 = objective(x1)
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + g * (c - a)
            f2 = objective(x2)
        if progress is not None:
            progress(i + 1, evaluations)
    p_hat = Fraction(f"{(x1 if f1 <= f2 else x2):.4g}")

    def certified(shape):
        cert = calibrate_vector(shape, eps, dlt, ",".join(exact_str(q) for q in vec))
        lo, hi = (Fraction(x) for x in cert.interval)
        with working_precision(128):
            mf = moment_factor(arb_of(shape) if shape != "inf" else arb("inf"), moment) if shape != "inf" \
                else arb(1) / (moment + 1)
            upper = mf * arb_of(hi) ** moment
            lower = mf * arb_of(lo) ** moment
        return cert, lower, upper

    sel_cert, _, sel_upper = certified(p_hat)
    benchmarks = {}
    best_lower = None
    for name in ("1", "2", "inf"):
        cert, lower, upper = certified(name if name != "inf" else "inf")
        benchmarks[name] = {"scale_interval": [str(x) for x in cert.interval], "safe_scale": str(cert.value),
                            f"L{moment}_bounds": list(decimal_bounds(lower.union(upper), 8)),
                            "method": cert.method}
        best_lower = lower if best_lower is None or lower < best_lower else best_lower
    with working_precision(128):
        gain = 1 - sel_upper / best_lower
    return {
        "kind": "shape-search-vector",
        "mechanism": "ggm",
        "inputs": {"epsilon": exact_str(eps), "delta": exact_str(dlt),
                   "sensitivity": ",".join(exact_str(q) for q in vec), "moment": str(moment),
                   "p_max": repr(float(p_max))},
        "shape": exact_str(p_hat),
        "shape_certified_optimal": False,
        "shape_search": f"float64 golden section over [1, {p_max:g}], {evaluations} evaluations (heuristic)",
        "scale_interval": [str(x) for x in sel_cert.interval],
        "scale": str(sel_cert.value),
        f"L{moment}_upper_per_coordinate": decimal_bounds(sel_upper, 8)[1],
        "benchmarks": benchmarks,
        "improvement_lower_percent": float(gain.lower().mid()) * 100 if gain.is_finite() else None,
        "guarantee": (f"GGM(p = {exact_str(p_hat)}, b = {sel_cert.value}) is ({exact_str(eps)}, {exact_str(dlt)})-DP "
                      f"for the sensitivity vector ({', '.join(exact_str(q) for q in vec)}); its E|X_i|^{moment} is at "
                      f"least {float(gain.lower().mid()) * 100:.2f} % below the minimal E|X_i|^{moment} of "
                      f"p = 1, 2, inf (certified); that p-hat is optimal is a float (heuristic) claim"),
        "method": sel_cert.method,
        "timing_seconds": round(time.perf_counter() - t0, 3),
    }
