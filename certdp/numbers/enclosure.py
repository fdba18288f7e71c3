"""A certified enclosure of a real number, stored with exact rational endpoints."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from certdp.numbers.balls import dyadic_endpoints, round_decimal, round_dyadic
from certdp.numbers.exact import exact_str

__all__ = ["Enclosure"]


@dataclass(frozen=True)
class Enclosure:
    """``lower <= true value <= upper``, proven; endpoints are exact decimals (outward-rounded).

    ``precision_bits`` is the Arb working precision that produced it.
    """

    lower: Fraction
    upper: Fraction
    precision_bits: int = 0

    @classmethod
    def from_arb(cls, x: arb, precision_bits: int = 0, digits: int = 20) -> "Enclosure":
        (lo_m, lo_e), (hi_m, hi_e) = dyadic_endpoints(x)
        return cls(round_dyadic(lo_m, lo_e, digits, "down"), round_dyadic(hi_m, hi_e, digits, "up"), precision_bits)

    @classmethod
    def from_bounds(cls, low: arb, high: arb, precision_bits: int = 0, digits: int = 20) -> "Enclosure":
        """``[low.lower(), high.upper()]`` (two balls, each end exact before the outward rounding)."""
        lo_m, lo_e = dyadic_endpoints(low)[0]
        hi_m, hi_e = dyadic_endpoints(high)[1]
        return cls(round_dyadic(lo_m, lo_e, digits, "down"), round_dyadic(hi_m, hi_e, digits, "up"), precision_bits)

    def strings(self) -> list[str]:
        """``[lower, upper]`` as exact decimal strings (the JSON form)."""
        return [exact_str(self.lower), exact_str(self.upper)]

    def contains(self, value: Fraction | int) -> bool:
        return self.lower <= Fraction(value) <= self.upper

    def overlaps(self, other: "Enclosure") -> bool:
        return self.lower <= other.upper and other.lower <= self.upper

    @property
    def width(self) -> Fraction:
        return self.upper - self.lower

    def short(self, digits: int = 8) -> str:
        """``[lower, upper]`` rounded outward to ``digits`` significant digits (for display)."""
        lo = exact_str(Fraction(round_decimal(self.lower, digits, "down")))
        hi = exact_str(Fraction(round_decimal(self.upper, digits, "up")))
        return f"[{lo}, {hi}]"

    def __str__(self) -> str:
        return self.short()
