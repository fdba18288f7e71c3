"""Spherical generalized gamma (SGG) noise in R^T (seed 003, Def. 4.1-4.2) and its presets.

``X = R U`` with ``R ~ GGamma(alpha, beta, p)`` (radial density
``p beta^((alpha+1)/p) r^alpha exp(-beta r^p) / Gamma((alpha+1)/p)``) and ``U``
uniform on the unit sphere of ``R^T``; ``alpha`` in ``(-1, T-1]`` (so that the
density of ``X`` is radially non-increasing, Prop. 4.1), ``p > 0``, rate
``beta > 0``.

Privacy profile: certified by :mod:`certdp.engines.radial` (Lemma 4.1; worst
shift of norm exactly ``s`` by Lemma 4.2).  Monotonicity in the calibrated
parameter: ``delta`` is non-decreasing in ``beta`` (Prop. C.1: ``beta`` only
rescales the noise by ``beta^(-1/p)``), hence the certified bracket's *lower*
end is the safe one (``profile_increasing = True``).

Registered mechanisms:

* ``sgg``                -- parameter ``rate`` (beta); fixed ``dimension``, ``alpha``, ``power``, ``sensitivity``;
* ``spherical-gaussian`` -- ``alpha = T-1, p = 2, beta = 1/(2 sigma^2)``; parameter ``sigma``;
  profile = the 1-D analytic Gaussian with ``Delta = s`` (closed form, exact);
* ``l2-laplace``         -- ``alpha = T-1, p = 1, beta = 1/theta``; parameter ``theta`` (scale);
* ``r1smg``              -- ``alpha = 0, p = 2, beta = 1/(2 sigma_star)``; parameter ``sigma_star``
  (the rank-1 singular multivariate Gaussian of Ji & Li 2024; seed 003 App. E).

Moments ``E R^m = Gamma((alpha+1+m)/p) / (Gamma((alpha+1)/p) beta^(m/p))`` come
from the symbolic layer (``certdp.generated.arb_sgg.radius_moment``).
MSE = ``E ||X||^2 = E R^2``.
"""

from __future__ import annotations

from abc import abstractmethod

import math
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, ctx

from certdp.engines.closed_form import gaussian_profile
from certdp.engines.radial import RadialPrecisionError, RadialRangeError, sgg_delta_enclosure
from certdp.numbers.deadline import ResourceExhausted
from certdp.numbers.bracket import decision_threshold
from certdp.mechanisms.base import Mechanism, register
from certdp.numbers import (
    Enclosure,
    InputError,
    UndecidedError,
    arb_of,
    to_arb,
    parse_exact,
    parse_nonnegative,
    parse_positive,
    parse_positive_int,
    working_precision,
)

__all__ = [
    "SGG", "SphericalGaussian", "L2Laplace", "R1SMG",
    "sgg_profile_enclosure", "sgg_delta_float", "sgg_rate_candidate", "radial_moment",
    "relative_eta_for_precision",
]

_LEMMA = ("seed 003 Lemma 4.1 (one-dimensional radial integral), Lemma 4.2 (worst shift has norm s), "
          "Prop. C.1 (delta non-decreasing in beta)")
_METHOD = ("radial engine: Gamma(k,1) reparametrization, certified tail Q(k, z_max), adaptive bins with "
           "Arb Taylor models / monotone enclosures of w*(r, +-eps), F_W by the regularized incomplete beta")


# ----------------------------------------------------------------------------- certified profile
def relative_eta_for_precision(bits: int) -> float:
    """Relative width asked of the radial engine at ``bits`` of working precision.

    64 bits -> 1.5e-8, 128 -> 1e-12, 256 -> 1e-20, 512 and more -> 1e-30 (a tighter width only
    costs bins: the Taylor models make the cost grow like eta^(-1/13)).  The certified bracket
    escalates precision when a point is undecided, so an ``rtol = 1e-12`` calibration ends at 256 bits.
    """
    if bits <= 64:
        return 2.0 ** -26
    if bits <= 128:
        return 1e-12
    if bits <= 256:
        return 1e-20
    return 1e-30


def sgg_profile_enclosure(dimension: int, alpha, power, rate, epsilon, sensitivity,
                          relative_eta: float | None = None, *, progress=None,
                          reached: list | None = None, decide_against: Fraction | None = None) -> arb:
    """Ball containing ``delta*(eps)`` of ``SGG(alpha, rate, power)`` in ``R^dimension``.

    Valid for every point of the input balls, at the current working
    precision.  The width target is relative, ``upper - lower <= relative_eta * lower``,
    reached in one engine pass (the engine stops against its own certified lower bound, so a
    poor float estimate of delta costs nothing; the estimate only places the first tail cut).
    Exact inputs stay exact, so pure DP (``alpha = T-1, p <= 1, eps >= beta s^p``) is an exact 0.
    Returns a non-finite ball when the engine cannot reach the width at this precision (bin
    budget or stalled widths; the caller's precision ladder then moves on); ``reached``, if
    given, collects ``(enclosure, bits)`` of such failures.  ``progress(bins, width, target)``
    is passed to the engine.  ``decide_against`` (the bracket's target delta, :func:`decision_threshold`):
    the engine may stop before the width target once the enclosure is on one side of it.
    """
    rel = relative_eta if relative_eta is not None else relative_eta_for_precision(ctx.prec)
    rate_b = _exact_or_ball(rate)
    eps_b = _exact_or_ball(epsilon)
    hint = None
    try:
        guess = sgg_delta_float(int(dimension), float(Fraction(alpha)), float(Fraction(power)),
                                float(to_arb(rate_b).mid()), float(to_arb(eps_b).mid()),
                                float(Fraction(sensitivity)))
        if guess is not None and guess > 1e-280:
            hint = math.log(guess)
    except (ArithmeticError, ValueError):
        pass
    # absolute floor far below any double: the relative target decides; delta = 0 (pure DP) is
    # decided analytically by the engine
    floor = arb(2) ** (-64 * ctx.prec)
    def engine(log_hint):
        return sgg_delta_enclosure(dimension, _exact(alpha), _exact(power), rate_b, eps_b, _exact(sensitivity),
                                   eta=floor, rel_eta=rel, log_delta_hint=log_hint, progress=progress,
                                   decide_against=decide_against)

    try:
        try:
            enc = engine(hint)
        except RadialPrecisionError as first:
            if hint is None or isinstance(first, RadialRangeError) \
                    or not (_exact(alpha) + 1) / _exact(power) < Fraction(1, 4):
                raise
            # a tiny Gamma shape k (mass spread over thousands of e-folds of z): the tail cut placed from the
            # hint left the A side at [+/- 0.94] (sgg T=3 alpha=-9/10 p=8 at (50, 0.5), rate 25.25: 122 bins,
            # stalled); the engine's own cut (no hint) certifies in 549 bins.  The hint only steers.
            enc = engine(None)
    except RadialRangeError as exc:
        raise UndecidedError(f"sgg: {exc}") from None    # settled: no precision or budget helps
    except RadialPrecisionError as exc:
        if reached is not None and getattr(exc, "enclosure", None) is not None:
            reached.append((exc.enclosure, ctx.prec))
        return arb("nan")
    if enc.upper == 0:
        return arb(0)
    return enc.as_ball()


