"""Workflow, MG Alg. 1-2 (:mod:`certdp.workflows.mixtures.mg_alg1`): certified ends against mpmath,
the missed-peak retry, and the grid step ``N``.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb

from certdp.numbers import working_precision
from certdp.workflows.mixtures import mg_grid_step, mg_paper_calibration
from mg_reference import sixty_digits, _q, _mp, ref_h, _cal, CAL_CASES, SHIFTS  # noqa: F401  (sixty_digits: autouse fixture)


@pytest.mark.parametrize("eps,delta,K", CAL_CASES)
def test_mg_paper_safe_end_private(eps, delta, K):
    """Safe sigma of ``mg_paper_calibration``: mpmath H(phi) <= (1 - eta) delta at phi = Delta and
    phi in {1/8, ..., 1} Delta (sigma = the certificate's exact decimal)."""
    paper, _ = _cal(eps, delta, K)
    target = (1 - Fraction(1, 100)) * _q(delta)
    sig = _q(paper.value)
    assert paper.value == paper.interval[1]
    for p in SHIFTS:
        assert ref_h(sig, eps, K, p) <= _mp(target), (p, ref_h(sig, eps, K, p))


@pytest.mark.parametrize("eps,delta,K", CAL_CASES)
def test_mg_paper_safe_end_lower_bound_is_a_grid_value(eps, delta, K):
    """The safe end's delta enclosure is two-sided (stop 29): its lower end (the search's best certified H
    less the Lipschitz loss to the nearest grid point) lies below the mpmath H at one of the Alg. 1 grid
    shifts nearest to {1/8, ..., 1} Delta, and within 2 % of the largest of them (0 would fail)."""
    paper, _ = _cal(eps, delta, K)
    sig = _q(paper.value)
    with working_precision(128):
        n = mg_grid_step(arb(str(paper.value)), (arb(delta), arb("0.01")), arb(1))
    assert n is not None
    grid_top = max(ref_h(sig, eps, K, Fraction(round(p * n), n)) for p in SHIFTS)
    lower = mpmath.mpf(paper.delta_enclosure.strings()[0] if hasattr(paper.delta_enclosure, "strings")
                       else paper.delta_enclosure[0])
    assert 0 < lower <= grid_top, (float(lower), float(grid_top))
    assert lower >= mpmath.mpf("0.98") * grid_top, (float(lower), float(grid_top))


@pytest.mark.parametrize("eps,delta,K", CAL_CASES)
def test_mg_paper_unsafe_end_witness(eps, delta, K):
    """Unsafe sigma: the grid witness j/N * Delta of ``extra['unsafe_end_witness']`` has mpmath
    H > (1 - eta) delta, N is the Alg. 1 grid size ceil(Delta/(sqrt(2 pi) eta sigma delta)) at that
    sigma (mpmath, 50 digits), and the certificate's H lower bound is below the mpmath value."""
    paper, _ = _cal(eps, delta, K)
    wit = paper.extra.get("unsafe_end_witness")
    assert wit is not None, paper.extra
    sig = _q(paper.interval[0])
    j, n = wit["grid_index"], wit["grid_size"]
    assert 1 <= j <= n
    assert n == _mp_grid_n(sig, delta, "0.01")
    h = ref_h(sig, eps, K, Fraction(j, n))
    target = _mp((1 - Fraction(1, 100)) * _q(delta))
    assert h > target, (h, target)
    assert mpmath.mpf(wit["H_lower_bound"]) <= h


def test_mg_paper_retries_a_candidate_that_missed_the_peak():
    """A float candidate 10 % too small (as when the float guide misses a peak narrower than its shift
    grid) is certified far above the target at the first probe; the calibration then recomputes the
    candidate with the engine's argmax and brackets from it: two evaluations, the same bracket as
    from the good candidate (a bracket walking from the bad one needs more than two)."""
    good = mg_paper_calibration(epsilon="1", delta="5e-7", components=10)
    bad = mg_paper_calibration(epsilon="1", delta="5e-7", components=10,
                               candidate=0.9 * float(good.value))
    assert bad.extra["evaluations"] == 2, bad.extra["evaluations"]
    assert abs(float(bad.value) / float(good.value) - 1) <= 2e-6, (bad.value, good.value)


def _mp_grid_n(sigma, delta, eta, sens=1) -> int:
    with mpmath.workdps(50):
        q = _mp(_q(sens)) / (mpmath.sqrt(2 * mpmath.pi) * _mp(_q(eta)) * _mp(_q(sigma)) * _mp(_q(delta)))
        return int(mpmath.ceil(q))


@pytest.mark.parametrize("sigma,delta,eta,sens", [
    ("1", "1e-5", "0.01", "1"),
    ("2.2900451", "1e-5", "0.01", "1"),
    ("0.93084265", "1e-3", "0.01", "1"),
    ("0.37", "1e-7", "0.05", "2.5"),
    ("12", "0.3", "0.5", "1"),
])
def test_mg_grid_step_matches_mpmath(sigma, delta, eta, sens):
    """``mg_grid_step`` = ceil(Delta / (sqrt(2 pi) eta sigma delta)) computed by mpmath at 50 digits."""
    with working_precision(128):
        n = mg_grid_step(arb(sigma), (arb(delta), arb(eta)), arb(sens))
    assert n == _mp_grid_n(sigma, delta, eta, sens)


def _near_integer_sigma(n: int, offset: str) -> Fraction:
    """sigma (60-digit rational) with Delta/(sqrt(2 pi) eta sigma delta) = n * (1 + offset) (delta=1e-5, eta=0.01)."""
    with mpmath.workdps(80):
        s = 1 / (mpmath.sqrt(2 * mpmath.pi) * mpmath.mpf("0.01") * mpmath.mpf("1e-5") * n * (1 + mpmath.mpf(offset)))
        return Fraction(mpmath.nstr(s, 60, strip_zeros=False))


@pytest.mark.parametrize("offset", ["1e-25", "-1e-25", "1e-18", "-1e-18"])
def test_mg_grid_step_near_integer_is_correct_or_undecided(offset):
    """Quotient within 1e-25 (relative) of an integer: the result is None or the mpmath ceiling,
    never off by one (soundness of the floor/ceil decision)."""
    sig = _near_integer_sigma(3989423, offset)
    with working_precision(128):
        s = arb(sig.numerator) / arb(sig.denominator)
        n = mg_grid_step(s, (arb("1e-5"), arb("0.01")), arb(1))
    assert n is None or n == _mp_grid_n(sig, "1e-5", "0.01"), (n, _mp_grid_n(sig, "1e-5", "0.01"))


def test_mg_grid_step_decides_just_below_integer():
    """q = n (1 - 1e-18), n = 3989423: the Arb enclosure (width ~1e-38 relative) certainly lies in
    (n - 1, n), so ceil(q) = n (mpmath, 50 digits) must be returned, not None."""
    sig = _near_integer_sigma(3989423, "-1e-18")
    with working_precision(128):
        s = arb(sig.numerator) / arb(sig.denominator)
        n = mg_grid_step(s, (arb("1e-5"), arb("0.01")), arb(1))
    assert n == _mp_grid_n(sig, "1e-5", "0.01") == 3989423
