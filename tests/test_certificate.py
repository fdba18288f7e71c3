"""Certificates: round trip, independent re-verification, tamper detection."""

import json
from decimal import Decimal

import pytest

import certdp
from certdp.certificate import Certificate, CertificateFormatError


@pytest.fixture(scope="module")
def cert():
    return certdp.calibrate("gaussian", epsilon="1", delta="1e-5", sensitivity=1)


def test_contract_fields(cert):
    data = json.loads(cert.to_json())
    for key in ("mechanism", "parameter", "value", "interval", "delta_enclosure", "digest", "inputs",
                "method", "lemma", "precision_bits", "versions", "timing_seconds"):
        assert key in data
    assert data["parameter"] == "sigma" and isinstance(data["value"], str)
    assert len(Decimal(data["value"]).as_tuple().digits) <= 17
    assert cert.value == Decimal(data["value"]) and isinstance(cert.value, Decimal)


def test_round_trip_and_verify(cert):
    again = Certificate.from_json(cert.to_json())
    assert again.digest == again.compute_digest() == cert.digest
    result = certdp.verify(cert.to_json())
    assert result.status == "VALID", result.reasons


def _edited(cert, **changes):
    data = json.loads(cert.to_json())
    data.update(changes)
    return data


def test_edited_value_is_invalid(cert):
    data = _edited(cert, value="3.7")
    assert certdp.verify(json.dumps(data)).status == "INVALID"
    assert "digest" in certdp.verify(json.dumps(data)).reasons[0]


def test_edited_and_resealed_value_is_still_caught(cert):
    """An attacker who recomputes the digest cannot pass off an unsafe sigma."""
    forged = Certificate.from_dict(_edited(cert, value="3.7", interval=["3.6", "3.7"]))
    forged.seal()
    result = certdp.verify(forged)
    assert result.status == "INVALID" and "NOT private" in result.reasons[0]


def test_resealed_loose_interval_is_caught(cert):
    """A bracket claimed tight whose other end is private too is INVALID."""
    enclosure = certdp.profile("gaussian", value="3.8", epsilon="1").delta_enclosure
    forged = Certificate.from_dict(_edited(cert, value="3.8", interval=["3.75", "3.8"], delta_enclosure=enclosure))
    forged.seal()
    result = certdp.verify(forged)
    assert result.status == "INVALID" and "not tight" in result.reasons[0]


def test_resealed_inputs_are_caught(cert):
    forged = Certificate.from_dict(_edited(cert, inputs={**cert.inputs, "delta": "1e-9"}))
    forged.seal()
    assert certdp.verify(forged).status == "INVALID"


def test_resealed_wrong_enclosure_is_caught(cert):
    forged = Certificate.from_dict(_edited(cert, delta_enclosure=["1e-7", "2e-7"]))
    forged.seal()
    result = certdp.verify(forged)
    assert result.status == "INVALID" and "enclosure" in result.reasons[0]


def test_edited_digest_is_invalid(cert):
    data = _edited(cert, digest="0" * 64)
    assert certdp.verify(json.dumps(data)).status == "INVALID"


@pytest.mark.parametrize("text", ["{bad", "[]", "{}", json.dumps({"kind": "calibration"})])
def test_malformed_certificates_raise(text):
    with pytest.raises(CertificateFormatError):
        certdp.verify(text)


@pytest.mark.parametrize("mechanism", ["laplace", "uniform"])
def test_other_mechanisms_verify(mechanism):
    cert = certdp.calibrate(mechanism, epsilon="0.5", delta="1e-6", sensitivity=2)
    assert cert.parameter == "scale"
    assert certdp.verify(cert.to_json()).status == "VALID"


def test_audit_and_profile_certificates_verify():
    audit = certdp.audit("classic-gaussian", epsilon=10, delta="1e-5")
    assert certdp.verify(audit.to_json()).status == "VALID"
    flipped = Certificate.from_dict({**json.loads(audit.to_json()), "verdict": "VALID"}).seal()
    assert certdp.verify(flipped).status == "INVALID"
    prof = certdp.profile("gaussian", value="2", epsilon="1")
    assert certdp.verify(prof.to_json()).status == "VALID"