def _exact_or_ball(v):
    """Exact inputs stay exact (Fraction), so the engine can decide pure DP by exact comparison."""
    if isinstance(v, arb):
        from certdp.engines.radial import _exact_fraction

        f = _exact_fraction(v)
        return f if f is not None else v
    return parse_exact(v, "parameter") if not isinstance(v, Fraction) else v


def _exact(v) -> Any:
    if isinstance(v, arb):
        return v
    return parse_exact(v, "parameter") if not isinstance(v, Fraction) else v


# ----------------------------------------------------------------------------- float estimates
def sgg_delta_float(dimension: int, alpha: float, power: float, rate: float, epsilon: float,
                    sensitivity: float, panels: int = 240, nodes: int = 16) -> float | None:
    """float64 estimate of Lemma 4.1 by Gauss-Legendre quadrature in z (NOT certified).

    Used for candidates, searches and the benchmark's float-only column.
    Panels are log-spaced between Gamma(k,1) quantiles ``1e-30`` and
    ``1 - 1e-30``; ``w*`` by vectorized bisection; ``F_W`` by SciPy's betainc.
    """
    from scipy.special import betainc, gammainccinv, gammaincinv, gammaln

    T = int(dimension)
    k = (alpha + 1.0) / power
    c1 = (alpha + 1.0 - T) / 2.0
    s = sensitivity * rate ** (1.0 / power)
    if s == 0:
        return 0.0
    z_lo = float(gammaincinv(k, 1e-30))
    z_hi = float(gammainccinv(k, 1e-30))
    if z_lo == 0.0 and k < 0.5:
        # small k = (alpha + 1)/p (alpha near -1, large p): the 1e-30 quantile (1e-30 Gamma(k+1))^(1/k)
        # underflows; start at the smallest normal double instead (mass below it ~ 1e-308^k, a guess)
        z_lo = 2.2250738585072014e-308
    if not (z_lo > 0 and math.isfinite(z_hi)):
        return None
    edges = np.geomspace(z_lo, z_hi, panels + 1)
    # panels graded towards r = s (z = s^p), where the loss is singular for alpha < T-1: at large eps
    # (T = 2) a layer |r/s - 1| ~ e^-eps there carries a finite part of delta, invisible to log panels
    u = 2.0 ** -np.arange(1.0, 46.0)
    near = np.concatenate([(s * (1.0 + u)) ** power, (s * (1.0 - u)) ** power])
    edges = np.unique(np.concatenate([edges, near[(near > z_lo) & (near < z_hi)]]))
    half = 0.5 * (T - 1.0)

    def phi_on(zz):
        """The loss threshold function ``w -> phi(zz, w)`` at the points ``zz`` (``w`` broadcasts; the
        powers of ``zz`` computed once: the bisections below call it ~60 times)."""
        rr = zz ** (1.0 / power)
        tt = s / rr
        dd = 1.0 - tt

        def phi(w):
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                xx = (2.0 * s * w + s * s / rr) / rr
                # near w = -1: q / r^2 = (1 - t)^2 + 2 t (1 + w), no cancellation where r ~ s
                L = np.where(w < -0.5, np.log(dd * dd + 2.0 * tt * (1.0 + w)), np.log1p(xx))
                val = -zz * np.expm1(0.5 * power * L)
                if c1 != 0.0:
                    val = val + c1 * L
            return np.where(np.isnan(val), np.inf, val)
        return phi

    # w* reaches +-1 at isolated z (the threshold curve enters or leaves [-1, 1]); there F_W(w*) has a
    # square-root (T = 2) or higher-order contact, which Gauss-Legendre panels across it resolve to
    # ~1e-4 only (sgg T=2 alpha=1/2 p=8 at (10, 0.5): the root in beta moved by 1e-4 between 240,
    # 480, 960 and 2000 panels; the walk then needed 19 probes).  Those z are located by bisection
    # in ln z between grid edges where phi(+-1) - y changes sign, and the panels graded towards them.
    log_edges = np.log(edges)
    phi_edges = phi_on(edges)
    lo_parts, hi_parts, y_parts, w_parts, sign_parts = [], [], [], [], []
    for y in (-epsilon, epsilon):
        for w_end in (-1.0, 1.0):
            g = phi_edges(w_end) - y
            idx = np.nonzero(np.isfinite(g[:-1]) & np.isfinite(g[1:]) & ((g[:-1] > 0) != (g[1:] > 0)))[0]
            lo_parts.append(log_edges[idx])
            hi_parts.append(log_edges[idx + 1])
            y_parts.append(np.full(idx.size, y))
            w_parts.append(np.full(idx.size, w_end))
            sign_parts.append(g[idx] > 0)
    lo, hi = np.concatenate(lo_parts), np.concatenate(hi_parts)
    kinks = []
    if lo.size:
        ys, ws, glo = np.concatenate(y_parts), np.concatenate(w_parts), np.concatenate(sign_parts)
        for _ in range(45):    # one bisection for all: the bracket (one log panel) to ~1e-14 in ln z
            mid = 0.5 * (lo + hi)
            same = ((phi_on(np.exp(mid))(ws) - ys) > 0) == glo
            lo = np.where(same, mid, lo)
            hi = np.where(same, hi, mid)
        kinks.append(np.exp(0.5 * (lo + hi)))
    if kinks:
        zk = np.concatenate(kinks)
        uk = 4.0 ** -np.arange(1.0, 15.0)   # ratio-4 grading to 4e-9 suffices for a square-root contact
        grade = np.concatenate([(zk[:, None] * (1.0 + uk[None, :])).ravel(), (zk[:, None] * (1.0 - uk[None, :])).ravel(),
                                zk])
        edges = np.unique(np.concatenate([edges, grade[(grade > z_lo) & (grade < z_hi)]]))
    x, wts = np.polynomial.legendre.leggauss(nodes)
    a, b = edges[:-1, None], edges[1:, None]
    z = (0.5 * (b - a) * x[None, :] + 0.5 * (a + b)).ravel()
    wz = (0.5 * (b - a) * wts[None, :]).ravel()
    logf = (k - 1.0) * np.log(z) - z - gammaln(k)
    weights = wz * np.exp(logf)

    phi = phi_on(z)

    def wstar(y):
        lo = -np.ones_like(z)
        hi = np.ones_like(z)
        top = phi(hi) >= y
        bottom = phi(lo) <= y
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            ge = phi(mid) >= y
            lo = np.where(ge, mid, lo)
            hi = np.where(ge, hi, mid)
        w = 0.5 * (lo + hi)
        w = np.where(top, 1.0, w)
        w = np.where(bottom & ~top, -1.0, w)
        return w

    def fw(w):
        return betainc(half, half, np.clip((w + 1.0) / 2.0, 0.0, 1.0))

    A = float(np.sum(weights * (1.0 - fw(wstar(-epsilon)))))
    B = float(np.sum(weights * fw(wstar(epsilon))))
    return max(0.0, A - math.exp(epsilon) * B)


