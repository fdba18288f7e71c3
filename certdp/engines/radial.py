"""Radial / spherical privacy-profile engine: spherical generalized gamma noise.

Mathematical structure (seed 003, Lemma 4.1 with Lemma 4.2 and Prop. C.1)
--------------------------------------------------------------------------
Let ``X = R U`` in ``R^T`` with ``R ~ GGamma(alpha, beta, p)`` (density
``propto r^alpha exp(-beta r^p)``) and ``U`` uniform on the sphere, ``alpha`` in
``(-1, T-1]``.  For a shift of norm ``s`` and ``W = <mu, U>/s`` (CDF
``F_W(u) = I_{(u+1)/2}((T-1)/2, (T-1)/2)``, seed 003 Prop. A.1)::

    delta(eps) = A - e^eps B,
    A = E[1 - F_W(w*(R, -eps))],   B = E[F_W(w*(R, +eps))],

where ``w*(r, y) = sup{w in [-1, 1] : Phi(r, w) >= y}`` (``sup {} = -1``) and
``Phi(r, w) = (alpha+1-T)/2 ln(q/r^2) + beta (r^p - q^(p/2))`` with
``q = r^2 + 2 s w r + s^2``; ``Phi`` is strictly decreasing in ``w``.
By Lemma C.1 only ``s_eff = s beta^(1/p)`` matters, so the engine works with
``beta = 1``.  With ``Z = R^p ~ Gamma(k, 1)``, ``k = (alpha+1)/p`` (the paper's
reparametrization), the two expectations are one-dimensional integrals in
``z``.  Both ``delta`` directions coincide by the symmetry ``W = -W`` in law,
and the worst shift has norm exactly ``s`` (Lemma 4.2).

How the enclosure is made rigorous (what differs from the paper's Alg. 1-3)
---------------------------------------------------------------------------
* Tail cut (Alg. 1, line 4): ``z_max`` is chosen in floating point, then the
  discarded mass ``tau = Q(k, z_max)`` is *enclosed* by Arb's regularized upper
  incomplete gamma and added as ``[0, tau]`` to both ``A`` and ``B`` -- so the
  float choice never affects correctness, only the width.
* Adaptive binning of ``[0, z_max]`` (Alg. 1).  On each bin the contribution
  ``int f_Z(z) G(z) dz`` (``G = 1 - F_W(w*(., -eps))`` resp. ``F_W(w*(., eps))``)
  is enclosed in one of three ways:

  1. *Taylor model* (not in the paper; this is what makes ``eta = 1e-8`` cheap):
     where ``w*`` is certified to lie strictly inside ``(-1, 1)`` on the whole
     bin, ``w*`` is analytic (implicit function theorem, ``dPhi/dw < 0``).  The
     Taylor coefficients of ``w*`` at the (exact) bin centre come from Newton's
     method on Arb power series, with the constant term held at a certified
     tight enclosure of ``w*(z_m)`` (so every coefficient is an enclosure); on
     the whole bin they come from the order-by-order recurrence
     ``[Phi(r(t), w^(j-1)(t))]_j + Phi_w w_j = 0`` started from a certified
     bracket of ``w*`` on the bin.  ``F_W(w*)`` is the integral of the series of
     the density of ``W``; the integrand ``f_Z G`` is integrated exactly as a
     polynomial of degree ``n - 1`` about the centre, and the remainder is
     bounded by the order-``n`` coefficient enclosed over the whole bin
     (Taylor's theorem with Lagrange remainder: the coefficients of a series
     evaluated on a ball enclose ``h^(n)(xi)/n!`` for every ``xi`` in the ball).
  2. *Constant bins*: if ``Phi(r, 1) > y`` on the whole bin then ``w* = 1``;
     if ``Phi(r, -1) < y`` then ``w* = -1``; the contribution is then the bin's
     Gamma mass ``P(k, z_U) - P(k, z_L)`` times ``F_W(+-1) in {0, 1}``.
  3. *Monotone enclosure* (the paper's EncloseG, first order): ``w*`` is
     bracketed over the bin by two certified sign tests of ``Phi - y``
     (``Phi(r, w_l) > y`` for all ``r`` in the bin implies ``w* >= w_l``, etc.),
     and ``F_W`` is monotone.  Used next to the breakpoints where ``w*`` reaches
     ``+-1`` and on the bin touching ``z = 0``.

  ``Phi`` is evaluated in a cancellation-free form,
  ``Phi = c1 L - r^p expm1(p L / 2)`` with ``L = log1p(2 s w / r + s^2 / r^2)``,
  so that evaluating it on a whole bin of radii does not lose the difference
  ``r^p - q^(p/2)`` to the dependency problem.
* Bins are split (geometrically near 0, else at the midpoint) where the
  enclosure is widest until ``width(A) + e^eps width(B) <= eta``.
* Bin edges are exact Arb points with a 53-bit mantissa and *any* exponent (not doubles): at tiny
  delta the loss lives at ``z ~ z_s = beta s^p`` far below the doubles (R1SMG at delta = 1e-300:
  ``z_s ~ 1e-600``).  Inside ``2^+-1000`` the split points and breakpoint scan are the float
  heuristics as before; beyond, the same rules run in Arb / on ``ln z``, and the float guesses of
  ``Phi`` and ``w*`` are formed from ``s / r = exp(ln s - ln z / p)``.  The first bin ``[0, z_1]``
  (``z_1 >= 2^-64 z_s``) is decided exactly where ``w*`` is certified constant on it
  (:meth:`SGGRadialProblem._bin_at_zero`) -- only where ``z_1`` would have fallen below the old floor
  ``1e-300``; elsewhere the first edge and ``[0, mass]`` are as before (unchanged results).

Guarantee: :func:`sgg_delta_enclosure` returns ``lower <= delta*(eps) <= upper``
for every point of the input balls, with ``upper - lower <= eta`` unless it
raises :class:`RadialPrecisionError` (the caller escalates precision).
Everything that decides a privacy inequality is an Arb ball; floats only pick
bin endpoints (rounded to exact points), ``z_max`` and Newton starting points.
"""

from __future__ import annotations

import math
from fractions import Fraction
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from flint import arb, arb_series, ctx, fmpq

from certdp.numbers.balls import to_arb
from certdp.numbers.deadline import check_deadline

__all__ = [
    "RadialPrecisionError",
    "RadialRangeError",
    "Z_SCALE_MIN",
    "RadialEnclosure",
    "SGGRadialProblem",
    "sgg_delta_enclosure",
    "pure_dp_decision",
    "radial_progress",
    "radial_reached",
    "fw_cdf",
]

_DEBUG = False
DEFAULT_ORDER = 12        # Taylor-model order n (series length n + 1)


_PROGRESS_HOOK: ContextVar = ContextVar("certdp_radial_progress", default=None)


@contextmanager
def radial_progress(callback):
    """Within the block, every :func:`sgg_delta_enclosure` call without its own ``progress``
    reports ``callback(bins, width, target, bits)`` after each refinement round (``width`` and
    ``target`` are floats on a common power-of-two scale).  Used by the CLI's spinner."""
    token = _PROGRESS_HOOK.set(callback)
    try:
        yield
    finally:
        _PROGRESS_HOOK.reset(token)


_REACHED: ContextVar = ContextVar("certdp_radial_reached", default=None)


@contextmanager
def radial_reached(record: list):
    """Within the block, every refinement round of :func:`sgg_delta_enclosure` intersects its certified
    enclosure into ``record`` (``[lower, upper, bits, bins]``, arb ends).  For callers that evaluate ONE
    quantity (one profile point, possibly on several precision rungs): when a budget interrupts them,
    ``record`` holds the best certified enclosure reached.  Every round's enclosure is valid (the bins
    cover ``[0, z_max]``, the tail is added), so their intersection is too."""
    token = _REACHED.set(record)
    try:
        yield record
    finally:
        _REACHED.reset(token)


class RadialPrecisionError(ArithmeticError):
    """The requested width ``eta`` was not reached at this precision / bin budget."""


class RadialRangeError(RadialPrecisionError):
    """The profile's mass sits at ``z`` below what the engine's bin edges and float guesses can place.

    Bin edges are exact Arb points with a 53-bit mantissa and an arbitrary exponent (the float
    guesses next to them work with ``ln z``), so the only limit is :data:`Z_SCALE_MIN` on
    ``z_s = beta s^p`` (``r = s``, the scale of the privacy loss), far below any supported delta
    (R1SMG at delta ~ 1e-300 has ``z_s ~ 1e-600``).  Raised up front, in microseconds.
    """


#: ``log2`` of the smallest ``z_s = beta s^p`` the engine accepts: ``ln z`` must stay a modest double
#: for the float guesses (2^-10^6 ~ 1e-301030, i.e. R1SMG delta ~ 1e-150000).
Z_SCALE_MIN_LOG2 = -10**6
#: The same bound as an exact Arb point (``2^Z_SCALE_MIN_LOG2``).
Z_SCALE_MIN = arb(2) ** Z_SCALE_MIN_LOG2
#: Edges ``z`` with ``2^-_DOUBLE_EDGE_LOG2 < z < 2^_DOUBLE_EDGE_LOG2`` (or ``z = 0``) keep the original
#: float heuristics (split points, breakpoint scan); outside that range they run on ``ln z``.
_DOUBLE_EDGE_LOG2 = 1000
_DOUBLE_LO = arb(2) ** -_DOUBLE_EDGE_LOG2
_DOUBLE_HI = arb(2) ** _DOUBLE_EDGE_LOG2


#: ``ln 1e-300``: the old floor of the first bin edge; above it the first edge is placed as before.
_LOG_OLD_FLOOR = math.log(1e-300)


def _in_double_range(z: arb) -> bool:
    """Is the exact edge ``z`` (``>= 0``) a comfortable double (``0`` or within ``2^+-1000``)?"""
    return z == 0 or (_DOUBLE_LO < z < _DOUBLE_HI)


def _round_edge(x: arb) -> arb:
    """An exact point near ``x > 0`` with a 53-bit mantissa and any exponent (a bin edge)."""
    old = ctx.prec
    ctx.prec = 53
    try:
        return (x.mid() * 1).mid()
    finally:
        ctx.prec = old


def _edge_of_log(lz: float) -> arb:
    """The bin edge ``~ e^lz`` (exact point); the plain double where ``e^lz`` is a normal double."""
    if -690.0 < lz < 690.0:
        return arb(math.exp(lz))
    return _round_edge(arb(repr(lz)).exp())


def _log_edge(z: arb) -> float:
    """float ``ln z`` of an edge ``z > 0`` (any exponent)."""
    if _DOUBLE_LO < z < _DOUBLE_HI:
        return math.log(float(z.mid()))
    return float(z.mid().log().mid())


def _edge_key(z: arb) -> tuple[int, int]:
    """Hashable exact value of a point ``z`` (the cache key of the incomplete gamma)."""
    m, e = z.mid().man_exp()
    return int(m), int(e)


def _union(a: arb, b: arb) -> arb:
    return a.union(b)


def _with_constant(series: arb_series, c0: arb) -> arb_series:
    """``series`` with its constant term replaced by ``c0`` (a better enclosure of the same number: the
    ``log1p`` / ``expm1`` of a small constant, where ``log(1 + x)`` / ``exp(L) - 1`` cancel)."""
    c = series.coeffs()
    if not c:
        return arb_series([c0])
    c[0] = c0
    return arb_series(c)


def _far_from_shift(t) -> bool:
    """Is ``t = s / r < 1/4`` certified (a ball, or the constant term of a series)?

    There ``q / r^2 - 1 = t (t + 2 w)`` lies in ``(-7/16, 0)`` for ``w <= -1/2``, so ``log1p`` of it has
    full relative accuracy, while ``log`` of ``q / r^2 = (1 - t)^2 + 2 t (1 + w)`` (the form for ``r ~ s``)
    keeps only an absolute ``2^-prec``: at large ``T`` and small eps (``T = 1000``, ``t ~ 1.5e-5``) that lost
    15 bits of ``Phi`` and of every ``w*`` at 64 bits (docs/sgg.md item 26)."""
    return bool(t < 0.25)


def _finite(x: arb) -> bool:
    return x.is_finite()


def _arb_min(xs):
    """The ball with the smallest upper end (a ranking of widths, not a decision)."""
    return min(xs, key=lambda x: x.upper())


@dataclass
class RadialEnclosure:
    """Certified enclosure ``lower <= delta*(eps) <= upper`` (Arb balls' ends)."""

    lower: arb
    upper: arb
    eta: float
    bins: int
    tail_mass: arb
    precision_bits: int
    taylor_bins: int = 0
    monotone_bins: int = 0
    constant_bins: int = 0
    a_enclosure: arb | None = None
    b_enclosure: arb | None = None
    notes: list = field(default_factory=list)
    bin_table: list = field(default_factory=list, repr=False)

    @property
    def width(self) -> arb:
        return self.upper - self.lower

    def as_ball(self) -> arb:
        return _union(self.lower, self.upper)


def fw_cdf(w: arb, half_dim_minus: arb) -> arb:
    """``F_W(w) = I_{(w+1)/2}(a, a)`` with ``a = (T-1)/2`` (seed 003 Prop. A.1).

    Valid for any ball ``w`` inside ``[-1, 1]``; for accuracy near ``w = 1`` the
    symmetry ``F_W(w) = 1 - F_W(-w)`` is used.  Wide balls are handled by
    monotonicity (evaluate at both ends, take the union), because Arb's
    incomplete beta on a wide ball is very pessimistic.
    """
    a = half_dim_minus
    if w.rad() > 0:
        lo, hi = w.lower(), w.upper()
        return _union(_fw_point(lo, a), _fw_point(hi, a))
    return _fw_point(w, a)


def _fw_point(w: arb, a: arb) -> arb:
    if w <= -1:
        return arb(0)
    if w >= 1:
        return arb(1)
    if w > 0:
        return 1 - ((1 - w) / 2).beta_lower(a, a, regularized=1)
    return ((w + 1) / 2).beta_lower(a, a, regularized=1)


