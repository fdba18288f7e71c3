"""The smallest sigma the exact engine certifies (QG or MG), through the foundation's
:func:`certified_monotone_bracket`, with the engine in decision mode (it stops as soon as ``delta(eps) <= delta`` or ``> delta`` is proven).  Monotonicity: MG by Lemma 3.4; for QG
it is *not proven* -- the certificate then states only that the safe end is private and the
other end is not.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

from flint import arb

from certdp.certificate import Certificate, Stopwatch
from certdp.engines.gaussian_mixture import DEFAULT_SETTINGS
from certdp.workflows.methods import METHODS
from certdp.numbers import (
    Bracket,
    InputError,
    arb_of,
    certified_monotone_bracket,
    parse_positive,
    parse_probability,
)
from certdp.workflows.mixtures.missed_peak import MissedPeak, missed_peak, retry_missed_peak

__all__ = ["exact_calibration"]


def exact_calibration(mechanism: str, *, epsilon: object, delta: object, rtol: object = Fraction(1, 10**6),
                      candidate: float | None = None, **fixed: Any) -> Certificate:
    """Smallest sigma certified by the exact engine (QG or MG) -- see the module docstring."""
    from certdp.mechanisms import get_mechanism
    from certdp.workflows.common import resolve_fixed

    clock = Stopwatch()
    cls = get_mechanism(mechanism)
    if cls.name not in ("quasi-gaussian", "multi-gaussian"):
        raise InputError("mechanism", "exact_calibration handles quasi-gaussian and multi-gaussian")
    eps = parse_positive(epsilon, "epsilon")
    dq = parse_probability(delta, "delta")
    tol = parse_positive(rtol, "rtol")
    params = resolve_fixed(cls, fixed)
    from certdp.engines.gaussian_mixture.float_guide import mg_peak_scale, mg_sigma_float, qg_paper_sigma_float

    # MG (own shape): the float guide's worst shift goes to the certified search, and a first probe
    # certified far above the target (a peak the guide missed) sends its argmax back to the guide
    mg_guided = cls.name == "multi-gaussian" and params.get("shape_epsilon") is None
    hints: list[float] = []
    scale: list[float | None] = []  # float width of the peak at the guide's worst shift (found once)

    def mg_candidate(shifts: Sequence[float] = ()) -> float | None:
        try:
            return mg_sigma_float(float(eps), float(dq), params["components"], float(params["sensitivity"]),
                                  shifts=shifts, argmax=hints)
        except (ValueError, ArithmeticError):
            return None

    def profile_from(first: float | None):
        def profile(t: arb) -> tuple[arb, arb]:
            extra: dict[str, Any] = {}
            if mg_guided and hints:
                if not scale:
                    scale.append(mg_peak_scale(float(t.mid()), float(eps), params["components"],
                                               float(params["sensitivity"]), hints[0]))
                extra = {"hints": list(hints), "argmax_out": [], "peak_scale": scale[0]}
            low, high = cls.profile_bounds(t, arb_of(eps), rel_tol=1e-9, target=arb_of(dq), **params, **extra)
            if extra and missed_peak(t, first, low, arb_of(dq)):
                raise MissedPeak(extra["argmax_out"][-1])
            return low, high
        return profile

    if candidate is None:
        if cls.name == "quasi-gaussian":
            try:
                candidate = qg_paper_sigma_float(float(eps), float(dq), float(params["sensitivity"]))
            except (ValueError, ArithmeticError):
                candidate = None
        else:
            candidate = mg_candidate()
    def first() -> Bracket:
        return certified_monotone_bracket(profile_from(candidate if mg_guided else None), dq, increasing=False,
                                          candidate=candidate, rtol=tol)

    def retry(shift: float) -> Bracket:
        hints.clear()
        retried = mg_candidate([shift])
        hints[:] = hints[-1:] + [shift]  # the guide's worst shift and the engine's
        scale.clear()
        return certified_monotone_bracket(profile_from(None), dq, increasing=False, candidate=retried, rtol=tol)

    br = retry_missed_peak(first, retry)
    method = METHODS["exact-mixture-engine"]
    return Certificate.for_calibration(
        claim=method.claim(cls), mechanism=cls.name, parameter="sigma", parameters=params, epsilon=eps,
        delta=dq, rtol=tol, interval=(br.lo, br.hi), safe_side="upper", method=method.name,
        lemma=method.lemma(cls), delta_enclosure=br.delta_at_safe, precision_bits=br.precision_bits,
        timing_seconds=clock.elapsed(),
        extra={"evaluations": br.evaluations, "delta_enclosure_at_unsafe_end": br.delta_at_unsafe.strings(),
               "settings": DEFAULT_SETTINGS.as_dict()},
    )
