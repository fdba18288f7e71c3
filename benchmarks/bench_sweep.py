"""Sweep executor: 1 vs 2 workers on real certdp jobs (small ones, and table cells of ~0.1-1 s), and the
overhead per 1 ms job with/without batching.

Run: PYTHONPATH=. python3 benchmarks/bench_sweep.py   (numbers side by side in one run, as ratios)
"""

from __future__ import annotations

import time

from certdp.sweep import load_spec, run_jobs


def _time(jobs, **kw) -> float:
    start = time.perf_counter()
    result = run_jobs(jobs, **kw)
    assert not result.errors, result.errors[:1]
    return time.perf_counter() - start


def main() -> None:
    real = load_spec({"grid": [
        {"kind": "audit", "mechanism": "gaussian", "value": ["2", "3.5", "5"], "epsilon": "0.1:10:40",
         "delta": ["1e-5", "1e-9"]},
        {"kind": "calibrate", "mechanism": "gaussian", "epsilon": "0.1:10:40", "delta": ["1e-5", "1e-9"]},
    ]})
    t1 = _time(real, workers=1)
    t2 = _time(real, workers=2)
    print(f"{len(real)} certdp jobs: 1 worker (in-process) {t1:.2f} s, 2-process pool {t2:.2f} s "
          f"(speedup {t1 / t2:.2f}x, pool start-up included)")
    from certdp.workflows.mixtures.table_audit import table_cells

    cells = load_spec({"jobs": [
        {"kind": "table-mg-cell", "table": t["table"], "epsilon": t["epsilon"], "delta": t["delta"],
         "printed": t["printed"], "params": {"timeout": "60"}} for t in table_cells(("5",))[:80]]})
    c1 = _time(cells, workers=1)
    c2 = _time(cells, workers=2, batch_size=1)
    print(f"{len(cells)} table multi-gaussian cells (Table 5): 1 worker {c1:.2f} s, 2-process pool {c2:.2f} s "
          f"(speedup {c1 / c2:.2f}x)")
    slow = load_spec({"grid": {"kind": "sleep", "seconds": "0.02", "id": [f"w{i}" for i in range(200)]}})
    s1 = _time(slow, workers=1)
    s2 = _time(slow, workers=2)
    print(f"{len(slow)} x 20 ms jobs: 1 worker {s1:.2f} s, 2-process pool {s2:.2f} s (speedup {s1 / s2:.2f}x)")
    tiny = load_spec({"grid": {"kind": "sleep", "seconds": "0.001", "id": [f"t{i}" for i in range(1000)]}})
    base = _time(tiny, workers=1)
    for label, kw in (("pool, batch 1", {"workers": 2, "batch_size": 1}),
                      ("pool, auto batch", {"workers": 2})):
        t = _time(tiny, **kw)
        print(f"{len(tiny)} x 1 ms jobs, {label}: {t:.2f} s, overhead per job "
              f"{(t - base / 2) / len(tiny) * 1e3:.3f} ms (serial {base:.2f} s)")
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        print("dask not installed: Dask rows skipped")
        return
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        for label, size in (("dask, batch 1", 1), ("dask, auto batch", None)):
            t = _time(tiny, dask=client, batch_size=size)
            print(f"{len(tiny)} x 1 ms jobs, {label}: {t:.2f} s, overhead per job "
                  f"{(t - base / 2) / len(tiny) * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