#: Below this delta the float64 quadrature is not trusted (``A - e^eps B`` cancels; breakpoint
#: singularities): :func:`sgg_rate_candidate` extrapolates from its root at this delta instead.
QUADRATURE_DELTA_FLOOR = 1e-12


def sgg_rate_candidate(dimension: int, alpha: float, power: float, epsilon: float, log_delta: float,
                       sensitivity: float, panels: int = 240, nodes: int = 16) -> float | None:
    """float64 beta with ``delta(beta) = delta`` (Brent on log beta of :func:`sgg_delta_float`); a guess.

    Below :data:`QUADRATURE_DELTA_FLOOR` the quadrature cannot resolve delta (it returned roots with
    a true delta 1e270 times the target at delta = 1e-300), so the root at the floor is extrapolated
    in log-log: for ``alpha < T - 1`` with exponent ``k = (alpha+1)/p`` (as ``beta -> 0`` the loss
    depends on ``r / s`` only and delta is the Gamma mass of ``r = O(s)``, ``~ C (beta s^p)^k``; the
    prefactor ``C`` is taken from one coarse engine evaluation, :func:`_engine_refined_rate`, where the
    floor's root is not yet in that regime),
    for ``alpha = T - 1, p > 1`` as ``-ln delta ~ C beta^(-1/(p-1))`` (see the code), for
    ``alpha = T - 1, p <= 1`` with the local slope between the roots at 1e4 and 1 times the floor.
    Only the bracket's starting point: every answer is certified afterwards.
    """
    floor = math.log(QUADRATURE_DELTA_FLOOR)
    if log_delta < floor:
        if alpha < dimension - 1:
            # before the quadrature: its root at the floor is out of the double range for a small k
            # (alpha = -9/10, p = 8: k = 1/80, beta ~ 1e-960 at 1e-12), and the scale-free limit needs none
            sf = _scale_free_rate(dimension, alpha, power, epsilon, log_delta, sensitivity)
            if sf is not None:
                return sf
        b0 = _quadrature_rate_root(dimension, alpha, power, epsilon, floor, sensitivity, panels, nodes)
        if b0 is None:
            return None
        if alpha < dimension - 1:
            slope = (alpha + 1.0) / power
            lb = math.log(b0) + (log_delta - floor) / slope
            if _scale_free_regime(dimension, alpha, power, epsilon, math.log(b0 * sensitivity ** power)):
                # the root at the floor is already in the small-noise regime (R1SMG: z_s ~ 1e-20 there):
                # the power law holds to O(z_s t_max^p), an engine evaluation would only cost time
                return _rate_of_log(lb)
            return _engine_refined_rate(dimension, alpha, power, epsilon, log_delta, sensitivity, lb, slope,
                                        math.log(b0), floor)
        elif power > 1.0:
            # alpha = T - 1, p > 1: the loss beta (r^p - |r e_1 + mu|^p) exceeds eps only where
            # beta p s r^(p-1) >~ eps, i.e. Z = beta r^p >~ C beta^(-1/(p-1)): -ln delta ~ C beta^(-1/(p-1))
            # (not a power law: the log-log slope grows with -ln delta, and a constant-slope
            # extrapolation put the rate 1e30 below the root at delta = 1e-100, T = 10, p = 8).  So
            # ln(-ln delta) is extrapolated linearly in ln beta with the asymptotic slope -1/(p-1).
            lb = math.log(b0) - (power - 1.0) * (math.log(-log_delta) - math.log(-floor))
            return _rate_of_log(lb)
        else:
            b1 = _quadrature_rate_root(dimension, alpha, power, epsilon, floor + math.log(1e4), sensitivity,
                                       panels, nodes)
            if b1 is None or b1 == b0:
                return None
            pure = epsilon / sensitivity ** power        # pure-DP rate for p <= 1 (loss <= beta s^p)
            if power <= 1.0 and b0 > pure and b1 > pure:
                # delta -> 0 at beta = eps / s^p: a power law in beta - beta_pure
                slope = math.log(1e4) / (math.log(b1 - pure) - math.log(b0 - pure))
                if slope > 0 and math.isfinite(slope):
                    x = math.log(b0 - pure) + (log_delta - floor) / slope
                    if x <= -700.0:
                        return pure * (1.0 + 1e-15)
                    if x - math.log(pure) < math.log(1e-6):
                        # next to the pure-DP boundary (T <= 10 at 1e-300; l2-laplace): the engine's 64-bit
                        # enclosure there is [0, ...] and a coarse evaluation would only cost time
                        return pure + math.exp(x)
                    return _bounded_loss_refined_rate(dimension, alpha, power, epsilon, log_delta, sensitivity,
                                                      pure, [(math.log(b0), floor), (math.log(b1), floor + math.log(1e4))],
                                                      pure + math.exp(x))
                return None
            slope = math.log(1e4) / (math.log(b1) - math.log(b0))
            if not (slope > 0 and math.isfinite(slope)):
                return None
        lb = math.log(b0) + (log_delta - floor) / slope
        return _rate_of_log(lb)
    root = _quadrature_rate_root(dimension, alpha, power, epsilon, log_delta, sensitivity, panels, nodes)
    if root is None and alpha < dimension - 1:
        # the root is below the doubles (k = (alpha+1)/p tiny; alpha = -9/10, p = 8, T = 5 at (0.01, 1e-12):
        # beta ~ 1e-963, no candidate, an exponential search and 31 probes, 34 s): the scale-free limit
        return _scale_free_rate(dimension, alpha, power, epsilon, log_delta, sensitivity)
    return root


