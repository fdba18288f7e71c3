#!/usr/bin/env python3
"""Certified analytic-Gaussian calibration (certdp) against float calibrations of other libraries.

Run from the repository root::

    python3 benchmarks/bench_gaussian.py                 # full grid, rich tables
    python3 benchmarks/bench_gaussian.py --quick         # 3 x 3 grid, smoke test
    python3 benchmarks/bench_gaussian.py --profile       # also cProfile certdp over the grid
    python3 benchmarks/bench_gaussian.py --markdown out.md   # also write the tables as Markdown

Peers are optional; whatever is not importable is reported as "not installed":
dp-accounting, diffprivlib, opendp, autodp (``pip install dp-accounting
diffprivlib opendp autodp``; diffprivlib 0.6.6 needs ``scikit-learn<1.7``).

What is measured, on one (epsilon, delta) grid, sensitivity 1:

* certdp: ``certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1)``,
  one untimed warm-up call per point, then ``--reps`` timed calls; median and
  max per point. ``e`` and ``d`` are the Python floats of the grid, which
  certdp reads through their shortest repr (0.1 is one tenth).
* every peer: its float calibration of the Gaussian sigma for the same point;
  one global warm-up call, then per point timed calls until ``--reps`` calls
  or ``--budget`` seconds (at least one call). The sigma of the first call is
  checked with certdp's certified profile:
  ``certdp.audit("gaussian", value=repr(sigma), epsilon=e, delta=d).verdict``;
  VIOLATED means the peer's sigma is proven *not* (e, d)-DP.
* relative excess ``sigma_peer / sigma_certdp - 1`` where ``sigma_certdp`` is
  certdp's certified safe end (the exact minimum lies in certdp's interval of
  relative width <= 1e-12, so the excess is exact to about 1e-12). Positive:
  the peer adds more noise than needed; negative: less than the minimum
  (then the audit says VIOLATED unless within the 1e-12 bracket).

No timing is asserted; this script only prints.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import signal
import statistics
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

import certdp  # noqa: E402
from float_reference import interleaved_timing  # noqa: E402

EPSILONS = (0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
DELTAS = (1e-12, 1e-9, 1e-6, 1e-5, 1e-3, 0.01, 0.1)
QUICK_EPSILONS = (0.1, 1.0, 10.0)
QUICK_DELTAS = (1e-9, 1e-5, 0.01)


# ------------------------------------------------------------------ peers
class CallTimeout(Exception):
    pass


def _alarm(signum, frame):  # noqa: ARG001
    raise CallTimeout()


def call_with_timeout(fn: Callable[[], float], seconds: float) -> float:
    """Run ``fn`` with a SIGALRM watchdog (some peers' bisections never stop at extreme points)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class Peer:
    name: str
    method: str
    make: Callable[[], Callable[[float, float], float]]
    fn: Callable[[float, float], float] | None = None
    version: str = ""
    unavailable: str = ""


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


def _dp_accounting_analytic():
    from dp_accounting import gaussian_mechanism

    return lambda e, d: gaussian_mechanism.get_sigma_gaussian(e, d)


def _dp_accounting_pld():
    from dp_accounting.pld import accountant, common

    return lambda e, d: accountant.get_smallest_gaussian_noise(
        common.DifferentialPrivacyParameters(e, d), num_queries=1, sensitivity=1)


def _dp_accounting_rdp():
    import dp_accounting
    from dp_accounting import mechanism_calibration as mc

    bracket = mc.ExplicitBracketInterval(1e-3, 1e7)
    return lambda e, d: dp_accounting.calibrate_dp_mechanism(
        dp_accounting.rdp.RdpAccountant, dp_accounting.GaussianDpEvent, e, d,
        bracket_interval=bracket, tol=1e-9)


def _diffprivlib():
    from diffprivlib.mechanisms import GaussianAnalytic

    return lambda e, d: float(GaussianAnalytic(epsilon=e, delta=d, sensitivity=1)._scale)


def _opendp():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    domain = dp.atom_domain(T=float, nan=False)
    metric = dp.absolute_distance(T=float)

    def sigma(e: float, d: float) -> float:
        def chain(scale: float):
            m = dp.m.make_gaussian(domain, metric, scale)
            return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(m), d)

        return dp.binary_search_param(chain, d_in=1.0, d_out=(e, d))

    return sigma


