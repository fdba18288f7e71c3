"""Seed 000 Alg. 1-2 (Thm 3.2) for the multi-Gaussian, certified: the smallest sigma satisfying
condition (2) on the shift grid, bracketed with the exact engine (:func:`mg_paper_calibration`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

from flint import arb

from certdp.certificate import Certificate, Stopwatch
from certdp.engines.gaussian_mixture import DEFAULT_SETTINGS
from certdp.workflows.methods import METHODS, condition_of
from certdp.numbers import (
    Bracket,
    Decision,
    arb_of,
    certified_monotone_bracket,
    decimal_bounds,
    exact_str,
    parse_positive,
    parse_probability,
)
from certdp.workflows.mixtures.missed_peak import MissedPeak, missed_peak, retry_missed_peak

__all__ = ["mg_grid_step", "mg_paper_profile", "mg_paper_calibration"]


def mg_grid_step(sigma: arb, epsilon_delta_eta: tuple[arb, arb], sensitivity: arb) -> int | None:
    """``N`` with grid step ``beta = Delta / N``, ``N = ceil(Delta / (sqrt(2 pi) eta sigma delta))`` (Alg. 1).

    ``None`` when the Arb enclosure of the quotient straddles an integer (``N`` undecided).
    """
    delta, eta = epsilon_delta_eta
    q = sensitivity / ((2 * arb.pi()).sqrt() * eta * sigma * delta)
    # the candidate integer is floor(q) in Arb (floats of q name the wrong integer once q > 2^53,
    # i.e. at delta < ~1e-16); the test below is exact
    floor = q.floor().unique_fmpz()
    if floor is None:
        return None
    n = int(floor)
    if q > n and q < n + 1:  # q in (n, n+1) certified => ceil(q) = n + 1
        return n + 1
    return None


def mg_paper_profile(epsilon: Fraction, delta: Fraction, eta: Fraction, components: int,
                     sensitivity: Fraction, witnesses: list | None = None, missed_above: arb | None = None,
                     hints: Sequence[float] = ()):
    """sigma -> ``(lower, upper, settled)`` used to decide seed 000's condition (2) (Thm 3.2) at
    ``(1 - eta) delta`` (``settled``: undecided for a reason more precision does not remove).

    The upper end is a certified upper bound on ``sup_{|phi| <= Delta} H(phi)`` over the whole
    continuum of shifts, which bounds the max over any grid: ``upper <= (1 - eta) delta`` proves
    condition (2) (and, more strongly, ``(eps, (1 - eta) delta)``-DP). The lower end is a certified
    lower bound on ``max_j H(phi_j)`` over the grid ``phi_j = j Delta / N``, so ``lower > (1 - eta)
    delta`` proves that condition (2) fails: the larger of ``H`` at a grid point next to the
    continuum argmax (a witness) and the Lipschitz bound ``H(t) - L beta / 2`` at the search's best
    shift ``t`` (``L`` of :func:`~certdp.engines.gaussian_mixture.lipschitz_constant`, which states
    its proof): every ``t`` in ``[0, Delta]`` is within ``beta / 2`` of a grid point and ``H`` is even
    in ``phi`` (``f`` symmetric). Alg. 1's ``beta <= sqrt(2 pi) eta sigma delta`` makes ``L beta / 2 <=
    eta delta / 2``, the loss used while ``N`` is not yet fixed. With ``missed_above``, a
    probe at ``sigma >= missed_above`` whose certified sup exceeds the target by more than 1 % raises
    :class:`~.missed_peak.MissedPeak` (a float candidate that far off is retried). Both come from the engine
    on the mixture without its negligible outer components, widened by their certified effect
    (:func:`certdp.mechanisms.multi_gaussian.multi_gaussian_core`).
    """
    from certdp.engines.gaussian_mixture import hockey_stick_lower_bound, lipschitz_constant, privacy_profile_sup
    from certdp.mechanisms.multi_gaussian import multi_gaussian_core
    from certdp.engines.gaussian_mixture.float_guide import mg_argmax_hint, mg_peak_scale

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
            """Certified lower bound of H at the grid shift j Delta / n (the float-run bound first)."""
            return (hockey_stick_lower_bound(mix, e, d * arb(j) / arb(n), above=target + slack,
                                             delta_scale=float(delta), tie=d) - slack).lower()

        def nearest_grid_index(shift: float) -> int:
            # exact rationals: with N ~ 1 / delta > 2^53 a float product names the wrong j (the argmax
            # phi = Delta, the tied shift, became j / N = 1 - 5e-17 at delta = 1e-300)
            return min(max(round(abs(Fraction(shift)) / sensitivity * n), 1), n)

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
        if missed_peak(t, missed_above, res.lower - slack, target):
            raise MissedPeak(res.argmax)
        upper = (res.upper + slack).upper()
        # the Lipschitz bound on the grid's max (docstring). On the private side it gives the bracket's
        # secant a two-sided estimate (the deciding end alone made the narrowing crawl at MG K = 5,
        # (10, 1e-12): 14 probes); on the other it decides condition (2) without N, which below delta
        # ~ 1e-19 needs more bits of sigma than the first rungs carry (MG K = 50 at (50, 1e-300) climbed
        # to 1024 bits at every such probe)
        loss = lipschitz_constant(t) * d / (2 * arb(n)) if n is not None else arb_of(eta * delta) / 2
        lower = (res.lower - slack - loss).lower().max(arb(0))
        if not upper <= target and n is not None:
            # a grid point next to the argmax, certified on its own: the certificate's witness
            j0 = nearest_grid_index(res.argmax)
            for j in dict.fromkeys(min(max(j0 + k, 1), n) for k in (0, -1, 1)):  # nearest first
                r_lower = grid_lower(j)
                lower = lower.max(r_lower)
                if r_lower > target:  # one grid point violating (2) settles it
                    if witnesses is not None:
                        witnesses.append((t, j, n, r_lower))
                    break
        # the continuum sup is proven above the target but no grid point near its argmax is: a gap
        # between the continuum and condition (2) on the grid that no precision closes -- unless the
        # grid itself was undecided (N ~ 1 / delta needs more than log2 N bits of sigma: at
        # delta < 1e-19 the first rung's 64 bits cannot fix N, and more precision does)
        settled = res.decided is Decision.NO and not lower > target and n is not None
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
    from certdp.mechanisms.multi_gaussian import parse_components
    from certdp.engines.gaussian_mixture.float_guide import mg_sigma_float

    clock = Stopwatch()
    eps = parse_positive(epsilon, "epsilon")
    dq = parse_probability(delta, "delta")
    k = parse_components(components)
    et = parse_probability(eta, "eta")
    d = parse_positive(sensitivity, "sensitivity")
    tol = parse_positive(rtol, "rtol")
    target = (1 - et) * dq
    hints: list[float] = []  # the float guide's worst shift at its candidate
    def guide(shifts: Sequence[float] = ()) -> float | None:
        try:
            return mg_sigma_float(float(eps), float(dq), k, float(d), eta=float(et), shifts=shifts, argmax=hints)
        except (ValueError, ArithmeticError):
            return None

    if candidate is None:
        candidate = guide()
    witnesses: list = []

    def first() -> Bracket:
        # the first probe (just above the candidate) should be private: if it is certified far above
        # the target, the float guide missed a narrow peak; it is retried with the engine's argmax
        missed = None if candidate is None else arb(candidate)
        return certified_monotone_bracket(mg_paper_profile(eps, dq, et, k, d, witnesses, missed, hints[-1:]), target,
                                          increasing=False, candidate=candidate, rtol=tol)

    def retry(shift: float) -> Bracket:
        witnesses.clear()
        hints.clear()
        retried = guide([shift])
        return certified_monotone_bracket(mg_paper_profile(eps, dq, et, k, d, witnesses, None, hints[-1:] + [shift]),
                                          target, increasing=False, candidate=retried, rtol=tol)

    br = retry_missed_peak(first, retry)
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
    extra["settings"] = DEFAULT_SETTINGS.as_dict()
    return Certificate.for_calibration(
        claim=method.claim(MultiGaussian), mechanism="multi-gaussian", parameter="sigma",
        parameters={"components": k, "sensitivity": d}, epsilon=eps, delta=dq, rtol=tol,
        inputs={"eta": et}, interval=(br.lo, br.hi), safe_side="upper", method=method.name,
        lemma=method.lemma(MultiGaussian),
        condition=condition_of("seed000-thm-3.2-condition-2", eta=exact_str(et), target_delta=exact_str(target)),
        delta_enclosure=br.delta_at_safe, precision_bits=br.precision_bits, timing_seconds=clock.elapsed(),
        extra=extra,
    )
