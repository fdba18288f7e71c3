"""Small |c1| (log-singular SGG, -1/2 < c1 < 0) at large eps (branch `eps50`, docs/sgg.md item 26a).

sgg T=2 alpha=3/4 p=1 (c1 = -1/8) at (20, 1e-300) timed out (> 90 s): the A-side transition at
r ~ s e^(-eps / (2|c1|)) (1e-35 of s) was invisible to the float guesses (every bin one double spacing wide,
first order), and the 64/128-bit rungs refused the rate ball that blurs the 2^-115-wide B layer.
"""
from fractions import Fraction

import pytest
from flint import arb

from certdp.engines.radial import RadialPrecisionError, sgg_delta_enclosure
from certdp.numbers import working_precision

SHAPE = (2, Fraction(3, 4), Fraction(1))
RATE = "8.8914283e-137"          # the calibrated rate at (20, 1e-300)


def _enclose(bits, rate, rel):
    with working_precision(bits):
        r = arb(rate) if isinstance(rate, str) else rate
        return sgg_delta_enclosure(*SHAPE, r, Fraction(20), Fraction(1), eta=arb(2) ** (-64 * bits), rel_eta=rel)


def test_rate_ball_at_64_bits_is_certified_and_agrees_with_the_exact_rate_at_128_bits():
    ball = _enclose(64, RATE, 2.0 ** -26)               # raised RadialPrecisionError (blurred layer) before
    exact = _enclose(128, Fraction(RATE), 1e-12)          # exact rate: a different code path (no ball ends)
    assert ball.lower > 0 and ball.upper - ball.lower <= 2.0 ** -26 * 1.01 * ball.lower
    assert ball.lower <= exact.upper and exact.lower <= ball.upper
    # the calibrated target: delta = 1e-300 to the calibration's rtol
    assert abs(float((exact.lower / arb("1e-300")).mid()) - 1) < 1e-5


def test_a_side_transition_bins_are_decided_in_arb():
    """At 256 bits (boosted to 503) the width target 1e-20 was out of reach: ~500 one-ulp bins at the A-side
    transition kept [0, mass] ("bins cannot be split further").  Now certified; the 128-bit value is inside."""
    try:
        enc = _enclose(256, Fraction(RATE), 1e-20)
    except RadialPrecisionError as exc:     # the B layer may still stall at 1e-20: the A side must not be the cause
        enc = exc.enclosure
        assert enc is not None and enc.upper - enc.lower < 1e-17 * enc.lower
    exact = _enclose(128, Fraction(RATE), 1e-12)
    assert enc.lower <= exact.upper and exact.lower <= enc.upper


def _mp_reference(alpha, power, rate, eps):
    """The 90-digit layer quadrature of tests/test_sgg_large_eps.py (no w*, no F_W by incomplete beta, no
    z = r^p), with breakpoints searched to 2^-200 of r = s: the B layer here is ~2^-115 wide, invisible to
    the default 2^-90 grid (which returned 7.4e-300 +- 8 % at the first point below)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_sgg_large_eps import mp_layer_delta

    return mp_layer_delta(2, alpha, power, Fraction(rate), Fraction(eps), dps=90, near=200)


@pytest.mark.parametrize("alpha,power,rate,eps", [
    (Fraction(3, 4), Fraction(1), RATE, 20),                 # c1 = -1/8 above its eps cap (eps50 branch)
    (Fraction(1, 2), Fraction(1), "1.4780423e-191", 10),    # c1 = -1/4 at its cap: the (10, 1e-300) cell
])
def test_small_c1_enclosure_contains_an_independent_mpmath_value(alpha, power, rate, eps):
    import mpmath as mp

    ref, err = _mp_reference(alpha, power, rate, eps)
    assert err < mp.mpf("1e-3") * ref, (ref, err)
    assert mp.mpf("1e-301") < ref < mp.mpf("1e-299")
    with working_precision(128):
        enc = sgg_delta_enclosure(2, alpha, power, arb(Fraction(rate).numerator) / Fraction(rate).denominator,
                                  Fraction(eps), Fraction(1), eta=arb(2) ** -1200, rel_eta=1e-8)
    with mp.workdps(60):
        lo = mp.mpf(enc.lower.lower().mid().str(45, radius=False))
        hi = mp.mpf(enc.upper.upper().mid().str(45, radius=False))
    assert lo - err <= ref <= hi + err, (lo, ref, hi, err)
    assert hi - lo <= mp.mpf("1e-8") * lo * (1 + mp.mpf("1e-6"))
