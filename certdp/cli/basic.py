"""CLI commands for the closed-form mechanisms: gaussian, laplace, uniform, and the classic-gaussian claim."""

from __future__ import annotations

import sys

import click

from certdp.cli.common import (
    console, delta_option, emit_certificate, epsilon_option, json_option, output_option, print_json,
    rtol_option, sensitivity_option,
)
from certdp.cli.groups import audit, calibrate, profile
from certdp.cli.validate import DELTA0, EPSILON, EPSILON_LIST, PLOT_FILE, POSITIVE, Count
from certdp.numbers import InputError
from certdp.workflows.audit import audit as audit_value
from certdp.workflows.audit import audit_claim, claim_failure_bracket
from certdp.workflows.calibrate import calibrate as calibrate_workflow
from certdp.workflows.profile import profile as profile_workflow
from certdp.workflows.profile import profile_curve


def _dimension_option(f):
    return click.option("--dimension", "-T", default="1", show_default=True, type=Count(1, 10**9),
                        help="Dimension T of the query (the profile depends only on the l2 sensitivity).")(f)


# ---------------------------------------------------------------- calibrate
@calibrate.command("gaussian")
@epsilon_option
@delta_option
@sensitivity_option
@_dimension_option
@rtol_option
@json_option
@output_option
@click.option("--compositions", "-k", default=None, metavar="K",
              help="Calibrate the per-step sigma of K identical steps (composed, certified).")
def calibrate_gaussian(epsilon, delta, sensitivity, dimension, rtol, as_json, output, compositions):
    """Minimal sigma of the (analytic) Gaussian mechanism, certified."""
    if compositions is not None:
        cert = calibrate_workflow("gaussian", epsilon=epsilon, delta=delta, rtol=rtol, sensitivity=sensitivity,
                                  compositions=compositions)
        sys.exit(emit_certificate(cert, as_json, output))
    cert = calibrate_workflow("gaussian", epsilon=epsilon, delta=delta, rtol=rtol,
                              sensitivity=sensitivity, dimension=dimension)
    sys.exit(emit_certificate(cert, as_json, output))


@calibrate.command("laplace")
@epsilon_option
@click.option("--delta", "-d", required=True, type=DELTA0, help="Target delta in [0, 1); 0 means pure eps-DP.")
@sensitivity_option
@rtol_option
@json_option
@output_option
@click.option("--compositions", "-k", default=None, metavar="K",
              help="Calibrate the per-step scale of K identical steps (composed, certified).")
def calibrate_laplace(epsilon, delta, sensitivity, rtol, as_json, output, compositions):
    """Minimal Laplace scale b, certified (delta = 0 gives the exact pure-DP scale Delta/eps)."""
    if compositions is not None:
        cert = calibrate_workflow("laplace", epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                                  compositions=compositions, rtol=None if rtol == "1e-12" else rtol)
        sys.exit(emit_certificate(cert, as_json, output))
    cert = calibrate_workflow("laplace", epsilon=epsilon, delta=delta, rtol=rtol, sensitivity=sensitivity)
    sys.exit(emit_certificate(cert, as_json, output))


@calibrate.command("uniform")
@epsilon_option
@delta_option
@sensitivity_option
@rtol_option
@json_option
@output_option
def calibrate_uniform(epsilon, delta, sensitivity, rtol, as_json, output):
    """Minimal half-width b of uniform noise on [-b, b], certified (delta = Delta/(2b))."""
    cert = calibrate_workflow("uniform", epsilon=epsilon, delta=delta, rtol=rtol, sensitivity=sensitivity)
    sys.exit(emit_certificate(cert, as_json, output))


