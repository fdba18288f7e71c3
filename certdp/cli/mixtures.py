"""CLI for the Gaussian-mixture mechanisms of seed 000 (quasi-Gaussian, multi-Gaussian)."""

from __future__ import annotations

import sys

import click

from certdp.cli.common import (
    EXIT_CODES, console, delta_option, emit_certificate, epsilon_option, json_option, output_option, print_json,
    sensitivity_option,
)
from certdp.cli.groups import audit, calibrate, cli, optimize, profile, table
from certdp.cli.plots import agg_pyplot
from certdp.cli.validate import (
    DELTA, EPSILON, FRACTION, PLOT_FILE, POSITIVE, Count, Real,
)
from certdp.numbers import InputError

#: Largest K accepted by the mixture commands (2K+1 Gaussians; cost grows with K).
MAX_COMPONENTS = 50
_sigma_option = click.option("--sigma", required=True, type=POSITIVE, help="Noise scale sigma > 0 of the mixture.")
#: The exact engine and the MG paper method certify brackets to at most this relative width.
MIN_MIXTURE_RTOL = "1e-6"


table_group = table


# ---------------------------------------------------------------- calibrate
@calibrate.command("quasi-gaussian")
@epsilon_option
@delta_option
@sensitivity_option
@click.option("--method", type=click.Choice(["paper", "exact"]), default="paper", show_default=True,
              help="paper: certified Thm 4.2 (Alg. 3-4); exact: smallest sigma the exact engine certifies.")
@click.option("--rtol", default=None, type=Real(0, 1, low_open=True, high_open=True, metavar="RTOL"),
              help="Relative width of the certified bracket [default: 1e-12 (paper), 1e-6 (exact; the "
                   "smallest it supports)].")
@json_option
@output_option
def calibrate_qg(epsilon, delta, sensitivity, method, rtol, as_json, output):
    """Sigma of the quasi-Gaussian mixture (seed 000 Def. 4.1), certified."""
    from certdp.workflows.mixtures import exact_calibration, qg_paper_calibration

    rtol = _mixture_rtol(rtol, "1e-12" if method == "paper" else MIN_MIXTURE_RTOL,
                         None if method == "paper" else "the exact engine")
    if method == "paper":
        cert = qg_paper_calibration(epsilon=epsilon, delta=delta, sensitivity=sensitivity, rtol=rtol)
    else:
        cert = exact_calibration("quasi-gaussian", epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                                 rtol=max_rtol(rtol))
    sys.exit(emit_certificate(cert, as_json, output))


def _mixture_rtol(rtol: str | None, default: str, limited_by: str | None) -> str:
    """The --rtol to use; an explicit value below what ``limited_by`` supports is refused, never clamped."""
    from fractions import Fraction

    if rtol is None:
        return default
    if limited_by is not None and Fraction(rtol) < Fraction(MIN_MIXTURE_RTOL):
        raise InputError("rtol", f"{limited_by} certifies brackets of relative width >= {MIN_MIXTURE_RTOL} "
                                 f"(got {rtol})")
    return rtol


def max_rtol(rtol: str) -> str:
    """The exact engine's bracket defaults to 1e-6 (each probe is a branch and bound)."""
    from fractions import Fraction

    from certdp.numbers import parse_positive

    return rtol if parse_positive(rtol, "rtol") >= Fraction(1, 10**6) else "1e-6"


@calibrate.command("multi-gaussian")
@epsilon_option
@delta_option
@sensitivity_option
@click.option("--components", "-K", required=True, type=Count(0, MAX_COMPONENTS),
              help=f"K in [0, {MAX_COMPONENTS}]: 2K+1 Gaussians.")
@click.option("--eta", default="0.01", show_default=True, type=FRACTION,
              help="Discretization of seed 000 Thm 3.2 (paper method): condition (2) at (1 - eta) delta.")
@click.option("--method", type=click.Choice(["paper", "exact"]), default="paper", show_default=True,
              help="paper: certified Alg. 1-2 (Thm 3.2); exact: the smallest sigma with delta(eps) <= delta.")
@click.option("--rtol", default=MIN_MIXTURE_RTOL, show_default=True,
              type=Real(MIN_MIXTURE_RTOL, 1, high_open=True, metavar="RTOL"),
              help=f"Relative width of the certified bracket, in [{MIN_MIXTURE_RTOL}, 1).")
