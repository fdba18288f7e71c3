"""Probe log of one certified MG Alg. 1 calibration: every certified probe of the bracket (sigma,
precision, the profile's lower / upper ends, time) and every float-guide call, in order.

    python3 benchmarks/mg_probe_trace.py EPS DELTA K      e.g.  10 1e-300 50

Used for the per-probe numbers of docs/mixtures.md ("Cheap certified lower bounds", stop 30). It only
wraps the workflow's functions to print; nothing it prints decides anything.
"""

from __future__ import annotations

import sys
import time

from flint import ctx

import certdp
import certdp.engines.gaussian_mixture.float_guide as float_guide
import certdp.workflows.mixtures.mg_alg1 as mg_alg1

START = time.perf_counter()


def _log(text: str) -> None:
    print(f"[{time.perf_counter() - START:7.1f}] {text}", flush=True)


def _traced_profile(make_profile):
    def make(*args, **kwargs):
        profile = make_profile(*args, **kwargs)

        def traced(t):
            t0 = time.perf_counter()
            head = f"probe sigma={t.mid().str(12)} prec={ctx.prec}"
            try:
                lower, upper, settled = profile(t)
            except Exception as exc:
                _log(f"{head} {type(exc).__name__} {time.perf_counter() - t0:.2f}s")
                raise
            _log(f"{head} lower={lower.str(5)} upper={upper.str(5)} settled={settled} {time.perf_counter() - t0:.2f}s")
            return lower, upper, settled
        return traced
    return make


def _traced_guide(guide):
    def traced(*args, **kwargs):
        t0 = time.perf_counter()
        sigma = guide(*args, **kwargs)
        _log(f"guide -> {sigma} ({time.perf_counter() - t0:.2f}s)")
        return sigma
    return traced


def main() -> None:
    eps, delta, components = sys.argv[1], sys.argv[2], int(sys.argv[3])
    mg_alg1.mg_paper_profile = _traced_profile(mg_alg1.mg_paper_profile)
    float_guide.mg_sigma_float = _traced_guide(float_guide.mg_sigma_float)
    cert = certdp.calibrate("multi-gaussian", epsilon=eps, delta=delta, components=components, rtol="1e-6",
                            sensitivity=1)
    print(cert.interval, cert.extra.get("evaluations"), f"total {time.perf_counter() - START:.1f}s")


if __name__ == "__main__":
    main()
