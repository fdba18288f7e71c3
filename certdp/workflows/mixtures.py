"""Certified calibrations for the Gaussian-mixture mechanisms of seed 000.

* :func:`qg_paper_calibration` -- Thm 4.2 / Alg. 3-4, certified: ``sigma = max(sigma_1, sigma_2)``.
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
* :func:`exact_calibration` -- the smallest sigma the exact engine certifies, through the
  foundation's :func:`certified_monotone_bracket`, with the engine in decision mode (it stops as
  soon as ``delta(eps) <= delta`` or ``> delta`` is proven).  Monotonicity: MG by Lemma 3.4; for QG
  it is *not proven* -- the certificate then states only that the safe end is private and the
  other end is not.
* :func:`zcdp_composition` -- Cor. 3.7-3.8 for MG (and the Gaussian):
  ``rho_tot = sum Delta_t^2 / (2 sigma_t^2)``, ``eps_tot = rho_tot + 2 sqrt(rho_tot log(1/delta_tot))``,
  rounded up (certified upper bound).
"""

from __future__ import annotations

import heapq
import math
from fractions import Fraction
from typing import Any, Sequence

from flint import arb, ctx

from certdp.certificate import Certificate, Stopwatch
from certdp.workflows.methods import METHODS, condition_of
from certdp.numbers import (
    InputError,
    arb_of,
    certified_monotone_bracket,
    decimal_bounds,
    exact_str,
    normal_cdf,
    parse_positive,
    parse_probability,
)

__all__ = ["qg_paper_calibration", "mg_paper_calibration", "mg_grid_step", "exact_calibration", "zcdp_composition", "qg_sigma1_profile",
           "qg_ratio_enclosure"]


# ------------------------------------------------------------------------------ QG, Thm 4.2


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
    from certdp.workflows.mixtures_float import qg_extremum_float

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
    from certdp.numbers import working_precision

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
    from certdp.workflows.mixtures_float import qg_sigma1_float, qg_sigma2_float

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
        from certdp.numbers import working_precision

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


# ------------------------------------------------------------------------------ MG, Thm 3.2


def mg_grid_step(sigma: arb, epsilon_delta_eta: tuple[arb, arb], sensitivity: arb) -> int | None:
    """``N`` with grid step ``beta = Delta / N``, ``N = ceil(Delta / (sqrt(2 pi) eta sigma delta))`` (Alg. 1).

    ``None`` when the Arb enclosure of the quotient straddles an integer (``N`` undecided).
    """
    delta, eta = epsilon_delta_eta
    q = sensitivity / ((2 * arb.pi()).sqrt() * eta * sigma * delta)
    lo, hi = math.floor(float(q.lower())), math.floor(float(q.upper()))
    # floats of the ends only name candidate integers (rounding may move them by one, hence the
    # neighbours); the test below is exact
    for n in sorted({lo - 1, lo, hi}):
        if q > n and q < n + 1:  # q in (n, n+1) certified => ceil(q) = n + 1
            return n + 1
    return None


class _MissedPeak(Exception):
    """The float candidate's first probe was certified far above the target: the float guide missed
    the peak at ``shift`` (narrower than its shift grid)."""

    def __init__(self, shift: float):
        super().__init__(shift)
        self.shift = shift


def _missed_peak(t: arb, first: arb | float | None, lower: arb, target: arb) -> bool:
    """True when a probe at ``sigma = t >= first`` (the float candidate) is certified more than 1 %
    above the target: the float guide must have missed a peak (see :class:`_MissedPeak`)."""
    return first is not None and bool(t >= first) and bool(lower > target * arb("1.01"))