def _engine_refined_rate(dimension: int, alpha: float, power: float, epsilon: float, log_delta: float,
                         sensitivity: float, lb: float, slope: float, lb_floor: float | None = None,
                         ld_floor: float | None = None):
    """The small-noise extrapolation ``ln beta = lb`` corrected by one coarse engine evaluation (a guess).

    For ``alpha < T - 1`` the extrapolation from the root at :data:`QUADRATURE_DELTA_FLOOR` keeps the
    exact exponent ``k`` of ``delta ~ C (beta s^p)^k`` but not ``C``: the root at the floor is far from
    the small-noise regime at large eps (sgg T=10 alpha=4 p=3/2 at (50, 1e-300): beta ~ 16 at delta =
    1e-12, and the candidate was 123x below the root, 7 doublings of the walk).  One radial-engine
    evaluation at 64 bits with a coarse relative width (1e-3, at most 3000 bins) at the extrapolated
    rate gives ``delta_1``; ``ln beta = lb + (ln delta - ln delta_1) / k`` is then exact up to the
    corrections to the power law, which vanish as ``beta -> 0``.  Only the bracket's starting point:
    the evaluation's enclosure decides nothing (any failure returns the uncorrected guess).  Only called
    where the floor's root is outside that regime (:func:`_scale_free_regime` false there).

    Not in the power-law regime at all (``lb_floor``, ``ld_floor``: the floor's root; the log-log slope from
    it to the first evaluation is not within 20 % of ``k``): the bulk of the noise decides delta, where it
    falls like a Gaussian tail, ``ln(-ln delta)`` about linear in ``ln beta`` (sgg T=1000 alpha=999/2 p=2
    at (0.01, 1e-300): slope 114 against k = 250, the power-law guess was 3x below the root in beta).  There
    the long jump from the floor is a secant of ``ln(-ln delta)`` in ``ln beta``, then two local secants of
    ``ln delta``, each after one more coarse evaluation (docs/sgg.md item 27).
    """
    guess = _rate_of_log(lb)
    ld1 = _coarse_log_delta(dimension, alpha, power, epsilon, log_delta, sensitivity, lb)
    if ld1 is None:
        return guess
    pl = lb + (log_delta - ld1) / slope
    if lb_floor is None or ld_floor is None or lb == lb_floor:
        return _rate_of_log(pl)
    observed = (ld1 - ld_floor) / (lb - lb_floor)
    if 0.8 * slope <= observed <= 1.25 * slope:
        return _rate_of_log(pl)
    points = [(lb_floor, ld_floor), (lb, ld1)]
    for step in range(3):
        # the long jump from the floor's root: the secant of ln(-ln delta); then local secants of ln delta
        nxt = (_log_log_secant if step == 0 else _log_secant)(points[-2], points[-1], log_delta)
        if nxt is None:
            return _rate_of_log(points[-1][0] if step else pl)
        if step == 2:
            return _rate_of_log(nxt)
        ld_next = _coarse_log_delta(dimension, alpha, power, epsilon, log_delta, sensitivity, nxt)
        if ld_next is None:
            return _rate_of_log(nxt)
        points.append((nxt, ld_next))
    return _rate_of_log(points[-1][0])


def _bounded_loss_refined_rate(dimension: int, alpha: float, power: float, epsilon: float, log_delta: float,
                               sensitivity: float, pure: float, floor_points: list[tuple[float, float]],
                               rate_power_law: float, max_evaluations: int = 6) -> float:
    """``alpha = T - 1, p <= 1`` below the quadrature's floor: ``rate_power_law`` (``delta ~ (beta -
    pure)^m`` through the floor's two roots ``floor_points``, pairs ``(ln beta, ln delta)``; ``pure = eps /
    s^p``) corrected by coarse radial-engine evaluations (a guess; decides nothing).

    The power law holds next to the pure-DP boundary, where small T put the root at 1e-300 (T <= 10: the
    candidate is ``pure`` to 1e-7; the caller corrects nothing within 1e-6 of ``pure``, where the engine's
    64-bit enclosure is ``[0, ...]``).
    At large T the Gamma factor of the radial law bends it: sgg T=128 alpha=127 p=1/2 at (10, 1e-300) had
    the candidate 10.0228 for the root 16.3112 (12 probes), T = 1000 at (1, 1e-63) 28.43 for 87.14 (10.6 s);
    there ``ln(-ln delta)`` is nearly linear in ``ln beta`` away from ``pure`` (slope -1.0 .. -1.3 over
    beta = 12 .. 42 at T = 128, eps = 10).  So two starts -- the power law and the secant of ``ln(-ln delta)``
    in ``ln beta`` through the floor's roots -- are evaluated coarsely (:func:`_coarse_log_delta`: 64 bits,
    relative width 1e-3), then secant steps of ``ln(-ln delta)`` in ``ln beta`` through the last two points
    (a floor root where only one evaluation succeeded), kept inside the bracket of the points on both sides
    of the target (its midpoint otherwise), until ``ln delta`` is within 0.01 of the target or
    ``max_evaluations`` are spent.  Returns the point nearest the target (the power law if no evaluation
    succeeded)."""
    lb_secant = _log_log_secant(floor_points[0], floor_points[1], log_delta)
    starts = [math.log(rate_power_law)] + ([lb_secant] if lb_secant is not None and math.exp(lb_secant) > pure
                                           else [])
    points: list[tuple[float, float]] = []
    best = None
    lb = starts.pop(0)
    for _ in range(max_evaluations):
        ld = _coarse_log_delta(dimension, alpha, power, epsilon, log_delta, sensitivity, lb)
        if ld is not None:
            points.append((lb, ld))
            if best is None or abs(ld - log_delta) < abs(best[1] - log_delta):
                best = (lb, ld)
            if abs(ld - log_delta) <= 0.01:
                break
        if starts:
            lb = starts.pop(0)
            continue
        if not points:
            break
        pair = points[-2:] if len(points) >= 2 else [floor_points[0], points[-1]]
        nxt = _log_log_secant(pair[0], pair[1], log_delta)
        below = [pt[0] for pt in points if pt[1] < log_delta]
        above = [pt[0] for pt in points if pt[1] > log_delta]
        if below and above:
            lo, hi = max(below), min(above)
            if nxt is None or not lo < nxt < hi:
                nxt = (lo + hi) / 2
        if nxt is None or not math.exp(nxt) > pure or any(abs(nxt - pt[0]) < 1e-12 for pt in points):
            break
        lb = nxt
    if best is None:
        return rate_power_law
    return math.exp(best[0])


