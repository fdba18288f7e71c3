"""CLI for the generalized Gaussian mechanism: calibrate / profile / shape search (seed 004)."""

from __future__ import annotations

import math
import sys
from contextlib import contextmanager

import click

from certdp.cli.basic import profile_command
from certdp.cli.common import (
    console, delta_option, emit_certificate, epsilon_option, json_option, output_option, print_json,
    rtol_option,
)
from certdp.cli.groups import calibrate, cli, profile
from certdp.cli.plots import agg_pyplot
from certdp.cli.validate import (
    MAX_GRID_POINTS, OUTPUT_FILE, PLOT_FILE, SENSITIVITY_VECTOR, SHAPE, Count, GridSpec, Real,
)
from certdp.numbers import InputError


def _shape_option(f):
    return click.option("--shape", "-p", required=True, type=SHAPE,
                        help="Shape p in [1, inf] (1 Laplace, 2 Gaussian, inf uniform); exact decimal.")(f)


def _ggm_sensitivity_option(f):
    return click.option("--sensitivity", "-s", default="1", show_default=True, type=SENSITIVITY_VECTOR,
                        help="Coordinate-wise sensitivity: a number, or a comma-separated vector.")(f)


def _is_vector(sensitivity: str) -> bool:
    return len([v for v in sensitivity.split(",") if v.strip()]) > 1


# ---------------------------------------------------------------- calibrate
@calibrate.command("ggm")
@_shape_option
@epsilon_option
@delta_option
@_ggm_sensitivity_option
@rtol_option
@json_option
@output_option
def calibrate_ggm(shape, epsilon, delta, sensitivity, rtol, as_json, output):
    """Minimal scale b(p) of the generalized Gaussian mechanism, certified.

    A scalar sensitivity uses the exact 1-D characterisation (seed 004 Thm 3.2);
    a vector with p not in {2, inf} uses the quantile coupling (exact integers, delta down to
    ~1e-30) or the deterministic product engine as its fallback (bracket width ~2e-3 to 5e-3, no
    Monte Carlo; the certificate names the engine). For a vector --rtol is claimed only when given.
    """
    if _is_vector(sensitivity):
        from certdp.workflows.ggm_vector import calibrate_sensitivity_vector

        source = click.get_current_context().get_parameter_source("rtol")
        explicit = source is not None and source.name != "DEFAULT"
        cert = calibrate_sensitivity_vector(shape, epsilon, delta, sensitivity, rtol=rtol if explicit else None)
    else:
        from certdp.workflows.calibrate import calibrate as calibrate_workflow

        cert = calibrate_workflow("ggm", epsilon=epsilon, delta=delta, rtol=rtol, shape=shape,
                                  sensitivity=sensitivity)
    sys.exit(emit_certificate(cert, as_json, output))


# ---------------------------------------------------------------- profile
profile.command("ggm")(_shape_option(profile_command("ggm", "--scale", "scale")))


# ---------------------------------------------------------------- shape search
@cli.group()
def shape() -> None:
    """Certified choice of a noise shape (generalized Gaussian p) for a utility criterion."""


def _range(text: str, name: str) -> list[float]:
    """"a:b:n" -> n points from a to b (inclusive), or a comma list."""
    try:
        if ":" in text:
            a, b, n = text.split(":")
            k = int(n)
            if k < 1:
                raise ValueError
            return [float(a) + (float(b) - float(a)) * i / max(k - 1, 1) for i in range(k)]
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise InputError(name, f"expected START:STOP:N or a comma list, got {text!r}") from None


@shape.command("ggm")
@click.option("--epsilon", "-e", required=True, type=GridSpec(0, low_open=True, metavar="EPS"),
              help="epsilon > 0 (with --grid: START:STOP:N or a comma list).")
@click.option("--delta", "-d", required=True, type=GridSpec(0, 1, low_open=True, high_open=True, metavar="DELTA"),
              help="delta in (0, 1) (with --grid: START:STOP:N or a comma list).")
@_ggm_sensitivity_option
@click.option("--moment", "-m", default=2, show_default=True, type=Count(1, 100),
              help="Absolute moment order m (an integer in [1, 100]).")
@click.option("--tolerance", "-t", default=None,
              type=Real(0, 1, low_open=True, high_open=True, metavar="ETA"),
              help="Certified gap eta in (0, 1) on log L_m [default: 1e-4; 0.02 for a sensitivity vector].")
@click.option("--p-max", default="1001", show_default=True, type=Real(1, 10**6, low_open=True, metavar="P_MAX"),
              help="Search p in [1, P_MAX] and p = inf (P_MAX in (1, 1e6]).")
@click.option("--grid", is_flag=True, help="Fast float64 two-stage grid over (eps, delta) ranges (ESTIMATE).")
@click.option("--plot", type=PLOT_FILE, default=None,
              help="PNG: gap/best-p trace (certified search) or p-hat/improvement heatmaps (--grid).")
