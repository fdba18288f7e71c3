"""Certified shape search (seed 004 Sec. 4) against the paper's Tables 2-3 and invariances."""

from __future__ import annotations

import math

import pytest

from certdp.workflows.ggm_shape_search import certified_shape_search, float_objective, grid_shape_search

TABLE3 = {  # (eps, delta): (p_hat, L2(p_hat), best benchmark L2, improvement %), Delta = 3
    ("0.25", "0.1"): (2.7790, 38.10, 40.19, 5.21),
    ("0.25", "0.01"): (1.3038, 200.05, 241.92, 17.31),
    ("0.25", "0.001"): (1.0384, 275.92, 283.44, 2.65),
    ("0.5", "0.1"): (1.9852, 21.80, 21.80, 0.00),
    ("0.5", "0.01"): (1.1520, 60.32, 66.54, 9.35),
    ("0.5", "0.001"): (1.0174, 70.63, 71.43, 1.12),
    ("1", "0.1"): (1.4884, 9.86, 10.61, 7.09),
    ("1", "0.01"): (1.0649, 16.71, 17.30, 3.40),
    ("1", "0.001"): (1.0069, 17.86, 17.93, 0.37),
    ("2", "0.1"): (1.1847, 3.55, 3.68, 3.62),
    ("2", "0.01"): (1.0209, 4.39, 4.41, 0.52),
    ("2", "0.001"): (1.0021, 4.49, 4.49, 0.05),
}


def _check_row(r, paper, p_tol):
    p_hat, l2, bench, impr = paper
    lo, hi = (float(x) for x in r.objective_bounds)
    assert hi - lo <= float(r.tolerance) * (1 + 1e-9)
    assert f"{float(r.moment_upper):.2f}" == f"{l2:.2f}"
    bench_ours = min(float(v["L2_bounds"][1]) for v in r.benchmarks.values())
    assert f"{bench_ours:.2f}" == f"{bench:.2f}"
    assert abs(float(r.p_hat) - p_hat) <= p_tol
    assert abs(100 * (1 - float(r.moment_upper) / bench_ours) - impr) <= 0.006
    # the certified bounds bracket the true minimum: the benchmarks are feasible points
    assert lo <= min(math.log(float(v["L2_bounds"][1])) for v in r.benchmarks.values())


def test_table2_selected_shape():
    """Table 2: p-hat ~ 1.0649, b = 3.19, L2 = 16.71; Laplace 2.94 / 17.30; Gaussian 7.97 / 31.74; uniform 150."""
    r = certified_shape_search("1", "0.01", 3, tolerance="1e-3")
    assert f"{float(r.scale):.2f}" == "3.19"
    assert f"{float(r.moment_upper):.2f}" == "16.71"
    assert abs(float(r.p_hat) - 1.0649) < 5e-3
    b = r.benchmarks
    assert f"{float(b['1']['scale']):.2f}" == "2.94" and f"{float(b['1']['L2_bounds'][0]):.2f}" == "17.30"
    assert f"{float(b['2']['scale']):.2f}" == "7.97" and f"{float(b['2']['L2_bounds'][0]):.2f}" == "31.74"
    assert f"{float(b['inf']['scale']):.2f}" == "150.00" and b["inf"]["L2_bounds"][0].startswith("7499.99")
    assert r.improvement_lower > 3.3


@pytest.mark.parametrize("key", [("2", "0.001"), ("1", "0.001")])
def test_table3_fast_rows(key):
    r = certified_shape_search(*key, 3, tolerance="1e-4")
    _check_row(r, TABLE3[key], p_tol=2e-4)


@pytest.mark.slow
@pytest.mark.parametrize("key", list(TABLE3))
def test_table3_all_rows(key):
    r = certified_shape_search(*key, 3, tolerance="1e-4")
    _check_row(r, TABLE3[key], p_tol=2e-4)


def test_rescaling_invariance():
    """Prop. 5.1: Delta -> c Delta multiplies b(p) by c, so F shifts by m log c and p-hat is unchanged."""
    r1 = certified_shape_search("1", "0.1", 1, tolerance="1e-3")
    r3 = certified_shape_search("1", "0.1", 3, tolerance="1e-3")
    lo1, hi1 = (float(x) for x in r1.objective_bounds)
    lo3, hi3 = (float(x) for x in r3.objective_bounds)
    shift = 2 * math.log(3)
    assert lo3 <= hi1 + shift and lo1 + shift <= hi3
    assert abs(float(r1.p_hat) - float(r3.p_hat)) < 0.02


def test_grid_mode_close_to_certified():
    g = grid_shape_search(1.0, 0.01, 3.0)
    assert abs(g.p_hat - 1.06) <= 0.011
    assert abs(g.improvement_percent - 3.40) < 0.05
    f, b = float_objective(2.0, 1.0, 0.01, 3.0)
    assert abs(b - 7.967) < 1e-3


def test_vector_shape_search_cli_certifies_the_improvement(cli):
    """`certdp shape ggm --sensitivity 1,2` (issue 17): certified branch and bound, certified scales and gain."""
    import json

    from certdp.workflows.calibrate import calibrate

    out = cli("shape", "ggm", "--sensitivity", "1,2", "--epsilon", "1", "--delta", "0.01", "--p-max", "4",
              "--tolerance", "0.05", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["kind"] == "shape-search-vector" and data["shape_certified_optimal"] is True
    lo, hi = (float(x) for x in data["objective_bounds"])
    assert hi - lo <= 0.05
    assert abs(math.log(float(data["L2_upper_per_coordinate"])) - hi) < 1e-6  # U* is the selected point's
    assert 1.2 < float(data["shape"]) < 1.45                                  # paper (MC-EB): 1.2947
    assert 14.0 < data["improvement_lower_percent"] < 15.5                    # paper: 15.25 %
    # p = 2 benchmark is the analytic Gaussian with ||Delta||_2 = sqrt 5, sigma = b / sqrt 2
    g = calibrate("gaussian", epsilon=1, delta="0.01", sensitivity="2.2360679774997896964091736687")
    b2 = data["benchmarks"]["2"]["scale_interval"]
    assert abs(float(b2[1]) / 2 ** 0.5 - float(g.value)) < 1e-9 * float(g.value)
    # the certified upper bound at p-hat is below every benchmark's certified lower bound
    upper = float(data["L2_upper_per_coordinate"])
    assert all(upper < float(v["L2_bounds"][0]) for v in data["benchmarks"].values())
