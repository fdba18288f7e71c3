"""Each installed peer library on a small grid whose verdicts certdp's certified profiles settle.

Skipped per library when it is not installed (CI installs none of them). The
expected verdicts were established by certdp's audit and are re-proven here on
every run: a library that fixes its bug turns the VIOLATED expectation red.
"""

import importlib.util

import pytest

from certdp.crosscheck.runner import check_point


def _needs(module):
    return pytest.mark.skipif(importlib.util.find_spec(module) is None, reason=f"{module} is not installed")


@_needs("diffprivlib")
def test_diffprivlib_analytic_gaussian_is_violated_at_eps_20():
    p = check_point("diffprivlib", "gaussian", "20", "1e-9")
    assert p["verdict"] == "VIOLATED" and float(p["delta_enclosure"][0]) > 1e-9
    assert p["excess_percent"] < -4  # about 4.3 % too little noise


@_needs("diffprivlib")
def test_diffprivlib_laplace_and_classic_gaussian_are_valid():
    lap = check_point("diffprivlib", "laplace", "1", "1e-5")
    assert lap["verdict"] == "VALID" and 0 < lap["excess_percent"] < 0.01
    classic = check_point("diffprivlib", "classic-gaussian", "0.5", "1e-5")
    assert classic["verdict"] == "VALID" and classic["excess_percent"] > 30
    assert check_point("diffprivlib", "classic-gaussian", "2", "1e-5")["verdict"] == "N/A"  # refuses eps > 1


@_needs("autodp")
def test_autodp_analytic_gaussian_is_violated_at_eps_20():
    p = check_point("autodp", "gaussian", "20", "1e-9")
    assert p["verdict"] == "VIOLATED" and p["excess_percent"] < -4
    assert check_point("autodp", "gaussian-rdp", "1", "1e-5")["verdict"] == "VALID"


@_needs("dp_accounting")
def test_dp_accounting_analytic_sigma_is_valid_and_tight():
    for eps, delta in (("1", "1e-5"), ("20", "1e-9")):
        p = check_point("dp-accounting", "gaussian", eps, delta)
        assert p["verdict"] == "VALID"
        assert 0 < p["excess_percent"] < 1e-4  # within 1e-6 relative of the certified minimum
    rdp = check_point("dp-accounting", "gaussian-rdp", "1", "1e-5")
    assert rdp["verdict"] == "VALID" and 5 < rdp["excess_percent"] < 15  # RDP's conversion costs ~8 %


@_needs("opendp")
def test_opendp_gaussian_via_zcdp_is_valid_and_laplace_exact():
    p = check_point("opendp", "gaussian", "1", "1e-5")
    assert p["verdict"] == "VALID" and 5 < p["excess_percent"] < 15
    lap = check_point("opendp", "laplace", "2", "1e-5")
    assert lap["delta"] == "0" and lap["verdict"] == "VALID" and lap["library_value"] == "0.5"


@_needs("prv_accountant")
def test_prv_accountant_epsilon_is_an_upper_bound():
    p = check_point("prv-accountant", "gaussian", "1", "1e-5")
    assert p["returns"] == "epsilon" and p["verdict"] == "VALID"
    assert 0 < p["excess_percent"] < 1  # its eps_error is 1e-3 eps


@_needs("diffprivlib")
def test_cli_crosscheck_diffprivlib_json(cli):
    import json

    out = cli("crosscheck", "diffprivlib", "--grid", "eps=1:20:2,delta=1e-9", "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 1 and data["summary"]["tried"] == 2 and data["summary"]["violated"] >= 1
    assert data["library_version"] != "unknown"
