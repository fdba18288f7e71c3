"""Seed 004 Table 7 (d = 5), selected cells: certified scales at a float-searched p-hat.

p-hat: float64 search over [1, 4] (NOT certified).  Scales at p-hat and at p = 1 (product
engine, grid 2^-10, bracket rtol 6e-3) and p = 2, inf (closed forms) are CERTIFIED at delta = the
paper's delta + alpha.
Improvement uses L2 at the safe (upper) ends, so it is a conservative figure for our p-hat.
Run: python examples/ggm_table7.py [--limit SECONDS] [--grid-bits B] [--rtol R] [eps delta]...
(or --all: the paper's 12 rows); defaults: grid 2^-10, rtol 6e-3.
     python examples/ggm_table7.py --markdown OUTPUT   (the docs/ggm.md table from a run's output)
"""

from __future__ import annotations

import math
import sys
import time

from scipy.optimize import minimize_scalar

from certdp.engines.product_loss import float_product_scale
from certdp.mechanisms.generalized_gaussian import moment_factor
from certdp.numbers import arb_of
from certdp.workflows.ggm_vector import calibrate_vector

VECTORS = {"(1,1,1,1,1)": [1, 1, 1, 1, 1], "(12,9,5,3,1)": [12, 9, 5, 3, 1],
           "(3.5,1,1,1,1)": [3.5, 1, 1, 1, 1], "(21,1,1,1,1)": [21, 1, 1, 1, 1]}
#: seed 004 Table 7: (eps, delta + alpha) -> Delta -> (p-hat, improvement %), as printed.
_NAMES = ("(1,1,1,1,1)", "(12,9,5,3,1)", "(3.5,1,1,1,1)", "(21,1,1,1,1)")
_ROWS = {
    ("0.25", "0.1"): (2.00, 0.00, 2.00, 0.00, 2.44, 0.72, 2.77, 3.89),
    ("0.25", "0.01"): (2.00, 0.00, 1.83, 0.31, 1.70, 2.63, 1.33, 15.82),
    ("0.25", "0.001"): (1.75, 1.80, 1.50, 9.56, 1.46, 15.63, 1.11, 7.73),
    ("0.5", "0.1"): (2.00, 0.00, 2.00, 0.00, 2.00, 0.00, 2.00, 0.00),
    ("0.5", "0.01"): (1.84, 0.05, 1.72, 2.56, 1.57, 7.08, 1.20, 11.23),
    ("0.5", "0.001"): (1.70, 3.29, 1.42, 14.58, 1.40, 20.10, 1.09, 6.47),
    ("1", "0.1"): (2.00, 0.00, 2.00, 0.00, 1.78, 0.34, 1.50, 6.10),
    ("1", "0.01"): (1.79, 1.08, 1.59, 6.64, 1.49, 12.54, 1.13, 7.46),
    ("1", "0.001"): (1.62, 5.56, 1.34, 19.44, 1.37, 23.66, 1.07, 5.78),
    ("2", "0.1"): (2.00, 0.00, 1.73, 2.00, 1.54, 5.88, 1.18, 3.56),
    ("2", "0.01"): (1.68, 3.01, 1.44, 13.42, 1.42, 19.11, 1.07, 2.29),
    ("2", "0.001"): (1.52, 9.46, 1.22, 11.60, 1.28, 14.22, 1.06, 2.71),
}
PAPER = {key: {name: (row[2 * i], row[2 * i + 1]) for i, name in enumerate(_NAMES)} for key, row in _ROWS.items()}
STEP = 2.0**-10
RTOL = 6e-3


def float_f(p, eps, delta, sens):
    b = float_product_scale(p, eps, delta, sens, polish=False, coarse_dt=2.0**-7)
    return math.inf if b is None else 2 * math.log(b) + math.lgamma(3 / p) - math.lgamma(1 / p)


def l2_upper(shape, cert):
    p = float("inf") if shape == "inf" else arb_of(shape)
    return float((arb_of(cert.value) ** 2 * moment_factor(p, 2)).upper().mid())


def l2_lower(shape, cert):
    """A lower bound on the minimal E X_i^2 at this shape: the bracket's unsafe end (not private)."""
    p = float("inf") if shape == "inf" else arb_of(shape)
    return float((arb_of(cert.unsafe_end) ** 2 * moment_factor(p, 2)).lower().mid())


