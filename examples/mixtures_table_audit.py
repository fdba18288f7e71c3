"""Regenerate the audit section of docs/mixtures_audit.md from `certdp table multi-gaussian --json`.

Every count and claim about the printed Tables 4-6 in docs/mixtures_audit.md is pasted from this
script's output (markdown), never typed by hand.

Run (the full audit, ~20-40 min on 2 cores):
    certdp table multi-gaussian --json --workers 2 > audit.json
    python examples/mixtures_table_audit.py audit.json
or, to run it here: python examples/mixtures_table_audit.py --run [--workers 2]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections import Counter
from fractions import Fraction

LETTER = {"REFUTED": "R", "NOT_REFUTED": "n", "UNDECIDED": "?", "IMPOSSIBLE": "I"}


def load(argv: list[str]) -> dict:
    if argv and argv[0] == "--run":
        cmd = [sys.executable, "-m", "certdp.cli.main", "table", "multi-gaussian", "--json", *argv[1:]]
        return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    with open(argv[0]) as fh:
        return json.load(fh)


def main(argv: list[str]) -> None:
    from certdp.workflows.mixtures.tables_qg import DELTAS, EPSILONS

    data = load(argv)
    cells = data["cells"]
    print(f"Run: `certdp table multi-gaussian --json --workers {data['workers']}`: {len(cells)} printed cells "
          f"in {data['seconds'] / 60:.1f} min.\n")
    print("| table | loss, family | REFUTED | NOT_REFUTED | UNDECIDED | IMPOSSIBLE |")
    print("|---|---|---|---|---|---|")
    fam = {"4": "l2, multimodal (MG K in [1, 20] and QG)", "5": "l1, QG", "6": "l2, QG"}
    for t, c in sorted(data["summary"].items()):
        print(f"| {t} | {fam.get(t, '')} | {c['REFUTED']} | {c['NOT_REFUTED']} | {c['UNDECIDED']} | {c['IMPOSSIBLE']} |")
    for t, why in data.get("unavailable_tables", {}).items():
        print(f"\nTable {t}: not audited ({why}).")

    by = {(c["table"], c["delta"], c["epsilon"]): c for c in cells}
    print("\n**Table 4, printed value and verdict** (R refuted, n not refuted, ? undecided, I impossible):\n")
    print("| delta \\ eps | " + " | ".join(EPSILONS) + " |")
    print("|---" * (len(EPSILONS) + 1) + "|")
    for d in DELTAS:
        row = []
        for e in EPSILONS:
            c = by.get(("4", d, e))
            row.append("NA" if c is None else f"{c['printed']} {LETTER[c['verdict']]}")
        print(f"| {d} | " + " | ".join(row) + " |")

    for t in sorted(data["summary"]):
        surv = Counter(c["survivor"]["member"] for c in cells if c["table"] == t and c["verdict"] == "NOT_REFUTED")
        if surv:
            print(f"\nTable {t}, NOT_REFUTED cells by surviving member (the first member tried that is DP at a "
                  "print-consistent sigma): " + ", ".join(f"{m} {n}" for m, n in sorted(surv.items())) + ".")
    table3_k = [c for c in cells if c["table"] == "4" and c["verdict"] == "NOT_REFUTED"
                and c["members_tried"] and c["survivor"]["member"] != c["members_tried"][0]]
    print(f"\nTable 4 cells NOT_REFUTED where Table 3's K (tried first) is refuted and a later member survives: "
          f"{len(table3_k)}"
          + (": " + "; ".join(f"({c['delta']}, {c['epsilon']}) {c['printed']} by {c['survivor']['member']}"
                              for c in table3_k) if table3_k else "") + ".")

    other = [c for c in cells if c["table"] in ("5", "6") and c["verdict"] != "NOT_REFUTED"]
    print(f"\nTables 5-6 cells other than NOT_REFUTED: {len(other)}"
          + (": " + "; ".join(f"T{c['table']} ({c['delta']}, {c['epsilon']}) {c['printed']} {c['verdict']}"
                              for c in other) if other else "") + ".")

    und = [c for c in cells if c["verdict"] == "UNDECIDED"]
    if und:
        print("\nUNDECIDED cells:\n")
        for c in und:
            print(f"* Table {c['table']} (delta {c['delta']}, eps {c['epsilon']}), printed {c['printed']}: {c['reason']}")

    imp = [c for c in cells if c["verdict"] == "IMPOSSIBLE"]
    if imp:
        print("\nIMPOSSIBLE cells: " + "; ".join(f"T{c['table']} ({c['delta']}, {c['epsilon']}) {c['printed']}"
                                               for c in imp) + ".")

    ex = [c for c in cells if c["verdict"] == "REFUTED"]
    if ex:
        print("\nExample witnesses (REFUTED cells; every member has one in the JSON):\n")
        for c in (ex[0], ex[-1]):
            w = c["witnesses"][0]
            what = f"sigma = {w['sigma']}" if "sigma" in w else f"sigma in [{w['sigma_range'][0]}, {w['sigma_range'][1]}]"
            print(f"* Table {c['table']} (delta {c['delta']}, eps {c['epsilon']}), printed {c['printed']}: "
                  f"{w['member']} at {what}, shift phi = {float(w['shift']):.6g}: certified H(phi) >= "
                  f"{w.get('H_lower_bound')} > delta.")

    audits = [a for c in cells for m in c["members"] for a in m.get("audit_seconds", [])]
    members = [m["seconds"] for c in cells for m in c["members"]]
    if audits:
        print(f"\nTiming: {len(audits)} exact-engine decisions (`decide_member` / ball witnesses) over "
              f"{len(members)} member checks: median {statistics.median(audits):.3f} s, max {max(audits):.2f} s, "
              f"{sum(a > 2 for a in audits)} above 2 s; per member (consistent-sigma search + decisions): "
              f"median {statistics.median(members):.3f} s, max {max(members):.2f} s.")
        slow = [(c, m, a) for c in cells for m in c["members"] for a in m.get("audit_seconds", []) if a > 2]
        if slow:
            print("\nDecisions above 2 s: " + "; ".join(
                f"T{c['table']} ({c['delta']}, {c['epsilon']}) {m['member']} {m['status']} {a:.1f} s" for c, m, a in slow) + ".")
            near = [c for c in cells if c["verdict"] == "NOT_REFUTED"
                    and Fraction(c["survivor"]["delta_enclosure"][1]) > Fraction(c["delta"]) * Fraction(9999, 10000)]
            print(f"\nNOT_REFUTED cells whose survivor's certified delta is within 1e-4 (relative) of the target: "
                  f"{len(near)} of {sum(c['verdict'] == 'NOT_REFUTED' for c in cells)}.")


if __name__ == "__main__":
    main(sys.argv[1:])
