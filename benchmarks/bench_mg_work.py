"""Where the certified MG Alg. 1 calibration spends its time, cell by cell (seed 000 grid, K = 10).

For each (delta, eps) cell: wall and CPU seconds, the float guide's seconds, and the count and
seconds of the certified engine's two costly steps -- shift models (``ShiftEngine.shift_expansion``)
and point values (``ShiftEngine.value_at``). Counts are what to compare between versions: seconds
on a shared machine drift by tens of percent between runs, counts do not.

    python benchmarks/bench_mg_work.py              # all 150 cells, ~4 min
    python benchmarks/bench_mg_work.py --every 7    # every 7th cell
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from certdp.engines import gaussian_mixture as engine  # noqa: E402
from certdp.workflows import mixtures  # noqa: E402
from certdp.engines.gaussian_mixture import float_guide  # noqa: E402
from certdp.workflows.mixtures.tables_qg import DELTAS, EPSILONS  # noqa: E402

seconds: Counter = Counter()
calls: Counter = Counter()


def _timed(owner, name: str, key: str) -> None:
    """Wrap ``owner.name`` so that its calls and seconds add up under ``key``."""
    inner = getattr(owner, name)

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            seconds[key] += time.perf_counter() - start
            calls[key] += 1

    setattr(owner, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--every", type=int, default=1, help="take every n-th cell of the 150 (default: all)")
    parser.add_argument("--components", type=int, default=10)
    args = parser.parse_args()
    _timed(engine.ShiftEngine, "shift_expansion", "models")
    _timed(engine.ShiftEngine, "value_at", "points")
    _timed(float_guide, "mg_sigma_float", "float")
    cells = [(d, e) for d in DELTAS for e in EPSILONS][::args.every]
    print(f"{'delta':>6} {'eps':>5} {'wall s':>7} {'cpu s':>6} {'float s':>7} {'models':>10} {'points':>11}")
    walls, totals = [], Counter()
    for d, e in cells:
        seconds.clear()
        calls.clear()
        wall, cpu = time.perf_counter(), time.process_time()
        mixtures.mg_paper_calibration(epsilon=e, delta=d, components=args.components)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        walls.append(wall)
        totals.update({"models": calls["models"], "points": calls["points"]})
        print(f"{d:>6} {e:>5} {wall:7.2f} {cpu:6.2f} {seconds['float']:7.2f} "
              f"{calls['models']:3d} {seconds['models']:5.2f}s {calls['points']:3d} {seconds['points']:6.2f}s",
              flush=True)
    print(f"{len(cells)} cells: median {statistics.median(walls):.3f} s, mean {statistics.mean(walls):.3f} s, "
          f"max {max(walls):.2f} s; {totals['models']} shift models, {totals['points']} point values in all")


if __name__ == "__main__":
    main()
