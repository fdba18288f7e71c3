"""Arb ball helpers: exact conversions, Gaussian CDF tails, directed decimal rounding.

Conventions (as in Arb): a function of a ball returns a ball that contains
the function's value at *every* point of the input ball. Nothing here uses a
float: decimal strings are produced from the exact dyadic endpoints of a ball
with integer arithmetic, rounded outward.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

from flint import arb, fmpq

from certdp.numbers.exact import exact_str, parse_exact

__all__ = [
    "arb_of",
    "abs_pow",
    "to_arb",
    "float_upper",
    "float_lower",
    "fraction_of_exact_arb",
    "ball_endpoints",
    "normal_cdf",
    "normal_sf",
    "log_normal_cdf",
    "round_decimal",
    "round_fraction",
    "round_ratio",
    "round_ratio_digits",
    "round_dyadic",
    "round_dyadic_digits",
    "dyadic_endpoints",
    "decimal_bounds",
]


def arb_of(value: Fraction | int | str | Decimal | float) -> arb:
    """A ball containing the exact rational ``value``, at the current working precision."""
    q = parse_exact(value, "value")
    if q.denominator == 1:
        return arb(q.numerator)
    return arb(fmpq(q.numerator, q.denominator))


def to_arb(x: object) -> arb:
    """A ball for an internal number, at the current working precision.

    ``arb`` is returned unchanged; ``int`` and ``float`` are converted exactly (a float
    is taken as its *binary* value -- the right reading for float64 candidates and
    roots computed inside certdp, unlike :func:`arb_of`, which reads a user's float
    through its shortest repr); ``Fraction`` gives a ball containing it; anything
    else (``str``, ``Decimal``) is read as an exact rational by :func:`arb_of`.
    """
    if isinstance(x, arb):
        return x
    if isinstance(x, bool):
        raise TypeError("a bool is not a number here")
    if isinstance(x, (int, float)):
        return arb(x)
    if isinstance(x, Fraction):
        return arb(fmpq(x.numerator, x.denominator))
    return arb_of(x)


def float_upper(x: arb) -> float:
    """A float64 >= every point of the ball ``x`` (directed rounding up; +inf if too large).

    The upper end is rounded to the nearest double and then moved one ulp up, so the
    result is an upper bound whatever the rounding of the conversion.
    """
    import math

    return math.nextafter(float(arb(x.upper()).mid()), math.inf)


def float_lower(x: arb) -> float:
    """A float64 <= every point of the ball ``x`` (directed rounding down; -inf if too small)."""
    import math

    return math.nextafter(float(arb(x.lower()).mid()), -math.inf)


def fraction_of_exact_arb(x: arb) -> Fraction:
    """The exact midpoint of ``x`` as a Fraction (the midpoint of an arb is a dyadic number)."""
    if not x.is_finite():
        raise ValueError("ball is not finite")
    mantissa, exponent = x.mid().man_exp()
    mantissa, exponent = int(mantissa), int(exponent)
    if exponent >= 0:
        return Fraction(mantissa * 2**exponent)
    return Fraction(mantissa, 2**-exponent)


def ball_endpoints(x: arb) -> tuple[Fraction, Fraction]:
    """Exact rational endpoints ``(mid - rad, mid + rad)`` of a finite ball."""
    if not x.is_finite():
        raise ValueError("ball is not finite")
    mid = fraction_of_exact_arb(x)
    rad = fraction_of_exact_arb(x.rad())
    return mid - rad, mid + rad


def _inv_sqrt2() -> arb:
    return arb(2).rsqrt()


def normal_cdf(x: arb) -> arb:
    """Standard normal CDF Phi(x) = erfc(-x/sqrt 2)/2.

    Computed through erfc, never (1 + erf)/2: the lower tail keeps full relative
    accuracy at any exponent (Phi(-100) ~ 1e-2174 is returned as such).
    """
    return (-x * _inv_sqrt2()).erfc() / 2


def normal_sf(x: arb) -> arb:
    """Standard normal survival function 1 - Phi(x) = erfc(x/sqrt 2)/2 (same accuracy remark)."""
    return (x * _inv_sqrt2()).erfc() / 2


def log_normal_cdf(x: arb) -> arb:
    """log Phi(x); Arb's erfc has an unbounded exponent range, so this never underflows."""
    return normal_cdf(x).log()


