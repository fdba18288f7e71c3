"""Re-verification of a certificate from its inputs alone.

``verify`` never trusts the numbers written in the certificate: it checks the
digest, rebuilds the mechanism from the exact inputs and recomputes the
privacy profile with Arb on a precision ladder that starts higher (128 bits)
and ends higher (8192 bits) than the one that produced it. Answers:

* ``VALID``     - every claim in the certificate is re-proven;
* ``INVALID``   - some claim is proven false, or the certificate was edited
                  (digest mismatch), or it is inconsistent (the reason says which);
* ``UNDECIDED`` - a claim could not be decided even at 8192 bits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from certdp.certificate import Certificate, CertificateFormatError
from certdp.mechanisms import get_mechanism
from certdp.numbers import (
    Decision,
    Enclosure,
    InputError,
    arb_of,
    classify_point,
    exact_str,
    parse_exact,
    parse_positive,
    parse_probability,
)
from certdp.workflows.audit import decide_profile
from certdp.workflows.claims import get_claim
from certdp.workflows.common import profile_closure, resolve_fixed

__all__ = ["verify", "Verification", "VERIFY_LADDER"]

VERIFY_LADDER: tuple[int, ...] = (128, 256, 512, 1024, 2048, 4096, 8192)


@dataclass
class Verification:
    """Outcome of :func:`verify`: ``status`` is VALID, INVALID or UNDECIDED; ``reasons`` explain it."""

    status: str
    reasons: list[str] = field(default_factory=list)
    recomputed_delta: list[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "reasons": self.reasons, "recomputed_delta": self.recomputed_delta}


def verify(certificate: str | Certificate) -> Verification:
    """Independently re-check a certificate (JSON text or object). Malformed JSON raises CertificateFormatError."""
    cert = Certificate.from_json(certificate) if isinstance(certificate, str) else certificate
    if cert.digest != cert.compute_digest():
        return Verification("INVALID", ["digest mismatch: the certificate was edited after it was sealed"])
    try:
        cls = get_mechanism(cert.mechanism)
        params = resolve_fixed(cls, dict(cert.parameters))
        eps = parse_exact(cert.inputs.get("epsilon"), "inputs.epsilon")
    except InputError as exc:
        return Verification("INVALID", [f"inputs do not parse: {exc}"])
    try:
        if cert.kind == "calibration":
            return _verify_calibration(cert, cls, params, eps)
        if cert.kind == "audit":
            return _verify_audit(cert, cls, params, eps)
        if cert.kind == "profile":
            return _verify_profile(cert, cls, params, eps)
    except InputError as exc:
        return Verification("INVALID", [f"inputs do not parse: {exc}"])
    return Verification("INVALID", [f"unknown certificate kind {cert.kind!r}"])


def _recorded(cert: Certificate) -> Enclosure:
    lo, hi = (parse_exact(x, "delta_enclosure") for x in cert.delta_enclosure)
    return Enclosure(lo, hi)


def _verify_calibration(cert: Certificate, cls: Any, params: dict[str, Any], eps: Fraction) -> Verification:
    if cert.value is None or cert.parameter != cls.parameter:
        return Verification("INVALID", ["calibration certificate without a value for the mechanism's parameter"])
    value = parse_positive(str(cert.value), "value")
    delta_text = cert.inputs.get("delta")
    if delta_text == "0":
        return _verify_pure_dp(cert, cls, params, eps, value)
    delta = parse_probability(delta_text, "inputs.delta")
    reasons: list[str] = []
    profile = profile_closure(cls, eps, params, independent=True)
    if hasattr(cls, "independent_profile_ball"):
        reasons.append("recomputed by the independent path (certified quadrature of the hockey-stick integral)")
    else:
        reasons.append("recomputed by the mechanism's profile at higher precision (no independent path)")
    decision, enclosure = classify_point(profile, value, delta, VERIFY_LADDER)
    recomputed = enclosure.strings() if enclosure else None
    if decision is Decision.NO:
        return Verification("INVALID", [f"value {cert.value} is NOT private: delta in {enclosure} > {delta_text}"] + reasons,
                            recomputed)
    if decision is Decision.UNKNOWN:
        return Verification("UNDECIDED", [f"delta at value {cert.value} is {enclosure}, not separable from "
                                          f"{delta_text} at {VERIFY_LADDER[-1]} bits"], recomputed)
    reasons.append(f"value {cert.value} is private: delta({cert.inputs['epsilon']}) in {enclosure} <= {delta_text}")
    if enclosure is not None and not enclosure.overlaps(_recorded(cert)):
        return Verification("INVALID", [f"recorded delta enclosure {cert.delta_enclosure} is wrong; "
                                        f"recomputed {enclosure}"], recomputed)
    if cert.interval is not None:
        lo, hi = (Fraction(x) for x in cert.interval)
        safe, unsafe = (lo, hi) if cls.profile_increasing else (hi, lo)
        if not lo < hi:
            return Verification("INVALID", ["interval is empty or reversed"], recomputed)
        if value != safe:
            return Verification("INVALID", [f"value {cert.value} is not the safe end of the interval"], recomputed)
        unsafe_decision, unsafe_enc = classify_point(profile, unsafe, delta, VERIFY_LADDER)
        if unsafe_decision is Decision.YES:
            return Verification("INVALID", [f"interval end {exact_str(unsafe)} is private too (delta in {unsafe_enc}): "
                                            "the bracket is not tight as claimed"] + reasons, recomputed)
        if unsafe_decision is Decision.UNKNOWN:
            return Verification("UNDECIDED", reasons + [f"could not decide the unsafe end {exact_str(unsafe)}"], recomputed)
        reasons.append(f"interval end {exact_str(unsafe)} is not private: delta in {unsafe_enc} > {delta_text}")
    return Verification("VALID", reasons, recomputed)


def _verify_pure_dp(cert: Certificate, cls: Any, params: dict[str, Any], eps: Fraction,
                    value: Fraction) -> Verification:
    if not hasattr(cls, "pure_dp_scale"):
        return Verification("INVALID", [f"{cls.name} has no pure-DP calibration"])
    exact = cls.pure_dp_scale(eps, **params)
    if value >= exact:
        return Verification("VALID", [f"value {cert.value} >= exact pure-DP minimum {exact_str(exact)}"], ["0", "0"])
    return Verification("INVALID", [f"value {cert.value} < exact pure-DP minimum {exact_str(exact)}"])


def _verify_audit(cert: Certificate, cls: Any, params: dict[str, Any], eps: Fraction) -> Verification:
    delta = parse_probability(cert.inputs.get("delta"), "inputs.delta")
    evaluate = getattr(cls, "independent_profile_ball", cls.profile_ball)
    claim_name = cert.extra.get("claim")
    if claim_name:
        claim = get_claim(claim_name)
        if claim.mechanism != cls.name:
            return Verification("INVALID", [f"claim {claim_name} is not about {cls.name}"])

        def profile_at():
            return evaluate(claim.parameter_ball(eps, delta, **params), arb_of(eps), **params)
    else:
        exact = cert.extra.get("value_exact", str(cert.value))
        value = parse_positive(exact, "value")

        def profile_at():
            return evaluate(arb_of(value), arb_of(eps), **params)

    verdict, enclosure, _ = decide_profile(profile_at, delta, VERIFY_LADDER)
    recomputed = enclosure.strings() if enclosure else None
    if verdict != cert.verdict:
        return Verification("INVALID", [f"recorded verdict {cert.verdict} but recomputed {verdict} "
                                        f"(delta in {enclosure})"], recomputed)
    if enclosure is not None and not enclosure.overlaps(_recorded(cert)):
        return Verification("INVALID", [f"recorded delta enclosure {cert.delta_enclosure} is wrong; "
                                        f"recomputed {enclosure}"], recomputed)
    status = "UNDECIDED" if verdict == "UNDECIDED" else "VALID"
    return Verification(status, [f"verdict {verdict} re-proven: delta in {enclosure}"], recomputed)


def _verify_profile(cert: Certificate, cls: Any, params: dict[str, Any], eps: Fraction) -> Verification:
    exact = cert.extra.get("value_exact", str(cert.value))
    value = parse_positive(exact, "value")
    instance = cls(value, **params)
    enclosure = instance.privacy_profile(eps)
    if not enclosure.overlaps(_recorded(cert)):
        return Verification("INVALID", [f"recorded delta enclosure {cert.delta_enclosure} does not contain "
                                        f"the recomputed {enclosure}"], enclosure.strings())
    return Verification("VALID", [f"delta({cert.inputs['epsilon']}) in {enclosure} overlaps the record"],
                        enclosure.strings())


_ = CertificateFormatError  # raised by Certificate.from_json; re-exported for callers
