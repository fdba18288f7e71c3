"""`certdp ... sgg / r1smg / optimize` commands, in-process through the real entry point."""

from __future__ import annotations

import json

import pytest




def test_audit_r1smg_prints_claim_true_delta_and_violated(cli):
    out = cli("audit", "r1smg", "--dimension", "128", "--epsilon", "1", "--delta", "1e-5", "--sensitivity", "1")
    assert out.returncode == 1, out.stderr
    assert "VIOLATED" in out.stdout and "psi" in out.stdout and "0.98359" in out.stdout
    out = cli("audit", "r1smg", "--dimension", "128", "--epsilon", "1", "--delta", "1e-5", "--json")
    data = json.loads(out.stdout)
    assert data["verdict"] == "VIOLATED" and data["extra"]["claim"] == "r1smg"


def test_calibrate_spherical_gaussian_and_verify_by_radial_engine(cli, tmp_path):
    path = tmp_path / "c.json"
    out = cli("calibrate", "spherical-gaussian", "--dimension", "10", "--epsilon", "1", "--delta", "1e-5",
              "--json", "-o", str(path))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["parameter"] == "sigma" and data["value"].startswith("3.73063")
    out = cli("verify", str(path))
    assert out.returncode == 0 and "VALID" in out.stdout
    assert "independent path" in out.stdout


def test_profile_sgg_curve_json(cli):
    out = cli("profile", "sgg", "--dimension", "5", "--alpha", "2", "--power", "3/2", "--rate", "1",
              "--epsilon", "0.5,1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    lo0, hi0 = (float(x) for x in data["profile"][0]["delta_enclosure"])
    lo1, hi1 = (float(x) for x in data["profile"][1]["delta_enclosure"])
    assert hi1 < lo0          # delta(eps) decreases in eps


def test_bad_alpha_is_a_one_line_error(cli):
    out = cli("calibrate", "sgg", "--dimension", "3", "--alpha", "3", "--power", "2", "--epsilon", "1",
              "--delta", "1e-5")
    assert out.returncode == 2
    assert out.stderr.strip().startswith("error: alpha")
    assert "Traceback" not in out.stderr
