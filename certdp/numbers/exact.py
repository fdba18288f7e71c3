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
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction
from numbers import Integral

__all__ = [
    "InputError",
    "UndecidedError",
    "parse_exact",
    "parse_positive",
    "parse_nonnegative",
    "parse_probability",
    "parse_positive_int",
    "exact_str",
]


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
    treat it as either outcome.
    """


_DECIMAL_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_FRACTION_RE = re.compile(r"^[+-]?\d+\s*/\s*\d+$")


def parse_exact(value: object, name: str) -> Fraction:
    """Return ``value`` as an exact :class:`Fraction`.

    Accepts ``str`` (a decimal such as ``"1e-5"`` or a fraction ``"1/3"``),
    ``int``, ``Fraction``, ``Decimal`` and ``float`` (through its shortest
    repr). Rejects ``bool``, NaN, infinities and anything else with an
    :class:`InputError` naming ``name``.
    """
    if isinstance(value, bool):
        raise InputError(name, f"expected a number, got the boolean {value!r}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Integral):
        return Fraction(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(name, f"must be a finite number (got {value!r})")
        return Fraction(Decimal(repr(value)))
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InputError(name, f"must be a finite number (got {value})")
        return Fraction(value)
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        if _FRACTION_RE.match(text):
            num, den = text.split("/")
            if int(den) == 0:
                raise InputError(name, f"division by zero in {value!r}")
            return Fraction(int(num), int(den))
        if not _DECIMAL_RE.match(text):
            raise InputError(name, f"not a finite decimal number: {value!r}")
        try:
            return Fraction(Decimal(text))
        except (InvalidOperation, ValueError) as exc:  # pragma: no cover - regex guards this
            raise InputError(name, f"not a finite decimal number: {value!r}") from exc
    raise InputError(name, f"expected a number or numeric string, got {type(value).__name__}")


def parse_positive(value: object, name: str) -> Fraction:
    """Parse an exact number that must be strictly positive."""
    q = parse_exact(value, name)
    if q <= 0:
        raise InputError(name, f"must be > 0 (got {exact_str(q)})")
    return q


def parse_nonnegative(value: object, name: str) -> Fraction:
    """Parse an exact number that must be >= 0."""
    q = parse_exact(value, name)
    if q < 0:
        raise InputError(name, f"must be >= 0 (got {exact_str(q)})")
    return q


def parse_probability(value: object, name: str) -> Fraction:
    """Parse an exact number in the open interval (0, 1) (a delta)."""
    q = parse_exact(value, name)
    if not 0 < q < 1:
        raise InputError(name, f"must lie strictly between 0 and 1 (got {exact_str(q)})")
    return q


def parse_positive_int(value: object, name: str) -> int:
    """Parse a strictly positive integer (a dimension, a component count)."""
    q = parse_exact(value, name)
    if q.denominator != 1 or q < 1:
        raise InputError(name, f"must be a positive integer (got {exact_str(q)})")
    return int(q)


def exact_str(q: Fraction | int) -> str:
    """Canonical exact string of a rational: a terminating decimal when one exists, else ``"p/q"``.

    ``parse_exact(exact_str(q)) == q`` always holds.
    """
    # cached on (numerator, denominator): hashing ints is cheap, hashing a Fraction is a modular
    # inverse (this function is on the hot path of every certificate)
    if type(q) is Fraction:
        return _exact_str(q.numerator, q.denominator)
    if type(q) is int:
        return _exact_str(q, 1)
    q = Fraction(q)
    return _exact_str(q.numerator, q.denominator)


@lru_cache(maxsize=8192)
def _exact_str(numerator: int, denominator: int) -> str:
    q = Fraction(numerator, denominator)
    den = q.denominator
    twos = (den & -den).bit_length() - 1
    den >>= twos
    fives = 0
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        return f"{q.numerator}/{q.denominator}"
    if q.denominator == 1 and abs(q.numerator) < 10**21:
        return str(q.numerator)
    scale = max(twos, fives)
    digits = q.numerator * 10**scale // q.denominator
    with localcontext() as context:  # exact: never round to the default 28 digits
        context.prec = len(str(abs(digits))) + 2
        number = Decimal(digits).scaleb(-scale).normalize()
    if -4 <= number.adjusted() <= 20:
        return format(number, "f")
    mantissa, _, exponent = f"{number:e}".partition("e")
    return f"{mantissa}e{int(exponent)}"
