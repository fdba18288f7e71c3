"""Certified ``delta(eps)`` of a mixture mechanism at a given sigma, and audit witnesses.

:func:`mixture_profile_value` is what ``certdp profile quasi-gaussian|multi-gaussian`` and
``certdp audit multi-gaussian`` compute: the exact engine's certified enclosure of
``delta(eps) = sup_{|phi| <= Delta} H(phi)`` (in decision mode when a claimed ``target`` delta is
given) and, when the claim is refuted, a witness: the worst shift, the set where
``f(x + phi) > e^eps f(x)`` and the certified lower bound on ``H`` there.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from flint import arb

from certdp.numbers import Decision, arb_of, decimal_bounds, parse_positive, working_precision

if TYPE_CHECKING:
    from certdp.certificate import Certificate

__all__ = ["MixtureProfileValue", "mixture_profile_value", "mixture_audit", "check_mixture_witness"]


@dataclass(frozen=True)
class MixtureProfileValue:
    """Plain result of :func:`mixture_profile_value`: ``delta_enclosure`` as outward-rounded decimal
    strings, the engine's search statistics and, for a refuted claim, the ``witness``."""

    lower: str
    upper: str
    argmax: float  # worst shift, as a fraction of the sensitivity (sign: direction)
    intervals: int
    point_evaluations: int
    decided: Decision  # YES: delta(eps) <= target proven, NO: > target proven (UNKNOWN without a target)
    witness: dict[str, Any] | None = None

    @property
    def verdict(self) -> str:
        """``VALID`` / ``VIOLATED`` / ``UNDECIDED`` for the claimed target delta."""
        return {Decision.YES: "VALID", Decision.NO: "VIOLATED"}.get(self.decided, "UNDECIDED")


def mixture_profile_value(name: str, sigma: str, epsilon: str, sensitivity: str, components: int | None,
                          target: str | None = None, rel_tol: float = 1e-8) -> MixtureProfileValue:
    """Certified ``delta(eps)`` of ``name`` (``"multi-gaussian"`` with ``components`` K, or
    ``"quasi-gaussian"``) at ``sigma``; with ``target``, decided against it, plus a witness when
    ``delta(eps) > target`` is proven. 128-bit working precision."""
    from certdp.engines.gaussian_mixture import privacy_profile_sup, witness_at_shift
    from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
    from certdp.mechanisms.quasi_gaussian import quasi_gaussian_mixture

    s = parse_positive(sigma, "sigma")
    e = parse_positive(epsilon, "epsilon")
    d = parse_positive(sensitivity, "sensitivity")
    with working_precision(128):
        e_arb = arb_of(e)  # one object for mixture and engine: exact weight ties (engine docstring)
        hints: list[float] = []
        if name == "multi-gaussian":
            mix = multi_gaussian_mixture(arb_of(s), e_arb, arb_of(d), int(components or 0))
            if target is not None:
                from certdp.engines.gaussian_mixture.float_guide import mg_argmax_hint

                hints = mg_argmax_hint(float(s), float(e), int(components or 0), float(d))
        else:
            mix = quasi_gaussian_mixture(arb_of(s), e_arb, arb_of(d))
        tgt = None if target is None else arb_of(Fraction(target))
        res = privacy_profile_sup(mix, e_arb, arb_of(d), symmetric=True, rel_tol=rel_tol, target=tgt, hints=hints)
        lo = decimal_bounds(res.lower)[0]
        hi = decimal_bounds(res.upper)[1]
        witness = None
        if res.decided is Decision.NO:
            phi = arb_of(d) * arb(res.argmax)
            wit = witness_at_shift(mix, e_arb, phi, delta_scale=float(target), rel_tol=1e-8)
            witness = {"shift_phi": repr(res.argmax * float(d)),
                       "set_where_f(x+phi)>e^eps f(x)": [[repr(float(a)), repr(float(b))] for a, b in wit.runs],
                       "certified_H(phi)_lower": decimal_bounds(wit.value.lower)[0],
                       "certified_excess_over_delta": decimal_bounds(wit.value.lower - arb_of(Fraction(target)))[0]}
    return MixtureProfileValue(lo, hi, res.argmax, res.intervals, res.point_evaluations, res.decided, witness)


