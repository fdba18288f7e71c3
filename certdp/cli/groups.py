"""The click command groups every CLI module attaches to."""

from __future__ import annotations

import click

__all__ = ["cli", "calibrate", "profile", "audit", "table", "optimize"]


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="certdp")
def cli() -> None:
    """certdp: certified calibration and auditing of differential-privacy noise.

    Every number is proven with Arb ball arithmetic or reported UNDECIDED.
    Exit codes: 0 success / VALID, 1 INVALID or VIOLATED, 2 bad input, 3 UNDECIDED.
    """


@cli.group()
def calibrate() -> None:
    """Certified minimal noise for (epsilon, delta)-DP; prints a certificate."""


@cli.group()
def profile() -> None:
    """Certified enclosure of delta(epsilon) at a given noise parameter."""


@cli.group()
def audit() -> None:
    """Check a claimed parameter: VALID, VIOLATED or UNDECIDED, with the certified true delta."""


@cli.group()
def table() -> None:
    """Reproduce the papers' tables with certified numbers."""


@cli.group()
def optimize() -> None:
    """Search a mechanism family for the least noise at (epsilon, delta), then certify it."""
