"""The Gamma(k) masses of the radial engine for a large non-integer shape ``k`` below its mode.

``sgg T=1000 alpha=999 p=3/2`` (``k = 2000/3``, not a dyadic number, so an Arb ball) timed out at
(eps, delta) = (50, 1e-300): Arb's lower incomplete gamma returns nan for a ball shape at every precision, so
every bin below the mode was nan at 64, 128 and 256 bits and only the 512-bit rung (~45 s) got through.  The
masses below the mode now come from the series of positive terms ``_lower_series_below_mode``.  References:
mpmath's regularized incomplete gamma at 50 digits, and the engine at 128 bits (a different rung).
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import pytest
from flint import arb, ctx

from certdp.engines.radial import SGGRadialProblem, _lower_series_below_mode, sgg_delta_enclosure
from certdp.numbers import working_precision

sys.path.insert(0, str(Path(__file__).parent))
from test_sgg_large_T import _ends  # noqa: E402


@pytest.mark.parametrize("k", [Fraction(2000, 3), Fraction(1001, 4), Fraction(500, 3), Fraction(33, 2)])
@pytest.mark.parametrize("z", [1, 10, 50, 150, 160])
def test_series_below_the_mode_contains_mpmath_and_is_tight(k, z):
    if not z < k:
        return
    with working_precision(64):
        ka = arb(k.numerator) / k.denominator
        v = _lower_series_below_mode(arb(z), ka)
        assert v is not None and v.rad() < arb(2) ** -48 * v.mid()
        with mp.workdps(50):
            ref = mp.gammainc(mp.mpf(k.numerator) / k.denominator, 0, z, regularized=True)
        lo, hi = _ends(v)
        assert lo <= ref <= hi, (k, z, v, ref)
        assert _lower_series_below_mode(ka + 1, ka) is None      # only below the mode


def test_arb_lower_function_is_nan_for_a_ball_shape():
    """What the series replaces (if Arb starts answering here, the series is still a valid enclosure)."""
    old = ctx.prec
    try:
        ctx.prec = 256
        assert not arb(50).gamma_lower(arb(2000) / 3, regularized=1).is_finite()
    finally:
        ctx.prec = old


T, ALPHA, P, RATE, EPS = 1000, Fraction(999), Fraction(3, 2), Fraction("9.2107793"), Fraction(50)


def test_bin_masses_below_the_mode_are_finite_at_64_bits_and_match_mpmath():
    """``_mass`` of bins below the mode (these were nan: the bins' contributions too, at every rung < 512 bits)."""
    with working_precision(64):
        prob = SGGRadialProblem(T, ALPHA, P, RATE, EPS, 1)
        for zl, zu in ((20, 30), (50, 52), (300, 320), (600, 620)):
            m = prob._mass(arb(zl), arb(zu))
            assert m.is_finite() and m.rad() <= arb(2) ** -48 * m.mid(), (zl, m)
            with mp.workdps(50):
                k = mp.mpf(2000) / 3
                ref = mp.gammainc(k, zl, zu, regularized=True)
            lo, hi = _ends(m)
            assert lo <= ref <= hi, (zl, lo, ref, hi)


def test_64_bit_pass_at_the_timed_out_cell_is_certified_and_agrees_with_128_bits():
    encs = []
    for bits in (64, 128):
        with working_precision(bits):
            encs.append(sgg_delta_enclosure(T, ALPHA, P, arb(RATE.numerator) / RATE.denominator, EPS, 1,
                                            eta=arb(2) ** (-64 * bits), rel_eta=2.0 ** -26))
    for e in encs:
        assert e.lower > 0 and e.upper - e.lower <= 2.0 ** -26 * 1.01 * e.lower
    assert encs[0].lower <= encs[1].upper and encs[1].lower <= encs[0].upper
