"""Privacy profiles by rigorous numerical integration: the independent verification paths.

Gaussian, Laplace, uniform and one-dimensional generalized Gaussian noise: the
hockey-stick integral H = int (f(x) - e^eps f(x - Delta))_+ dx by Arb's certified
quadrature (``acb.integral``) between proven roots of the privacy-loss equation and
a cut-off, with analytic tail and sliver bounds.  ``certdp verify`` uses them through
each mechanism's ``independent_profile_ball``.  The Gaussian case:

delta(eps) = int (phi(x) - e^eps phi(x - mu))_+ dx in units of sigma, with
mu = Delta/sigma. The integrand is positive exactly for x < x0 = mu/2 - eps/mu,
so with any exact point ``c <= x0`` and ``L < min(c, 0)``::

    delta = int_L^c g + int_{-inf}^L g + int_c^{x0} g,    g = phi(x) - e^eps phi(x - mu) >= 0 there,

* ``int_L^c g`` is computed by Arb's certified Gauss-Legendre integration
  (``acb.integral``, Petras' algorithm with error bounds) of the integrand
  rescaled by phi(x0), so that a delta of 1e-300 is integrated with a
  *relative* tolerance;
* ``0 <= int_{-inf}^L g <= Phi(L) <= phi(L)/|L|`` (Mills' inequality);
* ``0 <= int_c^{x0} g <= (x0 - c) max_{[c, x0]} phi``.

No erfc is used: this shares no special-function code with
:func:`certdp.engines.closed_form.gaussian_profile`, which is why
``certdp verify`` uses it for Gaussian certificates.
"""

from __future__ import annotations

from flint import acb, arb, ctx

__all__ = ["gaussian_profile_by_integration", "laplace_profile_by_integration", "uniform_profile_by_integration",
           "ggm_profile_by_integration"]


def _point_below(x: arb) -> arb:
    return arb(x.lower())


def gaussian_profile_by_integration(sigma: arb, epsilon: arb, sensitivity: arb) -> arb:
    """Enclosure of the Gaussian delta(eps) by certified quadrature; valid for every point of the balls."""
    mu = sensitivity / sigma
    x0 = mu / 2 - epsilon / mu
    c = _point_below(x0)
    # Truncation: make phi(L)/|L| <= 2^-(prec+20) * phi(c) (T(T + 2|c|) >= T^2 for c <= 0).
    bits = ctx.prec + 20
    width = (2 * arb(bits) * arb(2).log()).sqrt() + 1
    start = c if c < 0 else arb(0)
    left = _point_below(start - width)
    scale = (-(x0 * x0) / 2).exp() / (2 * arb.pi()).sqrt()  # phi(x0) as a ball
    e_eps = epsilon.exp()
    x0_sq = x0 * x0

    def rescaled(x: acb, analytic: bool) -> acb:
        # (phi(x) - e^eps phi(x - mu)) / phi(x0): entire in x, so `analytic` needs no check.
        return ((x0_sq - x * x) / 2).exp() - e_eps * ((x0_sq - (x - mu) * (x - mu)) / 2).exp()

    body = acb.integral(rescaled, left, c, rel_tol=arb(2) ** (-ctx.prec)).real * scale
    tail = (-(left * left) / 2).exp() / ((2 * arb.pi()).sqrt() * abs(left))
    top = arb(x0.upper())
    nearest = arb(0) if (c <= 0 and top >= 0) or not (c < 0 or c > 0) else abs(c).min(abs(top))
    sliver = (top - c) * (-(nearest * nearest) / 2).exp() / (2 * arb.pi()).sqrt()
    extra = tail + sliver.max(arb(0))
    return body + arb(0).union(extra)


# ======================================================================================
# Laplace, uniform and one-dimensional generalized Gaussian noise
# ======================================================================================
#
# Common conventions.  Everything is written in units of the scale b (u = x / b), so the
# shift is m = Delta / b and the densities are scale free.  Every function below returns
# a ball containing the hockey-stick divergence
#
#     H = int (f(u) - e^eps f(u -/+ m))_+ du
#
# for EVERY point of its input balls (scale, epsilon, sensitivity, shape): the
# integrands are evaluated with the parameter balls, and ``acb.integral`` (Petras'
# algorithm with rigorous error bounds) then encloses the integral for every value of
# the parameters; root brackets are proven for every value of the parameters; tails
# and slivers next to a root are bounded analytically.  The densities are symmetric,
# so both shift directions give the same H.  A non-finite ball means "could not decide
# at this precision" (the caller's ladder escalates).

_NAN = arb("nan")


def _ln2_bits(bits: int) -> arb:
    return arb(bits) * arb(2).log()


def _tolerances() -> dict:
    return {"rel_tol": arb(2) ** (-ctx.prec), "abs_tol": arb(2) ** (-2 * ctx.prec - 64)}


