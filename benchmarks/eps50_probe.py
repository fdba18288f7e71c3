"""One coverage cell through the workflow, printing every sgg_profile_enclosure call (rate, precision, result, s).

Usage: PYTHONPATH=<tree> python3 benchmarks/eps50_probe.py T alpha p eps delta [timeout]  (branch eps50)."""
import sys, time
import os; tree=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, tree+'/benchmarks')
args=sys.argv[1:]; sys.argv=[sys.argv[0]]
import coverage as cov
import certdp.mechanisms.sgg as sgg
from flint import ctx
orig=sgg.sgg_profile_enclosure
def wrapped(dimension, alpha, power, rate, epsilon, sensitivity, relative_eta=None, **kw):
    t=time.perf_counter()
    try:
        r=orig(dimension, alpha, power, rate, epsilon, sensitivity, relative_eta, **kw)
    except Exception as e:
        print(f"   call rate={str(rate)[:40]} prec={ctx.prec} rel={relative_eta} EXC {type(e).__name__} {time.perf_counter()-t:.2f}s", flush=True); raise
    print(f"   call rate={str(rate)[:40]} prec={ctx.prec} rel={relative_eta} -> {r.str(5, radius=False) if hasattr(r,'str') else r} {time.perf_counter()-t:.2f}s", flush=True)
    return r
sgg.sgg_profile_enclosure=wrapped
import certdp.workflows  # ensure other modules that imported it get patched
import importlib, pkgutil
for m in list(sys.modules.values()):
    if m and getattr(m,'sgg_profile_enclosure',None) is orig and m is not sgg:
        m.sgg_profile_enclosure=wrapped; print("patched",m.__name__)
T,a,p,eps,d=args[:5]; to=float(args[5]) if len(args)>5 else 90
st,t,note=cov.run_cell('sgg',{'dimension':int(T),'alpha':a,'power':p},eps,d,to)
print(f"T={T} alpha={a} p={p} eps={eps} delta={d}: {st} {t:.1f}s {note[:120]}",flush=True)
