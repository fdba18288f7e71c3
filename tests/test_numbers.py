"""The numbers layer: exact parsing, directed rounding, certified comparisons, the bracket."""

from decimal import Decimal
from fractions import Fraction

import pytest
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st

from certdp.numbers import (
    Decision, InputError, UndecidedError, arb_of, certified_monotone_bracket, certify_le, decimal_bounds,
    escalate, exact_str, normal_cdf, normal_sf, parse_exact, parse_probability, round_decimal, working_precision,
)


@pytest.mark.parametrize("value, expected", [
    ("0.1", Fraction(1, 10)), (0.1, Fraction(1, 10)), ("1e-5", Fraction(1, 100000)), ("1/3", Fraction(1, 3)),
    (Decimal("2.50"), Fraction(5, 2)), (7, Fraction(7)), (Fraction(3, 7), Fraction(3, 7)),
    ("1e-5000", Fraction(1, 10**5000)),
])
def test_parse_exact_reads_exact_values(value, expected):
    assert parse_exact(value, "x") == expected


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", float("nan"), float("inf"), "abc", "", "1/0", True, None, [1]])
def test_parse_exact_rejects_non_numbers_naming_the_parameter(bad):
    with pytest.raises(InputError) as info:
        parse_exact(bad, "epsilon")
    assert info.value.parameter == "epsilon"
    assert str(info.value).startswith("epsilon:")


@pytest.mark.parametrize("bad", ["0", "1", "-0.1", "1.5"])
def test_parse_probability_is_open_interval(bad):
    with pytest.raises(InputError):
        parse_probability(bad, "delta")


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_is_read_through_its_shortest_repr(x):
    assert parse_exact(x, "x") == Fraction(Decimal(repr(x)))


@given(st.fractions())
def test_exact_str_round_trips(q):
    assert parse_exact(exact_str(q), "x") == q


@pytest.mark.parametrize("q", [Fraction(123456789012345678901234567891, 1024), Fraction(-(10**40) - 1, 10**45)])
def test_exact_str_keeps_every_digit(q):
    assert parse_exact(exact_str(q), "x") == q


@given(st.fractions(min_value=Fraction(1, 10**30), max_value=Fraction(10**30)), st.integers(1, 25))
def test_round_decimal_is_directed(q, digits):
    down, up = round_decimal(q, digits, "down"), round_decimal(q, digits, "up")
    assert Fraction(down) <= q <= Fraction(up)
    assert len(down.as_tuple().digits) <= digits and len(up.as_tuple().digits) <= digits
    assert Fraction(up) - Fraction(down) <= Fraction(up) * Fraction(10) ** (1 - digits) * 2


def test_decimal_bounds_enclose_the_ball():
    with working_precision(128):
        x = arb(1) / 3
        lo, hi = decimal_bounds(x, 25)
    assert Fraction(lo) <= Fraction(1, 3) <= Fraction(hi)
    assert Fraction(hi) - Fraction(lo) < Fraction(1, 10**23)


def test_normal_tails_do_not_underflow():
    with working_precision(64):
        tail = normal_sf(arb(100))
        assert tail > 0
        # Phi(-100) ~ 1.3e-2174: compare the exponent with mpmath's value.
        import mpmath as mp
        with mp.workdps(30):  # local: a global mp.dps = 30 leaked into later test modules
            ref = mp.ncdf(-100)
            assert abs(float((tail.log() - arb(str(mp.log(ref)))).mid())) < 1e-12
        assert normal_cdf(arb(-100)).overlaps(tail)


def test_certify_le_three_way():
    assert certify_le(arb(1), arb(2)) is Decision.YES
    assert certify_le(arb(3), arb(2)) is Decision.NO
    assert certify_le(arb(2, 1), arb(2)) is Decision.UNKNOWN
    with pytest.raises(TypeError):
        bool(Decision.YES)


def test_escalate_climbs_the_ladder():
    seen = []

    def attempt(bits):
        seen.append(bits)
        return "ok" if bits >= 256 else None

    assert escalate(attempt) == ("ok", 256)
    assert seen == [64, 128, 256]


def test_bracket_on_a_known_boundary_both_directions():
    # delta(t) = 1/t decreasing, boundary t* = 3; delta(t) = t^2 increasing, boundary sqrt(2).
    b = certified_monotone_bracket(lambda t: 1 / t, Fraction(1, 3), increasing=False, candidate=2.99)
    assert Fraction(b.lo) < 3 <= Fraction(b.hi)
    assert b.safe == b.hi and b.relative_width <= Fraction(1, 10**12)
    b = certified_monotone_bracket(lambda t: t * t, Fraction(2), increasing=True, candidate=None)
    assert Fraction(b.lo) ** 2 <= 2 < Fraction(b.hi) ** 2
    assert b.safe == b.lo and b.relative_width <= Fraction(1, 10**12)


@settings(max_examples=20, deadline=None)
@given(st.fractions(min_value=Fraction(1, 10**6), max_value=Fraction(10**6)),
       st.one_of(st.none(), st.floats(min_value=1e-9, max_value=1e9)))
def test_bracket_is_certified_for_any_candidate(target, candidate):
    """Whatever the (possibly wrong) float candidate, the bracket contains the exact boundary."""
    b = certified_monotone_bracket(lambda t: 1 / t, 1 / target, increasing=False, candidate=candidate)
    assert Fraction(b.lo) < target <= Fraction(b.hi)
    assert b.relative_width <= Fraction(1, 10**12)


def test_bracket_with_a_settled_gap_stops_escalating():
    """A profile proven <= delta for t >= 3.1 and > delta for t <= 2.9, returning ``(lower, upper,
    True)`` (undecidable at any precision) in between: the bracket still holds a proven safe and a
    proven unsafe end, each gap point is evaluated once (no precision ladder), and the notes say
    the bisection stopped."""
    calls: dict[Fraction, int] = {}

    def profile(t):
        key = Fraction(t.mid().str(30, radius=False))
        calls[key] = calls.get(key, 0) + 1
        if t >= arb("3.1"):
            return arb(0), arb(0)
        if t <= arb("2.9"):
            return arb(1), arb(1)
        return arb(0), arb(1), True

    b = certified_monotone_bracket(profile, Fraction(1, 2), increasing=False, candidate=3.0)
    assert Fraction(b.hi) >= Fraction(31, 10) and Fraction(b.lo) <= Fraction(29, 10)
    assert b.safe == b.hi
    gap = [k for k in calls if Fraction(29, 10) < k < Fraction(31, 10)]
    assert gap and all(calls[k] == 1 for k in gap), calls
    assert any("bisection stopped" in n for n in b.notes), b.notes


def test_bracket_without_any_boundary_is_undecided():
    with pytest.raises(UndecidedError):
        certified_monotone_bracket(lambda t: arb(1) + 0 * t, Fraction(1, 2), increasing=False, max_doublings=40)


def test_arb_of_is_an_enclosure_of_the_exact_rational():
    with working_precision(64):
        x = arb_of("0.1")
    with working_precision(512):
        tenth = arb(1) / 10
        assert x.contains(tenth) and not x.is_exact()
