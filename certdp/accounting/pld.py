"""Certified discrete privacy-loss distributions on a lattice h*Z (h = 2^-grid_bits).

A :class:`LatticePLD` is a finite non-negative measure on the lattice plus a mass at +infinity,
stored *exactly*: the mass at lattice index ``offset + j`` is ``poly[j] * 2^-scale_bits`` with
``poly`` an :class:`flint.fmpz_poly` of non-negative integers, and ``inf * 2^-scale_bits`` sits at
+infinity. It is one of two sides of a bound on a true privacy-loss law L (law of log p/q under P):

* ``side == "upper"``: E[g(L)] <= sum_j m_j g(z_j) + m_inf g(+inf) for every non-decreasing
  g >= 0 (it dominates L in the increasing-function order, masses may sum to more than 1);
* ``side == "lower"``: E[g(L)] >= sum_j m_j g(z_j) + m_inf g(+inf) for every such g.

Both survive convolution (E[g(X + Y)] = E_X[E_Y g(X + Y)], the inner function is non-decreasing in
X; all masses are non-negative), and the hockey-stick function f_eps(z) = (1 - e^(eps - z))_+ is
non-decreasing with f_eps(+inf) = 1, so delta(eps) = E[f_eps(L)] of a composition is bracketed by
the two sides' expectations.

Every operation keeps its side's inequality *exactly*: products are exact integer polynomial
products (FLINT), rescaled by 2^-scale_bits with ceilings (upper) or floors (lower); tails of mass
<= ``tail`` units are moved (upper: the low tail up to the lowest kept point, the high tail to
+infinity; lower: the low tail dropped, the high tail down to the highest kept point). The
expectation of f_eps is evaluated in Arb ball arithmetic. Nothing is decided by a float; floats are
only used to *guess* where to look (the epsilon search), and every guess is then certified.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import time
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Callable

from flint import arb, arb_poly, fmpz, fmpz_poly

from certdp.numbers import UndecidedError, arb_of, round_decimal, working_precision
from certdp.numbers.deadline import ResourceExhausted, check_deadline

__all__ = ["LatticePLD", "convolve", "power", "compose_all", "identity", "WorkLimitExceeded", "work_budget",
           "check_budget", "charge", "budget_active"]


class WorkLimitExceeded(ResourceExhausted):
    """The lattice computation would exceed its work budget (a verifier's limit): nothing is decided."""


_BUDGET: contextvars.ContextVar[list | None] = contextvars.ContextVar("lattice_budget", default=None)


@contextlib.contextmanager
def work_budget(seconds: float, max_coefficients: int, max_evaluations: int | None = None):
    """Within this block every lattice product and discretization checks a deadline ``seconds`` from now,
    a bound on the number of coefficients it would create, and (``charge``) a bound on the total number
    of certified CDF evaluations, raising :class:`WorkLimitExceeded` (cooperatively, between FLINT
    calls: one call may still run to its end)."""
    token = _BUDGET.set([time.monotonic() + seconds, max_coefficients,
                         max_evaluations if max_evaluations is not None else max_coefficients, 0])
    try:
        yield
    finally:
        _BUDGET.reset(token)


def budget_active() -> bool:
    return _BUDGET.get() is not None


def check_budget(coefficients: int, what: str) -> None:
    """Raise :class:`WorkLimitExceeded` if a budget is active and ``what`` (of ``coefficients``) breaks it."""
    check_deadline(what)
    budget = _BUDGET.get()
    if budget is None:
        return
    deadline, limit = budget[0], budget[1]
    if coefficients > limit:
        raise WorkLimitExceeded(f"{what} would have {coefficients} lattice coefficients (work limit {limit})")
    if time.monotonic() > deadline:
        raise WorkLimitExceeded(f"the work limit's deadline passed before {what}")


def charge(evaluations: int, what: str) -> None:
    """Count ``evaluations`` certified CDF evaluations against an active budget's total."""
    budget = _BUDGET.get()
    if budget is None:
        return
    budget[3] += evaluations
    if budget[3] > budget[2]:
        raise WorkLimitExceeded(f"{what}: {budget[3]} certified CDF evaluations in all (work limit {budget[2]})")
    check_budget(0, what)


@dataclass(frozen=True)
class LatticePLD:
    """See the module docstring. ``steps`` counts the composed mechanisms (bookkeeping only)."""

    side: str
    grid_bits: int
    scale_bits: int
    offset: int
    poly: fmpz_poly
    inf: int
    steps: int = 1

    # ---------------------------------------------------------------- basic facts
    @property
    def length(self) -> int:
        return self.poly.degree() + 1

    def finite_total(self) -> int:
        return int(self.poly(1)) if self.length > 0 else 0

    def total(self) -> int:
        return self.finite_total() + self.inf

    def lattice_point(self, j: int) -> Fraction:
        """The loss value of coefficient ``j`` (exact)."""
        return Fraction(self.offset + j, 2**self.grid_bits)

    def support(self) -> tuple[Fraction, Fraction] | None:
        if self.length == 0:
            return None
        return self.lattice_point(0), self.lattice_point(self.length - 1)

    # ---------------------------------------------------------------- truncation
    def truncated(self, tail: int) -> "LatticePLD":
        """Move low and high tails of at most ``tail`` units each (see the module docstring)."""
        n = self.length
        if n == 0:
            return self
        poly = self.poly

        def low_sum(m: int) -> int:  # mass of the m lowest coefficients (O(m))
            return int(poly.truncate(m)(1)) if m > 0 else 0

        def high_sum(m: int) -> int:  # mass of the m highest coefficients (O(m))
            return int(poly.right_shift(n - m)(1)) if m > 0 else 0

        a = _gallop(low_sum, tail, n - 1)        # largest a <= n-1 with low_sum(a) <= tail
        m = _gallop(high_sum, tail, n - 1 - a)   # largest m <= n-1-a with high_sum(m) <= tail
        b = n - 1 - m
        if a == 0 and b == n - 1:
            return self
        low_mass = int(poly.truncate(a)(1)) if a > 0 else 0
        high_mass = int(poly.right_shift(b + 1)(1)) if b < n - 1 else 0
        middle = poly.right_shift(a).truncate(b - a + 1)
        inf = self.inf
        if self.side == "upper":
            middle = middle + low_mass  # low tail rounded up to the lowest kept point
            inf += high_mass  # high tail to +infinity
        else:
            # low tail dropped (rounded down to -infinity); high tail down to the highest kept point
            middle = middle + fmpz_poly([0] * (b - a) + [high_mass]) if high_mass else middle
        return LatticePLD(self.side, self.grid_bits, self.scale_bits, self.offset + a, middle, inf, self.steps)

    # ---------------------------------------------------------------- delta(eps)
    def delta_ball(self, epsilon: Fraction, bits: int | None = None) -> arb:
        """A ball containing sum_j m_j f_eps(z_j) + m_inf (exact value of this discrete measure).

        Its upper end is a certified upper bound of delta(eps) for an ``upper`` side, its lower end
        a certified lower bound for a ``lower`` side. ``epsilon`` is exact (any rational).
        """
        prec = bits or max(128, self.scale_bits + 96)
        eps = Fraction(epsilon)
        h = Fraction(1, 2**self.grid_bits)
        # first index with z_j > eps
        first = math.floor(eps / h) + 1 - self.offset
        first = max(first, 0)
        with working_precision(prec):
            inf = arb(self.inf)
            if first >= self.length:
                total = inf
            else:
                tail = self.poly.right_shift(first) if first > 0 else self.poly
                mass = arb(int(tail(1)))
                zeta = arb(-1) * arb_of(h)
                r = zeta.exp()
                weighted = arb_poly(tail)(r)  # sum_i c_{first+i} e^{-i h}
                shift = arb_of(eps - self.lattice_point(first)).exp()
                total = inf + mass - shift * weighted
            return total * arb(2) ** (-self.scale_bits)

    def delta_bound(self, epsilon: Fraction) -> Fraction:
        """The certified one-sided bound of delta(eps) (upper end for upper, lower end for lower, >= 0)."""
        from certdp.numbers.balls import ball_endpoints

        lo, hi = ball_endpoints(self.delta_ball(epsilon))
        return hi if self.side == "upper" else max(lo, Fraction(0))

    def float_curve(self):
        """Float64 helpers (NOT certified; guesses only): (z, masses, inf) as numpy arrays."""
        import numpy as np

        scale = 2.0 ** -self.scale_bits
        coeffs = self.poly.coeffs()
        m = np.array([float(int(c)) for c in coeffs]) * scale if coeffs else np.zeros(0)
        z = (self.offset + np.arange(len(m))) * 2.0 ** -self.grid_bits
        return z, m, float(self.inf) * scale

    def float_delta(self, eps: float) -> float:
        """Float64 guess of this side's delta(eps) (NOT certified): inf + M(eps) - e^(eps - z0) W(eps) with
        suffix sums M = sum_{z > eps} m and W = sum_{z > eps} m e^(z0 - z) (one binary search)."""
        import numpy as np

        z, m, inf, suffix_m, suffix_w, z0 = self._curve_cache()
        i = int(np.searchsorted(z, eps, side="right"))
        if i >= len(z):
            return inf
        with np.errstate(over="ignore"):
            value = suffix_m[i] - math.exp(min(eps - z0, 700.0)) * suffix_w[i]
        return inf + max(float(value), 0.0)

    def _curve_cache(self):
        import numpy as np

        cache = getattr(self, "_cached_curve", None)
        if cache is None:
            z, m, inf = self.float_curve()
            z0 = float(z[-1]) if len(z) else 0.0
            suffix_m = np.cumsum(m[::-1])[::-1] if len(m) else m
            suffix_w = np.cumsum((m * np.exp(np.minimum(z0 - z, 700.0)))[::-1])[::-1] if len(m) else m
            cache = (z, m, inf, suffix_m, suffix_w, z0)
            object.__setattr__(self, "_cached_curve", cache)
        return cache

    def epsilon_bound(self, delta: Fraction, digits: int = 12) -> Fraction | None:
        """A certified one-sided bound of the smallest eps >= 0 with delta(eps) <= ``delta``.

        upper side: an exact decimal ``e`` with this measure's delta(e) <= delta (so the true
        delta(e) <= delta); lower side: ``e`` with this measure's delta(e) > delta (so the true
        epsilon exceeds e), or 0 when even delta(0) <= delta. None if the upper side never gets
        below ``delta`` (its mass at +infinity is too large).
        """
        delta = Fraction(delta)
        upper = self.side == "upper"
        if upper and Fraction(self.inf, 2**self.scale_bits) >= delta:
            return None
        if not upper and self.delta_bound(Fraction(0)) <= delta:
            return Fraction(0)
        guess = self._float_epsilon(float(delta))
        step = max(abs(guess), 1e-6) * 1e-9
        for _ in range(200):
            point = Fraction(round_decimal(Fraction(Decimal(repr(guess))), digits, "up" if upper else "down"))
            if upper and point < 0:
                point = Fraction(0)
            if not upper and point <= 0:
                return Fraction(0)
            bound = self.delta_bound(point)
            if (upper and bound <= delta) or (not upper and bound > delta):
                return point
            guess = guess + step if upper else guess - step
            step *= 4
        return None  # pragma: no cover - the curve is continuous and decreasing

    def _float_epsilon(self, delta: float) -> float:
        lo, hi = 0.0, 1.0
        while self.float_delta(hi) > delta and hi < 1e6:
            hi *= 2
        for _ in range(80):
            mid = (lo + hi) / 2
            if self.float_delta(mid) > delta:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2


def _gallop(mass: Callable[[int], int], tail: int, limit: int) -> int:
    """Largest m in [0, limit] with mass(m) <= tail, for a non-decreasing ``mass`` (exact integers).

    Galloping from 0, so the cost is proportional to the answer, not to the length."""
    if limit <= 0 or mass(1) > tail:
        return 0
    good, step = 1, 2
    while step <= limit and mass(step) <= tail:
        good, step = step, step * 2
    bad = min(step, limit + 1)
    if bad == limit + 1 and mass(limit) <= tail:
        return limit
    while bad - good > 1:
        mid = (good + bad) // 2
        if mass(mid) <= tail:
            good = mid
        else:
            bad = mid
    return good


def identity(side: str, grid_bits: int, scale_bits: int) -> LatticePLD:
    """The point mass at loss 0 (the empty composition)."""
    return LatticePLD(side, grid_bits, scale_bits, 0, fmpz_poly([2**scale_bits]), 0, 0)


def _rescale(value, scale_bits: int, side: str):
    divisor = fmpz(2) ** scale_bits
    if isinstance(value, int):
        return -((-value) >> scale_bits) if side == "upper" else value >> scale_bits
    return -((-value) // divisor) if side == "upper" else value // divisor


def convolve(a: LatticePLD, b: LatticePLD, tail: int) -> LatticePLD:
    """The law of the sum (independent composition), rescaled the safe way, tails of <= ``tail`` moved."""
    if (a.side, a.grid_bits, a.scale_bits) != (b.side, b.grid_bits, b.scale_bits):
        raise ValueError("convolving discretizations of different sides, grids or scales")
    check_budget(a.length + b.length, "a lattice product")
    fa, fb = a.finite_total(), b.finite_total()
    product = a.poly ** 2 if a is b else a.poly * b.poly  # FLINT squaring is ~1.4x faster
    poly = _rescale(product, a.scale_bits, a.side)
    inf = _rescale(a.inf * (fb + b.inf) + fa * b.inf, a.scale_bits, a.side)
    out = LatticePLD(a.side, a.grid_bits, a.scale_bits, a.offset + b.offset, poly, inf, a.steps + b.steps)
    return out.truncated(tail)


def power(base: LatticePLD, count: int, tail: int) -> LatticePLD:
    """``count``-fold composition by binary powering (each product exact, then rescaled and truncated)."""
    if count < 1:
        raise ValueError("count must be >= 1")
    result: LatticePLD | None = None
    square = base
    while True:
        if count & 1:
            result = square if result is None else convolve(result, square, tail)
        count >>= 1
        if not count:
            return result  # type: ignore[return-value]
        square = convolve(square, square, tail)


def compose_all(parts: list[LatticePLD], tail: int) -> LatticePLD:
    """Balanced-tree product of heterogeneous parts."""
    if not parts:
        raise ValueError("nothing to compose")
    while len(parts) > 1:
        parts = [convolve(parts[i], parts[i + 1], tail) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]
    return parts[0]
