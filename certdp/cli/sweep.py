"""`certdp sweep SPEC.json`: a grid of certdp jobs on a local process pool or Dask, results as JSON lines."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click

from certdp.cli.common import console, print_json

__all__ = ["sweep_command"]


def _verdict(record) -> str | None:
    result = record.get("result") or {}
    if "certificate" in result:
        return result["certificate"].get("verdict")
    if "point" in result:
        return result["point"].get("verdict")
    if "cell" in result:  # table-mg-cell: REFUTED / NOT_REFUTED / ...; table-qg-cell has none
        return result["cell"].get("verdict")
    return None


@click.command("sweep")
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None,
              help="JSONL file the records are appended to as they finish (default: SPEC with .results.jsonl).")
@click.option("--workers", "-w", type=click.IntRange(min=1), default=None,
              help="Local worker processes (default: all cores; 1 runs in this process).")
@click.option("--dask", default=None, metavar="local:N|tcp://HOST:PORT",
              help="Run on Dask: a new LocalCluster of N worker processes, or an existing scheduler.")
@click.option("--batch-size", type=click.IntRange(min=1), default=None,
              help="Jobs per task (default: about 4 tasks per worker, at most 64 jobs each).")
@click.option("--resume", is_flag=True, help="Keep the finished records of --output and run only the rest.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
def sweep_command(spec, output, workers, dask, batch_size, resume, as_json):
    """Run the jobs of SPEC.json (calibrate / audit / profile / crosscheck / table cells); see docs/crosscheck.md.

    Exit code 0 when every job finished, 1 when some job failed (its record says why).
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn

    from certdp.numbers import InputError
    from certdp.sweep import load_spec, run_jobs

    jobs = load_spec(spec)
    out = Path(output) if output else Path(spec).with_suffix(".results.jsonl")
    if out.exists() and out.stat().st_size and not resume:
        raise InputError("output", f"{out} exists: pass --resume to continue it, or remove it")
    if resume and not out.exists():
        raise InputError("output", f"--resume: {out} does not exist")
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("eta"), TimeRemainingColumn(), transient=True, disable=as_json,
                  console=console) as bar:
        task = bar.add_task(f"sweep {Path(spec).name}", total=len(jobs))
        if resume:  # count the records already there
            from certdp.sweep import read_records

            ids = {j["id"] for j in jobs}
            bar.advance(task, len({r["id"] for r in read_records(out) if r["id"] in ids and r.get("status") == "ok"}))
        result = run_jobs(jobs, workers=workers, dask=dask, batch_size=batch_size, output=out, resume=resume,
                          on_record=lambda _r: bar.advance(task))
    rows: dict[str, Counter] = {}
    for record in result.records:
        counts = rows.setdefault(record["job"]["kind"], Counter())
        counts["jobs"] += 1
        counts[record["status"]] += 1
        verdict = _verdict(record)
        if verdict:
            counts[verdict] += 1
    busy = sum((r.get("timing") or {}).get("seconds") or 0.0 for r in result.records)
    summary = {
        "spec": str(spec), "output": str(out), "jobs": len(jobs), "executed": result.executed,
        "skipped": result.skipped, "errors": len(result.errors), "backend": result.backend,
        "workers": result.workers, "wall_seconds": result.seconds, "job_seconds": busy,
        "resubmitted_batches": result.resubmitted,
        "by_kind": {kind: dict(counts) for kind, counts in rows.items()},
    }
    if as_json:
        print_json(summary)
    else:
        from rich.table import Table

        table = Table(title=f"sweep {spec}: {len(jobs)} jobs, {result.executed} run, {result.skipped} resumed, "
                            f"{result.backend} x {result.workers}, {result.seconds:.1f} s")
        columns = ("jobs", "ok", "error", "VALID", "VIOLATED", "UNDECIDED", "N/A")
        if any("REFUTED" in counts or "NOT_REFUTED" in counts for counts in rows.values()):
            columns += ("REFUTED", "NOT_REFUTED", "IMPOSSIBLE")
        table.add_column("kind")
        for column in columns:
            table.add_column(column, justify="right")
        for kind, counts in rows.items():
            table.add_row(kind, *(str(counts.get(c, 0)) for c in columns))
        console.print(table)
        for record in result.errors[:5]:
            console.print(f"[red]error[/red] {record['id']}: {record.get('error')}")
        console.print(f"records in {out}")
    sys.exit(1 if result.errors else 0)