@json_option
@output_option
def calibrate_mg(epsilon, delta, sensitivity, components, eta, method, rtol, as_json, output):
    """Sigma of the multi-Gaussian mixture MG(sigma, K) (seed 000 Def. 3.1), certified.

    The paper method certifies Alg. 1's sigma without enumerating its shift grid: the safe end by
    the exact engine's sup over all shifts, the unsafe end by a grid shift where condition (2) fails.
    """
    from certdp.workflows.mixtures import exact_calibration, mg_paper_calibration

    if method == "paper":
        cert = mg_paper_calibration(epsilon=epsilon, delta=delta, components=components, eta=eta,
                                    sensitivity=sensitivity, rtol=max_rtol(rtol))
    else:
        cert = exact_calibration("multi-gaussian", epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                                 components=components, rtol=max_rtol(rtol))
    sys.exit(emit_certificate(cert, as_json, output))


# ---------------------------------------------------------------- profile / audit
def _plot_mixture(name: str, sigma: str, epsilon: str, sensitivity: str, components: int | None,
                  enclosure: tuple[str, str], argmax: float, path: str) -> None:
    """Density and, for MG, the float64 shift profile phi -> H(phi) (illustration; the certified
    delta(eps) enclosure is printed in the title)."""
    plt = agg_pyplot()
    import numpy as np

    from certdp.engines.gaussian_mixture.float_guide import mg_components, mixture_hockey_stick_float

    s, e, d = float(sigma), float(epsilon), float(sensitivity)
    k = int(components or 0)
    reach = (k + 1) * d + 5 * s if name == "multi-gaussian" else d + 5 * s
    xs = np.linspace(-reach, reach, 2001)
    if name == "multi-gaussian":
        means, logw = mg_components(e, k, d)
        dens = np.exp(logw[None, :] - (xs[:, None] - means[None, :]) ** 2 / (2 * s * s)).sum(axis=1)
    else:
        dens = np.exp(e - xs ** 2 / (2 * s * s)) + np.exp(-(np.abs(xs) - d) ** 2 / (2 * s * s))
    dens /= np.trapezoid(dens, xs)
    panels = 2 if name == "multi-gaussian" else 1
    fig, axes = plt.subplots(1, panels, figsize=(6 * panels, 4), squeeze=False)
    axes[0][0].plot(xs, dens)
    axes[0][0].set_xlabel("x")
    axes[0][0].set_title(f"{name} density, sigma = {sigma}" + (f", K = {k}" if panels == 2 else ""))
    if panels == 2:
        phis = np.linspace(0.0, d, 201)[1:]
        hs = [mixture_hockey_stick_float(means, logw, s, e, p) for p in phis]
        ax = axes[0][1]
        top = max(max(hs), 1e-300)
        ax.semilogy(phis / d, np.maximum(hs, top * 1e-16))
        ax.set_ylim(top * 1e-16, top * 10)
        ax.axvline(abs(argmax), color="k", ls=":", label=f"certified worst shift {abs(argmax):.4g} Delta")
        ax.set_xlabel("shift phi / Delta")
        ax.set_ylabel("H(phi) (float64 illustration)")
        ax.legend()
    fig.suptitle(f"certified delta({epsilon}) in [{float(enclosure[0]):.8g}, {float(enclosure[1]):.8g}]")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


