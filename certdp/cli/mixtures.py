"""CLI for the Gaussian-mixture mechanisms of seed 000 (quasi-Gaussian, multi-Gaussian)."""

from __future__ import annotations

import sys

import click

from certdp.cli.common import (
    EXIT_CODES, console, delta_option, emit_certificate, epsilon_option, json_option, output_option, print_json,
    sensitivity_option,
)
from certdp.cli.groups import audit, calibrate, cli, optimize, profile, table
from certdp.cli.validate import (
    DELTA, EPSILON, FRACTION, PLOT_FILE, POSITIVE, CellList, Count, Real,
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
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
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
    """Composition of multi-Gaussian / Gaussian mechanisms by zCDP (seed 000 Cor. 3.7-3.8)."""
    from certdp.workflows.mixtures import zcdp_composition

    sens = list(sensitivities) or ["1"] * len(sigmas)
    if len(sens) != len(sigmas):
        raise InputError("sensitivity", f"give one per --sigma ({len(sigmas)}) or none (got {len(sens)})")
    out = zcdp_composition(list(sigmas), sens, delta_total)
    if as_json:
        print_json(out)
    else:
        console.print(f"rho_tot = {out['rho_total']}; ({out['epsilon_total_upper']}, {delta_total})-DP")


# ---------------------------------------------------------------- tables
@table_group.command("mixtures")
@json_option
@click.option("--plot", type=PLOT_FILE, default=None, help="Heatmap of our l2 improvement (PNG).")
def table_mixtures(as_json, plot):
    """Seed 000 Tables 5-6 (QG vs analytic Gaussian), certified, beside the paper's values."""
    from rich.progress import Progress
    from rich.table import Table

    from certdp.workflows.mixtures.tables_qg import DELTAS, EPSILONS, PAPER_TABLE5, PAPER_TABLE6, qg_tables

    with Progress(console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task("QG vs analytic Gaussian (certified)", total=len(DELTAS) * len(EPSILONS))
        rows = qg_tables(lambda cell: bar.advance(task))
    dev5 = max(abs(c.l1_improvement - PAPER_TABLE5[i][j]) for i, r in enumerate(rows) for j, c in enumerate(r))
    dev6 = max(abs(c.l2_improvement - PAPER_TABLE6[i][j]) for i, r in enumerate(rows) for j, c in enumerate(r))
    if as_json:
        print_json({"table5_l1": [[c.l1_improvement for c in r] for r in rows],
                    "table6_l2": [[c.l2_improvement for c in r] for r in rows],
                    "sigma_qg": [[c.sigma_qg for c in r] for r in rows],
                    "sigma_gaussian": [[c.sigma_gaussian for c in r] for r in rows],
                    "max_abs_deviation_pp": {"table5": dev5, "table6": dev6}})
    else:
        for title, key, paper in (("Table 5 (l1)", "l1_improvement", PAPER_TABLE5),
                                  ("Table 6 (l2)", "l2_improvement", PAPER_TABLE6)):
            t = Table(title=f"{title}: ours / paper, improvement % of QG over the analytic Gaussian")
            t.add_column("delta \\ eps")
            for e in EPSILONS:
                t.add_column(e, justify="right")
            for i, r in enumerate(rows):
                t.add_row(DELTAS[i], *[f"{getattr(c, key):.2f}/{paper[i][j]:.2f}" for j, c in enumerate(r)])
            from rich.console import Console

            Console(width=max(console.width, 160)).print(t)  # never truncate the numbers
        console.print(f"largest deviation: Table 5 {dev5:.4f} pp, Table 6 {dev6:.4f} pp")
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np

        data = np.array([[c.l2_improvement for c in r] for r in rows])
        fig, ax = plt.subplots(figsize=(8, 6))
        im = ax.imshow(data, cmap="RdYlGn", aspect="auto")
        ax.set_xticks(range(len(EPSILONS)), EPSILONS)
        ax.set_yticks(range(len(DELTAS)), DELTAS)
        ax.set_xlabel("epsilon")
        ax.set_ylabel("delta")
        ax.set_title("QG l2 improvement over analytic Gaussian (%), certified")
        fig.colorbar(im)
        fig.savefig(plot, dpi=120, bbox_inches="tight")


# ---------------------------------------------------------------- multi-Gaussian tables and best K
@table_group.command("multi-gaussian")
@json_option
@click.option("--workers", type=Count(1, 64), default=2, show_default=True, help="Parallel processes, in [1, 64].")
@click.option("--audit-timeout", type=Real(0, 86400, low_open=True, metavar="SECONDS"), default="150",
              show_default=True, help="Seconds per certified audit of a printed value.")
@click.option("--certify", "certify_cells", default="", type=CellList(15, 10),
              help="Cells to certify, e.g. '3,2;0,3' (row 0-14, column 0-9) or 'all'; each gets --certify-timeout.")
@click.option("--certify-timeout", type=Real(0, 86400, low_open=True, metavar="SECONDS"), default="300",
              show_default=True, help="Seconds per certified cell.")
def table_multi_gaussian(as_json, workers, audit_timeout, certify_cells, certify_timeout):
    audit_timeout, certify_timeout = float(audit_timeout), float(certify_timeout)
    """Seed 000 Tables 3-4 (multi-Gaussian, eta = 0.01) recomputed beside the paper's, and audited.

    Every cell uses the paper's Table 3 K. Column "ours" is the float64 Alg. 1 sigma (continuum
    version; NOT certified) unless the cell is certified with --certify. Every printed Table 4 value
    that claims more than 1 pp above ours is audited with certified arithmetic: IMPOSSIBLE (no sigma
    reaches that l2 loss), VIOLATED (the implied sigma is not (eps, delta)-DP; witness shift
    given), VALID, or UNDECIDED (timeout).
    """
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    from rich.progress import Progress
    from rich.table import Table

    from certdp.workflows.mixtures.tables_mg import (PAPER_TABLE3, PAPER_TABLE4, audit_printed_cell,
                                                     certify_cell, mg_cell_float)
    from certdp.workflows.mixtures.tables_qg import DELTAS, EPSILONS

    cells = [(i, j) for i in range(len(DELTAS)) for j in range(len(EPSILONS))]
    floats: dict = {}
    audits: dict = {}
    certified: dict = {}
    if certify_cells.strip() == "all":
        to_certify = cells
    else:
        try:
            to_certify = [tuple(int(v) for v in c.split(",")) for c in certify_cells.split(";") if c.strip()]
        except ValueError:
            raise InputError("certify", "expected 'row,col;row,col' or 'all'") from None
    with Progress(console=console, transient=True, disable=as_json) as bar:
        t1 = bar.add_task("float Alg. 1 at the paper's K", total=len(cells))
        with ProcessPoolExecutor(workers) as ex:
            futs = {c: ex.submit(mg_cell_float, EPSILONS[c[1]], DELTAS[c[0]], PAPER_TABLE3[c[0]][c[1]]) for c in cells}
            for c, f in futs.items():
                floats[c] = f.result()
                bar.advance(t1)
        todo = [c for c in cells if PAPER_TABLE4[c[0]][c[1]] is not None
                and floats[c]["l2_improvement"] - PAPER_TABLE4[c[0]][c[1]] < -1]
        t2 = bar.add_task("certified audit of printed values", total=len(todo))
        with ThreadPoolExecutor(workers) as ex:
            for c, res in zip(todo, ex.map(lambda c: audit_printed_cell(*c, timeout=audit_timeout), todo)):
                audits[c] = res
                bar.advance(t2)
        t3 = bar.add_task("certified cells", total=len(to_certify))
        with ThreadPoolExecutor(workers) as ex:
            for c, res in zip(to_certify, ex.map(lambda c: certify_cell(*c, timeout=certify_timeout), to_certify)):
                certified[c] = res
                bar.advance(t3)
    verdicts: dict[str, int] = {}
    for a in audits.values():
        verdicts[a["verdict"]] = verdicts.get(a["verdict"], 0) + 1
    if as_json:
        print_json({"cells": [{"row": i, "col": j, "delta": DELTAS[i], "epsilon": EPSILONS[j],
                               "K": PAPER_TABLE3[i][j], "paper_l2": PAPER_TABLE4[i][j],
                               "float": floats[(i, j)], "audit": audits.get((i, j)),
                               "certified": certified.get((i, j))} for i, j in cells],
                    "audit_summary": verdicts})
        return
    t = Table(title="Table 4 (l2 improvement %, MG at the paper's K, eta = 0.01): ours / paper [audit]")
    t.add_column("delta \\ eps")
    for e in EPSILONS:
        t.add_column(e, justify="right")
    mark = {"IMPOSSIBLE": "I", "VIOLATED": "V", "VALID": "ok", "UNDECIDED": "?"}
    for i in range(len(DELTAS)):
        row = []
        for j in range(len(EPSILONS)):
            c = (i, j)
            cert = certified.get(c)
            ours = (f"{cert['l2_improvement']:.2f}*" if cert and cert.get("status") == "ok"
                    else f"{floats[c]['l2_improvement']:.2f}")
            p = PAPER_TABLE4[i][j]
            tag = f" [{mark[audits[c]['verdict']]}]" if c in audits else ""
            row.append(f"{ours}/{'NA' if p is None else f'{p:.2f}'}{tag}")
        t.add_row(DELTAS[i], *row)
    from rich.console import Console

    Console(width=max(console.width, 200)).print(t)  # 10 wide columns: never truncate the numbers
    console.print("* = certified cell; others float64 (not certified). Audit: I = impossible, V = violated, "
                  "? = undecided. Summary: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))


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
