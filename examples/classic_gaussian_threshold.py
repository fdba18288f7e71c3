"""Where does the textbook Gaussian calibration sigma = Delta sqrt(2 ln(1.25/delta))/eps stop being private?

Dwork & Roth prove it only for eps < 1; this script locates, for several
deltas, a pair of epsilons (a, b) with VALID proven at a and VIOLATED proven
at b (each by a certified Arb enclosure of the true delta).

Run: python examples/classic_gaussian_threshold.py
"""

from certdp.workflows.audit import claim_failure_bracket

print(f"{'delta':>8}  {'VALID at eps':>14}  {'VIOLATED at eps':>16}  true delta at the violating eps")
for delta in ["0.1", "0.01", "1e-5", "1e-10", "1e-100"]:
    r = claim_failure_bracket("classic-gaussian", delta=delta, rtol="1e-6")
    lo, hi = r["delta_enclosure_at_violated"]
    print(f"{delta:>8}  {r['epsilon_valid']:>14}  {r['epsilon_violated']:>16}  [{lo}, {hi}]")
