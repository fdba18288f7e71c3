"""Probe log of one certified MG Alg. 1 calibration: every certified probe of the bracket (sigma,
precision, the profile's lower / upper ends, time) and every float-guide call, in order.

    python3 benchmarks/mg_probe_trace.py EPS DELTA K      e.g.  10 1e-300 50

Used for the per-probe numbers of docs/mixtures.md ("Cheap certified lower bounds", stop 30). It only
wraps the workflow's functions to print; nothing it prints decides anything.
"""
import sys
import time
from fractions import Fraction
import certdp
import certdp.workflows.mixtures.mg_alg1 as M
from flint import ctx
orig = M.mg_paper_profile
T0 = time.perf_counter()
def wrapped(*a, **k):
    prof = orig(*a, **k)
    def p(t):
        t0 = time.perf_counter()
        try:
            r = prof(t)
        except Exception as e:
            print(f"[{time.perf_counter()-T0:7.1f}] probe sigma={t.mid().str(12)} prec={ctx.prec} EXC {type(e).__name__} {time.perf_counter()-t0:.2f}s", flush=True)
            raise
        print(f"[{time.perf_counter()-T0:7.1f}] probe sigma={t.mid().str(12)} rad={t.rad().str(3)} prec={ctx.prec} lower={r[0].str(5)} upper={r[1].str(5)} settled={r[2]} {time.perf_counter()-t0:.2f}s", flush=True)
        return r
    return p
M.mg_paper_profile = wrapped
import certdp.engines.gaussian_mixture.float_guide as FG
og = FG.mg_sigma_float
def g(*a, **k):
    t0=time.perf_counter(); r = og(*a, **k); print(f"[{time.perf_counter()-T0:7.1f}] guide -> {r} ({time.perf_counter()-t0:.2f}s)", flush=True); return r
FG.mg_sigma_float = g
eps, delta, K = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = certdp.calibrate("multi-gaussian", epsilon=eps, delta=delta, components=K, rtol="1e-6", sensitivity=1)
print(c.interval, c.extra.get("evaluations"), f"total {time.perf_counter()-T0:.1f}s")