def _integrate(func, a: arb, b: arb) -> arb:
    """Real part of ``acb.integral(func, a, b)`` with relative tolerance 2^-prec (a, b exact)."""
    return acb.integral(func, a, b, **_tolerances()).real


def _nonneg_upto(x: arb) -> arb:
    """The ball [0, max(upper(x), 0)]: a quantity known to lie in [0, x] for some x in the ball."""
    top = arb(x.upper())
    return arb(0).union(top.max(arb(0)))


def laplace_profile_by_integration(scale: arb, epsilon: arb, sensitivity: arb) -> arb:
    """Laplace delta(eps) by certified quadrature of the hockey-stick integral.

    Density f(u) = e^(-|u|)/2 in units of b, shift m = Delta/b.  The privacy loss
    log f(u)/f(u - m) = |u - m| - |u| equals m on u <= 0 and m - 2u on [0, m], so the
    integrand is positive exactly on u < u* = (m - eps)/2 when eps < m (else H = 0).
    With c the lower end of the ball u* (an exact point, when c > 0)::

        H = int_{-W}^0 g + int_0^c g + int_c^{u*} g + int_{-inf}^{-W} g,

    * the first two by ``acb.integral`` of g(u) = (e^(-|u|) - e^eps e^(-|u - m|))/2,
      written on each piece without cancellation (-e^u expm1(eps - m)/2 on u <= 0,
      -e^(-u) expm1(eps - m + 2u)/2 on [0, m]), W = (prec + 30) log 2;
    * 0 <= int_{-inf}^{-W} g = e^(-W) (1 - e^(eps-m))/2 <= e^(-W) (m - eps)/2;
    * 0 <= int_c^{u*} g <= (upper(u*) - c) sup_{[c, upper(u*)]} g (g evaluated on the ball).

    When eps >= m is not decidable (the ball m - eps contains 0) the result is the
    enclosure [0, (m - eps)_+]: the loss is at most m everywhere, so
    H = E_P (1 - e^(eps - L))_+ <= 1 - e^(eps - m) <= m - eps.
    No closed form of H (seed 004 Prop. 3.3) is used.
    """
    m = sensitivity / scale
    gap = m - epsilon
    if gap <= 0:
        return arb(0)
    if not gap > 0:
        return _nonneg_upto(gap)
    u_star = gap / 2
    c = _point_below(u_star)
    top = arb(u_star.upper())
    width = _ln2_bits(ctx.prec + 30)
    left = -arb(width.upper())
    em1 = (epsilon - m).expm1()  # in (-1, 0): e^(eps - m) - 1

    def negative_side(u: acb, analytic: bool) -> acb:
        return -u.exp() * em1 / 2  # entire in u

    def middle(u: acb, analytic: bool) -> acb:
        return -(-u).exp() * (epsilon - m + 2 * u).expm1() / 2  # entire in u

    body = _integrate(negative_side, left, arb(0))
    if c > 0:
        body += _integrate(middle, arb(0), c)
        sliver_ball = c.union(top)
    else:  # the whole of [0, u*] is the sliver
        c = arb(0)
        sliver_ball = c.union(top)
    sup_g = (-(-sliver_ball).exp() * (epsilon - m + 2 * sliver_ball).expm1() / 2)
    sliver = _nonneg_upto((top - c) * sup_g)
    tail = _nonneg_upto(left.exp() * gap / 2)  # e^(-W) (m - eps) / 2
    return body + sliver + tail


def uniform_profile_by_integration(scale: arb, epsilon: arb, sensitivity: arb) -> arb:
    """Uniform-noise delta(eps) by certified quadrature of the hockey-stick integral.

    Density f(u) = 1[-1 <= u <= 1]/2 in units of b, shift m = Delta/b > 0; requires
    eps >= 0 (every point of the ball ``epsilon``), as everywhere in certdp.
    The integrand f(u) - e^eps f(u - m) is piecewise constant with discontinuities at
    -1, 1, m - 1, m + 1; it is 1/2 where only f is positive (u in [-1, 1], u < m - 1),
    (1 - e^eps)/2 <= 0 on the overlap and <= 0 elsewhere.  The range [-1, 1] is split
    at the (exact) ends of the ball m - 1; on a piece certified to lie left of m - 1 the
    integrand is the analytic (constant) f(u) and is integrated by ``acb.integral``; a
    piece certified right of m - 1 contributes 0; the piece between the ends of the
    ball contributes [0, length/2].  This is a quadrature of the integral over its
    positive set, not the closed form min{1, Delta/(2b)} (seed 004, p = infinity) that
    ``profile_ball`` evaluates; for this mechanism both are elementary, so the check is
    mostly one of the positive set and of the density normalisation.
    """
    m = sensitivity / scale
    edge = m - 1
    one = arb(1)
    lo = _point_below(edge).max(-one).min(one)
    hi = arb(edge.upper()).max(-one).min(one)
    e_eps = epsilon.exp()

    def density_left_of_edge(u: acb, analytic: bool) -> acb:
        # f(u) - e^eps f(u - m) on [-1, 1] left of m - 1, where f(u) = 1/2 and f(u - m) = 0
        return acb(1) / 2 - e_eps * 0

    body = _integrate(density_left_of_edge, -one, lo) if lo > -one else arb(0)
    between = _nonneg_upto((hi - lo) / 2)
    return body + between


