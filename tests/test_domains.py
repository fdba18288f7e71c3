"""The domain table (certdp/workflows/domains.py) is documented and enforced up front (issue 20)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import certdp
from certdp.numbers import InputError
from certdp.workflows.domains import DOMAINS, check_domain

DOCS = Path(__file__).resolve().parents[1] / "docs" / "domains.md"


def test_every_mechanism_is_documented():
    text = DOCS.read_text()
    for name in DOMAINS:
        assert f"`{name}`" in text, name


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_outside_the_domain_is_refused_in_milliseconds(name):
    start = time.perf_counter()
    with pytest.raises(InputError) as err:
        check_domain(name, epsilon="1e400", delta="1e-5")
    assert err.value.parameter == "epsilon" and "supported domain" in err.value.reason
    with pytest.raises(InputError) as err:
        check_domain(name, epsilon="1", delta="1e-999999")
    assert err.value.parameter == "delta"
    # a hang guard, not a benchmark: refusing once meant a > 60 s exact computation on 1e-999999
    assert time.perf_counter() - start < 10


def test_api_checks_the_domain_too():
    with pytest.raises(InputError) as err:
        certdp.calibrate("gaussian", epsilon="1e400", delta="1e-5")
    assert err.value.parameter == "epsilon"
    with pytest.raises(InputError) as err:
        certdp.calibrate("multi-gaussian", epsilon="1", delta="1e-5", components=1000)
    assert err.value.parameter == "components"


def test_closed_forms_answer_at_extreme_delta():
    cert = certdp.calibrate("uniform", epsilon="1", delta="1e-100000")
    assert str(cert.interval[1]).startswith("5") and str(cert.interval[1]).upper().endswith("E+99999")