def _autodp_function():
    from autodp import rdp_acct  # noqa: F401  (autodp's privacy_calibrator has a circular import otherwise)
    from autodp import privacy_calibrator

    return lambda e, d: privacy_calibrator.ana_gaussian_mech(e, d)["sigma"]


def _autodp_zoo():
    from autodp import calibrator_zoo, mechanism_zoo

    calibrator = calibrator_zoo.ana_gaussian_calibrator()
    return lambda e, d: calibrator(mechanism_zoo.ExactGaussianMechanism, e, d).params["sigma"]


def build_peers() -> list[Peer]:
    specs = [
        ("dp-accounting analytic", "gaussian_mechanism.get_sigma_gaussian (Balle-Wang, brentq on log delta)",
         _dp_accounting_analytic, "dp-accounting"),
        ("dp-accounting PLD", "pld.accountant.get_smallest_gaussian_noise (GaussianPrivacyLoss.from_privacy_guarantee)",
         _dp_accounting_pld, "dp-accounting"),
        ("dp-accounting RDP", "calibrate_dp_mechanism(RdpAccountant, GaussianDpEvent): RDP conversion, not analytic",
         _dp_accounting_rdp, "dp-accounting"),
        ("diffprivlib", "mechanisms.GaussianAnalytic(...)._scale (Balle-Wang, bisection)",
         _diffprivlib, "diffprivlib"),
        ("OpenDP", "binary_search_param(make_gaussian >> zCDP->approxDP >> fix_delta): no analytic-Gaussian path",
         _opendp, "opendp"),
        ("autodp ana_gaussian_mech", "privacy_calibrator.ana_gaussian_mech (Balle-Wang, bisection, abs tol 1e-12 on delta)",
         _autodp_function, "autodp"),
        ("autodp calibrator_zoo", "calibrator_zoo.ana_gaussian_calibrator + ExactGaussianMechanism",
         _autodp_zoo, "autodp"),
    ]
    peers = []
    for name, method, make, dist in specs:
        peer = Peer(name, method, make, version=_version(dist))
        try:
            peer.fn = make()
        except ImportError as exc:
            peer.unavailable = f"not installed ({exc})"
        except Exception as exc:  # a broken install is reported, not fatal
            peer.unavailable = f"import failed: {type(exc).__name__}: {exc}"
        peers.append(peer)
    return peers


# ---------------------------------------------------------------- results
@dataclass
class CertdpPoint:
    eps: float
    delta: float
    times: list[float]       # wall clock (perf_counter), seconds
    cpu: list[float]         # process CPU time (process_time), seconds: less sensitive to a loaded machine
    value: Fraction          # certified safe end (proven private)
    lo: Fraction             # certified unsafe end (proven not private)
    value_text: str
    evaluations: int
    precision_bits: int
    first: float = 0.0       # wall time of the warm-up (first) call at this point: no per-input cache can help it


@dataclass
class PeerPoint:
    eps: float
    delta: float
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    sigma: float | None = None
    error: str = ""
    verdict: str = ""
    true_delta: tuple[str, str] | None = None
    excess: float | None = None

    @property
    def delta_ratio(self) -> float | None:
        """Upper end of the certified true delta at the peer's sigma, divided by the target delta."""
        if self.true_delta is None:
            return None
        return float(Fraction(self.true_delta[1]) / Fraction(repr(self.delta)))


