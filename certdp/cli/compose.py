"""`certdp compose PLAN` and `certdp calibrate subsampled-gaussian`: the certified accountant."""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import click

from certdp.cli.common import console, emit_certificate, json_option, output_option
from certdp.cli.groups import calibrate, cli
from certdp.cli.plots import agg_pyplot
from certdp.numbers import InputError


def _summary(result, cert) -> dict:
    data = {"kind": "composition", "claim": cert.claim, "groups": result.methods,
            "discretization": result.discretization, "relative_width": f"{result.relative_width:.6g}",
            "timing_seconds": result.timing_seconds, "digest": cert.digest}
    if result.delta is None:
        data = {"epsilon": cert.inputs["epsilon"], "delta_enclosure": cert.delta_enclosure, **data}
    else:
        data = {"delta": cert.inputs["delta"], "epsilon_enclosure": cert.extra["epsilon_enclosure"], **data}
    data["directions"] = result.directions
    if result.delta is not None and result.discretization.get("route") == "closed-form":
        # a Gaussian plan is rho-zCDP with rho = mu^2/2: the two conversions, for comparison (looser than GDP)
        from certdp.accounting.accountant import gdp_mu_squared
        from certdp.workflows.mixtures.zcdp import zcdp_conversions

        z = zcdp_conversions(gdp_mu_squared(result.plan) / 2, result.delta)
        data["zcdp_comparison"] = {"rho": z["rho_total"], "standard_epsilon_upper": z["standard"]["epsilon_upper"],
                                   "cks_epsilon_upper": z["cks"]["epsilon_upper"], "cks_alpha": z["cks"]["alpha"],
                                   "note": "zCDP route, certified upper bounds, looser than the exact GDP enclosure"}
    if result.notes:
        data["notes"] = result.notes
    return data


