"""The refutation rule for printed tables (:mod:`certdp.workflows.mixtures.table_audit`) and the JSON
contract of ``certdp table multi-gaussian``.

Constructed cells: a cell reachable only by QG (within the members given) is NOT_REFUTED; a cell
reachable only inside the print's rounding is NOT_REFUTED (and REFUTED if the print were exact);
a cell refuted for every K and QG is REFUTED, its witnesses re-evaluated by independent mpmath
references at 40+ digits (MG: :class:`mg_reference.MGShiftRef`; QG: a quadrature below).
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from mg_reference import MGShiftRef, _mp, sixty_digits  # noqa: F401  (sixty_digits: autouse fixture)

from certdp.workflows.mixtures.table_audit import Member, members_for, refute_printed_cell

ROOT = Path(__file__).resolve().parents[1]


def qg_hockey_stick_ref(sigma: Fraction, eps: Fraction, phi: Fraction, dps: int = 40) -> mpmath.mpf:
    """``int (f(x + phi) - e^eps f(x))_+ dx`` for the QG density (Def. 4.1), mpmath only: sign scan of
    ``D`` on a grid of 1000 points, roots by bisection, ``mpmath.quad`` on each positive run."""
    with mpmath.workdps(dps):
        s, e, p = _mp(sigma), _mp(eps), _mp(phi)
        ee = mpmath.exp(e)
        c = mpmath.sqrt(2 * mpmath.pi) * s * (ee + 2 * mpmath.ncdf(1 / s))

        def f(x):
            return (ee * mpmath.exp(-x * x / (2 * s * s)) + mpmath.exp(-(abs(x) - 1) ** 2 / (2 * s * s))) / c

        def d(x):
            return f(x + p) - ee * f(x)

        lo, hi = -1 - p - 12 * s, 1 + 12 * s
        n = 1000
        xs = sorted(set([lo + (hi - lo) * mpmath.mpf(k) / n for k in range(n + 1)] + [mpmath.mpf(0), -p]))
        signs = [d(x) > 0 for x in xs]
        pts = [xs[0]]  # the window's ends and the roots of D
        for (a, b), sa, sb in zip(zip(xs, xs[1:]), signs, signs[1:]):
            if sa != sb:
                u, v = a, b
                for _ in range(3 * dps + 10):
                    w = (u + v) / 2
                    if (d(w) > 0) == sa:
                        u = w
                    else:
                        v = w
                pts.append((u + v) / 2)
        pts.append(xs[-1])
        total = mpmath.mpf(0)
        for a, b in zip(pts, pts[1:]):
            if b > a and d((a + b) / 2) > 0:
                kinks = [k for k in (-p, mpmath.mpf(0)) if a < k < b]  # |x| kinks of f(x + phi), f(x)
                total += mpmath.quad(d, [a, *kinks, b])
        return total


def test_members_multimodal_is_every_k_and_qg():
    ms = members_for("multimodal", first_k=9)
    assert ms[0] == Member("MG", 9) and ms[1] == Member("QG")
    assert sorted(m.k for m in ms if m.family == "MG") == list(range(1, 21)) and len(ms) == 21
    assert members_for("QG") == [Member("QG")]


def test_cell_reachable_only_by_qg_is_not_refuted():
    """(delta 0.1, eps 2), printed 31.45 %: with the members MG(K=8) (Table 3's K) and QG, MG(K=8) is
    refuted but QG at a print-consistent sigma is certified DP; without QG the same cell is REFUTED."""
    both = refute_printed_cell("4", "2", "0.1", "31.45", members=[Member("MG", 8), Member("QG")])
    assert both["verdict"] == "NOT_REFUTED", both
    assert both["survivor"]["member"] == "QG"
    assert [m["status"] for m in both["members"]] == ["REFUTED", "SURVIVES"]
    hi = Fraction(both["survivor"]["delta_enclosure"][1])
    assert hi <= Fraction("0.1")
    mg_only = refute_printed_cell("4", "2", "0.1", "31.45", members=[Member("MG", 8)])
    assert mg_only["verdict"] == "REFUTED" and len(mg_only["witnesses"]) == 1


def test_cell_reachable_only_inside_print_rounding_is_not_refuted():
    """(delta 0.1, eps 0.5), printed 3.26 %, MG(K=2): the printed value taken as exact implies a sigma
    that is not DP; I - 0.005 implies a larger sigma that is. The rule (rounding) says NOT_REFUTED."""
    exact = refute_printed_cell("4", "0.5", "0.1", "3.26", members=[Member("MG", 2)], half_width=Fraction(0))
    assert exact["verdict"] == "REFUTED", exact
    rounded = refute_printed_cell("4", "0.5", "0.1", "3.26", members=[Member("MG", 2)])
    assert rounded["verdict"] == "NOT_REFUTED", rounded
    assert rounded["print_interval"] == ["3.255", "3.265"]
    # the surviving sigma is larger than the refuted one (consistent with I - 0.005 only)
    assert Fraction(rounded["survivor"]["sigma"]) > Fraction(exact["witnesses"][0]["sigma"])


def test_print_implying_no_sigma_is_impossible():
    """QG's l2 loss is at least Delta^2 / (e^eps + 1) at every sigma: a print of 99.9 % at eps = 1 is
    below that for the QG family (Table 6), so IMPOSSIBLE with the reason."""
    cell = refute_printed_cell("6", "1", "0.01", "99.9")
    assert cell["verdict"] == "IMPOSSIBLE", cell
    assert cell["members"][0]["status"] == "IMPOSSIBLE" and "e^eps + 1" in cell["members"][0]["reason"]


def _baseline_sigma_mpmath(eps: mpmath.mpf, delta: mpmath.mpf) -> mpmath.mpf:
    def bw(s):
        return mpmath.ncdf(1 / (2 * s) - eps * s) - mpmath.exp(eps) * mpmath.ncdf(-1 / (2 * s) - eps * s) - delta

    return mpmath.findroot(bw, (mpmath.mpf("0.05"), mpmath.mpf("5")), solver="bisect", tol=1e-45)


def test_cell_refuted_for_every_k_and_qg_witnesses_verify_independently():
    """(delta 5e-7, eps 4), printed 94.54 %: every MG K in [1, 20] and QG refuted. Each MG witness sigma
    is the largest print-consistent sigma (checked against mpmath: I - 0.005, the Balle-Wang sigma at
    50 digits), and H at the witness shift, re-evaluated by mpmath, exceeds delta and the certified
    lower bound; QG's witness holds at both ends of its sigma range (mpmath quadrature)."""
    cell = refute_printed_cell("4", "4", "5e-7", "94.54", first_k=9)
    assert cell["verdict"] == "REFUTED", cell
    assert len(cell["members_tried"]) == 21 and len(cell["witnesses"]) == 21
    e, dl = Fraction(4), Fraction("5e-7")
    s_g = _baseline_sigma_mpmath(_mp(e), _mp(dl))
    m_max = s_g ** 2 * (1 - mpmath.mpf("0.9454") + mpmath.mpf("0.00005"))
    for w in cell["witnesses"]:
        member = Member.parse(w["member"])
        shift = Fraction(w["shift"])
        h_low = _mp(Fraction(w["H_lower_bound"]))
        assert h_low > _mp(dl)
        if member.family == "MG":
            k = member.k
            sig = Fraction(w["sigma"])
            ks = range(-k, k + 1)
            z = mpmath.fsum(mpmath.exp(-abs(j) * 4) for j in ks)
            floor_ = mpmath.fsum(mpmath.exp(-abs(j) * 4) * j * j for j in ks) / z
            s_ref = mpmath.sqrt(m_max - floor_)
            assert s_ref <= _mp(sig) <= s_ref * (1 + mpmath.mpf("1e-6")), (k, sig, s_ref)
            if k in (1, 2, 9):  # the reference costs 0.2-10 s per shift at 60 digits: three K
                ref = MGShiftRef(sig, e, k, shift).hockey_stick()
                assert ref > _mp(dl) and h_low <= ref * (1 + mpmath.mpf("1e-12")), (k, ref, h_low)
        else:
            lo, hi = (Fraction(v) for v in w["sigma_range"])
            assert lo < hi
            for sig in (lo, hi):
                ref = qg_hockey_stick_ref(sig, e, shift)
                assert ref > _mp(dl) and h_low <= ref * (1 + mpmath.mpf("1e-12")), (sig, ref, h_low)


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "certdp.cli.main", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


def test_table_command_json_contract_on_a_subset():
    out = _cli("table", "multi-gaussian", "--json", "--table", "4", "--table", "5", "--cells", "0.1,0.5")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) >= {"cells", "summary"}
    assert len(data["cells"]) == 2
    for c in data["cells"]:
        assert set(c) >= {"table", "epsilon", "delta", "printed", "verdict", "witnesses", "members_tried"}
        assert c["verdict"] in {"REFUTED", "NOT_REFUTED", "UNDECIDED", "IMPOSSIBLE"}
        assert (c["epsilon"], c["delta"]) == ("0.5", "0.1")
    assert {c["table"]: c["printed"] for c in data["cells"]} == {"4": "3.26", "5": "-3.42"}
    assert {t: sum(v.values()) for t, v in data["summary"].items()} == {"4": 1, "5": 1}
    assert "1" in data["unavailable_tables"]