class SGGRadialProblem:
    """Lemma 4.1 data at the current working precision, reduced to ``beta = 1``.

    Parameters are exact values (Fraction / int / str) or arb balls:
    ``dimension`` T >= 2, ``alpha`` in (-1, T-1], ``power`` p > 0, ``rate``
    beta > 0, ``epsilon`` >= 0, ``sensitivity`` s >= 0.
    """

    def __init__(self, dimension, alpha, power, rate, epsilon, sensitivity):
        T = int(dimension)
        if T < 2:
            raise ValueError("dimension must be >= 2")
        self.T = T
        self.alpha = to_arb(alpha)
        self.p = to_arb(power)
        self.beta = to_arb(rate)
        self.eps = to_arb(epsilon)
        self.s_in = to_arb(sensitivity)
        if not (self.alpha > -1):
            raise ValueError("alpha must be > -1")
        if not (self.alpha <= T - 1):
            raise ValueError("alpha must be <= T - 1")
        if not (self.p > 0) or not (self.beta > 0):
            raise ValueError("power and rate must be > 0")
        if not (self.eps >= 0) or not (self.s_in >= 0):
            raise ValueError("epsilon and sensitivity must be >= 0")
        self.c1 = (self.alpha + 1 - T) / 2            # <= 0
        self.c1_is_zero = bool(self.c1 == 0)           # exact zero only
        self.k = (self.alpha + 1) / self.p            # Gamma shape
        self.s = self.s_in * self.beta ** (1 / self.p)  # Lemma C.1: beta -> 1
        self.half_p = self.p / 2
        self.a_w = arb(T - 1) / 2                      # F_W beta parameters
        # density of W: C (1 - w^2)^((T-3)/2), C = Gamma(T/2) / (sqrt(pi) Gamma((T-1)/2))
        self.c_w = (arb(T) / 2).gamma() / (arb.pi().sqrt() * self.a_w.gamma())
        self.e_w = arb(T - 3) / 2
        self.lgamma_k = self.k.lgamma()
        self.exp_eps = self.eps.exp()
        self._gamma_cache: dict = {}
        # integer Gamma shape (l2-Laplace: k = T; the Gaussian member at even T): finite sums
        self._k_float = float(self.k.mid())
        self.k_int = None
        if self.k.rad() == 0 and self.k == self.k.floor() and 8 <= self.k < 10**5:
            self.k_int = int(self.k.mid().man_exp()[0]) * 2 ** int(self.k.mid().man_exp()[1])
        # float shadows (never decide anything)
        self.f_c1 = float(self.c1.mid())
        self.f_p = float(self.p.mid())
        self.f_s = float(self.s.mid())
        self.f_k = float(self.k.mid())
        self.f_log_s = float(self.s.log().mid()) if self.s > 0 else -math.inf
        # s^2 / r in the float Phi underflows for s below ~1e-150 (e.g. l2-type losses at delta ~ 1e-300,
        # s ~ z_s ~ 5e-300): then every float guess runs on ln z (:meth:`_phi_float_log`)
        self.f_log_path = not (1e-140 < self.f_s < 1e140)
        # the first bin [0, z_1] decided exactly (:meth:`_bin_at_zero`); set by the engine where z_1 would
        # have been below the old floor 1e-300 (elsewhere [0, mass] as always: unchanged results)
        self.exact_zero_bin = False
        self._z_s = None
        self._layer_nbhd = None
        self.input_radius_floor = False
        self.layer_mode = False

    # -- explicit threshold when c1 = 0 (alpha = T - 1) -----------------------------
    def w_explicit(self, z, y: arb):
        """``w_e(z) = ((z - y)^(2/p) - z^(2/p) - s^2) / (2 s z^(1/p))`` on a ball or a series.

        For ``c1 = 0`` the loss is ``Phi = z - q^(p/2)``, so for ``z > y``
        ``Phi(r, w) >= y  <=>  q <= (z - y)^(2/p)  <=>  w <= w_e(z)``: the threshold is
        ``w* = clamp(w_e, -1, 1)`` in closed form (and ``w* = -1`` where ``z <= y``).  This
        removes the kink of the p = 1 loss at ``q = 0`` (``r = s, w = -1``) from every
        computation: ``w*`` never has to be bracketed by sign tests of ``Phi``.
        ``(z - y)^(2/p) - z^(2/p)`` is formed as ``z^(2/p) expm1((2/p) log1p(-y/z))`` on balls
        (no cancellation for ``z >> |y|``).
        """
        s = self.s
        if isinstance(z, arb_series):
            if self._p_is_one():
                return (-y / s) - (s * s - y * y) / (2 * s) / z
            if self._p_is_two():
                return (-(y + s * s) / (2 * s)) * z.rsqrt()
            two_p = 2 / self.p
            logz = z.log()
            if not (abs(y) < z.coeffs()[0] / 2):
                # |y| >= z/2: the two powers differ by a factor >= (3/2)^(2/p) (or (1/2)^(2/p)), so
                # the direct difference does not cancel, while the product form below multiplies two
                # factors of opposite trends on a ball (z^(2/p) up, expm1(..) down: dependency)
                zp = (logz * two_p).exp()
                r = (logz / self.p).exp()
                return (((z - y).log() * two_p).exp() - zp - s * s) / (2 * s * r)
            # (z - y)^(2/p) - z^(2/p) = z^(2/p) expm1((2/p) log1p(-y/z)); the constant terms of the
            # log1p / expm1 series are taken from the ball functions (no cancellation of the 1)
            u = -y / z
            lg = (u + 1).log()
            c = lg.coeffs()
            c[0] = u.coeffs()[0].log1p()
            v = arb_series(c) * two_p
            e = v.exp()
            c = e.coeffs()
            c[0] = v.coeffs()[0].expm1()
            e = arb_series(c)
            zp = (logz * two_p).exp()
            r = (logz / self.p).exp()
            return (zp * e - s * s) / (2 * s * r)
        if self._p_is_one():
            return (-y / s) - (s * s - y * y) / (2 * s * z)
        if self._p_is_two():
            return -(y + s * s) / (2 * s * z.sqrt())
        two_p = 2 / self.p
        zp = z ** two_p
        if abs(y) < z / 2:
            diff = zp * ((-y / z).log1p() * two_p).expm1()      # no cancellation of the two powers
        else:
            diff = (z - y) ** two_p - zp                         # no dependency between the factors
        return (diff - s * s) / (2 * s * z ** (1 / self.p))

    # -- Phi and dPhi/dw on balls -------------------------------------------------
    def phi(self, z: arb, w: arb) -> arb:
        """Enclosure of ``Phi(r, w)`` for all ``r = z^(1/p)``, z in the ball ``z > 0``."""
        s = self.s
        r = z ** (1 / self.p) if not self._p_is_one() else z
        t = s / r
        if w < -0.5 and not _far_from_shift(t):
            # q / r^2 = ((r - s)/r)^2 + 2 (s/r)(1 + w): a sum of non-negative terms, no cancellation
            # where q -> 0 (r ~ s, w ~ -1: the log singularity of the loss for alpha < T-1)
            L = ((1 - t) ** 2 + 2 * t * (1 + w)).log()
        else:
            x = (2 * s * w + s * s / r) / r
            L = x.log1p()
        val = -z * (self.half_p * L).expm1()
        if not self.c1_is_zero:
            val = val + self.c1 * L
        return val

    def phi_on_bin(self, zball: arb, w: arb) -> arb:
        """``Phi(r(z), w)`` for all ``z`` in ``zball``, by a second-order Taylor form.

        ``Phi(z_m + t, w) = Phi(z_m) + Phi_z(z_m) t + Phi_zz(xi)/2 t^2`` for some
        ``xi`` in the ball (Taylor with Lagrange remainder).  The first two
        coefficients come from a length-3 Arb series at the exact midpoint,
        the last from a length-3 series on the whole ball; ``t^2`` is enclosed
        as ``[0, h^2]``.  Intersected with the direct evaluation.  This removes
        the dependency-problem overestimate (first order in the bin width)
        that otherwise hides the sign of ``Phi - y``.
        """
        direct = self.phi(zball, w)
        if zball.rad() == 0:
            return direct
        zm = zball.mid()
        old_cap = ctx.cap
        ctx.cap = 3
        try:
            vm, _ = self._phi_series(arb_series([zm, 1]), arb_series([w]))
            vb, _ = self._phi_series(arb_series([zball, 1]), arb_series([w]))
            cm = vm.coeffs() + [arb(0)] * 3
            cb = vb.coeffs() + [arb(0)] * 3
        except (ValueError, ZeroDivisionError):
            return direct
        finally:
            ctx.cap = old_cap
        h = zball.rad()
        t = arb(0, h)
        t2 = arb(0).union(h * h)
        mv = cm[0] + cm[1] * t + cb[2] * t2
        if not _finite(mv):
            return direct
        if not _finite(direct):
            return mv
        try:
            return mv.intersection(direct)
        except ValueError:
            return mv

    def phi_minus_one(self, z: arb) -> arb:
        """``Phi(r, -1)`` on a ball of ``z``; exact form ``q = (r - s)^2``.

        For ``alpha = T - 1`` (``c1 = 0``) this is ``r^p - |r - s|^p``, finite
        even where ``r = s`` (the generic form would take ``log 0`` there).
        """
        if not self.c1_is_zero:
            # exact form 2 c1 ln(|r - s| / r) + z - |r - s|^p: the generic one forms 1 + x = (1 - s/r)^2
            # by cancellation and loses it on every bin next to r = s (T = 2, large eps: whole bins of
            # w* = -1 were left as [0, mass])
            r = z ** (1 / self.p)
            d = abs(r - self.s)
            if d > 0:
                direct = 2 * self.c1 * (d.log() - r.log()) + z - d ** self.p
                if _finite(direct):
                    generic = self.phi_on_bin(z, arb(-1))
                    if _finite(generic):
                        try:
                            return direct.intersection(generic)
                        except ValueError:
                            return direct
                    return direct
            return self.phi_on_bin(z, arb(-1))
        r = z ** (1 / self.p)
        d = abs(r - self.s)
        if d > 0:
            return z - d ** self.p
        hi = d.upper() ** self.p
        return z - arb(0).union(hi)

    def _p_is_one(self) -> bool:
        return self.p == 1 and self.p.rad() == 0

    def _p_is_two(self) -> bool:
        return self.p == 2 and self.p.rad() == 0

    # float version for starting points
    def phi_float(self, z, w: float) -> float:
        """float ``Phi(z, w)`` (a guess); ``z`` a float or an exact arb edge (any exponent: then on ``ln z``)."""
        if isinstance(z, arb):
            if self.f_log_path or not _in_double_range(z):
                return self._phi_float_log(_log_edge(z), w)
            z = float(z.mid())
        elif self.f_log_path and z > 0:
            return self._phi_float_log(math.log(z), w)
        if w < -0.5:
            return self.phi_float_end(z, 1.0 + w, -1)
        s, p = self.f_s, self.f_p
        r = z ** (1.0 / p)
        x = (2 * s * w + s * s / r) / r
        if x <= -1.0:
            return math.inf if self.f_c1 < 0 else -z * math.expm1(-math.inf)
        L = math.log1p(x)
        return self.f_c1 * L - z * math.expm1(0.5 * p * L)

    def _phi_float_log(self, lz: float, w: float) -> float:
        """float ``Phi`` at ``z = e^lz`` for ``z`` beyond the doubles: ``s / r = exp(ln s - lz/p)`` is of
        order one where the loss lives, and ``q^(p/2) - r^p = z expm1(p L / 2)`` is formed in log space."""
        p = self.f_p
        t = math.exp(min(self.f_log_s - lz / p, 700.0))       # s / r
        x = 2.0 * t * w + t * t
        if x <= -1.0:
            return math.inf if self.f_c1 < 0 else math.exp(min(lz, 700.0))
        L = math.log1p(x)
        e = math.expm1(min(0.5 * p * L, 700.0))
        zterm = 0.0 if e == 0 else math.copysign(math.exp(min(lz + math.log(abs(e)), 700.0)), e)
        return self.f_c1 * L - zterm

    def _layer_distance(self, z: arb):
        """float ``(r - s) / r`` at an exact edge ``z`` within ``1e-6`` (relative) of ``z_s = s^p`` for
        ``c1 < 0``, formed in Arb (``None`` elsewhere).  The float ``r - s`` of two doubles keeps only
        ~1e-16 / |r/s - 1| of its digits: at eps = 20 (T = 2) the layer is ``|r/s - 1| < 4e-9`` wide and
        ``1 + w*`` (from ``q/r^2 = d^2 + 2 t (1 + w)``) was noise within ~1e-5 of the layer width of its
        ends, where every bin then fell back to first order.  A guess only."""
        if self.c1_is_zero or not (self.s > 0):
            return None
        zf = float(z.mid())
        zsf = self.f_s ** self.f_p
        if not zsf > 0:
            return None      # s^p underflows (s ~ 1e-120, p = 3): z_s is beyond the doubles, z is not near it
        if not (abs(zf / zsf - 1.0) < 1e-6):
            return None
        r = z ** (1 / self.p) if not self._p_is_one() else z
        d = (r - self.s) / r
        return float(d.mid())

    # -- the thin layer around z_s (c1 < 0) in the local coordinate d = (r - s)/r ------------------
    #: half-width (relative, in z) of the neighbourhood of ``z_s`` where the layer rules apply
    LAYER_NEIGHBOURHOOD = 2.0 ** -20

    def layer_distance_any(self, z: arb):
        """float ``d = (r - s)/r`` at an exact edge ``z`` with ``|z / z_s - 1| < 2^-20`` (``c1 < 0``), formed in
        Arb for *any* exponent of ``z`` (:meth:`_layer_distance` covers the doubles only: its float ratio
        ``z / s^p`` underflows for ``z_s ~ 1e-575``, R1SMG at delta = 1e-300); ``None`` elsewhere.  In this
        coordinate ``q / r^2 = d^2 + 2 (1 - d)(1 + w)``, so the guesses need neither ``z`` nor ``s`` as
        doubles.  A guess only."""
        if self.c1_is_zero or not (self.s > 0) or not (z > 0):
            return None
        if self._z_s is None:
            self._z_s = self.s ** self.p
        if not (abs(z / self._z_s - 1) < self.layer_neighbourhood()):
            return None
        r = z ** (1 / self.p) if not self._p_is_one() else z
        return float(((r - self.s) / r).mid())

    def layer_neighbourhood(self) -> float:
        """Relative half-width (in ``z``) of the neighbourhood of ``z_s`` where the layer rules apply:
        :attr:`LAYER_NEIGHBOURHOOD`, or 16 times the layer's own half-width ``p sqrt(Q*)`` where that is wider
        (at most ``2^-8``).  A layer wider than ``2^-20`` in layer mode (``z_s`` outside the doubles,
        ``2^-80 < Q* < 2^-8``: sgg T=2 alpha=-7/10 p=11/4 at eps = 25, beta ~ 3e-1385, layer ends at
        ``z_s (1 +- 1.13e-6)``) had its ends outside the neighbourhood: no Arb breakpoints there, the float
        scan on ``ln z`` placed them ~4e-11 off, the guesses next to them were of the wrong class, the bins
        first-order, and the width stalled at ~5e-6 relative on every rung.  A routing choice only."""
        if self._layer_nbhd is None:
            nbhd = self.LAYER_NEIGHBOURHOOD
            lq = _layer_log2_q(self)
            if lq < 0.0:
                half = self.f_p * 2.0 ** (lq / 2.0)
                nbhd = min(2.0 ** -8, max(nbhd, 16.0 * half))
            self._layer_nbhd = nbhd
        return self._layer_nbhd

    def _layer_phi_end(self, zf: float, d: float, v: float, side: int) -> float:
        """float ``Phi`` at ``w = -1 + v`` (side -1) / ``1 - v`` (side +1) from the local coordinate ``d``:
        ``Q = q / r^2 = d^2 + 2 t v`` resp. ``(1 + t)^2 - 2 t v`` (``t = 1 - d``), ``Phi = c1 ln Q - z expm1(p/2
        ln Q)``; ``zf`` is ``z`` as a double (0 where it underflows: that term is then negligible)."""
        t = 1.0 - d
        qr = d * d + 2.0 * t * v if side < 0 else (1.0 + t) ** 2 - 2.0 * t * v
        if qr <= 0.0:
            return math.inf
        L = math.log(qr)
        return self.f_c1 * L - zf * math.expm1(min(0.5 * self.f_p * L, 700.0))

    def layer_guess(self, z: arb, d: float, y: float) -> tuple[float, float, float]:
        """:meth:`wstar_guess` in the layer from the local coordinate ``d`` (:meth:`layer_distance_any`): the end
        distance by bisection in ``log v`` to float relative precision (``1 + w* ~ 1e-44`` at eps = 50).  A
        starting point only."""
        zf = float(z.mid())
        if self._layer_phi_end(zf, d, 0.0, 1) >= y:
            return 1.0, 2.0, 0.0
        if self._layer_phi_end(zf, d, 0.0, -1) <= y:
            return -1.0, 0.0, 2.0
        # the nearer end: Phi at w = 0 against y (Phi decreases in w)
        side = -1 if self._layer_phi_end(zf, d, 1.0, -1) < y else 1
        lo, hi = math.log(1e-300), 0.0

        def above(lv):      # Phi >= y at v = exp(lv)
            return self._layer_phi_end(zf, d, math.exp(lv), side) >= y
        return _end_distance_by_bisection(above, side, lo, hi, 80)

    def layer_class(self, z: arb, y: float):
        """Breakpoint class of ``z`` (+1: ``w* = 1``, -1: ``w* = -1``, 0: interior) in the layer coordinate;
        ``None`` outside the neighbourhood of ``z_s``."""
        d = self.layer_distance_any(z)
        if d is None:
            return None
        zf = float(z.mid())
        if self._layer_phi_end(zf, d, 0.0, 1) >= y:
            return 1
        if self._layer_phi_end(zf, d, 0.0, -1) <= y:
            return -1
        return 0

    def phi_float_end(self, z: float, v: float, side: int, d_acc: float | None = None) -> float:
        """float ``Phi(r, w)`` at ``w = -1 + v`` (``side = -1``) or ``w = 1 - v`` (``side = +1``), with
        ``q / r^2 = (1 -+ t)^2 +- 2 t v``, ``t = s / r``: no cancellation where ``v`` is tiny and ``r ~ s``
        (the float ``w`` cannot hold ``-1 + 1e-17``; at large eps the mass of delta sits there)."""
        s, p = self.f_s, self.f_p
        r = z ** (1.0 / p)
        t = s / r
        if side < 0:
            d = (r - s) / r if d_acc is None else d_acc
            if d_acc is not None:
                t = 1.0 - d_acc
            qr = d * d + 2.0 * t * v
        else:
            qr = (1.0 + t) ** 2 - 2.0 * t * v
        if qr <= 0.0:
            return math.inf if self.f_c1 < 0 else z
        L = math.log(qr)
        return self.f_c1 * L - z * math.expm1(0.5 * p * L)

    def _wstar_bisect(self, z, y: float) -> float:
        """Float estimate of ``w*(r, y)`` by bisection on :meth:`phi_float` (any ``z``: float or exact arb
        edge of any exponent); used where :meth:`phi_float_end` cannot be formed (``z`` or ``s`` beyond
        the doubles).  A starting point only."""
        f_hi = self.phi_float(z, 1.0)
        if f_hi >= y:
            return 1.0
        f_lo = self.phi_float(z, -1.0)
        if f_lo <= y:
            return -1.0
        return self._bisect_interior(z, y)

    def _bisect_interior(self, z, y: float) -> float:
        """Bisection of ``Phi(z, w) = y`` over ``w`` in ``[-1, 1]`` on :meth:`phi_float` to 1e-15 (a guess)."""
        a, b = -1.0, 1.0
        for _ in range(200):
            m = 0.5 * (a + b)
            if self.phi_float(z, m) >= y:
                a = m
            else:
                b = m
            if b - a < 1e-15:
                break
        return 0.5 * (a + b)

    def wstar_float(self, z, y: float) -> float:
        """Float estimate of ``w*(r, y)`` (bisection + secant; starting point only)."""
        return self.wstar_guess(z, y)[0]

    def wstar_guess(self, z, y: float) -> tuple[float, float, float]:
        """Float estimate ``(w, 1 + w, 1 - w)`` of ``w*(r, y)``, the distance to the nearer end ``+-1``
        accurate to float *relative* precision (bisection in ``log v`` on :meth:`phi_float_end`).
        ``(1, 2, 0)`` / ``(-1, 0, 2)`` when ``w*`` is clamped.  A starting point only.  ``z`` a float or
        an exact arb edge; beyond the doubles (or ``s`` beyond them) the plain bisection on ``ln z``
        (:meth:`_wstar_bisect`, end distance only to absolute float precision)."""
        d_acc = None
        if isinstance(z, arb):
            if self.f_log_path or not _in_double_range(z):
                d_layer = self.layer_distance_any(z)
                if d_layer is not None:
                    return self.layer_guess(z, d_layer, y)
                return _as_guess(self._wstar_bisect(z, y))
            d_acc = self._layer_distance(z)
            z = float(z.mid())
        elif self.f_log_path:
            return _as_guess(self._wstar_bisect(z, y))
        try:
            if self.phi_float(z, 1.0) >= y:
                return 1.0, 2.0, 0.0
            if self.phi_float_end(z, 0.0, -1, d_acc) <= y:
                return -1.0, 0.0, 2.0
        except (ValueError, OverflowError, ZeroDivisionError):
            return 0.0, 1.0, 1.0
        w = self._bisect_interior(z, y)
        if -0.5 <= w <= 0.5:
            return w, 1.0 + w, 1.0 - w
        side = -1 if w < 0 else 1
        # phi_float_end(v) is decreasing in v for side -1, increasing for side +1; bisect in log v
        lo, hi = math.log(1e-300), math.log(0.75)

        def above(lv):      # Phi >= y at v = exp(lv)
            return self.phi_float_end(z, math.exp(lv), side, d_acc) >= y
        if side < 0:
            if not above(lo):
                return -1.0, 0.0, 2.0
            if above(hi):
                return w, 1.0 + w, 1.0 - w
        else:
            if above(lo):
                return 1.0, 2.0, 0.0
            if not above(hi):
                return w, 1.0 + w, 1.0 - w
        return _end_distance_by_bisection(above, side, lo, hi, 70)

    # -- series versions ----------------------------------------------------------
    def _phi_series(self, zs: arb_series, ws: arb_series):
        s = self.s
        logz = zs.log()
        u = (-(logz / self.p)).exp()              # 1/r
        su = s * u
        if ws.coeffs() and ws.coeffs()[0] < -0.5 and not _far_from_shift(su.coeffs()[0]):
            # as in :meth:`phi`: q/r^2 without cancellation near w = -1
            onepx = (1 - su) * (1 - su) + 2 * su * (ws + 1)
            L = onepx.log()
        else:
            x = (2 * s) * ws * u + (s * s) * u * u
            onepx = x + 1
            L = _with_constant(onepx.log(), x.coeffs()[0].log1p())
        e = (self.half_p * L).exp()
        val = -zs * _with_constant(e - 1, (self.half_p * L.coeffs()[0]).expm1())
        if not self.c1_is_zero:
            val = val + self.c1 * L
        dval = (2 * s) * u / onepx * (self.c1 - self.half_p * zs * e)
        return val, dval

    def _wstar_series(self, zs: arb_series, w0: arb, y: arb, n: int) -> arb_series:
        ws = arb_series([w0])
        done = 1
        while done < n + 1:
            val, dval = self._phi_series(zs, ws)
            ws = ws - (val - y) / dval
            c = ws.coeffs()
            c[0] = w0
            ws = arb_series(c)
            done *= 2
        return ws

    def _wstar_series_ball(self, zs: arb_series, w0: arb, n: int) -> arb_series:
        """Taylor coefficients of ``w*`` enclosed over a ball of base points.

        Order by order: with ``w^(j-1)`` the truncation of the solution,
        ``[Phi(r(t), w^(j-1)(t))]_j + Phi_w(r_0, w_0) w_j = 0``.  Each
        coefficient is obtained by a single division, so (unlike Newton's
        iteration on ball series) widths do not feed back into themselves.
        """
        coeffs = [w0]
        _, dval = self._phi_series(arb_series([zs.coeffs()[0]]), arb_series([w0]))
        d0 = dval.coeffs()[0]
        full_cap = ctx.cap
        for j in range(1, n + 1):
            ctx.cap = j + 1                   # only coefficients <= j are needed at step j
            try:
                val, _ = self._phi_series(zs, arb_series(coeffs))
            finally:
                ctx.cap = full_cap
            c = val.coeffs()
            cj = c[j] if len(c) > j else arb(0)
            coeffs.append(-cj / d0)
        return arb_series(coeffs)

    def _fw_series(self, ws: arb_series, w0: arb) -> arb_series:
        """Series of ``F_W(w(t))`` with the constant term enclosed monotonically."""
        dens = arb_series([self.c_w])
        if self.e_w != 0:
            dens = self.c_w * (self.e_w * ((1 - ws).log() + (1 + ws).log())).exp()
        integ = (dens * ws.derivative()).integral()
        c = integ.coeffs()
        if not c:
            c = [arb(0)]
        c[0] = fw_cdf(w0, self.a_w)
        return arb_series(c)

    def _g_series(self, ws: arb_series, w0: arb, minus: bool) -> arb_series:
        """Series of ``G = F_W(w)`` or, for ``minus``, ``1 - F_W(w) = F_W(-w)`` (``W`` is symmetric):
        the tail side is computed directly, never as ``1 - (something near 1)``."""
        if minus:
            return self._fw_series(-ws, -w0)
        return self._fw_series(ws, w0)

    def _g_hull(self, wl: arb, wu: arb, minus: bool) -> arb:
        """Hull of ``G`` over ``w`` in ``[wl, wu]`` (``F_W`` is monotone), tail side directly."""
        if minus:
            return _union(fw_cdf(-wu, self.a_w), fw_cdf(-wl, self.a_w))
        return _union(fw_cdf(wl, self.a_w), fw_cdf(wu, self.a_w))

    def _density_series(self, zs: arb_series) -> arb_series:
        return ((self.k - 1) * zs.log() - zs - self.lgamma_k).exp()

    # -- certified brackets of w* on a set of radii ---------------------------------
    def w_bracket(self, zball: arb, y: arb, guess_lo, guess_hi):
        """Return ``(wl, wu)`` (exact arb points) with ``wl <= w*(z) <= wu`` on ``zball``.

        ``wl = -1`` / ``wu = 1`` are always valid; tighter values are kept only
        when certified by the sign of ``Phi - y`` on the whole ball.  The guesses are floats ``w`` or
        :meth:`wstar_guess` triples ``(w, 1 + w, 1 - w)``; the candidates are placed at ``+-1 -+ v``
        with ``v`` padded *relatively* (a float ``w`` cannot hold ``-1 + 1e-17``), so where ``w*`` hugs
        an end (T = 2 at large eps: ``1 + w* ~ 1e-15`` on the bins around ``r = s`` that carry B) the
        bracket stays tight.
        """
        pads = (1e-12, 1e-9, 1e-6, 1e-4, 1e-3, 1e-2, 3e-2, 0.25)
        glo = _as_guess(guess_lo)
        ghi = _as_guess(guess_hi)
        wl = arb(-1)
        for pad in pads:
            c = _shifted_point(glo, -pad)
            if c is None:
                break
            if self.phi_on_bin(zball, c) > y:
                wl = c
                break
        wu = arb(1)
        for pad in pads:
            c = _shifted_point(ghi, pad)
            if c is None:
                break
            if self.phi_on_bin(zball, c) < y:
                wu = c
                break
        # next to a breakpoint the end distance vanishes linearly and its float guess is noise (it is
        # the difference q - (r - s)^2 of two nearly equal numbers): try end distances growing
        # geometrically from the rounding level instead (T = 3: G = (1 + w*)/2 ~ 1e-24 on such bins,
        # which otherwise fell back to G in [0, 1])
        # (at most _END_LADDER_STEPS tries per side: 2^(16 - prec) underflows to 0.0 in floats above
        # ~1070 bits, and a float start of 0 never grew -- the 2048-bit rung of sgg T=10 alpha=4 p=3/2
        # at (50, 1e-300) hung here)
        if wu == 1 and ghi[1] <= ghi[2]:
            for v in _end_distances(ghi[1]):
                c = (arb(v) - 1).mid()
                if self.phi_on_bin(zball, c) < y:
                    wu = c
                    break
        if wl == -1 and glo[2] < glo[1]:
            for v in _end_distances(glo[2]):
                c = (1 - arb(v)).mid()
                if self.phi_on_bin(zball, c) > y:
                    wl = c
                    break
        return wl, wu

    def certified_point_wstar(self, z: arb, y: arb, guess):
        """Tight enclosure of ``w*(z, y)`` at a (near-)point ``z``; ``None`` if clamped/unsure.

        Refines the float guess (a float or a :meth:`wstar_guess` triple) by Arb Newton steps, then
        certifies a small interval by two sign tests.
        """
        g = _as_guess(guess)
        if g[1] <= 0 or g[2] <= 0:
            return None
        w = _shifted_point(g, 0.0)
        if w is None:
            return None
        for _ in range(10):
            val = self.phi(z, w)
            if not _finite(val):
                return None
            dv = self._dphi(z, w)
            w_new = (w - (val - y) / dv).mid()
            if not (w_new > -1 and w_new < 1):
                w_new = ((w + (-1 if w_new <= -1 else 1)) / 2).mid()   # stay inside (-1, 1)
            step = abs(w_new - w)
            w = w_new
            if step < arb(2) ** (-ctx.prec - 4) * 4:
                break
        if not (w > -1 and w < 1):
            return None
        # the radius of this enclosure is the floor of every Taylor bin's width (G = F_W(w*) inherits
        # it), so start a few bits above the working precision and widen only when the signs fail
        d = arb(2) ** (-(ctx.prec - 8))
        gap = 1 + w if w < 0 else 1 - w            # distance to the nearer end (exact: w is a point)
        tries = 8
        if gap < 1:
            d = d * gap
            # a radius relative to a tiny gap is below the ulp of w (~ -1, absolute 2^-prec): the first
            # tries round lo = hi = w; allow as many more tries as it takes to reach the ulp (T = 2 at
            # eps = 20: 1 + w* ~ 1e-22 next to the layer's ends failed all 8 and fell back to first order)
            gf = float(gap.mid())
            tries += int(-math.log2(gf) / 8) + 1 if gf > 0 else int(ctx.prec / 8) + 1
        if self.input_radius_floor:
            # boosted call with ball inputs: Phi carries the inputs' radius (2^-128 relative at 128 bits), far
            # above the boosted working precision; start at the w-radius it implies (the widenings below
            # cover only 2^64, and from 2^(8 - prec) they never reached it: every Taylor bin of the A side
            # was refused, sgg T=3 alpha=1 p=3 at eps = 50, 128-bit rate ball, 3000 monotone bins)
            val, dv = self.phi(z, w), self._dphi(z, w)
            if _finite(val) and _finite(dv) and dv != 0:
                floor = 4 * arb(val.rad()) / abs(dv.mid())
                if floor > d:
                    d = floor.mid()
        for _ in range(tries):
            lo, hi = (w - d).mid(), (w + d).mid()
            if not (lo > -1 and hi < 1):
                return None
            if self.phi(z, lo) > y and self.phi(z, hi) < y:
                return _union(lo, hi)
            d = d * 2 ** 8
        return None

    def _dphi(self, z: arb, w: arb) -> arb:
        s = self.s
        r = z ** (1 / self.p)
        x = (2 * s * w + s * s / r) / r
        L = x.log1p()
        e = (self.half_p * L).exp()
        return (2 * s) / (r * (1 + x)) * (self.c1 - self.half_p * z * e)

    # -- one bin ------------------------------------------------------------------
    def bin_contribution(self, zl: arb, zu: arb, y: arb, minus: bool, order: int):
        """Enclosure of ``int_{zl}^{zu} f_Z(z) G(z) dz`` and the method used.

        ``G = 1 - F_W(w*(., y))`` if ``minus`` else ``F_W(w*(., y))``.
        """
        zball = _union(zl, zu)
        mass = None
        if self.c1_is_zero and zl > 0:
            return self._bin_explicit(zl, zu, zball, y, minus, order)
        if not (zl > 0):
            if self.exact_zero_bin:
                return self._bin_at_zero(zu, y, minus)
            return arb(0).union(self._mass(zl, zu)), "monotone"
        gl = self.wstar_guess(zl, float(y.mid()))
        gu = self.wstar_guess(zu, float(y.mid()))
        # constant bins
        if gl[2] == 0.0 and gu[2] == 0.0 and self.phi_on_bin(zball, arb(1)) > y:
            mass = self._mass(zl, zu)
            return (arb(0) if minus else mass), "constant"
        if gl[1] == 0.0 and gu[1] == 0.0 and self.phi_minus_one(zball) < y:
            mass = self._mass(zl, zu)
            return (mass if minus else arb(0)), "constant"
        # Taylor model where w* is interior on the whole bin
        taylor = None
        if min(gl[1], gl[2], gu[1], gu[2]) > 0.0:
            taylor = self._taylor_bin(zl, zu, y, minus, order, gl, gu)
            # accept without the monotone comparison only when negligible against the bin's mass *and*
            # against the model's own value: where G = F_W(w*) is itself tiny (1 + w* ~ 1e-9 at
            # T = 10, eps = 50, G ~ 1e-40 of the mass) a remainder of 1e-31 of the mass can be 1e9 times
            # the value, far worse than the first-order enclosure (sgg T=10 alpha=4 p=3/2 at
            # (50, 1e-300): the children touching z_s got such models and the total width grew when
            # they were split, until the stall test ended the pass on every rung)
            if (taylor is not None and taylor.rad() < arb("1e-30") * self._mass(zl, zu)
                    and taylor.rad() < arb("1e-6") * abs(taylor.mid())):
                return taylor, "taylor"
        # the A-side transition of a log-singular loss (r << s, c1 < 0): Phi depends on w only through
        # ~2 |c1| r / s there (1e-35 at eps = 20, c1 = -1/8), below the float Phi's resolution, so the
        # float guesses above did not see that w* is clamped; decide the constant classes in Arb alone
        if self.a_side_transition(zl, zu):
            if self.phi_on_bin(zball, arb(1)) > y:
                mass = self._mass(zl, zu)
                return (arb(0) if minus else mass), "constant"
            if self.phi_minus_one(zball) < y:
                mass = self._mass(zl, zu)
                return (mass if minus else arb(0)), "constant"
        # monotone (first-order) enclosure
        wl, wu = self.w_bracket(zball, y, min(gl, gu), max(gl, gu))
        mass = self._mass(zl, zu)
        g = self._g_hull(wl, wu, minus)
        mono = mass * g
        if taylor is not None:
            # both are valid enclosures of the same number: keep the better one
            if taylor.rad() < mono.rad():
                return taylor, "taylor"
        return mono, "monotone"

    #: ``r / s`` below which the w-dependence of ``Phi`` (``~ 4 |c1| r / s`` over ``w in [-1, 1]``) is below the
    #: float resolution of ``Phi ~ eps``: the A-side transition of a log-singular loss
    A_SIDE_RATIO = 2.0 ** -40

    def a_side_transition(self, zl: arb, zu: arb) -> bool:
        """Is the bin ``[zl, zu]`` at ``r_u / s < 2^-40`` of a log-singular loss (``c1 < 0``)?  There ``w*`` jumps
        from -1 to 1 over a relative width ``~ 2 r / s`` of ``r`` (``r ~ s e^(-eps / (2 |c1|))``: 1e-35 at
        eps = 20, ``c1 = -1/8``), far below the double spacing.  A routing test only (the constant classes are
        then decided in Arb, and the bin holding the jump may be halved below the double spacing)."""
        if self.c1_is_zero or not (self.s > 0) or not (zu > 0):
            return False
        ru = zu ** (1 / self.p) if not self._p_is_one() else zu
        return bool(ru < arb(self.A_SIDE_RATIO) * self.s)

    def _bin_at_zero(self, zu: arb, y: arb, minus: bool):
        """The bin ``[0, zu]`` (``r`` down to 0, where ``s / r`` is unbounded): constant when certified.

        Bounds of ``Phi(r, w)`` over ``0 < r <= r_u = zu^(1/p)`` and all ``w`` (``Phi`` decreases in ``w``):

        * ``c1 = 0``: ``Phi = z - q^(p/2)`` with ``(r - s)^2 <= q <= (r + s)^2``, so
          ``Phi >= r^p - (r + s)^p >= -(r_u + s)^p`` and ``Phi <= r^p - (s - r)^p <= zu - (s - r_u)^p``
          (``r_u < s``; the map is increasing in ``r``), else ``Phi <= z <= zu``;
        * ``c1 < 0``, ``r_u < s / 2``: ``Phi(r, -1) = 2 c1 ln(s/r - 1) - ((s - r)^p - r^p)`` and
          ``(s - r)^p >= (s/2)^p >= r^p``, so ``Phi <= 2 c1 ln(s/r_u - 1)`` (``ln`` decreases in ``r``).

        If the lower bound is ``> y`` then ``w* = 1`` on the bin, if the upper bound is ``< y`` then
        ``w* = -1``: the contribution is the bin's mass times ``G`` in ``{0, 1}`` (exact 0 or the mass).
        Otherwise ``[0, mass]``.  Without this, the first bin's ``[0, mass]`` was a floor on the width
        (k = 1: mass ~ zu, e.g. ``(1 + e^50) 8e-322 ~ 4e-300`` at the smallest double ``zu``).
        """
        mass = self._mass(arb(0), zu)
        s = self.s
        ru = zu if self._p_is_one() else zu ** (1 / self.p)
        lo = hi = None
        if self.c1_is_zero:
            lo = -((ru + s) ** self.p)
            hi = zu - (s - ru) ** self.p if ru < s else zu
        elif ru < s / 2:
            hi = 2 * self.c1 * (s / ru - 1).log()
        if lo is not None and _finite(lo) and lo > y:          # w* = 1: G = F_W(1) = 1 (B) or 0 (A)
            return (arb(0) if minus else mass), "constant"
        if hi is not None and _finite(hi) and hi < y:          # w* = -1: G = 0 (B) or 1 (A)
            return (mass if minus else arb(0)), "constant"
        return arb(0).union(mass), "monotone"

    def _bin_explicit(self, zl, zu, zball, y, minus, order):
        """One bin for ``c1 = 0`` with the closed-form threshold (:meth:`w_explicit`)."""
        mass = self._mass(zl, zu)

        def const(w_is_plus_one: bool):
            # G = F_W(w*) (or 1 - F_W) with F_W(1) = 1, F_W(-1) = 0
            one = w_is_plus_one != minus
            return (mass if one else arb(0)), "constant"

        if self._p_is_two() or (self._p_is_one() and (y <= 0 or self.s >= y)):
            # p = 1, 2: w_e is a monotone function of z on all of z > 0, and clamp(w_e) = w* there:
            # for z <= y (y > 0), p = 2: 2 s sqrt z <= 2 s sqrt y <= y + s^2 (AM-GM) gives w_e <= -1;
            # p = 1: w_e <= -1 iff 2 z (s - y) <= s^2 - y^2, true for z <= y when s >= y (certified;
            # for s < y it fails, and the generic branch below handles z <= y).  So the hull of the
            # two end values is exact -- no dependency, and no special point at z = y
            wb = _union(self.w_explicit(zl, y), self.w_explicit(zu, y))
            return self._bin_explicit_tail(zl, zu, zball, y, minus, order, mass, wb, const, True)
        if y > 0 and zu <= y:
            return const(False)                   # z <= y: Phi <= z <= y, w* = -1
        cap = eb = None
        if self.p < 1:
            # the bounded loss: end distances from factored hulls (no cancellation next to the cusp)
            eb = self._end_distance_bounds(zl, zu, y, p_from_zero=not (zl > y))
            if eb is not None:
                if eb[1].upper() <= 0:
                    return const(False)           # 1 + w_e <= 0 on the bin (z > y; w* = -1 for z <= y)
                if eb[3].upper() <= 0 and zl > y:
                    return const(True)            # 1 - w_e <= 0: w* = +1
                cap = self._end_cap(eb, minus)
        wb = self._w_explicit_on_bin(zball, y, zl, zu) if zl > y else None
        return self._bin_explicit_tail(zl, zu, zball, y, minus, order, mass, wb, const, zl > y, g_cap=cap,
                                       ends=eb if (self.p < 1 and zl > y) else None)

    def _w_explicit_on_bin(self, zball: arb, y: arb, zl: arb | None = None, zu: arb | None = None) -> arb:
        """``w_e(z)`` for all ``z`` in ``zball`` (``z > y``), by a second-order Taylor form.

        ``w_e(z_m + t) = w_e(z_m) + w_e'(z_m) t + w_e''(xi)/2 t^2`` with ``xi`` in the ball (Lagrange
        remainder; the last coefficient from a length-3 series on the whole ball, ``t^2`` in
        ``[0, h^2]``), intersected with the direct evaluation.  The direct form cancels badly where
        ``w_e`` is close to ``-1`` (``(z - y)^(2/p) - z^(2/p)`` against ``s^2``; e.g. near the pure-DP
        boundary of ``p < 1``, where the whole mass of delta sits at ``1 + w* ~ 1e-7``): it returned
        ``[-1 +/- 4e-4]`` for ``w_e`` in ``[-1 + 3.6e-7, -1 + 3.1e-7]``, so no Taylor model was tried.
        """
        direct = self.w_explicit(zball, y)
        if zball.rad() == 0:
            return direct
        if self.p < 1 and zl is not None:
            # from the exact edges (the union ball's bounds overshoot them by its 30-bit radius: at a
            # sub-double bin next to the cusp sliver that put the far end inside the sliver)
            eb = self._end_distance_bounds(zl, zu, y)
            hull = None if eb is None else _union(eb[0] - 1, eb[1] - 1)
            if hull is not None:
                try:
                    direct = direct.intersection(hull) if _finite(direct) else hull
                except ValueError:
                    direct = hull
        zm, h = zball.mid(), zball.rad()
        old_cap = ctx.cap
        ctx.cap = 3
        try:
            cm = self.w_explicit(arb_series([zm, 1]), y).coeffs() + [arb(0)] * 3
            cb = self.w_explicit(arb_series([zball, 1]), y).coeffs() + [arb(0)] * 3
        except (ValueError, ZeroDivisionError):
            return direct
        finally:
            ctx.cap = old_cap
        form = cm[0] + cm[1] * arb(0, h) + cb[2] * arb(0).union(h * h)
        if not _finite(form):
            return direct
        if not _finite(direct):
            return form
        try:
            return form.intersection(direct)
        except ValueError:
            return form

    def _end_distance_bounds(self, zl: arb, zu: arb, y: arb, p_from_zero: bool = False):
        """Bounds of the end distances ``v = 1 + w_e`` and ``u = 1 - w_e`` over ``[zl, zu]`` (``zl >= y``,
        ``zl > 0``): ``(v_lo, v_hi, u_lo, u_hi)``, arb values whose ``lower()`` (``_lo``) / ``upper()``
        (``_hi``) are the bounds; ``None`` if ``zl >= y`` is not certified (unless ``p_from_zero``: then the
        bounds hold for the ``z > y`` of the bin, with ``(z - y)^(2/p)`` in ``[0, P(zu)]``; the caller has
        ``w* = -1`` for ``z <= y``).

        ``v = (P - Q) / D``, ``u = (Q' - P) / D`` with ``P = (z - y)^(2/p)`` (increasing), ``Q = (r - s)^2``
        (monotone on each side of ``z_s = s^p``, 0 there), ``Q' = (r + s)^2`` and ``D = 2 s r`` (increasing),
        ``r = z^(1/p)``: each factor is enclosed by its exact hull over the bin from its values at the two
        ends (interval arithmetic: guaranteed), so there is no dependency between ``z^(2/p)``, ``s^2`` and
        ``2 s z^(1/p)``, which cancel to ``-(r - s)^2`` (the direct ball form of ``w_e`` on ``[1, 1 + 9e-16]``
        at T = 3, p = 1/2, eps = 1 next to the pure-DP boundary was ``-1 +- 1.8e-15`` where ``v <= -7e-28``).
        The bounds are kept as separate balls: a ball spanning ``[v_lo, v_hi]`` overshoots ``v_hi`` by its
        30-bit radius, and next to the cusp sliver ``|v_lo| >> |v_hi|``.  Used for ``p < 1`` (the bounded
        loss)."""
        if not (zl > 0) or not (zu >= zl) or not (zu > y):
            return None
        if not p_from_zero and not (zl >= y):
            return None
        two_p, inv_p = 2 / self.p, 1 / self.p
        d_lo = zl - y
        p_lo = arb(0) if (p_from_zero or not (d_lo > 0)) else d_lo ** two_p
        p_hi = (zu - y) ** two_p
        r_lo, r_hi = zl ** inv_p, zu ** inv_p
        q_l, q_u = (r_lo - self.s) ** 2, (r_hi - self.s) ** 2
        if r_hi <= self.s:
            q_min, q_max = q_u, q_l
        elif r_lo >= self.s:
            q_min, q_max = q_l, q_u
        else:
            q_min, q_max = arb(0), _union(q_l, q_u)
        d_lo_, d_hi_ = 2 * self.s * r_lo, 2 * self.s * r_hi

        def quot(num):      # num / D for every D in [d_lo_, d_hi_] (both ends: the sign of num may be unknown)
            return _union(num / d_lo_, num / d_hi_)

        v_lo = quot(p_lo - arb(q_max.upper()))
        v_hi = quot(p_hi - arb(q_min.lower()))
        qp_lo, qp_hi = (r_lo + self.s) ** 2, (r_hi + self.s) ** 2
        u_lo = quot(qp_lo - arb(p_hi.upper()))
        u_hi = quot(qp_hi - arb(p_lo.lower()))
        if not all(_finite(x) for x in (v_lo, v_hi, u_lo, u_hi)):
            return None
        if not p_from_zero and zu > zl:
            # where v (or u) is certified monotone on the bin (the sign of its derivative on the whole ball,
            # a length-2 series), its exact range is the hull of the two end values: the hulls above
            # decorrelate P and Q, which grow together (next to the ends of the cusp sliver the bin beyond
            # a root was not certified w* = -1 until it was ~1e-10 wide)
            old_cap = ctx.cap
            ctx.cap = 2
            try:
                zsb = arb_series([_union(zl, zu), 1])
                for idx, minus in ((0, False), (2, True)):
                    c = self._end_distance_series(zsb, y, minus).coeffs()
                    if len(c) < 2 or not _finite(c[1]) or not (c[1] > 0 or c[1] < 0):
                        continue
                    el, eu = self._end_distance_series(zl, y, minus), self._end_distance_series(zu, y, minus)
                    lo_e, hi_e = (el, eu) if c[1] > 0 else (eu, el)
                    if idx == 0:
                        v_lo = lo_e if lo_e.lower() > v_lo.lower() else v_lo
                        v_hi = hi_e if hi_e.upper() < v_hi.upper() else v_hi
                    else:
                        u_lo = lo_e if lo_e.lower() > u_lo.lower() else u_lo
                        u_hi = hi_e if hi_e.upper() < u_hi.upper() else u_hi
            except (ValueError, ZeroDivisionError):
                pass
            finally:
                ctx.cap = old_cap
        return v_lo, v_hi, u_lo, u_hi

    def _end_cap(self, bounds, minus: bool):
        """Upper bound of ``G`` on the bin from :meth:`_end_distance_bounds`: ``G = F_W(w*) <= F_W(-1 +
        max(v_hi, 0)) = I_{max(v_hi,0)/2}(a, a)`` (B side) and ``G = F_W(-w*) <= I_{max(u_hi,0)/2}(a, a)``
        (A side), formed from the end distance itself (``-1 + v`` as a ball loses ``v`` below the ulp)."""
        dist = bounds[3] if minus else bounds[1]
        top = dist.upper()
        if not (top < 2):
            return None
        if not (top > 0):
            return arb(0)
        return (arb(top) / 2).beta_lower(self.a_w, self.a_w, regularized=1)

    def _bin_explicit_tail(self, zl, zu, zball, y, minus, order, mass, wb, const, above_y, g_cap=None,
                           ends=None):
        if wb is not None and _finite(wb):
            if wb <= -1:
                return const(False)
            if wb >= 1:
                return const(True)
        taylor = None
        if wb is not None and _finite(wb) and wb > -1 and wb < 1:
            taylor = self._taylor_bin_explicit(zl, zu, zball, y, minus, order, wb)
        if ends is not None and above_y:
            # p < 1: G small next to the end w* hugs (B: w* ~ -1 in the cusp sliver; A: w* ~ +1): a Taylor
            # model carried by the end distance itself (the w-form has lost it below the ulp of w)
            d_lo, d_hi = (ends[2], ends[3]) if minus else (ends[0], ends[1])
            if d_lo.lower() > 0 and d_hi.upper() < 1:
                cusp = self._taylor_bin_cusp(zl, zu, y, minus, order, d_lo, d_hi)
                if cusp is not None and (taylor is None or cusp.rad() < taylor.rad()):
                    taylor = cusp
        # monotone enclosure: w* in [max(-1, lo w_e), min(1, hi w_e)] (w* = -1 where z <= y)
        if wb is not None and _finite(wb):
            wl = arb(-1) if (wb.lower() < -1 or not above_y) else wb.lower()
            wu = arb(1) if wb.upper() > 1 else wb.upper()
            if wu < -1:
                wu = arb(-1)
        else:
            # the bin meets z = y (y > 0): w* = -1 for z <= y; on (y, zu] enclose w_e with
            # (z - y)^(2/p) in [0, (zu - y)^(2/p)] (the power is increasing)
            wl, wu = arb(-1), arb(1)
            if y > 0 and zu > y:
                zr = _union(y, zu)
                top = (zu - y) ** (2 / self.p) if zu > y else arb(0)
                num = arb(0).union(top) - zr ** (2 / self.p) - self.s * self.s
                wu_b = num / (2 * self.s * zr ** (1 / self.p))
                if self.p < 1:
                    # on (y, zu]: P = (z - y)^(2/p) in [0, P(zu)]; Q, D hulls over [max(zl, y_lo), zu]
                    z_lo = arb(y.lower()) if y.lower() > zl else zl
                    eb = self._end_distance_bounds(z_lo, zu, y, p_from_zero=True)
                    if eb is not None and (not _finite(wu_b) or (eb[1].upper() - 1) < wu_b.upper()):
                        wu_b = arb(eb[1].upper()) - 1
                if _finite(wu_b) and wu_b.upper() < 1:
                    wu = arb(-1) if wu_b.upper() < -1 else wu_b.upper()
        g = self._g_hull(wl, wu, minus)
        if g_cap is not None and _finite(g_cap) and g_cap.upper() < g.upper():
            # G in [0, cap] (p < 1: :meth:`_end_cap`); G >= 0 always
            g = arb(0).union(arb(g_cap.upper())) if not (g.lower() > 0) else _union(arb(g.lower()), arb(g_cap.upper()))
        mono = mass * g
        if wb is not None and _finite(wb) and wb.lower() < -1 < wb.upper() and above_y:
            cut = self._explicit_end_cut(zl, zu, zball, y, minus, mass)
            if cut is not None and cut.rad() < mono.rad():
                mono = cut
        if taylor is not None and taylor.rad() < mono.rad():
            return taylor, "taylor"
        return mono, "monotone"

    def _explicit_end_cut(self, zl, zu, zball, y, minus, mass):
        """A bin holding the point ``z0`` where ``w_e`` crosses ``-1``, located below the double grid.

        Bin edges are doubles; next to the pure-DP boundary (p < 1) ``1 + w_e`` grows by ~1e-22 per
        double step, so the bin of one ulp holding ``z0`` left ``G in [0, G(zu)]`` on its whole mass
        and the width stopped at the double resolution.  Here ``w_e`` is certified monotone on the bin
        (the sign of ``w_e'`` on the ball, a length-2 series), ``z0`` is bracketed by bisection on
        *arb* points (``w_e(a) < -1 < w_e(b)``), so ``w* = -1`` on the side of ``a`` and the interior
        part lies in an interval of length ``len <= zu - a`` (or ``b - zl``).  With ``f_max`` the Gamma
        density bounded on the ball and ``G_max = F_W(max w_e)``, the contribution is in
        ``[0, f_max len G_max]`` (B side; ``G = F_W(w*)``) or ``mass - [0, f_max len G_max]`` (A side,
        ``G = 1 - F_W(w*) = 1`` where ``w* = -1``).  ``None`` when monotonicity is not certified.
        """
        old_cap = ctx.cap
        ctx.cap = 2
        try:
            d = self.w_explicit(arb_series([zball, 1]), y).coeffs()
        except (ValueError, ZeroDivisionError):
            return None
        finally:
            ctx.cap = old_cap
        if len(d) < 2 or not _finite(d[1]):
            return None
        if d[1] > 0:
            increasing = True
        elif d[1] < 0:
            increasing = False
        else:
            return None
        lo, hi = (zl, zu) if increasing else (zu, zl)     # w_e(lo) < -1 side ... w_e(hi) > -1 side
        w_lo, w_hi = self.w_explicit(lo, y), self.w_explicit(hi, y)
        if not (w_lo < -1 and w_hi > -1):
            return None
        a, b = lo, hi
        for _ in range(64):
            m = ((a + b) / 2).mid()
            wm = self.w_explicit(m, y)
            if wm < -1:
                a = m
            elif wm > -1:
                b = m
            else:
                break
        if self.T == 3 and not minus:
            # T = 3: F_W(w) = (1 + w)/2 is a polynomial, so G continues analytically past z0: a Taylor
            # model of f_Z (1 + w_e)/2 on the interior part [a, hi] (exact arb end a), minus the
            # continued integrand on [a, z0] (between (1 + w_e(a))/2 < 0 and 0, over a length <= |b - a|)
            seg_l, seg_u = (a, hi) if increasing else (hi, a)
            tay = self._taylor_t3_segment(seg_l, seg_u, y)
            if tay is not None:
                gap = abs(b - a).upper()
                part = _union(a, b)
                dens = ((self.k - 1) * part.log() - part - self.lgamma_k).exp()
                corr = dens.upper() * gap * abs(1 + self.w_explicit(a, y)).upper() / 2
                if _finite(corr):
                    return tay + arb(0).union(corr)
        length = abs(hi - a).upper()
        part = _union(a, hi)
        dens = ((self.k - 1) * part.log() - part - self.lgamma_k).exp()
        g_max = fw_cdf(_union(arb(-1), w_hi.upper() if w_hi < 1 else arb(1)), self.a_w).upper()
        bound = dens.upper() * length * g_max
        if not _finite(bound):
            return None
        if minus:
            return mass - arb(0).union(bound)
        return arb(0).union(bound)

    def _end_distance_series(self, zs, y: arb, minus: bool):
        """``v = 1 + w_e = (P - (r - s)^2) / (2 s r)`` (``minus`` False) or ``u = 1 - w_e = ((r + s)^2 - P) /
        (2 s r)`` on an arb series (or ball) ``zs``, ``P = (z - y)^(2/p)``, ``r = z^(1/p)``: the factored forms
        (no cancellation of ``z^(2/p)``, ``s^2`` and ``2 s r``).  Requires ``z > y``."""
        two_p, inv_p, s = 2 / self.p, 1 / self.p, self.s
        big_p = ((zs - y).log() * two_p).exp()
        r = (zs.log() * inv_p).exp()
        if minus:
            num = (r + s) * (r + s) - big_p
        else:
            rs = r - s
            num = big_p - rs * rs
        return num / (2 * s * r)

    def _taylor_bin_cusp(self, zl, zu, y, minus, n, d_lo, d_hi):
        """Taylor model of ``int f_Z G`` on a bin where ``G = I_{d/2}(a, a)`` with the end distance ``d``
        (B side: ``d = v = 1 + w_e``, ``G = F_W(-1 + v)``; A side: ``d = u = 1 - w_e``, ``G = F_W(-w*) =
        F_W(-1 + u)``), certified ``0 < d_lo <= d <= d_hi < 1`` on the whole bin (so ``w*`` is not clamped
        there).  ``v = (P - (r - s)^2) / (2 s r)``, ``u = ((r + s)^2 - P) / (2 s r)``, ``P = (z - y)^(2/p)``,
        as series: in the cusp sliver of p < 1 ``v ~ (z_s/eps - 1)^4`` (1e-172 at delta = 1e-300) is far
        below the ulp of ``w ~ -1``, so the w-form (:meth:`_taylor_bin_explicit`) had no digit of ``G``.
        ``F_W(-1 + d)`` is the series of ``c_w (d (2 - d))^((T-3)/2) d'`` integrated, its constant term
        ``I_{d/2}`` directly; the remainder comes from the same series on the whole bin with the constant
        term of ``d`` replaced by its certified hull ``[d_lo, d_hi]`` (Lagrange remainder, as in
        :meth:`_taylor_bin_explicit`).  ``None`` where a series meets a non-positive ball."""
        half, zm = _exact_half_and_centre(zl, zu)
        if half.rad() != 0 or zm.rad() != 0:
            return None
        zball = _union(zl, zu)
        two_p, inv_p, s = 2 / self.p, 1 / self.p, self.s

        def dist_series(zs):
            return self._end_distance_series(zs, y, minus)

        def g_series(ds, d0):
            dens = arb_series([self.c_w])
            if self.e_w != 0:
                dens = self.c_w * (self.e_w * (ds.log() + (2 - ds).log())).exp()
            c = (dens * ds.derivative()).integral().coeffs() or [arb(0)]
            c[0] = (d0 / 2).beta_lower(self.a_w, self.a_w, regularized=1)
            return arb_series(c)

        old_cap = ctx.cap
        ctx.cap = n + 1
        try:
            zs = arb_series([zm, 1])
            ds = dist_series(zs)
            d0 = ds.coeffs()[0]
            if not (d0 > 0 and d0 < 1):
                return None
            h_mid = (self._density_series(zs) * g_series(ds, d0)).coeffs()
            zsb = arb_series([zball, 1])
            c = dist_series(zsb).coeffs()
            c[0] = _union(arb(d_lo.lower()), arb(d_hi.upper()))
            dsb = arb_series(c)
            h_b = (self._density_series(zsb) * g_series(dsb, c[0])).coeffs()
        except (ValueError, ZeroDivisionError):
            return None
        finally:
            ctx.cap = old_cap
        return _integrate_taylor(h_mid, h_b, half, n)

    def _taylor_t3_segment(self, zl, zu, y, n: int = DEFAULT_ORDER):
        """``int_zl^zu f_Z(z) (1 + w_e(z))/2 dz`` by a Taylor model (T = 3: ``F_W(w) = (1 + w)/2``, no
        clamping: the caller accounts for the part where ``w_e < -1``); ends are exact arb points."""
        half, zm = _exact_half_and_centre(zl, zu)
        if half.rad() != 0 or zm.rad() != 0:
            return None
        zball = _union(zl, zu)
        old_cap = ctx.cap
        ctx.cap = n + 1
        try:
            zs = arb_series([zm, 1])
            h_mid = (self._density_series(zs) * (self.w_explicit(zs, y) + 1) / 2).coeffs()
            zsb = arb_series([zball, 1])
            h_b = (self._density_series(zsb) * (self.w_explicit(zsb, y) + 1) / 2).coeffs()
        except (ValueError, ZeroDivisionError):
            return None
        finally:
            ctx.cap = old_cap
        return _integrate_taylor(h_mid, h_b, half, n)

    def _taylor_bin_explicit(self, zl, zu, zball, y, minus, n, wball):
        half, zm = _exact_half_and_centre(zl, zu)
        old_cap = ctx.cap
        ctx.cap = n + 1
        try:
            zs = arb_series([zm, 1])
            ws = self.w_explicit(zs, y)
            w0 = ws.coeffs()[0]
            if not (w0 > -1 and w0 < 1):
                return None
            g_mid = self._g_series(ws, w0, minus)
            h_mid = (self._density_series(zs) * g_mid).coeffs()
            zsb = arb_series([zball, 1])
            wsb = self.w_explicit(zsb, y)
            g_b = self._g_series(wsb, wball, minus)
            h_b = (self._density_series(zsb) * g_b).coeffs()
        except (ValueError, ZeroDivisionError):
            return None
        finally:
            ctx.cap = old_cap
        return _integrate_taylor(h_mid, h_b, half, n)

    def _mass(self, zl: arb, zu: arb) -> arb:
        """Gamma(k, 1) mass of ``[zl, zu]``.  Arb's regularized incomplete gamma can return a
        useless ball at low working precision for large ``k`` (e.g. ``P(128, 86)`` at 64 bits is
        ``[+/- 1e17]``): a mass that is not accurate to the working precision is recomputed with
        more bits (any enclosure is valid; only its width matters)."""
        old = ctx.prec
        target = arb(2) ** (16 - old)
        m = None
        try:
            for extra in (0, 64, 192, 448):
                ctx.prec = old + extra
                m = self._mass_at(zl, zu)
                if _finite(m) and (m.rad() <= target * abs(m.mid()) or m.upper() <= 0):
                    break
        finally:
            ctx.prec = old
        return m

    def _mass_at(self, zl: arb, zu: arb) -> arb:
        # for large z use the upper function to avoid cancellation
        if zl == 0:
            return self._incomplete(zu, False)
        if zl > self.k:
            return self._incomplete(zl, True) - self._incomplete(zu, True)
        return self._incomplete(zu, False) - self._incomplete(zl, False)

    def _lower_by_complement(self, z: arb) -> int | None:
        """Extra bits with which ``P(k, z)`` is taken as ``1 - Q(k, z)``, or ``None`` (use Arb's lower function).

        For a large non-integer ``k`` (>= 16) Arb's lower function is slow or useless at working
        precision: near ``z ~ k`` it took 0.5 s at 128 bits and 2.5 s at 256 bits for ``k = 250.25``;
        at ``z = 124`` it returned ``[+/- 8.7e5]`` at 64 bits (so ``_mass`` retried at up to 512 bits,
        ~3 ms a call), while the upper function takes 15-50 us.  ``1 - Q`` loses ``-log2 P`` bits, so
        ``Q`` is computed with that many more (``P`` estimated in floats by SciPy: a guess of the cost
        only; the result is a valid enclosure whatever the estimate, and ``_mass`` re-checks its width).
        ``None`` where ``P < 2^-600`` (the complement would need too many bits) or ``k < 16``."""
        kf = self._k_float
        if kf < 16.0:
            return None
        zf = float(z.mid())
        if zf >= kf - 3.0 * math.sqrt(kf):
            return 8
        from scipy.special import gammainc

        p_float = float(gammainc(kf, zf)) if zf > 0 else 0.0
        if not p_float > 2.0 ** -600:
            return None
        return int(-math.log2(p_float)) + 16

    def _incomplete(self, z: arb, upper: bool) -> arb:
        """``Q(k, z)`` (``upper``) or ``P(k, z)`` at the current precision, cached per bin edge
        (neighbouring bins and the A / B sides share edges; Arb's incomplete gamma is the costly
        part of a bin for large ``k``)."""
        key = (_edge_key(z), upper, ctx.prec)
        val = self._gamma_cache.get(key)
        if val is None or z.rad() != 0:
            if self.k_int is not None and z >= 0:
                val = _integer_shape_incomplete(z, self.k_int, upper)
            elif not upper and (extra := self._lower_by_complement(z)) is not None:
                old = ctx.prec
                try:
                    ctx.prec = old + extra
                    val = 1 - z.gamma_upper(self.k, regularized=1)
                finally:
                    ctx.prec = old
                val = +val     # rounded to the working precision (still an enclosure)
            elif not upper and self._k_float >= 16.0 and z > 0 \
                    and float(z.upper()) < self._k_float - 3.0 * math.sqrt(self._k_float):
                val = _lower_gamma_series(z, self.k)    # P < 2^-600: no complement (see the function)
            else:
                val = z.gamma_upper(self.k, regularized=1) if upper else z.gamma_lower(self.k, regularized=1)
            if z.rad() == 0:
                self._gamma_cache[key] = val
        return val

    def _taylor_bin(self, zl, zu, y, minus, n, wfl, wfu):
        # bin edges are doubles: centre and half-width are computed exactly (no rounding), so the
        # symmetric Taylor integral over [zm - half, zm + half] is exactly the bin
        half, zm = _exact_half_and_centre(zl, zu)
        assert half.rad() == 0 and zm.rad() == 0
        zball = _union(zl, zu)
        gmid = self.wstar_guess(zm, float(y.mid()))
        w0 = self.certified_point_wstar(zm, y, gmid)
        if w0 is None:
            return None
        old_cap = ctx.cap
        ctx.cap = n + 1
        try:
            return self._taylor_bin_inner(zl, zu, zm, half, zball, y, minus, n, wfl, wfu, w0)
        except (ValueError, ZeroDivisionError):
            return None     # a series division met a ball containing 0: not decided here
        finally:
            ctx.cap = old_cap

    def _taylor_bin_inner(self, zl, zu, zm, half, zball, y, minus, n, wfl, wfu, w0):
        zs = arb_series([zm, 1])
        ws = self._wstar_series(zs, w0, y, n)
        wc = ws.coeffs()
        # predicted range of w* on the bin from the midpoint expansion
        # |w_j| half^j formed in Arb: for bins at tiny z (R1SMG, r ~ s ~ 1e-13) the coefficients are
        # ~ z^-j and half^j ~ z^j, each far outside the double range (their float product was nan)
        spread, hp = 0.0, arb(1)
        for c in wc[1:]:
            hp = hp * half
            spread += float(abs(c.mid() * hp).mid())
        if not math.isfinite(spread):
            return None
        # guesses of the range as distances to the ends (``wfl``, ``wfu`` are wstar_guess triples):
        # where w* hugs -1 the padding is relative to 1 + w*, not absolute
        vm0, vp0 = float((1 + w0).mid()), float((1 - w0).mid())
        vm_lo = min(vm0 - 1.5 * spread - 1e-14 * min(vm0, 1.0), wfl[1], wfu[1])
        vp_hi = min(vp0 - 1.5 * spread - 1e-14 * min(vp0, 1.0), wfl[2], wfu[2])
        if vm_lo <= 0.0 or vp_hi <= 0.0:
            return None
        # each guess is carried by the distance to the end w* hugs: the far-end distance 2 - v rounds to
        # 2.0 once v < 1e-16 (T = 2 at eps = 20: 1 + w* ~ 1e-18), and the upper guess rebuilt from it had
        # 1 + w = 0, so no upper bracket was certified and every bin of the layer fell back to first order
        if vm0 <= vp0:
            vm_hi = max(vm0 + 1.5 * spread + 1e-14 * min(vm0, 1.0), wfl[1], wfu[1])
            lo_g = (-1.0 + vm_lo, vm_lo, 2.0 - vm_lo)
            hi_g = (-1.0 + vm_hi, vm_hi, 2.0 - vm_hi) if vm_hi < 1.0 else (1.0 - vp_hi, 2.0 - vp_hi, vp_hi)
        else:
            vp_lo = max(vp0 + 1.5 * spread + 1e-14 * min(vp0, 1.0), wfl[2], wfu[2])
            hi_g = (1.0 - vp_hi, 2.0 - vp_hi, vp_hi)
            lo_g = (1.0 - vp_lo, 2.0 - vp_lo, vp_lo) if vp_lo < 1.0 else (-1.0 + vm_lo, vm_lo, 2.0 - vm_lo)
        wl, wu = self.w_bracket(zball, y, lo_g, hi_g)
        if not (wl > -1 and wu < 1):
            return None
        wball = _union(wl, wu)
        if float((wu - wl).mid()) > 0.25:
            return None
        # series at the midpoint: exact-ish coefficients a_0..a_{n-1}
        g_mid = self._g_series(ws, w0, minus)
        h_mid = (self._density_series(zs) * g_mid).coeffs()
        # series on the whole bin: enclosure of h^(n)(xi)/n!
        zsb = arb_series([zball, 1])
        wsb = self._wstar_series_ball(zsb, wball, n)
        g_b = self._g_series(wsb, wball, minus)
        h_b = (self._density_series(zsb) * g_b).coeffs()
        return _integrate_taylor(h_mid, h_b, half, n)


