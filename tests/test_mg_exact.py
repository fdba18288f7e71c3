"""Workflow, exact MG calibration (:mod:`certdp.workflows.mixtures.exact`): its missed-peak retry and
its agreement with Alg. 1 and the float guide.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given

from certdp.engines.gaussian_mixture.float_guide import mg_sigma_float
from certdp.workflows.mixtures import exact_calibration
from mg_reference import sixty_digits, _q, _mp, ref_h, _cal, CAL_CASES, SHIFTS  # noqa: F401  (sixty_digits: autouse fixture)


def test_mg_exact_retries_a_candidate_that_missed_the_peak(monkeypatch):
    """Exact MG calibration: a float guide that misses the peak (simulated: its first candidate is
    10 % too small) is certified far above the target at the first probe; the guide is then rerun
    with the engine's argmax as an extra shift, and the bracket from its candidate needs two
    evaluations and gives the same value as from the good candidate."""
    import certdp.engines.gaussian_mixture.float_guide as guide

    good = exact_calibration("multi-gaussian", epsilon="1", delta="5e-7", components=10)
    real = guide.mg_sigma_float
    calls: list[tuple] = []

    def missing_the_peak(*args, shifts=(), argmax=None, **kwargs):
        calls.append(tuple(shifts))
        value = real(*args, shifts=shifts, argmax=argmax, **kwargs)
        return value if shifts else 0.9 * value

    monkeypatch.setattr(guide, "mg_sigma_float", missing_the_peak)
    retried = exact_calibration("multi-gaussian", epsilon="1", delta="5e-7", components=10)
    assert len(calls) == 2 and calls[1], calls
    assert retried.extra["evaluations"] == 2, retried.extra["evaluations"]
    assert abs(float(retried.value) / float(good.value) - 1) <= 2e-6, (retried.value, good.value)


@pytest.mark.parametrize("eps,delta,K", CAL_CASES)
def test_mg_paper_vs_exact_vs_float(eps, delta, K):
    """Thm 3.2 is sufficient, so paper sigma >= exact minimal sigma: checked on the certificates
    (paper.hi >= exact.lo rigorously; paper.lo >= exact.lo and paper.value >= exact.value given
    the tight brackets). The exact certificate itself is checked by mpmath: H <= delta on the
    shift grid at its safe end, H(Delta) > delta at its unsafe end. The float guide
    ``mg_sigma_float(eta=0.01)`` lies within 1e-4 (relative) of the paper interval."""
    paper, exact = _cal(eps, delta, K)
    assert paper.interval[1] >= exact.interval[0]
    assert paper.interval[0] >= exact.interval[0]
    assert paper.value >= exact.value
    d = _mp(_q(delta))
    sig_safe = _q(exact.value)
    for p in SHIFTS:
        assert ref_h(sig_safe, eps, K, p) <= d
    unsafe = max(ref_h(_q(exact.interval[0]), eps, K, p) for p in (Fraction(7, 8), Fraction(1)))
    assert unsafe > d
    fl = mg_sigma_float(float(eps), float(delta), K, eta=0.01)
    lo, hi = float(paper.interval[0]), float(paper.interval[1])
    assert lo * (1 - 1e-4) <= fl <= hi * (1 + 1e-4), (fl, lo, hi)
