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


def _gdp_delta(mu, eps):
    import mpmath

    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _exact_dpsgd_epsilon(q, sigma, k, delta):
    """q = 1: k full-batch Gaussian steps are exactly mu-GDP, mu = sqrt(k)/sigma (Dong, Roth & Su 2022,
    Cor. 3.3); the epsilon at delta by 50-digit bisection in mpmath -- independent of certdp."""
    import mpmath

    assert q == 1.0
    with mpmath.workdps(50):
        mu = mpmath.sqrt(k) / mpmath.mpf(sigma)
        return mpmath.findroot(lambda e: _gdp_delta(mu, e) - mpmath.mpf(delta), (0, 100), solver="bisect")


def _exact_dpsgd_sigma(q, eps, k, delta):
    import mpmath

    assert q == 1.0
    with mpmath.workdps(50):
        mu = mpmath.findroot(lambda m: _gdp_delta(m, mpmath.mpf(eps)) - mpmath.mpf(delta), (1e-3, 50),
                             solver="bisect")
        return mpmath.sqrt(k) / mu


def _dpsgd_question(name, returns, factor):
    exact = _exact_dpsgd_epsilon if returns == "dpsgd-epsilon" else _exact_dpsgd_sigma
    return Question(name, "subsampled-gaussian", f"{returns} x {factor} (mpmath GDP, q = 1)", f"_{name}",
                    lambda q, x, k, d: float(exact(q, x, k, d) * factor), returns=returns, fixed={})


STANDIN = Adapter(library="standin", module="math", distribution="math", questions=(
    Question("classic", "gaussian", "sigma for (eps, delta), sensitivity 1 (classic formula)", "_classic", _classic),
    Question("short", "gaussian", "sigma for (eps, delta), sensitivity 1 (3.72 at eps = 1)", "_short", _short),
    Question("raises", "gaussian", "always refuses", "_raise", lambda e, d: 1 / 0),
    _dpsgd_question("dpsgd-low", "dpsgd-epsilon", 0.97),   # under-reports epsilon by 3 %
    _dpsgd_question("dpsgd-high", "dpsgd-epsilon", 1.03),
    _dpsgd_question("noise-low", "dpsgd-sigma", 0.97),     # 3 % too little noise for the target epsilon
    _dpsgd_question("noise-high", "dpsgd-sigma", 1.03),
))


@pytest.fixture
def standin(monkeypatch):
    import certdp.crosscheck.library as library
    import certdp.crosscheck.runner as runner

    lookup = lambda name: STANDIN if name == "standin" else get_adapter(name)  # noqa: E731
    import certdp.crosscheck.dpsgd as dpsgd

    monkeypatch.setattr(runner, "get_adapter", lookup)
    monkeypatch.setattr(library, "get_adapter", lookup)
    monkeypatch.setattr(dpsgd, "get_adapter", lookup)
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


def _screenshot(report, shot):
    import subprocess

    subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={shot}", "--window-size=1200,1400", report.as_uri()],
                   capture_output=True, timeout=60)
    from matplotlib.image import imread

    pixels = imread(shot)
    assert pixels.shape[:2] == (1400, 1200)
    return ((pixels[..., 0] > 0.7) & (pixels[..., 1] < 0.3) & (pixels[..., 2] < 0.3)).sum()


@pytest.mark.skipif(_chromium() is None, reason="headless chromium is not installed")
def test_report_renders_in_headless_chromium(standin, cli, tmp_path):
    report, shot = tmp_path / "r.html", tmp_path / "shot.png"
    cli("crosscheck", "standin", "-m", "short", "--grid", "eps=0.5:2:3,delta=1e-6:1e-5:2", "--report", str(report))
    assert _screenshot(report, shot) > 500, "the embedded heatmap (red VIOLATED cells) did not render"


@pytest.mark.skipif(_chromium() is None, reason="headless chromium is not installed")
def test_dpsgd_report_renders_in_headless_chromium(standin, cli, tmp_path):
    report, shot = tmp_path / "r.html", tmp_path / "shot.png"
    cli("crosscheck", "standin", "-m", "dpsgd-low", "--grid", "q=1,sigma=2:4:2,k=4:16:2,delta=1e-5", "--rtol", "0.05",
        "--report", str(report))
    assert _screenshot(report, shot) > 2000, "the embedded DP-SGD heatmap (4 red VIOLATED cells) did not render"