@cli.command("compose")
@click.argument("plan", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--epsilon", "-e", default=None, metavar="EPS", help="Bracket delta(EPS) of the composition.")
@click.option("--delta", "-d", default=None, metavar="DELTA", help="Bracket the smallest epsilon at DELTA.")
@click.option("--grid-bits", type=int, default=None, metavar="B",
              help="Lattice step 2^-B (default: chosen so the bracket is rtol-narrow).")
@click.option("--rtol", default="0.01", show_default=True, help="Target relative width of the bracket.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Draw the certified delta(eps) band to this PNG.")
@json_option
@output_option
def compose_command(plan, epsilon, delta, grid_bits, rtol, plot, as_json, output):
    """Certified delta(eps) (--epsilon) or epsilon(delta) (--delta) of a composition PLAN (JSON file or -)."""
    from certdp.workflows.compose import composition_result

    if (epsilon is None) == (delta is None):
        raise InputError("epsilon", "give exactly one of --epsilon and --delta")
    if plan == "-":
        text = sys.stdin.read(5_000_001)
    else:
        path = Path(plan)
        if not path.is_file():
            raise InputError("PLAN", f"no such plan file: {plan}")
        text = path.read_bytes()[:5_000_001]
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("plan", "plan file is not UTF-8 text") from None
    if not text.lstrip().startswith(("{", "[")):
        raise InputError("plan", "not a JSON plan (expected {\"mechanisms\": [...]})")
    result, cert = composition_result(text, epsilon=epsilon, delta=delta, grid_bits=grid_bits, rtol=rtol)
    if output:
        Path(output).write_text(cert.to_json() + "\n", encoding="utf-8")
    if plot:
        _plot(result, plot)
    if as_json:
        click.echo(json.dumps(_summary(result, cert), indent=2))
    else:
        data = _summary(result, cert)
        for key in ("epsilon", "delta", "delta_enclosure", "epsilon_enclosure", "relative_width"):
            if key in data:
                console.print(f"[bold]{key}[/bold]: {data[key]}")
        for g in result.methods:
            console.print(f"  {g['group']}: {g['method']}")
        console.print(f"discretization: {result.discretization}")
        if "zcdp_comparison" in data:
            z = data["zcdp_comparison"]
            console.print(f"zCDP route (rho = {z['rho']}): standard eps <= {z['standard_epsilon_upper']}, "
                          f"Canonne-Kamath-Steinke eps <= {z['cks_epsilon_upper']} (exact GDP above is tighter)")
        console.print(f"guarantee: {cert.guarantee[:400]}")
        console.print(f"digest: {cert.digest}")
        if output:
            console.print(f"certificate written to {output}")
    sys.exit(0)


def _plot(result, path: str) -> None:
    """The certified delta(eps) band on an eps grid around the answer (same discretization)."""
    plt = agg_pyplot()

    from certdp.accounting import account

    grid = int(result.discretization["grid_bits"]) if result.discretization.get("grid_bits") else None
    if result.delta is None:
        centre = float(result.epsilon)
    else:
        centre = float(result.enclosure.upper)
    eps_values = [max(centre, 0.05) * f for f in (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)]
    lows, highs = [], []
    for e in eps_values:
        r = account(result.plan, epsilon=Fraction(repr(e)), grid_bits=grid)
        lows.append(max(float(r.enclosure.lower), 1e-300))
        highs.append(max(float(r.enclosure.upper), 1e-300))
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.fill_between(eps_values, lows, highs, alpha=0.4, label="certified band [lower, upper]")
    ax.plot(eps_values, highs, "-", lw=1)
    ax.plot(eps_values, lows, "--", lw=1)
    ax.set_yscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("composed delta(epsilon)")
    ax.set_title(f"{result.plan.total_count} composed steps")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


@calibrate.command("subsampled-gaussian")
@click.option("--epsilon", "-e", required=True, metavar="EPS", help="Privacy parameter epsilon > 0.")
@click.option("--delta", "-d", required=True, metavar="DELTA", help="Target delta in (0, 1).")
@click.option("--sampling-rate", "-q", required=True, metavar="Q", help="Poisson sampling rate in (0, 1].")
@click.option("--compositions", "-k", default="1", show_default=True, metavar="K", help="Number of steps.")
@click.option("--grid-bits", type=int, default=None, metavar="B", help="Lattice step 2^-B of the accountant.")
@click.option("--rtol", default=None, help="Relative width of the sigma bracket (default 0.02).")
@json_option
@output_option
def calibrate_subsampled_gaussian(epsilon, delta, sampling_rate, compositions, grid_bits, rtol, as_json, output):
    """DP-SGD noise multiplier sigma for K Poisson-subsampled Gaussian steps, certified."""
    from certdp.workflows.compose import calibrate_composed

    cert = calibrate_composed("subsampled-gaussian", epsilon=epsilon, delta=delta, compositions=compositions,
                              sampling_rate=sampling_rate, grid_bits=grid_bits, rtol=rtol)
    sys.exit(emit_certificate(cert, as_json, output))


# ---------------------------------------------------------------- seed 003 Figure 3
from certdp.cli.groups import table as _table_group  # noqa: E402
from certdp.cli.validate import PLOT_FILE  # noqa: E402


def _parse_ks(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError("k", "a comma-separated list of integers >= 1") from None
    if not ks or any(k < 1 or k > 1024 for k in ks):
        raise InputError("k", "each k must lie in [1, 1024]")
    return ks


@_table_group.command("sgg-composition")
@click.option("--k", "ks", default="2,4,8,16,32", show_default=True, metavar="K,K,...",
              help="Numbers of invocations.")
@click.option("--rtol", default="0.005", show_default=True,
              help="Relative width of the certified theta brackets (both columns).")
@click.option("--grid-bits", type=int, default=None, metavar="B",
              help="Lattice / connect-the-dots step 2^-B of the accountant (default: max(9, log2(k/0.02))).")
@click.option("--no-float", is_flag=True, help="Skip the uncertified float column.")
@click.option("--plot", type=PLOT_FILE, default=None, help="Draw the figure to this PNG.")
@json_option
def table_sgg_composition(ks, rtol, grid_bits, no_float, plot, as_json):
    """Seed 003 Figure 3: per-invocation MSE of the l2 mechanism (T = 10, alpha = 9, p = 1) for k
    invocations at (eps_tot, delta) = (1, 1e-5): sequential composition (eps/k, delta/k) vs the
    certified accountant (connect-the-dots pairs from the certified radial profile)."""
    from certdp.cli.common import print_json
    from certdp.workflows.sgg_composition import sgg_composition_table

    rows = sgg_composition_table(_parse_ks(ks), rtol=rtol, grid_bits=grid_bits, with_float=not no_float,
                                 accountant_rtol=rtol)
    if as_json:
        print_json({"epsilon_total": "1", "delta": "1e-5", "dimension": 10, "alpha": 9, "power": 1,
                    "mse": "T (T + 1) theta^2", "rows": rows})
    else:
        from rich.table import Table

        t = Table(title="Seed 003 Fig. 3: per-invocation MSE, l2 mechanism T = 10, (eps, delta) = (1, 1e-5)")
        for c in ("k", "sequential MSE (certified, safe end)", "accountant MSE (certified, safe end)",
                  "float re-run MSE (NOT certified)", "ratio seq/acc", "s"):
            t.add_column(c, justify="right")
        for r in rows:
            seq, acc = float(r["sequential_mse"][1]), float(r["accountant_mse"][1])
            t.add_row(str(r["k"]), f"{seq:.5g} [{float(r['sequential_mse'][0]):.5g}, ...]",
                      f"{acc:.5g} [{float(r['accountant_mse'][0]):.5g}, ...]", str(r.get("float_mse")),
                      f"{seq / acc:.3f}", f"{r['sequential_seconds'] + r['accountant_seconds']:.0f}")
        console.print(t)
    if plot:
        plt = agg_pyplot()

        fig, ax = plt.subplots(figsize=(6, 4))
        kk = [r["k"] for r in rows]
        ax.plot(kk, [float(r["sequential_mse"][1]) for r in rows], "o--", label="sequential (eps/k, delta/k), certified")
        ax.plot(kk, [float(r["accountant_mse"][1]) for r in rows], "s-", label="composed accountant, certified")
        if not no_float:
            ax.plot(kk, [float(r["float_mse"]) if r.get("float_mse") else float("nan") for r in rows], "x:",
                    label="float re-run (not certified)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("k invocations")
        ax.set_ylabel("per-invocation MSE")
        ax.set_title("l2 mechanism, T = 10, (1, 1e-5)")
        ax.legend()
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(plot, dpi=120)
