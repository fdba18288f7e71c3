"""GGM benchmarks (seed 004), side by side.  Run: python benchmarks/bench_ggm.py [--quick]

1. certified 1-D b(p) per call (calibrate, rtol 1e-12) vs the float64 SciPy candidate alone;
2. certified 1-D shape search to eta = 1e-4 at (1, 0.01, 3) (Table 2);
3. certified 2-D b-hat(p) for Delta = (1, 2) (deterministic product engine) vs
4. the paper's Monte-Carlo empirical-Bernstein estimate of delta at the same scale (PROBABILISTIC).
No timing asserts: this prints a table.
"""

from __future__ import annotations

import statistics
from fractions import Fraction
import sys
import time

import numpy as np


def timed(fn, repeat=1):
    out, times = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, times


def main(quick: bool = False) -> None:
    from certdp.engines.monotone_loss import float_scale
    from certdp.engines.product_loss import mc_empirical_bernstein, product_delta_bounds
    from certdp.numbers import arb_of, working_precision
    from certdp.workflows.calibrate import calibrate
    from certdp.workflows.ggm_vector import calibrate_vector
    from certdp.workflows.ggm_shape_search import certified_shape_search

    rows = []
    shapes = ["1.05", "1.3", "1.5", "2.5", "4", "7.5", "12", "40"]
    calibrate("ggm", epsilon=1, delta="0.01", shape="1.5", sensitivity=3)  # warm-up (imports)
    cert_times, float_times = [], []
    for p in shapes:
        _, t = timed(lambda: calibrate("ggm", epsilon=1, delta="0.01", shape=p, sensitivity=3), 3)
        cert_times += t
        _, tf = timed(lambda: float_scale(float(p), 1.0, 0.01, 3.0), 3)
        float_times += tf
    med_c, med_f = statistics.median(cert_times), statistics.median(float_times)
    rows.append(("1-D b(p), certified bracket rtol 1e-12 (median of 24)", f"{med_c * 1e3:.1f} ms",
                 f"float64 candidate only: {med_f * 1e3:.2f} ms", f"x{med_c / med_f:.1f}"))

    r, t = timed(lambda: certified_shape_search("1", "0.01", 3, tolerance="1e-3" if quick else "1e-4"))
    rows.append((f"1-D shape search eta={r.tolerance} (1, 0.01, 3)", f"{t[0]:.2f} s",
                 f"p-hat {float(r.p_hat):.4f}, gap {r.gap:.2e}, {r.evaluations} Arb evals", "paper: p 1.0649"))

    c, t = timed(lambda: calibrate_vector("1.2947", 1, "0.01", "1,2"))
    lo, hi = c.interval
    rows.append(("2-D b-hat(1.2947), Delta=(1,2), deterministic", f"{t[0]:.2f} s",
                 f"b in ({float(lo):.5f}, {float(hi):.5f}], delta <= {float(c.delta_enclosure[1]):.6f}",
                 "paper (MC-EB): 3.81"))

    b = float(hi)
    with working_precision(64):
        (dlo, dhi), t = timed(lambda: product_delta_bounds(Fraction(12947, 10000), arb_of(str(b)), arb_of(1),
                                                           [Fraction(1), Fraction(2)]))
    rows.append(("  deterministic delta enclosure at that b", f"{t[0]:.2f} s",
                 f"[{dlo:.6f}, {dhi:.6f}] width {dhi - dlo:.2e}", "certified"))
    rng = np.random.default_rng(0)
    for n in ([10**5, 10**6] if quick else [10**5, 10**6, 10**7]):
        (mean, mlo, mhi), t = timed(lambda: mc_empirical_bernstein(1.2947, b, 1.0, [1.0, 2.0], n, 1e-4, rng))
        rows.append((f"  MC-EB N={n:.0e}, alpha=1e-4", f"{t[0]:.2f} s",
                     f"[{mlo:.6f}, {mhi:.6f}] width {mhi - mlo:.2e}", "PROBABILISTIC (1-alpha)"))

    from rich.console import Console
    from rich.table import Table

    table = Table(title="certdp GGM benchmarks (2 cores)")
    for col in ("task", "time", "result", "compare"):
        table.add_column(col)
    for row in rows:
        table.add_row(*row)
    Console().print(table)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
