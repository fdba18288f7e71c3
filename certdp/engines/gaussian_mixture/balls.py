"""Small Arb ball helpers of the mixture engine (they need no precision beyond ``ctx.prec``).

``ncdf`` / ``nsf`` compute ``Phi`` and ``1 - Phi`` as ``erfc(-+z / sqrt 2) / 2``. They are not
folded onto :func:`certdp.numbers.normal_cdf` / :func:`~certdp.numbers.normal_sf`, which multiply by
``1 / sqrt 2`` instead of dividing by ``sqrt 2``: the same function, other ball radii, so the engine's
certified enclosures (and the digits of its certificates) would move in the last places.
"""

from __future__ import annotations

import math

from flint import arb

__all__ = ["ZERO", "sqr", "ncdf", "nsf", "phi_diff", "float_down", "float_up", "interval_ball", "hull"]


ZERO = arb(0)


def sqr(z: arb) -> arb:
    """Enclosure of ``{x^2 : x in z}`` that stays tight when ``z`` reaches 0.

    Arb's ``z * z`` for ``z = m +- r`` is ``m^2 +- (2|m| r + r^2)``: valid, and within ``2 r^2`` of
    tight while it is positive (the common, fast case). Near 0 it goes negative (an exponent
    ``-x^2 / 2 s^2`` would then exceed 0), so the endpoint form ``[lo^2, hi^2]`` is used there."""
    sq = z * z
    if sq > 0:
        return sq
    hi = z.abs_upper()
    if z.contains(0):
        return ZERO.union(hi * hi)
    lo = z.abs_lower()
    return (lo * lo).union(hi * hi)


def ncdf(z: arb) -> arb:
    """Phi(z) = erfc(-z/sqrt 2)/2: no cancellation for z -> -inf, any exponent."""
    return (-z / arb(2).sqrt()).erfc() / 2


def nsf(z: arb) -> arb:
    """1 - Phi(z) = erfc(z/sqrt 2)/2."""
    return (z / arb(2).sqrt()).erfc() / 2


def phi_diff(a: arb, b: arb) -> arb:
    """Phi(b) - Phi(a), computed on the side of the tails that avoids cancellation."""
    if a > 0:
        return nsf(a) - nsf(b)
    return ncdf(b) - ncdf(a)


def float_down(x: arb) -> float:
    """A float ``<= x`` (``x`` an exact arb point)."""
    f = float(x)
    return f if arb(f) <= x else math.nextafter(f, -math.inf)


def float_up(x: arb) -> float:
    """A float ``>= x`` (``x`` an exact arb point)."""
    f = float(x)
    return f if arb(f) >= x else math.nextafter(f, math.inf)


def interval_ball(lo: float | arb, hi: float | arb) -> arb:
    """Arb ball containing the real interval [lo, hi] (float endpoints are exact dyadics; for ball
    endpoints, every [a, b] with a in lo, b in hi)."""
    a, b = arb(lo), arb(hi)
    return (a + b) / 2 + (b - a) / 2 * arb(0, 1)


def hull(lo: arb, hi: arb) -> arb:
    """Arb ball holding ``[lo.lower(), hi.upper()]`` (``hi.upper()`` alone if that is empty): a ball
    enclosure of a quantity known to lie between the lower end of ``lo`` and the upper end of ``hi``."""
    a = lo.lower() if lo.lower() < hi.upper() else hi.upper()
    b = hi.upper()
    return (a + b) / 2 + (b - a) / 2 * arb(0, 1)
