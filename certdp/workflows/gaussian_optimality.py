"""Seed 003 Table 2: certified tangent-support conditions of the Gaussian privacy function.

Setting (Prop. 3.1 / Lemma 3.2).  ``g(u) = Phi(a(u)) - e^eps Phi(b(u))`` with
``a = -eps sqrt(u)/s + s/(2 sqrt u)``, ``b = -eps sqrt(u)/s - s/(2 sqrt u)`` is
the Gaussian profile at per-coordinate variance ``u`` (Eq. 6), ``g(0+) = 1``.
For ``delta`` let ``u0`` solve ``g(u0) = delta`` and ``l(u) = g(u0) + g'(u0)(u - u0)``.
The conditions are (C1) ``g`` convex on ``[u0, inf)`` and (C2) ``g >= l`` on
``[0, u0]``; Table 2 prints, per eps (s = 1), a value ``delta*`` at which they
are claimed to hold.

Exact reduction (replaces the subdivision + tail argument; derived here):

* ``phi(a) = e^eps phi(b)`` gives ``g'(u) = -s phi(a(u)) / (2 u^(3/2))`` and
  ``g''(u) = (s/2) phi(a) u^(-3/2) (a a' + 3/(2u))`` with
  ``a a' = eps^2/(2 s^2) - s^2/(8 u^2)``.  Hence ``g'' > 0`` iff
  ``4 eps^2 u^2 + 12 s^2 u - s^4 > 0`` iff ``u > u_c = s^2 (sqrt(9 + eps^2) - 3) / (2 eps^2)``:
  **g is concave on (0, u_c] and convex on [u_c, inf)**, with no tail to bound.
* (C1) is therefore exactly ``u0 >= u_c``.
* Given (C1), ``g - l`` is convex on ``[u_c, u0]`` with a double zero at ``u0``
  (so ``>= 0`` there) and concave on ``[0, u_c]``, where its minimum is at an
  endpoint: ``u_c`` (already ``>= 0``) or ``0``, where ``g(0+) - l(0) = 1 - L(u0)``
  with the tangent intercept ``L(u) = g(u) - u g'(u) = g(u) + s phi(a(u)) / (2 sqrt u)``.
  So (C2) is exactly ``L(u0) <= 1``.

Both are scalar inequalities decided with Arb balls (``u0`` enclosed by
bisection of the decreasing ``g``).  ``L`` is decreasing on ``[u_c, inf)``
(``L' = -u g''``), so the largest admissible delta is ``g(u_L)`` with
``L(u_L) = 1`` (when ``u_L >= u_c``), enclosed the same way.  When (C2) fails,
a certified witness ``u`` near 0 with ``g(u) < l(u)`` is returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb

from certdp.numbers import arb_of, decimal_bounds, normal_cdf, working_precision

__all__ = ["TABLE2", "TangentSupportResult", "check_tangent_support", "table2"]

#: seed 003 Table 2 (s = 1): eps -> printed delta*.
TABLE2 = (
    ("0.25", "0.736670"), ("0.5", "0.706970"), ("1", "0.649185"), ("2", "0.549133"),
    ("4", "0.416972"), ("8", "0.292170"), ("16", "0.197615"),
)


def _a(u: arb, eps: arb, s: arb) -> arb:
    r = u.sqrt()
    return -eps * r / s + s / (2 * r)


def g_gauss(u: arb, eps: arb, s: arb) -> arb:
    """Gaussian privacy function g(u) (seed 003 Eq. 6) on Arb balls."""
    r = u.sqrt()
    return normal_cdf(-eps * r / s + s / (2 * r)) - eps.exp() * normal_cdf(-eps * r / s - s / (2 * r))


def _phi(x: arb) -> arb:
    return (-x * x / 2).exp() / (2 * arb.pi()).sqrt()


def g_prime(u: arb, eps: arb, s: arb) -> arb:
    return -s * _phi(_a(u, eps, s)) / (2 * u * u.sqrt())


def tangent_intercept(u: arb, eps: arb, s: arb) -> arb:
    """``L(u) = g(u) - u g'(u)``, the value at 0 of the tangent line at ``u``."""
    return g_gauss(u, eps, s) + s * _phi(_a(u, eps, s)) / (2 * u.sqrt())


