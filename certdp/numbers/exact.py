"""Exact input parsing.

Every privacy parameter enters certdp as an exact rational number
(:class:`fractions.Fraction`): ``"0.1"`` is one tenth, not the binary double
nearest to it. A ``float`` is read through its shortest round-trip repr
(``repr(0.1) == "0.1"``), so ``0.1`` and ``"0.1"`` mean the same number.

All parse functions raise :class:`InputError`, a ``ValueError`` that names the
offending parameter, so that the command line can print one clear line.
"""

from __future__ import annotations

import math
from functools import lru_cache
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from numbers import Integral

from flint import fmpz

__all__ = [
    "InputError",
    "UndecidedError",
    "parse_exact",
    "parse_positive",
    "parse_nonnegative",
    "parse_probability",
    "parse_positive_int",
    "parse_int",
    "parse_real",
    "exact_str",
    "fraction_of_float_repr",
    "MAX_DECIMAL_EXPONENT",
    "MAX_INPUT_CHARS",
]

#: Largest |decimal exponent| accepted in an input (``1e-999999`` is accepted, ``1e-1000000`` is not):
#: the range of Python's default decimal context, so every accepted number prints and converts
#: without overflow. Arb's exponent range is far wider; the cap keeps every exact rational small
#: enough (at most ~3.3 million bits) that parsing and printing it take milliseconds. Mechanisms
#: narrow it further (:mod:`certdp.mechanisms.domains`).
MAX_DECIMAL_EXPONENT = 999_999
#: Longest numeric string accepted (digits of a mantissa, or of a fraction's numerator and denominator).
MAX_INPUT_CHARS = 4000


class InputError(ValueError):
    """A user-supplied value is malformed or out of range.

    ``parameter`` is the name of the argument; ``str(err)`` reads
    ``"<parameter>: <reason>"``.
    """

    def __init__(self, parameter: str, reason: str):
        self.parameter = parameter
        self.reason = reason
        super().__init__(f"{parameter}: {reason}")


class UndecidedError(ArithmeticError):
    """A certified decision could not be reached even at the top of the precision ladder.

    This is an honest "do not know", never a wrong answer: the caller must not
    treat it as either outcome. ``enclosure`` optionally carries the best
    certified enclosure reached, as ``(lower_str, upper_str)`` (the CLI prints it).
    """

    def __init__(self, *args: object, enclosure: tuple[str, str] | None = None):
        super().__init__(*args)
        self.enclosure = enclosure


# ASCII digits only (``\d`` would also accept e.g. Arabic-Indic digits).
_DECIMAL_RE = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
_FRACTION_RE = re.compile(r"^[+-]?[0-9]+\s*/\s*[0-9]+$")


#: Parsed inputs, keyed on ``(type, value)`` (so ``1``, ``1.0`` and ``"1"`` are separate keys even
#: though they compare equal). Only successful parses of small numbers are kept: a Fraction is
#: immutable, so handing out the same object twice is safe. Bounded: cleared when full.
_PARSED: dict[tuple[type, object], Fraction] = {}
_PARSED_MAX_ENTRIES = 4096
_PARSED_MAX_BITS = 4096
_CACHEABLE_TYPES = (str, float, int, Decimal)


def parse_exact(value: object, name: str) -> Fraction:
    """Return ``value`` as an exact :class:`Fraction`.

    Accepts ``str`` (a decimal such as ``"1e-5"`` or a fraction ``"1/3"``),
    ``int``, ``Fraction``, ``Decimal`` and ``float`` (through its shortest
    repr). Rejects ``bool``, NaN, infinities and anything else with an
    :class:`InputError` naming ``name``.

    Successful parses of ``str`` / ``float`` / ``int`` / ``Decimal`` inputs are memoized (the same
    exact Fraction is returned for the same typed input; errors are never cached, so the message
    always names the caller's ``name``).
    """
    kind = type(value)
    if kind is Fraction:
        return value  # type: ignore[return-value]
    if kind in _CACHEABLE_TYPES:
        key = (kind, value)
        try:
            return _PARSED[key]
        except (KeyError, TypeError):  # TypeError: an unhashable Decimal NaN signalling
            pass
        q = _parse_exact_uncached(value, name)
        if q.numerator.bit_length() + q.denominator.bit_length() <= _PARSED_MAX_BITS:
            if len(_PARSED) >= _PARSED_MAX_ENTRIES:
                _PARSED.clear()
            _PARSED[key] = q
        return q
    return _parse_exact_uncached(value, name)