@click.option("--output", "-o", type=OUTPUT_FILE, default=None,
              help="Sensitivity vector: write the shape-search certificate JSON to this file (certdp verify FILE).")
@json_option
def shape_ggm(epsilon, delta, sensitivity, moment, tolerance, p_max, grid, plot, output, as_json):
    """Shape p minimising E|X|^m = b(p)^m M_m(p) at (epsilon, delta), with certified bounds."""
    if _is_vector(sensitivity) and not grid:
        from certdp.workflows.ggm_vector import VECTOR_TOLERANCE

        _vector_shape(epsilon, delta, sensitivity, moment, p_max, tolerance or VECTOR_TOLERANCE, as_json, output)
        return
    if output:
        raise InputError("output", "a shape-search certificate is written for a sensitivity vector only")
    tolerance = tolerance or "1e-4"
    if _is_vector(sensitivity):
        raise InputError("sensitivity", "the float grid (--grid) is implemented for scalar sensitivity")
    if grid:
        _grid(epsilon, delta, sensitivity, moment, plot, as_json)
        return
    from certdp.workflows.ggm_shape_search import certified_shape_search

    with _gap_progress("certified shape search", float(tolerance), as_json, "{:.2e}") as progress:
        result = certified_shape_search(epsilon, delta, sensitivity, moment=moment, tolerance=tolerance,
                                        p_max=p_max, progress=progress)
    data = result.to_dict()
    if as_json:
        print_json(data)
    else:
        from rich.table import Table

        t = Table(title=f"certdp certified shape search: ggm, E|X|^{moment}", show_header=False,
                  title_justify="left")
        t.add_column(style="bold")
        t.add_column()
        t.add_row("inputs", f"epsilon = {data['inputs']['epsilon']}, delta = {data['inputs']['delta']}, "
                            f"sensitivity = {data['inputs']['sensitivity']}, eta = {data['inputs']['tolerance']}")
        t.add_row("selected shape p-hat", f"{float(result.p_hat):.6g}  ({data['shape']})")
        t.add_row("scale (certified safe)", f"{float(result.scale):.10g}")
        t.add_row(f"L{moment}(p-hat, scale) <=", data["moment_upper"])
        t.add_row("min log L over p in", f"[{data['objective_bounds'][0]}, {data['objective_bounds'][1]}]  "
                                          f"(gap {result.gap:.3g})")
        for key, v in result.benchmarks.items():
            t.add_row(f"benchmark p = {key}", f"b = {v['scale']}, L{moment} in [{v[f'L{moment}_bounds'][0]}, "
                                              f"{v[f'L{moment}_bounds'][1]}]")
        t.add_row("improvement >=", f"{result.improvement_lower:.2f} %")
        t.add_row("work", f"{result.iterations} intervals, {result.evaluations} Arb profile evaluations, "
                          f"{result.seconds:.2f} s")
        t.add_row("guarantee", data["guarantee"])
        console.print(t)
    if plot:
        _plot_trace(result, plot)
        if not as_json:
            console.print(f"plot written to {plot}")


