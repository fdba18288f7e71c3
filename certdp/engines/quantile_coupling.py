"""Quantile-coupling engine: a lower bound on delta of GGM with a sensitivity VECTOR, for all p of an interval.

Structure (our construction; used by the certified vector shape search).  For X_i = b Y_i,
Y_i i.i.d. GGD(0, 1, p), the privacy loss of the worst shift (seed 004 Lemma 3.5) is

    L = sum_i l_i(Y_i),   l_i(y) = |y + c_i|^p - |y|^p,   c_i = Delta_i / b >= 0,

non-decreasing in y for p >= 1, and delta_{p,b}(eps; Delta) = E[h(L)] with
h(t) = (1 - e^(eps - t))_+ non-decreasing (seed 004 App. A.2).

Lemma (quantile coupling lower bound).  Let U_1..U_d be i.i.d. uniform on (0, 1) and
Y_i = F_p^{-1}(U_i) (F_p the GGD(0, 1, p) cdf): this is a coupling of the law of Y for
EVERY p at once.  Cut (0, 1) at exact rationals 0 < u_1 < ... < u_K < 1 (per coordinate;
bin j = (u_j, u_{j+1}] has probability u_{j+1} - u_j exactly, for every p; u_0 = 0,
u_{K+1} = 1).  Let y_j be numbers with y_j <= F_p^{-1}(u_j) for all p in I = [a, c]
(certified below) and lam_ij <= inf_{p in I} l_i(y_j; p) (Arb on the p-ball).  On bin
j >= 1, Y_i >= y_j, so l_i(Y_i) >= l_i(y_j) >= lam_ij; on bin 0 put lam = -inf.  Rounding
lam_ij down to the grid hZ gives a discrete L_lo <= L pointwise, for every p in I, and
since h is non-decreasing,

    delta_{p,b} >= E[h(L_lo)] = sum_k C_k h(k h) / N^d     for every p in I,

where C is the exact integer convolution of the per-coordinate count vectors (masses are
integers over N = 2^U_BITS, U_BITS = 160).  The sum is evaluated in Arb (exact integers, Arb exponentials).
Bin 0 (lam = -inf) contributes 0, so the result is a certified LOWER bound of delta,
uniform over p in I -- the quantity the branch and bound needs (masses do not depend on
p, so the p-ball dependency that defeats the cut-point engine, docs/ggm.md, is gone; the
only p-dependence left is in y_j and lam_ij, both first order in |I|).

Certified quantile bound.  F_p(y) = Q(1/p, |y|^p)/2 for y < 0 and 1 - Q(1/p, y^p)/2 for
y > 0 (Q the regularized upper incomplete gamma), and Q(s, t) is increasing in s and
decreasing in t, so sup_{p in I} F_p(y) is one Arb incomplete gamma at a corner of
[1/c, 1/a] x [min_p |y|^p, max_p |y|^p].  If that sup is <= u, then y <= F_p^{-1}(u) for
every p in I (F_p continuous, strictly increasing).  The candidate y is a float guess
(SciPy quantile at the ends of I, moved down); only the Arb test decides.

Tightness.  E[h(L)] - E[h(L_lo)] is about sum_i sum_j (u_{j+1} - u_j)(l_i(y_{j+1}) - l_i(y_j))
weighted by h' <= 1, plus d h and the p-interval terms; the cut points are chosen (float
heuristic, :func:`u_partition`) so that mass x loss step is about constant.  This engine
gives only LOWER bounds (upper bounds come from the cut-point engine,
:mod:`certdp.engines.product_loss`).  It uses no float arithmetic in any decision: the
convolution is exact integer arithmetic (python-flint fmpz_poly).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb, arb_poly, fmpz_poly

from certdp.numbers import UndecidedError, arb_of, working_precision
from certdp.numbers.balls import abs_pow, float_lower

__all__ = ["U_BITS", "QuantileBounds", "u_partition", "coupled_delta_lower", "coupled_delta_upper", "DEFAULT_LOSS_STEP",
           "DEFAULT_CELLS"]

U_BITS = 160  # u = k / 2^160: tail masses down to ~1e-48 are exact bins (delta to ~1e-30)
UNIT = 1 << U_BITS
DEFAULT_LOSS_STEP = 2.0**-12  # the grid h of the rounded losses
DEFAULT_CELLS = 1500  # target number of u-bins per coordinate


def _float_quantile(p: float, u: np.ndarray) -> np.ndarray:
    """Standardized GGD(0, 1, p) quantile in float64 (a guess only)."""
    u = np.asarray(u, dtype=float)
    return _float_quantile_tail(p, u > 0.5, np.where(u > 0.5, 2.0 * (1.0 - u), 2.0 * u))


def _float_quantile_tail(p: float, up: np.ndarray, q2: np.ndarray) -> np.ndarray:
    """The quantile from the doubled tail mass ``q2`` = 2 min(u, 1 - u) (``up``: u > 1/2), so that
    u = 1 - 1e-30 is representable (a guess only)."""
    from scipy.special import gammainccinv

    s = 1.0 / p
    r = gammainccinv(s, np.clip(q2, 1e-300, 1.0)) ** s
    return np.where(up, r, -r)


def _tails_of(ks: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(u > 1/2, 2 min(u, 1 - u)) for u = k / N as floats, computed from the exact integers (Python's
    int / int is correctly rounded, so 1 - u keeps its relative accuracy however close u is to 1)."""
    up = np.array([2 * k > UNIT for k in ks], dtype=bool)
    q2 = np.array([(2 * (UNIT - k) if 2 * k > UNIT else 2 * k) / UNIT for k in ks], dtype=float)
    return up, q2


