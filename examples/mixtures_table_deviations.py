"""Seed 000 Tables 5-6: the eight QG cells whose printed values imply a sigma failing Thm 4.2, and the
exact engine's verdict at that sigma (markdown rows for docs/mixtures_audit.md).

For each cell: back out the sigma_QG the printed improvement implies (taken as exact, given our
certified analytic-Gaussian sigma; float root of the QG loss, rounded to 12 digits: it is only the
point audited), certify the paper's sufficient condition of Thm 4.2 there (``-h1/(e^eps + 2 Phi) <=
delta``), then decide (eps, delta)-DP of QG at that sigma with the exact engine (decision mode; a
witness shift and certified lower bound when not DP, the certified delta(eps) upper bound when DP),
and finally the verdict of the refutation rule (print rounding, certified baseline bracket:
:func:`certdp.workflows.mixtures.table_audit.refute_printed_cell`).

Run: python examples/mixtures_table_deviations.py
"""
import math
import time
from fractions import Fraction

from scipy.optimize import brentq

from certdp.engines.gaussian_mixture.float_guide import qg_moments_float
from certdp.numbers import arb_of, decimal_bounds, exact_str, working_precision
from certdp.workflows.mixtures import qg_sigma1_profile
from certdp.workflows.mixtures.table_audit import Member, decide_member, refute_printed_cell
from certdp.workflows.mixtures.tables_qg import DELTAS, EPSILONS, PAPER_TABLE5, PAPER_TABLE6, qg_cell

print("| table | delta | eps | printed | Thm 4.2 sigma (ours) | implied sigma | Thm 4.2 at implied | exact engine at implied sigma | time | rule verdict (rounding) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for (i, j, tab) in [(0, 1, 5), (0, 1, 6), (0, 2, 5), (0, 2, 6), (1, 2, 5), (1, 2, 6), (1, 1, 6), (3, 0, 6)]:
    dl, ep = DELTAS[i], EPSILONS[j]
    cell = qg_cell(dl, ep)
    sa, e = float(cell.sigma_gaussian), float(ep)
    printed = (PAPER_TABLE5 if tab == 5 else PAPER_TABLE6)[i][j]
    a = sa * math.sqrt(2 / math.pi) if tab == 5 else sa * sa
    q = a / (1 + printed / 100)  # improvement (a - q) / max(a, q) with q > a
    k = 0 if tab == 5 else 1
    s_imp = Fraction(f"{brentq(lambda s: qg_moments_float(s, e)[k] - q, 0.5 * sa, 2 * sa, xtol=1e-14):.12g}")
    with working_precision(128):
        val = qg_sigma1_profile(Fraction(ep), Fraction(1))(arb_of(s_imp))
        cond = "fails" if val > arb_of(Fraction(dl)) else ("holds" if val <= arb_of(Fraction(dl)) else "undecided")
        cond += f", -h1/(e^eps+2Phi) >= {decimal_bounds(val, 8)[0]}"
    t0 = time.perf_counter()
    r = decide_member(Member("QG"), s_imp, s_imp, Fraction(ep), Fraction(dl))
    secs = time.perf_counter() - t0
    if r["decision"] == "DP":
        exact = f"DP: delta(eps) <= {r['delta_enclosure'][1]}"
    elif r["decision"] == "NOT_DP":
        exact = (f"NOT DP: H(phi = {float(r['witness']['shift']):.6g}) >= {r['witness']['H_lower_bound']}")
    else:
        exact = r["decision"]
    rule = refute_printed_cell(str(tab), ep, dl, f"{printed:.2f}")
    surv = f" ({rule['survivor']['member']} at sigma {rule['survivor']['sigma']})" if rule["survivor"] else ""
    print(f"| {tab} | {dl} | {ep} | {printed:.2f} | {cell.sigma_qg} | {exact_str(s_imp)} | {cond} | {exact} | {secs:.2f} s | "
          f"{rule['verdict']}{surv} |")
