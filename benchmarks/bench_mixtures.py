"""Runtime of the mixture calibrations on seed 000's 150-point (delta, eps) grid, beside App. D.5.

Run:  python benchmarks/bench_mixtures.py [--exact-points N] [--mg-points N] [--mg-timeout S] [--mg-full-grid]

Columns: median / max seconds per grid point. The paper's runtimes are Julia, uncertified
(App. D.5: analytic Gaussian 0.16 s avg / 0.28 s max, QG 0.87 / 1.27 s, MG K=10 6.64 / 32.15 s).
The exact engines run on a sample only (a branch and bound per probe): QG on the first N points
with delta in {0.25, 0.1, 0.01}; MG K=10 on N points taking every epsilon column in turn, with
the deltas stepping through the rows, and a per-point table; ``--mg-full-grid`` adds certified MG
(Alg. 1 and exact) on all 150 points (the sample's median is lower than the grid's: the hardest cells, small
delta with eps >= 2, are under-represented). The float64 rows decide nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time

from certdp.workflows.calibrate import calibrate
from certdp.workflows.mixtures import exact_calibration, mg_paper_calibration, qg_paper_calibration
from certdp.engines.gaussian_mixture.float_guide import analytic_gaussian_sigma_float, mg_sigma_float, qg_paper_sigma_float
from certdp.workflows.mixtures.tables_mg import run_with_timeout
from certdp.workflows.mixtures.tables_qg import DELTAS, EPSILONS

PAPER = {"analytic Gaussian": (0.16, 0.28), "quasi-Gaussian (Thm 4.2)": (0.87, 1.27), "multi-Gaussian K=10": (6.64, 32.15)}


def timed(fn, points):
    out = []
    for d, e in points:
        t = time.perf_counter()
        fn(d, e)
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--exact-points", type=int, default=3)
    ap.add_argument("--mg-points", type=int, default=10, help="MG K=10 points (one per epsilon column in turn)")
    ap.add_argument("--mg-timeout", type=float, default=300.0, help="seconds per certified MG point")
    ap.add_argument("--mg-full-grid", action="store_true",
                    help="also run certified MG K=10 (Alg. 1 and exact) on all 150 points (~10 min), per-epsilon medians")
    args = ap.parse_args()
    grid = [(d, e) for d in DELTAS for e in EPSILONS]
    rows = []
    rows.append(("analytic Gaussian, certified (foundation)", "analytic Gaussian",
                 timed(lambda d, e: calibrate("gaussian", epsilon=e, delta=d), grid)))
    rows.append(("analytic Gaussian, float64 brentq", "analytic Gaussian",
                 timed(lambda d, e: analytic_gaussian_sigma_float(float(e), float(d)), grid)))
    rows.append(("QG Thm 4.2, certified", "quasi-Gaussian (Thm 4.2)",
                 timed(lambda d, e: qg_paper_calibration(epsilon=e, delta=d), grid)))
    rows.append(("QG Thm 4.2, float64 (Alg. 3-4)", "quasi-Gaussian (Thm 4.2)",
                 timed(lambda d, e: qg_paper_sigma_float(float(e), float(d)), grid)))
    sub = [p for p in grid if p[0] in ("0.25", "0.1", "0.01")][: args.exact_points]
    if sub:
        rows.append((f"QG exact engine, certified ({len(sub)} pts, rtol 1e-6)", "quasi-Gaussian (Thm 4.2)",
                     timed(lambda d, e: exact_calibration("quasi-gaussian", epsilon=e, delta=d), sub)))
    # MG sample: every epsilon column in turn, deltas stepping by 7 rows (coprime with 15), so the
    # sample spans both axes (the cost depends mostly on sigma / Delta, i.e. on epsilon and delta)
    mg_sub = [(DELTAS[(7 * i + 2) % len(DELTAS)], EPSILONS[i % len(EPSILONS)]) for i in range(args.mg_points)]
    per_point: dict[tuple[str, str], list[str]] = {p: [] for p in mg_sub}
    timeouts: dict[str, int] = {}
    if mg_sub:
        rows.append((f"MG K=10 Alg. 1 (eta 0.01), float64 ({len(mg_sub)} pts)", "multi-Gaussian K=10",
                     timed(lambda d, e: mg_sigma_float(float(e), float(d), 10, eta=0.01), mg_sub)))
        rows.append((f"MG K=10 exact (eta 0), float64 ({len(mg_sub)} pts)", "multi-Gaussian K=10",
                     timed(lambda d, e: mg_sigma_float(float(e), float(d), 10), mg_sub)))
        for label, fn in ((f"MG K=10 Alg. 1 (eta 0.01), certified ({len(mg_sub)} pts)", mg_paper_point),
                          (f"MG K=10 exact engine, certified ({len(mg_sub)} pts)", mg_exact_point)):
            ts = []
            for d, e in mg_sub:
                t = time.perf_counter()
                status, _ = run_with_timeout(fn, (d, e), args.mg_timeout)
                ts.append(time.perf_counter() - t)
                per_point[(d, e)].append(f"{ts[-1]:.2f}" + ("" if status == "ok" else " (timeout)"))
                if status != "ok":
                    timeouts[label] = timeouts.get(label, 0) + 1
            rows.append((label, "multi-Gaussian K=10", ts))
    full: dict[str, list[float]] = {}
    if args.mg_full_grid:
        for name, fn in (("Alg. 1 (eta 0.01)", mg_paper_point), ("exact engine", mg_exact_point)):
            label = f"MG K=10 {name}, certified (all 150 pts)"
            ts = full.setdefault(name, [])
            for d, e in grid:
                t = time.perf_counter()
                status, _ = run_with_timeout(fn, (d, e), args.mg_timeout)
                ts.append(time.perf_counter() - t)
                if status != "ok":
                    timeouts[label] = timeouts.get(label, 0) + 1
            rows.append((label, "multi-Gaussian K=10", ts))
    print(f"{'method':58s} {'n':>4s} {'median s':>10s} {'max s':>10s} {'paper avg':>10s} {'paper max':>10s} "
          f"{'median ratio':>13s}")
    for name, paper_key, ts in rows:
        med, mx = statistics.median(ts), max(ts)
        pa, pm = PAPER[paper_key]
        print(f"{name:58s} {len(ts):4d} {med:10.4f} {mx:10.4f} {pa:10.2f} {pm:10.2f} {pa / med:12.1f}x")
    for label, n in timeouts.items():
        print(f"  {label}: {n} point(s) hit the {args.mg_timeout:.0f} s timeout (counted at the timeout)")
    if full:
        names = list(full)
        print("MG K=10 certified, all 150 points, per epsilon column (median / max over the 15 deltas): "
              + " | ".join(names))
        for e in EPSILONS:
            cells = []
            for name in names:
                column = [full[name][i] for i, (_, e2) in enumerate(grid) if e2 == e]
                cells.append(f"{statistics.median(column):6.2f} / {max(column):6.2f} s")
            print(f"  eps={e:>4s}  " + "   |   ".join(cells))
        print("  mean: " + " | ".join(f"{statistics.mean(full[name]):.2f} s" for name in names))
    if mg_sub:
        print("MG K=10 per point, seconds (Alg. 1 certified / exact certified):")
        for (d, e), cells in per_point.items():
            print(f"  delta={d:>6s} eps={e:>4s}   " + " / ".join(cells))


def mg_paper_point(d: str, e: str) -> str:
    return str(mg_paper_calibration(epsilon=e, delta=d, components=10, eta="0.01").value)


def mg_exact_point(d: str, e: str) -> str:
    return str(exact_calibration("multi-gaussian", epsilon=e, delta=d, components=10).value)


if __name__ == "__main__":
    main()