# ---------------------------------------------------------------- DP-SGD questions (q, sigma | eps, k, delta)

def test_dpsgd_grid_axes():
    from certdp.crosscheck.grid import DEFAULT_DPSGD_GRID, DPSGD_AXES
    from certdp.numbers import InputError

    axes, default = DPSGD_AXES["dpsgd-epsilon"], DEFAULT_DPSGD_GRID["dpsgd-epsilon"]
    grid = parse_grid("q=0.01,k=10:1000:4", axes, default)
    assert grid["steps"] == ["10", "46", "215", "1000"] and grid["sampling_rate"] == ["0.01"]
    assert grid["sigma"] == ["0.8", "1.265", "2"]  # from the default
    for bad, reason in (("eps=1", "this question's axes: q, sigma, k, delta"), ("k=2.5", "integers"),
                        ("q=1.5", "(0, 1]"), ("sigma=0", "positive")):
        with pytest.raises(InputError, match=re.escape(reason)):
            parse_grid(bad, axes, default)
    with pytest.raises(InputError, match="this question's axes: eps, delta"):
        parse_grid("k=10")


@pytest.mark.parametrize("question, verdict", [("dpsgd-low", "VIOLATED"), ("dpsgd-high", "VALID")])
def test_dpsgd_epsilon_referee_against_mpmath_gdp(standin, question, verdict):
    from fractions import Fraction

    from certdp.crosscheck.dpsgd import check_dpsgd_point

    p = check_dpsgd_point("standin", question, "1", "10", "1e-5", sigma="2", rtol="0.05")
    exact = _exact_dpsgd_epsilon(1.0, 2, 10, 1e-5)  # 7.5112759007447822...
    lo, hi = (Fraction(x) for x in p["epsilon_enclosure"])
    assert lo <= Fraction(str(exact)) <= hi and (hi - lo) / hi <= Fraction(5, 100)
    assert p["verdict"] == verdict and p["epsilon"] == p["library_value"]
    d_lo, d_hi = (Fraction(x) for x in p["delta_enclosure"])
    if verdict == "VIOLATED":
        assert d_lo > Fraction("1e-5") and p["excess_percent"] < -3
    else:
        assert d_hi <= Fraction("1e-5") and p["excess_percent"] > 0
    # the certified delta at the claimed epsilon encloses the exact GDP delta there
    import mpmath

    with mpmath.workdps(50):
        true = _gdp_delta(mpmath.sqrt(10) / 2, mpmath.mpf(p["library_value"]))
    assert d_lo <= Fraction(mpmath.nstr(true, 30)) <= d_hi


@pytest.mark.parametrize("question, verdict", [("noise-low", "VIOLATED"), ("noise-high", "VALID")])
def test_dpsgd_sigma_referee(standin, question, verdict):
    from certdp.crosscheck.dpsgd import check_dpsgd_point

    p = check_dpsgd_point("standin", question, "1", "4", "1e-5", epsilon="2", rtol="0.05")
    assert p["verdict"] == verdict and p["sigma"] == p["library_value"] and p["epsilon"] == "2"
    assert (p["excess_percent"] < 0) == (verdict == "VIOLATED")


def test_cli_dpsgd_json_and_report(standin, cli, tmp_path):
    report = tmp_path / "r.html"
    out = cli("crosscheck", "standin", "-m", "dpsgd-low", "--grid", "q=1,sigma=2,k=4:16:2,delta=1e-5",
              "--rtol", "0.05", "--report", str(report), "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 1 and data["returns"] == "dpsgd-epsilon" and data["rtol"] == "0.05"
    assert [p["steps"] for p in data["points"]] == ["4", "16"]
    assert data["summary"]["tried"] == 2 and data["summary"]["violated"] == 2
    assert set(data["summary"]["worst_excess_at"]) == {"sampling_rate", "sigma", "steps", "epsilon", "delta"}
    for p in data["points"]:
        assert {"epsilon", "delta", "library_value", "verdict", "delta_enclosure", "excess_percent"} <= set(p)
    page = report.read_text()
    assert "certdp epsilon (certified)" in page and "data:image/png;base64," in page
    bad = cli("crosscheck", "standin", "-m", "short", "--rtol", "0.05", "--grid", "eps=1,delta=1e-5")
    assert bad.returncode == 2 and bad.stderr.startswith("error: rtol: ")