def test_table_command_rejects_bad_cells():
    out = _cli("table", "multi-gaussian", "--cells", "0.1")
    assert out.returncode != 0 and "Traceback" not in out.stderr


@pytest.mark.slow
def test_full_tables_audit():
    """Every printed cell of Tables 4, 5 and 6 through the rule (~15-30 min on 2 cores)."""
    out = _cli("table", "multi-gaussian", "--json", "--workers", "2", timeout=7200)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    counts = {t: sum(v.values()) for t, v in data["summary"].items()}
    assert counts == {"4": 143, "5": 150, "6": 150}
    for c in data["cells"]:
        if c["verdict"] == "REFUTED":
            assert len(c["witnesses"]) + sum(m["status"] == "IMPOSSIBLE" for m in c["members"]) == len(c["members"])
            assert len(c["members"]) == (21 if c["table"] == "4" else 1)
        if c["verdict"] == "NOT_REFUTED":
            assert Fraction(c["survivor"]["delta_enclosure"][1]) <= Fraction(c["delta"])


def test_member_timeout_is_enforced_off_the_main_thread():
    """A Dask worker runs cells in a thread, where SIGALRM is unavailable: the cooperative deadline
    (certdp.numbers.deadline) must still end a member at its timeout, as UNDECIDED."""
    import threading
    import time

    result = {}

    def work():
        start = time.monotonic()
        result["cell"] = refute_printed_cell("4", "2", "0.1", "31.45", members=[Member("MG", 8), Member("QG")],
                                             timeout=1e-6)
        result["seconds"] = time.monotonic() - start

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(120)
    assert not worker.is_alive()
    members = result["cell"]["members"]
    assert members and all(m["status"] == "UNDECIDED" and "timeout" in m["reason"] for m in members)
    assert result["cell"]["verdict"] == "UNDECIDED"