def _float_cdf(p: float, y: np.ndarray) -> np.ndarray:
    from scipy.special import gammaincc

    q = gammaincc(1.0 / p, np.abs(y) ** p) / 2.0
    return np.where(y > 0, 1.0 - q, q)


def _k_of(p: float, y: np.ndarray) -> list[int]:
    """Integer cut points k ~ F_p(y) N from the float cdf, the upper side through the survival
    function (N - S(y) N), so that tail cut points keep their accuracy."""
    from scipy.special import gammaincc

    q = gammaincc(1.0 / p, np.abs(y) ** p) / 2.0  # the tail mass beyond |y| on one side
    return [UNIT - int(round(float(x) * UNIT)) if yy > 0 else int(round(float(x) * UNIT)) for x, yy in zip(q, y)]


def u_partition(p: float, c: float | list[float], cells: int = DEFAULT_CELLS, tail: float = 1e-12,
                delta: float | None = None) -> list[int]:
    """Integer cut points k_1 < ... < k_K of (0, N), N = 2^U_BITS (u_j = k_j / N), for the losses
    l(y) = |y + c_i|^p - |y|^p of standardized coordinates at shape ``p`` (``c``: one c_i or a
    list; one partition serves every coordinate, so the certified quantiles are shared).

    Float heuristic (any cut points give a valid bound; these set its tightness): equalise
    mass x loss step, i.e. cut where the cumulative sqrt(density x summed loss slopes) is equally
    spaced, on [F^{-1}(tail), F^{-1}(1 - tail)].  ``delta`` (the target, when small): the tails
    matter, so the cut points also run geometrically in the tail mass q = min(u, 1 - u) from
    1e-4 down to min(tail, 1e-5 delta), 30 per decade above and 10 per decade below the median.
    """
    cs = [float(c)] if not isinstance(c, (list, tuple)) else [float(x) for x in c]
    lo = float(_float_quantile(p, np.array([tail]))[0])
    hi = float(_float_quantile(p, np.array([1.0 - tail]))[0])
    ys = np.linspace(lo - max(cs), hi, 20001)
    dens = np.exp(-np.abs(ys) ** p)
    slope = np.zeros_like(ys)
    with np.errstate(divide="ignore", invalid="ignore"):
        for ci in cs:
            slope += np.maximum(p * (np.sign(ys + ci) * np.abs(ys + ci) ** (p - 1)
                                     - np.sign(ys) * np.abs(ys) ** (p - 1)), 0.0)
    w = np.sqrt(np.maximum(dens * slope, 0.0)) + 1e-3 * np.sqrt(dens)
    cum = np.concatenate(([0.0], np.cumsum(0.5 * (w[1:] + w[:-1]) * np.diff(ys))))
    targets = np.linspace(0.0, cum[-1], cells)
    y_cut = np.interp(targets, cum, ys)
    k_tail = max(int(round(tail * UNIT)), 1)
    ks = {min(max(k, k_tail), UNIT - k_tail) for k in _k_of(p, y_cut)}
    if delta is not None and delta < 1e-4:
        deep = min(tail, 1e-5 * delta)
        decades = math.log10(1e-4 / deep)
        for per_decade, upper in ((30, True), (10, False)):
            n = max(int(math.ceil(decades * per_decade)), 1)
            for i in range(n + 1):
                k = max(int(round(1e-4 * 10 ** (-decades * i / n) * UNIT)), 1)
                ks.add(UNIT - k if upper else k)
    return sorted(k for k in ks if 0 < k < UNIT)