def convexity_threshold(eps: arb, s: arb) -> arb:
    """``u_c = s^2 (sqrt(9 + eps^2) - 3) / (2 eps^2)``: g concave on (0, u_c], convex on [u_c, inf)."""
    return s * s * ((9 + eps * eps).sqrt() - 3) / (2 * eps * eps)


def _bisect_decreasing(f, target: arb, lo: arb, hi: arb, iters: int) -> arb:
    """Ball containing the root of the decreasing ``f(u) = target`` in ``[lo, hi]`` (sign-certified)."""
    if not (f(lo) > target and f(hi) < target):
        raise ArithmeticError("root not bracketed")
    for _ in range(iters):
        mid = ((lo + hi) / 2).mid()
        v = f(mid)
        if v > target:
            lo = mid
        elif v < target:
            hi = mid
        else:
            break  # undecided: stop with the current certified bracket
    return lo.union(hi)


@dataclass
class TangentSupportResult:
    epsilon: str
    delta: str
    u0: tuple[str, str]
    u_c: tuple[str, str]
    intercept: tuple[str, str]
    convex_on_u0_inf: str          # "proven" / "refuted" / "undecided"
    tangent_below_on_0_u0: str
    delta_max: tuple[str, str]     # enclosure of the largest delta satisfying both conditions
    witness: dict[str, Any] | None = None

    @property
    def holds(self) -> bool:
        return self.convex_on_u0_inf == "proven" and self.tangent_below_on_0_u0 == "proven"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__, holds=self.holds)


def check_tangent_support(epsilon: object, delta: object, sensitivity: object = 1,
                          bits: int = 256) -> TangentSupportResult:
    """Certify (C1) and (C2) of Prop. 3.1 at ``delta`` (see the module docstring for the reduction)."""
    eps_q, delta_q, s_q = Fraction(str(epsilon)), Fraction(str(delta)), Fraction(str(sensitivity))
    with working_precision(bits):
        eps, dl, s = arb_of(eps_q), arb_of(delta_q), arb_of(s_q)
        f = lambda u: g_gauss(u, eps, s)  # noqa: E731
        lo, hi = arb(2) ** -40, arb(2) ** 40
        u0 = _bisect_decreasing(f, dl, lo, hi, bits - 16)
        uc = convexity_threshold(eps, s)
        c1 = "proven" if u0 >= uc else ("refuted" if u0 < uc else "undecided")
        L0 = tangent_intercept(u0, eps, s)
        c2 = "proven" if L0 <= 1 else ("refuted" if L0 > 1 else "undecided")
        witness = None
        if c2 == "refuted" and c1 == "proven":
            # g - l is concave on (0, u_c] and 1 - L(u0) < 0 at 0+: find u > 0 with g(u) < l(u), certified
            gp0 = g_prime(u0, eps, s)
            u = uc / 2
            for _ in range(200):
                gap = f(u) - (dl + gp0 * (u - u0))
                if gap < 0:
                    witness = {"u": decimal_bounds(u)[0], "g_minus_tangent": list(decimal_bounds(gap))}
                    break
                u = u / 4
        # largest admissible delta: L(u_L) = 1 on [u_c, inf) (L decreasing there)
        try:
            uL = _bisect_decreasing(lambda u: tangent_intercept(u, eps, s), arb(1), uc, hi, bits - 16)
            uL = uL if uL >= uc else uc
            dmax = f(uL.upper()).union(f(uL.lower()))
            dmax_s = decimal_bounds(dmax)
        except ArithmeticError:
            dmax_s = ("nan", "nan")
        return TangentSupportResult(
            epsilon=str(epsilon), delta=str(delta), u0=decimal_bounds(u0), u_c=decimal_bounds(uc),
            intercept=decimal_bounds(L0), convex_on_u0_inf=c1, tangent_below_on_0_u0=c2,
            delta_max=dmax_s, witness=witness,
        )


def table2(bits: int = 256) -> list[TangentSupportResult]:
    """Check every row of seed 003 Table 2 (s = 1)."""
    return [check_tangent_support(e, d, 1, bits) for e, d in TABLE2]