def _integer_shape_incomplete(z: arb, k: int, upper: bool) -> arb:
    """``Q(k, z)`` or ``P(k, z)`` for an integer shape ``k`` and ``z >= 0``, by sums of positive terms.

    ``Q(k, z) = e^-z sum_{j<k} z^j / j!`` (finite).  ``P(k, z) = e^-z sum_{j>=k} z^j / j!`` for
    ``z < k``, truncated once the term ratio ``r = z / (j+1)`` is below 1/2 and the term below
    ``2^-(prec+16)`` of the sum, with the rest bounded by ``t r / (1 - r)`` (the ratios decrease);
    for ``z >= k``, ``P = 1 - Q`` (then ``Q <= 1/2``-ish, no cancellation).  Orders of magnitude
    faster than the general incomplete gamma for ``k`` in the hundreds, and accurate at 64 bits.
    """
    ez = (-z).exp()
    if upper or z >= k:
        term = arb(1)
        total = arb(1)
        for j in range(1, k):
            term = term * z / j
            total = total + term
        q = ez * total
        if upper:
            return q
        return 1 - q
    term = ez
    for j in range(1, k + 1):
        term = term * z / j                 # e^-z z^k / k! after the loop
    total = term
    eps = arb(2) ** (-(ctx.prec + 16))
    j = k
    while True:
        j += 1
        term = term * z / j
        total = total + term
        r = z / (j + 1)
        if r < arb(0.5) and term < eps * total:
            tail = term * r / (1 - r)
            return total + arb(0).union(tail.upper())
        if j > k + 100000:                   # not reached for z < k
            return z.gamma_lower(arb(k), regularized=1)