class QuantileBounds:
    """Certified lower quantiles y(k) <= F_p^{-1}(k / 2^U_BITS) for every p in [a, c], cached by k."""

    def __init__(self, a: Fraction, c: Fraction, prec: int = 64):
        if not (1 <= a <= c):
            raise ValueError("need 1 <= a <= c")
        self.a, self.c = Fraction(a), Fraction(c)
        self.prec = prec
        self._cache: dict[int, float] = {}
        self._cache_up: dict[int, float] = {}
        self._kernels: dict[Fraction, "LossKernel"] = {}
        self.evaluations = 0

    def kernel(self, log_slope: Fraction) -> "LossKernel":
        """The :class:`LossKernel` of this interval at ``log_slope`` (kept: trial scales share it)."""
        if log_slope not in self._kernels:
            self._kernels[log_slope] = LossKernel(self.a, self.c, log_slope)
        return self._kernels[log_slope]

    def _constants(self) -> tuple[arb, arb, arb, arb, arb]:
        """(a, c, 1/c, 1/a, 2^-U_BITS) as balls at the working precision (cached per precision)."""
        if getattr(self, "_const_prec", None) != self.prec:
            with working_precision(self.prec):
                a_b, c_b = arb_of(self.a), arb_of(self.c)
                self._const = (a_b, c_b, 1 / c_b, 1 / a_b, arb(2) ** -U_BITS)
            self._const_prec = self.prec
        return self._const

    def _sup_cdf_at_most(self, y: float, k: int) -> bool:
        """Proves sup_{p in [a, c]} F_p(y) <= k / N (False: not proven).

        Call inside ``working_precision(self.prec)`` (as :meth:`lower` does)."""
        if y == 0.0:
            return 2 * k >= UNIT
        self.evaluations += 1
        a_b, c_b, inv_c, inv_a, unit_inv = self._constants()
        log_abs = arb(abs(y)).log()
        ta, tc = (a_b * log_abs).exp(), (c_b * log_abs).exp()
        t_lo, t_hi = (ta, tc) if abs(y) >= 1 else (tc, ta)  # |y|^p monotone in p
        if y > 0:
            # F = 1 - Q/2 <= u  <=>  Q >= 2 (1 - u) = 2 (N - k) / N; inf Q at (s_min, t_max)
            q = arb(t_hi.upper()).gamma_upper(inv_c, regularized=1)
            return bool(q >= arb(2 * (UNIT - k)) * unit_inv)
        # F = Q/2 <= u; sup Q at (s_max, t_min)
        t0 = arb(t_lo.lower())
        if t0 < 0:
            t0 = arb(0)
        q = t0.gamma_upper(inv_a, regularized=1)
        return bool(q <= arb(2 * k) * unit_inv)

    def _inf_cdf_at_least(self, y: float, k: int) -> bool:
        """Proves inf_{p in [a, c]} F_p(y) >= k / N, i.e. y >= F_p^{-1}(k / N) for every p (False: not
        proven).  Call inside ``working_precision(self.prec)``."""
        if y == 0.0:
            return 2 * k <= UNIT
        self.evaluations += 1
        a_b, c_b, inv_c, inv_a, unit_inv = self._constants()
        log_abs = arb(abs(y)).log()
        ta, tc = (a_b * log_abs).exp(), (c_b * log_abs).exp()
        t_lo, t_hi = (ta, tc) if abs(y) >= 1 else (tc, ta)
        if y > 0:
            # F = 1 - Q/2 >= u  <=>  Q <= 2 (N - k) / N; sup Q at (s_max, t_min)
            t0 = arb(t_lo.lower())
            if t0 < 0:
                t0 = arb(0)
            q = t0.gamma_upper(inv_a, regularized=1)
            return bool(q <= arb(2 * (UNIT - k)) * unit_inv)
        # F = Q/2 >= u; inf Q at (s_min, t_max)
        q = arb(t_hi.upper()).gamma_upper(inv_c, regularized=1)
        return bool(q >= arb(2 * k) * unit_inv)

    def upper(self, ks: list[int]) -> dict[int, float]:
        """{k: y} with y >= F_p^{-1}(k/N) for all p in [a, c] proven (+inf where no proof was found)."""
        from scipy.special import gammainccinv

        todo = [k for k in ks if k not in self._cache_up]
        if todo:
            up, q2 = _tails_of(todo)
            a, c = float(self.a), float(self.c)
            # y > 0: Q(1/a, min(y^a, y^c)) <= 2(1-u) <=> y >= max(T^(1/a), T^(1/c)), T = Q^{-1}(1/a, .)
            # y < 0: Q(1/c, max(|y|^a, |y|^c)) >= 2u  <=> |y| <= min(T^(1/a), T^(1/c)), T = Q^{-1}(1/c, .)
            t_pos = gammainccinv(1.0 / a, np.clip(q2, 1e-300, 1.0))
            t_neg = gammainccinv(1.0 / c, np.clip(q2, 1e-300, 1.0))
            guess = np.where(up, np.maximum(t_pos ** (1.0 / a), t_pos ** (1.0 / c)),
                             -np.minimum(t_neg ** (1.0 / a), t_neg ** (1.0 / c)))
            with working_precision(self.prec):
                for k, g in zip(todo, guess):
                    self._cache_up[k] = _first_proven_offset(float(g), 1.0, lambda y: self._inf_cdf_at_least(y, k))
        return {k: self._cache_up[k] for k in ks}

    def _float_box_quantile(self, tails: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """Float guess of the largest y with the corner bound sup_box F(y) <= u, in closed form
        (``tails`` = :func:`_tails_of` of the cut points: 2(1 - u) or 2u without cancellation).

        y > 0: Q(1/c, max(y^a, y^c)) >= 2(1 - u)  <=>  y <= min(T^(1/a), T^(1/c)), T = Q^{-1}(1/c, 2(1-u));
        y < 0: Q(1/a, min(|y|^a, |y|^c)) <= 2u   <=>  |y| >= max(T^(1/a), T^(1/c)), T = Q^{-1}(1/a, 2u).
        """
        from scipy.special import gammainccinv

        a, c = float(self.a), float(self.c)
        up, q2 = tails
        t_pos = gammainccinv(1.0 / c, np.clip(q2, 1e-300, 1.0))
        t_neg = gammainccinv(1.0 / a, np.clip(q2, 1e-300, 1.0))
        y_pos = np.minimum(t_pos ** (1.0 / a), t_pos ** (1.0 / c))
        y_neg = -np.maximum(t_neg ** (1.0 / a), t_neg ** (1.0 / c))
        return np.where(up, y_pos, y_neg)

    def lower(self, ks: list[int]) -> dict[int, float]:
        """{k: y} with y <= F_p^{-1}(k/N) for all p in [a, c] proven (-inf where no proof was found)."""
        todo = [k for k in ks if k not in self._cache]
        if todo:
            tails = _tails_of(todo)
            guess = (self._float_box_quantile(tails) if self.a != self.c
                     else _float_quantile_tail(float(self.a), *tails))
            with working_precision(self.prec):
                for k, g in zip(todo, guess):
                    self._cache[k] = _first_proven_offset(float(g), -1.0, lambda y: self._sup_cdf_at_most(y, k))
        return {k: self._cache[k] for k in ks}


def _first_proven_offset(guess: float, direction: float, proven) -> float:
    """``guess + direction * m`` for the first margin ``m = 1e-12 (1 + |guess|) 64^j`` (j < 8) at which
    ``proven(y)`` holds (an Arb test), else ``direction * inf`` (no bound: the trivial one)."""
    margin = 1e-12 * (1.0 + abs(guess))
    for _ in range(8):
        y = guess + direction * margin
        if proven(y):
            return y
        margin *= 64.0
    return direction * math.inf


def _loss_lower(y: float, c_mid: arb, c_ball: arb, dc_ball: arb, p_mid: arb, p_ball: arb,
                half_width: arb) -> float:
    """A float <= inf_{p in ball} (|y + c(p)|^p - |y|^p) (-inf for y = -inf).

    ``c_mid`` = c(p_mid), ``c_ball`` encloses c(p) and ``dc_ball`` c'(p) over the p-ball.
    Mean-value form in p when |y| and |y + c| are bounded away from 0:
    l(p) in l(p_mid) + [-w, w] * sup |d l / d p| on the ball, with
    d l / d p = |z|^p log|z| + p |z|^(p-1) sgn(z) c'(p) - |y|^p log|y|, z = y + c(p)
    (much tighter than the naive ball: the terms nearly cancel); otherwise the naive ball
    evaluation over the box p-ball x c-ball (an enclosure of the same set).
    Reference implementation of :class:`LossKernel` (same balls, no caching).
    """
    if y == -math.inf:
        return -math.inf
    yb = arb(y)
    z = yb + c_ball
    if y != 0.0 and abs(z) > 0:
        lz, ly = abs(z).log(), abs(yb).log()
        val = (p_mid * abs(yb + c_mid).log()).exp() - (p_mid * ly).exp()
        zp = (p_ball * lz).exp()
        sgn = 1 if z > 0 else -1
        deriv = zp * lz + p_ball * (zp / abs(z)) * (sgn * dc_ball) - (p_ball * ly).exp() * ly
        lo = val - half_width * abs(deriv)
        return float_lower(lo)
    return float_lower(abs_pow(z, p_ball) - abs_pow(yb, p_ball))


class LossKernel:
    """The per-bin loss lower bounds of :func:`_loss_lower` for one p-interval and one log-slope,
    with the pieces that do not depend on the scale cached per cut point.

    For the interval [a, c] and b(p) = b exp(beta (p - p_mid)) the bound of bin y is
    ``l(p_mid) - w sup_ball |dl/dp|`` (mean-value form, module docstring); |y|^p_mid and
    |y|^p log|y| on the p-ball are the same for every trial scale, so a search over scales
    computes them once.  The balls enclose the same quantities as in :func:`_loss_lower`
    (|z|^(p-1) as exp((p-1) log|z|)), hence the same guarantee: every returned float is
    <= inf_{p in [a, c]} l(y; p, c(p)).
    """

    def __init__(self, a: Fraction, c: Fraction, log_slope: Fraction = Fraction(0)):
        with working_precision(64):
            self.p_mid = arb_of((Fraction(a) + Fraction(c)) / 2)
            self.p_ball = arb_of(a).union(arb_of(c))
            self.half = arb_of((Fraction(c) - Fraction(a)) / 2)
            self.beta = arb_of(Fraction(log_slope))
            # c(p) = c_mid exp(-beta (p - p_mid)), c'(p) = -beta c(p)
            self.factor_ball = (-self.beta * (self.p_ball - self.p_mid)).exp()
        self.point = a == c
        self._parts: dict[float, tuple[arb, arb, arb]] = {}

    def _y_parts(self, y: float) -> tuple[arb, arb, arb]:
        parts = self._parts.get(y)
        if parts is None:
            yb = arb(y)
            ly = abs(yb).log()
            parts = (yb, (self.p_mid * ly).exp(), (self.p_ball * ly).exp() * ly)
            self._parts[y] = parts
        return parts

    def losses_upper(self, ys: list[float], c_mid: arb) -> list[float]:
        """[float >= l(y; p)] at the POINT p = a = c (rounded up; +inf for y = +inf)."""
        if not self.point:
            raise ValueError("upper losses are implemented at a point p only")
        out = []
        up, pos_inf = math.nextafter, math.inf
        with working_precision(64):
            p = self.p_mid
            for y in ys:
                if y == pos_inf:
                    out.append(pos_inf)
                    continue
                yb = arb(y)
                val = abs_pow(yb + c_mid, p) - abs_pow(yb, p)
                out.append(up(float(val.upper()), pos_inf))
        return out

    def losses(self, ys: list[float], c_mid: arb) -> list[float]:
        """[float <= inf_p l(y; p)] for the cut points ``ys`` at c(p_mid) = ``c_mid`` (64-bit Arb)."""
        out = []
        append = out.append
        down, neg_inf = math.nextafter, -math.inf
        with working_precision(64):
            p_mid, p_ball, half = self.p_mid, self.p_ball, self.half
            c_ball = c_mid * self.factor_ball
            # p |z|^(p-1) sgn(z) c'(p) = (sgn(z) p c'(p) / |z|) |z|^p, c'(p) = -beta c(p)
            k_ball = -self.beta * c_ball * p_ball
            point = self.point
            for y in ys:
                if y == neg_inf:
                    append(neg_inf)
                    continue
                if y == 0.0:
                    append(float_lower(abs_pow(c_ball, p_ball)))
                    continue
                yb, y_mid_pow, y_ball_term = self._y_parts(y)
                z = yb + c_ball
                az = abs(z)
                if not az > 0:
                    append(float_lower(abs_pow(z, p_ball) - abs_pow(yb, p_ball)))
                    continue
                val = (p_mid * abs(yb + c_mid).log()).exp() - y_mid_pow
                if point:
                    append(down(float(val.lower()), neg_inf))
                    continue
                lz = az.log()
                ratio = k_ball / az
                deriv = (p_ball * lz).exp() * ((lz + ratio) if z > 0 else (lz - ratio)) - y_ball_term
                append(down(float((val - half * abs(deriv)).lower()), neg_inf))
        return out


#: most loss-grid points one coordinate's law may span (range / h): bounds the memory and time of the
#: exact convolution whatever loss step a caller (or a certificate handed to ``verify``) asks for
MAX_LOSS_POINTS = 1 << 22


def _grid_length(off: int, top: int, h: float) -> int:
    """top - off + 1, or :class:`UndecidedError` if it exceeds :data:`MAX_LOSS_POINTS`."""
    n = top - off + 1
    if n > MAX_LOSS_POINTS:
        raise UndecidedError(f"quantile coupling: the loss step 2^{round(math.log2(h))} puts {n} grid points "
                             f"under one coordinate's losses (at most {MAX_LOSS_POINTS}): use a coarser step")
    return n


def _counts_poly(losses: list[float], masses: list[int], h: float) -> tuple[int, fmpz_poly] | None:
    """(offset, poly) with poly coefficient k = total mass of rounded loss (offset + k) h."""
    pairs = [(math.floor(l / h), m) for l, m in zip(losses, masses) if l != -math.inf and m > 0]
    # floor(l / h) with h a power of two is exact in float64 (division by 2^k is exact, floor exact)
    if not pairs:
        return None
    off = min(i for i, _ in pairs)
    top = max(i for i, _ in pairs)
    _grid_length(off, top, h)
    coeffs = [0] * (top - off + 1)
    for i, m in pairs:
        coeffs[i - off] += m
    return off, fmpz_poly(coeffs)


def coupled_delta_lower(a: Fraction, c: Fraction, b: Fraction, eps: Fraction, sensitivities,
                        partitions: list[list[int]], quantiles: QuantileBounds, *,
                        log_slope: Fraction = Fraction(0),
                        h: float = DEFAULT_LOSS_STEP, prec: int = 128, mass_bits: int | None = None) -> arb:
    """Arb ball whose lower end is <= delta_{p, b(p)}(eps; Delta) for EVERY p in [a, c] (module lemma),
    at the p-dependent scale b(p) = b exp(log_slope (p - p_mid)), p_mid = (a + c) / 2.

    The lemma holds pointwise in p, so the scale may depend on p; a slope matching
    d log b-hat / d p removes the first-order variation of the true delta over the interval
    (``log_slope = 0``: one scale for all p).  ``partitions[i]``: integer u cut points of
    coordinate i (over N = 2^U_BITS); ``quantiles``: the certified lower quantiles for [a, c]
    (shared by every scale).  ``b``, ``log_slope`` exact (Fractions).  ``mass_bits``: round every bin
    mass down to a multiple of 2^-mass_bits first (shorter integers, faster products; the measure
    becomes a sub-probability and, h being >= 0, the result stays a lower bound, smaller by at most
    d K 2^-mass_bits for K bins per coordinate).  Equal coordinates are raised to a power at once.
    """
    if quantiles.a != a or quantiles.c != c:
        raise ValueError("quantile bounds are for another p-interval")
    h_frac = Fraction(h)
    if h_frac.numerator != 1 or h_frac.denominator & (h_frac.denominator - 1):
        raise ValueError("h must be a power of two")
    per_coordinate = []
    kernel = quantiles.kernel(Fraction(log_slope))
    with working_precision(64):
        seen: dict[tuple, tuple[list[float], list[int]]] = {}
        for d_i, ks in zip(sensitivities, partitions):
            key = (Fraction(d_i), id(ks))
            if key in seen:  # an equal coordinate with the same partition: the same law
                per_coordinate.append(seen[key])
                continue
            c_mid = arb_of(Fraction(d_i)) / arb_of(Fraction(b))
            ys = quantiles.lower(ks)
            # bin j (j = 1..K): (u_j, u_{j+1}], mass k_{j+1} - k_j (k_{K+1} = N); bin 0 dropped (-inf)
            bounds = list(ks) + [UNIT]
            masses = [bounds[j + 1] - bounds[j] for j in range(len(ks))]
            losses = kernel.losses([ys[k] for k in ks], c_mid)
            per_coordinate.append((losses, masses))
            seen[key] = (losses, masses)
    # Clamping keeps the integer vectors short; both moves LOWER a loss, so the bound stays valid:
    # a loss below eps - (sum of the other coordinates' largest losses) can never make the total
    # exceed eps (h = 0 either way): it becomes -inf; a loss above CAP + (sum of the others' most
    # negative finite losses), CAP = eps + 60, is lowered to that value (h changes by < e^-60
    # there, and only downwards).
    tops = [max((l for l in ls if l != -math.inf), default=-math.inf) for ls, _ in per_coordinate]
    bottoms = [min((l for l in ls if l != -math.inf), default=0.0) for ls, _ in per_coordinate]
    if any(t == -math.inf for t in tops):
        return arb(0)
    eps_f = float(eps)
    drop = U_BITS - mass_bits if mass_bits is not None and mass_bits < U_BITS else 0
    groups: dict[int, list] = {}  # coordinates with the same law (same list object) -> one power
    for i, (losses, masses) in enumerate(per_coordinate):
        others_top = sum(t for j, t in enumerate(tops) if j != i)
        others_bottom = sum(min(bt, 0.0) for j, bt in enumerate(bottoms) if j != i)
        floor_i = math.nextafter(eps_f - others_top, -math.inf) - 2 * h * len(tops)
        cap_i = eps_f + 60.0 - others_bottom
        key = (id(losses), floor_i, cap_i)
        if key in groups:
            groups[key][2] += 1
            continue
        clamped = [-math.inf if l < floor_i else min(l, cap_i) for l in losses]
        # masses rounded DOWN to multiples of 2^drop: a sub-probability measure, so (h >= 0) the
        # expectation can only decrease -- still a lower bound -- with shorter integers
        cp = _counts_poly(clamped, [m >> drop for m in masses] if drop else masses, h)
        if cp is None:
            return arb(0)
        groups[key] = [cp[0], cp[1], 1]
    off = 0
    poly = None
    for o, q, n in groups.values():
        off += n * o
        q_n = q if n == 1 else q ** n
        poly = q_n if poly is None else poly * q_n
    # terms with t = (off + k) h > eps contribute C_k (1 - e^(eps - t)); the rest h = 0
    k0 = max(math.floor(Fraction(eps) / h_frac) + 1 - off, 0)
    if k0 > poly.degree():
        return arb(0)
    tail = poly.right_shift(k0) if k0 > 0 else poly  # coefficients k0, k0+1, ... moved down
    with working_precision(prec):
        hh = arb_of(h_frac)
        total = arb(tail(1))
        weighted = arb_poly(tail)((-hh).exp())
        t0 = (off + k0) * hh
        num = total - (arb_of(Fraction(eps)) - t0).exp() * weighted
        val = num / arb(2) ** ((U_BITS - drop) * len(per_coordinate))
        return arb(val.lower()) if val.lower() > 0 else arb(0)


def coupled_delta_upper(p: Fraction, b: Fraction, eps: Fraction, sensitivities, partitions: list[list[int]],
                        quantiles: QuantileBounds, *, h: float = DEFAULT_LOSS_STEP, prec: int = 128,
                        mass_bits: int | None = None) -> arb:
    """Arb ball whose UPPER end is >= delta_{p, b}(eps; Delta) at the point p (the mirror of the module
    lemma).

    Lemma (quantile coupling, upper).  With the same coupling Y_i = F_p^{-1}(U_i) and cut points
    u_1 < ... < u_K, on bin j = (u_j, u_{j+1}] (u_0 = 0) Y_i <= F_p^{-1}(u_{j+1}) <= y^+_{j+1}
    (certified: inf_p F_p(y^+) >= u_{j+1}), so l_i(Y_i) <= l_i(y^+_{j+1}) (l_i non-decreasing); the
    top bin (u_K, 1] gets loss +inf (h = 1).  Rounding the losses UP to hZ gives L_up >= L pointwise,
    so delta = E[h(L)] <= E[h(L_up)].  Masses rounded UP to 2^-mass_bits give a super-measure: the
    expectation of h >= 0 only grows.  A loss too small to lift any total above eps is raised to
    min(eps - (others' largest losses) - 2 d h, its own largest) (h stays 0), a loss above eps + 60 - (others' most
    negative) is raised to +inf (h <= 1) (raising is always valid; these choices keep it tight).  Then

        E = [sum_{(off+k) h > eps} C_k (1 - e^(eps - (off+k) h)) + prod_i M_i - prod_i (M_i - T_i)] / 2^(B d)

    with C the exact convolution of the finite parts, M_i the total and T_i the +inf mass of
    coordinate i (integers); the last two terms are the configurations with some coordinate at +inf.
    Exact integers and Arb only: no float decides anything.
    """
    if quantiles.a != p or quantiles.c != p:
        raise ValueError("upper bound: the quantile bounds must be for the point p")
    h_frac = Fraction(h)
    if h_frac.numerator != 1 or h_frac.denominator & (h_frac.denominator - 1):
        raise ValueError("h must be a power of two")
    kernel = quantiles.kernel(Fraction(0))
    drop = U_BITS - mass_bits if mass_bits is not None and mass_bits < U_BITS else 0
    laws = []
    seen: dict[tuple, tuple] = {}
    with working_precision(64):
        for d_i, ks in zip(sensitivities, partitions):
            key = (Fraction(d_i), id(ks))
            if key in seen:
                laws.append(seen[key])
                continue
            c_mid = arb_of(Fraction(d_i)) / arb_of(Fraction(b))
            ys = quantiles.upper(ks)
            edges = [0] + list(ks)
            masses = [edges[j + 1] - edges[j] for j in range(len(ks))]
            top = UNIT - ks[-1]
            if drop:
                masses = [-((-m) >> drop) for m in masses]
                top = -((-top) >> drop)
            losses = kernel.losses_upper([ys[k] for k in ks], c_mid)
            law = (losses, masses, top)
            laws.append(law)
            seen[key] = law
    finite_tops = [max((l for l in ls if l != math.inf), default=0.0) for ls, _, _ in laws]
    finite_bottoms = [min((l for l in ls if l != math.inf), default=0.0) for ls, _, _ in laws]
    eps_f = float(eps)
    groups: dict[tuple, list] = {}
    for i, (losses, masses, top) in enumerate(laws):
        others_top = sum(t for j, t in enumerate(finite_tops) if j != i)
        others_bottom = sum(min(bt, 0.0) for j, bt in enumerate(finite_bottoms) if j != i)
        # raising is always valid (upper bound); at most to this coordinate's own largest finite loss, so
        # that with every coordinate at most its top the raised total stays <= eps - d h (h unchanged: 0)
        floor_i = min(math.nextafter(eps_f - others_top, -math.inf) - 2 * h * len(laws), finite_tops[i])
        cap_i = eps_f + 60.0 - others_bottom
        key = (id(losses), floor_i, cap_i)
        if key in groups:
            groups[key][3] += 1
            continue
        pairs, inf_mass = [], top
        for l, m in zip(losses, masses):
            if l == math.inf or l > cap_i:
                inf_mass += m
            else:
                pairs.append((math.ceil(max(l, floor_i) / h), m))  # l / h exact (h = 2^-k); ceil: up
        total = sum(masses) + top
        if pairs:
            off = min(i_ for i_, _ in pairs)
            coeffs = [0] * _grid_length(off, max(i_ for i_, _ in pairs), h)
            for i_, m in pairs:
                coeffs[i_ - off] += m
            poly = fmpz_poly(coeffs)
        else:
            off, poly = 0, fmpz_poly([0])
        groups[key] = [off, poly, (total, inf_mass), 1]
    off, poly, tot_all, fin_all = 0, None, 1, 1
    for o, q, (total, inf_mass), n in groups.values():
        off += n * o
        q_n = q if n == 1 else q ** n
        poly = q_n if poly is None else poly * q_n
        tot_all *= total ** n
        fin_all *= (total - inf_mass) ** n
    k0 = max(math.floor(Fraction(eps) / h_frac) + 1 - off, 0)
    with working_precision(prec):
        inf_part = arb(tot_all - fin_all)
        if poly is None or k0 > poly.degree():
            num = inf_part
        else:
            tail = poly.right_shift(k0) if k0 > 0 else poly
            hh = arb_of(h_frac)
            t0 = (off + k0) * hh
            num = arb(tail(1)) - (arb_of(Fraction(eps)) - t0).exp() * arb_poly(tail)((-hh).exp()) + inf_part
        val = num / arb(2) ** ((U_BITS - drop) * len(laws))
        return arb(val.upper())
