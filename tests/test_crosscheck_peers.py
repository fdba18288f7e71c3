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


# ---------------------------------------------------------------- DP-SGD epsilons (k Poisson-subsampled steps)
# DP-SGD at q = 0.01, sigma = 1, k = 100, delta = 1e-5: certdp's certified epsilon lies in about
# [0.712, 0.724] (rtol 0.02). Near-exact accountants (PLD/PRV) must land in or just above it, RDP
# conversions well above (~ +68 %), the CLT approximation of Opacus' GDP accountant below it.
DPSGD = ("0.01", "100", "1e-5")


def _dpsgd(library, question, rtol="0.02", **kw):
    from certdp.crosscheck.dpsgd import check_dpsgd_point

    return check_dpsgd_point(library, question, *DPSGD, **({"sigma": "1"} | kw), rtol=rtol)


def _inside_or_above(p, slack_percent):
    from fractions import Fraction

    lo, hi = (Fraction(x) for x in p["epsilon_enclosure"])
    value = Fraction(p["library_value"])
    return lo <= value and p["excess_percent"] < slack_percent


@_needs("dp_accounting")
def test_dp_accounting_dpsgd_pld_agrees_and_rdp_is_valid():
    pld = _dpsgd("dp-accounting", "dpsgd-pld", rtol="0.05")
    # Google's pessimistic PLD (an independent computation) inside certdp's certified bracket
    assert pld["verdict"] != "VIOLATED" and _inside_or_above(pld, 0.5)
    rdp = _dpsgd("dp-accounting", "dpsgd-rdp")
    assert rdp["verdict"] == "VALID" and 50 < rdp["excess_percent"] < 90


@_needs("prv_accountant")
def test_prv_accountant_dpsgd_upper_epsilon_is_valid_and_close():
    p = _dpsgd("prv-accountant", "dpsgd")
    assert p["verdict"] == "VALID" and 0 < p["excess_percent"] < 3  # eps_error 0.01 on eps ~ 0.72


@_needs("autodp")
def test_autodp_noisy_sgd_is_valid():
    p = _dpsgd("autodp", "dpsgd")
    assert p["verdict"] == "VALID" and 50 < p["excess_percent"] < 90


@_needs("opacus")
def test_opacus_gdp_accountant_under_reports_dpsgd_epsilon():
    p = _dpsgd("opacus", "dpsgd-gdp")
    # its CLT approximation says eps ~ 0.458; the certified delta at that eps is > 1e-4
    assert p["verdict"] == "VIOLATED" and float(p["delta_enclosure"][0]) > 1e-4 and p["excess_percent"] < -30


@_needs("opacus")
def test_opacus_rdp_and_prv_accountants_are_valid():
    rdp = _dpsgd("opacus", "dpsgd-rdp")
    assert rdp["verdict"] == "VALID" and 50 < rdp["excess_percent"] < 90
    prv = _dpsgd("opacus", "dpsgd-prv")
    assert prv["verdict"] == "VALID" and 0 < prv["excess_percent"] < 3


@_needs("opacus")
def test_opacus_get_noise_multiplier():
    from fractions import Fraction

    rdp = _dpsgd("opacus", "noise-rdp", sigma=None, epsilon="1")
    assert rdp["verdict"] == "VALID" and Fraction(rdp["epsilon_enclosure"][1]) < 1
    gdp = _dpsgd("opacus", "noise-gdp", sigma=None, epsilon="1")
    assert gdp["verdict"] == "VIOLATED" and Fraction(gdp["sigma"]) < Fraction(rdp["sigma"])


@_needs("opacus")
def test_opacus_one_step_gaussian_sigma_is_valid():
    for accountant in ("rdp", "prv"):
        assert check_point("opacus", f"gaussian-{accountant}", "1", "1e-5")["verdict"] == "VALID"
