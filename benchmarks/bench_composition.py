"""Referee the float accountants on DP-SGD: certified epsilon brackets beside dp-accounting (PLD, RDP),
prv-accountant, Opacus and autodp, where installed (optional extras; never imported by certdp).

    PYTHONPATH=. python3 benchmarks/bench_composition.py            # the target point q=0.01, sigma=1, k=1000
    PYTHONPATH=. python3 benchmarks/bench_composition.py --k 10000  # the k = 10,000 target
    PYTHONPATH=. python3 benchmarks/bench_composition.py --full     # q in {0.001,0.01,0.1} x sigma in {0.6,1,2,4} x k
    PYTHONPATH=. python3 benchmarks/bench_composition.py --grid-q 0.01,0.1 --grid-sigma 1,2 --grid-k 100,1000  # a subset
    PYTHONPATH=. python3 benchmarks/bench_composition.py --hetero   # the 100-group heterogeneous plan at eps = 1
    PYTHONPATH=. python3 benchmarks/bench_composition.py --prv17    # prv-accountant issue #17 (benchmarks/prv17.py)

For every point it prints our certified [lower, upper] (relative width, seconds), each peer's
epsilon and time, and flags a peer epsilon *below our certified lower bound* ("UNDER": that peer
under-reports the privacy loss). The last lines count such points and print time ratios.
"""

from __future__ import annotations

import argparse
import math
import time
from fractions import Fraction

from certdp.accounting import account


def ours(q, sigma, k, delta, rtol):
    t = time.perf_counter()
    r = account({"mechanisms": [{"mechanism": "subsampled-gaussian", "sigma": str(sigma), "sampling_rate": str(q),
                                 "count": k}]}, delta=delta, rtol=rtol)
    return r, time.perf_counter() - t


def peers():
    out = {}
    try:
        from dp_accounting import dp_event, pld, rdp

        def event(q, s, k):
            return dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(s)), k)

        def dpa_pld(q, s, k, d):
            acc = pld.PLDAccountant()
            acc.compose(event(q, s, k))
            return acc.get_epsilon(d)

        def dpa_rdp(q, s, k, d):
            acc = rdp.RdpAccountant()
            acc.compose(event(q, s, k))
            return acc.get_epsilon(d)
        out["dp-accounting PLD"] = dpa_pld
        out["dp-accounting RDP"] = dpa_rdp
    except ImportError:
        pass
    try:
        from prv_accountant.dpsgd import DPSGDAccountant

        def prv(q, s, k, d):
            acc = DPSGDAccountant(noise_multiplier=s, sampling_probability=q, eps_error=0.01, delta_error=d / 1000,
                                  max_steps=k)
            return acc.compute_epsilon(delta=d, num_steps=k)[1]
        out["prv-accountant"] = prv
    except ImportError:
        pass
    try:
        from opacus.accountants import PRVAccountant, RDPAccountant

        def opacus(cls):
            def run(q, s, k, d):
                acc = cls()
                acc.history = [(s, q, k)]
                return acc.get_epsilon(delta=d)
            return run
        out["opacus RDP"] = opacus(RDPAccountant)
        out["opacus PRV"] = opacus(PRVAccountant)
    except ImportError:
        pass
    try:
        from autodp.mechanism_zoo import SubsampleGaussianMechanism  # noqa: F401

        def autodp_run(q, s, k, d):
            from autodp.transformer_zoo import AmplificationBySampling, Composition  # noqa: F401
            from autodp.mechanism_zoo import GaussianMechanism
            from autodp.transformer_zoo import AmplificationBySampling as Amp
            mech = Amp(PoissonSampling=True)(GaussianMechanism(sigma=s), q, improved_bound_flag=True)
            return Composition()([mech], [k]).get_approxDP(d)
        out["autodp"] = autodp_run
    except ImportError:
        pass
    return out


def hetero_plan() -> tuple[list[dict], str]:
    """The issue's 100-group plan: 25 x (Gaussian, Laplace, GGM p = 1.5, 10 subsampled-Gaussian steps), plus
    5 l2-Laplace T = 3 groups when the plan parser accepts them (the hook for connect-the-dots)."""
    from certdp.accounting import parse_plan
    from certdp.numbers import InputError

    groups = []
    for i in range(25):
        groups += [{"mechanism": "gaussian", "sigma": str(20 + i), "count": 1},
                   {"mechanism": "laplace", "scale": str(40 + i), "count": 1},
                   {"mechanism": "ggm", "scale": str(30 + i), "shape": "1.5", "count": 1},
                   {"mechanism": "subsampled-gaussian", "sigma": "1", "sampling_rate": str(Fraction(1, 100 + i)),
                    "count": 10}]
    l2 = [{"mechanism": "l2-laplace", "dimension": "3", "theta": str(60 + i), "sensitivity": "1", "count": 1}
          for i in range(5)]
    try:
        parse_plan({"mechanisms": l2})
    except (InputError, KeyError, ValueError) as exc:
        return groups, f"l2-Laplace groups left out (a plan does not accept them yet: {str(exc)[:60]})"
    return groups + l2, "with 5 l2-Laplace T = 3 groups"