for _name in ("quasi-gaussian", "multi-gaussian"):
    def _make(name: str):
        @_sigma_option
        @click.option("--epsilon", "-e", required=True, type=EPSILON, help="Privacy parameter epsilon > 0.")
        @sensitivity_option
        @(click.option("--components", "-K", type=Count(0, MAX_COMPONENTS), required=True,
                       help=f"K in [0, {MAX_COMPONENTS}]: 2K+1 Gaussians.")
          if name == "multi-gaussian" else
          click.option("--components", "-K", type=Count(0, 0), default=None, hidden=True))
        @json_option
        @click.option("--plot", type=PLOT_FILE, default=None,
                      help="PNG: the density and (multi-gaussian) the float shift profile H(phi).")
        @click.option("--rtol", "rel_tol", type=Real(0, 1, low_open=True, high_open=True, metavar="RTOL"),
                      default="1e-4", show_default=True,
                      help="Relative width of the certified enclosure (smaller costs more when sigma << Delta).")
        def command(sigma, epsilon, sensitivity, components, as_json, plot, rel_tol):
            from certdp.workflows.mixtures import mixture_profile_value

            res = mixture_profile_value(name, sigma, epsilon, sensitivity, components, rel_tol=float(rel_tol))
            lo, hi = res.lower, res.upper
            if plot:
                _plot_mixture(name, sigma, epsilon, sensitivity, components, (lo, hi), res.argmax, plot)
            data = {"mechanism": name, "sigma": sigma, "epsilon": epsilon, "components": components,
                    "delta_enclosure": [lo, hi], "worst_shift_fraction": res.argmax,
                    "intervals": res.intervals, "point_evaluations": res.point_evaluations}
            if as_json:
                print_json(data)
            else:
                console.print(f"{name} sigma={sigma} eps={epsilon}: delta(eps) in [{lo}, {hi}] "
                              f"(worst shift {res.argmax:.6g} Delta; {res.intervals} shift intervals)")

        command.__doc__ = f"Certified delta(epsilon) of the {name} mechanism (exact engine)."
        return command

    profile.command(_name)(_make(_name))


@audit.command("multi-gaussian")
@_sigma_option
@click.option("--components", "-K", type=Count(0, MAX_COMPONENTS), required=True,
              help=f"K in [0, {MAX_COMPONENTS}]: 2K+1 Gaussians.")
@epsilon_option
@delta_option
@sensitivity_option
@json_option
@output_option
def audit_mg(sigma, components, epsilon, delta, sensitivity, as_json, output):
    """Is MG(sigma, K) (epsilon, delta)-DP? VALID / VIOLATED (with witness) / UNDECIDED, as a certificate."""
    from certdp.workflows.audit import audit as audit_value

    cert = audit_value("multi-gaussian", value=sigma, epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                       components=components)
    sys.exit(emit_certificate(cert, as_json, output))


