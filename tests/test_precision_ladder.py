"""The one precision-ladder loop (run_on_ladder) and the certified decision on it (decide_on_ladder)."""

from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx

from certdp.numbers import Decision, Enclosure, decide_on_ladder, escalate, run_on_ladder
from certdp.workflows.audit import decide_profile

LADDER = (64, 128, 256, 512)


def test_run_on_ladder_sets_precision_and_stops_at_first_success():
    seen = []

    def attempt(bits):
        seen.append((bits, ctx.prec))
        return "done" if bits >= 256 else None

    saved = ctx.prec
    assert run_on_ladder(attempt, LADDER) == ("done", 256)
    assert seen == [(64, 64), (128, 128), (256, 256)]
    assert ctx.prec == saved
    assert run_on_ladder(lambda bits: None, LADDER) == (None, 512)
    assert escalate(attempt, LADDER) == ("done", 256)


def _narrowing(value: Fraction, finite_from: int = 64):
    """A ball around ``value`` whose radius shrinks with the precision; NaN below ``finite_from``."""
    def ball_at():
        if ctx.prec < finite_from:
            return arb("nan")
        return arb(value.numerator) / value.denominator + arb(0, 2.0 ** (-ctx.prec // 2))
    return ball_at


def test_decide_on_ladder_decides_and_reports_bits():
    d, enc, bits = decide_on_ladder(_narrowing(Fraction(1, 3)), Fraction(1, 2), LADDER)
    assert d is Decision.YES and bits == 64 and enc.contains(Fraction(1, 3))
    d, enc, bits = decide_on_ladder(_narrowing(Fraction(1, 3)), Fraction(1, 3) - Fraction(1, 2**50), LADDER)
    assert d is Decision.NO and bits == 128
    d, enc, bits = decide_on_ladder(_narrowing(Fraction(1, 3)), arb(1) / 3, LADDER)
    assert d is Decision.UNKNOWN and bits == 512 and isinstance(enc, Enclosure)


def test_decide_on_ladder_skips_non_finite_balls():
    d, enc, bits = decide_on_ladder(_narrowing(Fraction(1, 3), finite_from=256), Fraction(1, 2), LADDER)
    assert d is Decision.YES and bits == 256 and enc.precision_bits == 256
    d, enc, bits = decide_on_ladder(lambda: arb("nan"), Fraction(1, 2), LADDER)
    assert d is Decision.UNKNOWN and enc is None and bits == 64


def test_decide_on_ladder_pairs_and_settled_triples():
    d, enc, _ = decide_on_ladder(lambda: (arb("0.1"), arb("0.2")), Fraction(1, 4), LADDER)
    assert d is Decision.YES and enc.contains(Fraction(1, 10)) and enc.contains(Fraction(1, 5))
    calls = []

    def settled():
        calls.append(ctx.prec)
        return arb("0.1"), arb("0.3"), True

    d, enc, bits = decide_on_ladder(settled, Fraction(1, 4), LADDER)
    assert d is Decision.UNKNOWN and calls == [64] and bits == 64


def test_decide_on_ladder_matches_decide_profile():
    verdicts = {Decision.YES: "VALID", Decision.NO: "VIOLATED", Decision.UNKNOWN: "UNDECIDED"}
    for ball_at, threshold in [
        (_narrowing(Fraction(1, 3)), Fraction(1, 2)),
        (_narrowing(Fraction(1, 3)), Fraction(1, 3) - Fraction(1, 2**50)),
        (_narrowing(Fraction(1, 3), finite_from=256), Fraction(1, 3) + Fraction(1, 2**70)),
        (_narrowing(Fraction(1, 3)), Fraction(1, 3)),
        (lambda: arb("nan"), Fraction(1, 2)),
    ]:
        d, enc, bits = decide_on_ladder(ball_at, threshold, LADDER)
        verdict, enc2, bits2 = decide_profile(ball_at, threshold, LADDER)
        assert (verdicts[d], enc, bits) == (verdict, enc2, bits2)
