"""certdp crosscheck: grid syntax, the referee logic on a stand-in library, the JSON contract and the report.

Verdicts here are known from certdp's own certified profiles: at (eps, delta) = (1, 1e-5)
the minimal Gaussian sigma lies in [3.730631634815, 3.7306316348179], so 3.72 is VIOLATED
and the classic formula sqrt(2 ln(1.25/delta))/eps = 4.8448... is VALID.
"""

import base64
import json
import math
import re

import pytest

from certdp.crosscheck import base, get_adapter
from certdp.crosscheck.base import Adapter, Question
from certdp.crosscheck.grid import parse_grid


def _classic(eps, delta):
    return math.sqrt(2 * math.log(1.25 / delta)) / eps


def _short(eps, delta):
    return 3.72 if eps == 1.0 else _classic(eps, delta)


STANDIN = Adapter(library="standin", module="math", distribution="math", questions=(
    Question("classic", "gaussian", "sigma for (eps, delta), sensitivity 1 (classic formula)", "_classic", _classic),
    Question("short", "gaussian", "sigma for (eps, delta), sensitivity 1 (3.72 at eps = 1)", "_short", _short),
    Question("raises", "gaussian", "always refuses", "_raise", lambda e, d: 1 / 0),
))


@pytest.fixture
def standin(monkeypatch):
    import certdp.crosscheck.library as library
    import certdp.crosscheck.runner as runner

    lookup = lambda name: STANDIN if name == "standin" else get_adapter(name)  # noqa: E731
    monkeypatch.setattr(runner, "get_adapter", lookup)
    monkeypatch.setattr(library, "get_adapter", lookup)
    monkeypatch.setattr("certdp.crosscheck.is_library", lambda name: name == "standin" or name in ("diffprivlib",))
    monkeypatch.setattr("certdp.crosscheck.get_adapter", lookup)
    return STANDIN


def test_grid_is_log_spaced_with_exact_endpoints():
    grid = parse_grid("eps=0.01:50:12,delta=1e-12:0.1:8")
    assert len(grid["epsilon"]) == 12 and len(grid["delta"]) == 8
    assert grid["epsilon"][0] == "0.01" and grid["epsilon"][-1] == "50" and grid["delta"][-1] == "0.1"
    assert all(repr(float(x)) in (x, x + ".0") for x in grid["epsilon"] + grid["delta"])
    ratios = [float(b) / float(a) for a, b in zip(grid["epsilon"], grid["epsilon"][1:])]
    assert max(ratios) / min(ratios) < 1.01
    assert parse_grid("eps=1")["epsilon"] == ["1"] and len(parse_grid("eps=1")["delta"]) == 8


@pytest.mark.parametrize("text, reason", [
    ("eps=1:0.1:3", "start must be below stop"), ("eps=0:1:3", "positive"), ("delta=0.1:2:3", "(0, 1)"),
    ("eps=1:2", "start:stop:count"), ("eps=1:2:x", "integer"), ("eps=1:2:1", "at least 2"),
    ("sigma=1", "unknown axis"), ("eps=1,eps=2", "twice"), ("eps", "key="), ("eps=nan", "not a number"),
])
def test_bad_grid_is_one_line_exit_2(text, reason, cli):
    out = cli("crosscheck", "diffprivlib", "--grid", text)
    assert out.returncode == 2 and out.stderr.startswith("error: grid: ") and reason in out.stderr
    assert out.stderr.count("\n") == 1


def test_verdicts_match_certdp_profiles(standin):
    from certdp.crosscheck.runner import check_point

    bad = check_point("standin", "short", "1", "1e-5")
    assert bad["library_value"] == "3.72" and bad["verdict"] == "VIOLATED"
    assert float(bad["delta_enclosure"][0]) > 1e-5 and bad["excess_percent"] < 0
    assert bad["certified_minimum"] == "3.7306316348179"
    good = check_point("standin", "classic", "0.5", "1e-5")
    assert good["verdict"] == "VALID" and float(good["delta_enclosure"][1]) <= 1e-5
    assert good["excess_percent"] == pytest.approx(37.80, abs=0.01)
    refused = check_point("standin", "raises", "1", "1e-5")
    assert refused["verdict"] == "N/A" and "ZeroDivisionError" in refused["note"]


