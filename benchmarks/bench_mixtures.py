"""Runtime of the mixture calibrations on seed 000's 150-point (delta, eps) grid, beside App. D.5.

Run:  python benchmarks/bench_mixtures.py [--exact-points N] [--mg-points N]

Columns: median / max seconds per grid point. The paper's runtimes are Julia, uncertified
(App. D.5: analytic Gaussian 0.16 s avg / 0.28 s max, QG 0.87 / 1.27 s, MG K=10 6.64 / 32.15 s).
The exact engine is run on the first N grid points only (it is a branch and bound per probe).
"""

from __future__ import annotations

import argparse
import statistics
import time

from certdp.workflows.calibrate import calibrate
from certdp.workflows.mixtures import exact_calibration, qg_paper_calibration
from certdp.workflows.mixtures_float import analytic_gaussian_sigma_float, qg_paper_sigma_float
from certdp.workflows.mixtures_tables import DELTAS, EPSILONS

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
    print(f"{'method':58s} {'n':>4s} {'median s':>10s} {'max s':>10s} {'paper avg':>10s} {'paper max':>10s} "
          f"{'median ratio':>13s}")
    for name, paper_key, ts in rows:
        med, mx = statistics.median(ts), max(ts)
        pa, pm = PAPER[paper_key]
        print(f"{name:58s} {len(ts):4d} {med:10.4f} {mx:10.4f} {pa:10.2f} {pm:10.2f} {pa / med:12.1f}x")
    print("multi-Gaussian K=10: certified Alg. 1-2 (eta grid) not implemented; exact engine too slow for the "
          "grid (see docs/mixtures.md). Paper: 6.64 s avg / 32.15 s max.")


if __name__ == "__main__":
    main()