def _integrate_taylor(h_mid, h_b, half, n):
    """``int_{-half}^{half} h(z_m + t) dt`` from the Taylor coefficients at the centre
    (orders ``< n``) and the order-``n`` coefficient enclosed on the whole bin (Lagrange remainder)."""
    if len(h_b) < n + 1:
        h_b = h_b + [arb(0)] * (n + 1 - len(h_b))
    if len(h_mid) < n:
        h_mid = h_mid + [arb(0)] * (n - len(h_mid))
    total = arb(0)
    hp = half  # half^(j+1)
    for j in range(n):
        if j % 2 == 0:
            total += h_mid[j] * 2 * hp / (j + 1)
        hp = hp * half
    # hp == half^(n+1)
    rem = h_b[n]
    if not _finite(rem):
        return None
    bound = abs(rem).upper() * 2 * hp / (n + 1)
    total = total + arb(0, bound)
    if not _finite(total):
        return None
    return total


def _exact_fraction(x):
    """``x`` as an exact ``Fraction`` when it is one (int, Fraction, exact arb point), else ``None``."""
    from fractions import Fraction

    if isinstance(x, bool):
        return None
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, str):
        try:
            return Fraction(x)
        except ValueError:
            return None
    if isinstance(x, arb) and x.is_finite() and x.rad() == 0:
        m, e = x.mid().man_exp()
        m, e = int(m), int(e)
        return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** -e)
    return None