def _coarse_log_delta(dimension: int, alpha: float, power: float, epsilon: float, log_delta: float,
                      sensitivity: float, lb: float) -> float | None:
    """``ln delta`` at ``beta = e^lb`` from one coarse radial-engine evaluation (64 bits, relative width
    1e-3, at most 3000 bins), as a float guess; ``None`` on any failure.  Decides nothing."""
    try:
        with working_precision(64):
            enc = sgg_delta_enclosure(dimension, Fraction(alpha), Fraction(power), arb(repr(lb)).exp(),
                                      Fraction(epsilon), Fraction(sensitivity), eta=arb(2) ** -4096,
                                      rel_eta=1e-3, log_delta_hint=log_delta, max_bins=3000)
            if not (enc.lower > 0 and _finite_arb(enc.upper)):
                return None
            ld1 = float(((enc.lower + enc.upper) / 2).log().mid())
    except ResourceExhausted:
        raise       # the caller's budget ran out: not a failure of the guess
    except (RadialPrecisionError, UndecidedError, ArithmeticError, ValueError):
        return None
    return ld1 if math.isfinite(ld1) else None


def _log_log_secant(a: tuple[float, float], b: tuple[float, float], log_delta: float) -> float | None:
    """``ln beta`` where the secant through ``(ln beta, ln(-ln delta))`` at the points ``a``, ``b`` (pairs
    ``(ln beta, ln delta)``, ``delta < 1``) reaches ``ln delta = log_delta``; ``None`` if it is not
    decreasing (delta grows with beta) or not finite.  A guess."""
    (x0, d0), (x1, d1) = a, b
    if not (d0 < 0 and d1 < 0 and log_delta < 0) or x0 == x1:
        return None
    y0, y1, y = math.log(-d0), math.log(-d1), math.log(-log_delta)
    m = (y1 - y0) / (x1 - x0)
    if not (m < 0 and math.isfinite(m)):
        return None
    x = x1 + (y - y1) / m
    return x if math.isfinite(x) else None


def _log_secant(a: tuple[float, float], b: tuple[float, float], log_delta: float) -> float | None:
    """``ln beta`` where the secant of ``ln delta`` in ``ln beta`` through the points ``a``, ``b`` (pairs
    ``(ln beta, ln delta)``) reaches ``log_delta``; ``None`` if it is not increasing or not finite.  A guess."""
    (x0, d0), (x1, d1) = a, b
    if x0 == x1:
        return None
    m = (d1 - d0) / (x1 - x0)
    if not (m > 0 and math.isfinite(m)):
        return None
    x = x1 + (log_delta - d1) / m
    return x if math.isfinite(x) else None


def _scale_free_regime(dimension: int, alpha: float, power: float, epsilon: float, log_zs: float) -> bool:
    """Float test (a guess) that ``delta ~ C z_s^k`` (``z_s = beta s^p``, ``alpha < T - 1``) holds: ``z_s
    t_max^p < 1e-3`` with ``t_max = 1 / (1 - e^(-eps / (2 |c1|)))`` the outer end, in units of ``s``, of
    the B layer that the scale-free integral (:func:`_scale_free_rate`) spans; the Gamma factor
    ``e^(-z_s t^p)`` it drops is then 1 to 1e-3.  ``z_s < 1e-3`` alone was the old test: at T = 1000, eps
    = 0.01 the layer reaches ``t ~ 5e4`` (``|c1| = 250``) and the bulk of the noise, not the layer, carries
    delta."""
    c1 = (alpha + 1.0 - dimension) / 2.0
    if not (c1 < 0 and epsilon > 0):
        return False
    log_t_max = -math.log(-math.expm1(-epsilon / (2.0 * -c1)))
    return log_zs + power * log_t_max < math.log(1e-3)


def _finite_arb(x) -> bool:
    return bool(x.is_finite())