def mg_paper_profile(epsilon: Fraction, delta: Fraction, eta: Fraction, components: int,
                     sensitivity: Fraction, witnesses: list | None = None, missed_above: arb | None = None,
                     hints: Sequence[float] = ()):
    """sigma -> ``(lower, upper, settled)`` used to decide seed 000's condition (2) (Thm 3.2) at
    ``(1 - eta) delta`` (``settled``: undecided for a reason more precision does not remove).

    The upper end is a certified upper bound on ``sup_{|phi| <= Delta} H(phi)`` over the whole
    continuum of shifts, which bounds the max over any grid: ``upper <= (1 - eta) delta`` proves
    condition (2) (and, more strongly, ``(eps, (1 - eta) delta)``-DP). The lower end is a certified
    lower bound on ``H`` at an actual grid point ``phi_j = j Delta / N`` next to the continuum
    argmax, so ``lower > (1 - eta) delta`` proves that condition (2) fails. With ``missed_above``, a
    probe at ``sigma >= missed_above`` whose certified sup exceeds the target by more than 1 % raises
    :class:`_MissedPeak` (a float candidate that far off is retried). Both come from the engine
    on the mixture without its negligible outer components, widened by their certified effect
    (:func:`certdp.mechanisms.multi_gaussian.multi_gaussian_core`).
    """
    from certdp.engines.gaussian_mixture import hockey_stick_at_shift, privacy_profile_sup
    from certdp.mechanisms.multi_gaussian import multi_gaussian_core
    from certdp.workflows.mixtures_float import mg_argmax_hint, mg_peak_scale

    hint: list[float] = list(hints)  # the float argmax barely moves across the bracket's probes: find it once
    scale: list[float | None] = []  # and so does the width of its peak

    def profile(t: arb) -> tuple[arb, arb, bool]:
        e, d = arb_of(epsilon), arb_of(sensitivity)
        target = arb_of((1 - eta) * delta)
        # the outer components, below 1e-12 of the target, enter as a certified slack on every H
        mix, slack = multi_gaussian_core(t, e, d, components, e, target * arb("1e-12"))
        if not hint:
            hint.extend(mg_argmax_hint(float(t.mid()), float(epsilon), components, float(sensitivity)))
        if not scale:
            scale.append(mg_peak_scale(float(t.mid()), float(epsilon), components, float(sensitivity), hint[0])
                         if hint else None)
        n = mg_grid_step(t, (arb_of(delta), arb_of(eta)), d)

        def grid_lower(j: int) -> arb:
            """Certified lower bound of H at the grid shift j Delta / n."""
            return (hockey_stick_at_shift(mix, e, d * arb(j) / arb(n), delta_scale=float(delta)).lower - slack).lower()

        def nearest_grid_index(shift: float) -> int:
            return min(max(round(abs(shift) / float(sensitivity) * n), 1), n)

        if missed_above is not None and t < missed_above and hint and n is not None:
            # below the float candidate the probe is expected to violate (2): the grid shift next to
            # the float argmax alone may settle it, without the sup's own point value there
            j = nearest_grid_index(hint[0])
            r_lower = grid_lower(j)
            if r_lower > target:
                if witnesses is not None:
                    witnesses.append((t, j, n, r_lower))
                return r_lower, arb(1), False
        res = privacy_profile_sup(mix, e, d, symmetric=True, rel_tol=1e-9, target=(target - slack).lower(),
                                  hints=hint, peak_scale=scale[0])
        if _missed_peak(t, missed_above, res.lower - slack, target):
            raise _MissedPeak(res.argmax)
        upper = (res.upper + slack).upper()
        lower = arb(0)
        if not upper <= target:
            if n is not None:
                j0 = nearest_grid_index(res.argmax)
                for j in dict.fromkeys(min(max(j0 + k, 1), n) for k in (0, -1, 1)):  # nearest first
                    r_lower = grid_lower(j)
                    if r_lower > lower:
                        lower = r_lower
                        if r_lower > target:  # one grid point violating (2) settles it
                            if witnesses is not None:
                                witnesses.append((t, j, n, r_lower))
                            break
        # the continuum sup is proven above the target but no grid point near its argmax is: a gap
        # between the continuum and condition (2) on the grid that no precision closes
        settled = res.decided == "gt" and not lower > target
        return lower, upper.max(lower), settled

    return profile


