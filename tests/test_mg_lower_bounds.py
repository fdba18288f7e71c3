"""Cheap certified lower bounds of the mixture engine (stop 30): the float-run bound
:meth:`ShiftEngine.lower_bound_at` (``int_R D <= H`` for any set ``R``) and the Lipschitz bound of
Alg. 1's profile (``H`` is ``1 / (sqrt(2 pi) sigma)``-Lipschitz in the shift), each against the
independent 60-digit mpmath hockey-stick of ``mg_reference`` (its own roots, its own CDF sums).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb

from certdp.engines.gaussian_mixture import ShiftEngine, hockey_stick_lower_bound, lipschitz_constant
from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
from certdp.numbers import working_precision
from certdp.workflows.mixtures import mg_grid_step, mg_paper_profile
from mg_reference import sixty_digits, _q, _mp, _lo, _hi, ref_h  # noqa: F401  (sixty_digits: autouse fixture)

# (sigma, eps, K, phi): a broad peak (K = 5), a narrow one next to the tied shift at eps 50 whose H
# is ~1e-27 (the cliff of docs/mixtures.md), and the MG K = 10 flank at eps 1
CASES = [
    ("0.5", "1", 5, Fraction(1, 2)),
    ("0.5", "1", 5, Fraction(7, 8)),
    ("0.0946746", "50", 12, Fraction(199, 200)),
    ("0.35876814", "1", 10, Fraction(39, 40)),
]


def _engine(sigma: str, eps: str, k: int) -> ShiftEngine:
    e = arb(eps)
    return ShiftEngine(multi_gaussian_mixture(arb(sigma), e, arb(1), k), e, 1e-30, 1e-9)


@pytest.mark.parametrize("sigma,eps,K,phi", CASES)
def test_float_run_lower_bound_is_below_and_near_the_reference(sigma, eps, K, phi):
    """``lower_bound_at`` never exceeds the mpmath H and is within 1e-9 of it (a bound that is 0, or
    that dropped a run, would fail the second check)."""
    with working_precision(128):  # (ends read at this precision: upper() rounds outwards at 53 bits)
        lb = _engine(sigma, eps, K).lower_bound_at(arb(phi.numerator) / phi.denominator)
        lo, hi = _lo(lb), _hi(lb)
    ref = ref_h(_q(sigma), eps, K, phi)
    assert ref > 0
    assert hi <= ref, (lb, ref)
    assert lo >= ref * (1 - mpmath.mpf("1e-9")), (lb, ref)


def test_float_run_lower_bound_survives_wrong_float_roots(monkeypatch):
    """Floats only choose the set R: roots moved by 1 % of sigma (or one dropped) still give a
    certified lower bound below the mpmath H, and a smaller one (not a wrong one)."""
    sigma, eps, K, phi = CASES[3]
    eng = _engine(sigma, eps, K)
    ref = ref_h(_q(sigma), eps, K, phi)
    true_roots = eng.diff.float_roots
    s = float(sigma)
    with working_precision(128):
        best = _lo(eng.lower_bound_at(arb(phi.numerator) / phi.denominator))
    moves = (lambda rs: [r + 0.01 * s for r in rs], lambda rs: [r - 0.01 * s for r in rs], lambda rs: rs[1:])
    for i, move in enumerate(moves):
        monkeypatch.setattr(eng.diff, "float_roots", lambda p, a, b, move=move: move(true_roots(p, a, b)))
        with working_precision(128):
            lb = eng.lower_bound_at(arb(phi.numerator) / phi.denominator)
            lo, hi = _lo(lb), _hi(lb)
        assert hi <= ref, (lb, ref)
        assert hi <= best, (lb, best)  # moved roots integrate D over a worse set
        if i < 2:
            assert lo > 0, lb  # runs moved by 1 % of sigma still hold most of the positive mass


def test_hockey_stick_lower_bound_falls_back_to_the_point_value():
    """``above`` not reached by the float-run bound: the certified point value's lower end is taken
    too, and the result is still below the mpmath H."""
    sigma, eps, K, phi = CASES[0]
    ref = ref_h(_q(sigma), eps, K, phi)
    e = arb(eps)
    with working_precision(128):
        mix = multi_gaussian_mixture(arb(sigma), e, arb(1), K)
        lb = hockey_stick_lower_bound(mix, e, arb(phi.numerator) / phi.denominator, above=arb(1), delta_scale=1e-6)
        lo, hi = _lo(lb), _hi(lb)
    assert 0 < lo and hi <= ref


@pytest.mark.parametrize("p,q", [(Fraction(7, 8), Fraction(15, 16)), (Fraction(1, 2), Fraction(1, 1))])
def test_shift_lipschitz_constant_holds_for_the_reference(p, q):
    """|H(p) - H(q)| <= |p - q| / (sqrt(2 pi) sigma) (lipschitz_constant's proof) on the mpmath H,
    MG(0.5, 5) at eps 1."""
    sigma = Fraction(1, 2)
    gap = abs(ref_h(sigma, "1", 5, p) - ref_h(sigma, "1", 5, q))
    with working_precision(128):
        bound = _lo(lipschitz_constant(arb(1) / 2) * (arb(q.numerator) / q.denominator - arb(p.numerator) / p.denominator).abs_upper())
    assert gap <= bound, (gap, bound)


def test_alg1_profile_lower_end_is_below_a_grid_value():
    """On the non-private side of Alg. 1 the profile's lower end bounds condition (2)'s grid max from
    below: it is at most the largest mpmath H over the grid (all N = 27 nonzero shifts), and the
    upper end bounds them all (MG K = 3, eps 1, delta 0.1, sigma 0.3, eta = 1/2: a large Lipschitz
    loss eta delta / 2 and a grid small enough to enumerate)."""
    eps, delta, eta, K = Fraction(1), Fraction(1, 10), Fraction(1, 2), 3
    sigma = Fraction(3, 10)
    profile = mg_paper_profile(eps, delta, eta, K, Fraction(1))
    with working_precision(128):
        lower, upper, _ = profile(arb(sigma.numerator) / sigma.denominator)
        n = mg_grid_step(arb(sigma.numerator) / sigma.denominator, (arb(1) / 10, arb(1) / 2), arb(1))
        lower_lo, lower_hi, upper_hi = _lo(lower), _hi(lower), _hi(upper)
    assert n is not None and n <= 64, n
    target = _mp((1 - eta) * delta)
    assert lower_lo > target, "the probe should be decided not private"
    grid_max = max(ref_h(sigma, eps, K, Fraction(j, n)) for j in range(1, n + 1))  # H(0) = 0 (eps > 0)
    assert lower_hi <= grid_max, (lower, grid_max)
    assert grid_max <= upper_hi


def test_alg1_witness_at_the_tied_shift_when_the_grid_exceeds_2_53():
    """MG K = 50 at (10, 1e-300), sigma 2.8305105 (just below the Alg. 1 boundary ~2.830525): the
    continuum argmax is the tied shift phi = Delta, itself a grid point (j = N, N ~ 1e299). A float
    j = round(shift * N) named 1 - 5e-17 instead (H there ~3e-308), and the probe ended 'settled'
    below the target; the exact index proves condition (2) fails at phi = Delta."""
    witnesses: list = []
    profile = mg_paper_profile(Fraction(10), Fraction(1, 10**300), Fraction(1, 100), 50, Fraction(1), witnesses)
    with working_precision(1024):
        lower, _, settled = profile(arb("2.8305105"))
        assert lower > arb(99) / 10**302
    assert not settled
    _, j, n, _ = witnesses[-1]
    assert j == n and n > 2**900
