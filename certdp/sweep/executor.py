"""Run many certdp jobs: serially, on a local process pool, or on Dask.

``run_jobs(jobs, workers=..., dask=...)`` is the one entry point (``certdp sweep``
and ``certdp crosscheck`` call it). Jobs travel as JSON text in batches
(:func:`certdp.sweep.tasks.execute_batch`), records come back as JSON text and
are appended to the output JSONL file as each batch finishes.

Fault tolerance. A process-pool worker that dies breaks the pool
(``BrokenProcessPool``); the records already returned are kept, a fresh pool
is started and the unfinished batches are submitted again (at most
``max_attempts`` times each, then their jobs are recorded as errors with
``"retryable": true``). On Dask the scheduler reschedules the tasks of a lost
worker by itself and ``retries`` covers a task that raised.

Determinism. A record's content (everything but its ``timing`` and the
certificates' provenance fields) does not depend on where, in which batch or
in which order it ran: :func:`content` strips those fields for comparisons.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from certdp.numbers import InputError
from certdp.sweep.tasks import execute_batch, execute_job

__all__ = ["run_jobs", "SweepResult", "content", "read_records", "default_workers", "auto_batch_size"]

PROVENANCE = ("created", "timing_seconds", "versions", "precision_bits")


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def auto_batch_size(n_jobs: int, workers: int) -> int:
    """About four batches per worker (so a slow batch does not idle the others), at most 64 jobs each."""
    return max(1, min(64, math.ceil(n_jobs / (4 * max(1, workers)))))


def _untimed(value: Any, keys: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_untimed(v, keys) for v in value]
    return value


def content(record: dict[str, Any]) -> dict[str, Any]:
    """A record without its timing and provenance: what a serial and a parallel run must agree on."""
    from certdp.crosscheck.runner import POINT_TIMING_KEYS
    from certdp.sweep.tasks import CELL_TIMING_KEYS

    out = {k: v for k, v in record.items() if k != "timing"}
    result = out.get("result")
    if isinstance(result, dict):
        result = dict(result)
        if isinstance(result.get("certificate"), dict):
            result["certificate"] = {k: v for k, v in result["certificate"].items() if k not in PROVENANCE}
        if isinstance(result.get("point"), dict):
            result["point"] = {k: v for k, v in result["point"].items() if k not in POINT_TIMING_KEYS}
        if isinstance(result.get("cell"), dict):
            result["cell"] = _untimed(result["cell"], CELL_TIMING_KEYS)
        out["result"] = result
    return out


@dataclass
class SweepResult:
    records: list[dict[str, Any]]          # one per job, in job order
    executed: int = 0                      # jobs run by this call
    skipped: int = 0                       # jobs found finished in the output file (--resume)
    seconds: float = 0.0
    workers: int = 1
    backend: str = "serial"
    resubmitted: int = 0                   # batches submitted again after a worker died
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("status") != "ok"]


def read_records(path: str | Path, *, repair: bool = False) -> list[dict[str, Any]]:
    """Records of a JSONL output file; with ``repair`` a torn last line (interrupted write) is cut off."""
    file = Path(path)
    if not file.exists():
        return []
    data = file.read_bytes()
    records, good_end = [], 0
    for line in data.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break
        try:
            record = json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError):
            if repair:
                raise InputError("output", f"{path}: line {len(records) + 1} is not a JSON record") from None
            break
        if not isinstance(record, dict) or "id" not in record:
            raise InputError("output", f"{path}: line {len(records) + 1} is not a sweep record")
        records.append(record)
        good_end += len(line)
    if repair and good_end < len(data):
        with file.open("r+b") as handle:
            handle.truncate(good_end)
    return records


def _finished(record: dict[str, Any]) -> bool:
    return record.get("status") == "ok" or (record.get("status") == "error" and not record.get("retryable"))


def _batches(jobs: list[dict[str, Any]], size: int) -> list[list[dict[str, Any]]]:
    return [jobs[i:i + size] for i in range(0, len(jobs), size)]


def _died(batch: list[dict[str, Any]], attempts: int) -> list[dict[str, Any]]:
    return [{"id": j["id"], "job": j, "status": "error", "retryable": True,
             "error": f"worker process died while running this job's batch ({attempts} attempts)",
             "timing": {"seconds": 0.0, "worker": None}} for j in batch]


def _run_pool(batches, workers, deliver, max_attempts) -> int:
    """Process pool with resubmission; returns how many batches were resubmitted."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["certdp.sweep.tasks", "certdp.api", "scipy.optimize", "scipy.special"])
    pending = {i: b for i, b in enumerate(batches)}
    attempts = {i: 0 for i in pending}
    resubmitted = 0
    while pending:
        for i in pending:
            attempts[i] += 1
        broken = False
        pool = ProcessPoolExecutor(max_workers=min(workers, len(pending)), mp_context=context)
        try:
            futures = {pool.submit(execute_batch, json.dumps(b)): i for i, b in pending.items()}
            waiting = set(futures)
            while waiting and not broken:
                done, waiting = wait(waiting, return_when=FIRST_COMPLETED)
                for fut in done:
                    try:
                        text = fut.result()
                    except BrokenProcessPool:
                        broken = True
                        continue
                    i = futures[fut]
                    deliver(json.loads(text))
                    del pending[i]
            if broken:  # keep what finished before the pool broke
                for fut, i in futures.items():
                    if i in pending and fut.done() and not fut.cancelled() and fut.exception() is None:
                        deliver(json.loads(fut.result()))
                        del pending[i]
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        if broken:
            for i in list(pending):
                if attempts[i] >= max_attempts:
                    deliver(_died(pending.pop(i), attempts[i]))
            resubmitted += len(pending)
    return resubmitted