@contextmanager
def _gap_progress(title: str, eta: float, as_json: bool, gap_format: str):
    """A rich progress bar of a branch and bound's certified gap (log scale from 10 down to ``eta``);
    yields the ``progress(gap, _)`` callback the searches take."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                  TextColumn("gap {task.fields[gap]}"), TimeElapsedColumn(),
                  console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task(title, total=1.0, gap="-")

        def progress(gap: float, _other) -> None:
            frac = 0.0 if not math.isfinite(gap) or gap <= 0 else min(1.0, max(0.0, math.log(max(gap, eta) / 10)
                                                                             / math.log(eta / 10)))
            bar.update(task, completed=frac, gap=gap_format.format(gap))

        yield progress


def _remaining_budget(default: float = 600.0) -> float:
    """Seconds left on the command's --budget alarm (certdp.cli.validate), minus a margin, so the search
    stops itself between intervals and reports the certified gap it reached (UNDECIDED)."""
    import signal

    left = signal.getitimer(signal.ITIMER_REAL)[0] if hasattr(signal, "getitimer") else 0.0
    return max(0.9 * left - 2.0, 0.5) if left > 0 else default


def _vector_shape(epsilon, delta, sensitivity, moment, p_max, tolerance, as_json, output=None) -> None:
    """Sensitivity vector: certified branch and bound (quantile coupling), certified scales and gain bound."""
    from certdp.workflows.ggm_vector import vector_shape_search

    with _gap_progress("certified shape search (sensitivity vector)", float(tolerance), as_json,
                       "{:.3g}") as progress:
        data = vector_shape_search(epsilon, delta, sensitivity, moment=moment, p_max=min(float(p_max), 8.0),
                                   tolerance=tolerance, budget_seconds=_remaining_budget(), progress=progress)
    data.pop("history", None)
    if output:
        import json
        from pathlib import Path

        Path(output).write_text(json.dumps(data["certificate"], indent=2, ensure_ascii=True) + "\n", encoding="utf-8")
    if as_json:
        print_json(data)
        return
    from rich.table import Table

    t = Table(title=f"certdp certified shape search: ggm, sensitivity ({data['inputs']['sensitivity']}), "
                    f"E|X_i|^{moment}", show_header=False, title_justify="left")
    t.add_column(style="bold")
    t.add_column()
    t.add_row("selected shape p-hat", f"{data['shape']}  (float seed {data['shape_seed']})")
    t.add_row("scale (certified bracket)", f"[{data['scale_interval'][0][:14]}, {data['scale_interval'][1][:14]}]")
    t.add_row(f"L{moment} per coordinate <=", data[f"L{moment}_upper_per_coordinate"])
    t.add_row(f"min log L{moment} over p in", f"[{data['objective_bounds'][0]}, {data['objective_bounds'][1]}]  "
                                              f"(certified gap {data['certified_gap']:.3g})")
    for key, v in data["benchmarks"].items():
        t.add_row(f"benchmark p = {key}", f"L{moment} in [{v[f'L{moment}_bounds'][0]}, {v[f'L{moment}_bounds'][1]}]")
    t.add_row("improvement >= (certified)", f"{data['improvement_lower_percent']:.2f} %")
    t.add_row("work", f"{data['intervals']} intervals, {data['coupled_evaluations']} coupled evaluations")
    t.add_row("guarantee", data["guarantee"])
    t.add_row("certificate", f"written to {output} (re-check: certdp verify {output})" if output
              else "shape-search certificate in --json output, or --output FILE")
    t.add_row("time", f"{data['timing_seconds']:.1f} s")
    console.print(t)


def _nullcontext():
    from contextlib import nullcontext

    return nullcontext()


def _plot_trace(result, path: str) -> None:
    plt = agg_pyplot()

    it = [h[0] for h in result.history]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.5))
    a1.semilogy(it, [h[1] for h in result.history])
    a1.axhline(float(result.tolerance), ls="--", color="gray")
    a1.set_xlabel("iteration")
    a1.set_ylabel("certified gap U* - L*")
    a2.plot(it, [h[2] for h in result.history])
    a2.set_xlabel("iteration")
    a2.set_ylabel("best p")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _grid(epsilon: str, delta: str, sensitivity: str, moment: int, plot: str | None, as_json: bool) -> None:
    from rich.progress import Progress

    from certdp.workflows.ggm_shape_search import grid_shape_search

    eps_list = _range(epsilon, "epsilon")
    delta_list = _range(delta, "delta")
    if len(eps_list) * len(delta_list) > MAX_GRID_POINTS:
        raise InputError("epsilon", f"the grid has {len(eps_list)} x {len(delta_list)} points; at most "
                                    f"{MAX_GRID_POINTS} in all (and 1000 per axis)")
    if any(not (e > 0) for e in eps_list):
        raise InputError("epsilon", "must be > 0")
    if any(not (0 < d < 1) for d in delta_list):
        raise InputError("delta", "must be in (0, 1)")
    sens = float(sensitivity)
    rows = []
    with Progress(console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task("two-stage grid (float64 estimate)", total=len(eps_list) * len(delta_list))
        for d in delta_list:
            for e in eps_list:
                r = grid_shape_search(e, d, sens, moment)
                rows.append({"epsilon": e, "delta": d, "p_hat": r.p_hat, "improvement_percent":
                             r.improvement_percent, "benchmark": r.benchmark})
                bar.advance(task)
    if as_json:
        print_json({"kind": "shape-grid", "certified": False, "note": "float64 ESTIMATE (seed 004 Sec. 6 "
                    "two-stage grid); use the certified search for guarantees", "rows": rows})
    else:
        from rich.table import Table

        t = Table(title="two-stage grid estimate (NOT certified)")
        for col in ("epsilon", "delta", "p-hat", "improvement %", "best benchmark"):
            t.add_column(col)
        for r in rows[:200]:
            t.add_row(f"{r['epsilon']:.4g}", f"{r['delta']:.4g}", f"{r['p_hat']:.3f}",
                      f"{r['improvement_percent']:.2f}", r["benchmark"])
        console.print(t)
    if plot:
        _plot_heatmap(rows, eps_list, delta_list, plot)
        if not as_json:
            console.print(f"heatmap written to {plot}")


def _plot_heatmap(rows, eps_list, delta_list, path: str) -> None:
    plt = agg_pyplot()
    import numpy as np

    ph = np.array([min(r["p_hat"], 12.0) for r in rows]).reshape(len(delta_list), len(eps_list))
    im = np.array([r["improvement_percent"] for r in rows]).reshape(len(delta_list), len(eps_list))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    extent = [min(eps_list), max(eps_list), min(delta_list), max(delta_list)]
    for ax, data, label in ((a1, ph, "selected p (capped at 12)"), (a2, im, "improvement %")):
        h = ax.imshow(data, origin="lower", aspect="auto", extent=extent)
        fig.colorbar(h, ax=ax, label=label)
        ax.set_xlabel("epsilon")
        ax.set_ylabel("delta")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