def cell(eps, delta, name):
    sens = [float(x) for x in VECTORS[name]]
    e, d = float(eps), float(delta)
    # the paper searches p in [1, 11] (its Table 7 p-hats are all <= 2.77); ours: a coarse grid on
    # [1, 4] (larger p makes the loss range, hence the float engine's arrays, long), then a bounded refinement
    # between the neighbours of the best grid point (float objective: a heuristic p-hat)
    grid = [1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0]
    vals = [float_f(p, e, d, sens) for p in grid]
    k = min(range(len(grid)), key=vals.__getitem__)
    a, c = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
    res = minimize_scalar(lambda p: float_f(p, e, d, sens), bounds=(a, c), method="bounded",
                          options={"xatol": 1e-2})
    p_hat = res.x if res.fun < vals[k] else grid[k]
    shape = f"{p_hat:.2f}"
    if shape == "2.00":
        shape = "2"  # the Gaussian: exact closed form (||Delta||_2)
    s = ",".join(str(x) for x in VECTORS[name])
    l2, l2_low = {}, {}
    for key in (shape, "1", "2", "inf"):
        cert = calibrate_vector(key, eps, delta, s, grid_step=STEP, rtol=RTOL)
        l2[key] = l2_upper(key, cert)
        l2_low[key] = l2_lower(key, cert)
    bench_shape = min(("1", "2", "inf"), key=l2.__getitem__)
    bench = l2[bench_shape]
    # the selected shape: p-hat if its certified L2 beats the best benchmark, else that benchmark
    selected = shape if l2[shape] < bench else bench_shape
    # improvement of p-hat over the best benchmark.  Deployable: certified-private L2 at p-hat (safe
    # end) vs the best certified-private benchmark.  The exact improvement at this p-hat (minimal
    # scales, the paper's definition) lies in [at_least, at_most]: each minimal L2 lies between its
    # bracket's unsafe-end and safe-end values
    at_most = 100 * (1 - l2_low[shape] / min(l2[k] for k in ("1", "2", "inf")))
    at_least = 100 * (1 - l2[shape] / min(l2_low[k] for k in ("1", "2", "inf")))
    return shape, max(0.0, 100 * (1 - l2[shape] / bench)), l2[shape], bench, selected, (at_least, at_most)


def _alarm(signum, frame):  # noqa: ARG001
    raise TimeoutError


def main(pairs, limit: float = 0.0):
    """Print one row per cell; with ``limit`` > 0 a cell that runs longer than ``limit`` seconds
    (wall clock) is reported as a timeout instead."""
    import json
    import signal

    print(f"{'eps':>4} {'d+a':>5} {'Delta':>14} | {'p_hat':>5} {'sel':>5} {'paper':>5} | {'impr%':>6} "
          f"{'exact impr. range':>18} "
          f"{'paper':>6} | "
          f"{'L2':>9} {'bench':>9} | sec")
    for eps, delta in pairs:
        for name in VECTORS:
            t = time.perf_counter()
            pp, ip = PAPER.get((eps, delta), {}).get(name, (float("nan"), float("nan")))
            if limit:
                signal.signal(signal.SIGALRM, _alarm)
                signal.alarm(int(limit))
            try:
                shape, impr, l2, bench, selected, (at_least, at_most) = cell(eps, delta, name)
            except TimeoutError:
                print(f"{eps:>4} {delta:>5} {name:>14} | timeout after {limit:.0f} s", flush=True)
                continue
            finally:
                if limit:
                    signal.alarm(0)
            sec = time.perf_counter() - t
            print(f"{eps:>4} {delta:>5} {name:>14} | {float(shape):5.2f} {selected:>5} {pp:5.2f} | {impr:6.2f} "
                  f"[{at_least:6.2f}, {at_most:6.2f}] {ip:6.2f} | {l2:9.3f} {bench:9.3f} | {sec:5.1f}", flush=True)
            print("JSON " + json.dumps({"eps": eps, "delta": delta, "Delta": name, "p_hat": shape,
                                        "selected": selected, "improvement": impr,
                                        "improvement_range": [at_least, at_most], "l2": l2, "bench": bench,
                                        "paper_p": pp, "paper_improvement": ip, "seconds": sec}), flush=True)


def markdown(path: str) -> None:
    """The Markdown table (docs/ggm.md) of the ``JSON`` lines of a run's output."""
    import json

    rows = [json.loads(line[5:]) for line in open(path) if line.startswith("JSON ")]
    print("| eps | delta+alpha | Delta | p-hat ours (float) | selected | paper p-hat | improvement ours "
          "(deployable) | exact improvement at our p-hat, certified range | paper | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        lo, hi = r["improvement_range"]
        print(f"| {r['eps']} | {r['delta']} | {r['Delta']} | {float(r['p_hat']):.2f} | {r['selected']} | "
              f"{r['paper_p']:.2f} | {r['improvement']:.2f} % | [{lo:.2f}, {hi:.2f}] % | "
              f"{r['paper_improvement']:.2f} % | {r['seconds']:.0f} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--markdown"]:
        markdown(args[1])
        sys.exit(0)
    limit = 0.0
    while args[:1] in (["--limit"], ["--grid-bits"], ["--rtol"]):
        if args[0] == "--limit":
            limit = float(args[1])
        elif args[0] == "--grid-bits":
            STEP = 2.0 ** -int(args[1])
        else:
            RTOL = float(args[1])
        args = args[2:]
    if args == ["--all"]:
        pairs = list(PAPER)
    else:
        pairs = list(zip(args[::2], args[1::2])) or [("1", "0.01")]
    main(pairs, limit)