def _dask_client(address: str):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise InputError("dask", "dask.distributed is not installed (pip install 'certdp[dask]')") from None
    if address.startswith("local:"):
        try:
            n = int(address[6:])
        except ValueError:
            raise InputError("dask", f"expected local:N or a scheduler address, got {address!r}") from None
        if n < 1:
            raise InputError("dask", "local:N needs N >= 1")
        import logging

        cluster = LocalCluster(n_workers=n, processes=True, threads_per_worker=1, dashboard_address=None,
                               silence_logs=logging.ERROR)
        return Client(cluster), cluster, n
    if "://" not in address:
        raise InputError("dask", f"expected local:N or a scheduler address like tcp://host:8786, got {address!r}")
    client = Client(address, timeout=30)
    n = len(client.scheduler_info().get("workers", {})) or 1
    return client, None, n


def _run_dask(batches, address, deliver, max_attempts, client=None) -> int:
    from dask.distributed import as_completed

    own = client is None
    cluster = None
    if own:
        client, cluster, _ = _dask_client(address)
    try:
        futures = {}
        for i, batch in enumerate(batches):
            text = json.dumps(batch)
            key = f"certdp-batch-{i}-{os.urandom(6).hex()}"
            futures[client.submit(execute_batch, text, key=key, retries=max_attempts, pure=False)] = i
        for fut in as_completed(list(futures)):
            try:
                deliver(json.loads(fut.result()))
            except Exception as exc:  # noqa: BLE001 - KilledWorker after too many lost workers, ...
                deliver([{**r, "error": f"{r['error']}: {type(exc).__name__}"} for r in
                         _died(batches[futures[fut]], max_attempts)])
    finally:
        if own:
            client.close()
            if cluster is not None:
                cluster.close()
    return 0


def run_jobs(jobs: Iterable[dict[str, Any]], *, workers: int | None = None, dask: str | Any | None = None,
             batch_size: int | None = None, output: str | Path | None = None, resume: bool = False,
             on_record: Callable[[dict[str, Any]], None] | None = None, max_attempts: int = 3) -> SweepResult:
    """Run ``jobs`` (normalised specs, see :func:`certdp.sweep.spec.normalize_jobs`) and return every record.

    ``workers=1`` without ``dask`` runs in this process; ``workers=N`` on a
    local process pool (default: all cores); ``dask="local:N"`` on a new
    LocalCluster, ``dask="tcp://host:8786"`` on an existing scheduler, or
    ``dask=<distributed.Client>``. With ``output`` each record is appended
    to that JSONL file as it arrives; with ``resume`` the jobs already
    finished there are not run again.
    """
    from certdp.sweep.spec import normalize_jobs

    jobs = normalize_jobs(list(jobs))
    clock = time.perf_counter()
    done: dict[str, dict[str, Any]] = {}
    if output is not None and resume:
        wanted = {j["id"] for j in jobs}
        for record in read_records(output, repair=True):
            if record["id"] in wanted and _finished(record):
                done[record["id"]] = record
    elif output is not None:
        Path(output).write_text("", encoding="utf-8")
    skipped = len(done)
    todo = [j for j in jobs if j["id"] not in done]
    handle = Path(output).open("a", encoding="utf-8") if output is not None else None

    def deliver(records: list[dict[str, Any]]) -> None:
        for record in records:
            done[record["id"]] = record
            if handle is not None:
                handle.write(json.dumps(record, sort_keys=True) + "\n")
                handle.flush()
            if on_record is not None:
                on_record(record)

    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise InputError("workers", "must be at least 1")
    resubmitted, backend = 0, "serial"
    try:
        if dask is not None:
            backend = "dask"
            if isinstance(dask, str):
                client, cluster, n = _dask_client(dask)
            else:
                client, cluster, n = dask, None, len(dask.scheduler_info().get("workers", {})) or 1
            workers = n
            size = batch_size or auto_batch_size(len(todo), n)
            try:
                _run_dask(_batches(todo, size), None, deliver, max_attempts, client=client)
            finally:
                if isinstance(dask, str):
                    client.close()
                    if cluster is not None:
                        cluster.close()
        elif workers == 1 or len(todo) <= 1:
            workers = 1
            for job in todo:
                deliver([json.loads(json.dumps(execute_job(job)))])
        else:
            backend = "process-pool"
            size = batch_size or auto_batch_size(len(todo), workers)
            resubmitted = _run_pool(_batches(todo, size), workers, deliver, max_attempts)
    finally:
        if handle is not None:
            handle.close()
    return SweepResult(records=[done[j["id"]] for j in jobs if j["id"] in done], executed=len(todo),
                       skipped=skipped, seconds=time.perf_counter() - clock, workers=workers, backend=backend,
                       resubmitted=resubmitted)