def test_json_contract_and_summary(standin, cli):
    out = cli("crosscheck", "standin", "-m", "short", "--grid", "eps=0.5:2:3,delta=1e-6:1e-5:2", "--json")
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert len(data["points"]) == 6
    for p in data["points"]:
        assert {"epsilon", "delta", "library_value", "verdict", "delta_enclosure", "excess_percent"} <= set(p)
    violated = [p for p in data["points"] if p["verdict"] == "VIOLATED"]
    assert [(p["epsilon"], p["delta"]) for p in violated] == [("1", "1e-06"), ("1", "1e-05")]
    s = data["summary"]
    assert (s["tried"], s["violated"]) == (6, 2) and s["worst_excess_percent"] > 30
    assert s["median_library_seconds"] is not None and s["median_certdp_seconds"] is not None


def test_html_report_is_self_contained(standin, cli, tmp_path):
    report, plot = tmp_path / "r.html", tmp_path / "h.png"
    out = cli("crosscheck", "standin", "-m", "short", "--grid", "eps=0.5:2:3,delta=1e-6:1e-5:2",
              "--report", str(report), "--plot", str(plot))
    assert out.returncode == 1 and "2 VIOLATED" in out.stdout
    text = report.read_text()
    assert "VIOLATED" in text and "sigma for (eps, delta)" in text
    assert not re.search(r"(src|href)=[\"'](?!data:)", text), "the report must not load anything"
    png = base64.b64decode(re.search(r"data:image/png;base64,([A-Za-z0-9+/=]+)", text).group(1))
    assert png.startswith(b"\x89PNG") and plot.read_bytes().startswith(b"\x89PNG")


def test_missing_peer_is_a_clean_error(monkeypatch, cli):
    monkeypatch.setattr(base.Adapter, "available", lambda self: False)
    out = cli("crosscheck", "autodp", "--grid", "eps=1,delta=1e-5")
    assert out.returncode == 2 and out.stderr == ("error: LIBRARY: autodp is not installed (pip install autodp, "
                                                  "or pip install 'certdp[peers]')\n")


def test_unknown_library_and_list(cli):
    out = cli("crosscheck", "nosuchlib")
    assert out.returncode == 2 and "no adapter for 'nosuchlib'" in out.stderr
    out = cli("crosscheck", "--list", "--json")
    rows = json.loads(out.stdout)
    assert {r["library"] for r in rows} == {"dp-accounting", "opendp", "diffprivlib", "autodp", "prv-accountant",
                                            "opacus"}
    assert all(r["asks"] for r in rows)


def test_import_certdp_imports_no_peer():
    import subprocess
    import sys

    code = ("import sys, certdp, certdp.crosscheck, certdp.cli.main; "
            "print([m for m in ('dp_accounting','opendp','diffprivlib','autodp','prv_accountant','opacus','dask') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def _chromium():
    import shutil

    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(_chromium() is None, reason="headless chromium is not installed")
def test_report_renders_in_headless_chromium(standin, cli, tmp_path):
    import subprocess

    report, shot = tmp_path / "r.html", tmp_path / "shot.png"
    cli("crosscheck", "standin", "-m", "short", "--grid", "eps=0.5:2:3,delta=1e-6:1e-5:2", "--report", str(report))
    subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={shot}", "--window-size=1200,1400", report.as_uri()],
                   capture_output=True, timeout=60)
    from matplotlib.image import imread

    pixels = imread(shot)
    assert pixels.shape[:2] == (1400, 1200)
    red = ((pixels[..., 0] > 0.7) & (pixels[..., 1] < 0.3) & (pixels[..., 2] < 0.3)).sum()
    assert red > 500, "the embedded heatmap (red VIOLATED cells) did not render"
