"""``crosscheck_library``: one library question over a grid, run on the sweep executor."""

from __future__ import annotations

from typing import Any, Callable

from certdp.crosscheck import get_adapter
from certdp.crosscheck.runner import crosscheck_jobs, summarize

__all__ = ["crosscheck_library", "question_axes"]


def question_axes(returns: str) -> tuple[tuple[str, ...], str]:
    """(the grid axes, the default grid) of a question that answers ``returns``."""
    from certdp.crosscheck.grid import DEFAULT_DPSGD_GRID, DEFAULT_GRID, DPSGD_AXES

    if returns in DPSGD_AXES:
        return DPSGD_AXES[returns], DEFAULT_DPSGD_GRID[returns]
    return ("epsilon", "delta"), DEFAULT_GRID


def crosscheck_library(library: str, question: str | None, grid: dict[str, list[str]], *, workers: int = 1,
                       dask: str | None = None, on_record: Callable[[dict[str, Any]], None] | None = None,
                       rtol: str | None = None) -> dict[str, Any]:
    """``{"library", "question", ..., "points": [...], "summary": {...}}`` (PeerMissing when not installed).

    ``grid`` has the axes of the question (:func:`question_axes`); ``rtol`` is the relative width of
    certdp's epsilon bracket for DP-SGD questions (default :data:`~certdp.crosscheck.dpsgd.DEFAULT_DPSGD_RTOL`).
    """
    from certdp import __version__
    from certdp.crosscheck.dpsgd import DEFAULT_DPSGD_RTOL, DPSGD_RETURNS, dpsgd_jobs
    from certdp.numbers import InputError
    from certdp.sweep import run_jobs

    adapter = get_adapter(library)
    adapter.require()
    q = adapter.question(question)
    dpsgd = q.returns in DPSGD_RETURNS
    jobs = dpsgd_jobs(adapter.library, q.name, grid, rtol or DEFAULT_DPSGD_RTOL) if dpsgd else \
        crosscheck_jobs(adapter.library, q.name, grid)
    result = run_jobs(jobs, workers=workers, dask=dask, on_record=on_record)
    points = []
    for record in result.records:
        if record["status"] != "ok":
            raise InputError("crosscheck", f"job {record['id']} failed: {record.get('error')}")
        points.append(record["result"]["point"])
    return {
        "library": adapter.library, "library_version": adapter.version(), "question": q.name,
        "asks": q.asks, "call": q.call, "mechanism": q.mechanism, "returns": q.returns,
        "parameters": dict(q.fixed), "certdp_version": __version__,
        "grid": dict(grid) if dpsgd else {"epsilon": grid["epsilon"], "delta": ["0"] if q.pure else grid["delta"]},
        "rtol": (rtol or DEFAULT_DPSGD_RTOL) if dpsgd else None,
        "points": points, "summary": summarize(points),
        "run": {"backend": result.backend, "workers": result.workers, "seconds": result.seconds},
    }
