"""``crosscheck_library``: one library question over a grid, run on the sweep executor."""

from __future__ import annotations

from typing import Any, Callable

from certdp.crosscheck import get_adapter
from certdp.crosscheck.runner import crosscheck_jobs, summarize

__all__ = ["crosscheck_library"]


def crosscheck_library(library: str, question: str | None, grid: dict[str, list[str]], *, workers: int = 1,
                       dask: str | None = None, on_record: Callable[[dict[str, Any]], None] | None = None,
                       ) -> dict[str, Any]:
    """``{"library", "question", ..., "points": [...], "summary": {...}}`` (PeerMissing when not installed)."""
    from certdp import __version__
    from certdp.numbers import InputError
    from certdp.sweep import run_jobs

    adapter = get_adapter(library)
    adapter.require()
    q = adapter.question(question)
    result = run_jobs(crosscheck_jobs(adapter.library, q.name, grid), workers=workers, dask=dask,
                      on_record=on_record)
    points = []
    for record in result.records:
        if record["status"] != "ok":
            raise InputError("crosscheck", f"job {record['id']} failed: {record.get('error')}")
        points.append(record["result"]["point"])
    return {
        "library": adapter.library, "library_version": adapter.version(), "question": q.name,
        "asks": q.asks, "call": q.call, "mechanism": q.mechanism, "returns": q.returns,
        "parameters": dict(q.fixed), "certdp_version": __version__,
        "grid": {"epsilon": grid["epsilon"], "delta": ["0"] if q.pure else grid["delta"]},
        "points": points, "summary": summarize(points),
        "run": {"backend": result.backend, "workers": result.workers, "seconds": result.seconds},
    }