# ---------------------------------------------------------------- profile
def profile_command(mechanism: str, option: str, parameter: str):
    @click.option("--epsilon", "-e", required=True, type=EPSILON_LIST,
                  help="One epsilon >= 0, or a comma-separated list for a delta(eps) curve.")
    @click.option(option, "value", required=True, type=POSITIVE, help=f"The {parameter} > 0 of the mechanism.")
    @sensitivity_option
    @json_option
    @click.option("--plot", type=PLOT_FILE, default=None,
                  help="Draw the certified delta(eps) curve to this PNG (needs 2+ epsilons).")
    @output_option
    def command(epsilon, value, sensitivity, as_json, plot, output, **extra):
        epsilons = [e for e in epsilon.split(",") if e.strip()]
        if output and len(epsilons) != 1:
            raise InputError("output", "a profile certificate is for one epsilon: give one --epsilon with -o")
        if len(epsilons) == 1 and not plot:
            cert = profile_workflow(mechanism, value=value, epsilon=epsilons[0], sensitivity=sensitivity, **extra)
            sys.exit(emit_certificate(cert, as_json, output, show_json=False))
        curve = profile_curve(mechanism, value=value, epsilons=epsilons, sensitivity=sensitivity, **extra)
        rows = [{"epsilon": e, "delta_enclosure": enc.strings()} for e, enc in curve]
        if as_json:
            print_json({"mechanism": mechanism, parameter: value, "profile": rows})
        else:
            from rich.table import Table

            table = Table(title=f"certified delta(eps) of {mechanism}, {parameter} = {value}")
            table.add_column("epsilon")
            table.add_column("delta lower")
            table.add_column("delta upper")
            for row in rows:
                table.add_row(row["epsilon"], *row["delta_enclosure"])
            console.print(table)
        if plot:
            from certdp.cli.plots import plot_profile

            plot_profile(curve, plot, title=f"{mechanism}, {parameter} = {value}")
            if not as_json:
                console.print(f"plot written to {plot}")

    command.__doc__ = f"Certified delta(epsilon) of the {mechanism} mechanism at a given {parameter}."
    return command


profile.command("gaussian")(_dimension_option(profile_command("gaussian", "--sigma", "sigma")))
profile.command("laplace")(profile_command("laplace", "--scale", "scale"))
profile.command("uniform")(profile_command("uniform", "--scale", "scale"))


# ---------------------------------------------------------------- audit
def _audit_command(mechanism: str, option: str, parameter: str):
    @click.option(option, "value", required=True, type=POSITIVE, help=f"The claimed {parameter} > 0.")
    @epsilon_option
    @delta_option
    @sensitivity_option
    @json_option
    @output_option
    def command(value, epsilon, delta, sensitivity, as_json, output, **extra):
        cert = audit_value(mechanism, value=value, epsilon=epsilon, delta=delta, sensitivity=sensitivity, **extra)
        sys.exit(emit_certificate(cert, as_json, output, show_json=False))

    command.__doc__ = f"Is the {mechanism} mechanism with this {parameter} (epsilon, delta)-DP?"
    return command


audit.command("gaussian")(_dimension_option(_audit_command("gaussian", "--sigma", "sigma")))
audit.command("laplace")(_audit_command("laplace", "--scale", "scale"))
audit.command("uniform")(_audit_command("uniform", "--scale", "scale"))


@audit.command("classic-gaussian")
@click.option("--epsilon", "-e", default=None, type=EPSILON, help="Privacy parameter epsilon > 0.")
@delta_option
@sensitivity_option
@click.option("--find-threshold", is_flag=True,
              help="Locate the epsilon where the claim starts to fail (certified VALID/VIOLATED pair).")
@json_option
@output_option
def audit_classic_gaussian(epsilon, delta, sensitivity, find_threshold, as_json, output):
    """Audit sigma = Delta sqrt(2 ln(1.25/delta))/eps (Dwork & Roth, Thm A.1)."""
    if find_threshold:
        result = claim_failure_bracket("classic-gaussian", delta=delta, sensitivity=sensitivity)
        if as_json:
            print_json(result)
        else:
            console.print(
                f"classic Gaussian calibration at delta = {result['delta']}:\n"
                f"  VALID (proven)    at epsilon = {result['epsilon_valid']}, "
                f"true delta in [{', '.join(result['delta_enclosure_at_valid'])}]\n"
                f"  VIOLATED (proven) at epsilon = {result['epsilon_violated']}, "
                f"true delta in [{', '.join(result['delta_enclosure_at_violated'])}]")
        sys.exit(0)
    if epsilon is None:
        raise click.UsageError("Missing option '--epsilon' (or pass --find-threshold).")
    cert = audit_claim("classic-gaussian", epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    sys.exit(emit_certificate(cert, as_json, output, show_json=False))