_POW10 = tuple(10**k for k in range(400))


def _pow10(k: int) -> int:
    """10^k for k >= 0 (a table lookup for the exponents the hot path uses)."""
    return _POW10[k] if 0 <= k < 400 else 10**k


def _at_least_power_of_ten(a: int, den: int, e: int) -> bool:
    """a/den >= 10^e for positive integers a, den."""
    return a * _pow10(-e) >= den if e < 0 else a >= den * _pow10(e)


def _round_positive(a: int, den: int, digits: int, away: bool) -> tuple[int, int]:
    """``(n, shift)``: ``a/den`` (positive integers) rounded to ``digits`` significant digits as
    ``n * 10^-shift``, towards zero or (``away``) away from zero; integer arithmetic only.

    The decimal exponent ``e = floor(log10(a/den))`` is estimated from the bit lengths (off by at
    most one) and corrected by the digit count of the quotient itself: ``floor(a 10^s / den)`` has
    exactly ``digits`` digits iff ``e`` is right (``s = digits - 1 - e``).
    """
    if digits < 1:
        raise ValueError("digits must be >= 1")
    try:  # a float guess of floor(log10(a/den)) (one pass of the loop below when right)
        ratio = a / den
        e = math.floor(math.log10(ratio)) if 0.0 < ratio < math.inf else None
    except OverflowError:
        e = None
    if e is None:
        e = int((a.bit_length() - den.bit_length()) * 0.30102999566398120)
    low, high = _pow10(digits - 1), _pow10(digits)
    while True:
        shift = digits - 1 - e
        if shift >= 0:
            n, remainder = divmod(a * _pow10(shift), den)
        else:
            n, remainder = divmod(a, den * _pow10(-shift))
        if n >= high:
            e += 1
        elif n < low:
            e -= 1
        else:
            break
    return _away_from_truncation(n, shift, away and remainder != 0, high)


def _away_from_truncation(n: int, shift: int, bump: bool, high: int) -> tuple[int, int]:
    """The truncated ``digits``-digit ``(n, shift)`` moved one unit away from zero when ``bump`` (a
    nonzero remainder rounded outward), keeping ``digits`` significant digits (9.99.. -> 10.0..)."""
    if bump:
        n += 1
        if n == high:
            n //= 10
            shift -= 1
    return n, shift


def round_decimal(q: Fraction, digits: int, direction: str) -> Decimal:
    """Round ``q`` to ``digits`` significant decimal digits, towards +inf (``"up"``) or -inf (``"down"``).

    Guarantee: ``round_decimal(q, n, "down") <= q <= round_decimal(q, n, "up")``, exactly
    (integer arithmetic only).
    """
    if direction not in ("up", "down"):
        raise ValueError("direction must be 'up' or 'down'")
    if type(q) is not Fraction:
        q = Fraction(q)
    num, den = q.numerator, q.denominator
    if num == 0:
        return Decimal(0)
    negative = num < 0
    n, shift = _round_positive(-num if negative else num, den, digits, (direction == "up") != negative)
    return Decimal(f"{'-' if negative else ''}{n}E{-shift}")   # same digits and exponent as the tuple form


def round_fraction(q: Fraction, digits: int, direction: str) -> Fraction:
    """``Fraction(round_decimal(q, digits, direction))``, without building the Decimal."""
    return round_ratio(q.numerator, q.denominator, digits, direction)


def round_ratio(num: int, den: int, digits: int, direction: str) -> Fraction:
    """``round_fraction(Fraction(num, den), digits, direction)`` for integers ``num``, ``den > 0``
    (the ratio need not be reduced: the rounding only compares and divides)."""
    if direction not in ("up", "down"):
        raise ValueError("direction must be 'up' or 'down'")
    if num == 0:
        return Fraction(0)
    negative = num < 0
    n, shift = _round_positive(-num if negative else num, den, digits, (direction == "up") != negative)
    if negative:
        n = -n
    return Fraction(n * _pow10(-shift)) if shift <= 0 else Fraction(n, _pow10(shift))


