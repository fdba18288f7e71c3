"""Privacy-loss laws with a closed-form CDF, and their certified discretization on h*Z.

A :class:`LossLaw` is the law of the privacy loss L = log(p/q)(X), X ~ P, of one dominating pair
(P, Q) of a mechanism (one adjacency direction). It offers

* ``cdf(j, grid_bits)``: an Arb ball containing P(L <= z) at the lattice point z = j 2^-grid_bits (right-continuous, atoms
  included), at the current working precision;
* ``float_cdf(z)``, ``float_sf(z)``: float64 versions on numpy arrays, used ONLY to choose which
  lattice points to evaluate (tightness), never for a bound;
* ``bounds``: exact rationals (or None) outside which the law has no mass (lower < L <= upper).

:func:`discretize` turns a law into the pair (upper, lower) of :class:`~certdp.accounting.pld.LatticePLD`
by the pessimistic / optimistic rule: at evaluated lattice points z_{i_0} < ... < z_{i_n}, the mass
F(z_{i_k}) - F(z_{i_{k-1}}) of (z_{i_{k-1}}, z_{i_k}] goes to z_{i_k} (upper end of the certified
difference, rounded up to the integer scale) or to z_{i_{k-1}} (lower end, rounded down); F(z_{i_0})
goes to z_{i_0} (upper) or is dropped (lower); 1 - F(z_{i_n}) goes to +infinity (upper) or to
z_{i_n} (lower). Consecutive evaluated points are adjacent lattice points wherever a bin carries
non-negligible mass (float-chosen, so only tightness depends on floats).

:func:`discretize_coupled` / :func:`discretize_x_coupled` are the *nearest-rounding* variants (cut at
half-lattice points; the rounding error of each step is then centred, with a certified mean from a
partial mean ``E[L; a < L <= b]`` of the law): see their docstrings and
:mod:`certdp.accounting.coupling` for how the errors enter the bound (Hoeffding's inequality).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np
from flint import arb, ctx, fmpz_poly

from certdp.accounting.pld import LatticePLD
from certdp.numbers import arb_of, normal_cdf, normal_sf, working_precision

__all__ = ["LossLaw", "gaussian_loss", "laplace_loss", "subsampled_gaussian_losses", "discretize",
           "discretize_coupled", "discretize_x_coupled", "CoupledDiscretization", "MAX_STRIDE", "AtomLaw",
           "uniform_loss"]

MAX_STRIDE = 64


@dataclass(frozen=True)
class LossLaw:
    name: str
    cdf: Callable[[int, int], arb]   # (j, grid_bits) -> ball of P(L <= j 2^-grid_bits)
    float_cdf: Callable[[np.ndarray], np.ndarray]
    float_sf: Callable[[np.ndarray], np.ndarray]
    lower: Fraction | None = None   # no mass at L <= lower (exclusive)
    upper: Fraction | None = None   # all mass at L <= upper
    float_center: float = 0.0
    float_scale: float = 1.0
    atoms: tuple[Fraction, ...] = ()
    # (i_lo, i_hi, grid_bits) -> ball of E[L; i_lo 2^-g < L <= i_hi 2^-g] (a certified partial mean),
    # or None: the law is then discretized only by the deterministic rule (see discretize_coupled)
    partial_mean: Callable[[int, int, int], arb] | None = None


# ------------------------------------------------------------------------------ laws

def _lattice(j: int, grid_bits: int) -> arb:
    """The exact lattice point j * 2^-grid_bits as a ball of radius 0."""
    return arb(j) * _POW2.get(grid_bits) if grid_bits in _POW2 else arb(j) * _pow2(grid_bits)


_POW2: dict[int, arb] = {}


def _pow2(grid_bits: int) -> arb:
    _POW2[grid_bits] = arb(2) ** (-grid_bits)  # exact at any precision
    return _POW2[grid_bits]


class _Constants:
    """Arb constants of a law, recomputed when the working precision changes."""

    def __init__(self, make: Callable[[], dict]):
        self._make, self._prec, self._values = make, None, {}

    def get(self) -> dict:
        from flint import ctx

        if self._prec != ctx.prec:
            self._values, self._prec = self._make(), ctx.prec
        return self._values


def gaussian_loss(mu2: Fraction) -> LossLaw:
    """mu-GDP with mu^2 = ``mu2`` (exact): L ~ N(mu^2/2, mu^2) under P, both directions."""
    from scipy.special import ndtr

    consts = _Constants(lambda: {"mu": arb_of(mu2).sqrt(), "half": arb_of(mu2) / 2})
    mu_float = math.sqrt(float(mu2))

    def cdf(j: int, grid_bits: int) -> arb:
        c = consts.get()
        return normal_cdf((_lattice(j, grid_bits) - c["half"]) / c["mu"])

    def fcdf(z):
        return ndtr((z - mu_float**2 / 2) / mu_float)

    def fsf(z):
        return ndtr(-(z - mu_float**2 / 2) / mu_float)

    def partial_mean(i_lo: int, i_hi: int, grid_bits: int) -> arb:
        # L ~ N(m, s^2), m = mu^2/2, s = mu: E[L; a < L <= b] = m (Phi(beta) - Phi(alpha)) + s (phi(alpha) - phi(beta))
        c = consts.get()
        alpha = (_lattice(i_lo, grid_bits) - c["half"]) / c["mu"]
        beta = (_lattice(i_hi, grid_bits) - c["half"]) / c["mu"]
        inv = 1 / (2 * arb.pi()).sqrt()
        dens = inv * ((-alpha * alpha / 2).exp() - (-beta * beta / 2).exp())
        return c["half"] * (normal_cdf(beta) - normal_cdf(alpha)) + c["mu"] * dens

    return LossLaw("gaussian", cdf, fcdf, fsf, float_center=mu_float**2 / 2, float_scale=mu_float,
                   partial_mean=partial_mean)


def laplace_loss(scale: Fraction, sensitivity: Fraction) -> LossLaw:
    """Laplace(b), shift Delta, a = Delta/b: atoms 1/2 e^-a at -a and 1/2 at a; F(z) = e^((z - a)/2)/2 between."""
    a = Fraction(sensitivity) / Fraction(scale)
    af = float(a)
    consts = _Constants(lambda: {"a": arb_of(a)})

    def cdf(j: int, grid_bits: int) -> arb:
        z = Fraction(j, 2**grid_bits)  # exact comparisons with the atoms
        if z < -a:
            return arb(0)
        if z >= a:
            return arb(1)
        return ((_lattice(j, grid_bits) - consts.get()["a"]) / 2).exp() / 2

    def fcdf(z):
        return np.where(z < -af, 0.0, np.where(z >= af, 1.0, 0.5 * np.exp((np.minimum(z, af) - af) / 2)))

    def fsf(z):
        return 1.0 - fcdf(z)

    def partial_mean(i_lo: int, i_hi: int, grid_bits: int) -> arb:
        # atoms e^-a/2 at -a and 1/2 at a, density e^((z-a)/2)/4 on (-a, a) with antiderivative of
        # z e^((z-a)/2)/4 equal to (z - 2) e^((z-a)/2)/2
        lo, hi = Fraction(i_lo, 2**grid_bits), Fraction(i_hi, 2**grid_bits)
        aa = consts.get()["a"]
        total = arb(0)
        if lo < -a <= hi:
            total -= aa * (-aa).exp() / 2
        if lo < a <= hi:
            total += aa / 2
        left, right = max(lo, -a), min(hi, a)
        if left < right:
            def anti(z: Fraction) -> arb:
                zz = arb_of(z)
                return (zz - 2) * ((zz - aa) / 2).exp() / 2
            total += anti(right) - anti(left)
        return total

    return LossLaw("laplace", cdf, fcdf, fsf, lower=-a - Fraction(1, 2**40), upper=a, float_center=0.0,
                   float_scale=max(af, 1e-12), atoms=(-a, a), partial_mean=partial_mean)


def subsampled_gaussian_losses(sigma: Fraction, rate: Fraction) -> tuple[LossLaw, LossLaw]:
    """Poisson-subsampled Gaussian, noise multiplier sigma (sensitivity 1), rate q < 1: (remove, add).

    remove: P = (1-q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2); L(x) = log(1 - q + q e^((2x-1)/(2s^2)))
    is increasing in x, L > log(1-q), and L <= z iff x <= x(z) = s^2 log((e^z - 1 + q)/q) + 1/2, so
    P(L <= z) = (1-q) Phi(x(z)/s) + q Phi((x(z) - 1)/s).
    add: P = N(0, s^2), Q = the mixture; L = -(the remove loss function), decreasing in x,
    L < -log(1-q), and P(L <= z) = P(X >= x(-z)) = Phi(-x(-z)/s) for z < -log(1-q), else 1.
    """
    from scipy.special import ndtr

    s, q = Fraction(sigma), Fraction(rate)
    sf_, qf = float(s), float(q)
    consts = _Constants(lambda: {"q": arb_of(q), "1-q": arb_of(1 - q), "s": arb_of(s), "s2": arb_of(s * s),
                                 "half": arb(1) / 2})

    def x_of(j: int, grid_bits: int) -> arb | None:
        """x(z) at z = j 2^-grid_bits, or None when z <= log(1-q) (the loss never gets that low)."""
        c = consts.get()
        arg = _lattice(j, grid_bits).expm1() + c["q"]
        if not (arg > 0 or arg < 0):  # z is a dyadic point, log(1-q) is not: more precision decides
            saved = ctx.prec
            try:
                for extra in (2, 4, 8, 16, 32):
                    ctx.prec = saved * extra
                    arg = _lattice(j, grid_bits).expm1() + arb_of(q)
                    if arg > 0 or arg < 0:
                        break
                else:
                    raise ArithmeticError("cannot decide z > log(1-q)")
            finally:
                ctx.prec = saved
        if not arg > 0:
            return None
        return c["s2"] * (arg / c["q"]).log() + c["half"]

    def remove_cdf(j: int, grid_bits: int) -> arb:
        x = x_of(j, grid_bits)
        if x is None:
            return arb(0)
        c = consts.get()
        return c["1-q"] * normal_cdf(x / c["s"]) + c["q"] * normal_cdf((x - 1) / c["s"])

    def add_cdf(j: int, grid_bits: int) -> arb:
        x = x_of(-j, grid_bits)
        if x is None:
            return arb(1)
        return normal_sf(x / consts.get()["s"])

    def fx(z):
        with np.errstate(all="ignore"):
            arg = np.expm1(z) + qf
            return np.where(arg > 0, sf_**2 * np.log(np.where(arg > 0, arg, 1.0) / qf) + 0.5, -np.inf)

    def r_cdf(z):
        x = fx(z)
        return (1 - qf) * ndtr(x / sf_) + qf * ndtr((x - 1) / sf_)

    def r_sf(z):
        x = fx(z)
        return (1 - qf) * ndtr(-x / sf_) + qf * ndtr(-(x - 1) / sf_)

    def a_cdf(z):
        return ndtr(-fx(-z) / sf_)

    def a_sf(z):
        return ndtr(fx(-z) / sf_)

    def partial_mean_x(x_lo: arb | None, x_hi: arb | None, remove: bool) -> arb:
        """E[l(X) 1{x_lo < X <= x_hi}] * sign, X ~ P (remove: the mixture, l = the remove loss; add: N(0, s^2),
        sign -1), None = infinite end. Certified: Arb's rigorous quadrature (acb.integral) between exact
        rational ends, plus balls for the gaps to the exact ends and for the far tail x < -x_far, where
        |l| <= -log(1-q) because l lies in (log(1-q), 0) for x < 1/2."""
        from flint import acb

        from certdp.numbers.balls import fraction_of_exact_arb

        c = consts.get()
        log1mq = arb_of(1 - q).log()
        sqrt2pi = (2 * arb.pi()).sqrt()
        cq, c1q, cs, cs2 = acb(c["q"]), acb(c["1-q"]), acb(c["s"]), acb(c["s2"])
        norm = acb(1 / (c["s"] * sqrt2pi))

        def loss_arb(x: arb) -> arb:
            return (c["1-q"] + c["q"] * ((2 * x - 1) / (2 * c["s2"])).exp()).log()

        def cdf_x(x: arb) -> arb:
            if remove:
                return c["1-q"] * normal_cdf(x / c["s"]) + c["q"] * normal_cdf((x - 1) / c["s"])
            return normal_cdf(x / c["s"])

        def integrand(x, analytic):
            ell = (c1q + cq * ((2 * x - 1) / (2 * cs2)).exp()).log(analytic=analytic)
            if remove:
                dens = c1q * (-(x * x) / (2 * cs2)).exp() + cq * (-((x - 1) * (x - 1)) / (2 * cs2)).exp()
            else:
                dens = (-(x * x) / (2 * cs2)).exp()
            return norm * dens * ell

        def exact_end(x: arb) -> tuple[Fraction, arb]:
            """A rational end near the ball x and a bound of |E[l; X between them]|."""
            xr = fraction_of_exact_arb(x.mid())
            gap_mass = abs(cdf_x(arb_of(xr)) - cdf_x(x))
            sup = abs(loss_arb(arb_of(xr))).union(abs(loss_arb(x)))
            return xr, arb(0, arb((gap_mass * sup).upper()))

        err = arb(0)
        far = -(40 * s + 2)
        if x_hi is None:
            raise ValueError("the lattice window has a finite top")
        b, e = exact_end(x_hi)
        err += e
        if x_lo is None:
            a = min(far, b)
            err += arb(0, arb((-log1mq * cdf_x(arb_of(a))).upper()))
        else:
            a, e = exact_end(x_lo)
            err += e
        if a >= b:
            value = arb(0)
        else:
            value = acb.integral(integrand, acb(arb_of(a)), acb(arb_of(b))).real
        value = value + err
        return value if remove else -value

    def remove_partial_mean(i_lo: int, i_hi: int, grid_bits: int) -> arb:
        x_hi = x_of(i_hi, grid_bits)
        if x_hi is None:
            return arb(0)
        return partial_mean_x(x_of(i_lo, grid_bits), x_hi, True)

    def add_partial_mean(i_lo: int, i_hi: int, grid_bits: int) -> arb:
        # L = -l(X) in (A, B] iff X in [x(-B), x(-A)) (continuous law: ends immaterial)
        x_top = x_of(-i_lo, grid_bits)
        if x_top is None:
            return arb(0)
        return partial_mean_x(x_of(-i_hi, grid_bits), x_top, False)

    scale = max(qf * math.sqrt(math.expm1(min(1 / sf_**2, 700.0))), 1e-9)
    remove = LossLaw("subsampled-gaussian/remove", remove_cdf, r_cdf, r_sf, float_center=0.0, float_scale=scale,
                     partial_mean=remove_partial_mean)
    add = LossLaw("subsampled-gaussian/add", add_cdf, a_cdf, a_sf, float_center=0.0, float_scale=scale,
                  upper=_fraction_above(-math.log1p(-qf)), partial_mean=add_partial_mean)
    return remove, add


def _fraction_above(x: float) -> Fraction:
    return Fraction(x) + Fraction(1, 2**30) * max(1.0, abs(x))


@dataclass(frozen=True)
class AtomLaw:
    """A loss law with atoms at 0 and +infinity only (uniform noise on [-b, b], shift Delta <= 2b:
    P(L = +inf) = Delta/(2b), P(L = 0) = 1 - Delta/(2b); Delta >= 2b: all mass at +inf). Symmetric
    (the reflection x -> Delta - x swaps the pair), exact rationals: the lattice measures are the
    masses rounded up (upper) / down (lower), nothing else is discretized."""

    name: str
    at_zero: Fraction
    at_infinity: Fraction

    def lattice(self, grid_bits: int, scale_bits: int) -> tuple[LatticePLD, LatticePLD]:
        out = []
        for side in ("upper", "lower"):
            def units(q: Fraction) -> int:
                v = q * 2**scale_bits
                return -((-v.numerator) // v.denominator) if side == "upper" else v.numerator // v.denominator
            zero = units(self.at_zero)
            out.append(LatticePLD(side, grid_bits, scale_bits, 0, fmpz_poly([zero] if zero else []),
                                  units(self.at_infinity), 1))
        return out[0], out[1]


def uniform_loss(scale: Fraction, sensitivity: Fraction) -> AtomLaw:
    """Uniform noise on [-b, b] with shift Delta (seed 004 Sec. 3.2, p = infinity)."""
    top = min(Fraction(1), Fraction(sensitivity) / (2 * Fraction(scale)))
    return AtomLaw("uniform", 1 - top, top)


# ------------------------------------------------------------------------------ discretization

def _float_quantile(law: LossLaw, p: float, lower_tail: bool) -> float:
    """z with float F(z) ~ p (lower tail) or float S(z) ~ p (upper tail); a guess for the window."""
    f = law.float_cdf if lower_tail else law.float_sf
    c, w = law.float_center, law.float_scale
    lo, hi = c - w, c + w
    for _ in range(200):
        if lower_tail and f(np.array([lo]))[0] > p:
            lo = c - 2 * (c - lo)
        elif not lower_tail and f(np.array([hi]))[0] > p:
            hi = c + 2 * (hi - c)
        else:
            break
    a, b = (lo, c + w) if lower_tail else (c - w, hi)
    for _ in range(100):
        m = (a + b) / 2
        v = f(np.array([m]))[0]
        if lower_tail:
            a, b = (m, b) if v <= p else (a, m)
        else:
            a, b = (a, m) if v <= p else (m, b)
    return a if lower_tail else b


def _evaluation_points(law: LossLaw, grid_bits: int, tail_prob: float, coarse_mass: float) -> list[int]:
    """Lattice indices to evaluate (float-chosen: only tightness depends on this choice).

    Stride 1 wherever both tails carry more than ``coarse_mass``; in a tail of mass t < coarse_mass
    the stride may grow to s <= coarse_mass / t (capped at MAX_STRIDE), so the mass moved by more
    than one bin, times the distance moved, stays below ~coarse_mass * h per tail.
    """
    h = 2.0**-grid_bits
    z_lo = _float_quantile(law, tail_prob, True)
    z_hi = _float_quantile(law, tail_prob, False)
    if law.lower is not None:
        z_lo = max(z_lo, float(law.lower) - h)
    if law.upper is not None:
        z_hi = min(z_hi, float(law.upper) + h)
    i_lo, i_hi = math.floor(z_lo / h) - 1, math.ceil(z_hi / h) + 1
    from certdp.accounting.pld import check_budget

    check_budget(i_hi - i_lo + 1, f"the discretization of {law.name}")
    idx = np.arange(i_lo, i_hi + 1)
    z = idx * h
    with np.errstate(all="ignore"):
        cdf, sf = law.float_cdf(z), law.float_sf(z)
    n = len(idx)
    # stride[k] = largest power of two s <= MAX_STRIDE whose skipped interval (z_k, z_{k+s}] has mass
    # <= min(F(z_{k+s}), S(z_k)) with s * mass <= coarse_mass
    stride = np.ones(n, dtype=np.int64)
    s = 2
    while s <= MAX_STRIDE:
        ahead = cdf[np.minimum(np.arange(n) + s, n - 1)]
        ok = np.minimum(ahead, sf) * s <= coarse_mass
        stride = np.where(ok, s, stride)
        s *= 2
    points = []
    k = 0
    while k < n - 1:
        points.append(int(idx[k]))
        k = min(k + int(stride[k]), n - 1)
    points.append(int(idx[n - 1]))
    for atom in law.atoms:  # evaluate right at (and just below) an atom: its mass stays in one bin
        j = math.ceil(atom * 2**grid_bits)
        for jj in (j - 1, j):
            if i_lo <= jj <= i_hi:
                points.append(jj)
    return sorted(set(points))


def discretize(law: LossLaw, grid_bits: int, scale_bits: int, tail_prob: float, coarse_mass: float | None = None,
               bits: int | None = None) -> tuple[LatticePLD, LatticePLD]:
    """The certified (upper, lower) lattice discretizations of ``law`` (see the module docstring)."""
    points = _evaluation_points(law, grid_bits, tail_prob, tail_prob if coarse_mass is None else coarse_mass)
    prec = bits or scale_bits + 48
    base = points[0]
    n = points[-1] - base + 1
    up = [0] * n
    low = [0] * n
    with working_precision(prec):
        scale = arb(2) ** scale_bits
        one = arb(1)

        def ceil_upper(x: arb) -> int:
            return max(0, int(arb((x * scale).upper()).ceil().unique_fmpz()))

        def floor_lower(x: arb) -> int:
            return max(0, int(arb((x * scale).lower()).floor().unique_fmpz()))

        prev = None
        for k, j in enumerate(points):
            ball = law.cdf(j, grid_bits)
            if not ball.is_finite():
                raise ArithmeticError(f"{law.name}: loss CDF not finite at lattice point {j}")
            if prev is None:
                up[0] = ceil_upper(ball)
            else:
                diff = ball - prev
                up[j - base] += ceil_upper(diff)
                low[points[k - 1] - base] += floor_lower(diff)
            prev = ball
        top = one - prev
        inf_up = ceil_upper(top)
        low[n - 1] += floor_lower(top)
    upper = LatticePLD("upper", grid_bits, scale_bits, base, fmpz_poly(up), inf_up, 1)
    lower = LatticePLD("lower", grid_bits, scale_bits, base, fmpz_poly(low), 0, 1)
    return upper, lower


@dataclass(frozen=True)
class CoupledDiscretization:
    """The two sides of a *coupled* (nearest-rounding) discretization of one law, and its bias.

    ``upper`` dominates (increasing order) the law of R_up, ``lower`` is dominated by the law of R_low,
    where R_up, R_low are roundings of L with R_up - L >= -h/2 and R_low - L <= h/2 everywhere and
    R - L in [-h/2, h/2] on the core (nearest lattice point). For W_up = min(R_up - L, h/2) and
    W_low = max(R_low - L, -h/2), both in [-h/2, h/2]:  E[W_up] >= ``bias_lower`` and
    E[W_low] <= ``bias_upper`` (exact rationals, certified by a partial mean of L).
    """

    upper: LatticePLD
    lower: LatticePLD
    bias_lower: Fraction
    bias_upper: Fraction
    range_width: Fraction | None = None  # length r of W's interval; None: r = h


def discretize_coupled(law: LossLaw, grid_bits: int, scale_bits: int, tail_prob: float,
                       coarse_mass: float | None = None, bits: int | None = None) -> CoupledDiscretization:
    """Coupled discretization of ``law`` (which must have a ``partial_mean``).

    Cut points are the half-lattice points c_i = (i + 1/2) h at float-chosen indices i_0 < ... < i_n
    (stride 1 wherever a bin carries non-negligible mass). The mass F(c_b) - F(c_a) of a bin
    (c_a, c_b] goes to the lattice point b h = c_b - h/2 on the upper side (ceiling of the Arb upper
    end) and to (a + 1) h = c_a + h/2 on the lower side (floor of the lower end) -- the same point, the
    nearest one, for a unit bin. F(c_{i_0}) goes to i_0 h (upper) or is dropped (lower);
    1 - F(c_{i_n}) goes to +infinity (upper) or to (i_n + 1) h (lower). So R_up - L >= -h/2 and
    R_low - L <= h/2 for every L (the sign facts the Hoeffding step needs, see
    :mod:`certdp.accounting.accountant`), and on the longest run of unit bins (the core) the rounding
    error R - L lies in [-h/2, h/2] with mean E[R - L; core] = sum_core z_b m_b - E[L; core], the
    second term a certified partial mean. Outside the core |W| <= h/2, which bounds its contribution.
    """
    if law.partial_mean is None:
        raise ValueError(f"{law.name}: no certified partial mean, use discretize")
    points = _evaluation_points(law, grid_bits, tail_prob, tail_prob if coarse_mass is None else coarse_mass)
    prec = bits or scale_bits + 48
    base = points[0]
    n = points[-1] + 2 - base
    up = [0] * n
    low = [0] * n
    g1 = grid_bits + 1
    with working_precision(prec):
        scale = arb(2) ** scale_bits
        h = arb(2) ** (-grid_bits)

        def ceil_upper(x: arb) -> int:
            return max(0, int(arb((x * scale).upper()).ceil().unique_fmpz()))

        def floor_lower(x: arb) -> int:
            return max(0, int(arb((x * scale).lower()).floor().unique_fmpz()))

        balls = []
        for i in points:
            ball = law.cdf(2 * i + 1, g1)
            if not ball.is_finite():
                raise ArithmeticError(f"{law.name}: loss CDF not finite at half-lattice point {i} + 1/2")
            balls.append(ball)
        up[0] = ceil_upper(balls[0])
        for k in range(1, len(points)):
            diff = balls[k] - balls[k - 1]
            up[points[k] - base] += ceil_upper(diff)
            low[points[k - 1] + 1 - base] += floor_lower(diff)
        top = 1 - balls[-1]
        inf_up = ceil_upper(top)
        low[n - 1] += floor_lower(top)
        # the core: the longest run of unit bins
        best, run_start = (0, 0), 0
        for k in range(1, len(points)):
            if points[k] - points[k - 1] != 1:
                run_start = k
            elif k - run_start > best[1] - best[0]:
                best = (run_start, k)
        k0, k1 = best
        if k1 > k0:
            weighted = arb(0)
            for k in range(k0 + 1, k1 + 1):
                weighted += arb(points[k]) * (balls[k] - balls[k - 1])
            core_bias = weighted * h - law.partial_mean(2 * points[k0] + 1, 2 * points[k1] + 1, g1)
            outside = balls[k0] + (1 - balls[k1])
        else:
            core_bias, outside = arb(0), arb(1)
        slack = arb(((h / 2) * outside).upper())
        lo_ball, hi_ball = core_bias - slack, core_bias + slack
        from certdp.numbers.balls import ball_endpoints

        bias_lo, _ = ball_endpoints(lo_ball)
        _, bias_hi = ball_endpoints(hi_ball)
    upper = LatticePLD("upper", grid_bits, scale_bits, base, fmpz_poly(up), inf_up, 1)
    lower = LatticePLD("lower", grid_bits, scale_bits, base, fmpz_poly(low), 0, 1)
    return CoupledDiscretization(upper, lower, bias_lo, bias_hi)


# ------------------------------------------------------------------------------ GGM: an x-grid law

@dataclass(frozen=True)
class XFormLaw:
    """A loss L(x) non-decreasing in x (x ~ P) without a closed-form inverse (1-D GGM).

    ``arb_loss(x)``/``arb_sf(x)`` are Arb balls of L(x) and P(X > x) at exact rational x; the float
    inverse only chooses the x-points. ``loss_inf``/``loss_sup``: limits of L at -/+ infinity
    (None = infinite).
    """

    name: str
    arb_loss: Callable[[Fraction], arb]
    arb_sf: Callable[[Fraction], arb]
    float_inverse: Callable[[np.ndarray], np.ndarray]
    law: LossLaw  # float CDF / survival in loss units, for choosing lattice points
    loss_inf: Fraction | None = None
    loss_sup: Fraction | None = None
    # (a, b) exact rationals -> ball of E[L(X); a < X <= b], or None (deterministic rule only)
    partial_mean_x: Callable[[Fraction, Fraction], arb] | None = None


def ggm_loss(scale: Fraction, shape: Fraction, sensitivity: Fraction) -> XFormLaw:
    """1-D generalized Gaussian GGD(0, b, p), p > 1, shift Delta: L(x) = (|x + Delta|^p - |x|^p)/b^p under
    P = law of X (Q = law of X - Delta), increasing in x (seed 004 Lemma 3.1); symmetric (one direction)."""
    from scipy.stats import gennorm

    from certdp.engines.monotone_loss import ggm_survival

    b, p, d = Fraction(scale), Fraction(shape), Fraction(sensitivity)
    bf, pf, df = float(b), float(p), float(d)
    consts = _Constants(lambda: {"p": arb_of(p), "bp": arb_of(b) ** arb_of(p)})

    def power_abs(x: Fraction) -> arb:
        if x == 0:
            return arb(0)
        c = consts.get()
        return (c["p"] * arb_of(abs(x)).log()).exp()

    def arb_loss(x: Fraction) -> arb:
        return (power_abs(x + d) - power_abs(x)) / consts.get()["bp"]

    def arb_sf(x: Fraction) -> arb:
        return ggm_survival(x, p, b)

    def inverse(z: np.ndarray) -> np.ndarray:
        target = np.asarray(z, dtype=float) * bf**pf
        big = np.maximum(df, (np.abs(target) / (pf * df)) ** (1 / max(pf - 1, 1e-9))) * 4 + 4 * df + 1
        lo, hi = -big, big
        for _ in range(90):  # float64 bisection: 2^-90 of the bracket is below one ulp
            mid = (lo + hi) / 2
            g = np.abs(mid + df) ** pf - np.abs(mid) ** pf
            below = g < target
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        return (lo + hi) / 2

    def fcdf(z):
        return gennorm.cdf(inverse(z), pf, scale=bf)

    def fsf(z):
        return gennorm.sf(inverse(z), pf, scale=bf)

    # loss scale ~ L'(x) * b near x = 0: p Delta b^(p-1) / b^p for small Delta
    def partial_mean_x(a: Fraction, top: Fraction) -> arb:
        """E[L(X); a < X <= top] by Arb's rigorous quadrature on the pieces where |x| and |x + Delta| are
        analytic (split at -Delta and 0); an eta = 2^-40 strip at each split point, where the
        integrand is not analytic, is bounded by eta * sup|f| with |L| <= (|x + Delta|^p + |x|^p)/b^p
        and the density <= p/(2 b Gamma(1/p))."""
        from flint import acb

        if not a < top:
            return arb(0)
        eta = Fraction(1, 2**40)
        c = consts.get()
        pa, bp = acb(c["p"]), acb(c["bp"])
        norm_r = c["p"] / (2 * arb_of(b) * (1 / c["p"]).gamma())
        norm, dd = acb(norm_r), acb(arb_of(d))

        def integrand(s1: int, s2: int):
            def f(x, analytic):
                ax = (pa * (s1 * x).log(analytic=analytic)).exp()
                axd = (pa * (s2 * (x + dd)).log(analytic=analytic)).exp()
                return norm * (-(ax / bp)).exp() * (axd - ax) / bp
            return f

        cuts = sorted({a, top} | {t for t in (-d, Fraction(0)) if a < t < top})
        total, slack = arb(0), Fraction(0)
        for u, v in zip(cuts, cuts[1:]):
            lo, hi = u, v
            for end in (u, v):
                if end in (-d, 0):  # a non-analytic point: cut a strip off and bound it
                    width = min(eta, (v - u) / 4)
                    lo, hi = (lo + width, hi) if end == u else (lo, hi - width)
                    m = max(abs(end), abs(end + d)) + width
                    slack += width * 2 * float(m) ** float(p) * 2  # generous: |L| b^p <= 2 (m)^p, x2 margin
            mid = (lo + hi) / 2
            s1 = 1 if mid > 0 else -1
            s2 = 1 if mid + d > 0 else -1
            total += acb.integral(integrand(s1, s2), acb(arb_of(lo)), acb(arb_of(hi))).real
        bound = arb_of(Fraction(slack)) * norm_r / c["bp"]
        return total + arb(0, arb(bound.upper()))

    law = LossLaw(f"ggm(p={p})", lambda j, g: arb(0), fcdf, fsf, float_center=0.0,
                  float_scale=max(pf * df / bf, 1e-6))
    return XFormLaw(law.name, arb_loss, arb_sf, inverse, law, partial_mean_x=partial_mean_x)


def discretize_x(xlaw: XFormLaw, grid_bits: int, scale_bits: int, tail_prob: float, coarse_mass: float,
                 bits: int | None = None) -> tuple[LatticePLD, LatticePLD]:
    """(upper, lower) lattice discretizations of an x-form law.

    Cut points x^U_j ~ L^-1(z_j - theta) (upper) and x^L_j ~ L^-1(z_j + theta) (lower), theta = h/64,
    as exact rationals. Bin (x_{k-1}, x_k] has loss in (L(x_{k-1}), L(x_k)] (monotone): its mass
    S(x_{k-1}) - S(x_k) goes to ceil(L(x_k)/h) (upper end of the Arb ball) for the upper side, to
    floor(L(x_{k-1})/h) (lower end) for the lower side. (-inf, x_0]: upper at ceil(L(x_0)/h), lower
    dropped; (x_n, inf): upper to +infinity, lower at floor(L(x_n)/h).
    """
    points = _evaluation_points(xlaw.law, grid_bits, tail_prob, coarse_mass)
    h = 2.0**-grid_bits
    z = np.array(points, dtype=float) * h
    out = []
    prec = bits or scale_bits + 48
    for side, shift in (("upper", -h / 64), ("lower", h / 64)):
        xs = xlaw.float_inverse(z + shift)
        cuts = sorted({Fraction(float(x)) for x in xs})
        with working_precision(prec):
            scale = arb(2) ** scale_bits
            sfs = [xlaw.arb_sf(x) for x in cuts]
            losses = [xlaw.arb_loss(x) for x in cuts]
            idx = []
            for loss in losses:
                lo, hi = loss.lower(), loss.upper()
                if side == "upper":
                    idx.append(_ceil_int(arb(hi) * arb(2) ** grid_bits))
                else:
                    idx.append(_floor_int(arb(lo) * arb(2) ** grid_bits))
            base, top = min(idx), max(idx)
            coeffs = [0] * (top - base + 1)
            inf = 0

            def units(x: arb, up: bool) -> int:
                v = x * scale
                return max(0, _ceil_int(arb(v.upper())) if up else _floor_int(arb(v.lower())))

            if side == "upper":
                coeffs[idx[0] - base] += units(1 - sfs[0], True)
                for k in range(1, len(cuts)):
                    coeffs[idx[k] - base] += units(sfs[k - 1] - sfs[k], True)
                inf = units(sfs[-1], True)
            else:
                for k in range(1, len(cuts)):
                    coeffs[idx[k - 1] - base] += units(sfs[k - 1] - sfs[k], False)
                coeffs[idx[-1] - base] += units(sfs[-1], False)
        out.append(LatticePLD(side, grid_bits, scale_bits, base, fmpz_poly(coeffs), inf, 1))
    return out[0], out[1]


def _ceil_int(x: arb) -> int:
    return int(arb(x.upper()).ceil().unique_fmpz())


def _floor_int(x: arb) -> int:
    return int(arb(x.lower()).floor().unique_fmpz())


def discretize_x_coupled(xlaw: XFormLaw, grid_bits: int, scale_bits: int, tail_prob: float, coarse_mass: float,
                         bits: int | None = None) -> CoupledDiscretization:
    """Coupled discretization of an x-form law (1-D GGM), the x-grid analogue of :func:`discretize_coupled`.

    Cut points x_k ~ L^-1(c_{i_k}) (float inversion; exact rationals), c_i = (i + 1/2) h. With e a
    certified bound of |L(x_k) - c_{i_k}| over all k: the mass S(x_{k-1}) - S(x_k) of (x_{k-1}, x_k]
    (loss in (L(x_{k-1}), L(x_k)], L increasing) goes to i_k h on the upper side and to (i_{k-1} + 1) h
    on the lower side; (-inf, x_0] to i_0 h (upper) or dropped (lower); (x_n, inf) to +infinity
    (upper) or to (i_n + 1) h (lower). So R_up - L >= -h/2 - e and R_low - L <= h/2 + e; on unit
    bins the two points coincide and R - L lies in [-h/2 - e, h/2 + e]: the range is r = h + 2e, and
    the core's bias is sum z_k m_k - E[L; x_{k0} < X <= x_{k1}] (Arb quadrature, ``partial_mean_x``).
    """
    if xlaw.partial_mean_x is None:
        raise ValueError(f"{xlaw.name}: no certified partial mean, use discretize_x")
    from certdp.numbers.balls import ball_endpoints

    points = _evaluation_points(xlaw.law, grid_bits, tail_prob, coarse_mass)
    h = Fraction(1, 2**grid_bits)
    xs = xlaw.float_inverse((np.array(points, dtype=float) + 0.5) * float(h))
    pairs, last = [], None
    for i, x in zip(points, xs):
        xr = Fraction(float(x))
        if last is None or xr > last:
            pairs.append((i, xr))
            last = xr
    prec = bits or scale_bits + 48
    base = pairs[0][0]
    n = pairs[-1][0] + 2 - base
    up, low = [0] * n, [0] * n
    with working_precision(prec):
        scale = arb(2) ** scale_bits

        def units(x: arb, upward: bool) -> int:
            v = x * scale
            return max(0, _ceil_int(arb(v.upper())) if upward else _floor_int(arb(v.lower())))

        sfs = [xlaw.arb_sf(x) for _, x in pairs]
        err = Fraction(0)
        for (i, _), x_loss in zip(pairs, (xlaw.arb_loss(x) for _, x in pairs)):
            lo, hi = ball_endpoints(x_loss)
            c = (i + Fraction(1, 2)) * h
            err = max(err, hi - c, c - lo)
        up[0] = units(1 - sfs[0], True)
        for k in range(1, len(pairs)):
            mass = sfs[k - 1] - sfs[k]
            up[pairs[k][0] - base] += units(mass, True)
            low[pairs[k - 1][0] + 1 - base] += units(mass, False)
        inf_up = units(sfs[-1], True)
        low[n - 1] += units(sfs[-1], False)
        best, run_start = (0, 0), 0
        for k in range(1, len(pairs)):
            if pairs[k][0] - pairs[k - 1][0] != 1:
                run_start = k
            elif k - run_start > best[1] - best[0]:
                best = (run_start, k)
        k0, k1 = best
        hb = arb_of(h)
        if k1 > k0:
            weighted = arb(0)
            for k in range(k0 + 1, k1 + 1):
                weighted += arb(pairs[k][0]) * (sfs[k - 1] - sfs[k])
            core_bias = weighted * hb - xlaw.partial_mean_x(pairs[k0][1], pairs[k1][1])
            outside = (1 - sfs[k0]) + sfs[k1]
        else:
            core_bias, outside = arb(0), arb(1)
        r = h + 2 * err
        slack = arb((arb_of(r / 2) * outside).upper())
        bias_lo, _ = ball_endpoints(core_bias - slack)
        _, bias_hi = ball_endpoints(core_bias + slack)
    upper = LatticePLD("upper", grid_bits, scale_bits, base, fmpz_poly(up), inf_up, 1)
    lower = LatticePLD("lower", grid_bits, scale_bits, base, fmpz_poly(low), 0, 1)
    return CoupledDiscretization(upper, lower, bias_lo, bias_hi, r)