def _timed(fn: Callable[[], object]) -> tuple[object, float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def run_certdp(grid: list[tuple[float, float]], reps: int) -> dict[tuple[float, float], CertdpPoint]:
    out = {}
    for e, d in grid:
        cert, first, _ = _timed(lambda: certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1))  # warm-up
        times, cpu = [], []
        for _ in range(reps):
            cert, wall, proc = _timed(lambda: certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1))
            times.append(wall)
            cpu.append(proc)
        out[(e, d)] = CertdpPoint(
            e, d, times, cpu, Fraction(cert.value), Fraction(cert.interval[0]), str(cert.value),
            int(cert.extra.get("evaluations", -1)), int(cert.precision_bits or 0), first,
        )
    return out


def run_peer(peer: Peer, grid, reps: int, budget: float, timeout: float,
             reference: dict[tuple[float, float], CertdpPoint]) -> dict[tuple[float, float], PeerPoint]:
    assert peer.fn is not None
    fn = peer.fn
    try:  # global warm-up (imports, caches, first FFI call)
        call_with_timeout(lambda: fn(1.0, 1e-5), timeout)
    except Exception:  # noqa: BLE001  (a failure here shows up again on the grid)
        pass
    out = {}
    for e, d in grid:
        point = PeerPoint(e, d)
        spent = 0.0
        while len(point.times) < reps and (not point.times or spent < budget):
            try:
                sigma, wall, proc = _timed(lambda: call_with_timeout(lambda: fn(e, d), timeout))
            except CallTimeout:
                point.error = f"timeout > {timeout:g} s"
                break
            except Exception as exc:  # noqa: BLE001
                text = str(exc).strip()
                point.error = f"{type(exc).__name__}: {text.splitlines()[0][:90] if text else ''}"
                break
            point.times.append(wall)
            point.cpu.append(proc)
            spent += wall
            if point.sigma is None:
                point.sigma = float(sigma)
        if point.error:
            point.times, point.cpu = [], []
        elif point.sigma is not None and not (math.isfinite(point.sigma) and point.sigma > 0):
            point.error = f"returned sigma = {point.sigma!r}"
        if not point.error and point.sigma is not None:
            audit = certdp.audit("gaussian", value=repr(point.sigma), epsilon=e, delta=d, sensitivity=1)
            point.verdict = audit.verdict
            point.true_delta = tuple(audit.delta_enclosure) if audit.delta_enclosure else None
            point.excess = float(Fraction(repr(point.sigma)) / reference[(e, d)].value - 1)
        out[(e, d)] = point
    return out