@audit.command("quasi-gaussian")
@_sigma_option
@epsilon_option
@delta_option
@sensitivity_option
@json_option
@output_option
def audit_qg(sigma, epsilon, delta, sensitivity, as_json, output):
    """Is the quasi-Gaussian mixture at sigma (epsilon, delta)-DP? Exact engine in decision mode, with witness."""
    from certdp.workflows.audit import audit as audit_value

    cert = audit_value("quasi-gaussian", value=sigma, epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    sys.exit(emit_certificate(cert, as_json, output))


# ---------------------------------------------------------------- zCDP
@cli.command("zcdp-compose")
@click.option("--sigma", "sigmas", multiple=True, required=True, type=POSITIVE,
              help="Noise scale sigma > 0; repeat per mechanism.")
@click.option("--sensitivity", "sensitivities", multiple=True, type=POSITIVE,
              help="Sensitivity > 0; repeat per mechanism (default 1).")
@click.option("--delta", "delta_total", required=True, type=DELTA, help="Total delta in (0, 1).")
@json_option
def zcdp_command(sigmas, sensitivities, delta_total, as_json):
    """Composition of multi-Gaussian / Gaussian mechanisms by zCDP (seed 000 Cor. 3.7-3.8).

    Prints the standard conversion rho + 2 sqrt(rho log 1/delta) and the tight Canonne-Kamath-Steinke
    one (certified at a float-chosen alpha); the better of the two is the answer."""
    from certdp.workflows.mixtures import zcdp_composition

    sens = list(sensitivities) or ["1"] * len(sigmas)
    if len(sens) != len(sigmas):
        raise InputError("sensitivity", f"give one per --sigma ({len(sigmas)}) or none (got {len(sens)})")
    out = zcdp_composition(list(sigmas), sens, delta_total)
    if as_json:
        print_json(out)
    else:
        console.print(f"rho_tot = {out['rho_total']}; ({out['epsilon_total_upper']}, {delta_total})-DP "
                      f"(the {out['conversion']} conversion)")
        console.print(f"  standard: eps <= {out['standard']['epsilon_upper']}")
        console.print(f"  Canonne-Kamath-Steinke: eps <= {out['cks']['epsilon_upper']} (alpha = {out['cks']['alpha']})")


# ---------------------------------------------------------------- tables
def _executor_options(f):
    """--workers / --dask of the table commands (the sweep executor, :func:`certdp.sweep.run_jobs`)."""
    f = click.option("--dask", default=None, metavar="local:N|tcp://HOST:PORT",
                     help="Run the cells on Dask: a new LocalCluster of N processes, or an existing scheduler.")(f)
    return click.option("--workers", type=Count(1, 64), default=1, show_default=True,
                        help="Local worker processes (one cell per task), in [1, 64]; 1 runs in this process.")(f)


def _run_cells(jobs: list[dict], workers: int, dask: str | None, description: str, quiet: bool) -> list[dict]:
    """Run table-cell jobs on the sweep executor (serial, process pool or Dask), records in job order.

    A cell's content does not depend on where it ran (``certdp.sweep.content``), except that the
    per-member ``--timeout`` of ``table multi-gaussian`` is enforced by SIGALRM, i.e. only in a
    process's main thread: in-process and on the process pool, not on Dask workers (which run
    tasks in a thread), where members run to completion.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from certdp.sweep import run_jobs

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True, disable=quiet) as bar:
        task = bar.add_task(description, total=len(jobs))
        result = run_jobs(jobs, workers=workers, dask=dask, batch_size=1, on_record=lambda _r: bar.advance(task))
    return result.records


@table_group.command("mixtures")
@json_option
@click.option("--plot", type=PLOT_FILE, default=None, help="Heatmap of our l2 improvement (PNG).")
@click.option("--cells", "cells_opt", default="",
              help="Only these cells: 'delta,eps;delta,eps' (e.g. '1e-5,1;0.1,2'); the others print as '-'.")
@_executor_options
def table_mixtures(as_json, plot, cells_opt, workers, dask):
    """Seed 000 Tables 5-6 (QG vs analytic Gaussian), certified, beside the paper's values."""
    from fractions import Fraction

    from rich.table import Table

    from certdp.workflows.mixtures.tables_qg import DELTAS, EPSILONS, PAPER_TABLE5, PAPER_TABLE6, QGCell

    grid = [(d, e) for d in DELTAS for e in EPSILONS]
    if cells_opt.strip():
        wanted = {(Fraction(d), Fraction(e)) for d, e in _parse_cells(cells_opt)}
        grid = [(d, e) for d, e in grid if (Fraction(d), Fraction(e)) in wanted]
        if not grid:
            raise InputError("cells", "no cell of the Tables 5-6 grid matches")
    jobs = [{"kind": "table-qg-cell", "delta": d, "epsilon": e} for d, e in grid]
    records = _run_cells(jobs, workers, dask, "QG vs analytic Gaussian (certified)", as_json)
    failed = [r for r in records if r["status"] != "ok"]
    if failed:
        raise InputError("cells", f"cell delta={failed[0]['job']['delta']}, eps={failed[0]['job']['epsilon']} "
                                  f"failed: {failed[0].get('error')}")
    done = {(r["job"]["delta"], r["job"]["epsilon"]): QGCell(**r["result"]["cell"]) for r in records}
    rows = [[done.get((d, e)) for e in EPSILONS] for d in DELTAS]
    cells = [(i, j, c) for i, r in enumerate(rows) for j, c in enumerate(r) if c is not None]
    dev5 = max(abs(c.l1_improvement - PAPER_TABLE5[i][j]) for i, j, c in cells)
    dev6 = max(abs(c.l2_improvement - PAPER_TABLE6[i][j]) for i, j, c in cells)

    def grid_of(key):
        return [[None if c is None else getattr(c, key) for c in r] for r in rows]

    if as_json:
        print_json({"table5_l1": grid_of("l1_improvement"), "table6_l2": grid_of("l2_improvement"),
                    "sigma_qg": grid_of("sigma_qg"), "sigma_gaussian": grid_of("sigma_gaussian"),
                    "max_abs_deviation_pp": {"table5": dev5, "table6": dev6},
                    "cells_computed": len(cells), "workers": workers, "dask": dask})
    else:
        for title, key, paper in (("Table 5 (l1)", "l1_improvement", PAPER_TABLE5),
                                  ("Table 6 (l2)", "l2_improvement", PAPER_TABLE6)):
            t = Table(title=f"{title}: ours / paper, improvement % of QG over the analytic Gaussian")
            t.add_column("delta \\ eps")
            for e in EPSILONS:
                t.add_column(e, justify="right")
            for i, r in enumerate(rows):
                t.add_row(DELTAS[i], *["-" if c is None else f"{getattr(c, key):.2f}/{paper[i][j]:.2f}"
                                       for j, c in enumerate(r)])
            from rich.console import Console

            Console(width=max(console.width, 160)).print(t)  # never truncate the numbers
        console.print(f"largest deviation: Table 5 {dev5:.4f} pp, Table 6 {dev6:.4f} pp")
    if plot:
        plt = agg_pyplot()
        import numpy as np

        data = np.array([[np.nan if c is None else c.l2_improvement for c in r] for r in rows])
        fig, ax = plt.subplots(figsize=(8, 6))
        im = ax.imshow(data, cmap="RdYlGn", aspect="auto")
        ax.set_xticks(range(len(EPSILONS)), EPSILONS)
        ax.set_yticks(range(len(DELTAS)), DELTAS)
        ax.set_xlabel("epsilon")
        ax.set_ylabel("delta")
        ax.set_title("QG l2 improvement over analytic Gaussian (%), certified")
        fig.colorbar(im)
        fig.savefig(plot, dpi=120, bbox_inches="tight")


# ---------------------------------------------------------------- audit of the printed tables
def _parse_cells(text: str) -> list[tuple[str, str]]:
    """'delta,eps;delta,eps' -> [(delta, eps), ...] (exact strings as printed in the paper's grid)."""
    out = []
    for part in text.split(";"):
        if not part.strip():
            continue
        bits = [b.strip() for b in part.split(",")]
        if len(bits) != 2:
            raise InputError("cells", "expected 'delta,eps;delta,eps', e.g. '5e-7,4;0.1,2'")
        out.append((bits[0], bits[1]))
    return out


def _verdict_heatmap(cells: list, path: str) -> None:
    """One panel per table: verdict of every printed cell over (eps, delta)."""
    plt = agg_pyplot()
    import numpy as np
    from matplotlib.colors import ListedColormap

    from certdp.workflows.mixtures.tables_qg import DELTAS, EPSILONS

    codes = {"REFUTED": 0, "IMPOSSIBLE": 1, "UNDECIDED": 2, "NOT_REFUTED": 3}
    tables = sorted({c["table"] for c in cells})
    fig, axes = plt.subplots(1, len(tables), figsize=(6.5 * len(tables), 6), squeeze=False)
    cmap = ListedColormap(["#d73027", "#7b3294", "#fee08b", "#1a9850"])
    for ax, t in zip(axes[0], tables):
        grid = np.full((len(DELTAS), len(EPSILONS)), np.nan)
        for c in cells:
            if c["table"] == t:
                grid[DELTAS.index(c["delta"]), EPSILONS.index(c["epsilon"])] = codes[c["verdict"]]
        ax.imshow(grid, cmap=cmap, vmin=-0.5, vmax=3.5, aspect="auto")
        for c in cells:
            if c["table"] == t:
                ax.text(EPSILONS.index(c["epsilon"]), DELTAS.index(c["delta"]), c["printed"], ha="center",
                        va="center", fontsize=6)
        ax.set_xticks(range(len(EPSILONS)), EPSILONS)
        ax.set_yticks(range(len(DELTAS)), DELTAS)
        ax.set_xlabel("epsilon")
        ax.set_ylabel("delta")
        ax.set_title(f"seed 000 Table {t}: printed value, verdict")
    handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(v)) for v in codes.values()]
    fig.legend(handles, list(codes), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=4)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


