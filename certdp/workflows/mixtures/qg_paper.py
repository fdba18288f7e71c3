"""Seed 000 Thm 4.2 / Alg. 3-4 for the quasi-Gaussian, certified.

:func:`qg_paper_calibration`: ``sigma = max(sigma_1, sigma_2)``.
``sigma_1``: the set ``{sigma : h1 + h2 >= 0}`` is ``[sigma_1, inf)`` (Lemma 4.3: increasing on
``(0, sqrt(2(eps - log delta)) Delta / eps)``, nonnegative beyond; ``sigma_1 = 0`` when
``e^eps + 2 >= 1/delta``), so a certified bracket on the sign of ``h1 + h2`` gives it.
``sigma_2``: ``{sigma : max_[0,D] f_q <= e^eps min_[0,D] f_q} = [sigma_2, inf)`` (Lemma 4.5: the
ratio decreases in sigma). The golden-section searches of Alg. 4 are replaced by certified
enclosures of the max and min: on ``[a, b] in [0, D]`` the two terms of
``F(x) = e^eps g(x) + g(x - D)`` (``g(u) = exp(-u^2/2s^2)``) are monotone (decreasing /
increasing), so ``F([a, b]) in [e^eps g(b) + g(a - D), e^eps g(a) + g(b - D)]`` exactly, and
adaptive bisection with derivative bounds tightens the enclosures (:func:`qg_ratio_enclosure`). The returned safe sigma is the larger of the two
certified upper bracket ends; by Thm 4.2 it is (eps, delta)-DP. We additionally verify it with
the exact engine when asked (``verify=True``).
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from typing import Any

from flint import arb, ctx

from certdp.certificate import Certificate, Stopwatch
from certdp.workflows.methods import METHODS, condition_of
from certdp.numbers import (
    arb_of,
    certified_monotone_bracket,
    decimal_bounds,
    normal_cdf,
    parse_positive,
    parse_probability,
    working_precision,
)

__all__ = ["qg_paper_calibration", "qg_sigma1_profile", "qg_ratio_enclosure"]


def qg_sigma1_profile(epsilon: Fraction, sensitivity: Fraction):
    """t -> -h1(t) / (e^eps + 2 Phi(D/t)); ``<= delta`` iff ``h1 + h2 >= 0`` (Thm 4.2 (4a))."""

    def profile(t: arb) -> arb:
        e = arb_of(epsilon)
        d = arb_of(sensitivity)
        a = -e * t / d
        h1 = (2 * e).exp() * normal_cdf(a - d / t) - normal_cdf(a + d / t)
        return -h1 / (e.exp() + 2 * normal_cdf(d / t))

    return profile


def _f_terms(x: arb, s: arb, ee: arb, d: arb) -> tuple[arb, arb]:
    """(e^eps g(x), g(x - D)) at a point x."""
    two_s2 = 2 * s * s
    return ee * (-(x * x) / two_s2).exp(), (-((x - d) * (x - d)) / two_s2).exp()


def qg_ratio_enclosure(sigma: arb, epsilon: arb, sensitivity: arb, rel_tol: float | None = None) -> arb:
    """Enclosure of max_[0,D] f_q / (e^eps min_[0,D] f_q) at every point of the ball ``sigma``.

    Certified by adaptive bisection of ``[0, D]`` until the enclosures of the max and of the min
    have relative width ``rel_tol`` (default ``2^(-prec/3)``) or 4000 pieces. On each piece the
    range of ``F`` is bounded by the tightest of: the monotone endpoint bounds of its two terms
    (module docstring); the exact ``[F(a), F(b)]`` where ``F'`` has a certified sign (direct or
    centred enclosure of ``F'``); the mean value form; and, where ``F''`` has a certified sign,
    the tangent parabola at the midpoint (``F(x) <= F(m) + F'(m)^2 / (2 min |F''|)`` if concave,
    the mirror if convex), which is second order in the distance to the extremum. The max (min)
    starts from ``F`` at a float extremum (a certified point value; the float only places it).
    """
    if rel_tol is None:
        rel_tol = 2.0 ** (-ctx.prec / 3)
    from certdp.engines.gaussian_mixture.float_guide import qg_extremum_float

    ee = epsilon.exp()
    d = sensitivity
    cache: dict[tuple[int, int], tuple[arb, arb]] = {}

    def terms(t: Fraction) -> tuple[arb, arb]:
        key = (t.numerator, t.denominator)  # hashing Fraction itself is slow
        v = cache.get(key)
        if v is None:
            v = cache[key] = _f_terms(d * arb(t.numerator) / arb(t.denominator), sigma, ee, d)
        return v

    two_s2 = 2 * sigma * sigma
    s2 = sigma * sigma

    def piece(a: Fraction, b: Fraction) -> tuple[arb, arb]:
        ga, ha = terms(a)
        gb, hb = terms(b)
        lo, up = gb + ha, ga + hb  # monotone endpoint bounds of F on [a, b] (in units of D)
        # mean-value form: F([a,b]) in F(m) + F'([a,b]) [-w/2, w/2] (second order near an extremum)
        xa = d * arb(a.numerator) / arb(a.denominator)
        xb = d * arb(b.numerator) / arb(b.denominator)
        xm = (xa + xb) / 2
        half = (xb - xa) / 2
        xball = xm + half * arb(0, 1)
        g2 = (-(xball * xball) / two_s2).exp()
        h2 = (-((xball - d) * (xball - d)) / two_s2).exp()
        fp = (-ee * xball * g2 - (xball - d) * h2) / s2
        fpp = (ee * (xball * xball / s2 - 1) * g2 + ((xball - d) * (xball - d) / s2 - 1) * h2) / s2
        gm, hm = _f_terms(xm, sigma, ee, d)
        fpm = -(xm * gm + (xm - d) * hm) / s2
        # centred form of F' (the direct enclosure cancels badly next to an extremum)
        fp_c = fpm + fpp * half * arb(0, 1)
        if fp > 0 or fp_c > 0:  # F increasing on [a, b]: its range is [F(a), F(b)] exactly
            return ga + ha, gb + hb
        if fp < 0 or fp_c < 0:
            return gb + hb, ga + ha
        dev = fp.abs_upper() * half
        mv_lo, mv_up = gm + hm - dev, gm + hm + dev
        lo, up = (mv_lo if mv_lo > lo else lo), (mv_up if mv_up < up else up)
        # F'' of one sign on the piece (around an interior extremum): F lies below (above) its
        # tangent at xm minus (plus) kappa (x - xm)^2 / 2, kappa = min |F''|, whose extreme value
        # over all x is F(xm) +- F'(xm)^2 / (2 kappa): tight to second order in xm - x*
        if fpp < 0 or fpp > 0:
            excess = fpm * fpm / (2 * fpp.abs_lower())
            if fpp < 0:
                tangent = gm + hm + excess
                up = tangent if tangent < up else up
            else:
                tangent = gm + hm - excess
                lo = tangent if tangent > lo else lo
        return lo, up

    def extremum(maximize: bool) -> tuple[arb, arb]:
        """(lower, upper) enclosure of max F (maximize) or min F over [0, D]."""
        sign = -1.0 if maximize else 1.0
        heap: list[tuple[float, int, Fraction, Fraction, arb]] = []
        cnt = 0
        n = 16
        for i in range(n):
            a, b = Fraction(i, n), Fraction(i + 1, n)
            lo, up = piece(a, b)
            bound = up if maximize else lo
            heap.append((sign * float(bound.mid()), cnt, a, b, bound))
            cnt += 1
        heapq.heapify(heap)
        pieces = n
        # the float extremum (a guide): F there is a certified point value, close to the true
        # extremum to second order, which the dyadic piece ends alone approach only slowly
        best = None
        xf = qg_extremum_float(float(sigma.mid()), float(epsilon.mid()), float(d.mid()), maximize)
        best = sum(_f_terms(arb(xf), sigma, ee, d))
        while True:
            _, _, a, b, bound = heap[0]
            for t in (a, b):
                v = sum(terms(t))
                if best is None or (maximize and v.mid() > best.mid()) or (not maximize and v.mid() < best.mid()):
                    best = v
            if maximize:
                done = float(bound.upper()) <= float(best.lower()) * (1 + rel_tol)
            else:
                done = float(bound.lower()) >= float(best.upper()) * (1 - rel_tol)
            if done or pieces > 4000:
                return (best, bound) if maximize else (bound, best)
            heapq.heappop(heap)
            m = (a + b) / 2
            for aa, bb in ((a, m), (m, b)):
                lo2, up2 = piece(aa, bb)
                bd = up2 if maximize else lo2
                heapq.heappush(heap, (sign * float(bd.mid()), cnt, aa, bb, bd))
                cnt += 1
                pieces += 1

    max_lo, max_hi = extremum(True)
    min_lo, min_hi = extremum(False)
    r_lo = max_lo.lower() / (ee * min_hi.upper())
    r_hi = max_hi.upper() / (ee * min_lo.lower())
    return r_lo.lower() / 2 + r_hi.upper() / 2 + (r_hi.upper() - r_lo.lower()) / 2 * arb(0, 1)


def _qg_sigma2_profile(epsilon: Fraction, sensitivity: Fraction):

    def profile(t: arb) -> arb:
        # the bracket probes within ~rtol (1e-12) of sigma_2, where the ratio is within ~1e-12 of 1:
        # 64-bit enclosures (relative width 2^-21) never decide there, so start at 128 bits
        with working_precision(max(ctx.prec, 128)):
            return qg_ratio_enclosure(t, arb_of(epsilon), arb_of(sensitivity))

    return profile


def qg_paper_calibration(*, epsilon: object, delta: object, sensitivity: object = 1,
                         rtol: object = Fraction(1, 10**12), verify: bool = False) -> Certificate:
    """Certified version of seed 000's Thm 4.2 / Alg. 3-4 for the quasi-Gaussian mechanism."""
    clock = Stopwatch()
    eps = parse_positive(epsilon, "epsilon")
    dq = parse_probability(delta, "delta")
    d = parse_positive(sensitivity, "sensitivity")
    tol = parse_positive(rtol, "rtol")
    from certdp.engines.gaussian_mixture.float_guide import qg_sigma1_float, qg_sigma2_float

    ef, df = float(eps), float(dq)
    notes: list[str] = []
    # sigma_1 (Lemma 4.3): zero when e^eps + 2 >= 1/delta -- decided exactly in Arb
    with_s1 = True
    e_test = arb_of(eps).exp() + 2 - 1 / arb_of(dq)
    if e_test >= 0:
        with_s1 = False
        notes.append("sigma_1 = 0 (e^eps + 2 >= 1/delta, Lemma 4.3)")
    s1 = None
    if with_s1:
        try:
            cand1: float | None = qg_sigma1_float(ef, df, float(d))
        except (ValueError, ArithmeticError):
            cand1 = None
        s1 = certified_monotone_bracket(qg_sigma1_profile(eps, d), dq, increasing=False, candidate=cand1,
                                        rtol=tol)
    try:
        cand2: float | None = qg_sigma2_float(ef, float(d))
    except (ValueError, ArithmeticError):
        cand2 = None
    s2 = certified_monotone_bracket(_qg_sigma2_profile(eps, d), Fraction(1), increasing=False,
                                    candidate=cand2, rtol=tol)
    safe = s2.safe if s1 is None else max(s1.safe, s2.safe)
    binding = "sigma_2" if s1 is None or s2.safe >= s1.safe else "sigma_1"
    extra: dict[str, Any] = {
        "sigma_1_interval": None if s1 is None else [str(s1.lo), str(s1.hi)],
        "sigma_2_interval": [str(s2.lo), str(s2.hi)],
        "binding": binding,
        "notes": notes or None,
    }
    delta_enc = None
    if verify:
        from certdp.mechanisms.quasi_gaussian import QuasiGaussian

        with_prec = 128

        with working_precision(with_prec):
            ball = QuasiGaussian.profile_ball(arb_of(Fraction(safe)), arb_of(eps), sensitivity=d, rel_tol=1e-6,
                                              target=arb_of(dq))
            delta_enc = list(decimal_bounds(ball))
            extra["exact_engine_check"] = "delta(eps) <= delta" if ball <= arb_of(dq) else "NOT CONFIRMED"
    lo_end = s2.lo if binding == "sigma_2" else s1.lo  # type: ignore[union-attr]
    from certdp.mechanisms.quasi_gaussian import QuasiGaussian

    method = METHODS["seed000-thm-4.2"]
    return Certificate.for_calibration(
        claim=method.claim(QuasiGaussian), mechanism="quasi-gaussian", parameter="sigma",
        parameters={"sensitivity": d}, epsilon=eps, delta=dq, rtol=tol, interval=(lo_end, safe),
        safe_side="upper", method=method.name, lemma=method.lemma(QuasiGaussian),
        condition=condition_of("seed000-thm-4.2"), delta_enclosure=delta_enc,
        precision_bits=max(s2.precision_bits, 0 if s1 is None else s1.precision_bits),
        timing_seconds=clock.elapsed(), extra=extra,
    )
