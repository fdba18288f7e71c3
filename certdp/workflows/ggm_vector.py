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

__all__ = ["calibrate_vector", "VECTOR_GRID_STEP"]

VECTOR_GRID_STEP = 2.0**-13


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
    from certdp.engines.product_loss import float_product_scale, product_delta_bounds
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
    cand = float_product_scale(float(p), float(eps), float(dlt), [float(q) for q in active])
    if cand is None:
        raise UndecidedError("vector calibration: no float candidate")
    target = arb_of(dlt)
    w = rtol / 2
    b_hi = b_lo = None
    enc_hi = enc_lo = None
    evaluations = 0
    with working_precision(64):
        for _ in range(12):
            if b_hi is None:
                trial = dyadic(cand * (1 + w), 40)
                lo, hi = product_delta_bounds(p, arb_of(trial), arb_of(eps), active, dt=grid_step)
                evaluations += 1
                if arb(hi) <= target:
                    b_hi, enc_hi = trial, (lo, hi)
            if b_lo is None:
                trial = dyadic(cand * (1 - w), 40)
                lo, hi = product_delta_bounds(p, arb_of(trial), arb_of(eps), active, dt=grid_step)
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
               "float_candidate": repr(cand)},
    )
