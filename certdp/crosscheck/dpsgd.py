"""One DP-SGD crosscheck cell: a library's epsilon for k Poisson-subsampled Gaussian steps, refereed.

What is compared. DP-SGD with Poisson sampling rate q, noise multiplier sigma
(sensitivity 1: the clipping norm) and k steps, under add-or-remove-one
adjacency (certdp takes the max over both directions). A library claims "the
run is (eps_lib, delta)-DP": either it reports eps_lib for (q, sigma, k, delta)
(questions with ``returns="dpsgd-epsilon"``), or it returns a noise multiplier
sigma_lib for a target (eps, delta) (``returns="dpsgd-sigma"``, e.g. Opacus'
``get_noise_multiplier``), which claims the run at sigma_lib is (eps, delta)-DP.

certdp's side is :func:`certdp.accounting.accountant.account` (the lattice PLD
accountant) on the plan ``{"subsampled-gaussian", sigma, sampling_rate, count:
k}`` at delta: a certified bracket [lower, upper] of the smallest epsilon with
delta(eps) <= delta (the ``epsilon-enclosure`` of a ``composition``
certificate), and from the *same* lattice measures the certified enclosure of
delta(eps_lib).

Verdict (certified, no float decides it):

* VALID when the certified upper end of delta(eps_lib) is <= delta (the claim holds);
* VIOLATED when the certified lower end of delta(eps_lib) is > delta (the library
  under-reports epsilon: the run is not (eps_lib, delta)-DP); equivalently eps_lib
  lies below certdp's certified lower end of epsilon;
* otherwise the accountant is run again with a 8x finer ``rtol``; if delta(eps_lib)
  still straddles delta the point is UNDECIDED (eps_lib lies inside the bracket).

``excess_percent`` = 100 (eps_lib - upper) / upper against certdp's certified upper
end (a display number from exact rationals; it decides nothing): how much
epsilon the library gives away (positive) or may under-report (negative).
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

from certdp.crosscheck import get_adapter
from certdp.crosscheck.grid import DPSGD_AXES, exact
from certdp.crosscheck.runner import ask_library
from certdp.numbers import InputError, UndecidedError, exact_str, parse_exact

__all__ = ["check_dpsgd_point", "dpsgd_jobs", "DEFAULT_DPSGD_RTOL", "DPSGD_RETURNS"]

#: relative width of certdp's epsilon bracket asked of the accountant (refined 8x once when undecided)
DEFAULT_DPSGD_RTOL = "0.02"
DPSGD_RETURNS = ("dpsgd-epsilon", "dpsgd-sigma")


def _plan(sigma: str, sampling_rate: str, steps: str) -> dict[str, Any]:
    return {"mechanisms": [{"mechanism": "subsampled-gaussian", "sigma": sigma, "sampling_rate": sampling_rate,
                            "count": int(steps)}]}


def _percent(value: Fraction, reference: Fraction) -> float:
    return float((value - reference) / reference * 100)


def _certify(plan: dict[str, Any], delta: str, claimed: Fraction, rtol: str):
    """(composition, certificate, delta enclosure at the claimed eps, rtol used), refined once if undecided."""
    from certdp.workflows.compose import composition_result

    used = Fraction(rtol)
    for attempt in range(2):
        c, cert = composition_result(plan, delta=delta, rtol=exact_str(used))
        enc = c.delta_at(claimed)
        if enc.upper <= exact(delta) or enc.lower > exact(delta) or attempt == 1 or used / 8 < Fraction(1, 10**4):
            return c, cert, enc, used
        used /= 8
    raise AssertionError("unreachable")  # pragma: no cover


def check_dpsgd_point(library: str, question: str | None, sampling_rate: str, steps: str, delta: str, *,
                      sigma: str | None = None, epsilon: str | None = None,
                      rtol: str = DEFAULT_DPSGD_RTOL) -> dict[str, Any]:
    """Ask ``library`` its DP-SGD ``question`` at (q, sigma or eps, k, delta) and referee the answer."""
    adapter = get_adapter(library)
    adapter.require()
    q = adapter.question(question)
    if q.returns not in DPSGD_RETURNS:
        raise InputError("mechanism", f"{adapter.library} {q.name} is not a DP-SGD question")
    if (q.returns == "dpsgd-epsilon") != (sigma is not None) or (q.returns == "dpsgd-sigma") != (epsilon is not None):
        raise InputError("grid", f"{q.name} is asked over {', '.join(DPSGD_AXES[q.returns])}")
    point: dict[str, Any] = {
        "library": adapter.library, "question": q.name, "mechanism": "subsampled-gaussian", "returns": q.returns,
        "sampling_rate": sampling_rate, "steps": steps, "sigma": sigma, "epsilon": epsilon, "delta": delta,
        "library_value": None, "certified_minimum": None, "certified_interval": None,
        "epsilon_enclosure": None, "verdict": "N/A", "delta_enclosure": None, "excess_percent": None,
        "rtol": rtol, "note": None, "audit_digest": None,
    }
    args = (float(exact(sampling_rate)), float(exact(sigma if sigma is not None else epsilon)), int(steps),
            float(exact(delta)))
    raw, ok = ask_library(q.answer, args, point)
    if not ok:
        return point
    answer = parse_exact(raw, "library answer")  # shortest repr: the decimal the library printed
    point["library_value"] = exact_str(answer)
    if q.returns == "dpsgd-epsilon":
        point["epsilon"] = point["library_value"]  # the claim audited: (eps_lib, delta)-DP at sigma
    else:
        point["sigma"] = point["library_value"]    # the claim audited: (eps, delta)-DP at sigma_lib
    claimed = exact(point["epsilon"])
    start = time.perf_counter()
    try:
        c, cert, enc, used = _certify(_plan(point["sigma"], sampling_rate, steps), delta, claimed, rtol)
    except (InputError, UndecidedError) as exc:
        point["certdp_seconds"] = time.perf_counter() - start
        point["note"] = f"certdp: {exc}"
        point["verdict"] = "UNDECIDED"
        return point
    point["certdp_seconds"] = time.perf_counter() - start
    lo, hi = c.enclosure.lower, c.enclosure.upper
    point["epsilon_enclosure"] = point["certified_interval"] = [exact_str(lo), exact_str(hi)]
    point["delta_enclosure"] = [exact_str(enc.lower), exact_str(enc.upper)]
    point["audit_digest"] = cert.digest
    point["excess_percent"] = _percent(claimed, hi)
    if used != Fraction(rtol):
        point["rtol"] = exact_str(used)
    if enc.upper <= exact(delta):
        point["verdict"] = "VALID"
    elif enc.lower > exact(delta):
        point["verdict"] = "VIOLATED"
    else:
        point["verdict"] = "UNDECIDED"
        point["note"] = (f"the claimed epsilon lies inside certdp's bracket [{float(lo):.6g}, {float(hi):.6g}] "
                         f"at rtol {exact_str(used)}: delta(eps) straddles delta")
    return point


def dpsgd_jobs(library: str, question: str | None, grid: dict[str, list[str]],
               rtol: str = DEFAULT_DPSGD_RTOL) -> list[dict[str, Any]]:
    """Sweep jobs (kind ``crosscheck-dpsgd``), one per grid point, steps varying fastest."""
    import itertools

    adapter = get_adapter(library)
    q = adapter.question(question)
    order = [a for a in ("delta", "sampling_rate", "sigma", "epsilon", "steps") if a in DPSGD_AXES[q.returns]]
    jobs = []
    for combo in itertools.product(*(grid[a] for a in order)):
        values = dict(zip(order, combo))
        jobs.append({"kind": "crosscheck-dpsgd", "library": adapter.library, "question": q.name, "rtol": rtol,
                     **values})
    return jobs
