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
              help="Log-spaced grid, start:stop:count per axis (default eps=0.01:50:12,delta=1e-12:0.1:8; "
                   "DP-SGD questions: q, sigma or eps, k, delta, default "
                   "q=0.001:0.1:3,sigma=0.8:2:3,k=10:1000:3,delta=1e-5).")
@click.option("--rtol", default=None, metavar="RTOL",
              help="DP-SGD questions: relative width of certdp's certified epsilon bracket (default 0.02; "
                   "refined 8x once when a claim falls inside it).")
@click.option("--report", type=click.Path(dir_okay=False), default=None,
              help="Write a self-contained HTML report (summary, heatmap, every point).")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="Write the heatmap as a PNG.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Local worker processes for the grid cells.")
@_dask_option
@click.option("--no-minimum", is_flag=True, help="CSV mode: only audit; skip certifying the minimal parameter.")
@click.option("--list", "list_questions", is_flag=True, help="List the adapters and what each asks, then exit.")
@json_option
def crosscheck_command(target, file, question, grid, rtol, report, plot, workers, dask, no_minimum, list_questions,
                       as_json):
    """Referee a DP library: VALID / VIOLATED, proven, for each of its answers over a grid.

    \b
    certdp crosscheck diffprivlib --grid eps=0.1:20:6,delta=1e-9:1e-3:4 --report r.html
    certdp crosscheck opacus -m dpsgd-rdp --grid q=0.01,sigma=0.8:2:3,k=10:1000:3,delta=1e-5
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
    sys.exit(_library(target, question, grid, rtol, report, plot, workers, dask, as_json))


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


def _library(library, question, grid_text, rtol, report_path, plot, workers, dask, as_json) -> int:
    from pathlib import Path

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    import math

    from certdp.crosscheck import get_adapter
    from certdp.crosscheck.dpsgd import DPSGD_RETURNS
    from certdp.crosscheck.grid import parse_grid
    from certdp.crosscheck.library import crosscheck_library, question_axes
    from certdp.crosscheck.report import heatmap_png, html_report
    from certdp.numbers import InputError

    adapter = get_adapter(library)
    q = adapter.question(question)
    axes, default = question_axes(q.returns)
    grid = parse_grid(grid_text if grid_text is not None else default, axes, default)
    if rtol is not None:
        from fractions import Fraction

        if q.returns not in DPSGD_RETURNS:
            raise InputError("rtol", "applies to the DP-SGD questions only (see --list)")
        try:
            ok = 0 < Fraction(rtol) < 1
        except (ValueError, ZeroDivisionError):
            ok = False
        if not ok:
            raise InputError("rtol", f"must be a number in (0, 1) (got {rtol!r})")
    adapter.require()  # after the inputs: a bad grid is reported as such with or without the library
    total = math.prod(len(grid[a]) for a in axes) if q.returns in DPSGD_RETURNS else \
        len(grid["epsilon"]) * (1 if q.pure else len(grid["delta"]))
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  transient=True, disable=as_json, console=console) as bar:
        task = bar.add_task(f"{adapter.library} {q.name}", total=total)
        result = crosscheck_library(library, question, grid, workers=workers, dask=dask,
                                    on_record=lambda _r: bar.advance(task), rtol=rtol)
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
    dpsgd = result["returns"] in ("dpsgd-epsilon", "dpsgd-sigma")
    table = Table(title=f"{result['library']} {result['library_version']}: {result['asks']}")
    grid_key = "sigma" if result["returns"] == "dpsgd-epsilon" else "epsilon"
    columns = ("q", grid_key, "k", "delta", "library " + ("epsilon" if grid_key == "sigma" else "sigma"),
               "certdp epsilon", "verdict", "delta at eps (upper)", "vs certdp upper") if dpsgd else \
        ("epsilon", "delta", "library", "certdp minimum", "verdict", "true delta (upper)", "excess")
    for column in columns:
        table.add_column(column)
    for p in result["points"]:
        style = {"VALID": "green", "VIOLATED": "red"}.get(p["verdict"], "yellow")
        upper = "-" if not p["delta_enclosure"] else \
            exact_str(Fraction(round_decimal(Fraction(p["delta_enclosure"][1]), 6, "up")))
        answer = p["library_value"] or f"[dim]{(p['note'] or '-')[:40]}[/dim]"
        tail = (f"[{style}]{p['verdict']}[/{style}]", upper,
                "-" if p["excess_percent"] is None else f"{p['excess_percent']:+.4g}%")
        if dpsgd:
            bracket = "-" if not p["epsilon_enclosure"] else \
                f"[{float(p['epsilon_enclosure'][0]):.6g}, {float(p['epsilon_enclosure'][1]):.6g}]"
            table.add_row(p["sampling_rate"], p[grid_key] or "-", p["steps"], p["delta"],
                          answer if not p["library_value"] else f"{float(p['library_value']):.8g}", bracket, *tail)
        else:
            table.add_row(p["epsilon"], p["delta"], answer, p["certified_minimum"] or "-", *tail)
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
        + ("(accountant)" if dpsgd else f"(+ audit {ms(summary['median_audit_seconds'])})"))


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