def mixture_audit(name: str, *, value: object, epsilon: object, delta: object, sensitivity: object = 1,
                  components: object = None) -> "Certificate":
    """Audit certificate (kind ``audit``) of the QG or MG mechanism at ``sigma = value``.

    The exact engine runs in decision mode against ``delta`` (it stops once ``delta(eps) <= delta``
    or ``> delta`` is proven), seeded with the float worst shift for MG. A VIOLATED verdict carries
    ``extra.witness``: the worst shift ``phi`` (an exact decimal), the certified lower bound on
    ``H(phi)`` (above ``delta``) and, for illustration only, the float runs of the set where
    ``f(x + phi) > e^eps f(x)`` (``failing_set_float``: not certified, not checked).
    """
    from certdp.certificate import Certificate, Stopwatch
    from certdp.mechanisms import get_mechanism
    from certdp.numbers import exact_str, parse_probability
    from certdp.workflows.common import resolve_fixed

    clock = Stopwatch()
    cls = get_mechanism(name)
    fixed: dict[str, Any] = {"sensitivity": sensitivity}
    if cls.name == "multi-gaussian":
        fixed["components"] = components
    params = resolve_fixed(cls, fixed)
    sigma = parse_positive(value, "sigma")
    eps = parse_positive(epsilon, "epsilon")
    dq = parse_probability(delta, "delta")
    res = mixture_profile_value(cls.name, exact_str(sigma), exact_str(eps), exact_str(params["sensitivity"]),
                                params.get("components"), target=exact_str(dq))
    from certdp.engines.gaussian_mixture import DEFAULT_SETTINGS

    extra: dict[str, Any] = {"settings": DEFAULT_SETTINGS.as_dict()}
    if res.witness is not None:
        shift = Fraction(res.argmax * float(params["sensitivity"]))
        extra["witness"] = {"shift": exact_str(abs(shift)),
                            "H_lower_bound": res.witness["certified_H(phi)_lower"],
                            "failing_set_float": res.witness["set_where_f(x+phi)>e^eps f(x)"]}
    return Certificate.for_audit(
        mechanism=cls.name, parameter=cls.parameter, parameters=params, epsilon=eps, delta=dq,
        verdict=res.verdict, delta_enclosure=[res.lower, res.upper], method="profile-decision",
        lemma=f"{cls.method}; rests on {cls.lemma}", value=sigma, precision_bits=128,
        timing_seconds=clock.elapsed(), extra=extra,
    )


def check_mixture_witness(name: str, witness: Any, sigma: Fraction, epsilon: Fraction, delta: Fraction,
                          params: dict[str, Any]) -> str | None:
    """Re-prove an audit witness: ``H(phi) > delta`` at the recorded shift, and the recorded lower
    bound is below the certified ``H(phi)``. Returns None when it holds, else the reason."""
    from certdp.certificate import number_text
    from certdp.engines.gaussian_mixture import hockey_stick_at_shift
    from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
    from certdp.mechanisms.quasi_gaussian import quasi_gaussian_mixture

    if not (isinstance(witness, dict) and set(witness) == {"shift", "H_lower_bound", "failing_set_float"}):
        return "extra.witness must be {shift, H_lower_bound, failing_set_float}"
    if not isinstance(witness["failing_set_float"], list):
        return "witness.failing_set_float must be a list"
    shift = number_text(witness["shift"], "witness.shift")
    claimed = number_text(witness["H_lower_bound"], "witness.H_lower_bound")
    d = params["sensitivity"]
    if not 0 <= shift <= d:
        return "the witness shift must lie in [0, Delta]"
    with working_precision(128):
        e = arb_of(epsilon)
        if name == "multi-gaussian":
            mix = multi_gaussian_mixture(arb_of(sigma), e, arb_of(d), params["components"])
        else:
            mix = quasi_gaussian_mixture(arb_of(sigma), e, arb_of(d))
        value = hockey_stick_at_shift(mix, e, arb_of(shift), delta_scale=float(delta))
        if not value.lower > arb_of(delta):
            return f"H at the witness shift {witness['shift']} is not proven above delta"
        if not arb_of(claimed) <= value.upper:
            return "the witness's H lower bound exceeds the certified H there"
    return None
