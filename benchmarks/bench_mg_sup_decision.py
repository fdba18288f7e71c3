"""Cost of one certified "delta(eps) <= target" decision of the exact mixture engine (MG).

Run:  python benchmarks/bench_mg_sup_decision.py [--cases all|quick]

This is the expensive side of every certified MG calibration (the safe end of the bracket): the
sup over all shifts must be proven below the target. Each case sets the target a given factor
above the float sup, so the factor is the relative margin the certification has to work with
(a bracket with rtol r and d log delta / d log sigma = k leaves a margin of about k r / 2).
Columns: shift intervals of the branch and bound, certified point evaluations, seconds, and
seconds per interval. Stop 8 (first-order model) measured the first case at 342 intervals /
123 s and the third at 380 intervals / 728 s.
"""

from __future__ import annotations

import argparse
import time

from flint import arb, ctx

from certdp.engines.gaussian_mixture import privacy_profile_sup
from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
from certdp.engines.gaussian_mixture.float_guide import mg_profile_float

# (K, eps, sigma, target / float sup)
CASES = [
    (5, "2", "0.3075", 1.01),
    (10, "2", "0.296553", 1.0386),
    (10, "2", "0.3077628915762527", 1.00055),
]


def decide(k: int, eps: str, sigma: str, factor: float) -> tuple[str, int, int, float]:
    ctx.prec = 64
    e = arb(eps)
    mix = multi_gaussian_mixture(arb(sigma), e, arb(1), k)
    sup, argmax = mg_profile_float(float(sigma), float(eps), k, 1.0)
    start = time.perf_counter()
    res = privacy_profile_sup(mix, e, arb(1), symmetric=True, rel_tol=1e-9, target=arb(sup * factor),
                              hints=[argmax])
    return res.decided.value, res.intervals, res.point_evaluations, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", choices=("all", "quick"), default="all")
    args = ap.parse_args()
    cases = CASES if args.cases == "all" else CASES[:1]
    print(f"{'case':44s} {'decided':>8s} {'intervals':>10s} {'points':>7s} {'seconds':>9s} {'s/interval':>11s}")
    for k, eps, sigma, factor in cases:
        decided, n_int, n_pts, secs = decide(k, eps, sigma, factor)
        label = f"K={k} eps={eps} sigma={sigma[:10]} target={factor}x sup"
        print(f"{label:44s} {decided:>8s} {n_int:10d} {n_pts:7d} {secs:9.1f} {secs / max(n_int, 1):11.2f}")


if __name__ == "__main__":
    main()
