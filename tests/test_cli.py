"""The `certdp` command through a subprocess: contract fields, exit codes, one-line errors."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args, stdin=None):
    """The real command in a subprocess (as a user runs it)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "certdp.cli.main", *args], capture_output=True, text=True,
                          env=env, input=stdin, timeout=120)




@pytest.mark.parametrize("mechanism, parameter", [("gaussian", "sigma"), ("laplace", "scale"), ("uniform", "scale")])
def test_calibrate_json_contract(mechanism, parameter, cli):
    out = (run if mechanism == "gaussian" else cli)("calibrate", mechanism, "--epsilon", "1", "--delta", "1e-5", "--sensitivity", "1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["mechanism"] == mechanism and data["parameter"] == parameter
    assert len(data["interval"]) == 2 and all(isinstance(x, str) for x in data["interval"])
    assert len(data["delta_enclosure"]) == 2 and len(data["digest"]) == 64
    assert data["value"] == data["interval"][1]


def test_human_output_prints_certificate(tmp_path):
    cert_file = tmp_path / "cert.json"
    out = run("calibrate", "gaussian", "-e", "1", "-d", "1e-5", "-o", str(cert_file))
    assert out.returncode == 0 and "sigma" in out.stdout and '"digest"' in out.stdout
    verified = run("verify", str(cert_file))
    assert verified.returncode == 0 and "VALID" in verified.stdout
    data = json.loads(cert_file.read_text())
    data["value"] = "3.5"
    cert_file.write_text(json.dumps(data))
    tampered = run("verify", str(cert_file), "--json")
    assert tampered.returncode == 1 and json.loads(tampered.stdout)["status"] == "INVALID"


def test_audit_and_profile_json(cli):
    run = cli
    out = run("audit", "classic-gaussian", "--epsilon", "10", "--delta", "1e-5", "--json")
    data = json.loads(out.stdout)
    assert data["verdict"] == "VIOLATED" and out.returncode == 1 and len(data["delta_enclosure"]) == 2
    out = run("audit", "gaussian", "--sigma", "4", "--epsilon", "1", "--delta", "1e-5", "--json")
    assert json.loads(out.stdout)["verdict"] == "VALID" and out.returncode == 0
    out = run("profile", "gaussian", "--sigma", "2", "--epsilon", "1", "--sensitivity", "1", "--json")
    assert out.returncode == 0 and len(json.loads(out.stdout)["delta_enclosure"]) == 2


def test_profile_curve_and_plot(tmp_path, cli):
    run = cli
    png = tmp_path / "curve.png"
    out = run("profile", "gaussian", "--sigma", "1", "--epsilon", "0.5,1,2,4", "--json", "--plot", str(png))
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["profile"]) == 4 and png.stat().st_size > 1000


@pytest.mark.parametrize("args, parameter", [
    (["calibrate", "gaussian", "-e", "0", "-d", "1e-5"], "epsilon"),
    (["calibrate", "gaussian", "-e", "-1", "-d", "1e-5"], "epsilon"),
    (["calibrate", "gaussian", "-e", "nan", "-d", "1e-5"], "epsilon"),
    (["calibrate", "gaussian", "-e", "inf", "-d", "1e-5"], "epsilon"),
    (["calibrate", "gaussian", "-e", "1", "-d", "0"], "delta"),
    (["calibrate", "gaussian", "-e", "1", "-d", "1"], "delta"),
    (["calibrate", "gaussian", "-e", "1", "-d", "1.5"], "delta"),
    (["calibrate", "gaussian", "-e", "1", "-d", "1e-5", "-s", "-2"], "sensitivity"),
    (["calibrate", "gaussian", "-e", "1", "-d", "1e-5", "-T", "0"], "dimension"),
    (["calibrate", "nosuch", "-e", "1", "-d", "1e-5"], "nosuch"),
    (["audit", "gaussian", "--sigma", "abc", "-e", "1", "-d", "1e-5"], "sigma"),
    (["verify", "/nonexistent/cert.json"], "FILE"),
])
def test_bad_input_exits_2_with_one_line(args, parameter, cli):
    out = cli(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and parameter in out.stderr
    assert out.stderr.strip().count("\n") <= 2


def test_malformed_json_exits_2(cli):
    out = cli("verify", "-", stdin="{not json")
    assert out.returncode == 2 and "certificate" in out.stderr and "Traceback" not in out.stderr


def test_bad_input_in_a_real_subprocess_has_no_traceback():
    out = run("calibrate", "gaussian", "--epsilon", "nan", "--delta", "1e-5")
    assert out.returncode == 2 and out.stderr.startswith("error: epsilon:") and "Traceback" not in out.stderr


def test_crosscheck_flags_unsafe_rows(tmp_path, cli):
    grid = tmp_path / "grid.csv"
    grid.write_text("epsilon,delta,sigma\n1,1e-5,3.74\n1,1e-5,3.72\n10,1e-5,0.6\n")
    out = cli("crosscheck", "gaussian", str(grid), "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 1 and data["violated"] == 1
    assert [r["verdict"] for r in data["rows"]] == ["VALID", "VIOLATED", "VALID"]
    assert data["rows"][0]["relative_excess"] > 0 > data["rows"][1]["relative_excess"]
    bad = tmp_path / "bad.csv"
    bad.write_text("eps,delta,sigma\n1,1e-5,3\n")
    out = cli("crosscheck", "gaussian", str(bad))
    assert out.returncode == 2 and "epsilon" in out.stderr
