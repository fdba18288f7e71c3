#!/usr/bin/env python3
"""Coverage table: does every mechanism answer everywhere in its documented domain, and how fast?

For every mechanism / preset configuration and every (epsilon, delta) of a grid, one certified
calibration ``certdp.calibrate(name, epsilon=e, delta=d, rtol=RTOL, **fixed)`` runs with a
per-cell wall-clock limit (SIGALRM, honoured between Arb calls; the engines keep those short).  Each cell gets a
status: ``certified`` (a sealed certificate), ``UNDECIDED`` (certdp said it could not decide,
with its reason), ``timeout`` or ``error`` (anything else, e.g. an InputError outside the domain).

Usage::

    python3 benchmarks/coverage.py                       # full grid -> docs/coverage.md + docs/coverage.png
    python3 benchmarks/coverage.py --quick               # a few cells (smoke test)
    python3 benchmarks/coverage.py --dense --inside-only # the dense (alpha, p) grid (issue 17)
    python3 benchmarks/coverage.py --timeout 30 --markdown docs/coverage.md --plot docs/coverage.png
    python3 benchmarks/coverage.py --vector --timeout 30   # GGM sensitivity vectors (d = 2, 3, 5)
    python3 benchmarks/coverage.py --random 60 --seed 1 --timeout 30   # random in-domain SGG cells, off the grids

Nothing is asserted; the script prints (and writes) the table.  Timings are wall clock on
whatever machine runs it (the committed table states the load).
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

import certdp  # noqa: E402
from certdp.numbers import InputError, UndecidedError  # noqa: E402

RTOL = "1e-6"
EPSILONS = ("0.01", "1", "10", "50")
DELTAS = ("1e-300", "1e-12", "1e-5", "0.1")

# (label, mechanism, fixed parameters)
CONFIGS: list[tuple[str, str, dict]] = [
    ("gaussian", "gaussian", {}),
    ("laplace", "laplace", {}),
    ("uniform", "uniform", {}),
    ("ggm p=3/2", "ggm", {"shape": "3/2"}),
    ("spherical-gaussian T=10", "spherical-gaussian", {"dimension": 10}),
]
for _T in (2, 3, 5, 10, 128, 1000):
    CONFIGS.append((f"l2-laplace T={_T}", "l2-laplace", {"dimension": _T}))
for _T in (2, 10, 128, 1000):
    CONFIGS.append((f"r1smg T={_T}", "r1smg", {"dimension": _T}))
for _T, _alpha, _p in ((2, 1, 2), (2, 1, "3/2"), (2, 0, 1), (3, 2, "1/2"), (3, 1, 3), (10, 9, 2), (10, 4, "3/2"),
                       (10, 9, 8), (2, 1, "1/2"), (10, 9, "1/2")):
    CONFIGS.append((f"sgg T={_T} alpha={_alpha} p={_p}", "sgg", {"dimension": _T, "alpha": _alpha, "power": _p}))

# the Gaussian mixtures (seed 000): the paper's methods (the defaults: sufficient conditions) and the exact engine
CONFIGS += [("quasi-gaussian", "quasi-gaussian", {}),
            ("quasi-gaussian exact", "quasi-gaussian", {"method": "exact-mixture-engine"})]
for _K in (1, 5, 50):
    CONFIGS.append((f"multi-gaussian K={_K}", "multi-gaussian", {"components": _K}))
CONFIGS.append(("multi-gaussian K=5 exact", "multi-gaussian", {"components": 5, "method": "exact-mixture-engine"}))

#: ``--extended``: the issue-17 grid of shapes beyond the table's (alpha in (-1, T-1], p in [1/2, 8], every
#: T of the table): per T the corners alpha = -1/2 and alpha = T - 1 at p = 1/2 and 8, the middle alpha at
#: p = 2, and R1SMG at the small T where its loss is log-singular.
EXTENDED_CONFIGS: list[tuple[str, str, dict]] = []
for _T in (2, 3, 5, 10, 128, 1000):
    _mid = Fraction(_T - 1, 2)
    for _alpha, _p in ((Fraction(-1, 2), Fraction(1, 2)), (Fraction(-1, 2), Fraction(8)), (_mid, Fraction(2)),
                       (Fraction(_T - 1), Fraction(1, 2)), (Fraction(_T - 1), Fraction(8))):
        _label = f"sgg T={_T} alpha={_alpha} p={_p}"
        if all(c[0] != _label for c in CONFIGS) and all(c[0] != _label for c in EXTENDED_CONFIGS):
            EXTENDED_CONFIGS.append((_label, "sgg", {"dimension": _T, "alpha": str(_alpha), "power": str(_p)}))
for _T in (3, 5):
    EXTENDED_CONFIGS.append((f"r1smg T={_T}", "r1smg", {"dimension": _T}))

#: ``--vector``: GGM with a sensitivity VECTOR (d = 2, 3, 5), p in {1, 3/2, 2, 4}, on VECTOR_DELTAS; the vector
#: engines' brackets are ~0.2-0.5 % wide, so these cells ask (and claim) rtol = VECTOR_RTOL.
VECTOR_RTOL = "1e-2"
VECTOR_DELTAS = ("1e-300", "1e-30", "1e-12", "1e-5", "0.1")
VECTOR_CONFIGS: list[tuple[str, str, dict]] = [
    (f"ggm p={_p} s={_s}", "ggm", {"shape": _p, "sensitivity": _s, "rtol": VECTOR_RTOL})
    for _s in ("1,2", "1,2,1", "1,2,1,1,1") for _p in ("1", "3/2", "2", "4")]

#: ``--dense``: the issue's "grid of (alpha, p)": per T, alpha in {-0.9, -1/2, 0, (T-1)/2, T-2 (where > 0), T-1}
#: x p in {1/2, 1, 3/2, 2, 4, 8}, without the shapes of the table and of ``--extended``; plus the T = 10^4 spot
#: checks (the domain allows dimension <= 1e4): r1smg, l2-laplace and sgg alpha = (T-1)/2, p = 2.
DENSE_CONFIGS: list[tuple[str, str, dict]] = []
for _T in (2, 3, 5, 10, 128, 1000):
    _alphas = [Fraction(-9, 10), Fraction(-1, 2), Fraction(0), Fraction(_T - 1, 2)]
    _alphas += [Fraction(_T - 2)] if _T - 2 > 0 else []
    _alphas += [Fraction(_T - 1)]
    for _alpha in dict.fromkeys(_alphas):
        for _p in (Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(2), Fraction(4), Fraction(8)):
            _label = f"sgg T={_T} alpha={_alpha} p={_p}"
            if all(c[0] != _label for c in CONFIGS + EXTENDED_CONFIGS + DENSE_CONFIGS):
                DENSE_CONFIGS.append((_label, "sgg", {"dimension": _T, "alpha": str(_alpha), "power": str(_p)}))
DENSE_CONFIGS += [
    ("r1smg T=10000", "r1smg", {"dimension": 10000}),
    ("l2-laplace T=10000", "l2-laplace", {"dimension": 10000}),
    ("sgg T=10000 alpha=9999/2 p=2", "sgg", {"dimension": 10000, "alpha": "9999/2", "power": "2"}),
]
DENSE_EPSILONS = ("0.01", "1", "10", "50")
DENSE_DELTAS = ("1e-300", "1e-12", "0.5")

QUICK_CONFIGS = ["gaussian", "l2-laplace T=2", "sgg T=2 alpha=1 p=2"]
QUICK_EPSILONS = ("1",)
QUICK_DELTAS = ("1e-300", "1e-5")


class CellTimeout(BaseException):
    """BaseException: a library ``except Exception`` on the way must not swallow the alarm."""


def _alarm(signum, frame):  # noqa: ARG001
    raise CellTimeout()


def in_domain(name: str, fixed: dict, eps: str, delta: str) -> bool:
    """Is the cell inside the documented domain (docs/domains.md, ``certdp.mechanisms.domains``)?"""
    from certdp.mechanisms.domains import check_domain

    try:
        check_domain(name, epsilon=eps, delta=delta, **fixed)
    except InputError:
        return False
    return True


def run_cell(name: str, fixed: dict, eps: str, delta: str, timeout: float) -> tuple[str, float, str]:
    """One calibration; cells outside the documented domain run through the workflow directly (the
    API refuses them) and are marked ``outside:`` in the note."""
    from certdp.workflows.calibrate import calibrate as workflow_calibrate

    inside = in_domain(name, fixed, eps, delta)
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    t0 = time.perf_counter()
    try:
        run = certdp.calibrate if inside else workflow_calibrate
        options = {"sensitivity": 1, "rtol": RTOL, **fixed}
        cert = run(name, epsilon=eps, delta=delta, **options)
        status, note = "certified", str(cert.value) + (f" ({cert.method})" if "," in str(options["sensitivity"]) else "")
    except CellTimeout:
        status, note = "timeout", f"> {timeout:g} s"
    except UndecidedError as exc:
        status, note = "UNDECIDED", str(exc)[:160]
    except InputError as exc:
        status, note = "error", f"InputError: {exc}"[:160]
    except Exception as exc:  # noqa: BLE001 - the table reports it
        status, note = "error", f"{type(exc).__name__}: {exc}"[:160]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return status, time.perf_counter() - t0, note if inside else f"outside: {note}"


SYMBOL = {"certified": "", "UNDECIDED": "U", "timeout": "T", "error": "E", "not run": "-"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per cell (default 60)")
    parser.add_argument("--markdown", type=Path, default=None)
    parser.add_argument("--plot", type=Path, default=None)
    parser.add_argument("--only", default="", help="comma-separated substrings of configuration labels")
    parser.add_argument("--exclude", default="", help="comma-separated substrings of labels to leave out")
    parser.add_argument("--epsilons", default="", help="comma-separated epsilons instead of the grid's")
    parser.add_argument("--deltas", default="", help="comma-separated deltas instead of the grid's")
    parser.add_argument("--resume", type=Path, action="append", default=[],
                        help="a log printed by an earlier run: its cells are reused, not recomputed")
    parser.add_argument("--no-run", action="store_true", help="only assemble the table from --resume logs")
    parser.add_argument("--extended", action="store_true",
                        help="the extended grid of SGG shapes (EXTENDED_CONFIGS) instead of the table's")
    parser.add_argument("--vector", action="store_true",
                        help="GGM with a sensitivity vector (VECTOR_CONFIGS on VECTOR_DELTAS) instead of the table's")
    parser.add_argument("--dense", action="store_true",
                        help="the dense (alpha, p) grid (DENSE_CONFIGS, eps 0.01/1/10/50 x delta 1e-300/1e-12/0.5)")
    parser.add_argument("--inside-only", action="store_true",
                        help="skip cells outside the documented domain (shown as 'not run')")
    parser.add_argument("--random", type=int, default=0, metavar="N",
                        help="N random in-domain SGG cells off the grids (random_cells; with --seed) instead of a grid")
    parser.add_argument("--seed", type=int, default=0, help="seed of --random (default 0)")
    args = parser.parse_args(argv)
    if args.random:
        return run_random(args.random, args.seed, args.timeout, args.markdown)

    configs = (DENSE_CONFIGS if args.dense else EXTENDED_CONFIGS if args.extended else VECTOR_CONFIGS if args.vector
               else CONFIGS)
    eps_list, delta_list = ((DENSE_EPSILONS, DENSE_DELTAS) if args.dense else (EPSILONS, VECTOR_DELTAS) if args.vector
                            else (EPSILONS, DELTAS))
    if args.quick:
        configs = [c for c in CONFIGS if c[0] in QUICK_CONFIGS]
        eps_list, delta_list = QUICK_EPSILONS, QUICK_DELTAS
    if args.only:
        wanted = [w.strip() for w in args.only.split(",") if w.strip()]
        configs = [c for c in configs if any(w in c[0] for w in wanted)]
    if args.exclude:
        unwanted = [w.strip() for w in args.exclude.split(",") if w.strip()]
        configs = [c for c in configs if not any(w in c[0] for w in unwanted)]
    if args.epsilons:   # any values (e.g. the domain's corner eps = 10), not only the grid's
        eps_list = tuple(e.strip() for e in args.epsilons.split(",") if e.strip())
    if args.deltas:
        delta_list = tuple(d.strip() for d in args.deltas.split(",") if d.strip())
    columns = [(e, d) for e in eps_list for d in delta_list]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    if not args.no_run:
        certdp.calibrate("gaussian", epsilon=1, delta="1e-5", rtol=RTOL)   # warm-up (imports), untimed
    results: dict[tuple[str, str, str], tuple[str, float, str]] = {}
    previous = {}
    for log in args.resume:
        previous.update(read_log(log))
    t_start = time.perf_counter()
    for label, name, fixed in configs:
        for e, d in columns:
            if (label, e, d) in previous:
                results[(label, e, d)] = previous[(label, e, d)]
                continue
            if args.inside_only and not in_domain(name, fixed, e, d):
                results[(label, e, d)] = ("not run", 0.0, "outside: not run (--inside-only)")
                continue
            if args.no_run:
                results[(label, e, d)] = ("not run", 0.0, "not run (--no-run)")
                continue
            res = run_cell(name, fixed, e, d, args.timeout)
            results[(label, e, d)] = res
            print(f"{label:32s} eps={e:5s} delta={d:7s} {res[0]:10s} {res[1]:7.2f} s  {res[2][:70]}", flush=True)
    total = time.perf_counter() - t_start

    outside = {key for key, r in results.items() if r[2].startswith("outside")}
    inside = {key: r for key, r in results.items() if key not in outside}
    times = [r[1] for r in inside.values() if r[0] == "certified"]
    counts = {s: sum(1 for r in inside.values() if r[0] == s) for s in SYMBOL}
    out_counts = {s: sum(1 for key in outside if results[key][0] == s) for s in SYMBOL}
    lines = [
        "| configuration | " + " | ".join(f"eps={e}, delta={d}" for e, d in columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for label, _, _ in configs:
        cells = []
        for e, d in columns:
            status, dt, _ = results[(label, e, d)]
            cell = f"{dt:.1f} s" if status == "certified" else f"**{status}** ({dt:.0f} s)"
            cells.append(f"({cell})" if (label, e, d) in outside else cell)
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    summary = (f"{len(results)} cells in {total:.0f} s (load average {load:.1f} at start, rtol {VECTOR_RTOL if args.vector else RTOL}, "
               f"timeout {args.timeout:g} s per cell); inside the documented domain ({len(inside)} cells): "
               + ", ".join(f"{k} {v}" for k, v in counts.items())
               + (f"; certified cells: median {statistics.median(times):.2f} s, max {max(times):.1f} s"
                  if times else "")
               + (f". Outside it, in parentheses ({len(outside)} cells, run through the workflow; the API "
                  "refuses them): " + ", ".join(f"{k} {v}" for k, v in out_counts.items() if v) if outside else ""))
    notes = [f"- {label}, eps={e}, delta={d}: {status}: {note}"
             for (label, e, d), (status, _, note) in results.items() if status != "certified"]
    text = "\n".join([summary, "", *lines, "", *(["Cells that are not certified:", "", *notes] if notes else [])])
    print()
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    if args.plot:
        plot(args.plot, configs, columns, results)
    return 0


def random_cells(n: int, seed: int) -> list[tuple[str, str, dict, str, str]]:
    """``n`` SGG cells drawn inside the documented domain, off the grids: T in {2, 3, 5, 10, 64, 128, 300,
    1000}, alpha in (-1, T - 1] (a tenth of an integer, or T - 1 in a quarter of the draws), p in [1/2, 8]
    (quarters), eps log-uniform in [0.01, 50] (two digits), delta = 1e-k with k uniform in 1 .. 300.  Cells
    outside the domain (e.g. eps > 26 at T = 3, p = 1/2) are drawn again.  Deterministic in ``seed``."""
    import random

    rng = random.Random(seed)
    cells = []
    while len(cells) < n:
        T = rng.choice((2, 3, 5, 10, 64, 128, 300, 1000))
        alpha = Fraction(T - 1) if rng.random() < 0.25 else Fraction(rng.randint(-9, 10 * (T - 1)), 10)
        p = Fraction(rng.randint(2, 32), 4)
        eps = f"{10 ** rng.uniform(-2, math.log10(50)):.2g}"
        delta = f"1e-{rng.randint(1, 300)}"
        fixed = {"dimension": T, "alpha": str(alpha), "power": str(p)}
        if in_domain("sgg", fixed, eps, delta):
            cells.append((f"sgg T={T} alpha={alpha} p={p}", "sgg", fixed, eps, delta))
    return cells


def run_random(n: int, seed: int, timeout: float, markdown: Path | None) -> int:
    """Run :func:`random_cells` one by one (the log format of ``main``) and print a summary."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    certdp.calibrate("gaussian", epsilon=1, delta="1e-5", rtol=RTOL)   # warm-up (imports), untimed
    t_start = time.perf_counter()
    rows = []
    for label, name, fixed, eps, delta in random_cells(n, seed):
        res = run_cell(name, fixed, eps, delta, timeout)
        rows.append((label, eps, delta, res))
        print(f"{label:32s} eps={eps:5s} delta={delta:7s} {res[0]:10s} {res[1]:7.2f} s  {res[2][:70]}", flush=True)
    times = [r[1] for *_, r in rows if r[0] == "certified"]
    counts = {s: sum(1 for *_, r in rows if r[0] == s) for s in SYMBOL if s != "not run"}
    summary = (f"{len(rows)} random in-domain cells (seed {seed}) in {time.perf_counter() - t_start:.0f} s (load "
               f"average {load:.1f} at start, rtol {RTOL}, timeout {timeout:g} s per cell): "
               + ", ".join(f"{k} {v}" for k, v in counts.items())
               + (f"; certified cells: median {statistics.median(times):.2f} s, max {max(times):.1f} s" if times else ""))
    lines = ["| configuration | eps | delta | status | time |", "|---|---|---|---|---|"]
    lines += [f"| {label} | {eps} | {delta} | {r[0]} | {r[1]:.1f} s |" for label, eps, delta, r in rows]
    text = "\n".join([summary, "", *lines])
    print()
    print(text)
    if markdown:
        markdown.write_text(text + "\n")
    return 0


