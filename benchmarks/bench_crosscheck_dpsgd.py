"""Every installed peer's DP-SGD questions over one small grid: the crosscheck summary of each, side by side.

Run: PYTHONPATH=. python3 benchmarks/bench_crosscheck_dpsgd.py [--grid q=0.01:0.1:2,sigma=0.8:2:3,k=10:100:2,delta=1e-5]
     [--workers 2] [--rtol 0.02]

Per question: points tried, VIOLATED / VALID / UNDECIDED, the worst and best epsilon against
certdp's certified upper end (percent), and the median seconds per call of the library and of
certdp's accountant (the ratio is how much the certificate costs). The noise-* (get_noise_multiplier)
questions use the same grid with eps=0.5:4:3 in place of sigma.
"""

from __future__ import annotations

import argparse
import time

from certdp.crosscheck import ADAPTERS, get_adapter
from certdp.crosscheck.dpsgd import DPSGD_RETURNS
from certdp.crosscheck.grid import DPSGD_AXES, parse_grid
from certdp.crosscheck.library import crosscheck_library


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--grid", default="q=0.01:0.1:2,sigma=0.8:2:3,k=10:100:2,delta=1e-5")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rtol", default="0.02")
    parser.add_argument("--only", default=None, help="comma-separated library names")
    args = parser.parse_args()
    print(f"grid {args.grid} (noise-*: sigma -> eps=0.5:4:3), rtol {args.rtol}, {args.workers} workers; "
          "shared 2-core machine, timings noisy")
    header = (f"{'library':15} {'question':10} {'tried':>5} {'VIOL':>4} {'VALID':>5} {'UND':>3} "
              f"{'min %':>9} {'max %':>9} {'lib ms':>8} {'certdp ms':>9} {'ratio':>7} {'wall s':>7}")
    print(header)
    for name in ADAPTERS:
        if args.only and name not in args.only.split(","):
            continue
        adapter = get_adapter(name)
        if not adapter.available():
            print(f"{name:15} not installed")
            continue
        for q in adapter.questions:
            if q.returns not in DPSGD_RETURNS:
                continue
            text = args.grid if q.returns == "dpsgd-epsilon" else \
                ",".join("eps=0.5:4:3" if item.startswith("sigma=") else item for item in args.grid.split(","))
            grid = parse_grid(text, DPSGD_AXES[q.returns], text)
            start = time.perf_counter()
            result = crosscheck_library(name, q.name, grid, workers=args.workers, rtol=args.rtol)
            wall = time.perf_counter() - start
            s = result["summary"]
            excess = [p["excess_percent"] for p in result["points"] if p["excess_percent"] is not None]
            lib, cert = s["median_library_seconds"] or 0.0, s["median_certdp_seconds"] or 0.0
            print(f"{name:15} {q.name:10} {s['tried']:5d} {s['violated']:4d} {s['valid']:5d} {s['undecided']:3d} "
                  f"{min(excess, default=float('nan')):+9.3g} {max(excess, default=float('nan')):+9.3g} "
                  f"{lib * 1e3:8.3g} {cert * 1e3:9.4g} {cert / lib if lib else float('nan'):7.3g} {wall:7.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