def round_ratio_digits(num: int, den: int, digits: int, direction: str) -> tuple[int, int]:
    """:func:`round_ratio` for ``num, den > 0`` as the pair ``(n, shift)``, the value ``n * 10^-shift``
    (no Fraction is built: the hot path of a closed-form calibration needs the digits only)."""
    return _round_positive(num, den, digits, direction == "up")


def round_dyadic(mantissa: int, exponent: int, digits: int, direction: str) -> Fraction:
    """``round_fraction(mantissa * 2^exponent, digits, direction)`` (the endpoints of an Arb ball
    are dyadic): no Fraction arithmetic before the one division of the rounding."""
    n, shift = round_dyadic_digits(mantissa, exponent, digits, direction)
    return Fraction(n * _pow10(-shift)) if shift <= 0 else Fraction(n, _pow10(shift))


def round_dyadic_digits(mantissa: int, exponent: int, digits: int, direction: str) -> tuple[int, int]:
    """:func:`round_dyadic` as ``(n, shift)``, the value ``n * 10^-shift`` (``n`` signed)."""
    if mantissa == 0:
        return 0, 0
    negative = mantissa < 0
    n, shift = _round_dyadic_positive(-mantissa if negative else mantissa, exponent, digits,
                                      (direction == "up") != negative)
    return (-n if negative else n), shift


_LOG10_2 = 0.30102999566398120


def _round_dyadic_positive(a: int, k: int, digits: int, away: bool) -> tuple[int, int]:
    """:func:`_round_positive` of the dyadic ``a * 2^k`` (``a > 0``): the same ``(n, shift)``, with
    shifts and masks instead of a division by ``2^-k``, and the decimal exponent estimated from
    the leading 53 bits (a float *guess* of ``floor(log10)``; the digit count of ``n`` corrects it,
    exactly as in :func:`_round_positive`)."""
    if digits < 1:
        raise ValueError("digits must be >= 1")
    bits = a.bit_length()
    drop = bits - 53 if bits > 53 else 0
    e = math.floor(math.log10(a >> drop) + (drop + k) * _LOG10_2)
    pow10 = _POW10
    low, high = (pow10[digits - 1], pow10[digits]) if digits < 400 else (10 ** (digits - 1), 10**digits)
    while True:
        shift = digits - 1 - e
        if shift >= 0:
            x = a * (pow10[shift] if shift < 400 else 10**shift)
            if k >= 0:
                n, remainder = x << k, 0
            else:
                n, remainder = x >> -k, x & ((1 << -k) - 1)
        elif k >= 0:
            n, remainder = divmod(a << k, _pow10(-shift))
        else:
            n, remainder = divmod(a, _pow10(-shift) << -k)
        if n >= high:
            e += 1
        elif n < low:
            e -= 1
        else:
            break
    return _away_from_truncation(n, shift, away and remainder != 0, high)


def dyadic_endpoints(x: arb) -> tuple[tuple[int, int], tuple[int, int]]:
    """The exact endpoints of a finite ball as ``(mantissa, exponent)`` pairs (value m * 2^e)."""
    if not x.is_finite():
        raise ValueError("ball is not finite")
    m, e = x.mid().man_exp()
    r, f = x.rad().man_exp()
    m, e, r, f = int(m), int(e), int(r), int(f)
    if r == 0:
        return (m, e), (m, e)
    if m == 0:
        return (-r, f), (r, f)
    g = min(e, f)
    m <<= e - g
    r <<= f - g
    return (m - r, g), (m + r, g)


def decimal_bounds(x: arb, digits: int = 20) -> tuple[str, str]:
    """Outward-rounded decimal strings ``(lower, upper)`` with every point of ``x`` between them."""
    lo, hi = ball_endpoints(x)
    lo_d = round_decimal(lo, digits, "down")
    hi_d = round_decimal(hi, digits, "up")
    return exact_str(Fraction(lo_d)), exact_str(Fraction(hi_d))


def abs_pow(z: arb, p: arb) -> arb:
    """|z|^p for p > 0 on a ball z (a ball touching 0 gives [0, hi^p]: t -> t^p is increasing)."""
    a = abs(z)
    if a > 0:
        return (p * a.log()).exp()
    hi = arb(a.upper())
    return arb(0) if hi == 0 else arb(0).union((p * hi.log()).exp())
