#!/usr/bin/env python3
"""Where one certified analytic-Gaussian calibration spends its time, phase by phase.

    PYTHONPATH=. python3 benchmarks/bench_gaussian_phases.py [--reps 200] [--profile]

Per point of the 3 x 3 grid eps in {0.1, 1, 10} x delta in {1e-9, 1e-5, 0.01} (sensitivity 1),
after a warm-up, ``--reps`` interleaved rounds of (``time.perf_counter_ns`` around each):

* ``calibrate``: the whole public call ``certdp.calibrate("gaussian", ...)``;
* ``float root``: the plain float64 SciPy Brent root of ``benchmarks/float_reference.py`` (the
  reference of the speed target);
* the phases of the same calibration, run one by one on its prepared inputs: ``candidate``
  (``Gaussian.float_candidate``, the ported Brent), ``bracket`` (the two Arb evaluations and
  their bookkeeping; ``two Arb profiles`` alone is printed beside it), ``certificate``
  (``Certificate.for_calibration``) and ``digest`` (the lazy seal, when read).

Medians over all rounds, in microseconds, and each as a multiple of the float root. The machine
may be shared: compare the columns of one run. ``--profile`` adds cProfile of 2,000 calls.
No timing is asserted; this script only prints.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import certdp  # noqa: E402
from certdp.certificate import Certificate  # noqa: E402
from certdp.numbers import certified_monotone_bracket  # noqa: E402
from certdp.workflows import calibrate as calibrate_module  # noqa: E402
from certdp.workflows.common import profile_closure  # noqa: E402
from flint import arb, ctx, fmpq  # noqa: E402
from float_reference import plain_float_root  # noqa: E402

GRID = [(e, d) for e in (0.1, 1.0, 10.0) for d in (1e-9, 1e-5, 0.01)]


def _prepared(e: float, d: float):
    certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1)
    key = calibrate_module.typed_key("gaussian", {"epsilon": e, "delta": d, "rtol": None, "method": None,
                                                  "sensitivity": 1})
    return calibrate_module._PREPARED[key]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    clock = time.perf_counter_ns
    names = ("calibrate", "float root", "candidate", "bracket", "two Arb profiles", "certificate", "digest")
    times: dict[str, list[int]] = {name: [] for name in names}
    for e, d in GRID:
        p = _prepared(e, d)
        log_d = math.log(d)
        plain_float_root(e, log_d)
        for _ in range(args.reps):
            t0 = clock()
            certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1)
            t1 = clock()
            plain_float_root(e, log_d)
            t2 = clock()
            candidate = p.cls.float_candidate(p.eps_float, p.log_delta, **p.params)
            t3 = clock()
            profile = profile_closure(p.cls, p.eps, p.params)
            b = certified_monotone_bracket(profile, p.delta, increasing=False, candidate=candidate, rtol=p.tol,
                                           first_steps_at_first_rung=True)
            t4 = clock()
            saved = ctx.prec
            ctx.prec = 64
            ball_lo, ball_hi = (arb(fmpq(*q.as_integer_ratio())) for q in (b.lo, b.hi))
            t5 = clock()
            profile(ball_lo)
            profile(ball_hi)
            t6 = clock()
            ctx.prec = saved
            eps_text, delta_text, tol_text = p.texts
            cert = Certificate.for_calibration(
                claim=p.claim, mechanism="gaussian", parameter="sigma", parameters=p.parameter_texts,
                epsilon=eps_text, delta=delta_text, rtol=tol_text, interval=(b.lo, b.hi), safe_side="upper",
                method=p.method, lemma=p.lemma, delta_enclosure=b.delta_at_safe, precision_bits=b.precision_bits,
                timing_seconds=0.0,
                extra={"evaluations": b.evaluations, "delta_enclosure_at_unsafe_end": b.delta_at_unsafe.strings()})
            t7 = clock()
            cert.digest
            t8 = clock()
            for name, dt in zip(names, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t6 - t5, t7 - t6, t8 - t7)):
                times[name].append(dt)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{len(GRID)} points x {args.reps} interleaved rounds; load average {load:.2f} on {os.cpu_count()} cpus")
    reference = statistics.median(times["float root"])
    print(f"{'phase':18s} {'median us':>10s} {'x float root':>13s}")
    for name in names:
        med = statistics.median(times[name])
        print(f"{name:18s} {med / 1000:10.1f} {med / reference:13.2f}")
    rest = statistics.median(times["calibrate"]) - sum(statistics.median(times[n]) for n in
                                                       ("candidate", "bracket", "certificate"))
    print(f"{'(dispatch, rest)':18s} {rest / 1000:10.1f} {rest / reference:13.2f}   "
          "(calibrate minus candidate, bracket, certificate)")
    if args.profile:
        import cProfile
        import pstats

        def loop() -> None:
            for i in range(2000):
                e, d = GRID[i % len(GRID)]
                certdp.calibrate("gaussian", epsilon=e, delta=d, sensitivity=1)

        profiler = cProfile.Profile()
        profiler.runcall(loop)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
