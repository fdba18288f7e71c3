#!/usr/bin/env python3
"""Old and new checkouts side by side, in the same run: alternating fresh processes.

    PYTHONPATH=. python3 benchmarks/compare_checkouts.py --old /work/main [--rounds 3] [--quick]
        [--tasks gaussian,laplace,uniform,ggm2d]

Each task runs in a fresh ``python3`` process with ``PYTHONPATH`` set to one checkout; rounds
alternate old, new, old, new, ... so that both see the same machine load (the machine this was
written on is shared: compare the two columns of one run, not numbers across runs).

Tasks (no timing is asserted; this script only prints):

* ``gaussian``: per (eps, delta) point of the grid, one warm-up, then 21 interleaved pairs of
  ``certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1)`` and a *plain float64 Brent
  root of the same log-space formula* (SciPy ``brentq`` on log delta(log sigma) with
  ``log_ndtr``, the same bracket as ``Gaussian.float_candidate``; ``benchmarks/float_reference.py``
  of this checkout, so both checkouts are compared with the identical reference).  Reported: median over points of the per-point
  median of the certified call, of the float root, and of their ratio; the same with the digest
  read (``calibrate(...).digest``: what sealing costs when the certificate is used); and with
  fresh inputs (every call a never-seen epsilon, so no input cache helps).
* ``laplace``, ``uniform``: the certified calibration's median over the same grid.
* ``ggm2d``: ``calibrate_vector("1.2947", 1, "0.01", "1,2")`` (seed 004 Table 5, Delta = (1, 2)),
  seconds, after a warm-up calibration at another shape.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

GRID = [(e, d) for e in (0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
        for d in (1e-12, 1e-9, 1e-6, 1e-5, 1e-3, 0.01, 0.1)]
QUICK_GRID = [(e, d) for e in (0.1, 1.0, 10.0) for d in (1e-9, 1e-5, 0.01)]

_GAUSSIAN = r'''
import json, sys
sys.path.insert(0, BENCH_DIR)  # benchmarks/float_reference.py of *this* checkout: the same reference for both
from float_reference import interleaved_timing
t = interleaved_timing(GRID, 21)
print(json.dumps({"certified_ms": t["certified"] * 1e3, "float_root_ms": t["float_root"] * 1e3,
                  "ratio": t["ratio"], "ratio_max": t["ratio_max"], "with_digest_ms": t["with_digest"] * 1e3,
                  "fresh_inputs_ms": t["fresh_inputs"] * 1e3, "certified_max_ms": t["certified_max"] * 1e3}))
'''

_SCALE = r'''
import json, statistics, time
import certdp
grid = GRID
meds = []
for e, d in grid:
    certdp.calibrate(NAME, epsilon=e, delta=d, sensitivity=1)
    ts = []
    for _ in range(21):
        t0 = time.perf_counter()
        certdp.calibrate(NAME, epsilon=e, delta=d, sensitivity=1)
        ts.append(time.perf_counter() - t0)
    meds.append(statistics.median(ts))
print(json.dumps({"certified_ms": statistics.median(meds) * 1e3, "certified_max_ms": max(meds) * 1e3}))
'''

_GGM2D = r'''
import json, time
from certdp.workflows.ggm_vector import calibrate_vector
calibrate_vector("1.5", 1, "0.01", "1,2")
t = time.perf_counter()
cert = calibrate_vector("1.2947", 1, "0.01", "1,2")
seconds = time.perf_counter() - t
lo, hi = cert.interval
print(json.dumps({"seconds": seconds, "interval": [str(lo), str(hi)], "delta_enclosure": cert.delta_enclosure}))
'''


_ROOT_CHECK = r'''
def certdp_root_check(root):
    import os, certdp
    return os.path.realpath(certdp.__file__).startswith(os.path.realpath(root) + os.sep)
'''


def _code(task: str, grid: list) -> str:
    return _ROOT_CHECK + _task_code(task, grid)


def _task_code(task: str, grid: list) -> str:
    if task == "gaussian":
        return _GAUSSIAN.replace("GRID", repr(grid)).replace("BENCH_DIR", repr(str(Path(__file__).resolve().parent)))
    if task in ("laplace", "uniform"):
        return _SCALE.replace("GRID", repr(grid)).replace("NAME", repr(task))
    if task == "ggm2d":
        return _GGM2D
    raise SystemExit(f"unknown task {task!r}")


def _run(root: str, code: str) -> dict:
    env = dict(os.environ, PYTHONPATH=root)
    # cwd = the checkout: ``python -c`` puts the working directory first on sys.path
    out = subprocess.run([sys.executable, "-c", code + f"\nassert certdp_root_check({root!r})"], env=env, cwd=root,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="root of the old checkout (its PYTHONPATH)")
    parser.add_argument("--new", default=str(Path(__file__).resolve().parent.parent), help="default: this checkout")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="3 x 3 (eps, delta) grid instead of 9 x 7")
    parser.add_argument("--tasks", default="gaussian,laplace,uniform,ggm2d")
    args = parser.parse_args(argv)
    grid = QUICK_GRID if args.quick else GRID
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"old = {args.old}, new = {args.new}; grid {len(grid)} points; {args.rounds} alternating rounds; "
          f"load average {load:.2f} on {os.cpu_count()} cpus")
    for task in [t.strip() for t in args.tasks.split(",") if t.strip()]:
        code = _code(task, grid)
        results: dict[str, list[dict]] = {"old": [], "new": []}
        for _ in range(args.rounds):
            for which, root in (("old", args.old), ("new", args.new)):
                results[which].append(_run(root, code))
        print(f"\n{task}:")
        keys = [k for k in results["new"][0] if isinstance(results["new"][0].get(k), (int, float))]
        print(f"  {'quantity':<18} {'old (per round)':<30} {'new (per round)':<30}")
        for k in keys:
            old = [r.get(k) for r in results["old"]]
            new = [r.get(k) for r in results["new"]]
            fmt = lambda xs: " / ".join("-" if x is None else f"{x:.4g}" for x in xs)  # noqa: E731
            print(f"  {k:<18} {fmt(old):<30} {fmt(new):<30}")
        for which in ("old", "new"):
            extra = {k: v for k, v in results[which][-1].items() if k not in keys}
            if extra:
                print(f"  {which}: {extra}")
        if task == "gaussian":
            new_ratio = statistics.median(r["ratio"] for r in results["new"] if "ratio" in r)
            new_ms = statistics.median(r["certified_ms"] for r in results["new"] if "certified_ms" in r)
            print(f"  new: certified / plain float root = {new_ratio:.2f}x (target <= 4x: "
                  f"{'MET' if new_ratio <= 4 else 'NOT MET'}); certified median {new_ms:.3f} ms (target <= 0.1 ms: "
                  f"{'MET' if new_ms <= 0.1 else 'NOT MET'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
