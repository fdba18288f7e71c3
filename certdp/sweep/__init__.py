"""Run grids of certdp jobs on a process pool or Dask: ``run_jobs(jobs, workers=..., dask=...)``.

Not imported by ``import certdp``; Dask is imported only when asked for.
"""

from certdp.sweep.executor import SweepResult, content, read_records, run_jobs
from certdp.sweep.spec import load_spec, normalize_jobs

__all__ = ["run_jobs", "SweepResult", "content", "read_records", "load_spec", "normalize_jobs"]
