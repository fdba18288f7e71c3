"""`certdp calibrate|profile|shape ggm` through the in-process entry point: JSON contract, errors, verify."""

from __future__ import annotations

import json

import pytest




def test_calibrate_scalar_json_and_verify(cli):
    out = cli("calibrate", "ggm", "--shape", "1.5", "--epsilon", "1", "--delta", "0.01", "--sensitivity", "3",
              "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["mechanism"] == "ggm" and data["parameter"] == "scale"
    assert data["parameters"]["shape"] == "1.5" and data["value"] == data["interval"][1]
    ver = cli("verify", "-", "--json", stdin=out.stdout)
    assert ver.returncode == 0, ver.stdout + ver.stderr
    assert json.loads(ver.stdout)["status"] == "VALID"


def test_calibrate_inf_shape(cli):
    out = cli("calibrate", "ggm", "--shape", "inf", "-e", "1", "-d", "0.01", "-s", "3", "--json")
    assert out.returncode == 0, out.stderr
    lo, hi = (float(x) for x in json.loads(out.stdout)["interval"])
    assert lo <= 150 <= hi


def test_calibrate_vector_gaussian_closed_form(cli):
    out = cli("calibrate", "ggm", "--shape", "2", "-e", "1", "-d", "0.01", "-s", "1,2", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["value"].startswith("5.938")  # seed 004 Table 5: 5.94


def test_profile_json(cli):
    out = cli("profile", "ggm", "--shape", "1.5", "--scale", "4", "-e", "1", "-s", "3", "--json")
    assert out.returncode == 0, out.stderr
    lo, hi = (float(x) for x in json.loads(out.stdout)["delta_enclosure"])
    assert lo <= 0.0679756135047311 <= hi


def test_shape_json_contract(cli, tmp_path):
    png = tmp_path / "trace.png"
    out = cli("shape", "ggm", "-e", "1", "-d", "0.01", "-s", "3", "--tolerance", "1e-2", "--json",
              "--plot", str(png))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["parameter"] == "scale" and "shape" in data and len(data["objective_bounds"]) == 2
    lo, hi = (float(x) for x in data["objective_bounds"])
    assert hi - lo <= 1e-2 and png.stat().st_size > 1000


def test_shape_grid_json(cli):
    out = cli("shape", "ggm", "--grid", "-e", "0.5:1:2", "-d", "0.01,0.1", "-s", "1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["certified"] is False and len(data["rows"]) == 4


@pytest.mark.parametrize("args, parameter", [
    (("--shape", "0.5", "-e", "1", "-d", "0.01"), "shape"),
    (("--shape", "2", "-e", "1", "-d", "0.01", "-s", "1,-2"), "sensitivity"),
    (("--shape", "2", "-e", "-1", "-d", "0.01"), "epsilon"),
    (("--shape", "abc", "-e", "1", "-d", "0.01"), "shape"),
])
def test_bad_input_one_line_exit_2(cli, args, parameter):
    out = cli("calibrate", "ggm", *args)
    assert out.returncode == 2
    assert out.stderr.strip().startswith(f"error: {parameter}")
    assert "Traceback" not in out.stderr
