"""Seed 003 App. E / Table 3: the Ji & Li (2024, Thm. 5) R1SMG calibration is not (eps, 1e-5)-DP.

Every printed digit of Table 3 is checked: the certified enclosure of the true
delta must lie inside the rounding interval of the printed 6-decimal value
(``[x - 5e-7, x + 5e-7]``), and likewise psi and sigma_star.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from flint import arb

import certdp
from certdp.numbers import working_precision
from certdp.workflows.sgg_audit import TABLE3, TABLE3_PSI, r1smg_psi, table3_rows


def _inside_rounding_interval(lower: arb, upper: arb, printed: str) -> bool:
    x = Fraction(printed)
    half = Fraction(1, 2 * 10 ** (len(printed.split(".")[1])))
    lo = arb(x.numerator) / x.denominator - arb(half.numerator) / half.denominator
    hi = arb(x.numerator) / x.denominator + arb(half.numerator) / half.denominator
    return bool(lower >= lo and upper <= hi)


def test_psi_matches_table3():
    with working_precision(128):
        psi = r1smg_psi(128, Fraction(1, 10**5))
        assert _inside_rounding_interval(psi.lower(), psi.upper(), TABLE3_PSI)


def test_table3_every_printed_digit():
    rows = table3_rows(eta=1e-8)
    assert len(rows) == len(TABLE3)
    for row in rows:
        sigma = row["sigma_star"]
        assert _inside_rounding_interval(sigma.lower(), sigma.upper(), row["sigma_paper"]), row
        assert float((row["delta_upper"] - row["delta_lower"]).upper()) <= 1e-8
        assert _inside_rounding_interval(row["delta_lower"], row["delta_upper"], row["delta_paper"]), row
        assert row["delta_lower"] > arb(1) / 10**5   # the claim is violated, with certainty


def test_audit_r1smg_violated():
    cert = certdp.audit("r1smg", dimension=128, epsilon=1, delta="1e-5", sensitivity=1)
    assert cert.verdict == "VIOLATED"
    lo, hi = (Fraction(x) for x in cert.delta_enclosure)
    assert Fraction("0.9835935") < lo <= hi < Fraction("0.9835945")
    assert cert.extra["claim"] == "r1smg"
    assert cert.extra["claimed_value_enclosure"][0].startswith("2.504003")


def test_r1smg_claim_needs_t_at_least_3():
    from certdp.numbers import InputError

    with pytest.raises(InputError):
        certdp.audit("r1smg", dimension=2, epsilon=1, delta="1e-5")