# ----------------------------------------------------------------- output
class Report:
    """Tables rendered with rich when available (plain text otherwise), optionally mirrored to Markdown."""

    def __init__(self, markdown: Path | None):
        self.markdown = markdown
        self.md: list[str] = []
        try:
            from rich.console import Console

            self.console = Console(width=200)
        except ImportError:
            self.console = None

    def line(self, text: str = "") -> None:
        if self.console is not None:
            self.console.print(text, highlight=False, markup=False)
        else:
            print(text)
        self.md.append(text + "\n")

    def table(self, title: str, headers: list[str], rows: list[list[str]], right: set[int] | None = None) -> None:
        right = right or set()
        if self.console is not None:
            from rich.table import Table

            t = Table(title=title, title_justify="left")
            for i, h in enumerate(headers):
                t.add_column(h, justify="right" if i in right else "left")
            for r in rows:
                t.add_row(*r)
            self.console.print(t)
        else:
            print(title)
            widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
            print("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
            for r in rows:
                print("  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))))
            print()
        self.md.append(f"**{title}**\n\n| " + " | ".join(headers) + " |\n|" +
                       "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|\n")
        for r in rows:
            self.md.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |\n")
        self.md.append("\n")

    def write_markdown(self) -> None:
        if self.markdown is not None:
            self.markdown.write_text("".join(self.md))


def ms(x: float) -> str:
    return f"{x * 1e3:.3f}"


def fmt_eps(e: float) -> str:
    return f"{e:g}"


def fmt_delta(d: float) -> str:
    return f"{d:g}"


def fmt_ratio(r: float | None) -> str:
    """A ratio near 1 as ``1+2.3e-13`` (so tiny violations stay visible), others with 4 digits."""
    if r is None:
        return "-"
    if abs(r - 1) < 1e-3:
        return "1" if r == 1 else f"1{r - 1:+.1e}"
    return f"{r:.4g}"


def fmt_rel(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:+.2e}"


def mpmath_delta(sigma: float, eps: float, digits: int = 50) -> str:
    """Independent cross-check: Balle-Wang delta(eps) at ``sigma`` with mpmath at ``digits`` digits (not certified).

    delta = Phi(1/(2 sigma) - eps sigma) - e^eps Phi(-1/(2 sigma) - eps sigma), Phi via mpmath.erfc; the float
    inputs are converted exactly (their shortest repr is read as a decimal, as certdp does).
    """
    import mpmath

    with mpmath.workdps(digits):
        s, e = mpmath.mpf(repr(sigma)), mpmath.mpf(repr(eps))
        phi = lambda x: mpmath.erfc(-x / mpmath.sqrt(2)) / 2  # noqa: E731
        a, b = 1 / (2 * s), e * s
        return mpmath.nstr(phi(a - b) - mpmath.exp(e) * phi(-a - b), 20)


def _median_of_medians(lists: list[list[float]]) -> float:
    return statistics.median(statistics.median(x) for x in lists)


def summarize(report: Report, grid, eps_list, delta_list, ref, results, peers, reps, details: bool) -> None:
    # certdp per-point matrix
    rows = []
    for e in eps_list:
        row = [fmt_eps(e)]
        for d in delta_list:
            p = ref[(e, d)]
            row.append(f"{ms(statistics.median(p.times))} / {ms(max(p.times))} / {ms(max(p.cpu))}")
        rows.append(row)
    report.table(f"certdp calibrate('gaussian'): median wall / max wall / max CPU ms per point ({reps} timed calls "
                 "after a warm-up; a max wall near 4-5 ms with a small max CPU is the process being preempted on a "
                 "loaded machine, not certdp)",
                 ["eps \\ delta"] + [fmt_delta(d) for d in delta_list], rows, right=set(range(1, len(delta_list) + 1)))

    evals = [p.evaluations for p in ref.values()]
    bits = [p.precision_bits for p in ref.values()]
    widths = [float((p.value - p.lo) / p.value) for p in ref.values()]
    report.line(f"certdp: Arb profile evaluations per calibration: min {min(evals)}, median "
                f"{statistics.median(evals):g}, max {max(evals)}; max precision used: {max(bits)} bits "
                f"(points needing > 64 bits: {sum(b > 64 for b in bits)}); max relative width "
                f"{max(widths):.2e}")
    firsts = [p.first for p in ref.values()]
    report.line(f"certdp first (warm-up) call per point, i.e. without any per-input cache: median {ms(statistics.median(firsts))} "
                f"ms, max {ms(max(firsts))} ms (the first point also pays one-time imports/initialisation)")

    certdp_median = _median_of_medians([p.times for p in ref.values()])
    certdp_cpu = _median_of_medians([p.cpu for p in ref.values()])
    certdp_max = max(max(p.times) for p in ref.values())
    certdp_max_cpu = max(max(p.cpu) for p in ref.values())

    # what each row measures
    legend = [["certdp", "certdp.calibrate('gaussian', epsilon=e, delta=d, sensitivity=1): certified analytic "
               "Gaussian, Arb bracket of relative width <= 1e-12", "yes"]]
    legend += [[p.name, p.method if not p.unavailable else p.unavailable, "-"] for p in peers]
    report.table("What is timed", ["tool", "call", "certified"], legend)

    # summary table
    rows = [[f"certdp {getattr(certdp, '__version__', '')}".strip(), f"{len(grid)}/{len(grid)}", ms(certdp_median),
             ms(certdp_cpu), ms(certdp_max), ms(certdp_max_cpu), "1", "0", "0", "<= 1 (proven)", "0 (reference)", "-"]]
    fastest: tuple[str, float, float] | None = None
    for peer in peers:
        label = f"{peer.name} {peer.version}".strip()
        if peer.unavailable:
            rows.append([label, peer.unavailable] + ["-"] * 10)
            continue
        ok = [p for p in results[peer.name].values() if not p.error]
        if not ok:
            rows.append([label, f"0/{len(grid)}"] + ["-"] * 10)
            continue
        med = _median_of_medians([p.times for p in ok])
        cpu = _median_of_medians([p.cpu for p in ok])
        mx = max(max(p.times) for p in ok)
        mx_cpu = max(max(p.cpu) for p in ok)
        if fastest is None or med < fastest[1]:
            fastest = (peer.name, med, cpu)
        ratio = statistics.median(statistics.median(p.times) / statistics.median(ref[(p.eps, p.delta)].times)
                                  for p in ok)
        violated = sum(p.verdict == "VIOLATED" for p in ok)
        undecided = sum(p.verdict == "UNDECIDED" for p in ok)
        excesses = [p.excess for p in ok if p.excess is not None]
        worst = max((p.delta_ratio for p in ok if p.delta_ratio is not None), default=None)
        rows.append([label, f"{len(ok)}/{len(grid)}", ms(med), ms(cpu), ms(mx), ms(mx_cpu), f"{ratio:.3g}",
                     str(violated), str(undecided), fmt_ratio(worst),
                     fmt_rel(max(excesses)), fmt_rel(min(excesses))])
    report.table(
        "Summary over the grid (times: median over points of the per-point median; peer/certdp: median over "
        "points of peer_time / certdp_time, wall clock)",
        ["tool", "points ok", "median ms", "median CPU ms", "max ms", "max CPU ms", "peer/certdp",
         "NOT DP (VIOLATED)", "UNDECIDED", "worst true delta / delta", "max rel. excess", "min rel. excess"],
        rows, right=set(range(1, 12)))

    # per-peer worst violation and failures
    rows, detail_rows = [], []
    for peer in peers:
        if peer.unavailable:
            continue
        res = list(results[peer.name].values())
        failed = [p for p in res if p.error]
        if failed:
            reasons = sorted({p.error for p in failed})
            rows.append([peer.name, f"{len(failed)} point(s) unsupported: "
                         + ", ".join(f"({fmt_eps(p.eps)}, {fmt_delta(p.delta)})" for p in failed),
                         "; ".join(reasons)[:160], "", "", "", "", ""])
        bad = [p for p in res if not p.error and p.verdict != "VALID"]
        if bad:
            w = max(bad, key=lambda p: p.delta_ratio or 0.0)
            rows.append([peer.name, f"worst of {len(bad)} non-VALID: eps={fmt_eps(w.eps)}, delta={fmt_delta(w.delta)}",
                         w.verdict, repr(w.sigma), ref[(w.eps, w.delta)].value_text, fmt_rel(w.excess),
                         f"[{w.true_delta[0]}, {w.true_delta[1]}]" if w.true_delta else "-",
                         mpmath_delta(w.sigma, w.eps)])
        for p in bad:
            td = p.true_delta
            detail_rows.append([peer.name, fmt_eps(p.eps), fmt_delta(p.delta), p.verdict, repr(p.sigma),
                                ref[(p.eps, p.delta)].value_text, fmt_rel(p.excess),
                                f"[{td[0]}, {td[1]}]" if td else "-"])
    if rows:
        report.table("Unsupported points and worst certified violation per peer",
                     ["peer", "where", "verdict / error", "peer sigma", "certdp sigma (safe end)", "rel. excess",
                      "certified delta(eps) at peer sigma", "mpmath 50 digits (cross-check)"], rows, right={5})
    if details and detail_rows:
        report.table("Every point where a peer's sigma is not proven (eps, delta)-DP",
                     ["peer", "eps", "delta", "verdict", "peer sigma", "certdp sigma (safe end)", "rel. excess",
                      "certified delta(eps) at peer sigma"], detail_rows, right={1, 2, 6})

    # targets
    report.line(f"certdp median per calibration: {ms(certdp_median)} ms wall, {ms(certdp_cpu)} ms CPU  -> target "
                f"<= 1 ms: {'MET' if certdp_median <= 1e-3 else 'NOT MET'} (wall), "
                f"{'MET' if certdp_cpu <= 1e-3 else 'NOT MET'} (CPU)")
    if fastest is not None:
        report.line(f"fastest float peer: {fastest[0]} at {ms(fastest[1])} ms wall / {ms(fastest[2])} ms CPU median "
                    f"-> target certdp <= 2x: {'MET' if certdp_median <= 2 * fastest[1] else 'NOT MET'} "
                    f"(certdp / fastest = {certdp_median / fastest[1]:.1f}x wall, "
                    f"{certdp_cpu / fastest[2]:.1f}x CPU)")


def _median_ms(fn: Callable[[], object], n: int) -> float:
    fn()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def stage_breakdown(report: Report, points: list[tuple[float, float]], n: int = 50) -> None:
    """Median ms of each stage of ``calibrate("gaussian", ...)``, timed separately (internal APIs)."""
    from certdp.certificate import package_versions
    from certdp.mechanisms.gaussian import Gaussian
    from certdp.numbers import arb_of, certified_monotone_bracket, parse_positive, parse_probability, working_precision
    from certdp.workflows.common import log_of_fraction, profile_closure

    stages = ["calibrate() total", "certificate.package_versions()", "parse inputs",
              "float_candidate (SciPy brentq)", "certified_monotone_bracket (all)", "  one Arb profile eval, 64 bits",
              "Certificate.seal() (asdict + JSON + SHA-256)"]
    columns = {}
    for e, d in points:
        eps, dq = parse_positive(e, "epsilon"), parse_probability(d, "delta")
        params = Gaussian.parse_fixed(sensitivity=1)
        cand = Gaussian.float_candidate(e, log_of_fraction(dq), **params)
        prof = profile_closure(Gaussian, eps, params)
        cand_q = Fraction(repr(cand))

        def one_eval():
            with working_precision(64):
                return prof(arb_of(cand_q))

        cert = certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1)
        columns[(e, d)] = [
            _median_ms(lambda: certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1), n),
            _median_ms(package_versions, n),
            _median_ms(lambda: (parse_positive(e, "epsilon"), parse_probability(d, "delta"),
                                Gaussian.parse_fixed(sensitivity=1)), n),
            _median_ms(lambda: Gaussian.float_candidate(e, log_of_fraction(dq), **params), n),
            _median_ms(lambda: certified_monotone_bracket(prof, dq, increasing=False, candidate=cand), n),
            _median_ms(one_eval, n),
            _median_ms(cert.seal, n),
        ]
    rows = [[stage] + [f"{columns[pt][i]:.3f}" for pt in points] for i, stage in enumerate(stages)]
    report.table(f"certdp stage breakdown, median ms of {n} calls (stages timed separately)",
                 ["stage"] + [f"eps={fmt_eps(e)}, delta={fmt_delta(d)}" for e, d in points], rows,
                 right=set(range(1, len(points) + 1)))


