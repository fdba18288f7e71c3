"""CLI for spherical generalized gamma noise: calibrate / profile / audit / optimize (seed 003)."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager

import click

from certdp.cli.common import (
    console, delta_option, emit_certificate, epsilon_option, json_option, output_option, print_json,
    sensitivity_option,
)
from certdp.cli.groups import audit, calibrate, cli, optimize, profile
from certdp.cli.validate import EPSILON_LIST, PLOT_FILE, POSITIVE, RTOL, Count, Real

_PRESETS = {
    # name: (option, parameter, help)
    "spherical-gaussian": ("--sigma", "sigma", "per-coordinate standard deviation sigma (beta = 1/(2 sigma^2))"),
    "l2-laplace": ("--theta", "theta", "scale theta (beta = 1/theta)"),
    "r1smg": ("--sigma-star", "sigma_star", "rank-1 variance sigma_star (beta = 1/(2 sigma_star))"),
}


def _dimension(f):
    return click.option("--dimension", "-T", required=True, type=Count(2, 10**9),
                        help="Dimension T >= 2 of the query.")(f)


def _shape(f):
    f = click.option("--power", "-p", required=True, type=POSITIVE,
                     help="Tail power p > 0 of the radial density (not the GGM shape).")(f)
    return click.option("--alpha", "-a", required=True, type=Real(-1, low_open=True, metavar="ALPHA"),
                        help="Shape alpha in (-1, T-1].")(f)


def _rtol(f):
    return click.option("--rtol", default="1e-6", show_default=True, type=RTOL,
                        help="Relative width of the certified bracket.")(f)


def _compositions(f):
    return click.option("--compositions", "-k", default=None, type=Count(1, 10**7), metavar="K",
                        help="Calibrate the per-step parameter of K identical steps (method composed-pld: GDP "
                             "closed form for spherical-gaussian, connect-the-dots lattice accountant otherwise; "
                             "claim 'minimal').")(f)


def _grid_bits(f):
    return click.option("--grid-bits", type=Count(4, 24), default=None, metavar="B",
                        help="With --compositions: lattice step 2^-B of the accountant (default by K).")(f)


def _composed_extra(compositions, grid_bits) -> dict:
    if compositions is None:
        if grid_bits is not None:
            raise click.UsageError("--grid-bits needs --compositions")
        return {}
    return {"compositions": compositions, **({} if grid_bits is None else {"grid_bits": grid_bits})}


def _rtol_for(rtol: str, compositions) -> str | None:
    """Under composition the default rtol (1e-6) becomes the composed default (1e-12 closed form, 0.02
    lattice): a lattice bracket cannot be that narrow and every probe is a composition."""
    return None if compositions is not None and rtol == "1e-6" else rtol


@contextmanager
def _spinner(message: str, quiet: bool):
    """A spinner on stderr (also with --json: stdout stays clean) that shows the radial engine's
    bins / width / precision while it works; silent when stderr is not a terminal."""
    from rich.console import Console

    from certdp.engines.radial import radial_progress

    err = Console(stderr=True)
    if not err.is_terminal:
        yield
        return
    with err.status(message, spinner="dots") as status:
        def show(bins, width, target, bits):
            status.update(f"{message} radial engine: {bins} bins, width {width / max(target, 1e-300):.2g}x "
                          f"the target, {bits} bits")

        with radial_progress(show):
            yield


@contextmanager
def _reached_on_budget():
    """One profile point: when ``--budget`` runs out, say UNDECIDED *with* the certified enclosure of
    delta the radial engine had reached (the intersection over its rounds and precision rungs)."""
    from certdp.cli.validate import BudgetExceeded
    from certdp.engines.radial import radial_reached
    from certdp.numbers import UndecidedError

    record: list = []
    try:
        with radial_reached(record):
            yield
    except BudgetExceeded:
        if not record:
            raise
        from certdp.numbers import Enclosure

        lower, upper, bits, bins = record
        lo, hi = Enclosure.from_bounds(lower, upper, bits).strings()     # outward-rounded decimals
        exc = UndecidedError(f"the budget was exceeded before the requested width; certified so far: delta in "
                             f"[{lo}, {hi}] ({bits} bits, {bins} bins)")
        exc.enclosure = (lo, hi)
        raise exc from None


# ------------------------------------------------------------------------------------------- calibrate
@calibrate.command("sgg")
@_dimension
@_shape
@epsilon_option
@delta_option
@sensitivity_option
@_rtol
@json_option
@output_option
@_compositions
@_grid_bits
def calibrate_sgg(dimension, alpha, power, epsilon, delta, sensitivity, rtol, as_json, output, compositions,
                  grid_bits):
    """Largest certified rate beta of SGG(alpha, beta, p) noise in R^T (safe end = smaller beta).

    With --compositions K: the per-step rate of K identical steps (claim 'minimal': every rate up to the
    safe one is private after K steps, every rate from the unsafe one on is not; seed 003 Lemma 4.2 at
    every eps in R + Blackwell, proofs/sgg_composed_monotonicity_lemma4_2.py)."""
    from certdp.workflows.calibrate import calibrate as calibrate_workflow

    extra = _composed_extra(compositions, grid_bits)
    with _spinner("certifying the rate bracket (radial engine)...", as_json):
        cert = calibrate_workflow("sgg", epsilon=epsilon, delta=delta, rtol=_rtol_for(rtol, compositions),
                                  dimension=dimension, alpha=alpha, power=power, sensitivity=sensitivity, **extra)
    sys.exit(emit_certificate(cert, as_json, output))


def _calibrate_preset(name: str):
    @_dimension
    @epsilon_option
    @delta_option
    @sensitivity_option
    @_rtol
    @json_option
    @output_option
    @_compositions
    @_grid_bits
    def command(dimension, epsilon, delta, sensitivity, rtol, as_json, output, compositions, grid_bits):
        from certdp.workflows.calibrate import calibrate as calibrate_workflow

        extra = _composed_extra(compositions, grid_bits)
        with _spinner(f"certifying the {name} bracket...", as_json):
            cert = calibrate_workflow(name, epsilon=epsilon, delta=delta, rtol=_rtol_for(rtol, compositions),
                                      dimension=dimension, sensitivity=sensitivity, **extra)
        sys.exit(emit_certificate(cert, as_json, output))

    command.__doc__ = f"Minimal certified {_PRESETS[name][1]} of the {name} mechanism (an SGG preset)."
    return command


for _name in _PRESETS:
    calibrate.command(_name)(_calibrate_preset(_name))


# ------------------------------------------------------------------------------------------- profile
def _profile_run(mechanism: str, value: str, epsilon: str, as_json: bool, plot: str | None,
                 label: str, **fixed):
    from rich.progress import Progress

    from certdp.workflows.profile import profile as profile_workflow
    from certdp.workflows.profile import profile_curve

    epsilons = [e.strip() for e in epsilon.split(",") if e.strip()]
    if len(epsilons) == 1 and not plot:
        with _spinner("certifying delta(eps) (radial engine)...", as_json), _reached_on_budget():
            cert = profile_workflow(mechanism, value=value, epsilon=epsilons[0], **fixed)
        sys.exit(emit_certificate(cert, as_json, show_json=False))
    curve = []
    with Progress(console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task("certified delta(eps)", total=len(epsilons))
        for e in epsilons:
            curve.extend(profile_curve(mechanism, value=value, epsilons=[e], **fixed))
            bar.advance(task)
    rows = [{"epsilon": e, "delta_enclosure": enc.strings()} for e, enc in curve]
    if as_json:
        print_json({"mechanism": mechanism, label: value, **{k: str(v) for k, v in fixed.items()},
                    "profile": rows})
    else:
        from rich.table import Table

        table = Table(title=f"certified delta(eps) of {mechanism}, {label} = {value}")
        for col in ("epsilon", "delta lower", "delta upper"):
            table.add_column(col)
        for row in rows:
            table.add_row(row["epsilon"], *row["delta_enclosure"])
        console.print(table)
    if plot:
        from certdp.cli.plots import plot_profile

        plot_profile(curve, plot, title=f"{mechanism}, {label} = {value}")
        if not as_json:
            console.print(f"plot written to {plot}")


_eps_list = click.option("--epsilon", "-e", required=True, type=EPSILON_LIST,
                         help="One epsilon >= 0, or a comma-separated list for a delta(eps) curve.")
_plot = click.option("--plot", type=PLOT_FILE, default=None,
                     help="Draw the certified delta(eps) curve to this PNG (needs 2+ epsilons).")


@profile.command("sgg")
@_dimension
@_shape
@click.option("--rate", "-b", "rate", required=True, type=POSITIVE, help="Rate beta > 0.")
@_eps_list
@sensitivity_option
@json_option
@_plot
def profile_sgg(dimension, alpha, power, rate, epsilon, sensitivity, as_json, plot):
    """Certified delta(epsilon) of SGG(alpha, beta, p) noise in R^T (seed 003 Lemma 4.1)."""
    _profile_run("sgg", rate, epsilon, as_json, plot, "rate", dimension=dimension, alpha=alpha,
                 power=power, sensitivity=sensitivity)


def _profile_preset(name: str):
    option, parameter, help_text = _PRESETS[name]

    @_dimension
    @click.option(option, "value", required=True, type=POSITIVE, help=help_text)
    @_eps_list
    @sensitivity_option
    @json_option
    @_plot
    def command(dimension, value, epsilon, sensitivity, as_json, plot):
        _profile_run(name, value, epsilon, as_json, plot, parameter, dimension=dimension,
                     sensitivity=sensitivity)

    command.__doc__ = f"Certified delta(epsilon) of the {name} mechanism at a given {parameter}."
    return command


for _name in _PRESETS:
    profile.command(_name)(_profile_preset(_name))


# ------------------------------------------------------------------------------------------- audit
@audit.command("r1smg")
@_dimension
@epsilon_option
@delta_option
@sensitivity_option
@click.option("--sigma-star", "value", default=None, type=POSITIVE,
              help="Audit this sigma_star instead of the Ji & Li Thm. 5 formula.")
@click.option("--table3", is_flag=True, help="Reproduce seed 003 Table 3 (T = 128, delta = 1e-5) instead.")
@json_option
@output_option
def audit_r1smg(dimension, epsilon, delta, sensitivity, value, table3, as_json, output):
    """Audit the R1SMG calibration of Ji & Li 2024 (Thm. 5): certified true delta and verdict."""
    import certdp.workflows.sgg_audit  # noqa: F401  (registers the claim)
    from certdp.workflows.audit import audit as audit_value
    from certdp.workflows.audit import audit_claim

    if table3:
        _table3(as_json)
        return
    with _spinner("certifying the true delta (radial engine)...", as_json):
        if value is None:
            cert = audit_claim("r1smg", epsilon=epsilon, delta=delta, dimension=dimension,
                               sensitivity=sensitivity)
        else:
            cert = audit_value("r1smg", value=value, epsilon=epsilon, delta=delta, dimension=dimension,
                               sensitivity=sensitivity)
    sys.exit(emit_certificate(cert, as_json, output, show_json=False))


def _table3(as_json: bool) -> None:
    from certdp.numbers import decimal_bounds
    from certdp.workflows.sgg_audit import table3_rows

    with _spinner("recomputing Table 3 (5 certified profiles, eta = 1e-9)...", as_json):
        rows = table3_rows(eta=1e-9)
    out = []
    for r in rows:
        lo = decimal_bounds(r["delta_lower"])[0]
        hi = decimal_bounds(r["delta_upper"])[1]
        out.append({"epsilon": r["epsilon"], "sigma_star": r["sigma_star"].str(10, radius=False),
                    "sigma_star_paper": r["sigma_paper"], "delta_true": [lo, hi],
                    "delta_true_paper": r["delta_paper"]})
    if as_json:
        print_json({"table": "seed 003 Table 3", "T": 128, "delta_claimed": "1e-5", "rows": out})
        return
    from rich.table import Table

    table = Table(title="seed 003 Table 3: R1SMG (Ji & Li Thm. 5) at T = 128, s = 1, delta_claimed = 1e-5")
    for col in ("eps", "sigma_star (certdp)", "paper", "certified delta_true", "paper"):
        table.add_column(col)
    for r in out:
        table.add_row(r["epsilon"], r["sigma_star"], r["sigma_star_paper"],
                      f"[{r['delta_true'][0][:12]}, {r['delta_true'][1][:12]}]", r["delta_true_paper"])
    console.print(table)


# ------------------------------------------------------------------------------------------- optimize
@optimize.command("sgg")
@_dimension
@epsilon_option
@delta_option
@sensitivity_option
@click.option("--maxfev", default=60, show_default=True, type=Count(1, 100_000),
              help="Float evaluations per Nelder-Mead start (an integer in [1, 100000]).")
@click.option("--no-baselines", is_flag=True, help="Skip the certified Gaussian / l2-Laplace baselines.")
@json_option
def optimize_sgg_command(dimension, epsilon, delta, sensitivity, maxfev, no_baselines, as_json):
    """Least-MSE SGG shape (seed 003 Algorithm 5): float search over (alpha, p), then a certified rate and MSE."""
    from rich.progress import Progress

    from certdp.workflows.sgg_parameter_search import optimize_sgg

    with Progress(console=console, transient=True, disable=as_json) as bar:
        task = bar.add_task("float search over (alpha, p)", total=None)
        result = optimize_sgg(dimension, epsilon, delta, sensitivity, maxfev=maxfev,
                              baselines=not no_baselines,
                              progress=lambda n: bar.update(task, completed=n))
    data = result.to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    from rich.table import Table

    table = Table(title=f"optimal SGG shape, T = {data['dimension']}, eps = {data['epsilon']}, "
                        f"delta = {data['delta']}", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    est = data["float_estimate"]
    table.add_row("float optimum", f"alpha = {est['alpha']:.6g}, p = {est['power']:.6g}, MSE ~ {est['mse']:.6g}")
    table.add_row("certified shape", f"alpha = {data['alpha']}, p = {data['power']}")
    table.add_row("certified rate", f"beta = {data['rate_safe']} (safe end of [{', '.join(data['rate_interval'])}])")
    table.add_row("certified MSE", "in [{}, {}]".format(*data["mse_enclosure"]))
    for name, info in data.get("baselines", {}).items():
        if "mse_lower" in info:
            table.add_row(f"{name} MSE >=", f"{info['mse_lower']:.10g}")
    red = data.get("baselines", {}).get("reduction_vs_best_baseline")
    if red:
        table.add_row("MSE reduction", f"at least {red['reduction_percent_at_least']:.3f}% vs the better baseline")
    table.add_row("certificate", data["certificate_digest"])
    console.print(table)
