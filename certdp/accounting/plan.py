"""Composition plans: parsing, validation and the canonical form.

A plan is ``{"mechanisms": [{"mechanism": "gaussian", "sigma": "10", "sensitivity": "1", "count": 100},
...]}`` (a JSON object, a JSON text, or a path to a JSON file). Every number is exact (strings,
ints, Fractions; floats through their shortest repr). Bad input raises
:class:`certdp.numbers.InputError` naming the field (``mechanisms[2].count``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from certdp.numbers import InputError, exact_str, parse_exact, parse_positive
from certdp.mechanisms.domains import NEAR_SINGULAR_C1, near_singular_shape

__all__ = ["Group", "Plan", "parse_plan", "PLAN_MECHANISMS", "MAX_GROUPS", "MAX_COUNT"]

MAX_GROUPS = 10_000
MAX_COUNT = 10**7

#: mechanism -> {parameter: default (None = required)}
PLAN_MECHANISMS: dict[str, dict[str, str | None]] = {
    "gaussian": {"sigma": None, "sensitivity": "1"},
    "laplace": {"scale": None, "sensitivity": "1"},
    "subsampled-gaussian": {"sigma": None, "sampling_rate": None},
    "ggm": {"scale": None, "shape": None, "sensitivity": "1"},
    # exact loss laws: uniform (loss 0 or +inf); the spherical Gaussian is the 1-D Gaussian with Delta = s
    "uniform": {"scale": None, "sensitivity": "1"},
    "spherical-gaussian": {"sigma": None, "dimension": None, "sensitivity": "1"},
    # connect-the-dots dominating pairs from the certified profile (certdp/accounting/dominating.py)
    "sgg": {"rate": None, "dimension": None, "alpha": None, "power": None, "sensitivity": "1"},
    "l2-laplace": {"theta": None, "dimension": None, "sensitivity": "1"},
    "r1smg": {"sigma_star": None, "dimension": None, "sensitivity": "1"},
    "quasi-gaussian": {"sigma": None, "shape_epsilon": None, "sensitivity": "1"},
    "multi-gaussian": {"sigma": None, "shape_epsilon": None, "components": "1", "sensitivity": "1"},
}
ALIASES = {"analytic-gaussian": "gaussian", "dp-sgd": "subsampled-gaussian", "poisson-subsampled-gaussian":
           "subsampled-gaussian", "qg": "quasi-gaussian", "mg": "multi-gaussian",
           "spherical-generalized-gamma": "sgg"}


@dataclass(frozen=True)
class Group:
    """``count`` identical invocations of ``mechanism`` with exact ``params``."""

    mechanism: str
    params: tuple[tuple[str, Fraction], ...]
    count: int

    def get(self, key: str) -> Fraction:
        return dict(self.params)[key]

    def canonical(self) -> dict[str, str]:
        return {"mechanism": self.mechanism, "count": str(self.count),
                **{k: exact_str(v) for k, v in self.params}}

    def label(self) -> str:
        inner = ", ".join(f"{k}={exact_str(v)}" for k, v in self.params)
        return f"{self.count} x {self.mechanism}({inner})"


@dataclass(frozen=True)
class Plan:
    groups: tuple[Group, ...]

    def canonical(self) -> dict[str, Any]:
        return {"mechanisms": [g.canonical() for g in self.groups]}

    def canonical_json(self) -> str:
        """Sorted keys, no whitespace, exact strings: equal plans have equal text."""
        return json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))

    @property
    def total_count(self) -> int:
        return sum(g.count for g in self.groups)


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool):
        raise InputError(where, "must be a positive integer")
    try:
        q = parse_exact(value, where)
    except InputError:
        raise InputError(where, f"must be a positive integer (got {str(value)[:40]!r})") from None
    if q.denominator != 1 or q < 1:
        raise InputError(where, f"must be a positive integer >= 1 (got {exact_str(q)})")
    if q > MAX_COUNT:
        raise InputError(where, f"at most {MAX_COUNT} per group")
    return int(q)


def _group(entry: Any, i: int) -> Group:
    where = f"mechanisms[{i}]"
    if not isinstance(entry, dict):
        raise InputError(where, "each plan entry must be an object with 'mechanism' and 'count'")
    if "mechanism" not in entry:
        raise InputError(f"{where}.mechanism", "missing")
    name = entry["mechanism"]
    if not isinstance(name, str):
        raise InputError(f"{where}.mechanism", "must be a string")
    name = ALIASES.get(name, name)
    if name not in PLAN_MECHANISMS:
        raise InputError(f"{where}.mechanism", f"unknown or unsupported mechanism {name[:40]!r} in a plan "
                                               f"(supported: {', '.join(PLAN_MECHANISMS)})")
    spec = PLAN_MECHANISMS[name]
    unknown = sorted(set(entry) - set(spec) - {"mechanism", "count"})
    if unknown:
        raise InputError(f"{where}.{unknown[0]}", f"unknown parameter for {name} (known: {', '.join(spec)}, count)")
    count = _count(entry.get("count", 1), f"{where}.count")
    params = []
    for key, default in spec.items():
        if key not in entry and default is None:
            raise InputError(f"{where}.{key}", f"missing (required for {name})")
        raw = entry.get(key, default)
        if isinstance(raw, bool):
            raise InputError(f"{where}.{key}", "must be a number")
        value = _parameter(key, raw, f"{where}.{key}")
        if key == "sampling_rate" and not value <= 1:
            raise InputError(f"{where}.{key}", f"must lie in (0, 1] (got {exact_str(value)})")
        if key == "shape" and not value >= 1:
            raise InputError(f"{where}.{key}", f"must be a finite rational >= 1 (got {exact_str(value)})")
        params.append((key, value))
    if "alpha" in spec:
        alpha, dim = dict(params)["alpha"], dict(params)["dimension"]
        if not -1 < alpha <= dim - 1:
            raise InputError(f"{where}.alpha", f"must lie in (-1, T-1] = (-1, {dim - 1}] (seed 003 Lemma 4.1)")
        if near_singular_shape(dim, alpha):
            raise InputError(f"{where}.alpha", f"{exact_str(alpha)} is within {exact_str(2 * NEAR_SINGULAR_C1)} "
                                               f"of T - 1 = {dim - 1} but below it: outside the supported "
                                               f"domain of sgg (docs/domains.md)")
    return Group(name, tuple(params), count)


def _parameter(key: str, raw: Any, where: str) -> Fraction:
    """One plan parameter: integers for ``dimension`` (>= 2) and ``components`` (>= 0), any exact
    rational for ``alpha``, a positive rational otherwise."""
    if key == "alpha":
        return parse_exact(raw, where)
    if key in ("dimension", "components"):
        try:
            q = parse_exact(raw, where)
        except InputError:
            q = None
        low = 2 if key == "dimension" else 0
        if q is None or q.denominator != 1 or q < low:
            raise InputError(where, f"must be an integer >= {low}")
        if q > 10**4 if key == "dimension" else q > 50:  # the engines' supported domains (docs/domains.md)
            raise InputError(where, f"at most {10**4 if key == 'dimension' else 50} in a plan")
        return q
    return parse_positive(raw, where)


def parse_plan(plan: Any) -> Plan:
    """A :class:`Plan` from a dict, a JSON text or a path (``str`` / ``Path`` to an existing file)."""
    if isinstance(plan, Plan):
        return plan
    if isinstance(plan, Path) or (isinstance(plan, str) and not plan.lstrip().startswith("{")):
        path = Path(plan)
        if not path.is_file():
            raise InputError("plan", f"no such plan file: {str(plan)[:200]}")
        if path.stat().st_size > 5_000_000:
            raise InputError("plan", "plan file larger than 5 MB")
        try:
            plan = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise InputError("plan", "plan file is not UTF-8 text") from None
    if isinstance(plan, (str, bytes)):
        try:
            plan = json.loads(plan)
        except (json.JSONDecodeError, RecursionError, UnicodeDecodeError) as exc:
            raise InputError("plan", f"not valid JSON ({str(exc)[:80]})") from None
    if isinstance(plan, list):
        plan = {"mechanisms": plan}
    if not isinstance(plan, dict):
        raise InputError("plan", "a plan is a JSON object {\"mechanisms\": [...]}")
    extra = sorted(set(plan) - {"mechanisms"})
    if extra:
        raise InputError(f"plan.{extra[0]}", "unknown field (a plan has only 'mechanisms')")
    entries = plan.get("mechanisms")
    if not isinstance(entries, list):
        raise InputError("mechanisms", "missing or not a list")
    if not entries:
        raise InputError("mechanisms", "empty plan: nothing to compose")
    if len(entries) > MAX_GROUPS:
        raise InputError("mechanisms", f"at most {MAX_GROUPS} groups")
    return Plan(tuple(_group(e, i) for i, e in enumerate(entries)))