def _log1p_checked(y: acb, analytic: bool) -> acb:
    """log(1 + y); with ``analytic`` it returns NaN unless Re y > -1 is proven (branch cut)."""
    if analytic and not (y.real > -1):
        return acb("nan")
    return y.log1p()


def _pow_near_zero(u: acb, p: arb, analytic: bool) -> acb:
    """u^p for the integrands: principal branch (NaN on the cut when ``analytic``).

    When ``acb.integral`` asks for a crude, non-analytic enclosure on a real segment that
    touches 0 (an endpoint where |u|^p is not analytic), u^p is enclosed by
    [0, max|u|^p] over the real segment: a superset of the values of |u|^p there.
    """
    if analytic or not (u.imag == 0) or u.real > 0:
        return u.pow(p, analytic=analytic)
    top = abs(u.real).upper()
    return acb(arb(0).union(arb(top) ** p))


def _loss_minus_eps(t: arb, p: arb, m: arb, epsilon: arb) -> arb:
    """L(t) - eps for L(t) = |t + m|^p - |t|^p, cancellation-free for t > 0 (t exact, t > -m)."""
    if t > 0:
        return t**p * (p * (m / t).log1p()).expm1() - epsilon
    if t == 0:
        return m**p - epsilon
    return (t + m) ** p - (-t) ** p - epsilon


def _loss_derivative(t: arb, p: arb, m: arb) -> arb:
    if t > 0:
        return p * t ** (p - 1) * ((p - 1) * (m / t).log1p()).expm1()
    if t == 0:
        return p * m ** (p - 1)
    return p * ((t + m) ** (p - 1) + (-t) ** (p - 1))


def _ggm_root_bracket(p: arb, m: arb, epsilon: arb):
    """Exact points t_lo < t_hi with L(t_lo) < eps < L(t_hi) proven for every parameter value.

    L(u) = |u + m|^p - |u|^p is strictly increasing for p > 1 (seed 004 Lemma 3.1), so the
    root u* of L = eps lies strictly between them.  The float64 root of the monotone-loss
    engine is only a starting point (refined by Newton's method in Arb, then every
    accepted endpoint is a proven sign).  ``None`` when the signs cannot be proven.
    """
    import math

    from certdp.engines.monotone_loss import _float_phi_root

    pf, mf, ef = float(p.mid()), float(m.mid()), float(epsilon.mid())
    if not (pf > 1 and mf > 0 and ef > 0 and math.isfinite(pf)):
        return None
    try:
        log_c = math.log(ef) - pf * math.log(mf)
        kind, v = _float_phi_root(pf, log_c)
    except (OverflowError, ValueError):
        return None
    if not math.isfinite(v):
        return None
    if kind == "w":
        t = m.mid() * arb(v).exp()
    else:
        t = m.mid() * arb(v)
    t = arb(t.mid())
    for _ in range(12):
        f = _loss_minus_eps(t, p.mid(), m.mid(), epsilon.mid())
        d = _loss_derivative(t, p.mid(), m.mid())
        if not (f.is_finite() and d.is_finite() and d > 0):
            break
        step = arb((f / d).mid())
        new = arb((t - step).mid())
        if not new > -m.mid() / 2:
            new = arb(((t - m.mid() / 2) / 2).mid())
        if step == 0 or abs(step) <= abs(t) * arb(2) ** (-ctx.prec - 4):
            t = new
            break
        t = new
    scale = abs(t).max(m.mid() * arb(2) ** -30)
    rad = arb((scale * arb(2) ** (-ctx.prec + 16)).upper())
    for _ in range(12):
        lo, hi = arb((t - rad).lower()), arb((t + rad).upper())
        if not lo > -arb(m.lower()) / 2:
            lo = arb((-arb(m.lower()) / 2).upper())
        if _loss_minus_eps(lo, p, m, epsilon) < 0 and _loss_minus_eps(hi, p, m, epsilon) > 0:
            return lo, hi
        rad *= arb(2) ** 12
    return None


