"""Monotone privacy-loss engine: one-dimensional generalized Gaussian noise.

Mathematical structure (seed 004, Sec. 3.1-3.2, App. B.1-B.3)
---------------------------------------------------------------
For X ~ GGD(0, b, p) with density p / (2 b Gamma(1/p)) exp(-|x/b|^p) and a shift
Delta > 0, the privacy loss of the pair (X, X + Delta) at z is

    L(z) = (|z + Delta|^p - |z|^p) / b^p .

For p > 1 it is strictly increasing in z (Lemma 3.1), so the hockey-stick
divergence is

    delta_p(b) = S(z*) - e^eps S(z* + Delta),    phi_p(z*) = eps b^p,

with S the survival function of X and z* the unique root (Thm 3.2).  Writing
u = z / Delta and c = eps (b / Delta)^p, the root solves
phi(u) = |u + 1|^p - |u|^p = c; phi(-1/2) = 0, phi(0) = 1, so u* > -1/2 and
u* < 0 iff c < 1.  For u > 0 we use the cancellation-free form

    log phi(u) = p log u + log expm1(p log1p(1/u)),

in the variable w = log u, so roots u* = e^(1e5) (p close to 1, large b) cost
nothing.

Certification
-------------
* The root is *bracketed*: two exact points whose loss is proven below / above
  eps b^p for every (p, b) in the input balls, so z*(p, b) lies strictly between
  them for every such (p, b).
* g(t) = S(t) - e^eps S(t + Delta) has g'(t) = -f(t) + e^eps f(t + Delta), which
  is >= 0 exactly when L(t) <= eps: g is maximised at t = z*.  Hence
    - lower bound: delta_p(b) >= g(t0) for ANY t0 (we use the bracket midpoint);
    - upper bound: delta_p(b) = g(z*) <= S(z_lo) - e^eps S(z_hi + Delta) because
      S is decreasing and z_lo < z* < z_hi.
  Both are evaluated with Arb (regularized incomplete gamma), with p and b
  allowed to be balls: the result encloses delta_p(b) for every p, b in the balls.
  This is what the certified shape search uses (an enclosure valid on a whole
  p-interval).
* The same argument is valid at p = 1 whenever eps b < Delta (the loss is then
  strictly increasing on (-Delta, 0) and the root lies there), so p-balls that
  touch 1 are fine in that regime.  For the point p = 1 and for p = infinity
  the closed forms below are used.

Closed forms
------------
* p = 1 (Prop. 3.3): delta_1(b) = [1 - exp((eps b - Delta) / (2 b))]_+ .
* p = infinity (uniform on [-b, b]): delta_inf(b) = min(1, Delta / (2 b)),
  independent of eps (the likelihood ratio is 1 or infinite).

Everything here works at the current flint precision (``ctx.prec``); callers
escalate.  Functions return ``None`` when a decision needed for the bracket was
impossible at this precision (never a guess).
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from certdp.numbers.balls import to_arb

__all__ = [
    "ggm_survival",
    "loss_root_bracket",
    "delta_enclosure",
    "delta_laplace",
    "delta_uniform",
    "float_log_delta",
    "float_scale",
]




# --------------------------------------------------------------------------------------
# Survival function
# --------------------------------------------------------------------------------------

def _survival_from_log(sign: int, log_abs_t: arb | None, p: arb, log_b: arb) -> arb:
    """S(t) = P(X > t) for t = sign * exp(log_abs_t) (sign 0: t = 0), X ~ GGD(0,b,p).

    S(t) = Q(1/p, (|t|/b)^p) / 2 for t > 0 and 1 - Q(1/p, (|t|/b)^p) / 2 for t < 0
    (regularized upper incomplete gamma Q; (|X|/b)^p ~ Gamma(1/p, 1)).
    Valid for balls p, log_b, log_abs_t (encloses S over all of them).
    """
    if sign == 0:
        return arb(1) / 2
    x = (p * (log_abs_t - log_b)).exp()
    s = 1 / p
    if s.rad() < 2.0**-40 * s.mid() and x.rad() < 2.0**-40 * x.mid():
        # (near-)point parameters: Arb's own ball propagation is accurate here
        q = x.gamma_upper(s, regularized=1)
    else:
        # Arb's incomplete gamma propagates wide parameter balls poorly.  Q(s, x) is
        # increasing in s (Gamma(s) is stochastically increasing in its shape) and
        # decreasing in x, so its range over the box is spanned by two corners.
        s_lo, s_hi = arb(s.lower()), arb(s.upper())
        x_lo, x_hi = arb(x.lower()), arb(x.upper())
        if x_lo < 0:
            x_lo = arb(0)
        q = x_hi.gamma_upper(s_lo, regularized=1).union(x_lo.gamma_upper(s_hi, regularized=1))
    if sign > 0:
        return q / 2
    return 1 - q / 2


def ggm_survival(t, p, b) -> arb:
    """Enclosure of S(t) = P(X > t), X ~ GGD(0, b, p), p >= 1 finite.

    ``t`` must be a point or a ball not containing 0 (then S is evaluated at
    both endpoints, S being decreasing); p and b may be balls.
    """
    t, p, b = to_arb(t), to_arb(p), to_arb(b)
    log_b = b.log()
    if t.is_exact():
        if t == 0:
            return arb(1) / 2
        sign = 1 if t > 0 else -1
        return _survival_from_log(sign, abs(t).log(), p, log_b)
    lo, hi = arb(t.lower()), arb(t.upper())
    return ggm_survival(lo, p, b).union(ggm_survival(hi, p, b))


# --------------------------------------------------------------------------------------
# Root of the loss equation, phi(u) = |u+1|^p - |u|^p = c, u = z / Delta
# --------------------------------------------------------------------------------------
# An endpoint is ("u", Fraction u) with -1/2 <= u <= 0, or ("w", Fraction w) meaning
# u = exp(w) > 0.  Both are exact points; only p and c carry uncertainty.


def _log_phi_minus_log_c(point, p: arb, log_c: arb) -> arb:
    """Ball for log(phi(u)) - log(c) (or phi(u) - c for u <= 0; same sign)."""
    kind, v = point
    if kind == "w":
        w = to_arb(v)
        inv_u = (-w).exp()
        return p * w + (p * inv_u.log1p()).expm1().log() - log_c
    u = to_arb(v)
    if u == 0:
        return arb(1) - log_c.exp()
    # -1/2 <= u < 0: phi(u) = (1+u)^p - (-u)^p, compared with c directly
    return (1 + u) ** p - (-u) ** p - log_c.exp()


def _safeguarded_newton(fd, lo: float, hi: float, x0: float, tol: float) -> float:
    """Root of an increasing function on [lo, hi] (fd returns (f, f')): Newton, bisection fallback."""
    x = min(max(x0, lo), hi)
    for _ in range(100):
        fx, dfx = fd(x)
        if fx == 0.0:
            return x
        if fx < 0.0:
            lo = x
        else:
            hi = x
        step = fx / dfx if dfx > 0 and math.isfinite(dfx) else math.nan
        nx = x - step
        if not (lo < nx < hi) or not math.isfinite(nx):
            nx = 0.5 * (lo + hi)
        if abs(nx - x) <= tol * max(1.0, abs(nx)) or hi - lo <= tol * max(1.0, abs(lo), abs(hi)):
            return nx
        x = nx
    return x


def _float_phi_root(p: float, log_c: float):
    """Float64 candidate for the root, as an endpoint-like (kind, float)."""
    if not (p > 1.0):
        p = 1.0 + 1e-15
    if log_c < 0.0:
        c = math.exp(log_c)

        def fu(u):
            a, b = 1.0 + u, -u
            return a**p - b**p - c, p * (a ** (p - 1.0) + b ** (p - 1.0))

        return ("u", _safeguarded_newton(fu, -0.5, 0.0, -0.5 + 0.5 * c, 1e-15))

    def hd(w):
        """(h(w), h'(w)) with h(w) = log phi(e^w) - log c, cancellation-free."""
        if w < -700.0:
            return -log_c, 0.0
        if w < 0.0:
            u = math.exp(w)
            l1 = math.log1p(u)
            r = math.exp(p * (w - l1))  # (u / (1 + u))^p < 1
            if not r < 1.0:
                return -math.inf, math.inf
            val = p * l1 + math.log1p(-r) - log_c
            # d/dw: u (p (1+u)^(p-1) - p u^(p-1)) / ((1+u)^p - u^p)
            der = p * u / (1.0 + u) * (1.0 - r / u * (1.0 + u) * u / (1.0 + u)) / (1.0 - r)
            der = p * (u / (1.0 + u) - r) / (1.0 - r)
            return val, der
        if w < 690.0:
            e = math.exp(-w)
            y = p * math.log1p(e)
            if y > 30.0:
                lv = y + math.log1p(-math.exp(-y))
                ratio = 1.0
            else:
                em = math.expm1(y)
                if em <= 0.0:
                    return -math.inf, math.inf
                lv = math.log(em)
                ratio = (em + 1.0) / em
            val = p * w + lv - log_c
            der = p - p * e / (1.0 + e) * ratio
            return val, der
        # expm1(p log1p(e^-w)) = p e^-w (1 + (p-1) e^-w / 2 + ...)
        return (p - 1.0) * w + math.log(p) - log_c, p - 1.0

    lo, hi = -1.0, 1.0
    k = 0
    while hd(lo)[0] > 0.0 and k < 9:
        lo *= 2.0
        k += 1
    if hd(lo)[0] > 0.0:
        return ("w", lo)
    k = 0
    while hd(hi)[0] < 0.0 and k < 2000:
        hi *= 2.0
        k += 1
    if not math.isfinite(hi) or hd(hi)[0] < 0.0:
        return ("w", math.inf)
    # start: asymptotic root (p-1) w = log c - log p for large w, else the bracket middle
    x0 = (log_c - math.log(p)) / (p - 1.0)
    if not (lo < x0 < hi):
        x0 = 0.5 * (lo + hi)
    return ("w", _safeguarded_newton(hd, lo, hi, x0, 1e-15))


def _frac(x: float) -> Fraction:
    return Fraction(x)


def loss_root_bracket(p, b, eps, delta_sens, *, max_steps: int = 80):
    """Certified bracket of the root z* of |z+Delta|^p - |z|^p = eps b^p.

    Returns ``(lo, hi)`` endpoints in the ("u", u) / ("w", log u) encoding of
    u = z / Delta, such that for EVERY p in the ball ``p`` (all > 1, or touching
    1 only where eps b < Delta) and every b in the ball ``b``, phi(lo) < c < phi(hi)
    holds (proven), hence z*(p, b) lies strictly inside.  ``None`` when the signs
    cannot be decided at the current precision.
    """
    p, b, eps, d = (to_arb(v) for v in (p, b, eps, delta_sens))
    log_c = eps.log() + p * (b.log() - d.log())
    pf = float(p.mid())
    lcf = float(log_c.mid())
    kind, v = _float_phi_root(pf, lcf)
    if not math.isfinite(v):
        return None

    def below(pt):  # proven phi(pt) < c for all parameters
        return _log_phi_minus_log_c(pt, p, log_c) < 0

    def above(pt):
        return _log_phi_minus_log_c(pt, p, log_c) > 0

    # radius in the working coordinate, widened geometrically until both signs are proven
    rad = max(abs(v), 1e-300) * 2.0 ** (-min(ctx_prec(), 200) + 8)
    rad = max(rad, 1e-300)
    if p.rad() > 0 or log_c.rad() > 2.0 ** (-ctx_prec() + 16) * (1 + abs(float(log_c.mid()))):
        # parameter balls: start from the spread of the float roots over the corners
        spread = 0.0
        for pc in (float(p.lower()), float(p.upper())):
            for lc in (float(log_c.lower()), float(log_c.upper())):
                k2, v2 = _float_phi_root(max(pc, 1.0), lc)
                if k2 == kind and math.isfinite(v2):
                    spread = max(spread, abs(v2 - v))
        rad = max(rad, 1.05 * spread)
    lo_pt = hi_pt = None
    for _ in range(max_steps):
        if kind == "u":
            lo_v = max(v - rad, -0.5)
            hi_v = v + rad
            lo_c = ("u", _frac(lo_v))
            if hi_v >= 0.0:
                hi_c = ("u", Fraction(0))
            else:
                hi_c = ("u", _frac(hi_v))
        else:
            lo_c = ("w", _frac(v - rad))
            hi_c = ("w", _frac(v + rad))
        if lo_pt is None and below(lo_c):
            lo_pt = lo_c
        if hi_pt is None and above(hi_c):
            hi_pt = hi_c
        if lo_pt is not None and hi_pt is not None:
            return _refine(lo_pt, hi_pt, below, above)
        # the lower w-end may have to fall back to u = 0 (phi = 1) and then below
        if kind == "w" and lo_pt is None and v - rad < -60.0:
            if below(("u", Fraction(0))):
                lo_pt = ("u", Fraction(0))
            else:
                kind_switch = ("u", Fraction(-1, 2) + Fraction(1, 2**60))
                if below(kind_switch):
                    lo_pt = kind_switch
        if kind == "u" and hi_pt is None and v + rad >= 0.0:
            # move to the w coordinate for the upper end
            for w in (-60.0, -30.0, -10.0, 0.0, 10.0, 50.0, 200.0, 1000.0, 1e4, 1e5):
                if above(("w", _frac(w))):
                    hi_pt = ("w", _frac(w))
                    break
            if hi_pt is None:
                return None
        rad *= 16.0
    return None


def _refine(lo_pt, hi_pt, below, above):
    """Bisect a certified bracket (same coordinate) towards 2^-(prec - 8) relative width.

    Stops at the first undecided midpoint (e.g. when p is a wide ball); every
    accepted endpoint is still certified, so the result remains a bracket.
    """
    if lo_pt[0] != hi_pt[0]:
        return lo_pt, hi_pt
    kind = lo_pt[0]
    # the second-order (flat) upper bound squares the bracket width, so half the bits suffice
    target = Fraction(1, 2 ** max(ctx_prec() // 2 - 4, 8))
    for _ in range(2 * ctx_prec()):
        a, c = lo_pt[1], hi_pt[1]
        scale = max(abs(a), abs(c), Fraction(1, 2**40))
        if c - a <= target * scale:
            break
        mid = (kind, _round_frac((a + c) / 2, ctx_prec() + 8))
        if below(mid):
            lo_pt = mid
        elif above(mid):
            hi_pt = mid
        else:
            break
    return lo_pt, hi_pt


def _round_frac(x: Fraction, bits: int) -> Fraction:
    """A dyadic rational within 2^-bits relative of x (keeps Arb inputs exact and short)."""
    if x == 0:
        return x
    e = x.numerator.bit_length() - x.denominator.bit_length()
    shift = bits - e
    if shift > 0:
        return Fraction(round(x * 2**shift), 2**shift)
    return Fraction(round(x / 2 ** (-shift)) * 2 ** (-shift))


def ctx_prec() -> int:
    from flint import ctx

    return ctx.prec


def _endpoint_log_abs_z(pt, log_d: arb):
    """(sign, log|z|) of z = Delta * u for an endpoint."""
    kind, v = pt
    if kind == "w":
        return 1, log_d + to_arb(v)
    if v == 0:
        return 0, None
    return -1, log_d + (-to_arb(v)).log()


def _endpoint_log_z_plus_delta(pt, log_d: arb):
    """(sign, log|z + Delta|) = (1, log Delta + log(1 + u)); u > -1/2 always."""
    kind, v = pt
    if kind == "w":
        return 1, log_d + to_arb(v).exp().log1p()
    return 1, log_d + to_arb(v).log1p()


def _g(pt, p, log_b, e_eps, log_d):
    """Ball for g(t) = S(t) - e^eps S(t + Delta) at the exact point t = Delta u(pt)."""
    s0 = _survival_from_log(*_endpoint_log_abs_z(pt, log_d), p, log_b)
    s1 = _survival_from_log(*_endpoint_log_z_plus_delta(pt, log_d), p, log_b)
    return s0 - e_eps * s1


def _endpoint_z(pt, d: arb) -> arb:
    kind, v = pt
    if kind == "w":
        return d * to_arb(v).exp()
    return d * to_arb(v)


def _density_pos(log_abs_t: arb, p: arb, b: arb, log_b: arb) -> arb:
    """GGD density at |t| = exp(log_abs_t) (ball), p, b balls."""
    x = (p * (log_abs_t - log_b)).exp()
    return p / (2 * b * (1 / p).gamma()) * (-x).exp()


def _flat_bound(lo, hi, g_mid, p, b, log_b, e_eps, d, log_d):
    """Upper bound g(t_m) + (|Z|/2) sup_Z |g'| (None when Z touches 0)."""
    z_lo, z_hi = _endpoint_z(lo, d), _endpoint_z(hi, d)
    if not (z_lo > 0 or z_hi < 0):
        return None
    z_ball = z_lo.union(z_hi)
    half_width = arb((z_hi - z_lo).upper()) / 2
    log_abs_z = abs(z_ball).log()
    log_z_plus = (z_ball + d).log()
    gprime = -_density_pos(log_abs_z, p, b, log_b) + e_eps * _density_pos(log_z_plus, p, b, log_b)
    bound = g_mid + half_width * abs(gprime)
    return arb(bound.upper())


def _midpoint(lo, hi):
    if lo[0] == hi[0]:
        return (lo[0], (lo[1] + hi[1]) / 2)
    # lo in u-form (<= 0), hi in w-form: use u = 0
    return ("u", Fraction(0))


def delta_enclosure(p, b, eps, delta_sens) -> arb | None:
    """Certified enclosure of delta_p(b) = sup-shift hockey-stick divergence, 1-D.

    Seed 004 Thm 3.2 with the max-at-root argument of the module docstring:
    lower end = g(t0) (any t0), upper end = S(z_lo) - e^eps S(z_hi + Delta).
    ``p`` (> 1, or touching 1 with eps b < Delta), ``b``, ``eps``, ``delta_sens``
    may be balls; the result contains delta_p(b) for all their points.
    Returns ``None`` if the root bracket could not be certified at this precision.
    """
    p, b, eps, d = (to_arb(v) for v in (p, b, eps, delta_sens))
    if eps.is_zero():
        # eps = 0: the loss |z+Delta|^p - |z|^p vanishes at z* = -Delta/2 for every p (symmetry), so
        # delta(0) = g(-Delta/2) = S(-Delta/2) - S(Delta/2), the total-variation distance, exactly
        tv = _g(("u", Fraction(-1, 2)), p, b.log(), arb(1), d.log())
        return arb(0).union(arb(tv.upper())) if tv.lower() < 0 else tv
    br = loss_root_bracket(p, b, eps, d)
    if br is None:
        return None
    lo, hi = br
    log_b = b.log()
    log_d = d.log()
    e_eps = eps.exp()
    upper_s0 = _survival_from_log(*_endpoint_log_abs_z(lo, log_d), p, log_b)
    lower_s1 = _survival_from_log(*_endpoint_log_z_plus_delta(hi, log_d), p, log_b)
    upper = arb((upper_s0 - e_eps * lower_s1).upper())
    g_mid = _g(_midpoint(lo, hi), p, log_b, e_eps, log_d)
    lower = arb(g_mid.lower())
    # second-order bound: g(z*) <= g(t_m) + |z* - t_m| sup_Z |g'|, with
    # g'(t) = -f(t) + e^eps f(t + Delta) vanishing at z*  (much tighter for p-balls)
    second = _flat_bound(lo, hi, g_mid, p, b, log_b, e_eps, d, log_d)
    if second is not None and second < upper:
        upper = second
    if lower < 0:
        lower = arb(0)
    if upper > 1:
        upper = arb(1)
    if upper < lower:  # cannot happen mathematically; guard against misuse
        return None
    return lower.union(upper)


def delta_laplace(b, eps, delta_sens) -> arb:
    """p = 1 closed form (seed 004 Prop. 3.3): [1 - exp((eps b - Delta)/(2b))]_+ ."""
    b, eps, d = (to_arb(v) for v in (b, eps, delta_sens))
    val = 1 - ((eps * b - d) / (2 * b)).exp()
    if val < 0:
        return arb(0)
    if val > 0:
        return val
    # straddles 0: enclosure [0, upper]
    return arb(0).union(arb(val.upper()))


def delta_uniform(b, delta_sens) -> arb:
    """p = infinity closed form: min(1, Delta / (2 b)) (uniform noise on [-b, b])."""
    b, d = to_arb(b), to_arb(delta_sens)
    val = d / (2 * b)
    if val > 1:
        return arb(1)
    if val <= 1:
        return val
    return arb(val.lower()).union(arb(1))


# --------------------------------------------------------------------------------------
# Float64 candidates (never used to decide anything)
# --------------------------------------------------------------------------------------

def float_log_delta(p: float, b: float, eps: float, delta_sens: float) -> float:
    """float64 estimate of log delta_p(b) (p finite > 1); -inf if it underflows."""
    from scipy.special import gammaincc

    if p == 1.0:
        val = -math.expm1((eps * b - delta_sens) / (2.0 * b))
        return math.log(val) if val > 0 else -math.inf
    log_c = math.log(eps) + p * (math.log(b) - math.log(delta_sens))
    kind, v = _float_phi_root(p, log_c)
    if kind == "w":
        if v > 700:
            return -math.inf
        z = delta_sens * math.exp(v)
    else:
        z = delta_sens * v
    s = 1.0 / p

    def sf(t):
        if t == 0.0:
            return 0.5
        lx = p * (math.log(abs(t)) - math.log(b))
        x = math.exp(lx) if lx < 700.0 else math.inf
        q = gammaincc(s, x) / 2.0
        return q if t > 0 else 1.0 - q

    val = sf(z) - math.exp(eps) * sf(z + delta_sens)
    return math.log(val) if val > 0 else -math.inf


def float_scale(p: float, eps: float, delta: float, delta_sens: float,
                hint: float | None = None) -> float | None:
    """float64 candidate for b(p) (smallest scale with delta_p(b) <= delta), or None.

    ``hint`` (a nearby scale) speeds up the bracket search.  Never certified.
    """
    from scipy.optimize import brentq

    if math.isinf(p):
        return delta_sens / (2.0 * delta)
    if p == 1.0:
        return delta_sens / (eps - 2.0 * math.log1p(-delta))
    if p > 1e4:
        return None  # scipy's incomplete gamma loses all accuracy at 1/p < 1e-4
    target = math.log(delta)
    newton = _float_scale_newton(p, eps, target, delta_sens,
                                 hint or delta_sens / (eps - 2.0 * math.log1p(-delta)) * max(1.0, math.sqrt(p)))
    if newton is not None:
        return newton

    def f(lb):
        return float_log_delta(p, math.exp(lb), eps, delta_sens) - target

    try:
        start = math.log(hint) if hint else math.log(delta_sens / (eps - 2.0 * math.log1p(-delta)))
        step = 0.05 if hint else 0.5
        lo, hi = start - step, start + step
        flo, fhi = f(lo), f(hi)
        k = 0
        while flo <= 0 and k < 80:
            hi, fhi = lo, flo
            lo -= step * 2**k
            flo = f(lo)
            k += 1
        k = 0
        while fhi > 0 and k < 80:
            lo, flo = hi, fhi
            hi += step * 2**k
            fhi = f(hi)
            k += 1
        if not (flo > 0 and fhi <= 0):
            return None
        if fhi == -math.inf:
            # underflow on the right: bisect until finite values bracket the root
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                fm = f(mid)
                if fm > 0:
                    lo, flo = mid, fm
                else:
                    hi, fhi = mid, fm
                if math.isfinite(fhi):
                    break
        return math.exp(brentq(f, lo, hi, xtol=1e-15, rtol=1e-15))
    except (ValueError, OverflowError, ZeroDivisionError):
        return None


def _float_scale_newton(p: float, eps: float, log_target: float, d: float, b0: float) -> float | None:
    """Newton on log b for log delta_p(b) = log_target, from a nearby scale ``b0`` (float64).

    d delta / d b = (z* f(z*) - e^eps (z*+Delta) f(z*+Delta)) / b  (envelope theorem: g is
    maximised at z*, and d/db S_b(t) = t f_b(t) / b).  None if it does not converge fast.
    """
    from scipy.special import gammaincc

    s = 1.0 / p
    lg = math.lgamma(s)
    lb = math.log(b0)
    e_eps = math.exp(eps)
    for _ in range(30):
        if not -700.0 < lb < 700.0:  # a diverging Newton step: no float candidate
            return None
        b = math.exp(lb)
        log_c = math.log(eps) + p * (lb - math.log(d))
        kind, v = _float_phi_root(p, log_c)
        if kind == "w":
            if v > 700:
                return None
            z = d * math.exp(v)
        else:
            z = d * v

        def sf_dens(t):
            if t == 0.0:
                return 0.5, 0.0
            lx = p * (math.log(abs(t)) - lb)
            x = math.exp(lx) if lx < 700.0 else math.inf
            q = gammaincc(s, x) / 2.0
            dens = math.exp(math.log(p) - math.log(2.0) - lb - lg - x) if x < 1e300 else 0.0
            return (q if t > 0 else 1.0 - q), dens

        s0, f0 = sf_dens(z)
        s1, f1 = sf_dens(z + d)
        g = s0 - e_eps * s1
        if not g > 0:
            return None
        slope = (z * f0 - e_eps * (z + d) * f1) / g  # d log delta / d log b  (< 0)
        if not slope < 0:
            return None
        step = (math.log(g) - log_target) / slope
        lb -= step
        if abs(step) < 1e-14:
            return math.exp(lb)
    return None
