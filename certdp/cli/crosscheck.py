"""`certdp crosscheck LIBRARY` (an adapter calls the library over a grid) or `certdp crosscheck MECH FILE.csv`."""

from __future__ import annotations

import sys
from fractions import Fraction

import click

from certdp.cli.common import console, json_option, print_json

__all__ = ["crosscheck_command"]


def _dask_option(f):
    return click.option("--dask", default=None, metavar="local:N|tcp://HOST:PORT",
                        help="Run the cells on Dask: a new LocalCluster of N processes, or an existing scheduler.")(f)


@click.command("crosscheck")
@click.argument("target", metavar="LIBRARY|MECHANISM", required=False)
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--mechanism", "-m", "question", default=None, metavar="M",
              help="Which of the library's calibrations to ask (default: its Gaussian; see --list).")
@click.option("--grid", default=None, metavar="eps=A:B:N,delta=C:D:M",
              help="Log-spaced grid, start:stop:count per axis (default eps=0.01:50:12,delta=1e-12:0.1:8).")
@click.option("--report", type=click.Path(dir_okay=False), default=None,
              help="Write a self-contained HTML report (summary, heatmap, every point).")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="Write the heatmap as a PNG.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Local worker processes for the grid cells.")
@_dask_option
@click.option("--no-minimum", is_flag=True, help="CSV mode: only audit; skip certifying the minimal parameter.")
@click.option("--list", "list_questions", is_flag=True, help="List the adapters and what each asks, then exit.")
@json_option
def crosscheck_command(target, file, question, grid, report, plot, workers, dask, no_minimum, list_questions,
                       as_json):
    """Referee a DP library: VALID / VIOLATED, proven, for each of its answers over a grid.

    \b
    certdp crosscheck diffprivlib --grid eps=0.1:20:6,delta=1e-9:1e-3:4 --report r.html
    certdp crosscheck gaussian grid.csv   (CSV columns epsilon, delta, sigma[, sensitivity...])

    Exit code 1 when some answer is VIOLATED, 3 when some is UNDECIDED.
    """
    from certdp.crosscheck import ADAPTERS, get_adapter, is_library

    if list_questions:
        _list(ADAPTERS, get_adapter, as_json)
        sys.exit(0)
    if target is None:
        raise click.UsageError("Missing argument 'LIBRARY|MECHANISM' (or pass --list).")
    if file is not None or not is_library(target):
        if file is None:
            from certdp.numbers import InputError

            raise InputError("LIBRARY", f"no adapter for {target!r} (adapters: {', '.join(ADAPTERS)}); "
                                        f"for a mechanism, give a CSV file: certdp crosscheck {target} grid.csv")
        sys.exit(_csv(target, file, no_minimum, as_json))
    sys.exit(_library(target, question, grid, report, plot, workers, dask, as_json))


def _list(adapters, get_adapter, as_json) -> None:
    rows = []
    for name in adapters:
        adapter = get_adapter(name)
        for q in adapter.questions:
            rows.append({"library": name, "installed": adapter.available(), "mechanism": q.name,
                         "certdp_mechanism": q.mechanism, "asks": q.asks, "call": q.call})
    if as_json:
        print_json(rows)
        return
    from rich.table import Table

    table = Table(title="crosscheck adapters")
    for column in ("library", "installed", "--mechanism", "asks"):
        table.add_column(column)
    for r in rows:
        table.add_row(r["library"], "yes" if r["installed"] else "[yellow]no[/yellow]", r["mechanism"], r["asks"])
    console.print(table)


def _library(library, question, grid_text, report_path, plot, workers, dask, as_json) -> int:
    from pathlib import Path

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from certdp.crosscheck import get_adapter
    from certdp.crosscheck.grid import DEFAULT_GRID, parse_grid
    from certdp.crosscheck.library import crosscheck_library
    from certdp.crosscheck.report import heatmap_png, html_report

    grid = parse_grid(grid_text if grid_text is not None else DEFAULT_GRID)
    adapter = get_adapter(library)
    adapter.require()
    q = adapter.question(question)
    total = len(grid["epsilon"]) * (1 if q.pure else len(grid["delta"]))
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  transient=True, disable=as_json, console=console) as bar:
        task = bar.add_task(f"{adapter.library} {q.name}", total=total)
        result = crosscheck_library(library, question, grid, workers=workers, dask=dask,
                                    on_record=lambda _r: bar.advance(task))
    summary = result["summary"]
    if report_path:
        Path(report_path).write_text(html_report(result), encoding="utf-8")
    if plot:
        Path(plot).write_bytes(heatmap_png(result["points"], f"{result['library']}: {result['question']}"))
    if as_json:
        print_json(result)
    else:
        _print_points(result)
        for path, what in ((report_path, "report"), (plot, "heatmap")):
            if path:
                console.print(f"{what} written to {path}")
    return 1 if summary["violated"] else (3 if summary["undecided"] else 0)


