"""certdp.numbers ball helpers folded from the engines: to_arb, float_upper, float_lower."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from flint import arb

from certdp.numbers import float_lower, float_upper, to_arb, working_precision


def test_to_arb_reads_internal_numbers():
    with working_precision(128):
        x = arb(3, 1)
        assert to_arb(x) is x
        assert to_arb(7) == 7 and to_arb(7).is_exact()
        assert to_arb(0.1) == arb(0.1) and to_arb(0.1).is_exact()  # binary value of the double
        assert to_arb(Fraction(1, 3)).contains(arb(1) / 3) and not to_arb(Fraction(1, 3)).is_exact()
        assert to_arb(Fraction(3, 4)) == arb("0.75")
        assert to_arb("0.1").contains(arb(1) / 10) and to_arb(Decimal("0.1")).contains(arb(1) / 10)
        with pytest.raises(TypeError):
            to_arb(True)


def test_directed_float_bounds():
    with working_precision(256):
        third = arb(1) / 3
        assert arb(float_lower(third)) < third < arb(float_upper(third))
        ball = arb(1, 1e-30)
        assert arb(float_upper(ball)) >= arb(ball.upper()) and arb(float_lower(ball)) <= arb(ball.lower())
        tiny = arb(2) ** -1100  # below the smallest double
        assert float_lower(tiny) <= 0.0 < float_upper(tiny)
        huge = arb(2) ** 2000
        assert float_upper(huge) == float("inf")