def pure_dp_decision(dimension, alpha, power, rate, epsilon, sensitivity) -> bool | None:
    """Is ``delta(eps) = 0`` exactly, because the privacy loss is bounded by ``beta s^p <= eps``?

    For ``alpha = T - 1`` (``c1 = 0``) the loss is ``beta (r^p - |r e_1 + mu|^p)``; for
    ``p <= 1`` the map ``x -> |x|^p`` is subadditive, so the loss is at most ``beta s^p`` (attained
    at ``r = s``, ``w = -1``).  Hence ``eps >= beta s^p`` gives ``delta = 0`` exactly (and
    ``eps < beta s^p`` gives ``delta > 0``: the loss exceeds ``eps`` on an open set).
    Returns ``True`` (certified ``delta = 0``), ``False`` (certified not pure-DP, or the
    structure does not apply) or ``None`` (balls overlap the boundary).  Exact inputs with
    ``p = 1`` are compared as fractions, so the boundary ``eps = beta s`` itself is decided.
    """
    T = int(dimension)
    fa, fp, fb, fe, fs = (_exact_fraction(v) for v in (alpha, power, rate, epsilon, sensitivity))
    if fa is not None and fa != T - 1:
        return False
    if fa is None and not (to_arb(alpha) == T - 1):
        return False
    if fp is not None and fp == 1 and fb is not None and fe is not None and fs is not None:
        return fe >= fb * fs
    p = to_arb(power)
    if not (p <= 1):
        return False if p > 1 else None
    bound = to_arb(rate) * to_arb(sensitivity) ** p
    eps = to_arb(epsilon)
    if eps >= bound:
        return True
    if eps < bound:
        return False
    return None


_END_LADDER_STEPS = 24


def _end_distances(guess: float) -> list[float]:
    """End distances ``v`` to try next to a breakpoint: from ``max(4 guess, 2^(16 - prec))`` (floored at
    2^-1000, inside the doubles) up to 0.5, geometrically, at most :data:`_END_LADDER_STEPS` of them
    (factor >= 1e4)."""
    v = max(4.0 * guess, 2.0 ** max(16 - ctx.prec, -1000))
    if not v < 0.5:
        return []
    factor = max(1e4, (0.5 / v) ** (1.0 / _END_LADDER_STEPS))
    out = []
    while v < 0.5 and len(out) < _END_LADDER_STEPS:
        out.append(v)
        v *= factor
    return out


def _as_guess(g):
    """A float ``w`` or a triple ``(w, 1 + w, 1 - w)`` (ends accurate) as the triple."""
    if isinstance(g, tuple):
        return g
    g = float(g)
    return g, 1.0 + g, 1.0 - g


def _shifted_point(g, pad: float):
    """Exact arb point ``w + pad * d`` with ``d = min(1, 1 + w, 1 - w)`` (the distance to the nearer end),
    formed from the accurate end distance: ``-1 + (1 + w)(1 + pad)`` or ``1 - (1 - w)(1 - pad)``
    (relative pads where ``w`` hugs an end).  ``None`` if it leaves ``(-1, 1)``."""
    w, vm, vp = g
    if vm <= vp:
        v = vm + pad * min(vm, 1.0)
        if not (0.0 < v < 2.0):
            return None
        c = (arb(v) - 1).mid() if vm < 0.5 else arb(w + pad * min(vm, vp, 1.0))
    else:
        v = vp - pad * min(vp, 1.0)
        if not (0.0 < v < 2.0):
            return None
        c = (1 - arb(v)).mid() if vp < 0.5 else arb(w + pad * min(vm, vp, 1.0))
    if not (c > -1 and c < 1):
        return None
    return c


