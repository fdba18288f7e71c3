"""What a sweep worker runs: JSON text in, JSON text out.

A task is a *batch* of job specs serialised as JSON; the worker returns the
records as JSON text, so nothing that crosses a process boundary is an Arb
ball (python-flint's ``arb`` does not pickle) and a record computed on a Dask
worker is the same text as one computed in-process.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

__all__ = ["execute_job", "execute_batch", "KINDS"]

KINDS = ("calibrate", "audit", "profile", "crosscheck", "crosscheck-dpsgd", "table-mg-cell", "table-qg-cell", "sleep")

#: keys of a table cell (at any depth) that are timings, not content (see :func:`certdp.sweep.content`)
CELL_TIMING_KEYS = ("seconds", "audit_seconds")


def _certificate_json(cert) -> dict[str, Any]:
    return json.loads(cert.to_json())


def _run(job: dict[str, Any]) -> dict[str, Any]:
    kind = job["kind"]
    params = dict(job.get("params") or {})
    if kind == "calibrate":
        from certdp.api import calibrate

        return {"certificate": _certificate_json(
            calibrate(job["mechanism"], epsilon=job["epsilon"], delta=job["delta"], **params))}
    if kind == "audit":
        from certdp.api import audit

        return {"certificate": _certificate_json(
            audit(job["mechanism"], value=job.get("value"), epsilon=job["epsilon"], delta=job["delta"], **params))}
    if kind == "profile":
        from certdp.api import profile

        return {"certificate": _certificate_json(
            profile(job["mechanism"], value=job["value"], epsilon=job["epsilon"], **params))}
    if kind == "crosscheck":
        from certdp.crosscheck.runner import check_point

        return {"point": check_point(job["library"], job.get("question"), job["epsilon"], job["delta"])}
    if kind == "crosscheck-dpsgd":
        from certdp.crosscheck.dpsgd import DEFAULT_DPSGD_RTOL, check_dpsgd_point

        return {"point": check_dpsgd_point(job["library"], job["question"], job["sampling_rate"], job["steps"],
                                           job["delta"], sigma=job.get("sigma"), epsilon=job.get("epsilon"),
                                           rtol=job.get("rtol", DEFAULT_DPSGD_RTOL))}
    if kind == "table-mg-cell":  # one printed cell of seed 000 Tables 4-6 under the refutation rule
        from certdp.workflows.mixtures.table_audit import run_task

        task = {"table": job["table"], "epsilon": job["epsilon"], "delta": job["delta"], "printed": job["printed"],
                "first_k": int(params["first_k"]) if "first_k" in params else None}
        return {"cell": run_task(task, float(params.get("timeout", "60")))}
    if kind == "table-qg-cell":  # one cell of seed 000 Tables 5-6 (QG vs analytic Gaussian), certified
        from dataclasses import asdict

        from certdp.workflows.mixtures.tables_qg import qg_cell

        cell = asdict(qg_cell(job["delta"], job["epsilon"], **params))
        return {"cell": cell}
    if kind == "sleep":  # an empty job of known length: measures the executor itself (benchmarks, tests)
        seconds = float(job.get("seconds", "0"))
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass
        return {"slept": job.get("seconds", "0")}
    raise ValueError(f"unknown job kind {kind!r}")


def execute_job(job: dict[str, Any]) -> dict[str, Any]:
    """One record: ``{"id", "job", "status": "ok"|"error", "result"|"error", "timing"}``.

    Bad input and undecided questions are results (``status: error`` with the
    message), not crashes: they are deterministic, so a resumed sweep does not
    redo them. ``timing`` (seconds, worker pid) is provenance, not content.
    """
    from certdp.numbers import InputError, UndecidedError

    start = time.perf_counter()
    record: dict[str, Any] = {"id": job["id"], "job": job}
    try:
        record["result"] = _run(job)
        record["status"] = "ok"
    except (InputError, UndecidedError, ValueError, ArithmeticError) as exc:
        record["status"] = "error"
        record["error"] = f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - a bug in one job must not sink the batch
        record["status"] = "error"
        record["error"] = f"internal {type(exc).__name__}: {exc}"
    record["timing"] = {"seconds": time.perf_counter() - start, "worker": os.getpid()}
    return record


def execute_batch(text: str) -> str:
    """Run a JSON list of jobs; return the JSON list of their records."""
    return json.dumps([execute_job(job) for job in json.loads(text)])