class memoized_package_metadata:
    """Context manager: wrap ``importlib.metadata.version`` in an LRU cache, restore it on exit.

    Simulates what caching ``certdp.certificate.package_versions()`` would
    give, without touching anything under certdp/ (the function looks
    ``metadata.version`` up on every call, so the wrapper is seen).
    """

    def __enter__(self):
        import functools
        from importlib import metadata

        self.original = metadata.version
        metadata.version = functools.lru_cache(maxsize=None)(self.original)
        return self

    def __exit__(self, *exc):
        from importlib import metadata

        metadata.version = self.original
        return False


def what_if_versions_cached(report: Report, grid, reps: int) -> None:
    """Re-time the grid with package metadata memoized (wall and CPU time)."""
    wall, cpu = [], []
    with memoized_package_metadata():
        for e, d in grid:
            certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1)
            w, c = [], []
            for _ in range(reps):
                t0, c0 = time.perf_counter(), time.process_time()
                certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1)
                w.append(time.perf_counter() - t0)
                c.append(time.process_time() - c0)
            wall.append(statistics.median(w))
            cpu.append(statistics.median(c))
    report.line(f"what-if (importlib.metadata.version memoized, i.e. package_versions() cached): certdp median "
                f"{ms(statistics.median(wall))} ms wall / {ms(statistics.median(cpu))} ms CPU; max of per-point "
                f"medians {ms(max(wall))} ms wall / {ms(max(cpu))} ms CPU over {len(grid)} points")