def mg_paper_calibration(*, epsilon: object, delta: object, components: object, eta: object = Fraction(1, 100),
                         sensitivity: object = 1, rtol: object = Fraction(1, 10**6),
                         candidate: float | None = None) -> Certificate:
    """Certified seed 000 Alg. 1-2: the smallest sigma satisfying condition (2) of Thm 3.2.

    Condition (2): ``H(phi) <= (1 - eta) delta`` on the grid ``{0, beta, ..., Delta}``,
    ``beta = Delta / ceil(Delta / (sqrt(2 pi) eta sigma delta))``. Instead of enumerating the grid
    (about 4e6 shifts at delta = 1e-5) the safe end is proven with the exact engine's certified
    sup over *all* shifts (so it is in fact ``(eps, (1 - eta) delta)``-DP), and the unsafe end
    with a certified grid point where (2) fails. By seed 000 Lemma 3.4 the set of sigma
    satisfying (2) is an up-set, so the bracket holds the paper's sigma.
    """
    from certdp.mechanisms.multi_gaussian import _parse_components
    from certdp.workflows.mixtures_float import mg_sigma_float

    clock = Stopwatch()
    eps = parse_positive(epsilon, "epsilon")
    dq = parse_probability(delta, "delta")
    k = _parse_components(components)
    et = parse_probability(eta, "eta")
    d = parse_positive(sensitivity, "sensitivity")
    tol = parse_positive(rtol, "rtol")
    target = (1 - et) * dq
    hints: list[float] = []  # the float guide's worst shift at its candidate
    if candidate is None:
        try:
            candidate = mg_sigma_float(float(eps), float(dq), k, float(d), eta=float(et), argmax=hints)
        except (ValueError, ArithmeticError):
            candidate = None
    witnesses: list = []
    try:
        # the first probe (just above the candidate) should be private: if it is certified far above
        # the target, the float guide missed a narrow peak; it is retried with the engine's argmax
        missed = None if candidate is None else arb(candidate)
        br = certified_monotone_bracket(mg_paper_profile(eps, dq, et, k, d, witnesses, missed, hints[-1:]), target,
                                        increasing=False, candidate=candidate, rtol=tol)
    except _MissedPeak as miss:
        witnesses.clear()
        hints.clear()
        try:
            candidate = mg_sigma_float(float(eps), float(dq), k, float(d), eta=float(et), shifts=[miss.shift],
                                       argmax=hints)
        except (ValueError, ArithmeticError):
            candidate = None
        br = certified_monotone_bracket(mg_paper_profile(eps, dq, et, k, d, witnesses, None, hints[-1:] + [miss.shift]),
                                        target, increasing=False, candidate=candidate, rtol=tol)
    lo_f = float(br.lo)
    wit = [w for w in witnesses if abs(float(w[0].mid()) - lo_f) <= 1e-12 * lo_f + 1e-300]
    extra: dict[str, Any] = {"eta": exact_str(et), "target_delta": exact_str(target),
                             "evaluations": br.evaluations,
                             "delta_enclosure_at_unsafe_end": br.delta_at_unsafe.strings()}
    if wit:
        _, j, n, low = wit[-1]
        extra["unsafe_end_witness"] = {"grid_index": j, "grid_size": n, "shift": f"{j}/{n} * Delta",
                                       "H_lower_bound": decimal_bounds(low)[0]}
    from certdp.mechanisms.multi_gaussian import MultiGaussian

    method = METHODS["seed000-alg-1"]
    extra.pop("eta")
    extra.pop("target_delta")
    return Certificate.for_calibration(
        claim=method.claim(MultiGaussian), mechanism="multi-gaussian", parameter="sigma",
        parameters={"components": k, "sensitivity": d}, epsilon=eps, delta=dq, rtol=tol,
        inputs={"eta": et}, interval=(br.lo, br.hi), safe_side="upper", method=method.name,
        lemma=method.lemma(MultiGaussian),
        condition=condition_of("seed000-thm-3.2-condition-2", eta=exact_str(et), target_delta=exact_str(target)),
        delta_enclosure=br.delta_at_safe, precision_bits=br.precision_bits, timing_seconds=clock.elapsed(),
        extra=extra,
    )


# ------------------------------------------------------------------------------ exact


