"""Readable crosscheck reports: a heatmap of where a library is unsafe or wasteful, and one HTML file.

The HTML report is self-contained (no scripts, no external files: the heatmap
is embedded as a base64 PNG), so it can be mailed, archived and opened offline.
Colours only display certified verdicts; they decide nothing.
"""

from __future__ import annotations

import base64
import html
import io
import math
from fractions import Fraction
from typing import Any

__all__ = ["heatmap_png", "html_report"]

_STYLE = {"VALID": "#1a7f37", "VIOLATED": "#cf222e", "UNDECIDED": "#9a6700", "N/A": "#6e7781"}


def _axis(points: list[dict[str, Any]], key: str) -> list[str]:
    return sorted({p[key] for p in points}, key=lambda s: Fraction(s))


_LABEL = {"epsilon": "eps", "delta": "delta", "sampling_rate": "q", "sigma": "sigma", "steps": "k"}


def _layout(points: list[dict[str, Any]]) -> tuple[str, tuple[str, ...]]:
    """(the key across, the keys whose combinations make the rows) of a heatmap of these points.

    Epsilon/delta questions: epsilon across, delta up. DP-SGD points: k across (its grid axis;
    the epsilon there is the library's answer), rows = combinations of q, sigma (or the target
    eps) and delta.
    """
    if points and points[0].get("returns") in ("dpsgd-epsilon", "dpsgd-sigma"):
        grid_key = "sigma" if points[0]["returns"] == "dpsgd-epsilon" else "epsilon"
        return "steps", ("sampling_rate", grid_key, "delta")
    return "epsilon", ("delta",)


def heatmap_png(points: list[dict[str, Any]], title: str) -> bytes:
    """PNG bytes: epsilon across, delta up (DP-SGD: k across, (q, sigma, delta) up); red = VIOLATED
    (certified), colour scale = excess percent (noise; DP-SGD: epsilon above certdp's upper end)."""
    import itertools

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    across, row_keys = _layout(points)
    eps = _axis(points, across)
    row_axes = [_axis(points, k) for k in row_keys]
    rows = list(itertools.product(*row_axes))
    drop = [n for n, values in enumerate(row_axes) if len(values) == 1 and len(row_keys) > 1]
    deltas = [", ".join(f"{_LABEL[k]}={v}" for n, (k, v) in enumerate(zip(row_keys, r)) if n not in drop)
              if len(row_keys) > 1 else r[0] for r in rows]
    fixed = ", ".join(f"{_LABEL[row_keys[n]]}={row_axes[n][0]}" for n in drop)
    grid: list[list[float]] = [[math.nan] * len(eps) for _ in deltas]
    status = [[""] * len(eps) for _ in deltas]
    for p in points:
        i, j = rows.index(tuple(p[k] for k in row_keys)), eps.index(p[across])
        status[i][j] = p["verdict"]
        if p["verdict"] == "VALID" and p["excess_percent"] is not None:
            grid[i][j] = math.log10(max(p["excess_percent"], 1e-12))
    width = 1.2 + 0.62 * len(eps) + (0.06 * max(len(d) for d in deltas) if len(row_keys) > 1 else 0)
    fig, ax = plt.subplots(figsize=(max(width, 4.5), 1.6 + 0.45 * len(deltas)), dpi=110)
    cmap = plt.get_cmap("YlGnBu").with_extremes(bad=(0, 0, 0, 0))
    finite = [v for row in grid for v in row if not math.isnan(v)]
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap=cmap,
                      vmin=min(finite, default=-12), vmax=max(max(finite, default=2), min(finite, default=-12) + 1))
    overlay = [[1.0 if s == "VIOLATED" else 2.0 if s in ("UNDECIDED", "N/A") else math.nan for s in row]
               for row in status]
    ax.imshow(overlay, origin="lower", aspect="auto", cmap=ListedColormap([_STYLE["VIOLATED"], "#b0b0b0"]),
              vmin=1, vmax=2)
    for i, row in enumerate(status):
        for j, s in enumerate(row):
            mark = {"VIOLATED": "✗", "UNDECIDED": "?", "N/A": "–", "": ""}.get(s, "")
            if mark:
                ax.text(j, i, mark, ha="center", va="center", color="white", fontsize=10, fontweight="bold")
    ax.set_xticks(range(len(eps)), eps, rotation=60, fontsize=8)
    ax.set_yticks(range(len(deltas)), deltas, fontsize=8)
    ax.set_xlabel({"epsilon": "epsilon", "steps": "k (steps)"}[across])
    ax.set_ylabel("delta" if len(row_keys) == 1 else ", ".join(_LABEL[k] for n, k in enumerate(row_keys)
                                                               if n not in drop))
    ax.set_title(title + (f" ({fixed})" if fixed else ""), fontsize=10)
    bar = fig.colorbar(image, ax=ax, fraction=0.05, pad=0.02)
    bar.set_label("VALID: log10(excess noise %)" if across == "epsilon" else
                  "VALID: log10(excess %)", fontsize=8)
    ax.legend(handles=[Patch(color=_STYLE["VIOLATED"], label="VIOLATED (✗)"),
                       Patch(color="#b0b0b0", label="not answered / undecided")],
              loc="upper center", bbox_to_anchor=(0.5, -0.42 if len(eps) > 1 else -0.3), ncol=2, fontsize=8,
              frameon=False)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def _fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:+.{digits}g}%"
    return str(value)


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value * 1000:.3g} ms"