def _category(key: tuple[str, int, str]) -> str:
    filename, _, func = key
    if filename == "~":  # C functions seen by cProfile (Cython methods of flint.arb are not: see the table title)
        if "flint" in func:
            return "python-flint / Arb (C)"
        return "built-in " + func.strip("{}<>").replace("built-in method ", "").replace("method ", "")
    path = Path(filename)
    if "certdp" in path.parts:
        return "certdp/" + "/".join(path.parts[path.parts.index("certdp") + 1:])
    if "scipy" in path.parts:
        return "scipy"
    return "stdlib " + path.name


def _profile_grid(report: Report, grid, title: str, top: int) -> None:
    import cProfile
    import io
    import pstats

    from certdp.numbers import balls

    for e, d in grid:
        certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    for e, d in grid:
        certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1)
    prof.disable()
    wall = time.perf_counter() - t0
    stats = pstats.Stats(prof)
    total = sum(v[2] for v in stats.stats.values())  # total tottime
    cdf_calls = sum(v[1] for k, v in stats.stats.items() if k[2] == "normal_cdf" and k[0] == balls.__file__)
    report.line("")
    report.line(f"=== cProfile, {title}: {len(grid)} calibrations, {wall * 1e3:.1f} ms under the profiler "
                f"({wall * 1e3 / len(grid):.2f} ms per calibration); normal_cdf (Arb erfc) calls: {cdf_calls} = "
                f"{cdf_calls / len(grid):.1f} per calibration")
    by_cat: dict[str, float] = {}
    for key, v in stats.stats.items():
        by_cat[_category(key)] = by_cat.get(_category(key), 0.0) + v[2]
    rows = [[cat, f"{t * 1e3 / len(grid):.3f}", f"{100 * t / total:.1f}"]
            for cat, t in sorted(by_cat.items(), key=lambda kv: -kv[1])[:top]]
    report.table(f"Own time (tottime) by module, {title} (python-flint's Cython methods are not reported separately "
                 "by cProfile: Arb time is counted in the certdp function that calls them, e.g. balls.py)", ["module / kind", "ms per calibration", "% of total"],
                 rows, right={1, 2})
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).strip_dirs().sort_stats("cumulative").print_stats(top)
    report.line(f"--- top {top} functions by cumulative time, {title} ---")
    lines = buf.getvalue().splitlines()
    start = next((i for i, t in enumerate(lines) if t.lstrip().startswith("ncalls")), 0)
    for text in lines[start:]:
        if text.strip():
            report.line(text)


