"""One crosscheck cell: ask the library, certify the answer, and compare it with certdp's minimum.

Every verdict is certdp's certified audit of the library's answer read exactly
(shortest repr of the float). The excess percent is a display number computed
from exact rationals and rounded once; it decides nothing.
"""

from __future__ import annotations

import math
import statistics
import time
from fractions import Fraction
from typing import Any

from certdp.crosscheck import get_adapter
from certdp.crosscheck.grid import exact
from certdp.numbers import InputError, UndecidedError, exact_str, parse_exact

__all__ = ["check_point", "summarize", "crosscheck_jobs", "POINT_TIMING_KEYS"]

#: keys of a point that are timings (not part of what two runs must agree on)
POINT_TIMING_KEYS = ("library_seconds", "certdp_seconds", "audit_seconds")


def ask_library(answer, args: tuple, point: dict) -> tuple[object, bool]:
    """Call the library once, its time in ``point["library_seconds"]``: ``(raw, True)`` for a positive
    finite float, else ``(raw or None, False)`` with the reason in ``point["note"]`` (a library that
    raised is recorded, not counted as tried)."""
    start = time.perf_counter()
    try:
        raw = answer(*args)
    except Exception as exc:  # noqa: BLE001 - the library refused: recorded, not counted as tried
        point["library_seconds"] = time.perf_counter() - start
        point["note"] = f"library raised {type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
        return None, False
    point["library_seconds"] = time.perf_counter() - start
    if not isinstance(raw, float) or not math.isfinite(raw) or raw <= 0:
        point["note"] = f"library answered {raw!r}, not a positive finite number"
        return raw, False
    return raw, True


def _percent(value: Fraction, reference: Fraction) -> float:
    return float((value - reference) / reference * 100)


def check_point(library: str, question: str | None, epsilon: str, delta: str) -> dict[str, Any]:
    """Ask ``library`` its ``question`` at (epsilon, delta) and referee the answer with certified arithmetic."""
    from certdp.workflows.audit import audit
    from certdp.workflows.calibrate import calibrate

    adapter = get_adapter(library)
    adapter.require()
    q = adapter.question(question)
    target_delta = "0" if q.pure else delta
    point: dict[str, Any] = {
        "library": adapter.library, "question": q.name, "mechanism": q.mechanism, "returns": q.returns,
        "epsilon": epsilon, "delta": target_delta, "library_value": None, "certified_minimum": None,
        "certified_interval": None, "verdict": "N/A", "delta_enclosure": None, "excess_percent": None,
        "note": None, "audit_digest": None,
    }
    start = time.perf_counter()
    best = calibrate(q.mechanism, epsilon=epsilon, delta=target_delta, **q.fixed)
    point["certdp_seconds"] = time.perf_counter() - start
    point["certified_minimum"] = str(best.value)
    point["certified_interval"] = [str(x) for x in best.interval] if best.interval else None
    args: tuple[float, ...] = (float(exact(epsilon)), float(exact(target_delta)) if q.pure else float(exact(delta)))
    sigma_in = None
    if q.returns == "epsilon":
        sigma_in = float(best.value)
        args = (*args, sigma_in)
        point["library_input"] = repr(sigma_in)
    raw, ok = ask_library(q.answer, args, point)
    if not ok:
        if isinstance(raw, float) and raw <= 0 and q.returns == "parameter":
            point["verdict"] = "VIOLATED"
        return point
    answer = parse_exact(raw, "library answer")  # shortest repr: the decimal the library printed
    point["library_value"] = exact_str(answer)
    start = time.perf_counter()
    try:
        if q.pure:  # pure eps-DP has no delta to audit: the exact threshold Delta/eps (monotone in the scale)
            return _pure_verdict(point, q, answer, start)
        if q.returns == "parameter":
            cert = audit(q.mechanism, value=point["library_value"], epsilon=epsilon, delta=target_delta, **q.fixed)
            point["excess_percent"] = _percent(answer, Fraction(best.value))
        else:  # the library's epsilon for sigma_in: is the Gaussian at sigma_in (answer, delta)-DP?
            cert = audit(q.mechanism, value=repr(sigma_in), epsilon=point["library_value"], delta=target_delta,
                         **q.fixed)
            point["excess_percent"] = _percent(answer, exact(epsilon))
    except (InputError, UndecidedError) as exc:
        point["note"] = f"certdp: {exc}"
        point["verdict"] = "UNDECIDED"
        return point
    finally:
        point["audit_seconds"] = time.perf_counter() - start
    point["verdict"] = cert.verdict or "UNDECIDED"
    point["delta_enclosure"] = list(cert.delta_enclosure) if cert.delta_enclosure else None
    point["audit_digest"] = cert.digest
    return point