@table_group.command("multi-gaussian")
@json_option
@click.option("--table", "tables", multiple=True, type=click.Choice(["4", "5", "6"]),
              help="Seed 000 table(s) to audit (repeatable; default 4, 5 and 6). Table 1 (l1) is not in the "
                   "text extraction of the paper.")
@click.option("--cells", "cells_opt", default="", help="Only these cells: 'delta,eps;delta,eps' (e.g. '5e-7,4;0.1,2').")
@_executor_options
@click.option("--timeout", "member_timeout", type=Real(0, 86400, low_open=True, metavar="SECONDS"), default="60",
              show_default=True,
              help="Seconds per member (one mechanism of the family) of a cell; past it the member is UNDECIDED.")
@click.option("--plot", type=PLOT_FILE, default=None, help="PNG heatmap of verdicts per table.")
def table_multi_gaussian(as_json, tables, cells_opt, workers, dask, member_timeout, plot):
    """Audit seed 000's printed improvement tables (4: multimodal l2; 5/6: QG l1/l2) cell by cell.

    \b
    RULE (certdp.workflows.mixtures.table_audit): a printed improvement I (percent, two decimals) is
    REFUTED when, for every member the paper could have used (MG with every K in [1, 20], and QG, for
    the multimodal Table 4; QG for Tables 5-6), no sigma consistent with the print is (eps, delta)-DP:
    for MG the largest consistent sigma (implied by I - 0.005 and the upper end of the certified
    analytic-Gaussian bracket) is certified not DP (smaller sigmas then are not DP either, by
    post-processing); for QG the engine certifies "not DP" on a ball holding every consistent sigma.
    Each refuted member has a witness (shift, certified lower bound on the hockey-stick divergence
    > delta, failing set for illustration). NOT_REFUTED: a member has a sigma certified consistent
    with the print and certified DP (named, with its certified delta). IMPOSSIBLE: no member has any
    sigma > 0 consistent with the print. UNDECIDED: anything else (reason given).

    Cells run on the sweep executor (--workers N processes, or --dask); --timeout is enforced in
    this process and on the process pool, not on Dask workers (it needs a main thread).
    """
    import time

    from certdp.workflows.mixtures.table_audit import UNAVAILABLE, summarize, table_cells

    member_timeout = float(member_timeout)
    if workers < 1:
        raise InputError("workers", "must be >= 1")
    if not member_timeout > 0:
        raise InputError("timeout", "must be > 0")
    tasks = table_cells(tuple(tables) or ("4", "5", "6"))
    if cells_opt.strip():
        from fractions import Fraction

        wanted = {(Fraction(d), Fraction(e)) for d, e in _parse_cells(cells_opt)}
        tasks = [t for t in tasks if (Fraction(t["delta"]), Fraction(t["epsilon"])) in wanted]
        if not tasks:
            raise InputError("cells", "no printed cell of the selected tables matches")
    t0 = time.perf_counter()
    jobs = [{"kind": "table-mg-cell", "table": t["table"], "epsilon": t["epsilon"], "delta": t["delta"],
             "printed": t["printed"], "params": {"timeout": repr(member_timeout),
                                                 **({} if t["first_k"] is None else {"first_k": t["first_k"]})}}
            for t in tasks]
    records = _run_cells(jobs, workers, dask, "certified audit of printed cells", as_json)
    results = [r["result"]["cell"] if r["status"] == "ok" else
               {"table": r["job"]["table"], "epsilon": r["job"]["epsilon"], "delta": r["job"]["delta"],
                "printed": r["job"]["printed"], "verdict": "UNDECIDED", "reason": f"cell failed: {r.get('error')}",
                "members_tried": [], "witnesses": [], "survivor": None, "members": []}
               for r in records]
    summary = summarize(results)
    elapsed = time.perf_counter() - t0
    if plot:
        _verdict_heatmap(results, plot)
    if as_json:
        print_json({"rule": "see certdp.workflows.mixtures.table_audit.REFUTATION_RULE",
                    "cells": results, "summary": summary, "unavailable_tables": UNAVAILABLE,
                    "seconds": round(elapsed, 2), "workers": workers, "dask": dask})
        return
    from rich.console import Console
    from rich.table import Table

    out = Console(width=max(console.width, 200))
    t = Table(title="seed 000 printed improvements: certified audit (REFUTATION_RULE)")
    for col in ("table", "delta", "eps", "printed", "verdict", "members tried", "survivor / witness"):
        t.add_column(col)
    for c in results:
        if c["verdict"] == "NOT_REFUTED":
            s = c["survivor"]
            detail = f"{s['member']} sigma={s['sigma']} DP, delta in [{s['delta_enclosure'][0]}, {s['delta_enclosure'][1]}]"
        elif c["witnesses"]:
            w = c["witnesses"][0]
            w = w["pieces"][0] | {"member": w["member"]} if "pieces" in w else w
            detail = (f"{len(c['witnesses'])} witnesses; e.g. {w['member']}: phi={float(w['shift']):.6g}, "
                      f"H >= {w['H_lower_bound']}")
        else:
            detail = c.get("reason", "")
        tried = c["members_tried"]
        t.add_row(c["table"], c["delta"], c["epsilon"], c["printed"], c["verdict"],
                  f"{len(tried)}: {', '.join(tried[:3])}{' ...' if len(tried) > 3 else ''}", detail)
    out.print(t)
    for tab, counts in sorted(summary.items()):
        console.print(f"Table {tab}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for tab, why in UNAVAILABLE.items():
        console.print(f"Table {tab}: not audited ({why})")
    console.print(f"{len(results)} cells in {elapsed:.1f} s with " + (f"Dask {dask}" if dask else f"{workers} worker(s)"))


@optimize.command("multi-gaussian")
@epsilon_option
@delta_option
@click.option("--loss", type=click.Choice(["l1", "l2"]), default="l1", show_default=True)
@click.option("--max-components", type=Count(1, MAX_COMPONENTS), default=20, show_default=True,
              help=f"Search K in [1, max], max <= {MAX_COMPONENTS}.")
@click.option("--eta", default="0.01", show_default=True, type=FRACTION, help="Discretization eta in (0, 1).")
@click.option("--certify-search", is_flag=True,
              help="Certify the search too: Alg. 1 sigma and loss enclosures for every K (~1 s per K).")
@json_option
def optimize_mg(epsilon, delta, loss, max_components, eta, certify_search, as_json):
    """Best K in [1, max] for the l1 or l2 loss of MG (seed 000 App. D.1), winner certified.

    By default the search over K is float64 (it only chooses K); the chosen K's Alg. 1 sigma is
    certified and its loss is evaluated on that certified sigma. With --certify-search every K's
    sigma is certified and K is proven best by disjoint loss enclosures (or the K that cannot be
    told apart are listed).
    """
    from certdp.numbers import parse_positive, parse_probability
    from certdp.workflows.mixtures import mg_paper_calibration
    from certdp.workflows.mixtures.best_k import mg_best_k_certified, mg_best_k_float

    e = parse_positive(epsilon, "epsilon")
    d = parse_probability(delta, "delta")
    et = parse_probability(eta, "eta")
    if max_components < 1:
        raise InputError("max-components", "must be >= 1")
    from rich.progress import Progress

    if certify_search:
        with Progress(console=console, transient=True, disable=as_json) as bar:
            task = bar.add_task("certified Alg. 1 per K", total=max_components)
            res = mg_best_k_certified(e, d, loss, range(1, max_components + 1), et,
                                      progress=lambda k: bar.advance(task))
        out = {"best_K": res.best, "decided": res.decided, "loss": loss,
               "certified_losses": {k: list(v) for k, v in res.losses.items()}}
        winner = res.certificates[res.best[0]] if res.decided else None
        if winner is not None:
            out["certificate"] = winner.to_dict()
        if as_json:
            print_json(out)
            return
        for k, (lo, hi) in res.losses.items():
            console.print(f"K = {k:2d}: {loss} loss in [{lo}, {hi}]" + ("  <- best" if k in res.best else ""))
        if winner is None:
            console.print(f"UNDECIDED: K in {res.best} have overlapping certified {loss} losses")
            sys.exit(EXIT_CODES["UNDECIDED"])
        console.print(f"best K = {res.best[0]} ({loss}), certified: its loss interval lies below every other K's")
        sys.exit(emit_certificate(winner, False, None))

    table: dict = {}
    with Progress(console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task("float Alg. 1 per K", total=max_components)
        for k in range(1, max_components + 1):
            table.update(mg_best_k_float(float(e), float(d), range(k, k + 1), float(et)))
            bar.advance(task)
    idx = 1 if loss == "l1" else 2
    best = min(table, key=lambda k: table[k][idx])
    cert = mg_paper_calibration(epsilon=e, delta=d, components=best, eta=et)
    from fractions import Fraction

    from certdp.numbers import decimal_bounds, working_precision
    from certdp.workflows.mixtures.best_k import mg_loss

    with working_precision(128):
        lo, hi = decimal_bounds(mg_loss(Fraction(cert.value), best, e, loss))
    out = {"best_K": best, "loss": loss, "certified_loss_at_safe_sigma": [lo, hi],
           "float_losses": {k: v[idx] for k, v in table.items()}, "certificate": cert.to_dict()}
    if as_json:
        print_json(out)
    else:
        console.print(f"best K = {best} ({loss}); certified {loss} loss at sigma = {cert.value}: [{lo}, {hi}]")
        sys.exit(emit_certificate(cert, False, None))
