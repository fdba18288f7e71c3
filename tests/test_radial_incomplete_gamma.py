"""The radial engine's Gamma masses (``SGGRadialProblem._incomplete`` / ``_mass``) against 60-digit mpmath.

For a large non-integer Gamma shape ``k`` (>= 16) the lower function is taken as ``1 - Q(k, z)``, with
``Q`` computed with ``-log2 P + 16`` more bits, wherever ``P >= 2^-600`` (Arb's lower function cost
0.5-2.5 s per call near ``z ~ k`` at 128-256 bits and was ``[+/- 8.7e5]`` at ``z = 124`` at 64 bits for
T = 1000, alpha = 999/2, p = 2, where the upper one takes 15-50 us): the enclosures must still contain
the true values and be about as narrow as the working precision allows."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb, ctx

from certdp.engines.radial import SGGRadialProblem
from certdp.numbers import working_precision

K = mp.mpf(1001) / 4


def _problem():
    return SGGRadialProblem(1000, Fraction(999, 2), 2, Fraction(1, 50), 1, 1)   # k = 1001/4


def _check(ball: arb, ref: mp.mpf, prec: int) -> None:
    ref_ball = arb(mp.nstr(ref, 70))     # 70 digits: its own rounding is far below the tolerance
    assert ball.overlaps(ref_ball), (ball, ref)
    assert ball.rad() <= abs(ref_ball.mid()) * arb(2) ** (24 - prec)   # a few bits lost at most


@pytest.mark.parametrize("prec", [64, 128, 256])
@pytest.mark.parametrize("z_text", ["100", "124", "200", "237.5", "250", "250.3", "262", "300"])
def test_lower_gamma_by_complement_contains_mpmath(prec, z_text):
    """Near the mode and below it (P ~ 1e-13 at z = 100: 1 - Q with ~60 more bits)."""
    problem = _problem()
    assert problem._lower_by_complement(arb(z_text)) is not None
    old = ctx.prec
    try:
        ctx.prec = prec
        value = problem._incomplete(arb(z_text), False)
    finally:
        ctx.prec = old
    with mp.workdps(60):
        _check(value, mp.gammainc(K, 0, mp.mpf(z_text), regularized=True), prec)


@pytest.mark.parametrize("prec", [64, 128])
@pytest.mark.parametrize("edges", [("230", "240"), ("249", "251"), ("250", "250.0009765625"), ("240", "300")])
def test_bin_masses_around_the_mode_contain_mpmath(prec, edges):
    problem = _problem()
    zl, zu = (arb(e) for e in edges)   # exact dyadic edges (the engine's bin edges are exact)
    assert zl.rad() == 0 and zu.rad() == 0
    old = ctx.prec
    try:
        ctx.prec = prec
        mass = problem._mass(zl, zu)
    finally:
        ctx.prec = old
    with mp.workdps(60):
        _check(mass, mp.gammainc(K, mp.mpf(edges[0]), mp.mpf(edges[1]), regularized=True), prec)


K_BIG = mp.mpf(10001) / 4     # sgg T=10000 alpha=9999/2 p=2


@pytest.mark.parametrize("prec", [64, 128])
@pytest.mark.parametrize("z_text", ["1", "100", "700", "1100", "1300.5"])
def test_lower_gamma_far_below_the_mode_by_its_series(prec, z_text):
    """k = 2500.25, ``P < 2^-600`` (no complement): Arb's ``gamma_lower`` returned ``[+/- 1e496]`` at 64-512
    bits (``_mass`` retried each, 4 s of a 4.5 s engine call for sgg T=10000 alpha=9999/2 p=2); the positive
    series with its certified tail against 60-digit mpmath (fails before: a useless ball)."""
    problem = SGGRadialProblem(10000, Fraction(9999, 2), 2, Fraction(1, 50), 1, 1)
    z = arb(z_text)
    assert problem._lower_by_complement(z) is None
    old = ctx.prec
    try:
        ctx.prec = prec
        ball = problem._incomplete(z, False)
    finally:
        ctx.prec = old
    with mp.workdps(60):
        ref = mp.gammainc(K_BIG, 0, mp.mpf(z_text), regularized=True)
    _check(ball, ref, prec)


# sgg T=1000 alpha=999 p=3/2: k = 2000/3 is not dyadic, so an Arb *ball*; Arb's lower function is nan for a ball
# shape at every precision, every bin below the mode was nan at 64-256 bits and the (50, 1e-300) cell reached
# the 512-bit rung (> 90 s; now ~7 s).
T3, ALPHA3, P3, RATE3, EPS3 = 1000, Fraction(999), Fraction(3, 2), Fraction("9.2107793"), Fraction(50)


def test_arb_lower_function_is_nan_for_a_ball_shape():
    """What the series replaces (if Arb starts answering here, the series is still a valid enclosure)."""
    with working_precision(256):
        assert not arb(50).gamma_lower(arb(2000) / 3, regularized=1).is_finite()


@pytest.mark.parametrize("edges", [(20, 30), (50, 52), (300, 320), (600, 620)])
def test_bin_masses_for_a_ball_shape_below_the_mode_contain_mpmath(edges):
    with working_precision(64):          # the shape ball is made at the working precision, as in the engine
        problem = SGGRadialProblem(T3, ALPHA3, P3, RATE3, EPS3, 1)
        assert problem.k.rad() > 0
        mass = problem._mass(arb(edges[0]), arb(edges[1]))
    with mp.workdps(60):
        _check(mass, mp.gammainc(mp.mpf(2000) / 3, edges[0], edges[1], regularized=True), 64)


def test_64_bit_pass_at_the_timed_out_cell_is_certified_and_agrees_with_128_bits():
    from certdp.engines.radial import sgg_delta_enclosure

    encs = []
    for bits in (64, 128):
        with working_precision(bits):
            encs.append(sgg_delta_enclosure(T3, ALPHA3, P3, arb(RATE3.numerator) / RATE3.denominator, EPS3, 1,
                                            eta=arb(2) ** (-64 * bits), rel_eta=2.0 ** -26))
    for e in encs:
        assert e.lower > 0 and e.upper - e.lower <= 2.0 ** -26 * 1.01 * e.lower
    assert encs[0].lower <= encs[1].upper and encs[1].lower <= encs[0].upper