def _pure_verdict(point: dict[str, Any], q, answer: Fraction, start: float) -> dict[str, Any]:
    """Laplace at pure eps-DP: b >= Delta/eps exactly (Dwork & Roth Thm 3.6); certified delta(eps) otherwise."""
    from certdp.workflows.profile import profile

    if q.mechanism != "laplace":
        raise InputError("mechanism", f"no pure-DP threshold for {q.mechanism}")
    threshold = parse_exact(q.fixed.get("sensitivity", "1"), "sensitivity") / exact(point["epsilon"])
    point["excess_percent"] = _percent(answer, threshold)
    if answer >= threshold:
        point["verdict"], point["delta_enclosure"] = "VALID", ["0", "0"]
    else:
        cert = profile(q.mechanism, value=point["library_value"], epsilon=point["epsilon"], **q.fixed)
        point["verdict"], point["delta_enclosure"] = "VIOLATED", list(cert.delta_enclosure)
        point["audit_digest"] = cert.digest
    point["note"] = "pure eps-DP: exact comparison with Delta/eps"
    point["audit_seconds"] = time.perf_counter() - start
    return point


def crosscheck_jobs(library: str, question: str | None, grid: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Sweep jobs, one per grid point (a pure-DP question has one point per epsilon)."""
    adapter = get_adapter(library)
    q = adapter.question(question)
    deltas = ["0"] if q.pure else grid["delta"]
    return [{"kind": "crosscheck", "library": adapter.library, "question": q.name, "epsilon": e, "delta": d}
            for d in deltas for e in grid["epsilon"]]


def _where(p: dict[str, Any]) -> dict[str, Any]:
    """The coordinates of a point (epsilon, delta; and q, sigma, k for DP-SGD points)."""
    return {k: p[k] for k in ("sampling_rate", "sigma", "steps", "epsilon", "delta") if p.get(k) is not None}


def summarize(points: list[dict[str, Any]]) -> dict[str, Any]:
    """Points tried, VIOLATED, worst excess, median time per call of each side."""
    answered = [p for p in points if p["library_value"] is not None]
    excess = [p["excess_percent"] for p in answered if p["excess_percent"] is not None]
    valid = [p["excess_percent"] for p in answered if p["verdict"] == "VALID" and p["excess_percent"] is not None]
    violated = [p for p in points if p["verdict"] == "VIOLATED"]

    def median(key: str) -> float | None:
        values = [p[key] for p in points if p.get(key) is not None]
        return statistics.median(values) if values else None

    worst = max(answered, key=lambda p: p["excess_percent"], default=None) if excess else None
    deepest = min(violated, key=lambda p: p["excess_percent"] if p["excess_percent"] is not None else 0,
                  default=None)
    return {
        "points": len(points),
        "tried": len(answered),
        "not_applicable": sum(p["verdict"] == "N/A" for p in points),
        "valid": sum(p["verdict"] == "VALID" for p in points),
        "violated": len(violated),
        "undecided": sum(p["verdict"] == "UNDECIDED" for p in points),
        "worst_excess_percent": max(excess) if excess else None,
        "worst_excess_at": None if worst is None else _where(worst),
        "median_valid_excess_percent": statistics.median(valid) if valid else None,
        "worst_violation_percent": None if deepest is None else deepest["excess_percent"],
        "worst_violation_at": None if deepest is None else _where(deepest),
        "median_library_seconds": median("library_seconds"),
        "median_certdp_seconds": median("certdp_seconds"),
        "median_audit_seconds": median("audit_seconds"),
    }
