#!/usr/bin/env python3
"""`certdp shape ggm -e 1 -d 0.01 -s 1,2` in an old and this checkout, alternating fresh processes.

    PYTHONPATH=. python3 benchmarks/bench_ggm_vector_shape.py --old /work/main [--rounds 2] [--tolerance 0.02]

Old (before the quantile coupling): float golden-section p-hat, certified scales, NOT certified optimal.
New: certified branch and bound (docs/ggm.md), gap <= tolerance.  Prints seconds (wall clock and the
child's CPU time; a shared machine: compare the columns of one run), p-hat, certified gap, and the new/old time ratio.
No timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path


def run(checkout: str, extra: list[str]) -> tuple[float, float, dict]:
    env = dict(os.environ, PYTHONPATH=checkout)
    cmd = [sys.executable, "-m", "certdp.cli.main", "shape", "ggm", "-e", "1", "-d", "0.01", "-s", "1,2",
           "--json", *extra]
    t0 = time.perf_counter()
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=checkout)
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    sec = time.perf_counter() - t0
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    try:
        return sec, cpu, json.loads(out.stdout)
    except json.JSONDecodeError:
        return sec, cpu, {"error": (out.stderr or out.stdout).strip().splitlines()[-1:]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--tolerance", default=None)
    args = ap.parse_args()
    new = str(Path(__file__).resolve().parents[1])
    extra = ["--tolerance", args.tolerance] if args.tolerance else []
    print(f"{'round':>5} {'old s':>7} {'new s':>7} {'new/old':>8} {'old cpu':>8} {'new cpu':>8} {'ratio':>6} | "
          f"{'old p-hat':>9} {'certified':>9} | {'new p-hat':>9} {'gap':>7} {'impr>=%':>7}")
    for r in range(args.rounds):
        t_old, c_old, d_old = run(args.old, [])
        t_new, c_new, d_new = run(new, extra)
        print(f"{r:>5} {t_old:7.1f} {t_new:7.1f} {t_new / t_old:8.1f} {c_old:8.1f} {c_new:8.1f} {c_new / c_old:6.1f} | "
              f"{d_old.get('shape', '?'):>9} "
              f"{str(d_old.get('shape_certified_optimal', '?')):>9} | {d_new.get('shape', '?'):>9} "
              f"{d_new.get('certified_gap', float('nan')):7.4f} {d_new.get('improvement_lower_percent', float('nan')):7.2f}")
    print(f"load average: {os.getloadavg()[0]:.1f} (2 cores, shared)")


if __name__ == "__main__":
    main()