def profile_certdp(report: Report, grid, reps: int) -> None:
    """cProfile one certified calibration per grid point (as shipped, then with metadata memoized)."""
    _profile_grid(report, grid, "certdp as shipped", 25)
    with memoized_package_metadata():
        _profile_grid(report, grid, "with importlib.metadata.version memoized", 25)
    points = [(1.0, 1e-5), (0.01, 1e-12), (50.0, 0.1)]
    stage_breakdown(report, [pt for pt in points if pt in set(grid)] or grid[:3])
    what_if_versions_cached(report, grid, reps)




def float_root_ratio(report: Report, grid, ref, reps: int) -> None:
    """Certified calibration against a plain float64 Brent root of the same log-space formula.

    The reference is :func:`plain_float_root` (the float work certdp itself does before its two
    Arb evaluations), timed in this same run, interleaved point by point with the certified
    calibration.  Also timed: the certified call with its digest read (lazily sealed certificates
    compute it on first access) and with never-seen inputs (no input cache helps).
    """
    t = interleaved_timing(grid, max(reps, 21))
    ratio, cert_med = t["ratio"], t["certified"]
    report.line(f"certified vs plain float64 Brent root (same log-space formula, same run): certified median "
                f"{ms(cert_med)} ms, float root median {ms(t['float_root'])} ms, "
                f"ratio median {ratio:.2f}x (max {t['ratio_max']:.2f}x) -> target <= 4x: "
                f"{'MET' if ratio <= 4 else 'NOT MET'}; target <= 0.1 ms: "
                f"{'MET' if cert_med <= 1e-4 else 'NOT MET'}")
    report.line(f"  with the digest read: {ms(t['with_digest'])} ms; never-seen inputs (no input cache): "
                f"{ms(t['fresh_inputs'])} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 x 3 grid")
    parser.add_argument("--reps", type=int, default=9, help="timed calls per point (default 9)")
    parser.add_argument("--budget", type=float, default=0.3,
                        help="seconds per point after which a peer stops repeating (default 0.3)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per peer call before giving up")
    parser.add_argument("--only", default="", help="comma-separated substrings: run only matching peers")
    parser.add_argument("--details", action="store_true", help="list every point where a peer is not proven DP")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile certdp over the grid, stage breakdown, what-if with package metadata cached")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the tables to this Markdown file")
    args = parser.parse_args(argv)

    eps_list = QUICK_EPSILONS if args.quick else EPSILONS
    delta_list = QUICK_DELTAS if args.quick else DELTAS
    grid = [(e, d) for e in eps_list for d in delta_list]
    report = Report(args.markdown)

    import flint

    report.line(f"python {platform.python_version()} on {platform.machine()} ({platform.processor() or 'cpu ?'}), "
                f"python-flint {flint.__version__}; grid {len(eps_list)} eps x {len(delta_list)} delta = "
                f"{len(grid)} points; sensitivity 1")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    if load:
        report.line(f"load average at start {load[0]:.2f} on {os.cpu_count()} cpus (timings are wall clock)")
    report.line(f"eps in {{{', '.join(map(fmt_eps, eps_list))}}}; delta in {{{', '.join(map(fmt_delta, delta_list))}}}")

    peers = build_peers()
    if args.only:
        wanted = [w.strip().lower() for w in args.only.split(",") if w.strip()]
        peers = [p for p in peers if any(w in p.name.lower() for w in wanted)]

    t0 = time.perf_counter()
    ref = run_certdp(grid, args.reps)
    report.line(f"certdp done in {time.perf_counter() - t0:.1f} s")
    results = {}
    for peer in peers:
        if peer.unavailable:
            report.line(f"{peer.name}: {peer.unavailable}")
            continue
        t0 = time.perf_counter()
        results[peer.name] = run_peer(peer, grid, args.reps, args.budget, args.timeout, ref)
        report.line(f"{peer.name} {peer.version} done in {time.perf_counter() - t0:.1f} s")

    summarize(report, grid, eps_list, delta_list, ref, results, peers, args.reps, args.details)
    float_root_ratio(report, grid, ref, args.reps)
    if args.profile:
        profile_certdp(report, grid, args.reps)
    report.write_markdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