def html_report(report: dict[str, Any]) -> str:
    """One self-contained HTML page for a crosscheck result (``points``, ``summary``, ``library``, ...)."""
    e = html.escape
    points, summary = report["points"], report["summary"]
    png = base64.b64encode(heatmap_png(points, f"{report['library']} {report['library_version']}: "
                                               f"{report['question']}")).decode("ascii")
    dpsgd = report.get("returns") in ("dpsgd-epsilon", "dpsgd-sigma")
    rows = []
    for p in points:
        colour = _STYLE.get(p["verdict"], "#000")
        enclosure = "–" if not p["delta_enclosure"] else f"[{e(p['delta_enclosure'][0])}, {e(p['delta_enclosure'][1])}]"
        if dpsgd:
            bracket = "–" if not p.get("epsilon_enclosure") else \
                f"[{e(p['epsilon_enclosure'][0])}, {e(p['epsilon_enclosure'][1])}]"
            where = (f"<td>{e(p['sampling_rate'])}</td><td>{e(str(p['sigma'] or '–'))}</td><td>{e(p['steps'])}</td>"
                     f"<td>{e(str(p['epsilon'] or '–'))}</td><td>{e(p['delta'])}</td>"
                     f"<td>{e(_fmt(p['library_value']))}</td><td class='m'>{bracket}</td>")
        else:
            where = (f"<td>{e(p['epsilon'])}</td><td>{e(p['delta'])}</td><td>{e(_fmt(p['library_value']))}</td>"
                     f"<td>{e(_fmt(p['certified_minimum']))}</td>")
        rows.append(
            f"<tr>{where}"
            f"<td style='color:{colour};font-weight:bold'>{e(p['verdict'])}</td><td class='m'>{enclosure}</td>"
            f"<td>{e(_fmt(p['excess_percent']))}</td><td class='m'>{e(p['note'] or '')}</td></tr>")
    if dpsgd:
        header = ("<th>q</th><th>sigma</th><th>k</th><th>epsilon claimed</th><th>delta</th><th>library</th>"
                  "<th>certdp epsilon (certified)</th><th>verdict</th><th>certified delta at the claimed eps</th>"
                  "<th>eps above certdp's upper end</th><th>note</th>")
        explain = ("The library claims that DP-SGD (Poisson rate q, noise multiplier sigma, k steps, "
                   "add-or-remove adjacency) is (epsilon, delta)-DP: it reported that epsilon (or that sigma, for a "
                   "target epsilon). certdp's lattice PLD accountant certifies a bracket of the true epsilon at "
                   "delta and, from the same certified measures, an enclosure of the true delta at the claimed "
                   "epsilon: VALID means it is proven &le; delta, VIOLATED that it is proven &gt; delta (the "
                   "library under-reports epsilon). The last number is the claimed epsilon against certdp's "
                   "certified upper end (negative: below it).")
    else:
        header = ("<th>epsilon</th><th>delta</th><th>library</th><th>certdp minimum</th><th>verdict</th>"
                  "<th>certified true delta</th><th>excess</th><th>note</th>")
        explain = ("Each answer of the library is read exactly (the shortest repr of its float) and audited by "
                   "certdp with Arb ball arithmetic: VALID means delta(eps) &le; delta is proven at the library's "
                   "parameter, VIOLATED that delta(eps) &gt; delta is proven; the enclosure is the certified true "
                   "delta. The excess is the library's answer against certdp's certified minimum (negative: less "
                   "noise than the minimum).")
    facts = [
        ("library", f"{report['library']} {report['library_version']}"),
        ("asked", report["asks"]),
        ("call", report["call"]),
        ("certdp mechanism", report["mechanism"]),
        ("points", summary["points"]), ("answered (tried)", summary["tried"]),
        ("VIOLATED (proven)", summary["violated"]), ("VALID (proven)", summary["valid"]),
        ("UNDECIDED", summary["undecided"]), ("not answered", summary["not_applicable"]),
        ("worst excess " + ("(eps above certdp's upper end)" if dpsgd else "noise"),
         _fmt(summary["worst_excess_percent"])),
        ("median excess on VALID points", _fmt(summary["median_valid_excess_percent"])),
        ("worst violation " + ("(eps below certdp's upper end by)" if dpsgd else "(noise short by)"),
         _fmt(summary["worst_violation_percent"])),
        ("median time per call, library", _seconds(summary["median_library_seconds"])),
        ("median time per call, certdp " + ("accountant" if dpsgd else "calibrate"),
         _seconds(summary["median_certdp_seconds"])),
        *(() if dpsgd else (("median time per call, certdp audit", _seconds(summary["median_audit_seconds"])),)),
        *((("certdp bracket rtol", report.get("rtol")),) if dpsgd else ()),
        ("certdp", report["certdp_version"]),
    ]
    fact_rows = "".join(f"<tr><th>{e(str(k))}</th><td>{e(str(v))}</td></tr>" for k, v in facts)
    heading = "unsafe" if summary["violated"] else "safe"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>certdp crosscheck: {e(report['library'])} {e(report['question'])}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #1f2328; max-width: 80em; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
th, td {{ border: 1px solid #d0d7de; padding: 0.25em 0.6em; text-align: left; font-size: 0.9em; }}
th {{ background: #f6f8fa; }}
td.m {{ font-family: ui-monospace, monospace; font-size: 0.8em; }}
.verdict {{ font-size: 1.3em; font-weight: bold; color: {_STYLE['VIOLATED'] if summary['violated'] else _STYLE['VALID']}; }}
</style></head><body>
<h1>certdp crosscheck: {e(report['library'])} — {e(report['question'])}</h1>
<p class="verdict">{summary['violated']} of {summary['tried']} answers proven {'VIOLATED' if summary['violated'] else 'VALID'}
({heading} where red)</p>
<p>{explain}</p>
<h2>Summary</h2><table>{fact_rows}</table>
<h2>Where the library is unsafe or wasteful</h2>
<img alt="heatmap of verdicts and excess noise" src="data:image/png;base64,{png}">
<h2>Every point</h2>
<table><tr>{header}</tr>
{''.join(rows)}
</table>
</body></html>
"""
