"""Shared CLI options and output formatting (rich tables by default, JSON on request)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable

import click
from rich.console import Console
from rich.table import Table

from certdp.certificate import Certificate
from certdp.cli.validate import DELTA, EPSILON, OUTPUT_FILE, POSITIVE, RTOL

__all__ = [
    "epsilon_option", "delta_option", "sensitivity_option", "json_option", "output_option",
    "rtol_option", "emit_certificate", "console", "EXIT_CODES",
]

console = Console(highlight=False, soft_wrap=True)

EXIT_CODES = {"VALID": 0, "VIOLATED": 1, "INVALID": 1, "UNDECIDED": 3}


def epsilon_option(f: Callable) -> Callable:
    return click.option("--epsilon", "-e", required=True, type=EPSILON,
                        help="Privacy parameter epsilon > 0 (exact: 0.1 means one tenth).")(f)


def delta_option(f: Callable) -> Callable:
    return click.option("--delta", "-d", required=True, type=DELTA,
                        help="Target delta in (0, 1), e.g. 1e-5 (exact decimal).")(f)


def sensitivity_option(f: Callable) -> Callable:
    return click.option("--sensitivity", "-s", default="1", show_default=True, type=POSITIVE,
                        help="Sensitivity Delta > 0 of the query (its l2 sensitivity for multivariate noise).")(f)


def json_option(f: Callable) -> Callable:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")(f)


def output_option(f: Callable) -> Callable:
    return click.option("--output", "-o", type=OUTPUT_FILE, default=None,
                        help="Also write the certificate JSON to this file.")(f)


def rtol_option(f: Callable) -> Callable:
    return click.option("--rtol", default="1e-12", show_default=True, type=RTOL,
                        help="Relative width of the certified bracket.")(f)


def emit_certificate(cert: Certificate, as_json: bool, output: str | None = None, show_json: bool = True) -> int:
    """Print a certificate (table + JSON, or JSON only); return the exit code its verdict implies."""
    if output:
        Path(output).write_text(cert.to_json() + "\n", encoding="utf-8")
    if as_json:
        click.echo(cert.to_json())
    else:
        _print_summary(cert)
        if show_json:
            console.print("\n[bold]Certificate[/bold] (re-check with `certdp verify FILE`):")
            click.echo(cert.to_json())
        if output:
            console.print(f"\ncertificate written to {output}")
    return EXIT_CODES.get(cert.verdict or "VALID", 0)


def _print_summary(cert: Certificate) -> None:
    title = {"calibration": "certified calibration", "audit": "audit", "profile": "certified privacy profile"}
    table = Table(title=f"certdp {title.get(cert.kind, cert.kind)}: {cert.mechanism}", show_header=False,
                  title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    inputs = ", ".join(f"{k} = {v}" for k, v in {**cert.inputs, **cert.parameters}.items())
    table.add_row("inputs", inputs)
    if cert.verdict:
        style = {"VALID": "green", "VIOLATED": "red", "UNDECIDED": "yellow"}[cert.verdict]
        table.add_row("verdict", f"[{style}]{cert.verdict}[/{style}]")
    if "claim" in cert.extra:
        table.add_row("claim", f"{cert.extra['claim_formula']}  ({cert.extra['claim_reference']})")
        table.add_row(f"claimed {cert.parameter}", "in [{}, {}]".format(*cert.extra["claimed_value_enclosure"]))
    if cert.value is not None:
        table.add_row(cert.parameter or "value", str(cert.value))
    if cert.interval is not None:
        table.add_row("certified interval", f"[{cert.interval[0]}, {cert.interval[1]}]  "
                      f"(safe end: {cert.safe_side})")
    label = "delta(eps)" if cert.kind != "calibration" else "delta(eps) at value"
    if cert.delta_enclosure:
        table.add_row(label, "in [{}, {}]".format(*cert.delta_enclosure))
    else:  # e.g. Thm 4.2: the guarantee rests on the theorem, delta itself is not computed
        table.add_row(label, "not computed (the method's theorem guarantees delta(eps) <= delta)")
    table.add_row("claim", cert.claim + (f": {cert.condition['statement']}" if cert.condition else ""))
    if cert.guarantee:
        table.add_row("guarantee", cert.guarantee)
    table.add_row("method", cert.method)
    table.add_row("rests on", cert.lemma)
    table.add_row("precision", f"{cert.precision_bits} bits, {cert.timing_seconds * 1000:.1f} ms")
    table.add_row("digest", cert.digest)
    console.print(table)


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2))


def fail(message: str, code: int = 2) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)