def read_log(path: Path) -> dict:
    """Cells printed by an earlier run (one line per cell, the format of ``main``)."""
    import re

    pattern = re.compile(r"^(.{32}) eps=(\S+)\s+delta=(\S+)\s+(\S+)\s+([0-9.]+) s  (.*)$")
    out = {}
    for line in path.read_text().splitlines():
        m = pattern.match(line)
        if m:
            out[(m.group(1).strip(), m.group(2), m.group(3))] = (m.group(4), float(m.group(5)), m.group(6))
    return out


def plot(path: Path, configs, columns, results) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    grid = np.full((len(configs), len(columns)), np.nan)
    for i, (label, _, _) in enumerate(configs):
        for j, (e, d) in enumerate(columns):
            status, dt, _ = results[(label, e, d)]
            grid[i, j] = np.nan if status == "not run" else math.log10(max(dt, 1e-4))
    fig, ax = plt.subplots(figsize=(1.0 + 0.55 * len(columns), 1.0 + 0.32 * len(configs)))
    im = ax.imshow(grid, cmap="viridis", aspect="auto", vmin=-3, vmax=2)
    for i, (label, _, _) in enumerate(configs):
        for j, (e, d) in enumerate(columns):
            status = results[(label, e, d)][0]
            if status != "certified":
                ax.text(j, i, SYMBOL[status], ha="center", va="center", color="red", fontsize=9, weight="bold")
    ax.set_xticks(range(len(columns)))
    ax.set_xticklabels([f"{e}, {d}" for e, d in columns], rotation=90, fontsize=7)
    ax.set_yticks(range(len(configs)))
    ax.set_yticklabels([c[0] for c in configs], fontsize=7)
    ax.set_xlabel("(epsilon, delta)")
    fig.colorbar(im, ax=ax, label="log10 seconds per certified calibration")
    ax.set_title("certdp coverage (U = UNDECIDED, T = timeout, E = error, - = not run: outside the documented domain)", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
