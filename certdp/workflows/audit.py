"""Audit a claimed parameter: is the mechanism really (epsilon, delta)-DP there?

Verdicts (each certified by an Arb enclosure of the true delta(epsilon)):

* ``VALID``     - delta(epsilon) <= claimed delta is proven;
* ``VIOLATED``  - delta(epsilon) >  claimed delta is proven;
* ``UNDECIDED`` - the enclosure still straddles the claimed delta at 4096 bits.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from flint import arb

from certdp.certificate import Certificate, Stopwatch
from certdp.mechanisms import get_mechanism
from certdp.numbers import (
    arb_of,
    decide_on_ladder,
    Decision,
    Enclosure,
    exact_str,
    parse_positive,
    parse_probability,
    PRECISION_LADDER,
)
from certdp.workflows.claims import get_claim
from certdp.workflows.common import resolve_fixed

__all__ = ["audit", "audit_claim", "decide_profile", "claim_failure_bracket", "VERDICTS"]

VERDICTS = ("VALID", "VIOLATED", "UNDECIDED")
VERDICT_OF = {Decision.YES: "VALID", Decision.NO: "VIOLATED", Decision.UNKNOWN: "UNDECIDED"}


def decide_profile(
    profile_at: Callable[[], arb],
    delta: Fraction,
    ladder: tuple[int, ...] = PRECISION_LADDER,
) -> tuple[str, Enclosure | None, int]:
    """Verdict (VALID / VIOLATED / UNDECIDED) for ``profile_at() <= delta``, raising the precision.

    ``profile_at`` is called inside each working precision and must return an enclosure of the
    true delta; the loop is :func:`certdp.numbers.decide_on_ladder`. Returns (verdict, enclosure, bits).
    """
    decision, enclosure, bits = decide_on_ladder(profile_at, delta, ladder)
    return VERDICT_OF[decision], enclosure, bits


def audit(mechanism: str, *, value: object, epsilon: object, delta: object, **fixed: Any) -> Certificate:
    """Audit ``mechanism`` with its parameter set to ``value`` against the claim (epsilon, delta)-DP."""
    clock = Stopwatch()
    cls = get_mechanism(mechanism)
    if hasattr(cls, "profile_bounds"):  # the Gaussian mixtures: the exact engine in decision mode, with a witness
        from certdp.workflows.mixtures import mixture_audit

        return mixture_audit(cls.name, value=value, epsilon=epsilon, delta=delta, **fixed)
    eps = parse_positive(epsilon, "epsilon")
    delta_q = parse_probability(delta, "delta")
    val = parse_positive(value, cls.parameter)
    params = resolve_fixed(cls, fixed)
    verdict, enclosure, bits = decide_profile(
        lambda: cls.profile_ball(arb_of(val), arb_of(eps), **params), delta_q)
    return _audit_certificate(cls, params, eps, delta_q, verdict, enclosure, bits, clock,
                              value=val, extra={})


def audit_claim(claim_name: str, *, epsilon: object, delta: object, **fixed: Any) -> Certificate:
    """Audit a named published calibration (see :mod:`certdp.workflows.claims`)."""
    clock = Stopwatch()
    claim = get_claim(claim_name)
    cls = get_mechanism(claim.mechanism)
    eps = parse_positive(epsilon, "epsilon")
    delta_q = parse_probability(delta, "delta")
    params = resolve_fixed(cls, fixed)
    claimed: list[arb] = []

    def profile_at() -> arb:
        value = claim.parameter_ball(eps, delta_q, **params)
        claimed.append(value)
        return cls.profile_ball(value, arb_of(eps), **params)

    verdict, enclosure, bits = decide_profile(profile_at, delta_q)
    extra = {
        "claim": claim.name,
        "claim_formula": claim.formula,
        "claim_reference": claim.reference,
        "claimed_value_enclosure": Enclosure.from_arb(claimed[-1]).strings(),
    }
    return _audit_certificate(cls, params, eps, delta_q, verdict, enclosure, bits, clock,
                              value=None, extra=extra)


def _audit_certificate(cls: Any, params: dict[str, Any], eps: Fraction, delta_q: Fraction, verdict: str,
                       enclosure: Enclosure | None, bits: int, clock: Stopwatch, *, value: Fraction | None,
                       extra: dict[str, Any]) -> Certificate:
    return Certificate.for_audit(
        mechanism=cls.name, parameter=cls.parameter, parameters=params, epsilon=eps, delta=delta_q,
        verdict=verdict, delta_enclosure=enclosure, method="profile-decision",
        lemma=f"{cls.method}; rests on {cls.lemma}", value=value, precision_bits=bits,
        timing_seconds=clock.elapsed(), extra=extra,
    )


def claim_failure_bracket(claim_name: str, *, delta: object, epsilon_valid: object = "1",
                          epsilon_violated: object = "1000", rtol: object = "1e-6",
                          **fixed: Any) -> dict[str, Any]:
    """Locate where a claim starts to fail: epsilons a < b with VALID proven at a and VIOLATED at b.

    Bisects on epsilon between ``epsilon_valid`` and ``epsilon_violated``
    (each end's verdict is certified first) until (b - a)/b <= rtol. Only the
    two verdicts are certified; no claim is made about monotonicity in epsilon
    between other points. Returns a dict with both certificates' data.
    """
    from certdp.numbers import InputError, parse_positive, round_decimal

    tol = parse_positive(rtol, "rtol")
    a = parse_positive(epsilon_valid, "epsilon_valid")
    b = parse_positive(epsilon_violated, "epsilon_violated")
    cert_a = audit_claim(claim_name, epsilon=a, delta=delta, **fixed)
    cert_b = audit_claim(claim_name, epsilon=b, delta=delta, **fixed)
    if cert_a.verdict != "VALID":
        raise InputError("epsilon_valid", f"the claim is {cert_a.verdict} at epsilon = {exact_str(a)}, not VALID")
    if cert_b.verdict != "VIOLATED":
        raise InputError("epsilon_violated",
                         f"the claim is {cert_b.verdict} at epsilon = {exact_str(b)}, not VIOLATED")
    while (b - a) / b > tol:
        mid = Fraction(round_decimal((a + b) / 2, 12, "up"))
        if not a < mid < b:
            break
        cert_mid = audit_claim(claim_name, epsilon=mid, delta=delta, **fixed)
        if cert_mid.verdict == "VALID":
            a, cert_a = mid, cert_mid
        elif cert_mid.verdict == "VIOLATED":
            b, cert_b = mid, cert_mid
        else:
            break
    return {
        "claim": claim_name,
        "delta": cert_a.inputs["delta"],
        "epsilon_valid": exact_str(a),
        "epsilon_violated": exact_str(b),
        "delta_enclosure_at_valid": cert_a.delta_enclosure,
        "delta_enclosure_at_violated": cert_b.delta_enclosure,
        "digests": [cert_a.digest, cert_b.digest],
    }
