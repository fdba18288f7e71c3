"""Small |c1| (log-singular SGG, -1/2 < c1 < 0) at large eps (branch `eps50`, docs/sgg.md item 26a).

sgg T=2 alpha=3/4 p=1 (c1 = -1/8) at (20, 1e-300) timed out (> 90 s): the A-side transition at
r ~ s e^(-eps / (2|c1|)) (1e-35 of s) was invisible to the float guesses (every bin one double spacing wide,
first order), and the 64/128-bit rungs refused the rate ball that blurs the 2^-115-wide B layer.
"""
from fractions import Fraction

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
