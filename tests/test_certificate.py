"""Certificates: schema-2 contract, strict bounded reading, digest, old-schema message."""

import json
import time
from decimal import Decimal

import pytest

import certdp
from certdp.certificate import SCHEMA, Certificate, CertificateFormatError, number_text


@pytest.fixture(scope="module")
def cert():
    return certdp.calibrate("gaussian", epsilon="1", delta="1e-5", sensitivity=1)


def test_contract_fields(cert):
    data = json.loads(cert.to_json())
    for key in ("schema", "kind", "claim", "mechanism", "parameter", "value", "interval", "delta_enclosure",
                "digest", "inputs", "method", "lemma", "precision_bits", "versions", "timing_seconds", "guarantee"):
        assert key in data
    assert data["schema"] == SCHEMA and data["claim"] == "minimal" and data["method"] == "certified-bracket"
    assert data["parameter"] == "sigma" and isinstance(data["value"], str)
    assert len(Decimal(data["value"]).as_tuple().digits) <= 17
    assert cert.value == Decimal(data["value"]) and isinstance(cert.value, Decimal)
    assert data["guarantee"] == cert.statement()


def test_round_trip_and_verify(cert):
    again = Certificate.from_json(cert.to_json())
    assert again.digest == again.compute_digest() == cert.digest
    result = certdp.verify(cert.to_json())
    assert result.status == "VALID", result.reasons
    assert any("independent path" in r for r in result.reasons)


def test_digest_covers_certified_content_only(cert):
    """Two runs of the same calibration have the same digest; provenance is not part of it."""
    again = certdp.calibrate("gaussian", epsilon="1", delta="1e-5", sensitivity=1)
    assert again.digest == cert.digest
    data = json.loads(cert.to_json())
    data.update(created="1999-01-01T00:00:00Z", timing_seconds=123.0)
    assert certdp.verify(json.dumps(data)).status == "VALID"
    data["value"] = "3.8"
    assert "digest" in certdp.verify(json.dumps(data)).reasons[0]


def test_none_parameters_are_left_out():
    cert = certdp.calibrate("multi-gaussian", method="exact", components=2, epsilon=1, delta="1e-3")
    data = json.loads(cert.to_json())
    assert "shape_epsilon" not in data["parameters"]
    assert all(v not in ("None", "") for v in data["parameters"].values())
    assert all(v not in ("None", "") for v in data["inputs"].values())


def test_old_schema_is_named():
    data = json.loads(certdp.calibrate("laplace", epsilon=1, delta="1e-3").to_json())
    data["schema"] = "certdp.certificate/1"
    with pytest.raises(CertificateFormatError, match="old format"):
        certdp.verify(json.dumps(data))


@pytest.mark.parametrize("text", [
    "{bad", "[]", "{}", "null", "3", '"text"', json.dumps({"kind": "calibration"}),
    "[" * 100000 + "]" * 100000,
    b"\xff\xfe{\x00}\x00",                       # UTF-16 with BOM
    "{\"a\": 1}".encode("utf-16"),
    bytes(range(256)),                             # binary
])
def test_malformed_certificates_raise(text):
    with pytest.raises(CertificateFormatError):
        certdp.verify(text)


def test_huge_numbers_are_refused_before_arithmetic(cert):
    data = json.loads(cert.to_json())
    for field, value in (("value", "1e999999999"), ("value", "1" * 100000), ("interval", ["1", "1e99999999"])):
        start = time.perf_counter()
        with pytest.raises(CertificateFormatError):
            certdp.verify(json.dumps({**data, field: value}))
        assert time.perf_counter() - start < 10  # a hang guard: refused by size, not after building the integer (> 60 s)
    with pytest.raises(CertificateFormatError):
        number_text("1e-1000001", "x")
    assert number_text("1e-100000", "x") == pytest.approx(0)  # legal: Arb handles this exponent


@pytest.mark.parametrize("field, value", [
    ("kind", "composition"), ("claim", "everything"), ("verdict", "MAYBE"), ("safe_side", "middle"),
    ("parameters", {"sensitivity": 1}), ("inputs", ["1"]), ("precision_bits", "64"), ("digest", "xyz"),
    ("unknown_field", 1),
])
def test_wrong_types_and_values_are_format_errors(cert, field, value):
    with pytest.raises(CertificateFormatError):
        Certificate.from_dict({**json.loads(cert.to_json()), field: value})


def test_edited_digest_is_invalid(cert):
    data = {**json.loads(cert.to_json()), "digest": "0" * 64}
    assert certdp.verify(json.dumps(data)).status == "INVALID"
