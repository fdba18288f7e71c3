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


def test_profile_budget_out_is_undecided_with_the_reached_enclosure():
    """A budget that runs out during a profile point (simulated deterministically: the alarm's
    BudgetExceeded raised from the engine's progress hook at its 4th round) becomes UNDECIDED with the
    certified enclosure reached; it contains the value the engine certifies without a budget."""
    from fractions import Fraction

    from flint import arb

    from certdp.cli.sgg import _reached_on_budget
    from certdp.cli.validate import BudgetExceeded
    from certdp.engines.radial import radial_progress, sgg_delta_enclosure
    from certdp.numbers import UndecidedError, working_precision
    from certdp.workflows.profile import profile

    rounds = []

    def alarm(bins, width, target, bits):
        rounds.append(bins)
        if len(rounds) == 4:
            raise BudgetExceeded()

    with pytest.raises(UndecidedError, match="certified so far") as info:
        with radial_progress(alarm), _reached_on_budget():
            profile("sgg", value="1.0657326", epsilon=1, dimension=3, alpha=2, power="1/2")
    lo, hi = (Fraction(x) for x in info.value.enclosure)
    with working_precision(128):
        enc = sgg_delta_enclosure(3, 2, Fraction(1, 2), arb(10657326) / 10**7, 1, 1, eta=arb(2) ** -400,
                                  rel_eta=1e-9, log_delta_hint=-27.6)
    assert lo <= Fraction(enc.lower.lower().mid().str(40, radius=False))
    assert Fraction(enc.upper.upper().mid().str(40, radius=False)) <= hi
    assert lo < hi