def _parse_exact_uncached(value: object, name: str) -> Fraction:
    if isinstance(value, bool):
        raise InputError(name, f"expected a number, got the boolean {value!r}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Integral):
        return Fraction(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(name, f"must be a finite number (got {value!r})")
        return fraction_of_float_repr(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InputError(name, f"must be a finite number (got {value})")
        _check_exponent(value, name)
        return _fraction_of_decimal(value)
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        if not text:
            raise InputError(name, "expected a number, got an empty string")
        if len(text) > MAX_INPUT_CHARS:
            raise InputError(name, f"numeric string too long ({len(text)} characters; at most {MAX_INPUT_CHARS})")
        if text.lower().lstrip("+-") in ("nan", "inf", "infinity", "snan"):
            raise InputError(name, f"must be a finite number (got {value.strip()!r})")
        if _FRACTION_RE.match(text):
            num, den = text.split("/")
            if int(den) == 0:
                raise InputError(name, f"division by zero in {value!r}")
            return Fraction(int(num), int(den))
        if not _DECIMAL_RE.match(text):
            raise InputError(name, f"not a finite decimal number: {value!r}")
        try:
            number = Decimal(text)
        except (InvalidOperation, ValueError) as exc:  # pragma: no cover - regex guards this
            raise InputError(name, f"not a finite decimal number: {value!r}") from exc
        _check_exponent(number, name)
        return _fraction_of_decimal(number)
    raise InputError(name, f"expected a number or numeric string, got {type(value).__name__}")


def fraction_of_float_repr(x: float) -> Fraction:
    """The exact rational written by ``repr(x)`` of a finite float (``0.1`` is one tenth):
    ``Fraction(Decimal(repr(x)))``, read from the digits of the repr directly."""
    mantissa, _, exponent = repr(x).partition("e")
    whole, _, decimals = mantissa.partition(".")
    n = int(whole + decimals)
    e = (int(exponent) if exponent else 0) - len(decimals)
    return Fraction(n * 10**e) if e >= 0 else Fraction(n, 10**-e)


def _check_exponent(number: Decimal, name: str) -> None:
    if number and abs(number.adjusted()) > MAX_DECIMAL_EXPONENT:
        raise InputError(name, f"exponent out of the supported range (|exponent| <= {MAX_DECIMAL_EXPONENT}, "
                               f"got 1e{number.adjusted()})")


def parse_real(value: object, name: str, *, low: Fraction | int | None = None, high: Fraction | int | None = None,
               low_open: bool = False, high_open: bool = False) -> Fraction:
    """Parse an exact number in the interval from ``low`` to ``high`` (closed ends unless ``*_open``)."""
    q = parse_exact(value, name)
    bad_low = low is not None and (q <= low if low_open else q < low)
    bad_high = high is not None and (q >= high if high_open else q > high)
    if bad_low or bad_high:
        left = "(-inf" if low is None else ("(" if low_open else "[") + exact_str(low)
        right = "inf)" if high is None else exact_str(high) + (")" if high_open else "]")
        raise InputError(name, f"must lie in {left}, {right} (got {exact_str(q)})")
    return q


def parse_int(value: object, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """Parse an integer (a count or budget) in ``[low, high]``; ``"3.0"`` is 3, ``"2.5"`` is refused."""
    q = parse_exact(value, name)
    if q.denominator != 1:
        raise InputError(name, f"must be an integer (got {exact_str(q)})")
    n = int(q)
    if (low is not None and n < low) or (high is not None and n > high):
        span = f"[{low if low is not None else '-inf'}, {high if high is not None else 'inf'}]"
        raise InputError(name, f"must be an integer in {span} (got {_int_str(n)})")
    return n


def _strip_factor(n, p):
    """``(m, k)`` with ``n = m p^k`` and ``p`` not dividing ``m``; O(log k) big divisions, not O(k)."""
    if n % p:
        return n, 0
    m, k = _strip_factor(n // p, p * p)
    k = 2 * k + 1
    if m % p == 0:
        return m // p, k + 1
    return m, k


def _int_str(n: int) -> str:
    """``str(n)`` without Python's 4300-digit limit (FLINT prints any integer, fast)."""
    return str(n) if n.bit_length() < 10000 else str(fmpz(n))


def _fraction_of_decimal(number: Decimal) -> Fraction:
    """Exact ``Fraction(number)``, with the power of ten built by FLINT (fast even for 1e-999999)."""
    sign, digits, exponent = number.as_tuple()
    mantissa = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    if exponent >= 0:
        return Fraction(mantissa * int(fmpz(10) ** exponent))
    return Fraction(mantissa, int(fmpz(10) ** -exponent))


def parse_positive(value: object, name: str) -> Fraction:
    """Parse an exact number that must be strictly positive."""
    q = parse_exact(value, name)
    if q.numerator <= 0:  # the denominator of a Fraction is positive
        raise InputError(name, f"must be > 0 (got {exact_str(q)})")
    return q


def parse_nonnegative(value: object, name: str) -> Fraction:
    """Parse an exact number that must be >= 0."""
    q = parse_exact(value, name)
    if q.numerator < 0:
        raise InputError(name, f"must be >= 0 (got {exact_str(q)})")
    return q


def parse_probability(value: object, name: str) -> Fraction:
    """Parse an exact number in the open interval (0, 1) (a delta)."""
    q = parse_exact(value, name)
    if not 0 < q.numerator < q.denominator:
        raise InputError(name, f"must lie strictly between 0 and 1 (got {exact_str(q)})")
    return q


def parse_positive_int(value: object, name: str) -> int:
    """Parse a strictly positive integer (a dimension, a component count)."""
    q = parse_exact(value, name)
    if q.denominator != 1 or q.numerator < 1:
        raise InputError(name, f"must be a positive integer (got {exact_str(q)})")
    return int(q)


def exact_str(q: Fraction | int) -> str:
    """Canonical exact string of a rational: a terminating decimal when one exists, else ``"p/q"``.

    ``parse_exact(exact_str(q)) == q`` holds whenever the string fits ``MAX_INPUT_CHARS``.
    """
    # cached on (numerator, denominator): hashing ints is cheap, hashing a Fraction is a modular
    # inverse (this function is on the hot path of every certificate)
    if type(q) is Fraction:
        return _exact_str(q.numerator, q.denominator)
    if type(q) is int:
        return _exact_str(q, 1)
    if type(q) is Decimal and q.is_finite():
        text = str(q)
        if len(text) <= 600:
            return _exact_str_of_decimal_text(text)
    q = Fraction(q)
    return _exact_str(q.numerator, q.denominator)


@lru_cache(maxsize=8192)
def _exact_str_of_decimal_text(text: str) -> str:
    """:func:`exact_str` of the finite Decimal whose ``str()`` is ``text`` (e.g. ``"-1.50E-7"``):
    read from the digits, no Fraction; cached on the text, which determines the Decimal."""
    mantissa, _, exponent = text.partition("E")
    whole, _, decimals = mantissa.partition(".")
    return decimal_text(int(whole + decimals), (int(exponent) if exponent else 0) - len(decimals))


@lru_cache(maxsize=8192)
def _exact_str(numerator: int, denominator: int) -> str:
    if denominator.bit_length() <= _SMALL_BITS and numerator.bit_length() <= _SMALL_BITS:
        return _exact_str_small(numerator, denominator)
    # FLINT integers (fmpz): quasi-linear division and printing, no 4300-digit limit, so a
    # number such as 1e-999999 prints in milliseconds.
    q = Fraction(numerator, denominator)
    sign = "-" if q < 0 else ""
    if q.denominator == 1 and abs(q.numerator) < 10**21:
        return str(q.numerator)
    num, den = fmpz(abs(q.numerator)), fmpz(q.denominator)
    den_int = q.denominator
    twos = (den_int & -den_int).bit_length() - 1
    rest, fives = _strip_factor(den >> twos, fmpz(5))
    if rest != 1:
        return f"{sign}{num}/{den}"
    scale = max(twos, fives)
    digits = num * fmpz(2) ** (scale - twos) * fmpz(5) ** (scale - fives)
    mantissa, tens = _strip_factor(digits, fmpz(10))
    text = str(mantissa)
    exponent = tens - scale  # value = mantissa * 10**exponent
    adjusted = len(text) - 1 + exponent
    if -4 <= adjusted <= 20:
        return sign + format(Decimal(f"{text}e{exponent}"), "f")
    head = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return f"{sign}{head}e{adjusted}"


_SMALL_BITS = 2048


def _exact_str_small(numerator: int, denominator: int) -> str:
    """:func:`exact_str` for a reduced fraction of small integers (denominator > 0), with Python
    integers and string operations only: the same text as the FLINT path, a fraction of the time."""
    if denominator == 1:
        return decimal_text(numerator, 0)
    twos = (denominator & -denominator).bit_length() - 1
    fives = _log5_exact(denominator >> twos)
    if fives < 0:
        return f"{numerator}/{denominator}"
    scale = max(twos, fives)
    return decimal_text(numerator * 2 ** (scale - twos) * 5 ** (scale - fives), -scale)


def decimal_text(n: int, exponent: int) -> str:
    """``exact_str(n * 10**exponent)`` for integers ``n`` (fewer than ~4000 digits) and ``exponent``,
    by string operations: the canonical text of a terminating decimal without building a Fraction."""
    if n == 0:
        return "0"
    sign = "-" if n < 0 else ""
    digits = str(-n if n < 0 else n)
    text = digits.rstrip("0")
    exponent += len(digits) - len(text)  # value = int(text) * 10**exponent
    adjusted = len(text) - 1 + exponent
    if exponent >= 0 and adjusted < 21:  # an integer below 10^21 prints as one
        return sign + text + "0" * exponent
    if -4 <= adjusted <= 20:
        return sign + _plain_decimal(text, exponent)
    head = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return f"{sign}{head}e{adjusted}"


def _plain_decimal(text: str, exponent: int) -> str:
    """``format(Decimal(f"{text}e{exponent}"), "f")`` for a digit string without trailing zeros."""
    if exponent >= 0:
        return text + "0" * exponent
    point = len(text) + exponent
    if point > 0:
        return text[:point] + "." + text[point:]
    return "0." + "0" * (-point) + text


def _log5_exact(n: int) -> int:
    """``k`` if ``n == 5^k`` (``n >= 1``), else -1: the odd part of a reduced denominator is a power
    of 5 exactly when the fraction is a terminating decimal."""
    if n == 1:
        return 0
    k = int((n.bit_length() - 1) * 0.43067655807339306)  # log_5(2): 5^k <= n < 5^(k+2) for this k
    for j in (k, k + 1, k + 2):
        if 5**j == n:
            return j
    return -1