def ggm_profile_by_integration(scale: arb, epsilon: arb, sensitivity: arb, shape: arb) -> arb:
    """1-D generalized-Gaussian delta(eps), 1 < p < inf, by certified quadrature.

    Density f(u) = K exp(-|u|^p), K = p / (2 Gamma(1/p)), in units of b; shift m = Delta/b.
    The loss L(u) = |u + m|^p - |u|^p (of the pair f(u), f(u + m)) is strictly increasing
    (seed 004 Lemma 3.1), so the integrand h(u) = f(u) - e^eps f(u + m) is positive exactly
    for u > u*, L(u*) = eps, and u* > -m/2.  With a proven bracket t_lo < u* < t_hi
    (:func:`_ggm_root_bracket`) and c = t_hi::

        H = int_c^W h + int_W^inf h + int_{u*}^c h.

    * ``int_c^W h`` by ``acb.integral``, the integrand divided by f(c) (so tiny deltas are
      integrated with a relative tolerance).  For c >= 1 the substitution u = c + s and
      (c + s)^p - c^p = c^p expm1(p log1p(s/c)) keep it cancellation-free even for roots
      like u* = 1e100 (p close to 1); the cut-off is s <= T / (p c^(p-1)), T = (prec+30) log 2.
      For c < 1 the range is split at 0 if c < 0 (|u|^p is not analytic there) and |u|^p is
      written as (-u)^p on [c, 0] and u^p on [max(c, 0), W], W = max(1, (|c|^p + T)^(1/p)).
    * Tail, 0 <= int_W^inf h <= int_W^inf f: with A(s) >= p c^(p-1) s (convexity) it is at
      most f(c) e^(-p c^(p-1) s_max) / (p c^(p-1)); for c < 1, int_W^inf e^(-u^p) du <=
      e^(-W^p) / (p W^(p-1)) (multiply the integrand by (u/W)^(p-1) >= 1).
    * Sliver, 0 <= int_{u*}^c h <= (t_hi - t_lo) sup_{[t_lo, t_hi]} h (h on the ball; when
      the ball contains 0, sup h <= f(0) - e^eps f(t_hi + m), still of the order of its width).

    This shares no special function with :func:`certdp.engines.monotone_loss.delta_enclosure`
    (which evaluates S(z*) - e^eps S(z* + Delta) through the regularized incomplete gamma);
    only the float64 root *candidate* comes from that engine, and it is re-proven here.
    """
    p = shape
    m = sensitivity / scale
    br = _ggm_root_bracket(p, m, epsilon)
    if br is None:
        return _NAN
    t_lo, t_hi = br
    c = t_hi
    e_eps = epsilon.exp()
    big_t = _ln2_bits(ctx.prec + 30)
    norm = p / (2 * (1 / p).gamma())
    if c >= 1:
        cp = c**p
        kappa = p * c ** (p - 1)
        s_max = arb((big_t / kappa).upper())

        def shifted(s: acb, analytic: bool) -> acb:
            a = cp * (p * _log1p_checked(s / c, analytic)).expm1()
            b = cp * (p * _log1p_checked((s + m) / c, analytic)).expm1()
            return (-a).exp() - e_eps * (-b).exp()

        body = _integrate(shifted, arb(0), s_max)
        tail = (-kappa * s_max).exp() / kappa
    else:
        cp = arb(0) if c == 0 else abs(c) ** p

        def negative_side(u: acb, analytic: bool) -> acb:
            return (cp - _pow_near_zero(-u, p, analytic)).exp() - e_eps * (cp - (u + m).pow(p, analytic=analytic)).exp()

        def positive_side(u: acb, analytic: bool) -> acb:
            return (cp - _pow_near_zero(u, p, analytic)).exp() - e_eps * (cp - (u + m).pow(p, analytic=analytic)).exp()

        w = arb(((cp + big_t) ** (1 / p)).upper()).max(arb(1))
        body = _integrate(positive_side, c.max(arb(0)), w)
        if c < 0:
            body += _integrate(negative_side, c, arb(0))
        tail = (cp - w**p).exp() / (p * w ** (p - 1))
    # sliver next to the root, relative to f(c)
    ball = t_lo.union(t_hi)
    if t_lo > 0:
        s = ball - c
        sup_h = (-(cp * (p * (s / c).log1p()).expm1())).exp() - e_eps * (-(cp * (p * ((s + m) / c).log1p()).expm1())).exp()
    elif t_hi < 0 or (t_hi == 0 and t_lo < 0):
        sup_h = (cp - (-ball) ** p).exp() - e_eps * (cp - (ball + m) ** p).exp()
    else:
        # the ball contains 0 (t_lo < 0 < t_hi): f(u) <= f(0) = K and f(u + m) >= f(t_hi + m)
        sup_h = cp.exp() - e_eps * (cp - (t_hi + m) ** p).exp()
    if not sup_h.is_finite():
        sup_h = cp.exp()
    sliver = _nonneg_upto((t_hi - t_lo) * sup_h)
    result = norm * (-cp).exp() * (body + _nonneg_upto(tail) + sliver)
    return result