def exact_calibration(mechanism: str, *, epsilon: object, delta: object, rtol: object = Fraction(1, 10**6),
                      candidate: float | None = None, **fixed: Any) -> Certificate:
    """Smallest sigma certified by the exact engine (QG or MG) -- see the module docstring."""
    from certdp.mechanisms import get_mechanism
    from certdp.workflows.common import resolve_fixed

    clock = Stopwatch()
    cls = get_mechanism(mechanism)
    if cls.name not in ("quasi-gaussian", "multi-gaussian"):
        raise InputError("mechanism", "exact_calibration handles quasi-gaussian and multi-gaussian")
    eps = parse_positive(epsilon, "epsilon")
    dq = parse_probability(delta, "delta")
    tol = parse_positive(rtol, "rtol")
    params = resolve_fixed(cls, fixed)
    from certdp.workflows.mixtures_float import mg_peak_scale, mg_sigma_float, qg_paper_sigma_float

    # MG (own shape): the float guide's worst shift goes to the certified search, and a first probe
    # certified far above the target (a peak the guide missed) sends its argmax back to the guide
    mg_guided = cls.name == "multi-gaussian" and params.get("shape_epsilon") is None
    hints: list[float] = []
    scale: list[float | None] = []  # float width of the peak at the guide's worst shift (found once)

    def mg_candidate(shifts: Sequence[float] = ()) -> float | None:
        try:
            return mg_sigma_float(float(eps), float(dq), params["components"], float(params["sensitivity"]),
                                  shifts=shifts, argmax=hints)
        except (ValueError, ArithmeticError):
            return None

    def profile_from(first: float | None):
        def profile(t: arb) -> tuple[arb, arb]:
            extra: dict[str, Any] = {}
            if mg_guided and hints:
                if not scale:
                    scale.append(mg_peak_scale(float(t.mid()), float(eps), params["components"],
                                               float(params["sensitivity"]), hints[0]))
                extra = {"hints": list(hints), "argmax_out": [], "peak_scale": scale[0]}
            low, high = cls.profile_bounds(t, arb_of(eps), rel_tol=1e-9, target=arb_of(dq), **params, **extra)
            if extra and _missed_peak(t, first, low, arb_of(dq)):
                raise _MissedPeak(extra["argmax_out"][-1])
            return low, high
        return profile

    if candidate is None:
        if cls.name == "quasi-gaussian":
            try:
                candidate = 0.98 * qg_paper_sigma_float(float(eps), float(dq), float(params["sensitivity"]))
            except (ValueError, ArithmeticError):
                candidate = None
        else:
            candidate = mg_candidate()
    try:
        br = certified_monotone_bracket(profile_from(candidate if mg_guided else None), dq, increasing=False,
                                        candidate=candidate, rtol=tol)
    except _MissedPeak as miss:
        hints.clear()
        candidate = mg_candidate([miss.shift])
        hints[:] = hints[-1:] + [miss.shift]  # the guide's worst shift and the engine's
        scale.clear()
        br = certified_monotone_bracket(profile_from(None), dq, increasing=False, candidate=candidate, rtol=tol)
    method = METHODS["exact-mixture-engine"]
    return Certificate.for_calibration(
        claim=method.claim(cls), mechanism=cls.name, parameter="sigma", parameters=params, epsilon=eps,
        delta=dq, rtol=tol, interval=(br.lo, br.hi), safe_side="upper", method=method.name,
        lemma=method.lemma(cls), delta_enclosure=br.delta_at_safe, precision_bits=br.precision_bits,
        timing_seconds=clock.elapsed(),
        extra={"evaluations": br.evaluations, "delta_enclosure_at_unsafe_end": br.delta_at_unsafe.strings()},
    )


# ------------------------------------------------------------------------------ zCDP


def zcdp_composition(sigmas: Sequence[object], sensitivities: Sequence[object], delta_total: object) -> dict[str, str]:
    """Cor. 3.7-3.8: rho_tot and a certified upper bound on eps_tot for the composition.

    Valid for multi-Gaussian (any K) and Gaussian mechanisms (Cor. 3.7: rho = Delta^2/(2 sigma^2) by
    quasi-convexity of the Renyi divergence); NOT for the quasi-Gaussian (its zCDP is not shown).
    """
    if len(sigmas) != len(sensitivities) or not sigmas:
        raise InputError("sigmas", "need one sensitivity per sigma (and at least one)")
    sig = [parse_positive(s, "sigma") for s in sigmas]
    sen = [parse_positive(s, "sensitivity") for s in sensitivities]
    dt = parse_probability(delta_total, "delta_total")
    rho = sum((s2 * s2 / (2 * s1 * s1) for s1, s2 in zip(sig, sen)), Fraction(0))
    from certdp.numbers import working_precision

    with working_precision(128):
        r = arb_of(rho)
        eps_tot = r + 2 * (r * (1 / arb_of(dt)).log()).sqrt()
        lo, hi = decimal_bounds(eps_tot)
    return {"rho_total": exact_str(rho), "epsilon_total_upper": hi, "epsilon_total_lower": lo,
            "delta_total": exact_str(dt)}
