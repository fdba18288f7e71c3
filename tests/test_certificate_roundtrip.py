"""Every certificate certdp issues verifies in a fresh process; moved to the unsafe side, it fails.

The test enumerates the mechanism registry and each mechanism's calibration methods
(``Mechanism.calibration_methods``), so a mechanism or method added later is covered without
editing this file -- except that it must get an entry in EXAMPLES (the test says so). For every
(mechanism, method) on three (epsilon, delta) points it issues the calibration certificate, an
audit certificate at the safe value (VALID) and one at the unsafe end (VIOLATED, for DP claims),
and a profile certificate (on the first point); writes them all; runs ``certdp verify --json FILE...`` once in a new
Python process; expects VALID for each. Then it forges each calibration with its whole interval
moved across to the unsafe side (guarantee regenerated, digest recomputed) and expects INVALID.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import certdp
from certdp.certificate import Certificate
from certdp.mechanisms import get_mechanism, mechanism_names
from certdp.workflows.methods import methods_of

ROOT = Path(__file__).resolve().parents[1]

#: mechanism -> method -> (fixed parameters, three (epsilon, delta) points). Points are chosen to be
#: quick; `pytest -m slow tests/test_certificate_roundtrip.py` adds harder ones (SLOW_EXAMPLES).
EXAMPLES: dict[str, dict[str, tuple[dict, list[tuple[str, str]]]]] = {
    "gaussian": {"certified-bracket": ({"sensitivity": "1"}, [("1", "1e-5"), ("0.1", "1e-3"), ("5", "1e-10")])},
    "laplace": {"certified-bracket": ({"sensitivity": "3"}, [("1", "0.01"), ("0.5", "1e-6"), ("2", "0")])},
    "uniform": {"certified-bracket": ({"sensitivity": "3"}, [("1", "0.01"), ("0.5", "0.1"), ("3", "1e-4")])},
    "ggm": {
        "certified-bracket": ({"shape": "1.5", "sensitivity": "3"}, [("1", "0.01"), ("0.5", "1e-3"), ("2", "1e-5")]),
        "product-loss-engine": ({"shape": "1.5", "sensitivity": "1,2"}, [("1", "0.01"), ("0.5", "0.05"),
                                                                           ("2", "0.01")]),
        # the coupled bracket where the product engine cannot certify (delta 1e-12, 1e-30) and at d = 5
        "quantile-coupling": ({"shape": "1.5", "sensitivity": "1,2"}, [("1", "1e-12"), ("1", "1e-30"),
                                                                         ("0.5", "0.01")]),
        # the shape-search certificate (kind shape-search, not a calibration method): test_shape_search_round_trip
        "quantile-coupling-branch-and-bound": ({"sensitivity": "1,2", "tolerance": "0.1", "p_max": "2"},
                                               [("1", "0.01")]),
    },
    "sgg": {"certified-bracket": ({"dimension": "10", "alpha": "9", "power": "2", "rtol": "1e-6"},
                                  [("1", "1e-5"), ("2", "1e-3"), ("0.5", "1e-2")])},
    "r1smg": {"certified-bracket": ({"dimension": "10", "rtol": "1e-5"}, [("1", "1e-3"), ("2", "1e-2"),
                                                                          ("0.5", "1e-2")])},
    "l2-laplace": {"certified-bracket": ({"dimension": "3", "rtol": "1e-5"}, [("1", "0.05"), ("2", "0.05"),
                                                                               ("1/2", "0.1")])},
    "spherical-gaussian": {"certified-bracket": ({"dimension": "5", "rtol": "1e-6"},
                                                 [("1", "1e-5"), ("2", "1e-3"), ("0.5", "1e-2")])},
    "quasi-gaussian": {
        "seed000-thm-4.2": ({}, [("1", "1e-5"), ("0.5", "1e-3"), ("2", "1e-6")]),
        "exact-mixture-engine": ({}, [("1", "1e-5"), ("0.5", "1e-3"), ("2", "1e-2")]),
    },
    "multi-gaussian": {
        "seed000-alg-1": ({"components": "2"}, [("1", "1e-5"), ("0.5", "1e-3"), ("2", "1e-6")]),
        "exact-mixture-engine": ({"components": "2"}, [("1", "1e-3"), ("0.5", "1e-2"), ("2", "1e-3")]),
    },
}


def _cases():
    for name in mechanism_names():
        for method in methods_of(get_mechanism(name)):
            yield pytest.param(name, method, id=f"{name}-{method}")


def test_every_mechanism_and_method_has_examples():
    missing = [(n, m) for n in mechanism_names() for m in methods_of(get_mechanism(n))
               if m not in EXAMPLES.get(n, {})]
    assert not missing, f"add round-trip examples for {missing} to EXAMPLES"


def _verify_in_fresh_process(paths: list[Path]) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "certdp.cli.main", "verify", "--json", *map(str, paths)],
                         capture_output=True, text=True, env=env, timeout=1200)
    assert out.returncode in (0, 1, 3), out.stderr
    data = json.loads(out.stdout)
    return data if isinstance(data, list) else [{"file": str(paths[0]), **data}]


def _moved_to_unsafe_side(cert: Certificate) -> Certificate:
    """The same certificate with its interval shifted across its unsafe end (value = the old unsafe end)."""
    lo, hi = (Fraction(x) for x in cert.interval)
    width = hi - lo
    new = (lo - width, lo) if cert.safe_side == "upper" else (hi, hi + width)
    data = json.loads(cert.to_json())
    from certdp.numbers import exact_str

    data["interval"] = [exact_str(x) for x in new]
    data["value"] = exact_str(new[1] if cert.safe_side == "upper" else new[0])
    forged = Certificate.from_dict(data)
    forged.guarantee = forged.statement()
    return forged.seal()


@pytest.mark.parametrize("name, method", list(_cases()))
def test_round_trip(name, method, tmp_path):
    fixed, points = EXAMPLES[name][method]
    fixed = dict(fixed)
    rtol = fixed.pop("rtol", None)
    good: list[Path] = []
    forged: list[Path] = []
    for i, (eps, delta) in enumerate(points):
        cert = certdp.calibrate(name, method=method, epsilon=eps, delta=delta, rtol=rtol, **fixed)
        assert cert.kind == "calibration" and cert.claim in ("minimal", "endpoints", "sufficient")
        issued = [cert]
        if i == 0 and cert.method in ("certified-bracket", "pure-dp-closed-form") and delta != "0":
            params = {k: v for k, v in cert.parameters.items()}
            issued.append(certdp.audit(name, value=str(cert.value), epsilon=eps, delta=delta, **params))
            issued.append(certdp.audit(name, value=str(cert.unsafe_end), epsilon=eps, delta=delta, **params))
            issued.append(certdp.profile(name, value=str(cert.value), epsilon=eps, **params))
            assert [c.verdict for c in issued[1:3]] == ["VALID", "VIOLATED"]
        for j, c in enumerate(issued):
            path = tmp_path / f"{i}-{j}-{c.kind}.json"
            path.write_text(c.to_json())
            good.append(path)
        path = tmp_path / f"{i}-forged.json"
        path.write_text(_moved_to_unsafe_side(cert).to_json())
        forged.append(path)
    results = _verify_in_fresh_process(good + forged)
    statuses = {r["file"]: r for r in results}
    for path in good:
        assert statuses[str(path)]["status"] == "VALID", (path.name, statuses[str(path)]["reasons"])
    for path in forged:
        assert statuses[str(path)]["status"] == "INVALID", (path.name, statuses[str(path)]["reasons"])


# ------------------------------------------------------------------ calibration under composition (composed-pld)
from certdp.workflows.compose import COMPOSABLE  # noqa: E402

#: mechanism -> (fixed parameters incl. compositions / grid_bits / rtol, one (epsilon, delta) point); every
#: mechanism of COMPOSABLE must be listed. The connect-the-dots SGG members cost one certified profile per
#: grid point per probe: sgg at T = 2, delta = 0.1 takes ~5 s, r1smg ~5 min (slow-marked).
COMPOSED_EXAMPLES: dict[str, tuple[dict, tuple[str, str], bool]] = {
    "gaussian": ({"sensitivity": "1", "compositions": 10}, ("1", "1e-5"), False),
    "spherical-gaussian": ({"dimension": "4", "sensitivity": "2", "compositions": 10}, ("1", "1e-5"), False),
    "laplace": ({"sensitivity": "1", "compositions": 3, "grid_bits": 6, "rtol": "0.1"}, ("1", "1e-3"), False),
    "subsampled-gaussian": ({"sampling_rate": "0.5", "compositions": 2, "grid_bits": 6, "rtol": "0.1"},
                            ("1", "1e-3"), False),
    "l2-laplace": ({"dimension": "3", "compositions": 2, "grid_bits": 7, "rtol": "0.05"}, ("1", "1e-3"), False),
    "sgg": ({"dimension": "2", "alpha": "1", "power": "1", "compositions": 2, "grid_bits": 5, "rtol": "0.1"},
            ("1", "0.1"), False),
    "r1smg": ({"dimension": "2", "compositions": 2, "grid_bits": 5, "rtol": "0.1"}, ("1", "0.1"), True),
}


def test_every_composable_mechanism_has_a_composed_example():
    missing = sorted(set(COMPOSABLE) - set(COMPOSED_EXAMPLES))
    assert not missing, f"add composed round-trip examples for {missing} to COMPOSED_EXAMPLES"


def _composed_cases():
    for name, (_, _, slow) in COMPOSED_EXAMPLES.items():
        yield pytest.param(name, id=f"composed-{name}", marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("name", list(_composed_cases()))
def test_composed_round_trip(name, tmp_path):
    """A composed-pld calibration verifies in a fresh process (claim 'minimal' for every composable
    mechanism, sgg / r1smg included: proofs/sgg_composed_monotonicity_lemma4_2.py); its interval moved
    across the unsafe end (guarantee regenerated, digest recomputed) is INVALID."""
    fixed, (eps, delta), _ = COMPOSED_EXAMPLES[name]
    cert = certdp.calibrate(name, epsilon=eps, delta=delta, **fixed)
    assert cert.method == "composed-pld" and cert.claim == "minimal"
    paths = [tmp_path / "good.json", tmp_path / "moved.json"]
    paths[0].write_text(cert.to_json())
    paths[1].write_text(_moved_to_unsafe_side(cert).to_json())
    statuses = [r["status"] for r in _verify_in_fresh_process(paths)]
    assert statuses == ["VALID"] + ["INVALID"] * (len(paths) - 1), statuses


# ------------------------------------------------------------------ the shape-search certificate (GGM, vectors)
#: certificate kinds issued by searches rather than calibrate/audit/profile, with their EXAMPLES entry
SEARCH_KINDS = {"shape-search": ("ggm", "quantile-coupling-branch-and-bound")}


def test_every_certificate_kind_has_a_round_trip():
    from certdp.certificate import CLAIMS_BY_KIND

    covered = {"calibration", "audit", "profile", "composition"} | set(SEARCH_KINDS)
    assert set(CLAIMS_BY_KIND) <= covered, f"add a round trip for {sorted(set(CLAIMS_BY_KIND) - covered)}"
    for mech, method in SEARCH_KINDS.values():
        assert method in EXAMPLES[mech]


def test_shape_search_round_trip(tmp_path):
    """`certdp shape ggm -s 1,2 -o FILE` (small: p_max 2, tolerance 0.1) writes a certificate that
    `certdp verify` re-proves in a fresh process; the same with L* raised by 0.05 (gap tightened,
    guarantee regenerated, digest recomputed) is INVALID."""
    fixed, points = EXAMPLES["ggm"]["quantile-coupling-branch-and-bound"]
    eps, delta = points[0]
    path = tmp_path / "shape.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "certdp.cli.main", "shape", "ggm", "-e", eps, "-d", delta,
                          "-s", fixed["sensitivity"], "-t", fixed["tolerance"], "--p-max", fixed["p_max"],
                          "-o", str(path), "--json"], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    cert = Certificate.from_json(path.read_text())
    assert cert.kind == "shape-search" and cert.claim == "objective-bounds"
    data = json.loads(path.read_text())
    lo, hi = (Fraction(x) for x in data["extra"]["objective_bounds"])
    from certdp.numbers import exact_str

    data["extra"]["objective_bounds"][0] = exact_str(min(lo + Fraction(1, 20), hi))
    forged = Certificate.from_dict(data)
    forged.guarantee = forged.statement()
    forged_path = tmp_path / "tightened.json"
    forged_path.write_text(forged.seal().to_json())
    statuses = [r["status"] for r in _verify_in_fresh_process([path, forged_path])]
    assert statuses == ["VALID", "INVALID"], statuses