def _initial_edges(k: float, z_first: arb, z_max: arb, z_s: arb, n_quant: int = 24) -> list[arb]:
    """Bin edges (exact points): geometric near 0 (ratio 2), quantiles of Gamma(k) in the bulk.

    Where ``z_s = beta s^p`` is below the doubles (R1SMG at tiny delta: ``z_s ~ 1e-600``) the edges
    start near ``z_s`` and the stretch between ``2^48 z_s`` and ``2^-48`` (where ``|Phi| ~ (s/r)`` is
    negligible and the bins are constant) is crossed with ratio ``2^20`` (a bin as one Arb ball must
    stay positive: the radius carries 30 bits); the engine splits further
    where a bin is wide."""
    from scipy.special import gammaincinv

    edges: dict = {}
    for z in (arb(0), z_first, z_max):
        edges[_edge_key(z)] = z
    top = arb(max(4.0 * k, 1.0))
    if z_max < top:
        top = z_max
    fine_hi = z_s.mid() * 2 ** 48
    coarse_lo = arb(2) ** -48
    z = z_first
    while z < top:
        z = z * 2 if (z > coarse_lo or z < fine_hi) else z * 2 ** 20
        if z < z_max:
            edges[_edge_key(z)] = z
    for i in range(1, n_quant):
        q = arb(float(gammaincinv(k, i / n_quant)))
        if z_first < q < z_max:
            edges[_edge_key(q)] = q
    return sorted(edges.values())


def _log_gamma_upper_quantile(k: float, log_target: float) -> float:
    """float ``z`` with ``Q(k, z)`` about ``exp(log_target)``, in log space (any ``log_target < 0``).

    SciPy's inverse is used while ``exp(log_target)`` is a normal double; below that the
    asymptotic ``log Q(k, z) ~ (k-1) log z - z - lgamma(k)`` is solved by fixed-point iteration.
    Only a bin edge: the discarded mass is enclosed by Arb afterwards.
    """
    from scipy.special import gammainccinv

    if log_target > -700.0:
        z = float(gammainccinv(k, math.exp(log_target)))
        if math.isfinite(z) and z > 0:
            return z
    z = max(-log_target, k, 1.0)
    for _ in range(60):
        z_new = -log_target + (k - 1.0) * math.log(z) - math.lgamma(k) + math.log(2.0)
        z_new = max(z_new, 1.0)
        if abs(z_new - z) < 1e-9 * z:
            break
        z = z_new
    return z


def _log_gamma_lower_quantile(k: float, log_target: float) -> float:
    """float ``ln z`` with ``P(k, z)`` about ``exp(log_target)`` (``P(k, z) <= z^k / Gamma(k+1)``);
    a log, so that edges below the doubles can be placed (:func:`_edge_of_log`)."""
    from scipy.special import gammaincinv

    if log_target > -700.0:
        z = float(gammaincinv(k, math.exp(log_target)))
        if math.isfinite(z) and z > 0:
            return math.log(z)
    return (log_target + math.lgamma(k + 1.0)) / k


def _gamma_lower_quantile_float(k: float, log_target: float) -> float:
    """The first bin edge as a double, as placed before edges could leave the doubles (``>= 1e-300``)."""
    from scipy.special import gammaincinv

    if log_target > -700.0:
        z = float(gammaincinv(k, math.exp(log_target)))
        if math.isfinite(z) and z > 0:
            return z
    lz = (log_target + math.lgamma(k + 1.0)) / k
    return max(math.exp(lz), 1e-300) if lz > -690.0 else 1e-300


def _breakpoints(prob: SGGRadialProblem, y: float, z_lo: arb, z_hi: arb, n: int = 400) -> list[arb]:
    """Points (exact edges) where ``w*(., y)`` enters or leaves ``-1`` / ``+1`` (bin edges only).

    Class of ``z``: +1 if ``Phi(z, 1) >= y``, -1 if ``Phi(z, -1) <= y``, 0 otherwise; a change of
    class on a geometric grid is refined by bisection.  Splitting bins there (and grading towards
    them) keeps the non-analytic points of ``F_W(w*)`` at bin edges, where the Taylor models of
    the neighbouring bins converge geometrically.  Inside the doubles the scan runs on ``z``, beyond
    them on ``ln z`` (with as many grid points as keep the ratio per step at most ``e^1.75``).
    """
    if not (z_lo > 0 and z_hi > z_lo):
        return []
    if _in_double_range(z_lo) and _in_double_range(z_hi):
        return [arb(b) for b in _breakpoints_float(prob, y, float(z_lo.mid()), float(z_hi.mid()), n)]
    lz_lo, lz_hi = _log_edge(z_lo), _log_edge(z_hi)

    def cls(lz):
        try:
            if prob._phi_float_log(lz, 1.0) >= y:
                return 1
            if prob._phi_float_log(lz, -1.0) <= y:
                return -1
        except (ValueError, OverflowError, ZeroDivisionError):
            return None
        return 0

    n = max(n, int(math.ceil((lz_hi - lz_lo) / 1.75)))
    step = (lz_hi - lz_lo) / n
    out = []
    l_prev, c_prev = lz_lo, cls(lz_lo)
    for i in range(1, n + 1):
        lz = lz_lo + i * step
        c = cls(lz)
        if c is not None and c_prev is not None and c != c_prev:
            a, b = l_prev, lz
            for _ in range(80):
                m = 0.5 * (a + b)
                if not (a < m < b):
                    break
                if cls(m) == c_prev:
                    a = m
                else:
                    b = m
            out.append(_edge_of_log(0.5 * (a + b)))
        l_prev, c_prev = lz, c
    return out


def _breakpoints_float(prob: SGGRadialProblem, y: float, z_lo: float, z_hi: float, n: int = 400) -> list[float]:
    """:func:`_breakpoints` for ``z`` in the doubles (float ``z``).  Within ``1e-6`` of ``z_s`` (``c1 < 0``)
    the class ``-1`` test forms ``(r - s)/r`` in Arb (:meth:`SGGRadialProblem._layer_distance`): the float
    difference put the ends of the eps = 20 layer ~1e-15 (relative) off, bins were graded towards the wrong
    point and the bin holding the true end shrank by 15/16 per split (sgg T=3 alpha=1 p=3: stalled)."""
    def cls(z):
        try:
            if prob.phi_float(z, 1.0) >= y:
                return 1
            d_acc = prob._layer_distance(arb(z)) if z > 0 else None
            if (prob.phi_float(z, -1.0) if d_acc is None else prob.phi_float_end(z, 0.0, -1, d_acc)) <= y:
                return -1
        except (ValueError, OverflowError, ZeroDivisionError):
            return None
        return 0

    if not (0 < z_lo < z_hi):
        return []
    ratio = (z_hi / z_lo) ** (1.0 / n)
    grid = {z_lo * ratio ** i for i in range(1, n + 1)}
    # graded towards r = s (z = s^p), where the loss is singular for alpha < T-1: at large eps the layer
    # where w*(., eps) > -1 is |r/s - 1| <~ e^(-eps / (2|c1|)) wide, inside one cell of the geometric grid
    s_f, p_f = prob.f_s, prob.f_p
    for j in range(1, 52):
        for sign in (1.0, -1.0):
            z = (s_f * (1.0 + sign * 2.0 ** -j)) ** p_f
            if z_lo < z < z_hi:
                grid.add(z)
    out = []
    z_prev, c_prev = z_lo, cls(z_lo)
    for z in sorted(grid):
        c = cls(z)
        if c is not None and c_prev is not None and c != c_prev:
            # the end of class c_prev, and the start of class c: distinct when the cell holds a whole
            # layer of class 0 (-1 -> 0 -> +1: w* crosses the sphere inside one grid cell; the A side
            # at r ~ s e^-eps for T = 2 is 2 e^-eps wide in r/s)
            for keep in (c_prev, c):
                a, b = z_prev, z
                for _ in range(80):
                    m = 0.5 * (a + b)
                    if not (a < m < b):
                        break
                    if (cls(m) == keep) == (keep == c_prev):
                        a = m
                    else:
                        b = m
                bp = 0.5 * (a + b)
                if not out or abs(bp - out[-1]) > 1e-15 * bp:
                    out.append(bp)
        z_prev, c_prev = z, c
    return out


def _round_edge_bits(x: arb, bits: int) -> arb:
    """An exact point near ``x`` with a ``bits``-bit mantissa (a bin edge finer than the doubles)."""
    old = ctx.prec
    ctx.prec = bits
    try:
        return (x.mid() * 1).mid()
    finally:
        ctx.prec = old


def _layer_log2_q(prob: SGGRadialProblem) -> float:
    """float ``log2 Q*`` at ``z_s`` (``Q* = q / r^2`` on the B side, ``c1 ln Q + z (1 - Q^(p/2)) = eps``,
    ``ln Q* ~ (eps - z_s)/c1``); 0 where there is no thin layer (``c1 = 0`` or ``z_s >= eps``).  A guess."""
    if prob.c1_is_zero or not (prob.s > 0):
        return 0.0
    lzs = float((prob.s ** prob.p).log().mid())
    zs = math.exp(min(lzs, 700.0))
    eps = float(prob.eps.mid())
    if not zs < eps:
        return 0.0
    return (eps - zs) / prob.f_c1 / math.log(2.0)


#: The layer rules (breakpoints and split points in Arb near ``z_s``) apply when ``Q* < 2^-80`` (layer
#: half-width below ``2^-40`` relative, ~40 double spacings: the float grid resolves the layer ends only
#: to one spacing) or when ``z_s`` is outside the doubles (the float scan on ``ln z`` cannot see it).
LAYER_LOG2_Q_MAX = -80.0


def _layer_mode(prob: SGGRadialProblem) -> bool:
    if prob.c1_is_zero or not (prob.s > 0):
        return False
    z_s = prob.s ** prob.p
    if not (_DOUBLE_LO < z_s < _DOUBLE_HI) or prob.f_log_path:
        return _layer_log2_q(prob) < -8.0
    return _layer_log2_q(prob) < LAYER_LOG2_Q_MAX


def _layer_breakpoints(prob: SGGRadialProblem, y: float) -> list[arb]:
    """The ends of the layer of class 0 (``w*`` interior) around ``z_s`` (``c1 < 0``), as exact points with
    ``prec``-bit mantissas: the class (:meth:`SGGRadialProblem.layer_class`, local coordinate ``d`` formed
    in Arb) is scanned outwards on ``z_s (1 +- 2^-j)``, ``j = prec - 16 ... 20``, and a change is bisected on
    exact points to ``2^(8 - prec)`` relative.  At eps = 50 (``c1 = -1/2``) the layer is ``~e^-50``
    (relative) wide: below the double spacing of ``z_s``, so the float grid (graded to ``2^-51``) either
    misses it (both neighbours of class -1) or locates its ends to one spacing only, and the bins next to
    them were graded towards the wrong point.  Only the class test uses floats: the points are guesses
    (bin edges), never decisions."""
    prec = ctx.prec
    z_s = prob.s ** prob.p
    zc = _round_edge_bits(z_s, prec)
    c0 = prob.layer_class(zc, y)
    if c0 != 0:
        return []
    out = []
    j_last = int(-math.log2(prob.layer_neighbourhood()))     # the scan's widest point: the neighbourhood
    for sign in (1, -1):
        prev = zc
        for j in range(prec - 16, j_last - 1, -1):
            old = ctx.prec
            ctx.prec = 2 * prec + 64
            z = zc * (1 + sign * arb(2) ** -j)          # exact
            ctx.prec = old
            c = prob.layer_class(z, y)
            if c is None:
                break
            if c != c0:
                a, b = (prev, z) if sign > 0 else (z, prev)
                ca = prob.layer_class(a, y)
                for _ in range(prec + 64):
                    if not ((b - a) > arb(2) ** (8 - prec) * b):
                        break
                    _, m = _exact_half_and_centre(a, b)
                    m = _round_edge_bits(m, prec + 8)
                    if not (a < m < b):
                        break
                    if prob.layer_class(m, y) == ca:
                        a = m
                    else:
                        b = m
                _, m = _exact_half_and_centre(a, b)
                out.append(_round_edge_bits(m, prec))
                break
            prev = z
    return out


def _split_point_layer(prob: SGGRadialProblem, zl: arb, zu: arb, bps: list[arb]):
    """Where to split a bin inside the layer neighbourhood of ``z_s`` (layer mode), in Arb with ``prec``-bit
    edges: at a breakpoint inside; halving when a breakpoint is at an end (geometric grading with ratio 2:
    the neighbouring bins' ``1 + w*`` then varies by a factor ~2, so their Taylor models are accepted --
    the float rule's cut at 1/16 left a factor 16 and a breakpoint tolerance of ``1e-13`` relative, wider
    than the whole layer at eps = 50); geometric towards the nearest breakpoint outside; else the
    midpoint.  ``None`` if not in the neighbourhood or narrower than ``2^(16 - prec)`` relative."""
    if prob.layer_distance_any(zl) is None or prob.layer_distance_any(zu) is None:
        return None
    prec = ctx.prec
    tol = arb(2) ** (16 - prec) * zu
    width = zu - zl
    if not (width > tol):
        return None
    near_bps = [b for b in bps if abs(b - zl) < arb(prob.layer_neighbourhood()) * zu]
    for b in near_bps:
        if zl + tol < b < zu - tol:
            return b
    m = None
    if near_bps:
        near = min(near_bps, key=lambda b: float(min(abs(b - zl), abs(b - zu)).mid()))
        if near <= zl:
            dist = zl - near
            if dist > tol and (zu - near) > 2 * dist:
                m = near + (dist * (zu - near)).sqrt()
        elif near >= zu:
            dist = near - zu
            if dist > tol and (near - zl) > 2 * dist:
                m = near - (dist * (near - zl)).sqrt()
    if m is not None:
        m = _round_edge_bits(m, prec)
        if zl < m < zu:
            return m
    _, m = _exact_half_and_centre(zl, zu)
    m = _round_edge_bits(m, prec + 8)
    return m if zl < m < zu else None


def _end_distance_by_bisection(above, side: int, lo: float, hi: float, steps: int) -> tuple[float, float, float]:
    """Float guess ``(w*, 1 + w*, 1 - w*)`` from the end distance ``v = exp(lv)``, ``lv`` in ``[lo, hi]``,
    bisected on ``above(lv)`` (Phi >= y at ``v``; decreasing in ``v`` at the end ``-1``, increasing at
    ``+1``): ``v`` to float relative precision where ``w*`` itself is ``-1 + 1e-44``.  A guess only."""
    for _ in range(steps):
        m = 0.5 * (lo + hi)
        if above(m) == (side < 0):
            lo = m
        else:
            hi = m
    v = math.exp(0.5 * (lo + hi))
    return (-1.0 + v, v, 2.0 - v) if side < 0 else (1.0 - v, 2.0 - v, v)


def _split_point(zl: arb, zu: arb, bps: list[arb]) -> arb:
    """Where to split ``[zl, zu]`` (exact edges): at a breakpoint inside, geometrically towards one at
    an end, geometrically near 0, else at the midpoint.  Inside the doubles in float arithmetic (as
    always); beyond them the same rules in Arb, the result rounded to a 53-bit edge."""
    if _in_double_range(zl) and _in_double_range(zu):
        fb = [float(b.mid()) for b in bps if _in_double_range(b)]
        return arb(_split_point_float(float(zl.mid()), float(zu.mid()), fb))
    tol = arb("1e-13")
    for b in bps:
        if zl < b < zu and (b - zl) > tol * zu and (zu - b) > tol * zu:
            return b
    near_end = None      # the nearest breakpoint within the tolerance decides (as in the float rule)
    for b in bps:
        dl, du = abs(zl - b), abs(zu - b)
        for d, left in ((dl, True), (du, False)):
            if d <= tol * b and d <= (zu - zl) / 16 and (near_end is None or d < near_end[0]):
                near_end = (d, left)
    if near_end is not None:
        return _round_edge(zl + (zu - zl) / 16) if near_end[1] else _round_edge(zu - (zu - zl) / 16)
    if zl > 0 and zu > 2 * zl:
        return _round_edge((zl * zu).sqrt())
    if zl == 0:
        return zu / 1024
    return _round_edge((zl + zu) / 2)


def _split_point_float(zl: float, zu: float, bps: list[float]) -> float:
    """:func:`_split_point` for float edges."""
    for b in bps:
        if zl < b < zu and (b - zl) > 1e-13 * zu and (zu - b) > 1e-13 * zu:
            return b
    # grade towards the end a breakpoint sits at (the nearer one: a bin narrower than the tolerance has
    # both ends within it, e.g. next to the pure-DP boundary of p < 1); of several breakpoints within the
    # tolerance the nearest decides (the cusp sliver of p < 1 is narrower than the tolerance: grading
    # towards the first one listed shaved 1/16 off the wrong end of the bin at the other)
    near_end = None
    for b in bps:
        dl, du = abs(zl - b), abs(zu - b)
        d = min(dl, du)
        # (at the end on the bin's own scale too: a bin at a distance of more than 1/16 of its width is graded
        # geometrically below; inside the cusp sliver of p < 1, narrower than the tolerance, shaving 1/16
        # per split off a bin ~10 widths from the root converged only to first order)
        if (d <= 1e-13 * max(abs(b), 1e-300) and d <= (zu - zl) / 16.0
                and (near_end is None or d < near_end[0])):
            near_end = (d, dl <= du)
    if near_end is not None:
        return zl + (zu - zl) / 16.0 if near_end[1] else zu - (zu - zl) / 16.0
    # geometric towards the nearest breakpoint outside the bin: the Taylor models converge like
    # (half-width / distance to the non-analytic point)^n, so bins are graded by their distance to it
    # (T = 2 at large eps: the layer of w* > -1 around r = s is bounded by two square-root points)
    near = min(bps, key=lambda b: min(abs(zl - b), abs(zu - b)), default=None)
    if near is not None:
        if near < zl and (zu - near) > 2.0 * (zl - near):
            m = near + math.sqrt(zl - near) * math.sqrt(zu - near)   # (the product underflows below 1e-154)
            if zl < m < zu:
                return m
        if near > zu and (near - zl) > 2.0 * (near - zu):
            m = near - math.sqrt(near - zu) * math.sqrt(near - zl)
            if zl < m < zu:
                return m
    if zl > 0 and zu / zl > 2.0:
        return math.sqrt(zl) * math.sqrt(zu)   # sqrt(zl * zu) was 0.0 for zl zu < 1e-324 (alpha -> -1, p = 8)
    if zl == 0:
        return zu / 1024.0
    return 0.5 * (zl + zu)


