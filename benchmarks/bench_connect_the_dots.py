"""Connect-the-dots accounting: timings of two plans (issue 15), certified delta brackets at eps = 1.

    PYTHONPATH=. python3 benchmarks/bench_connect_the_dots.py

Prints, per plan: the certified delta(1) bracket, its relative width, the lattice step, the number
of connect-the-dots grid points per group (= certified profile evaluations), and the wall time
(one cold run; the profile cache is per process). The machine is shared: times are indicative.
"""

from __future__ import annotations

import time

from certdp.accounting import account

PLANS = {
    "10 x l2-laplace(theta=3, T=3)": {"mechanisms": [
        {"mechanism": "l2-laplace", "theta": "3", "dimension": 3, "count": 10}]},
    "mixed: 3 x gaussian(5) + 2 x l2-laplace(3, T=3) + 2 x quasi-gaussian(3, shape_eps=1)": {"mechanisms": [
        {"mechanism": "gaussian", "sigma": "5", "count": 3},
        {"mechanism": "l2-laplace", "theta": "3", "dimension": 3, "count": 2},
        {"mechanism": "quasi-gaussian", "sigma": "3", "shape_epsilon": "1", "count": 2}]},
}


def main() -> None:
    for name, plan in PLANS.items():
        t = time.perf_counter()
        c = account(plan, epsilon="1")
        dt = time.perf_counter() - t
        d = c.discretization
        print(f"{name}\n  delta(1) in [{float(c.enclosure.lower):.8g}, {float(c.enclosure.upper):.8g}]"
              f"  rel. width {c.relative_width:.3g}  step {d['grid_step']}"
              f"  grid points {d.get('connect_the_dots_grid_points')}  {dt:.1f} s")


if __name__ == "__main__":
    main()