def _scale_free_rate(dimension: int, alpha: float, power: float, epsilon: float, log_delta: float,
                     sensitivity: float, nodes: int = 512):
    """float beta from the scale-free limit of delta for ``alpha < T - 1`` (a guess; ``None`` where it does
    not apply).

    With ``r = s t`` and ``z_s = beta s^p -> 0`` the radial law is ``p z_s^k t^alpha dt / Gamma(k)`` and the
    loss ``c1 ln Q``, ``Q = (t^2 + 2 w t + 1)/t^2``, so the threshold is explicit and
    ``delta ~ (p z_s^k / Gamma(k)) I(T, alpha, eps)`` (tests/test_sgg_tiny_delta.py has the R1SMG case).  With
    ``E = e^(eps/|c1|)``: the A side is ``a^(alpha+1)/(alpha+1)`` (``t < a = 1/(sqrt E + 1)``, ``w* = -1``) plus
    the layer ``t = 1/(sqrt E + c)``, ``c in [-1, 1]``, where ``w0 = -(1 + 2 c sqrt E + c^2)/(2 (sqrt E + c))``;
    the B side is the layer ``t = 1/(1 - c sqrt E')``, ``E' = 1/E``, with ``1 + w0 = t E' (1 - c^2)/2`` (no
    cancellation: the layer is ``e^-(eps/(2|c1|))`` wide, below the doubles at eps = 50, where the quadrature
    extrapolated from its root at 1e-12 put R1SMG T = 2 at (50, 1e-300) 1e20 below the root in beta and the
    bracket walked ~60 doublings).  Gauss-Legendre in ``c = sin(theta)`` (square-root ends), 512 nodes: at large
    ``|c1|`` the layers reach ``t ~ 1/(1 - e^(-eps/(2|c1|)))`` (1e5 at T = 1000, eps = 0.01), so both integrands
    peak within ~1e-5 of ``c = +-1``; 96 nodes left the integral 4e-6 off there, i.e. the rate 6.7e-5 off for
    ``k = 1/16`` (alpha = -1/2, p = 8), and the walk crawled on enclosures just narrow enough to decide (8
    probes, 27 s).  Used only where :func:`_scale_free_regime` holds at the root (the ``z_s`` terms dropped are
    then small)."""
    from scipy.special import betainc, gammaln

    T = int(dimension)
    c1 = (alpha + 1.0 - T) / 2.0
    if not c1 < 0 or not (epsilon > 0):
        return None
    k = (alpha + 1.0) / power
    a = 0.5 * (T - 1.0)
    x, wts = np.polynomial.legendre.leggauss(nodes)
    theta = 0.5 * math.pi * x
    c = np.sin(theta)
    dc = 0.5 * math.pi * wts * np.cos(theta)
    half_log_e = epsilon / (2.0 * -c1)                     # ln sqrt E
    with np.errstate(all="ignore"):
        if half_log_e < 700.0:
            se = math.exp(half_log_e)
            t_a = 1.0 / (se + c)
            w0 = -(1.0 + 2.0 * c * se + c * c) / (2.0 * (se + c))
            g_a = betainc(a, a, np.clip((1.0 - w0) / 2.0, 0.0, 1.0))        # F_W(-w0)
            a_side = (1.0 / (se + 1.0)) ** (alpha + 1.0) / (alpha + 1.0) + float(np.sum(dc * t_a ** alpha * g_a * t_a * t_a))
        else:
            return None
        sep = math.exp(-half_log_e)                         # sqrt E'
        t_b = 1.0 / (1.0 - c * sep)
        v = t_b * sep * sep * (1.0 - c * c) / 2.0           # 1 + w0
        g_b = betainc(a, a, np.clip(v / 2.0, 0.0, 1.0))
        b_side = float(np.sum(dc * t_b ** alpha * g_b * sep * t_b * t_b))
    integral = a_side - math.exp(epsilon) * b_side
    if not (math.isfinite(integral) and integral > 0):
        return None
    log_zs = float((log_delta - math.log(power) + float(gammaln(k)) - math.log(integral)) / k)
    if not _scale_free_regime(T, alpha, power, epsilon, log_zs):
        return None
    return _rate_of_log(log_zs - power * math.log(sensitivity))


def _rate_of_log(lb: float):
    """``e^lb`` as a float, or beyond the double range (R1SMG at delta = 1e-300 needs beta ~ 1e-600) as
    a Decimal guess."""
    if -700.0 < lb < 700.0:
        return math.exp(lb)
    from decimal import Decimal, localcontext

    with localcontext() as dctx:
        dctx.prec = 20
        return Decimal(10) ** Decimal(repr(lb / math.log(10.0)))