def _print_points(result) -> None:
    from rich.table import Table

    from certdp.numbers import exact_str, round_decimal

    summary = result["summary"]
    table = Table(title=f"{result['library']} {result['library_version']}: {result['asks']}")
    for column in ("epsilon", "delta", "library", "certdp minimum", "verdict", "true delta (upper)", "excess"):
        table.add_column(column)
    for p in result["points"]:
        style = {"VALID": "green", "VIOLATED": "red"}.get(p["verdict"], "yellow")
        upper = "-" if not p["delta_enclosure"] else \
            exact_str(Fraction(round_decimal(Fraction(p["delta_enclosure"][1]), 6, "up")))
        table.add_row(p["epsilon"], p["delta"], p["library_value"] or f"[dim]{(p['note'] or '-')[:40]}[/dim]",
                      p["certified_minimum"] or "-", f"[{style}]{p['verdict']}[/{style}]", upper,
                      "-" if p["excess_percent"] is None else f"{p['excess_percent']:+.4g}%")
    console.print(table)

    def ms(x):
        return "-" if x is None else f"{1000 * x:.3g} ms"

    worst = summary["worst_excess_percent"]
    console.print(
        f"{summary['tried']} answers tried of {summary['points']} points: "
        f"[red]{summary['violated']} VIOLATED[/red], {summary['valid']} VALID, {summary['undecided']} UNDECIDED, "
        f"{summary['not_applicable']} not answered; worst excess "
        f"{'-' if worst is None else f'{worst:+.4g}%'}; median time per call: library "
        f"{ms(summary['median_library_seconds'])}, certdp {ms(summary['median_certdp_seconds'])} "
        f"(+ audit {ms(summary['median_audit_seconds'])})")


def _csv(mechanism, file, no_minimum, as_json) -> int:
    from rich.progress import Progress

    from certdp.crosscheck.csv_grid import crosscheck_rows, read_grid_csv
    from certdp.mechanisms import get_mechanism
    from certdp.numbers import exact_str, round_decimal

    cls = get_mechanism(mechanism)
    rows = read_grid_csv(file, cls.parameter)
    with Progress(transient=True, disable=as_json or len(rows) < 20) as bar:
        task = bar.add_task(f"certifying {len(rows)} rows", total=len(rows))
        results = crosscheck_rows(mechanism, rows, with_minimum=not no_minimum,
                                  progress=lambda: bar.advance(task))
    violated = sum(r.verdict == "VIOLATED" for r in results)
    undecided = sum(r.verdict == "UNDECIDED" for r in results)
    if as_json:
        print_json({"mechanism": cls.name, "rows": [r.to_dict() for r in results],
                    "violated": violated, "undecided": undecided})
    else:
        from rich.table import Table

        table = Table(title=f"crosscheck of {len(results)} {cls.name} calibrations")
        for column in ("epsilon", "delta", cls.parameter, "verdict", "true delta (upper)", "certified minimum",
                       "excess"):
            table.add_column(column)
        for r in results:
            style = {"VALID": "green", "VIOLATED": "red"}.get(r.verdict, "yellow")
            upper = exact_str(Fraction(round_decimal(Fraction(r.delta_enclosure[1]), 6, "up")))
            table.add_row(r.epsilon, r.delta, r.value, f"[{style}]{r.verdict}[/{style}]", upper,
                          r.certified_minimum or "-",
                          "-" if r.relative_excess is None else f"{100 * r.relative_excess:+.4f}%")
        console.print(table)
        console.print(f"{violated} VIOLATED, {undecided} UNDECIDED, {len(results) - violated - undecided} VALID")
    return 1 if violated else (3 if undecided else 0)