def hetero():
    groups, note = hetero_plan()
    t = time.perf_counter()
    r = account({"mechanisms": groups}, epsilon="1", rtol="0.05")
    print(f"{len(groups)} groups ({note}): delta(1) in [{float(r.enclosure.lower):.6g}, {float(r.enclosure.upper):.6g}] "
          f"(rel. width {r.relative_width:.2%}, {r.discretization.get('grid_step')}, "
          f"{r.discretization.get('rounding')}, {time.perf_counter() - t:.1f} s)")
    try:
        from dp_accounting import dp_event, pld
    except ImportError:
        return
    t = time.perf_counter()
    acc = pld.PLDAccountant()
    events = []
    for g in groups:
        m = g["mechanism"]
        if m == "gaussian":
            ev = dp_event.GaussianDpEvent(float(g["sigma"]))
        elif m == "laplace":
            ev = dp_event.LaplaceDpEvent(float(g["scale"]))
        elif m == "subsampled-gaussian":
            ev = dp_event.PoissonSampledDpEvent(float(Fraction(g["sampling_rate"])), dp_event.GaussianDpEvent(float(g["sigma"])))
        else:
            continue  # dp-accounting has no GGM / l2-Laplace event
        events.append(dp_event.SelfComposedDpEvent(ev, int(g["count"])))
    acc.compose(dp_event.ComposedDpEvent(events))
    print(f"  dp-accounting PLD without the GGM groups (it has no GGM event; a LOWER reference): "
          f"delta(1) = {acc.get_delta(1.0):.6g} ({time.perf_counter() - t:.1f} s)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--k", type=int, default=1000)
    ap.add_argument("--q", type=float, default=0.01)
    ap.add_argument("--sigma", type=float, default=1.0)
    ap.add_argument("--delta", default="1e-5")
    ap.add_argument("--rtol", default="0.01")
    ap.add_argument("--hetero", action="store_true",
                    help="the issue's 100-group heterogeneous plan at eps = 1 (l2-Laplace T = 3 groups join "
                         "when a plan accepts them -- the connect-the-dots route)")
    ap.add_argument("--prv17", action="store_true", help="prv-accountant issue #17 (runs benchmarks/prv17.py)")
    ap.add_argument("--grid-q", default=None, help="comma list: a subset of the DP-SGD grid")
    ap.add_argument("--grid-sigma", default=None)
    ap.add_argument("--grid-k", default=None)
    args = ap.parse_args()
    if args.prv17:
        import runpy
        import sys

        sys.argv = [sys.argv[0]]
        runpy.run_path(str(__import__("pathlib").Path(__file__).with_name("prv17.py")), run_name="__main__")
        return
    if args.hetero:
        hetero()
        return
    if args.grid_q or args.grid_sigma or args.grid_k:
        qs = [float(x) for x in (args.grid_q or str(args.q)).split(",")]
        ss = [float(x) for x in (args.grid_sigma or str(args.sigma)).split(",")]
        ks = [int(x) for x in (args.grid_k or str(args.k)).split(",")]
        grid = [(q, s, k) for q in qs for s in ss for k in ks]
    else:
        grid = [(q, s, k) for q in (0.001, 0.01, 0.1) for s in (0.6, 1, 2, 4) for k in (100, 1000, 10000)] \
            if args.full else [(args.q, args.sigma, args.k)]
    runners = peers()
    print("peers installed:", ", ".join(runners) or "none")
    delta = Fraction(args.delta)
    under = {name: 0 for name in runners}
    times = {name: 0.0 for name in runners}
    our_time = 0.0
    for q, s, k in grid:
        r, t_ours = ours(q, s, k, delta, args.rtol)
        our_time += t_ours
        lo, hi = float(r.enclosure.lower), float(r.enclosure.upper)
        print(f"q={q} sigma={s} k={k}: certified eps in [{lo:.6f}, {hi:.6f}]  (rel. width {r.relative_width:.2%}, "
              f"{r.discretization.get('grid_step')}, {t_ours:.1f} s)")
        for name, run in runners.items():
            t = time.perf_counter()
            try:
                e = float(run(q, s, k, float(delta)))
            except Exception as exc:  # noqa: BLE001 - a peer failing is a result too
                print(f"    {name:20s} failed: {type(exc).__name__}: {str(exc)[:80]}")
                continue
            dt = time.perf_counter() - t
            times[name] += dt
            flag = "UNDER (below our certified lower bound)" if e < float(r.enclosure.lower) else \
                ("above our certified upper bound" if e > hi else "inside")
            if e < float(r.enclosure.lower):
                under[name] += 1
            print(f"    {name:20s} eps = {e:.6f}  {dt:7.2f} s  {flag}")
    print(f"\npoints: {len(grid)}; our total time {our_time:.1f} s")
    for name in runners:
        ratio = our_time / times[name] if times[name] > 0 else math.inf
        print(f"  {name:20s} under-reports at {under[name]} point(s); time {times[name]:.2f} s; ours/peer = {ratio:.1f}x")


if __name__ == "__main__":
    main()
