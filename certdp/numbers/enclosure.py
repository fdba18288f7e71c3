"""A certified enclosure of a real number, stored with exact rational endpoints."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from certdp.numbers.balls import _pow10, dyadic_endpoints, round_decimal, round_dyadic_digits
from certdp.numbers.exact import decimal_text, exact_str

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
        """``[mid - rad, mid + rad]`` of the finite ball ``x``, each end exact (dyadic) before its
        outward rounding to ``digits`` digits (:func:`~certdp.numbers.balls.dyadic_endpoints`,
        inlined: this runs twice per calibration)."""
        if not x.is_finite():
            raise ValueError("ball is not finite")
        m, e = x.mid().man_exp()
        r, f = x.rad().man_exp()
        m, e, r = int(m), int(e), int(r)
        if r == 0:
            lo_m, lo_e, hi_m, hi_e = m, e, m, e
        elif m == 0:
            f = int(f)
            lo_m, lo_e, hi_m, hi_e = -r, f, r, f
        else:
            f = int(f)
            g = e if e < f else f
            m <<= e - g
            r <<= f - g
            lo_m, lo_e, hi_m, hi_e = m - r, g, m + r, g
        enc = object.__new__(cls)  # _of_digits, inlined
        enc.__dict__["precision_bits"] = precision_bits
        enc.__dict__["_digits"] = (round_dyadic_digits(lo_m, lo_e, digits, "down"),
                                   round_dyadic_digits(hi_m, hi_e, digits, "up"))
        return enc

    @classmethod
    def from_bounds(cls, low: arb, high: arb, precision_bits: int = 0, digits: int = 20) -> "Enclosure":
        """``[low.lower(), high.upper()]`` (two balls, each end exact before the outward rounding)."""
        lo_m, lo_e = dyadic_endpoints(low)[0]
        hi_m, hi_e = dyadic_endpoints(high)[1]
        return cls._of_digits(round_dyadic_digits(lo_m, lo_e, digits, "down"),
                              round_dyadic_digits(hi_m, hi_e, digits, "up"), precision_bits)

    @classmethod
    def _of_digits(cls, lower: tuple[int, int], upper: tuple[int, int], precision_bits: int) -> "Enclosure":
        """The enclosure ``[n_lo 10^-s_lo, n_hi 10^-s_hi]`` (``(n, s)`` pairs), built lazily: the
        Fractions ``lower`` / ``upper`` are made on first access (:meth:`__getattr__`) and
        :meth:`strings` writes the decimals from the digits -- a calibration that only prints
        its enclosures never builds them."""
        enc = object.__new__(cls)
        enc.__dict__["precision_bits"] = precision_bits
        enc.__dict__["_digits"] = (lower, upper)
        return enc

    def __getattr__(self, name: str) -> Fraction:
        """``lower`` / ``upper`` of a lazily built enclosure (called only when not set yet)."""
        if name in ("lower", "upper") and "_digits" in self.__dict__:
            lower, upper = self.__dict__["_digits"]
            value = _of_decimal(*(lower if name == "lower" else upper))
            self.__dict__[name] = value
            return value
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def strings(self) -> list[str]:
        """``[lower, upper]`` as exact decimal strings (the JSON form)."""
        digits = self.__dict__.get("_digits")
        if digits is not None:
            (lo_n, lo_s), (hi_n, hi_s) = digits
            return [decimal_text(lo_n, -lo_s), decimal_text(hi_n, -hi_s)]
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


def _of_decimal(n: int, shift: int) -> Fraction:
    return Fraction(n * _pow10(-shift)) if shift <= 0 else Fraction(n, _pow10(shift))
