"""CLI of the mixture mechanisms (click runner)."""

from __future__ import annotations

import json

import certdp

import mpmath
from click.testing import CliRunner

from certdp.cli.main import cli


def _run(args):
    return CliRunner().invoke(cli, args)


def test_calibrate_qg_paper_json():
    r = _run(["calibrate", "quasi-gaussian", "-e", "5", "-d", "0.01", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["method"] == "seed000-thm-4.2"
    assert abs(float(data["value"]) - 0.2336875325151) < 1e-9


def test_calibrate_qg_paper_table_says_delta_not_computed():
    """Thm 4.2's certificate carries no delta enclosure: the table says so instead of 'in [, ]'."""
    r = _run(["calibrate", "quasi-gaussian", "-e", "5", "-d", "0.01"])
    assert r.exit_code == 0, r.output
    assert "in [, ]" not in r.output and "not computed" in r.output


def test_audit_multi_gaussian_verdicts():
    bad = _run(["audit", "multi-gaussian", "--sigma", "0.3", "-K", "1", "-e", "1", "-d", "1e-5", "--json"])
    assert bad.exit_code == 1, bad.output
    data = json.loads(bad.output)
    assert data["verdict"] == "VIOLATED"
    assert data["kind"] == "audit" and float(data["extra"]["witness"]["H_lower_bound"]) > 1e-5
    assert certdp.verify(bad.output).status == "VALID"
    good = _run(["audit", "multi-gaussian", "--sigma", "3", "-K", "1", "-e", "1", "-d", "0.1", "--json"])
    assert good.exit_code == 0, good.output
    assert json.loads(good.output)["verdict"] == "VALID" and certdp.verify(good.output).status == "VALID"


def test_audit_quasi_gaussian_decision_mode_and_forged_witness():
    """The issue's slow generic audit: the QG engine in decision mode decides it; its witness verifies,
    and a witness moved to a harmless shift is rejected."""
    r = _run(["audit", "quasi-gaussian", "--sigma", "0.0262264402844", "-e", "4", "-d", "0.02", "--json"])
    assert r.exit_code == 1, r.output
    data = json.loads(r.output)
    assert data["verdict"] == "VIOLATED" and certdp.verify(r.output).status == "VALID"
    from certdp.certificate import Certificate

    forged = Certificate.from_json(r.output)
    forged.extra["witness"]["shift"] = "0"  # H(0) = 0: no witness there
    assert certdp.verify(forged.seal()).status == "INVALID"


def test_profile_and_zcdp_and_bad_input():
    r = _run(["profile", "multi-gaussian", "--sigma", "1", "-K", "0", "-e", "1", "--json"])
    assert r.exit_code == 0, r.output
    lo, hi = (float(x) for x in json.loads(r.output)["delta_enclosure"])
    assert lo <= 0.12693673750664394 <= hi
    r = _run(["zcdp-compose", "--sigma", "1", "--sigma", "2", "--delta", "1e-5", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["rho_total"] == "0.625"
    r = _run(["calibrate", "multi-gaussian", "-K", "2", "-e", "1", "-d", "1e-3", "--eta", "0.01", "--json"])
    assert r.exit_code == 0, r.output
    cert = json.loads(r.output)
    assert cert["method"] == "seed000-alg-1" and cert["condition"]["target_delta"] == "0.00099"
    lo, hi = (float(x) for x in cert["interval"])
    # independent float check (not a proof): the float hockey-stick sup brackets (1 - eta) delta
    from certdp.engines.gaussian_mixture.float_guide import mg_profile_float

    assert mg_profile_float(hi, 1.0, 2)[0] <= 0.00099 * (1 + 1e-6) <= mg_profile_float(lo, 1.0, 2)[0] * (1 + 1e-6)
    r = _run(["calibrate", "multi-gaussian", "-K", "2", "-e", "1", "-d", "1e-3", "--eta", "1.5"])
    from certdp.numbers import InputError

    assert isinstance(r.exception, InputError) and r.exception.parameter == "eta"


def test_profile_plot_and_rtol(tmp_path):
    """--plot writes a PNG; the certified enclosure contains the independent float guide value."""
    from certdp.engines.gaussian_mixture.float_guide import mg_profile_float

    png = tmp_path / "mg.png"
    r = _run(["profile", "multi-gaussian", "--sigma", "0.8", "-K", "2", "-e", "1", "--plot", str(png), "--json"])
    assert r.exit_code == 0, r.output
    assert png.stat().st_size > 10_000
    lo, hi = (float(x) for x in json.loads(r.output)["delta_enclosure"])
    ref = mg_profile_float(0.8, 1.0, 2)[0]
    assert lo * (1 - 1e-9) <= ref <= hi * (1 + 1e-9)
    r = _run(["profile", "multi-gaussian", "--sigma", "0.8", "-K", "2", "-e", "1", "--rtol", "2"])
    from certdp.numbers import InputError

    assert isinstance(r.exception, InputError) and r.exception.parameter == "rtol"


def test_optimize_multi_gaussian_best_k():
    """Best K for l1 at (eps = 0.25, delta = 1e-5), K <= 3: the certified loss at the certified sigma
    matches the closed-form float moment at that sigma (App. B.2, float64) and the chosen K
    minimises the float losses."""
    from certdp.engines.gaussian_mixture.float_guide import mg_moments_float

    r = _run(["optimize", "multi-gaussian", "-e", "0.25", "-d", "1e-5", "--max-components", "3", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    losses = {int(k): v for k, v in out["float_losses"].items()}
    assert out["best_K"] == min(losses, key=losses.get)
    sigma = float(out["certificate"]["value"])
    lo, hi = (float(x) for x in out["certified_loss_at_safe_sigma"])
    ref = mg_moments_float(sigma, 0.25, out["best_K"])[0]
    assert lo * (1 - 1e-12) <= ref <= hi * (1 + 1e-12)
    assert out["certificate"]["method"] == "seed000-alg-1"


def _mp_mean_abs(sigma, eps, k_max):
    """E|X| of MG(sigma, K) (Delta = 1) at 50 digits by the folded-normal formula per component."""
    with mpmath.workdps(50):
        s, e = mpmath.mpf(str(sigma)), mpmath.mpf(eps)
        w = {k: mpmath.exp(-abs(k) * e) for k in range(-k_max, k_max + 1)}
        z = sum(w.values())
        return +sum(wk / z * (s * mpmath.sqrt(2 / mpmath.pi) * mpmath.exp(-k * k / (2 * s * s))
                              + k * (1 - 2 * mpmath.ncdf(-k / s))) for k, wk in w.items())


def test_optimize_multi_gaussian_certified_search():
    """--certify-search at (eps = 1, delta = 0.01), K <= 6: every K's certified l1 interval contains
    the 50-digit E|X| at both ends of its certified sigma bracket (loss increasing in sigma), the
    best K (4) is certified (its interval lies below all others) and is the float search's argmin."""
    from certdp.workflows.mixtures.best_k import mg_best_k_certified, mg_best_k_float

    r = _run(["optimize", "multi-gaussian", "-e", "1", "-d", "0.01", "--max-components", "6",
              "--certify-search", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["decided"] and out["best_K"] == [4], out["best_K"]
    res = mg_best_k_certified("1", "0.01", "l1", range(1, 7))
    floats = mg_best_k_float(1.0, 0.01, range(1, 7))
    assert min(floats, key=lambda k: floats[k][1]) == 4
    for k, (lo, hi) in res.losses.items():
        s_lo, s_hi = res.certificates[k].interval
        with mpmath.workdps(50):
            assert mpmath.mpf(lo) <= _mp_mean_abs(s_lo, 1, k) and _mp_mean_abs(s_hi, 1, k) <= mpmath.mpf(hi), k
        if k != 4:
            assert float(res.losses[4][1]) < float(lo)
    assert out["certified_losses"]["4"] == list(res.losses[4])
