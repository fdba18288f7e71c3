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
from typing import Any

from flint import arb

from certdp.numbers import Decision, arb_of, decimal_bounds, parse_positive, working_precision

__all__ = ["MixtureProfileValue", "mixture_profile_value"]


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
