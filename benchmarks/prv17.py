"""prv-accountant issue #17 (microsoft/prv_accountant#17, 2021): for DP-SGD with sampling probability
0.00033, noise multiplier 4 and 10,000 steps, its epsilon jumped from 0.056 (delta = 1.1e-18) to 3.8
(delta = 1.13e-18); for q = 0.00038, between delta = 1.11e-18 and 1.13e-18.

    PYTHONPATH=. python3 benchmarks/prv17.py            # both rows of the issue, certdp and prv-accountant
    PYTHONPATH=. python3 benchmarks/prv17.py --quick    # q = 0.00033 only

prv-accountant 0.2.0 (installed here) no longer answers at these deltas: it raises "Floating point
errors will dominate for such small values of delta" (its guard eps_longdouble * len(domain) >
delta - delta_error). This script prints that, and then the epsilons its own discretized PRV gives
with the guard removed (the code path of the issue's version), which shows the jump. Beside them:
certdp's certified brackets at each delta (the same PLD engine as ``certdp compose``), which are
monotone: a smaller delta never gets a smaller certified epsilon, and each bracket contains the truth.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import numpy as np

from certdp.accounting import account

ROWS = [(0.00033, ["1e-18", "1.1e-18", "1.11e-18", "1.12e-18", "1.13e-18", "1.2e-18"]),
        (0.00038, ["1e-18", "1.1e-18", "1.11e-18", "1.12e-18", "1.13e-18", "1.2e-18"])]
SIGMA, STEPS = 4.0, 10000


def prv_epsilons(q: float, deltas: list[str]) -> dict[str, str]:
    """prv-accountant 0.2.0 as in its compute-dp-epsilon (eps_error 0.1, delta_error delta/1000):
    its answer, and the guard-free estimate of its discretized PRV (NOT certified; a float reproduction)."""
    try:
        from prv_accountant import PRVAccountant, privacy_random_variables
    except ImportError:
        return {d: "prv-accountant not installed" for d in deltas}
    prv = privacy_random_variables.PoissonSubsampledGaussianMechanism(sampling_probability=q, noise_multiplier=SIGMA)
    out = {}
    for d in deltas:
        delta = float(d)
        acc = PRVAccountant(prvs=prv, max_self_compositions=STEPS, eps_error=0.1, delta_error=delta / 1000)
        try:
            answer = "%.3f %.3f %.3f" % acc.compute_epsilon(delta=delta, num_self_compositions=STEPS)
        except Exception as exc:  # noqa: BLE001 - the refusal is the result
            answer = f"{type(exc).__name__}: {str(exc)[:40]}..."
        f_n = acc.compute_composition([STEPS])
        out[d] = (answer, _guard_free(f_n, delta, delta / 1000, 0.1))
    return out


def _guard_free(f_n, delta: float, delta_error: float, eps_error: float) -> str:
    """prv_accountant.DiscretePrivacyRandomVariable.compute_epsilon without its small-delta guard."""
    delta_inf = 1 - np.exp(f_n.log_pmc_inf)
    delta_fin = (delta - delta_inf) / (1 - delta_inf)
    if delta_fin <= 0:
        return "inf"
    t, p = f_n.domain.ts(), f_n.pmf
    d1 = np.flip(np.flip(p).cumsum())
    d2 = np.flip(np.flip(p * np.exp(-t)).cumsum())
    ndelta = np.exp(t) * d2 - d1

    def find(target):
        i = np.searchsorted(ndelta, -target, side="left")
        if i <= 0:
            return float("nan")
        return float(np.log((d1[i] - target) / d2[i]))
    return "%.3f %.3f %.3f" % (find(delta_fin + delta_error) - eps_error, find(delta_fin), find(delta_fin - delta_error) + eps_error)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rtol", default="0.05")
    args = ap.parse_args()
    rows = ROWS[:1] if args.quick else ROWS
    for q, deltas in rows:
        print(f"q = {q}, sigma = {SIGMA}, k = {STEPS}")
        peers = prv_epsilons(q, deltas)
        previous = None
        consistent = ends_monotone = True
        for d in deltas:
            t = time.perf_counter()
            r = account({"mechanisms": [{"mechanism": "subsampled-gaussian", "sigma": str(SIGMA),
                                         "sampling_rate": str(q), "count": STEPS}]}, delta=d, rtol=args.rtol)
            lo, hi = r.enclosure.lower, r.enclosure.upper
            if previous is not None:
                consistent = consistent and lo <= previous[1]  # some non-increasing eps(delta) fits both
                ends_monotone = ends_monotone and lo <= previous[0] and hi <= previous[1]
            previous = (lo, hi)
            answer, free = peers[d]
            print(f"  delta = {d:9s} certdp eps in [{float(lo):.5f}, {float(hi):.5f}] ({time.perf_counter() - t:5.1f} s, "
                  f"{r.discretization['grid_step']})  prv-accountant 0.2.0: {answer}  guard-free (lower est upper): {free}")
        print(f"  certdp: brackets admit a non-increasing eps(delta): {consistent}; both ends non-increasing: "
              f"{ends_monotone}")


if __name__ == "__main__":
    main()
