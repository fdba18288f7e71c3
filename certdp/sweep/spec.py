"""SPEC.json: the jobs of a sweep, listed or as grids.

```json
{"jobs": [{"kind": "calibrate", "mechanism": "gaussian", "epsilon": "1", "delta": "1e-5"}],
 "grid": [{"kind": "audit", "mechanism": "gaussian", "value": ["3.5", "4"],
           "epsilon": "0.1:10:5", "delta": ["1e-5", "1e-6"], "params": {"sensitivity": ["1", "2"]}}]}
```

A grid block expands every list (and every ``start:stop:count`` string of
``epsilon``, ``delta``, ``value``: log-spaced, as in ``certdp crosscheck --grid``)
into the cartesian product. Numbers may be JSON numbers or strings; either way
the job keeps the literal text (``1e-5`` stays ``"1e-5"``, never a double).
Every job gets an ``id``: the one given, or a digest of its content, so the
same job has the same id in every run (what ``--resume`` keys on).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

from certdp.crosscheck.grid import parse_axis
from certdp.numbers import InputError
from certdp.sweep.tasks import KINDS

__all__ = ["load_spec", "normalize_jobs", "job_id", "MAX_JOBS"]

MAX_JOBS = 1_000_000
_REQUIRED = {
    "calibrate": ("mechanism", "epsilon", "delta"),
    "audit": ("mechanism", "epsilon", "delta"),
    "profile": ("mechanism", "value", "epsilon"),
    "crosscheck": ("library", "epsilon", "delta"),
    "crosscheck-dpsgd": ("library", "question", "sampling_rate", "steps", "delta"),
    "table-mg-cell": ("table", "epsilon", "delta", "printed"),
    "table-qg-cell": ("epsilon", "delta"),
    "sleep": ("seconds",),
}
_ALLOWED = {"id", "kind", "mechanism", "epsilon", "delta", "value", "params", "library", "question", "seconds",
            "sampling_rate", "sigma", "steps", "rtol", "table", "printed"}
_RANGED = ("epsilon", "delta", "value", "sampling_rate", "sigma", "steps")


def _error(reason: str) -> InputError:
    return InputError("spec", reason)


def job_id(job: dict[str, Any]) -> str:
    body = {k: v for k, v in job.items() if k != "id"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:20]


def _scalar(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise _error(f"{where}: expected a number or a string, got {json.dumps(value)[:40]}")
    return str(value)


def _check_job(job: Any, where: str) -> dict[str, Any]:
    if not isinstance(job, dict):
        raise _error(f"{where}: a job is a JSON object")
    unknown = sorted(set(job) - _ALLOWED)
    if unknown:
        raise _error(f"{where}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(_ALLOWED))})")
    kind = job.get("kind")
    if kind not in KINDS:
        raise _error(f"{where}: kind must be one of {', '.join(KINDS)} (got {kind!r})")
    missing = [k for k in _REQUIRED[kind] if k not in job]
    if missing:
        raise _error(f"{where}: a {kind} job needs {', '.join(missing)}")
    out: dict[str, Any] = {"kind": kind}
    for key, value in job.items():
        if key == "params":
            if not isinstance(value, dict):
                raise _error(f"{where}: params must be an object")
            out["params"] = {str(k): _scalar(v, f"{where}: params.{k}") for k, v in sorted(value.items())}
        elif key != "kind":
            out[key] = _scalar(value, f"{where}: {key}")
    out["id"] = out.get("id") or job_id(out)
    return out


def _expand(block: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(block, dict):
        raise _error(f"{where}: a grid block is a JSON object")
    axes: list[tuple[str, list[Any]]] = []
    base: dict[str, Any] = {}
    for key, value in block.items():
        if key == "params" and isinstance(value, dict):
            for name, v in value.items():
                axes.append((f"params.{name}", v if isinstance(v, list) else [v]))
        elif isinstance(value, list):
            axes.append((key, value))
        elif key in _RANGED and isinstance(value, str) and value.count(":") == 2:
            try:
                axes.append((key, parse_axis(key, value)))
            except InputError as exc:
                raise _error(f"{where}: {exc.reason}") from None
        else:
            base[key] = value
    for name, values in axes:
        if not values:
            raise _error(f"{where}: {name} is an empty list")
    jobs = []
    for combo in itertools.product(*(values for _, values in axes)):
        job = dict(base)
        for (name, _), value in zip(axes, combo):
            if name.startswith("params."):
                job.setdefault("params", {})[name[7:]] = value
            else:
                job[name] = value
        jobs.append(job)
        if len(jobs) > MAX_JOBS:
            raise _error(f"{where}: more than {MAX_JOBS} jobs")
    return jobs


def normalize_jobs(raw_jobs: list[Any], where: str = "jobs") -> list[dict[str, Any]]:
    """Check and canonicalise job dicts (exact strings, sorted params, ids); InputError ``spec: ...``."""
    jobs = [_check_job(job, f"{where}[{i}]") for i, job in enumerate(raw_jobs)]
    seen: dict[str, int] = {}
    for i, job in enumerate(jobs):
        if job["id"] in seen:
            raise _error(f"{where}[{i}] has the same id as {where}[{seen[job['id']]}] ({job['id']})")
        seen[job["id"]] = i
    return jobs


def load_spec(source: str | Path | dict[str, Any]) -> list[dict[str, Any]]:
    """The jobs of a spec file (or an already-parsed spec object)."""
    if isinstance(source, dict):
        data = source
    else:
        path = Path(source)
        if not path.is_file():
            raise InputError("SPEC", f"no such file: {source}")
        try:  # numbers keep their literal text: 1e-5 is one hundred-thousandth, not a double
            data = json.loads(path.read_text(encoding="utf-8"), parse_float=str, parse_int=str)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise _error(f"{source}: not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise _error("the spec is a JSON object with 'jobs' and/or 'grid'")
    unknown = sorted(set(data) - {"jobs", "grid", "description"})
    if unknown:
        raise _error(f"unknown top-level key(s) {', '.join(unknown)} (use jobs, grid, description)")
    raw: list[Any] = []
    listed = data.get("jobs", [])
    if not isinstance(listed, list):
        raise _error("'jobs' must be a list")
    raw.extend(listed)
    blocks = data.get("grid", [])
    blocks = [blocks] if isinstance(blocks, dict) else blocks
    if not isinstance(blocks, list):
        raise _error("'grid' must be an object or a list of objects")
    for i, block in enumerate(blocks):
        raw.extend(_expand(block, f"grid[{i}]"))
    if not raw:
        raise _error("no jobs (give 'jobs' or 'grid')")
    return normalize_jobs(raw)
