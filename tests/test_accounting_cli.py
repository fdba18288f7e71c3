"""`certdp compose` and `certdp calibrate ... --compositions`: JSON, certificates verified in a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from certdp.certificate import Certificate
from certdp.numbers import exact_str

ROOT = Path(__file__).resolve().parents[1]
PLAN = {"mechanisms": [{"mechanism": "gaussian", "sigma": "10", "sensitivity": "1", "count": 100},
                       {"mechanism": "laplace", "scale": "20", "sensitivity": "1", "count": 3},
                       {"mechanism": "subsampled-gaussian", "sigma": "1", "sampling_rate": "0.2", "count": 4}]}


def _fresh_verify(*files):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "certdp.cli.main", "verify", "--json", *map(str, files)],
                          capture_output=True, text=True, env=env, timeout=600)


def test_compose_json_and_certificate_roundtrip(cli, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    cert_file = tmp_path / "c.json"
    out = cli("compose", str(plan), "--epsilon", "1", "--json", "--grid-bits", "9", "-o", str(cert_file))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    lo, hi = (Fraction(x) for x in data["delta_enclosure"])
    assert 0 < lo < hi < 1
    assert len(data["groups"]) == 3 and data["discretization"]["grid_bits"] == "9"
    cert = json.loads(cert_file.read_text())
    assert cert["kind"] == "composition" and cert["digest"] == data["digest"]
    # forged: the enclosure moved below the truth, digest and guarantee recomputed
    forged = Certificate.from_json(cert_file.read_text())
    width = hi - lo
    forged.delta_enclosure = [exact_str(lo - 3 * width), exact_str(lo - 2 * width)]
    forged.guarantee = forged.statement()
    forged.seal()
    forged_file = tmp_path / "forged.json"
    forged_file.write_text(forged.to_json())
    run = _fresh_verify(cert_file, forged_file)
    results = json.loads(run.stdout)
    assert [r["status"] for r in results] == ["VALID", "INVALID"], run.stdout


def test_compose_delta_mode_and_calibration_roundtrip(cli, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"mechanisms": PLAN["mechanisms"][1:]}))
    out = cli("compose", str(plan), "--delta", "1e-5", "--json", "--grid-bits", "9", "-o", str(tmp_path / "e.json"))
    assert out.returncode == 0, out.stderr
    lo, hi = (Fraction(x) for x in json.loads(out.stdout)["epsilon_enclosure"])
    assert 0 < lo < hi
    out = cli("calibrate", "gaussian", "--epsilon", "1", "--delta", "1e-5", "--compositions", "100", "--json",
              "-o", str(tmp_path / "g.json"))
    assert out.returncode == 0, out.stderr
    cal = json.loads(out.stdout)
    assert cal["method"] == "composed-pld" and cal["inputs"]["compositions"] == "100"
    forged = Certificate.from_json((tmp_path / "g.json").read_text())
    from decimal import Decimal

    forged.interval = tuple(Decimal(exact_str(Fraction(x) * Fraction(9, 10))) for x in forged.interval)
    forged.value = forged.interval[1]
    forged.guarantee = forged.statement()
    forged.seal()
    (tmp_path / "g_forged.json").write_text(forged.to_json())
    run = _fresh_verify(tmp_path / "e.json", tmp_path / "g.json", tmp_path / "g_forged.json")
    assert [r["status"] for r in json.loads(run.stdout)] == ["VALID", "VALID", "INVALID"], run.stdout


@pytest.mark.parametrize("text, field", [
    ('{"mechanisms": []}', "mechanisms"),
    ('{"mechanisms": [{"mechanism": "laplace", "scale": "1", "count": 0}]}', "mechanisms[0].count"),
    ('{"mechanisms": [{"mechanism": "laplace", "scale": "1", "count": 1.5}]}', "mechanisms[0].count"),
    ('{"mechanisms": [{"mechanism": "subsampled-gaussian", "sigma": "1", "sampling_rate": "2"}]}',
     "mechanisms[0].sampling_rate"),
    ('{"mechanisms": [{"mechanism": "warp", "sigma": "1"}]}', "mechanisms[0].mechanism"),
    ('{"mechanisms": [{"mechanism": "laplace", "scale": "1", "colour": "red"}]}', "mechanisms[0].colour"),
    ('{"mechanisms": [', "plan"),
])
def test_bad_plan_exits_2_with_one_line(cli, tmp_path, text, field):
    plan = tmp_path / "bad.json"
    plan.write_text(text)
    out = cli("compose", str(plan), "--epsilon", "1")
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0
    assert out.stderr.startswith(f"error: {field}:"), out.stderr


def test_compose_plot(cli, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"mechanisms": [PLAN["mechanisms"][1]]}))
    png = tmp_path / "band.png"
    out = cli("compose", str(plan), "--epsilon", "0.1", "--grid-bits", "8", "--plot", str(png))
    assert out.returncode == 0, out.stderr
    assert png.stat().st_size > 1000


def test_gaussian_plan_reports_the_zcdp_route_beside_the_exact_gdp_epsilon(cli, tmp_path):
    import mpmath

    plan = tmp_path / "g.json"
    plan.write_text(json.dumps({"mechanisms": [{"mechanism": "gaussian", "sigma": "10", "count": 100}]}))
    out = cli("compose", str(plan), "--delta", "1e-5", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    z = data["zcdp_comparison"]
    assert z["rho"] == "0.5"
    gdp_hi = Fraction(data["epsilon_enclosure"][1])
    cks, standard = Fraction(z["cks_epsilon_upper"]), Fraction(z["standard_epsilon_upper"])
    assert gdp_hi < cks < standard
    with mpmath.workdps(50):  # the standard conversion, independently
        ref = mpmath.mpf("0.5") + 2 * mpmath.sqrt(mpmath.mpf("0.5") * mpmath.log(mpmath.mpf(10) ** 5))
        assert ref <= mpmath.mpf(z["standard_epsilon_upper"]) <= ref * (1 + mpmath.mpf("1e-18"))


def test_coupled_composition_certificate_verifies_in_a_fresh_process(cli, tmp_path):
    plan = tmp_path / "p.json"
    plan.write_text(json.dumps({"mechanisms": [
        {"mechanism": "subsampled-gaussian", "sigma": "1", "sampling_rate": "0.05", "count": 200},
        {"mechanism": "ggm", "scale": "40", "shape": "3/2", "count": 30}]}))
    cert_file = tmp_path / "c.json"
    out = cli("compose", str(plan), "--delta", "1e-5", "--json", "-o", str(cert_file))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["discretization"]["rounding"] == "coupled-hoeffding"
    run = _fresh_verify(cert_file)
    result = json.loads(run.stdout)
    result = result[0] if isinstance(result, list) else result
    assert result["status"] == "VALID", result
    assert any("same lattice engine" in r for r in result["reasons"])
