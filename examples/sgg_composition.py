"""Seed 003 Figure 3 (Sec. 4.4): minimal per-invocation MSE of the l2 mechanism (SGG, T = 10,
alpha = 9, p = 1) under k invocations at the total target (eps, delta) = (1, 1e-5).

Both columns are certified: "sequential" is Alg. 4 at (eps/k, delta/k) (certdp.calibrate), the
"accountant" column is the certified calibration under composition (connect-the-dots pairs from the
radial engine's certified profile, composed exactly on a lattice); the "float" column is an
uncertified float64 re-run for comparison. The same table is `certdp table sgg-composition`.

    PYTHONPATH=. python3 examples/sgg_composition.py [k ...]
"""

from __future__ import annotations

import sys

from certdp.workflows.sgg_composition import sgg_composition_table


def main():
    ks = [int(k) for k in sys.argv[1:]] or [2, 4, 8, 16, 32]
    print("k | sequential MSE (certified) | accountant MSE (certified) | float MSE (not certified)")
    for row in sgg_composition_table(ks, rtol="0.005", accountant_rtol="0.005"):
        print(f"{row['k']} | {row['sequential_mse'][1]} | {row['accountant_mse'][1]} | {row.get('float_mse')}")


if __name__ == "__main__":
    main()
