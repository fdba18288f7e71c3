"""A calibration interrupted by ``--budget`` reports the points its bracket had already certified.

Each reported point is checked against the 50-digit mpmath closed form of the Gaussian profile
(tests/reference.py): a "private" point must have delta <= the target, a "NOT private" one delta >
the target, and both must lie inside the printed enclosures.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from reference import gaussian_delta_closed_form, mpf


def _interrupting_closure(monkeypatch, after_calls: int, error: BaseException | None = None):
    """Make the calibration's profile raise ``error`` (default: the CLI's BudgetExceeded, what the
    SIGALRM handler raises when --budget runs out) after ``after_calls`` evaluations."""
    import certdp.workflows.calibrate as calibrate_module
    from certdp.cli.validate import BudgetExceeded

    real = calibrate_module.profile_closure

    def closure(*args, **kwargs):
        profile = real(*args, **kwargs)
        calls = []

        def interrupted(t):
            calls.append(t)
            if len(calls) > after_calls:
                raise error if error is not None else BudgetExceeded()
            return profile(t)

        return interrupted

    monkeypatch.setattr(calibrate_module, "profile_closure", closure)


def test_budget_out_reports_certified_points(cli, monkeypatch):
    # the certified Gaussian needs two evaluations (one per side of the float candidate): stop after one
    _interrupting_closure(monkeypatch, 1)
    eps, delta = Fraction(1), Fraction(1, 10**5)
    out = cli("calibrate", "gaussian", "--epsilon", "1", "--delta", "1e-5", "--rtol", "1e-12", "--json")
    assert out.returncode == 3
    data = json.loads(out.stdout)
    assert data["verdict"] == "UNDECIDED"
    reached = data["reached"]
    assert reached.get("safe") or reached.get("unsafe")
    for key in ("safe", "unsafe"):
        if key not in reached:
            continue
        point = reached[key]
        sigma = Fraction(point["sigma"])
        ref = gaussian_delta_closed_form(sigma, eps)
        lo, hi = (mpf(Fraction(x)) for x in point["delta_enclosure"])
        assert lo <= ref <= hi
        assert (ref <= mpf(delta)) if key == "safe" else (ref > mpf(delta))
    assert "certified so far" in data["reason"]


def test_budget_out_before_any_point_claims_nothing(cli, monkeypatch):
    _interrupting_closure(monkeypatch, 0)
    out = cli("calibrate", "gaussian", "--epsilon", "1", "--delta", "1e-5", "--json")
    assert out.returncode == 3
    data = json.loads(out.stdout)
    assert "reached" not in data and "no answer is claimed" in data["reason"]


def test_inner_brackets_do_not_overwrite_the_record():
    """Only the outermost bracket writes: an inner calibration inside the profile answers another
    question, and its points must not be reported as the outer parameter's."""
    from flint import arb

    from certdp.numbers.bracket import bracket_reached, certified_monotone_bracket

    def inner_profile(t):
        return arb(1) / (1 + t)          # decreasing, crosses 1/4 at t = 3

    def outer_profile(t):
        certified_monotone_bracket(inner_profile, Fraction(1, 4), increasing=False, candidate=3.0,
                                   rtol=Fraction(1, 1000))
        return arb(1) / (1 + t * t)      # decreasing, crosses 1/5 at t = 2

    record: dict = {}
    with bracket_reached(record):
        bracket = certified_monotone_bracket(outer_profile, Fraction(1, 5), increasing=False, candidate=2.0,
                                             rtol=Fraction(1, 1000))
    safe_t, _ = record["safe"]
    unsafe_t, _ = record["unsafe"]
    assert safe_t == Fraction(bracket.hi) and unsafe_t == Fraction(bracket.lo)
    assert 1 + safe_t * safe_t >= 5 > 1 + unsafe_t * unsafe_t


# ------------------------------------------------------------------ the Python API's budget= keyword
def test_api_budget_exhausted_claims_nothing_and_stops_fast():
    import time

    import certdp
    from certdp.numbers.deadline import BudgetExhausted

    for call in (lambda: certdp.calibrate("gaussian", epsilon=1, delta="1e-5", budget=1e-9),
                 lambda: certdp.profile("sgg", value="1.0657326", epsilon=1, dimension=3, alpha=2, power="1/2",
                                        budget=1e-9),
                 lambda: certdp.compose({"mechanisms": [{"mechanism": "laplace", "scale": "20", "count": 40}]},
                                        epsilon=1, budget=1e-9)):
        start = time.monotonic()
        with pytest.raises(BudgetExhausted, match="time budget"):
            call()
        assert time.monotonic() - start < 10


def test_api_budget_that_suffices_changes_nothing():
    import certdp

    plain = certdp.calibrate("laplace", epsilon=1, delta="1e-5", sensitivity=2)
    budgeted = certdp.calibrate("laplace", epsilon=1, delta="1e-5", sensitivity=2, budget=600)
    assert (plain.value, plain.interval, plain.delta_enclosure) == \
        (budgeted.value, budgeted.interval, budgeted.delta_enclosure)


def test_api_budget_reports_the_bracket_points(monkeypatch):
    """Interrupted after its first probe (deterministically), the API error carries that point."""
    import certdp
    from certdp.numbers.deadline import BudgetExhausted

    _interrupting_closure(monkeypatch, 1, BudgetExhausted("the time budget of 1 s was exceeded"))
    with pytest.raises(BudgetExhausted, match="certified so far") as info:
        certdp.calibrate("gaussian", epsilon=1, delta="1e-5", budget=600)
    point = info.value.reached.get("safe") or info.value.reached.get("unsafe")
    ref = gaussian_delta_closed_form(Fraction(point["sigma"]), 1)
    lo, hi = (mpf(Fraction(x)) for x in point["delta_enclosure"])
    assert lo <= ref <= hi