def _power_of_two_scale(x: arb) -> arb:
    """An exact power of two ``S`` with ``x S`` of order one (``x > 0``); Arb's exponent range."""
    if not (x > 0):
        return arb(1)
    m, e = x.upper().mid().man_exp()
    return arb(2) ** (-(int(e) + int(m).bit_length()))


def sgg_delta_enclosure(
    dimension,
    alpha,
    power,
    rate,
    epsilon,
    sensitivity,
    eta=1e-8,
    *,
    rel_eta: float | None = None,
    log_delta_hint: float | None = None,
    order: int = DEFAULT_ORDER,
    max_bins: int = 20000,
    progress=None,
    decide_against: Fraction | None = None,
) -> RadialEnclosure:
    """Certified enclosure of the SGG privacy profile ``delta*(eps)`` (Lemma 4.1).

    Works at the *current* ``ctx.prec``.  Returns ``RadialEnclosure`` with
    ``lower <= delta*(eps) <= upper`` for every point of the input balls
    (parameters may be exact values or arb balls), and
    ``upper - lower <= max(eta, rel_eta * lower)``.  ``eta`` (absolute) may be a float, a
    string or an arb (``"1e-400"`` works: widths are compared in Arb, floats only rank bins
    after scaling by a power of two).  ``rel_eta`` asks for a relative width, against the
    certified lower bound reached so far.  ``log_delta_hint`` (a float estimate of ``ln delta``)
    only places the first tail cut.

    Raises :class:`RadialPrecisionError` when the bin budget is exhausted or the total width
    stalls (rounding at this precision dominates: the caller raises precision); the exception's
    ``enclosure`` attribute holds the certified (too wide) enclosure reached.  Both sides are
    certified: ``lower`` is a proven lower bound on the true optimal delta (so ``lower >
    delta_claimed`` proves a claim VIOLATED), ``upper`` a proven upper bound (the paper's oracle,
    Def. 4.3, with ``eta``-tightness).  For ``alpha = T - 1`` and ``p <= 1`` the loss is bounded by
    ``beta s^p``; if ``eps >= beta s^p`` (certified) the answer is the exact ``[0, 0]``.

    ``decide_against`` (a calibration's target delta): also return, before the width target, as soon as
    the enclosure is entirely above it or entirely at or below it (the enclosure is as certified as
    ever, only wider; the caller's comparison with that delta is then decided).  Ignored for ball inputs
    evaluated at their exact ends (two calls, neither of which decides alone).
    """
    extra = layer_precision_boost(dimension, alpha, power, rate, epsilon, sensitivity, ctx.prec)
    budget_prec = ctx.prec
    old_prec = ctx.prec
    ends = None
    if extra and _monotone_ends(rate, sensitivity, epsilon) is not None:
        if _input_blurs_layer(rate, sensitivity, power, extra - 16, ctx.prec // 3 + 4):
            if _small_abs_c1(dimension, alpha):
                # |c1| < 1/2: evaluate at the balls' exact ends (delta monotone, below) instead of failing.
                # Failing pushed these shapes (layer 2^-115 wide at eps = 20, c1 = -1/8) to 256+ bits and
                # the 1e-20 width target of those rungs: sgg T=2 alpha=3/4 p=1 at (20, 1e-300) timed out
                ends = _monotone_ends(rate, sensitivity, epsilon)
            else:
                # the balls move z_s by more than a fraction of the layer's width: no bins resolve it at this
                # rung; fail at once so that the caller's ladder moves on (a 64-bit probe of sgg T=3 alpha=1
                # p=3 at eps = 50 spent 116 s on monotone bins; r1smg T = 2 at eps = 50, rate 13.9: 60 s)
                err = RadialPrecisionError(f"the input balls at {ctx.prec} bits blur the layer around r = s")
                err.enclosure = None
                raise err
        if ends is None and ctx.prec >= 128 and _scale_beyond_doubles(rate, sensitivity, power):
            # (at 64 bits the single call is kept: two exact-end calls made r1smg T=2 at (20, 1e-300) ~2x slower)
            ends = _monotone_ends(rate, sensitivity, epsilon)
    ctx.prec = old_prec + extra
    try:
        if ends is None:
            return _sgg_delta_enclosure_at(dimension, alpha, power, rate, epsilon, sensitivity, eta, rel_eta,
                                           log_delta_hint, order, max_bins, progress, budget_prec,
                                           decide_against)
        # ball inputs in a thin layer with z_s (or s) beyond the doubles: the single call with a 2^-128 rate ball
        # ran its bin budget (r1smg T = 2 at eps = 50, beta = 1.4e-575: 21 000 bins, layer bins monotone;
        # cause not analysed), with the exact ends it is certified in 1072 bins.  delta is
        # non-decreasing in beta and in s (Prop. C.1, Lemma C.1: only s beta^(1/p) matters), so the exact
        # lower ends give a lower bound and the exact upper ends an upper bound, for every point of the balls
        (rate_lo, s_lo), (rate_hi, s_hi) = ends
        rel_half = None if rel_eta is None else 0.4 * rel_eta
        lo = _sgg_delta_enclosure_at(dimension, alpha, power, rate_lo, epsilon, s_lo, eta / 2 if not isinstance(
            eta, str) else arb(eta) / 2, rel_half, log_delta_hint, order, max_bins, progress, budget_prec)
        hi = _sgg_delta_enclosure_at(dimension, alpha, power, rate_hi, epsilon, s_hi, eta / 2 if not isinstance(
            eta, str) else arb(eta) / 2, rel_half, log_delta_hint, order, max_bins, progress, budget_prec)
        return RadialEnclosure(
            lower=lo.lower, upper=hi.upper, eta=lo.eta, bins=lo.bins + hi.bins, tail_mass=hi.tail_mass,
            precision_bits=ctx.prec, taylor_bins=lo.taylor_bins + hi.taylor_bins,
            monotone_bins=lo.monotone_bins + hi.monotone_bins, constant_bins=lo.constant_bins + hi.constant_bins,
            notes=["ball inputs: lower end at the lower rate / sensitivity, upper end at the upper ones "
                   "(delta non-decreasing in beta and s, seed 003 Prop. C.1)"],
            bin_table=hi.bin_table)
    finally:
        ctx.prec = old_prec


def _small_abs_c1(dimension, alpha) -> bool:
    """``-1/2 < c1 < 0`` (exact test on the exact shape): the routing of :func:`sgg_delta_enclosure` for ball
    inputs that blur the layer (results for ``c1 <= -1/2`` unchanged)."""
    try:
        c1 = (Fraction(alpha) + 1 - int(dimension)) / 2
    except (TypeError, ValueError):
        return False
    return Fraction(-1, 2) < c1 < 0


def _input_blurs_layer(rate, sensitivity, power, log2_inv_q: int, margin: int) -> bool:
    """Does the relative radius of ``z_s = beta s^p`` from the input balls exceed ``2^-margin`` of the layer's
    relative half-width ``sqrt(Q*) = 2^(-log2_inv_q / 2)``?  The layer's ends move by that fraction of its
    width, and the bins holding them (square-root ends for T = 2) keep ~its 3/2 power of the layer's part of
    delta: the caller passes ``prec / 3 + 4`` bits.  Exact inputs: never."""
    rel = 0.0
    for v, mult in ((rate, 1.0), (sensitivity, None)):
        if not isinstance(v, arb) or v.rad() == 0:
            continue
        if mult is None:
            try:
                mult = float(Fraction(power)) if not isinstance(power, arb) else float(power.mid())
            except (TypeError, ValueError):
                return False
        rel += mult * float((v.rad() / abs(v.mid())).mid())
    if rel == 0.0:
        return False
    return math.log2(rel) > -log2_inv_q / 2 - margin


def _scale_beyond_doubles(rate, sensitivity, power) -> bool:
    """Is ``z_s = beta s^p`` outside ``2^+-1000`` or ``s beta^(1/p)`` outside ``1e+-140`` (the engine's log paths)?"""
    try:
        b, sv, pw = to_arb(rate), to_arb(sensitivity), to_arb(power)
        lzs = float((b * sv ** pw).log().mid())
    except (TypeError, ValueError, ArithmeticError):
        return False
    ls = lzs / float(pw.mid())
    return not (abs(lzs) < 1000 * math.log(2.0) and abs(ls) < 140 * math.log(10.0))


def _monotone_ends(rate, sensitivity, epsilon):
    """``((rate_lo, s_lo), (rate_hi, s_hi))``, exact arb points, when the rate or the sensitivity is a ball of
    positive radius with a positive lower end and epsilon is exact; else ``None``."""
    balls = [isinstance(v, arb) and v.rad() != 0 for v in (rate, sensitivity)]
    if not any(balls) or (isinstance(epsilon, arb) and epsilon.rad() != 0):
        return None
    out_lo, out_hi = [], []
    for v, is_ball in zip((rate, sensitivity), balls):
        if not is_ball:
            out_lo.append(v)
            out_hi.append(v)
            continue
        lo, hi = arb(v.lower()), arb(v.upper())
        if not (lo > 0):
            return None
        out_lo.append(lo)
        out_hi.append(hi)
    return tuple(out_lo), tuple(out_hi)


def layer_precision_boost(dimension, alpha, power, rate, epsilon, sensitivity, prec: int) -> int:
    """Extra working bits for a log-singular loss (``c1 < 0``) whose B layer at ``r = s`` is thin (a guess,
    never a decision: any precision gives valid balls).

    In the layer ``w*(r, eps) = -1 + v`` with ``v ~ Q*/2``, where ``Q* = q/r^2`` solves
    ``c1 ln Q + z (1 - Q^(p/2)) = eps`` (``ln Q* ~ (eps - z_s)/c1``: ``e^-100`` for ``c1 = -1/2`` at eps = 50,
    ``z_s -> 0``).  A ball of ``w`` near -1 at ``prec`` bits resolves ``1 + w`` only to ``2^-prec``
    absolute, i.e. ``2^-prec / v`` relative, which was the floor of every Taylor bin there (r1smg T = 2 at
    eps = 50, z_s = 13.9: stalled at 7.6e-21 against 4e-25 at 128 bits; certified at 256).  So when
    ``-log2 v`` exceeds half the precision, the whole engine call runs with ``-log2 Q* + 16`` more bits
    (the width target stays the caller's).  0 otherwise (results unchanged)."""
    try:
        T = int(dimension)
        c1 = (float(Fraction(alpha)) + 1.0 - T) / 2.0
        if not c1 < 0:
            return 0
        pw = float(Fraction(power))
        eps = float(to_arb(epsilon).mid())
        lzs = float((to_arb(rate) * to_arb(sensitivity) ** to_arb(power)).log().mid())
    except (TypeError, ValueError, OverflowError, ArithmeticError):
        return 0
    if not (math.isfinite(lzs) and math.isfinite(eps)):
        return 0
    zs = math.exp(min(lzs, 700.0))
    if zs >= eps:
        return 0
    log2_q = (eps - zs) / c1 / math.log(2.0)          # log2 Q* (negative)
    if -log2_q <= prec / 2:
        return 0
    return int(math.ceil(-log2_q)) + 16


def _lower_gamma_series(z: arb, k: arb) -> arb:
    """Regularized lower incomplete gamma ``P(k, z)`` for ``0 < z < k`` by its positive series
    ``z^k e^-z / Gamma(k+1) * sum_n z^n / ((k+1) ... (k+n))`` with a certified tail: after the term ``t_N``
    the ratios ``z / (k + N + i)`` decrease, so the rest is at most ``t_N r / (1 - r)``, ``r = z / (k + N + 1)``,
    added as ``[0, that]``.  For a large non-integer ``k`` where ``P < 2^-600`` Arb's ``gamma_lower`` (and
    ``hypgeom_1f1``) returned ``[+/- 1e496]`` at every precision tried (k = 2500.25: sgg T=10000 alpha=9999/2
    p=2 spent 4 s of its 4.5 s engine call there, 0.3-3 ms a try at 64-512 bits); this takes ~N arb steps,
    N ~ a few hundred below ``k - 3 sqrt k``.  Evaluated with ``log2(k z)`` more bits (the prefactor's
    exponent ``k ln z`` is ~2e4 there), then rounded to the working precision."""
    old = ctx.prec
    try:
        ctx.prec = old + 8 + max(0, int(math.log2(max(float(k.upper()) * max(float(z.upper()), 1.0), 1.0))))
        return +_lower_gamma_series_at(z, k, arb(2) ** -(old + 8))
    finally:
        ctx.prec = old


def _lower_gamma_series_at(z: arb, k: arb, goal: arb) -> arb:
    term = arb(1)
    total = arb(1)
    n = 0
    while True:
        n += 1
        term = term * z / (k + n)
        total = total + term
        r = z / (k + n + 1)
        if r < 1:
            tail = term * r / (1 - r)
            if tail < goal * total or n >= 200000:
                break
        elif n >= 200000:
            return arb("nan")
    total = total + arb(0).union(tail.upper())
    return (k * z.log() - z - (k + 1).lgamma()).exp() * total


#: With ``decide_against``, the engine stops early only at this relative width or below (2^-12).
_DECIDED_REL_WIDTH = arb(2) ** -12


def _sgg_delta_enclosure_at(dimension, alpha, power, rate, epsilon, sensitivity, eta, rel_eta, log_delta_hint,
                            order, max_bins, progress, budget_prec, decide_against=None) -> RadialEnclosure:
    """:func:`sgg_delta_enclosure` at the current working precision (``budget_prec``: the caller's, which
    sets the bin budget)."""
    prob = SGGRadialProblem(dimension, alpha, power, rate, epsilon, sensitivity)
    prob.input_radius_floor = budget_prec < ctx.prec and any(
        isinstance(v, arb) and v.rad() != 0 for v in (rate, sensitivity, epsilon))
    eta_arb = eta if isinstance(eta, arb) else arb(eta if isinstance(eta, str) else repr(float(eta)))
    if not (eta_arb > 0):
        raise ValueError("eta must be > 0")
    eta_f = float(eta_arb.mid()) if eta_arb > arb("1e-300") else 0.0
    if prob.s_in == 0:
        z = arb(0)
        return RadialEnclosure(z, z, eta_f, 0, arb(0), ctx.prec)
    if pure_dp_decision(dimension, alpha, power, rate, epsilon, sensitivity) is True:
        z = arb(0)
        return RadialEnclosure(z, z, eta_f, 0, arb(0), ctx.prec,
                               notes=["pure DP: alpha = T-1, p <= 1, loss <= beta s^p <= eps"])

    z_s = prob.s ** prob.p
    if rel_eta is not None and prob.c1_is_zero and prob.p < 1 and prob.eps > 0:
        _cusp_precision_check(prob, z_s, rel_eta)
    if not (z_s > Z_SCALE_MIN):
        raise RadialRangeError(
            f"radial engine: the privacy loss lives at z = beta s^p ~ {z_s.mid().str(3, radius=False)}, "
            f"below the range of its bin edges (>= 2^{Z_SCALE_MIN_LOG2}); parameters this extreme are not "
            f"supported")
    k = prob.f_k
    e_eps = float(prob.exp_eps.upper()) if prob.exp_eps < arb("1e300") else math.inf
    log_1pe = math.log1p(e_eps) if math.isfinite(e_eps) else float(prob.eps.upper())
    log_eta = float(eta_arb.log().mid())
    log_goal = log_eta
    if rel_eta is not None and log_delta_hint is not None and math.isfinite(log_delta_hint):
        log_goal = max(log_goal, math.log(rel_eta) + log_delta_hint)
    log_tail = log_goal - math.log(8.0) - log_1pe
    z_max_f = _log_gamma_upper_quantile(k, log_tail)
    if not math.isfinite(z_max_f) or z_max_f <= 0:
        z_max_f = 10.0 * k + 1000.0
    z_max = arb(z_max_f)
    # the first edge: where the Gamma mass below it is negligible, but not below 2^-64 z_s (the bin
    # [0, z_first] is then decided exactly by :meth:`SGGRadialProblem._bin_at_zero` in most cases, and
    # the doubling grid from z_first up stays short); edges are exact points of any exponent
    lz_s = _log_edge(z_s)
    lz_first = _log_gamma_lower_quantile(k, min(log_tail, math.log(1e-3)))
    if lz_first >= _LOG_OLD_FLOOR:
        # as always (results in the usual regime are bit-for-bit unchanged)
        z_first = arb(_gamma_lower_quantile_float(k, min(log_tail, math.log(1e-3))))
    else:
        prob.exact_zero_bin = True
        z_first = _edge_of_log(max(lz_first, lz_s - 64 * math.log(2.0)))
    if not (z_first < z_max / 4):
        z_first = z_max / 4
    bp_set = {}
    for b in (_breakpoints(prob, -float(prob.eps.mid()), z_first, z_max)
              + _breakpoints(prob, float(prob.eps.mid()), z_first, z_max)
              + ([arb(float(prob.eps.mid()))] if prob.c1_is_zero and not (prob._p_is_one() or prob._p_is_two())
                 else [])):
        bp_set[_edge_key(b)] = b
    prob.layer_mode = _layer_mode(prob)
    if prob.layer_mode:
        # the layer around z_s located in the local coordinate; the other scans' points there are dropped
        # (float ones are one double spacing off, those on ln z are cancellation noise)
        layer = _layer_breakpoints(prob, float(prob.eps.mid())) + _layer_breakpoints(prob, -float(prob.eps.mid()))
        if layer:
            near = arb(prob.layer_neighbourhood())
            bp_set = {key: b for key, b in bp_set.items() if not (abs(b / z_s - 1) < near)}
            for b in layer:
                if z_first < b < z_max:
                    bp_set[_edge_key(b)] = b
    if prob.c1_is_zero and prob.p < 1:
        for b in _cusp_breakpoints(prob):
            if z_first < b < z_max:
                bp_set[_edge_key(b)] = b
    bps = sorted(bp_set.values())
    edge_set = {_edge_key(e): e for e in _initial_edges(k, z_first, z_max, z_s)}
    for b in bps:
        if z_first < b < z_max:
            edge_set[_edge_key(b)] = b
    edges = sorted(edge_set.values())

    y_minus = -prob.eps
    y_plus = prob.eps
    exp_eps = prob.exp_eps

    def evaluate(zl: arb, zu: arb):
        check_deadline("a radial-engine bin")
        a_i, m1 = prob.bin_contribution(zl, zu, y_minus, True, order)
        b_i, m2 = prob.bin_contribution(zl, zu, y_plus, False, order)
        return a_i, b_i, (m1, m2)

    def width_arb(ab):
        a_i, b_i, _ = ab
        if not (_finite(a_i) and _finite(b_i)):
            return None
        return 2 * arb(a_i.rad()) + exp_eps * 2 * arb(b_i.rad())

    bins = {}
    for zl_e, zu_e in zip(edges[:-1], edges[1:]):
        bins[(zl_e, zu_e)] = evaluate(zl_e, zu_e)
    zmax = [edges[-1]]
    tau = [zmax[0].gamma_upper(prob.k, regularized=1)]

    def assemble():
        A = arb(0).union(tau[0])
        B = A
        for a_i, b_i, _ in bins.values():
            A = A + a_i
            B = B + b_i
        D = A - exp_eps * B
        lower, upper = D.lower(), D.upper()
        zero = arb(0)
        if lower < 0:
            lower = zero
        if upper < 0:
            upper = zero
        return A, B, lower, upper

    def make(A, B, lower, upper):
        counts = {"taylor": 0, "monotone": 0, "constant": 0}
        for _, _, (m1, m2) in bins.values():
            counts[m1] += 1
            counts[m2] += 1
        return RadialEnclosure(
            lower=lower, upper=upper, eta=eta_f, bins=len(bins), tail_mass=tau[0],
            precision_bits=ctx.prec, taylor_bins=counts["taylor"],
            monotone_bins=counts["monotone"], constant_bins=counts["constant"],
            a_enclosure=A, b_enclosure=B,
            bin_table=sorted((float(k_[0].mid()), float(k_[1].mid()), float(w.upper()) if (w := width_arb(v)) is not None else math.inf,
                              v[2]) for k_, v in bins.items()),
        )

    history: list[arb] = []
    TAIL = ("tail",)
    threshold = None if decide_against is None else arb(fmpq(decide_against.numerator, decide_against.denominator))
    rel_now, refinements_left, fallback = rel_eta, (3 if rel_eta is not None else 0), None
    # the cost of a bin grows with the precision (a 2048-bit pass of 20 000 bins took 13 min, r1smg T = 2
    # at eps = 10 before the fixes of issue 17): above 256 bits the budget shrinks like 1/prec, so every
    # call of the engine stays bounded (~ a minute at 4096 bits) and a hopeless rung fails fast
    bin_budget = max_bins if budget_prec <= 256 else max(2000, max_bins * 256 // budget_prec)
    while True:
        A, B, lower, upper = assemble()
        width = upper - lower
        if (rec := _REACHED.get()) is not None and _finite(lower) and _finite(upper):
            if not rec:
                rec[:] = [lower, upper, ctx.prec, len(bins)]
            elif lower <= rec[1] and rec[0] <= upper:      # same quantity: keep the intersection
                rec[:] = [rec[0] if rec[0] >= lower else lower, rec[1] if rec[1] <= upper else upper,
                          ctx.prec, len(bins)]
        target = eta_arb
        if rel_now is not None:
            target = _union(target, arb(rel_now) * lower).upper()   # max(eta, rel * lower)
        if _finite(width) and width <= target:
            if threshold is None or upper <= threshold or lower > threshold or not refinements_left:
                return make(A, B, lower, upper)
            # at the width asked but not decided against the caller's delta (a flat profile: sgg alpha =
            # -9/10 p = 8, delta 3e-9 off at the walk's points, 64-bit target 1.5e-8): refine on at this
            # precision, keeping this enclosure for a stall or the budget, instead of the next rung
            fallback = make(A, B, lower, upper)
            rel_now /= 16
            refinements_left -= 1
            continue
        if (threshold is not None and _finite(width) and width <= _DECIDED_REL_WIDTH * lower
                and (upper <= threshold or lower > threshold)):
            # decided against the caller's delta: a valid, wider enclosure (still tight enough that the
            # bracket's secant can interpolate its ends; [0, x] would leave it bisecting)
            return make(A, B, lower, upper)
        widths = {key: width_arb(v) for key, v in bins.items()}
        widths[TAIL] = (1 + exp_eps) * tau[0]
        finite = [w for w in widths.values() if w is not None]
        total = sum(finite, arb(0)) if finite else arb(0)
        scale = _power_of_two_scale(total)
        wf = {key: (math.inf if w is None else float((w * scale).upper())) for key, w in widths.items()}
        tot_f = sum(wf.values())
        if progress is not None:
            progress(len(bins), tot_f, float((target * scale).upper()))
        elif (hook := _PROGRESS_HOOK.get()) is not None:
            hook(len(bins), tot_f, float((target * scale).upper()), ctx.prec)
        history.append(total)
        if _DEBUG: print("  dbg", len(bins), float(total.upper()), float(width.upper()), [k for k in sorted(wf, key=lambda q: -wf[q])[:3]], float(tau[0].upper()))
        # stalled: the best total of the last 6 rounds is not 30% below the best before them (the best,
        # not the last: a split can make one child's Taylor model transiently worse than its parent's,
        # e.g. T = 10 at eps = 50 next to the layer around r = s, and that is no stall)
        stalled = len(history) > 6 and not (_arb_min(history[-6:]) < arb("0.7") * _arb_min(history[:-6]))
        if len(bins) > bin_budget or stalled:
            if fallback is not None:
                return fallback   # reached the width asked; only the extra refinement failed
            err = RadialPrecisionError(
                f"width {float(width.upper()):.3g} not below the target with {len(bins)} bins at "
                f"{ctx.prec} bits ({'stalled' if stalled else 'bin budget'})")
            err.enclosure = make(A, B, lower, upper)
            raise err
        ranked = sorted(wf.items(), key=lambda kv: -kv[1])
        to_split, acc = [], 0.0
        for key, w in ranked:
            to_split.append(key)
            acc += w
            if acc >= 0.5 * tot_f:
                break
        progress_made = False
        for key in to_split:
            if key == TAIL:
                z_old = zmax[0]
                if _in_double_range(z_old):
                    zf = float(z_old.mid())
                    z_new = arb(zf + max(8.0, 0.25 * zf))
                else:
                    z_new = _round_edge(z_old + (z_old / 4 if z_old > 32 else arb(8)))
                bins[(z_old, z_new)] = evaluate(z_old, z_new)
                zmax[0] = z_new
                tau[0] = z_new.gamma_upper(prob.k, regularized=1)
                progress_made = True
                continue
            zl_e, zu_e = key
            zm_e = _split_point_layer(prob, zl_e, zu_e, bps) if prob.layer_mode else None
            if zm_e is None:
                zm_e = _split_point(zl_e, zu_e, bps)
            if not (zl_e < zm_e < zu_e):
                zm_e = _sub_double_split(prob, zl_e, zu_e)
                if zm_e is None:
                    continue
            del bins[key]
            bins[(zl_e, zm_e)] = evaluate(zl_e, zm_e)
            bins[(zm_e, zu_e)] = evaluate(zm_e, zu_e)
            progress_made = True
        if not progress_made:
            err = RadialPrecisionError("bins cannot be split further in double precision")
            err.enclosure = make(A, B, lower, upper)
            raise err


def _bisect_sign_change(f, a: arb, b: arb, steps: int) -> arb | None:
    """A point between the exact points ``a < b`` where the Arb function ``f`` changes sign (``f(a) < 0 <
    f(b)`` or the reverse, certified), by bisection on exact midpoints; ``None`` if the ends do not differ
    in sign.  A *guess* of the root (used as a bin edge only): the last midpoint whose sign was decided."""
    fa, fb = f(a), f(b)
    if not ((fa < 0 and fb > 0) or (fa > 0 and fb < 0)):
        return None
    neg_at_a = fa < 0
    for _ in range(steps):
        m = ((a + b) / 2).mid()
        if not (a < m < b):
            break
        fm = f(m)
        if fm < 0:
            a, b = (m, b) if neg_at_a else (a, m)
        elif fm > 0:
            a, b = (a, m) if neg_at_a else (m, b)
        else:
            return m
    return ((a + b) / 2).mid()


def _cusp_breakpoints(prob: SGGRadialProblem) -> list[arb]:
    """The ends of the sets where the bounded loss (``c1 = 0``, ``p < 1``, not pure DP: ``z_s = s^p > eps``)
    exceeds ``eps`` (B side) or falls below ``-eps`` (A side), located in Arb on factored forms (bin edges
    only: nothing is decided by them).

    * B: ``1 + w_e(z, eps) = ((z - eps)^(2/p) - (r - s)^2) / (2 s r)``, ``r = z^(1/p)``, is ``> 0`` at
      ``z_s`` and vanishes on both sides of it: a sliver of relative width ~``(z_s/eps - 1)^(1/p)`` around
      the cusp (2e-28 at T = 3, p = 1/2, eps = 1, delta = 1e-100);
    * A: ``1 + w_e(z, -eps) = ((z + eps)^(2/p) - (s - r)^2) / (2 s r)`` and ``1 - w_e = ((s + r)^2 -
      (z + eps)^(2/p)) / (2 s r)`` change sign close together at ``z ~ z_s - eps`` (a transition of
      relative width ~``r / s``).

    The float breakpoint scan cannot see either (``1 + w_e ~ (z_s/eps - 1)^4`` is below the double
    precision); bisection on the sign of ``(z -+ eps)^(1/p) - |s -+ r|`` (same sign as the factored form)
    at the working precision locates them to ~2^-prec.

    Each pair of ends found (the B sliver, the A transition) is also cut into ``ceil(sqrt(a))`` equal pieces,
    ``a = (T - 1)/2``: on both sets ``G`` is ``I_{d/2}(a, a)`` of an end distance ``d`` that varies by O(1)
    of itself across the set, i.e. a peak ``~ d^a`` (B: ``v`` is largest at ``r = s``) or a step of ``F_W``
    ``~ 1/sqrt(a)`` wide in ``w`` (A), whose features are ``~ 1/sqrt(a)`` of the set.  Without the cuts at
    T = 128 the Taylor models of degree 12 on the one or two bins spanning a set did not converge, their
    first-order enclosures shrank by less than 30 % in 6 splits, and the stall test ended every rung
    (``sgg T=128 alpha=127 p=1/2``, rate 10.240655 at eps = 10: stalled on 64 ... 2048 bits, certified at
    4096 bits after ~340 s; with the cuts certified at 64 bits in 0.3 s)."""
    eps, s, ip = prob.eps, prob.s, 1 / prob.p
    z_s = s ** prob.p
    if not (z_s > eps) or not (eps > 0):
        return []
    steps = ctx.prec + 64
    out: list[arb] = []
    pieces = max(1, math.ceil(math.sqrt(float(prob.a_w.mid()))))

    def with_cuts(ends: list[arb]) -> list[arb]:
        if len(ends) != 2 or pieces == 1:
            return ends
        lo, hi = sorted(ends)
        return ends + [(lo + (hi - lo) * j / pieces).mid() for j in range(1, pieces)]

    def f_b(z):
        return (z - eps) ** ip - abs(z ** ip - s)

    zc = z_s.mid()
    if f_b(zc) > 0:
        scale = ((z_s - eps) ** ip * prob.p * z_s / s).mid()
        for sign in (-1, 1):
            d = scale
            for _ in range(60):
                far = (zc + sign * d).mid()
                if far > eps and f_b(far) < 0:
                    lo, hi = (far, zc) if sign < 0 else (zc, far)
                    root = _bisect_sign_change(f_b, lo, hi, steps)
                    if root is not None:
                        out.append(root)
                    break
                d = 4 * d
                if not (zc - d > eps):
                    break
    out = with_cuts(out)

    def f_am(z):
        return (z + eps) ** ip - (s - z ** ip)

    def f_ap(z):
        return (s + z ** ip) - (z + eps) ** ip

    a_ends: list[arb] = []
    for f in (f_am, f_ap):
        b = ((z_s - eps) / 4).mid()
        a = (b / 2 ** 20).mid()
        if not (b > 0) or not (f(a) * f(b) < 0):
            b2 = b
            for _ in range(60):
                b2 = (4 * b2).mid()
                if f(a) * f(b2) < 0:
                    break
            b = b2
        root = _bisect_sign_change(f, a, b, steps)
        if root is not None and root > 0:
            a_ends.append(root)
    return out + with_cuts(a_ends)


def _cusp_precision_check(prob: SGGRadialProblem, z_s: arb, rel_eta: float) -> None:
    """Raise :class:`RadialPrecisionError` at once when the working precision clearly cannot reach the
    relative width next to the pure-DP boundary of the bounded loss (``c1 = 0``, ``p < 1``).

    With ``a = z_s / eps - 1`` small, the B side lives in the cusp sliver where ``1 + w* = v ~ a^(2/p)`` is
    formed from ``(r - s)^2`` with ``r - s ~ a^(1/p)`` known to ``2^-prec``: ``v`` to relative
    ``2^-prec / a^(1/p)``; and ``A``, ``e^eps B`` cancel to relative ``a``.  So ``2^-prec`` must be below
    ``rel a^(1 + 1/p)``; where it is 16 times above, the pass would only spend its bin budget (T = 10, p = 3/4
    at ``a = 6e-7``: 1.5-2.8 s per failing 64-bit pass).  A shortcut, never a decision: raising only makes
    the caller move to the next rung of its precision ladder."""
    a = z_s / prob.eps - 1
    if not (a > 0):
        return
    la = float(a.log().mid())
    if not math.isfinite(la) or la > -3.0:
        return
    need = math.log(rel_eta) + (1.0 + 1.0 / prob.f_p) * la        # ln(rel a^(1 + 1/p))
    if (4 - ctx.prec) * math.log(2.0) > need:
        raise RadialPrecisionError(
            f"the cusp of the bounded loss needs more than {ctx.prec} bits (beta s^p / eps - 1 = "
            f"{math.exp(la):.3g}, relative width {rel_eta:.3g})")


def _sub_double_split(prob: SGGRadialProblem, zl: arb, zu: arb):
    """The exact midpoint of a bin the float rules cannot split (narrower than the double spacing), only
    inside the layer around ``z_s`` of a log-singular loss (``c1 < 0``, where the guesses form ``(r - s)/r``
    in Arb, :meth:`SGGRadialProblem._layer_distance`) and while the bin is wider than ``2^(16 - prec)``
    relative (finer bins are noise at this precision).  ``None`` elsewhere (as before: not split).  The
    ends of the layer (where ``w*`` reaches -1) are located by float breakpoints only to ~1e-16 of ``z_s``;
    the bin holding one is first order, and halving it is what shrinks its width.  Also for the bounded
    loss (``c1 = 0``, ``p < 1``) anywhere: next to the pure-DP boundary the set where the loss exceeds eps
    is a sliver around the cusp ``z_s`` (relative width ~``(beta s^p / eps - 1)^2``, 2e-28 at delta = 1e-100,
    T = 3, p = 1/2, eps = 1) and a transition of relative width ``beta s^p / eps - 1`` on the A side,
    below the double spacing."""
    bounded_cusp = prob.c1_is_zero and prob.p < 1
    if (not bounded_cusp and not prob.a_side_transition(zl, zu)
            and (prob._layer_distance(zl) is None or prob._layer_distance(zu) is None)):
        return None
    if not ((zu - zl) > arb(2) ** (16 - ctx.prec) * zu):
        return None
    _, zm = _exact_half_and_centre(zl, zu)
    if not (zl < zm < zu):
        return None
    return zm


def _exact_half_and_centre(zl: arb, zu: arb) -> tuple[arb, arb]:
    """``((zu - zl)/2, (zl + zu)/2)`` exactly: bin edges are 53-bit points, so the span of their
    exponents plus a margin (at least 2200 bits, which holds any two doubles) holds both without rounding."""
    old_prec = ctx.prec
    bits = 2200
    if zl > 0:
        (ml, el), (mu, eu) = _edge_key(zl), _edge_key(zu)
        # from the top bit of zu to the lowest bit of either (sub-double edges next to the cusp of p < 1
        # have long mantissas on either side; the lowest bit of zl alone left zu's rounded at 4096 bits)
        bits = max(bits, (eu + int(mu).bit_length()) - min(el, eu) + 64)
    ctx.prec = max(old_prec, bits)
    try:
        return (zu - zl) / 2, (zl + zu) / 2
    finally:
        ctx.prec = old_prec
