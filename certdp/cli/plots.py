"""Matplotlib figures for the CLI (Agg backend: works without a display)."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from certdp.numbers import Enclosure

__all__ = ["agg_pyplot", "plot_profile"]


def agg_pyplot():
    """``matplotlib.pyplot`` on the Agg backend (no display needed); imported on first use, so that
    ``import certdp`` and commands without a plot never load matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_profile(curve: Sequence[tuple[str, Enclosure]], path: str, title: str = "") -> None:
    """Plot the certified upper and lower bounds of delta(eps) on a log scale."""
    plt = agg_pyplot()

    eps = [float(Fraction(e)) for e, _ in curve]
    upper = [float(enc.upper) for _, enc in curve]
    lower = [float(enc.lower) for _, enc in curve]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(eps, upper, "o-", label="certified upper bound")
    ax.plot(eps, lower, "x--", label="certified lower bound")
    ax.set_yscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta(epsilon)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