def _quadrature_rate_root(dimension: int, alpha: float, power: float, epsilon: float, log_delta: float,
                          sensitivity: float, panels: int = 240, nodes: int = 16) -> float | None:
    from scipy.optimize import brentq

    def f(t: float) -> float:
        d = sgg_delta_float(dimension, alpha, power, math.exp(t), epsilon, sensitivity, panels, nodes)
        if d is None:
            raise ValueError
        return (math.log(d) if d > 0 else -1e300) - log_delta

    # beta = (lambda)^(-p): start with noise scale ~ s * T / eps
    t0 = -power * math.log(max(sensitivity * max(dimension, 1) / max(epsilon, 1e-3), 1e-300))
    try:
        # steps 2, 2, 4, 4, 8, ...: small T with alpha near -1 and large p has delta ~ beta^((alpha+1)/p)
        # (1/16 for T = 2, alpha = -1/2, p = 8: beta ~ 1e-190 at delta = 1e-12), within the doubles
        lo, hi = t0 - 1.0, t0 + 1.0
        for i in range(40):
            if f(lo) < 0:
                break
            lo = max(lo - 2.0 ** (1 + i // 2), -700.0)
        for i in range(40):
            if f(hi) > 0:
                break
            hi = min(hi + 2.0 ** (1 + i // 2), 700.0)
        if not (f(lo) < 0 < f(hi)):
            return None
        t = brentq(f, lo, hi, xtol=1e-13, rtol=1e-13, maxiter=200)
    except (ValueError, OverflowError, ZeroDivisionError):
        return None
    beta = math.exp(t)
    return beta if math.isfinite(beta) and beta > 0 else None


# ----------------------------------------------------------------------------- moments / sampler
def radial_moment(m: int, alpha: arb, power: arb, rate: arb) -> arb:
    """``E R^m`` for ``R ~ GGamma(alpha, rate, power)``: Gamma((alpha+1+m)/p) / (Gamma((alpha+1)/p) beta^(m/p)).

    Evaluated by the generated evaluator ``certdp.generated.arb_sgg.radius_moment``
    (SymPy derivation ``certdp/symbolic/sgg.py``, proof ``proofs/sgg_radius_def4_1.py``).
    """
    from certdp.generated import arb_sgg

    return arb_sgg.radius_moment(arb(m), alpha, rate, power)


def sample_sgg(size, dimension: int, alpha: float, power: float, rate: float,
               rng: np.random.Generator) -> np.ndarray:
    """Draw SGG noise: ``R = (Z/beta)^(1/p)``, ``Z ~ Gamma((alpha+1)/p, 1)``, times a uniform direction."""
    shape = (size,) if isinstance(size, int) else tuple(size)
    k = (alpha + 1.0) / power
    z = rng.gamma(k, 1.0, size=shape)
    radius = (z / rate) ** (1.0 / power)
    g = rng.standard_normal(size=shape + (dimension,))
    g /= np.linalg.norm(g, axis=-1, keepdims=True)
    return g * radius[..., None]


def _parse_shape(dimension, alpha, power, sensitivity) -> dict[str, Any]:
    T = parse_positive_int(dimension, "dimension")
    if T < 2:
        raise InputError("dimension", "SGG needs dimension T >= 2 (T = 1 is the generalized Gaussian)")
    a = parse_exact(alpha, "alpha")
    if not (-1 < a <= T - 1):
        raise InputError("alpha", f"must lie in (-1, T-1] = (-1, {T - 1}] (seed 003 Lemma 4.1)")
    p = parse_positive(power, "power")
    s = parse_positive(sensitivity, "sensitivity")
    return {"dimension": T, "alpha": a, "power": p, "sensitivity": s}


# ----------------------------------------------------------------------------- mechanisms
@register
class SGG(Mechanism):
    """Spherical generalized gamma noise ``SGG(alpha, beta, p)`` in ``R^T``; calibrated on the rate ``beta``."""

    name = "sgg"
    aliases = ("spherical-generalized-gamma",)
    parameter = "rate"
    profile_increasing = True
    method = _METHOD
    lemma = _LEMMA

    def __init__(self, rate: object, *, dimension: object, alpha: object, power: object,
                 sensitivity: object = 1):
        self.rate: Fraction | arb = rate if isinstance(rate, arb) else parse_positive(rate, "rate")
        fixed = self.parse_fixed(dimension=dimension, alpha=alpha, power=power, sensitivity=sensitivity)
        self.dimension = fixed["dimension"]
        self.alpha = fixed["alpha"]
        self.power = fixed["power"]
        self.sensitivity = fixed["sensitivity"]

    @classmethod
    def parse_fixed(cls, dimension: object = None, alpha: object = None, power: object = None,
                    sensitivity: object = 1) -> dict[str, Any]:
        for name, v in (("dimension", dimension), ("alpha", alpha), ("power", power)):
            if v is None:
                raise InputError(name, "required for the sgg mechanism")
        return _parse_shape(dimension, alpha, power, sensitivity)

    @property
    def value(self):
        return self.rate

    def fixed_parameters(self) -> dict[str, Any]:
        return {"dimension": self.dimension, "alpha": self.alpha, "power": self.power,
                "sensitivity": self.sensitivity}

    @classmethod
    def profile_ball(cls, value: arb, epsilon: arb, dimension: int = 2, alpha: Fraction = Fraction(1),
                     power: Fraction = Fraction(2), sensitivity: Fraction = Fraction(1)) -> arb:
        # called by the calibration bracket: stop once the comparison with its delta is decided
        return sgg_profile_enclosure(dimension, alpha, power, value, epsilon, sensitivity,
                                     decide_against=decision_threshold())

    @classmethod
    def float_candidate(cls, epsilon: float, log_delta: float, dimension: int = 2, alpha: Fraction = Fraction(1),
                        power: Fraction = Fraction(2), sensitivity: Fraction = Fraction(1)) -> float | None:
        if Fraction(alpha) == dimension - 1 and Fraction(power) == 2:
            # the Gaussian member: N(0, sigma^2 I) with beta = 1/(2 sigma^2); its float root works in
            # log space down to any delta (the quadrature candidate underflows below ~1e-16)
            from certdp.mechanisms.gaussian import Gaussian

            sigma = Gaussian.float_candidate(epsilon, log_delta, sensitivity=sensitivity)
            return None if sigma is None else 1.0 / (2.0 * sigma * sigma)
        return sgg_rate_candidate(dimension, float(alpha), float(power), epsilon, log_delta, float(sensitivity))

    def privacy_profile(self, epsilon: object, *, relative_accuracy_bits: int = 40) -> Enclosure:
        """Certified enclosure of delta(eps) at 128 bits (relative width ~1e-13)."""
        eps = parse_nonnegative(epsilon, "epsilon")
        rel = 2.0 ** -relative_accuracy_bits
        reached: list = []
        rate = self.rate if isinstance(self.rate, arb) else self.rate
        for bits in (128, 256, 512, 1024):
            with working_precision(bits):
                ball = sgg_profile_enclosure(self.dimension, self.alpha, self.power, rate,
                                             eps, self.sensitivity, relative_eta=rel, reached=reached)
                if ball.is_finite():
                    return Enclosure.from_arb(ball, bits)
        msg = "sgg: radial engine did not reach the requested width at 1024 bits"
        if reached:
            enc, bits = reached[-1]
            msg += (f"; reached enclosure [{enc.lower.str(10, radius=False)}, "
                    f"{enc.upper.str(10, radius=False)}] at {bits} bits with {enc.bins} bins")
        raise UndecidedError(msg)

    def _rate_ball(self) -> arb:
        return self.rate if isinstance(self.rate, arb) else arb_of(self.rate)

    def radial_moment(self, m: int) -> arb:
        return radial_moment(m, arb_of(self.alpha), arb_of(self.power), self._rate_ball())

    def mean_abs(self) -> arb:
        """E||X|| = E R."""
        return self.radial_moment(1)

    def mean_square(self) -> arb:
        """MSE = E||X||^2 = E R^2."""
        return self.radial_moment(2)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        return sample_sgg(size, self.dimension, float(self.alpha), float(self.power),
                          float(self._rate_ball().mid()), rng)


class _Preset(Mechanism):
    """An SGG member with fixed (alpha, p) as a function of T, calibrated on a scale parameter."""

    profile_increasing = False
    method = _METHOD
    lemma = _LEMMA

    def __init__(self, value: object, *, dimension: object, sensitivity: object = 1):
        self._value: Fraction | arb = value if isinstance(value, arb) else parse_positive(value, self.parameter)
        fixed = self.parse_fixed(dimension=dimension, sensitivity=sensitivity)
        self.dimension = fixed["dimension"]
        self.sensitivity = fixed["sensitivity"]

    @classmethod
    def parse_fixed(cls, dimension: object = None, sensitivity: object = 1) -> dict[str, Any]:
        if dimension is None:
            raise InputError("dimension", f"required for {cls.name}")
        T = parse_positive_int(dimension, "dimension")
        if T < 2:
            raise InputError("dimension", "must be >= 2")
        return {"dimension": T, "sensitivity": parse_positive(sensitivity, "sensitivity")}

    @property
    def value(self):
        return self._value

    def fixed_parameters(self) -> dict[str, Any]:
        return {"dimension": self.dimension, "sensitivity": self.sensitivity}

    # subclasses: shape(T) -> (alpha, p); rate_of(value_ball) -> beta ball; value_of_rate(float) -> float
    @classmethod
    @abstractmethod
    def shape(cls, T: int) -> tuple[Fraction, Fraction]:
        """(alpha, p) of this preset in dimension T."""

    @classmethod
    @abstractmethod
    def rate_of(cls, value: arb) -> arb:
        """The SGG rate beta as a ball, from the preset parameter ball."""

    @classmethod
    @abstractmethod
    def value_of_rate(cls, beta: float) -> float:
        """Inverse of rate_of in float64 (for float candidates only)."""

    @classmethod
    def profile_ball(cls, value: arb, epsilon: arb, dimension: int = 2,
                     sensitivity: Fraction = Fraction(1)) -> arb:
        alpha, power = cls.shape(dimension)
        return sgg_profile_enclosure(dimension, alpha, power, cls.rate_of(value), epsilon, sensitivity,
                                     decide_against=decision_threshold())

    @classmethod
    def float_candidate(cls, epsilon: float, log_delta: float, dimension: int = 2,
                        sensitivity: Fraction = Fraction(1)) -> float | None:
        alpha, power = cls.shape(dimension)
        beta = sgg_rate_candidate(dimension, float(alpha), float(power), epsilon, log_delta, float(sensitivity))
        if beta is None:
            return None
        try:
            return cls.value_of_rate(beta)
        except (OverflowError, ZeroDivisionError):
            return None

    def as_sgg(self) -> SGG:
        alpha, power = self.shape(self.dimension)
        return SGG(self.rate_of(self._value if isinstance(self._value, arb) else arb_of(self._value)),
                   dimension=self.dimension, alpha=alpha, power=power, sensitivity=self.sensitivity)

    def privacy_profile(self, epsilon: object, *, relative_accuracy_bits: int = 40) -> Enclosure:
        with working_precision(256):
            return self.as_sgg().privacy_profile(epsilon, relative_accuracy_bits=relative_accuracy_bits)

    def mean_abs(self) -> arb:
        return self.as_sgg().mean_abs()

    def mean_square(self) -> arb:
        return self.as_sgg().mean_square()

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        return self.as_sgg().sample(size, rng)


@register
class L2Laplace(_Preset):
    """l2-Laplace noise (Joseph et al. 2025): SGG with alpha = T-1, p = 1, beta = 1/theta."""

    name = "l2-laplace"
    parameter = "theta"

    @classmethod
    def shape(cls, T):
        return Fraction(T - 1), Fraction(1)

    @classmethod
    def rate_of(cls, value):
        return 1 / value

    @classmethod
    def value_of_rate(cls, beta):
        return 1 / beta              # float or Decimal (a candidate beyond the double range)

    @classmethod
    def float_candidate(cls, epsilon: float, log_delta: float, dimension: int = 2,
                        sensitivity: Fraction = Fraction(1)) -> float | None:
        """The quadrature candidate, capped by the pure-DP scale ``s / eps`` (the loss is bounded by
        ``s / theta``, so ``theta >= s / eps`` is private for every delta, Prop. of seed 003 Def. 4.2):
        for tiny delta the minimal theta sits just below ``s / eps``, where the float quadrature fails."""
        pure = float(sensitivity) / epsilon
        if log_delta < math.log(1e-13):
            # below the float quadrature's resolution (1 - F_W cancels): start at the pure-DP scale,
            # the bracket walks down from there
            return pure * (1 - 1e-9)
        cand = super().float_candidate(epsilon, log_delta, dimension=dimension, sensitivity=sensitivity)
        if cand is None or not (0 < cand < pure):
            return pure * (1 - 1e-9)
        return cand


@register
class R1SMG(_Preset):
    """Rank-1 singular multivariate Gaussian (Ji & Li 2024): SGG with alpha = 0, p = 2, beta = 1/(2 sigma_star).

    Equivalently ``X = sqrt(sigma_star) |N(0,1)| U``: a half-normal radius of
    variance ``sigma_star`` along a uniform direction (seed 003 App. E.1).
    """

    name = "r1smg"
    parameter = "sigma_star"

    @classmethod
    def shape(cls, T):
        return Fraction(0), Fraction(2)

    @classmethod
    def rate_of(cls, value):
        return 1 / (2 * value)

    @classmethod
    def value_of_rate(cls, beta):
        return 1 / (2 * beta)        # float or Decimal (a candidate beyond the double range)


@register
class SphericalGaussian(_Preset):
    """N(0, sigma^2 I_T) as the SGG member alpha = T-1, p = 2, beta = 1/(2 sigma^2).

    The profile is the 1-D analytic Gaussian with Delta = s (rotate the shift
    onto an axis; closed form, Balle & Wang 2018 Thm. 8), so calibration is as
    fast as for ``gaussian``; :meth:`radial_profile_ball` gives the same number
    through the radial engine (the consistency test).
    """

    name = "spherical-gaussian"
    parameter = "sigma"
    method = "closed-form analytic Gaussian profile with Delta = s (spherical Gaussian = SGG(T-1, 1/(2 sigma^2), 2))"
    lemma = "Balle & Wang 2018, Thm. 8; seed 003 Def. 4.2 (i)"

    @classmethod
    def shape(cls, T):
        return Fraction(T - 1), Fraction(2)

    @classmethod
    def rate_of(cls, value):
        return 1 / (2 * value * value)

    @classmethod
    def value_of_rate(cls, beta):
        return math.sqrt(1.0 / (2.0 * beta))

    @classmethod
    def profile_ball(cls, value: arb, epsilon: arb, dimension: int = 2,
                     sensitivity: Fraction = Fraction(1)) -> arb:
        return gaussian_profile(value, epsilon, arb_of(sensitivity))

    @classmethod
    def radial_profile_ball(cls, value: arb, epsilon: arb, dimension: int = 2,
                            sensitivity: Fraction = Fraction(1)) -> arb:
        """The same profile through the radial engine (Lemma 4.1), independent of the closed form."""
        return _Preset.profile_ball.__func__(cls, value, epsilon, dimension, sensitivity)

    @classmethod
    def independent_profile_ball(cls, value: arb, epsilon: arb, dimension: int = 2,
                                 sensitivity: Fraction = Fraction(1)) -> arb:
        """Used by ``certdp verify``: the radial engine, a formula-independent path."""
        return cls.radial_profile_ball(value, epsilon, dimension, sensitivity)

    @classmethod
    def float_candidate(cls, epsilon: float, log_delta: float, dimension: int = 2,
                        sensitivity: Fraction = Fraction(1)) -> float | None:
        from certdp.mechanisms.gaussian import Gaussian

        return Gaussian.float_candidate(epsilon, log_delta, sensitivity=sensitivity)

    def privacy_profile(self, epsilon: object, *, relative_accuracy_bits: int = 40) -> Enclosure:
        return Mechanism.privacy_profile(self, epsilon, relative_accuracy_bits=relative_accuracy_bits)

    def mean_square(self) -> arb:
        v = self._value if isinstance(self._value, arb) else arb_of(self._value)
        return self.dimension * v * v
