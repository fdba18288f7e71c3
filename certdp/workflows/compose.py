"""Composition workflows: certified accounting of a plan, and calibration under composition.

* :func:`compose` -- a ``composition`` certificate: claim ``delta-enclosure`` (delta(eps) of the
  composed plan lies in ``delta_enclosure``) or ``epsilon-enclosure`` (the smallest eps with
  delta(eps) <= delta lies in ``extra.epsilon_enclosure``: the plan is (upper, delta)-DP and is
  not (e, delta)-DP for any e < lower).
* :func:`calibrate_composed` -- the per-step noise of ``compositions`` identical steps
  (``gaussian`` sigma, ``laplace`` scale, ``subsampled-gaussian`` noise multiplier) as a certified
  bracket, method ``composed-pld``: the safe end's composed *upper* bound is <= delta, the other
  end's composed *lower* bound is > delta. Monotonicity (claim ``minimal``) is the
  data-processing inequality: more noise is a post-processing of less noise, per step and hence
  for the composition (Gaussian: N(0, s'^2) = N(0, s^2) + N(0, s'^2 - s^2); Laplace: Lap(b') =
  Lap(b) + Y, Y = 0 w.p. (b/b')^2 else Lap(b'), by characteristic functions; the subsampled
  Gaussian adds the same independent Gaussian noise after subsampling). The SGG family:
  ``spherical-gaussian`` (sigma) by the GDP closed form with Delta = s, claim ``minimal``;
  ``l2-laplace`` (theta), ``r1smg`` (sigma_star) and ``sgg`` (rate beta, delta *increasing* in it,
  safe side ``lower``) by connect-the-dots, ``minimal``: seed 003 Lemma 4.2 holds at every eps in R,
  so the step at more noise is a post-processing of the step at less (Blackwell), per step and hence
  for the composition (proofs/sgg_composed_monotonicity_lemma4_2.py).
* :func:`check_composition` / :func:`check_composed_calibration` -- what ``certdp verify`` runs.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any, Callable

from flint import arb

from certdp.accounting.accountant import (
    COUPLED_MECHANISMS,
    COUPLING_THRESHOLD,
    bracket_width_in_steps,
    GDP_MECHANISMS,
    MAX_GRID_BITS,
    MIN_GRID_BITS,
    Composition,
    account,
    lattice_bounds,
    parse_ctd_grids,
    use_coupling,
)
from certdp.accounting.profile_sources import CONNECT_THE_DOTS
from certdp.accounting.plan import parse_plan
from certdp.certificate import Certificate, Stopwatch
from certdp.numbers import (
    Enclosure,
    InputError,
    certified_monotone_bracket,
    exact_str,
    parse_exact,
    parse_positive,
    parse_positive_int,
    parse_probability,
)

__all__ = ["compose", "calibrate_composed", "COMPOSABLE", "COMPOSITION_LEMMA", "COMPOSED_MONOTONICITY",
           "check_composition", "check_composed_calibration"]

#: mechanism -> (parameter it calibrates, fixed parameters with defaults)
COMPOSABLE: dict[str, tuple[str, dict[str, str | None]]] = {
    "gaussian": ("sigma", {"sensitivity": "1"}),
    "laplace": ("scale", {"sensitivity": "1"}),
    "subsampled-gaussian": ("sigma", {"sampling_rate": None}),
    "l2-laplace": ("theta", {"dimension": None, "sensitivity": "1"}),
    "spherical-gaussian": ("sigma", {"dimension": None, "sensitivity": "1"}),
    "sgg": ("rate", {"dimension": None, "alpha": None, "power": None, "sensitivity": "1"}),
    "r1smg": ("sigma_star", {"dimension": None, "sensitivity": "1"}),
}

#: calibrated by the exact GDP closed form (k steps of N(0, t^2 I) with l2 sensitivity s are one Gaussian
#: step with sensitivity s sqrt(k); the spherical Gaussian's worst pair is the 1-D Gaussian with Delta = s)
GDP_CALIBRATED = ("gaussian", "spherical-gaussian")
#: delta *increases* with the calibrated parameter (the SGG rate beta: larger = less noise), so the
#: bracket's *lower* end is the safe one
INCREASING_IN_PARAMETER = ("sgg",)

COMPOSITION_LEMMA = ("privacy-loss distributions composed by convolution; pessimistic (loss rounded up, "
                     "upper ends of certified bin masses, tails to +infinity) and optimistic (rounded down, "
                     "lower ends, tails dropped) discretizations on h*Z, exact integer convolution with "
                     "directed rescaling, both adjacency directions (max); Gaussian groups merged exactly "
                     "into mu-GDP (Dong, Roth & Su 2022, Cor. 3.3)")
CTD_LEMMA = (COMPOSITION_LEMMA + "; mechanisms without a closed-form loss law (SGG family, quasi-/multi-Gaussian) "
             "by connect-the-dots pairs from their certified profile on a recorded epsilon grid: upper = convex "
             "chords through certified upper bounds, a pair dominating the mechanism (Zhu, Dong & Wang 2022, "
             "Thm. 10; negative epsilons by the reflection symmetry of the noise), lower = a symmetric pair "
             "below certified tangent-extension lower bounds, dominated by the worst neighbouring pair "
             "(Blackwell); masses rounded up / down")
GDP_LEMMA = ("a plan of Gaussians is exactly mu-GDP with mu^2 = sum count Delta^2/sigma^2 (Dong, Roth & Su 2022, "
             "Cor. 3.3); delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) in Arb")
COMPOSED_MONOTONICITY = {
    "gaussian": "delta decreasing in sigma (data processing: N(0,s'^2) = N(0,s^2) + N(0,s'^2-s^2))",
    "laplace": "delta decreasing in b (data processing: Lap(b') = Lap(b) + Y, Y = 0 w.p. (b/b')^2 else Lap(b'))",
    "subsampled-gaussian": "delta decreasing in sigma (data processing: extra independent Gaussian noise)",
    "l2-laplace": ("delta non-increasing in theta for every eps >= 0 (seed 003 Prop. C.1: theta rescales the noise), "
                   "hence for every eps in R by the reflection identity delta(-e) = 1 - e^-e + e^-e delta(e) of "
                   "symmetric noise, so the step at a larger theta is a post-processing of the step at a smaller "
                   "one (Blackwell)"),
    "spherical-gaussian": ("delta decreasing in sigma (data processing: N(0,s'^2 I) = N(0,s^2 I) + N(0,(s'^2-s^2) I)); "
                           "the worst pair is the 1-D Gaussian with Delta = s (rotate the shift onto an axis)"),
    "sgg": ("delta non-decreasing in the rate beta for every eps in R (seed 003 Lemma 4.2: the hockey-stick "
            "divergence of the spherically symmetric noise is non-decreasing in the shift norm; its layer-cake "
            "proof holds for every e^eps > 0; beta rescales the shift, Prop. C.1), so the step at a smaller "
            "beta is a post-processing of the step at a larger one (Blackwell; "
            "proofs/sgg_composed_monotonicity_lemma4_2.py)"),
    "r1smg": ("delta non-increasing in sigma_star for every eps in R (SGG with alpha = 0, p = 2: seed 003 "
              "Lemma 4.2 at every eps in R, sigma_star rescales the shift), so the step at a larger sigma_star "
              "is a post-processing of the step at a smaller one (Blackwell; "
              "proofs/sgg_composed_monotonicity_lemma4_2.py)"),
}


def _method(c: Composition) -> str:
    if c.discretization and c.discretization.get("route") == "closed-form":
        return "gdp-closed-form"
    if any(g.mechanism in CONNECT_THE_DOTS for g in c.plan.groups):
        return "pld-lattice-connect-the-dots"
    return "pld-lattice-accountant"


def composition_lemma(method: str) -> str:
    return {"gdp-closed-form": GDP_LEMMA, "pld-lattice-connect-the-dots": CTD_LEMMA}.get(method, COMPOSITION_LEMMA)


def _certificate(c: Composition, clock: Stopwatch) -> Certificate:
    method = _method(c)
    extra: dict[str, Any] = {"groups": c.methods, "discretization": dict(c.discretization or {})}
    if c.notes:
        extra["notes"] = list(c.notes)
    if c.delta is None:
        return Certificate.for_composition(
            claim="delta-enclosure", plan=c.plan.canonical_json(), inputs={"epsilon": c.epsilon},
            delta_enclosure=c.enclosure, method=method, lemma=composition_lemma(method),
            timing_seconds=clock.elapsed(), extra=extra)
    ends = c.enclosure.strings() if not c.epsilon_upper_infinite else [exact_str(c.enclosure.lower), "inf"]
    if c.epsilon_upper_infinite:
        raise InputError("delta", "no finite epsilon could be certified at this delta (the certified tail mass "
                                  "at +infinity exceeds it): try a larger delta or a finer grid")
    extra["epsilon_enclosure"] = ends
    return Certificate.for_composition(
        claim="epsilon-enclosure", plan=c.plan.canonical_json(), inputs={"delta": c.delta},
        method=method, lemma=composition_lemma(method), timing_seconds=clock.elapsed(), extra=extra)


def compose(plan: Any, *, epsilon: object = None, delta: object = None, grid_bits: int | None = None,
            rtol: object = "0.01", coupling: object = "auto") -> Certificate:
    """A ``composition`` certificate for ``plan`` at ``epsilon`` (delta enclosure) or ``delta``
    (``coupling``: "auto", True or False, see :func:`certdp.accounting.account`)."""
    clock = Stopwatch()
    return _certificate(account(plan, epsilon=epsilon, delta=delta, grid_bits=grid_bits, rtol=rtol,
                                coupling=coupling), clock)


def composition_result(plan: Any, **kw: Any) -> tuple[Composition, Certificate]:
    clock = Stopwatch()
    c = account(plan, **kw)
    return c, _certificate(c, clock)


# ------------------------------------------------------------------------------ calibration

def _plan_for(mechanism: str, value: Fraction, fixed: dict[str, Fraction], count: int) -> dict:
    parameter, _ = COMPOSABLE[mechanism]
    return {"mechanisms": [{"mechanism": mechanism, parameter: exact_str(value), "count": count,
                            **{k: exact_str(v) for k, v in fixed.items()}}]}


def _composed_fixed(mechanism: str, fixed: dict[str, Any]) -> dict[str, Fraction]:
    _, spec = COMPOSABLE[mechanism]
    unknown = sorted(set(fixed) - set(spec))
    if unknown:
        raise InputError(unknown[0], f"not a parameter of {mechanism} under composition (known: {', '.join(spec)})")
    out = {}
    for key, default in spec.items():
        raw = fixed.get(key, default)
        if raw is None:
            raise InputError(key, f"required for {mechanism}")
        value = parse_exact(raw, key) if key == "alpha" else parse_positive(raw, key)
        if key == "dimension" and (value.denominator != 1 or value < 2):
            raise InputError(key, f"must be an integer >= 2 (got {exact_str(value)})")
        if key == "sampling_rate" and not value <= 1:
            raise InputError(key, f"must lie in (0, 1] (got {exact_str(value)})")
        out[key] = value
    if "alpha" in out and not -1 < out["alpha"] <= out["dimension"] - 1:
        raise InputError("alpha", f"must lie in (-1, T-1] = (-1, {exact_str(out['dimension'] - 1)}] "
                                  f"(seed 003 Lemma 4.1; got {exact_str(out['alpha'])})")
    return out


def composed_profile(mechanism: str, eps: Fraction, fixed: dict[str, Fraction], count: int,
                     grid_bits: int | None) -> Callable[[arb], tuple[arb, arb, bool]]:
    """``t -> (lower, upper, settled)`` certified bounds of the composed delta(eps) at parameter t.

    ``t`` is an exact decimal point (the bracket probes decimals); Gaussians use the exact GDP closed
    form (precision-escalated by the caller), the others the lattice accountant at ``grid_bits``
    (precision does not tighten a lattice bracket: ``settled`` is True).
    """
    from certdp.numbers.balls import ball_endpoints

    parameter_name = COMPOSABLE[mechanism][0]

    def profile(t: arb) -> arb | tuple[arb, arb, bool]:
        from certdp.numbers import arb_of

        if mechanism in GDP_CALIBRATED:  # k steps of N(0, t^2 I) = one with sensitivity Delta sqrt(k)
            from certdp.engines.closed_form import gaussian_profile

            return gaussian_profile(t, arb_of(eps), arb_of(fixed["sensitivity"]) * arb(count).sqrt())
        lo, hi = ball_endpoints(t)
        if not lo > 0:
            raise InputError(parameter_name, "must be > 0")
        # delta is monotone in the parameter (the lemma): the upper bound at the ball's noisiest end and
        # the lower bound at its least noisy end hold for every point of the ball
        noisy, quiet = (lo, hi) if mechanism in INCREASING_IN_PARAMETER else (hi, lo)
        plan_quiet = parse_plan(_plan_for(mechanism, quiet, fixed, count))
        coupled = use_coupling(plan_quiet)
        at_quiet = lattice_bounds(plan_quiet, grid_bits, None,
                                  sides=("upper",) if hi != lo else ("upper", "lower"), coupled=coupled)
        at_noisy = at_quiet if hi == lo else lattice_bounds(parse_plan(_plan_for(mechanism, noisy, fixed, count)),
                                                            grid_bits, None, sides=("lower",), coupled=coupled)
        high = min(Fraction(1), max(pair.delta_upper(eps) for pair in at_quiet.values()))
        low = max(pair.delta_lower(eps) for pair in at_noisy.values())
        return arb_of(low), arb_of(high), True

    return profile


def _float_candidate(mechanism: str, eps: Fraction, delta: Fraction, fixed: dict[str, Fraction],
                     count: int) -> float | None:
    from certdp.mechanisms.gaussian import Gaussian

    log_delta = math.log(float(delta)) if float(delta) > 0 else None
    if log_delta is None:
        return None
    if mechanism in GDP_CALIBRATED:
        single = Gaussian.float_candidate(float(eps), log_delta, sensitivity=fixed["sensitivity"])
        return None if single is None else single * math.sqrt(count)
    if mechanism in ("sgg", "r1smg"):
        # a guess only: the single-step float root, with the noise scale grown like sqrt(k) (the
        # Gaussian rule; the certified bracket walks from there): scale = beta^(-1/p), r1smg's
        # sigma_star is a variance
        from certdp.mechanisms.sgg import R1SMG, SGG

        T, s = int(fixed["dimension"]), fixed["sensitivity"]
        try:
            if mechanism == "sgg":
                beta = SGG.float_candidate(float(eps), log_delta, dimension=T, alpha=fixed["alpha"],
                                           power=fixed["power"], sensitivity=s)
                return None if beta is None else float(beta) * count ** (-float(fixed["power"]) / 2)
            single = R1SMG.float_candidate(float(eps), log_delta, dimension=T, sensitivity=s)
            return None if single is None else float(single) * count
        except (ValueError, ArithmeticError):
            return None
    if mechanism == "l2-laplace":
        from certdp.workflows.sgg_composition import l2_laplace_composed_candidate

        return l2_laplace_composed_candidate(float(eps), log_delta, int(fixed["dimension"]),
                                             float(fixed["sensitivity"]), count)
    return None


def default_grid_bits(mechanism: str, count: int) -> int:
    """Lattice step of a calibration's profile evaluations: W h ~ 0.02 (a ~1-2 % wide delta bracket), W
    the bracket width in steps (:func:`~certdp.accounting.accountant.bracket_width_in_steps`)."""
    coupled = count if mechanism in COUPLED_MECHANISMS else 0
    width = max(1, bracket_width_in_steps(coupled, count - coupled, coupled > COUPLING_THRESHOLD))
    bits = min(max(MIN_GRID_BITS, math.ceil(math.log2(width / 0.02))), 18)
    if mechanism in CONNECT_THE_DOTS:  # the pairs' grid is refined to 2^-bits in epsilon shift
        bits = max(bits, 9)
    return bits


def calibrate_composed(mechanism: str, *, epsilon: object, delta: object, compositions: object,
                       rtol: object = None, grid_bits: int | None = None, **fixed: Any) -> Certificate:
    """Per-step noise for ``compositions`` identical steps of ``mechanism`` at (epsilon, delta)."""
    from certdp.workflows.methods import METHODS

    clock = Stopwatch()
    if mechanism not in COMPOSABLE:
        raise InputError("mechanism", f"calibration under composition supports {', '.join(COMPOSABLE)}, "
                                      f"not {mechanism!r}")
    parameter, _ = COMPOSABLE[mechanism]
    eps = parse_positive(epsilon, "epsilon")
    dlt = parse_probability(delta, "delta")
    count = parse_positive_int(compositions, "compositions")
    params = _composed_fixed(mechanism, fixed)
    gaussian = mechanism in GDP_CALIBRATED
    tol = parse_positive(rtol if rtol is not None else ("1e-12" if gaussian else "0.02"), "rtol")
    if not tol < 1:
        raise InputError("rtol", "must be < 1")
    bits = None if gaussian else (grid_bits or default_grid_bits(mechanism, count))
    profile = composed_profile(mechanism, eps, params, count, bits)
    candidate = _float_candidate(mechanism, eps, dlt, params, count)
    increasing = mechanism in INCREASING_IN_PARAMETER
    bracket = certified_monotone_bracket(profile, dlt, increasing=increasing, candidate=candidate, rtol=tol)
    method = METHODS["composed-pld"]
    notes = list(bracket.notes)
    if bracket.relative_width > tol:
        notes.append(f"relative width {float(bracket.relative_width):.3g} > rtol: limited by the lattice step "
                     f"2^-{bits} (pass grid_bits for a finer one); rtol is not claimed")
        tol = None
    inputs = {"compositions": str(count)}
    if bits is not None:
        inputs["grid_step"] = exact_str(Fraction(1, 2**bits))
    return Certificate.for_calibration(
        claim=method.claim(mechanism), mechanism=mechanism, parameter=parameter, parameters=params,
        epsilon=eps, delta=dlt, rtol=tol, interval=(bracket.lo, bracket.hi),
        safe_side="lower" if increasing else "upper",
        method=method.name, lemma=method.lemma(mechanism), delta_enclosure=bracket.delta_at_safe,
        inputs=inputs, precision_bits=bracket.precision_bits, timing_seconds=clock.elapsed(),
        extra={"evaluations": bracket.evaluations,
               "delta_enclosure_at_unsafe_end": bracket.delta_at_unsafe.strings(),
               **({"notes": notes} if notes else {})},
    )


# ------------------------------------------------------------------------------ verification

class _Fail(Exception):
    pass


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise _Fail(message)


def check_composition(cert: Certificate, say: Callable[[str], None],
                      check_recorded: Callable[..., None], enclosure_of: Callable[[Any, str], Enclosure],
                      invalid: type[Exception]) -> None:
    """Re-prove a ``composition`` certificate (called by :func:`certdp.workflows.verify.verify`)."""
    try:
        _check_composition(cert, say, check_recorded, enclosure_of)
    except _Fail as exc:
        raise invalid(str(exc)) from None


def _check_composition(cert, say, check_recorded, enclosure_of) -> None:
    from certdp.certificate import number_text

    _require(cert.mechanism == "plan", "a composition certificate's mechanism is 'plan'")
    _require(set(cert.parameters) == {"plan"}, "a composition records exactly parameters.plan")
    plan = parse_plan(cert.parameters["plan"])
    _require(plan.canonical_json() == cert.parameters["plan"], "parameters.plan is not in canonical form")
    _require(cert.guarantee == cert.statement(), "the guarantee text does not match the certified content")
    _require(cert.parameter is None and cert.value is None and cert.interval is None and cert.safe_side is None
             and cert.verdict is None and cert.condition is None,
             "a composition has no parameter, value, interval, safe side, verdict or condition")
    _require(cert.method in ("gdp-closed-form", "pld-lattice-accountant", "pld-lattice-connect-the-dots"),
             f"unknown method {cert.method!r}")
    ctd = any(g.mechanism in CONNECT_THE_DOTS for g in plan.groups)
    _require((cert.method == "pld-lattice-connect-the-dots") == ctd,
             "the method must be pld-lattice-connect-the-dots exactly when the plan has connect-the-dots groups")
    _require(cert.lemma == composition_lemma(cert.method), "the lemma text is not the method's")
    disc = cert.extra.get("discretization")
    _require(isinstance(disc, dict), "extra.discretization is missing")
    allowed = {"groups", "discretization", "notes", "epsilon_enclosure"}
    unknown = sorted(set(cert.extra) - allowed)
    _require(not unknown, f"extra field(s) {', '.join(unknown)} are not part of a composition certificate")
    if "notes" in cert.extra:
        _require(isinstance(cert.extra["notes"], list), "extra.notes must be a list")
    if cert.claim == "delta-enclosure":
        _require(set(cert.inputs) == {"epsilon"}, "a delta enclosure has exactly inputs.epsilon")
        eps = number_text(cert.inputs["epsilon"], "inputs.epsilon")
        _require(eps >= 0, "inputs.epsilon must be >= 0")
        _require("epsilon_enclosure" not in cert.extra, "a delta enclosure records no epsilon enclosure")
        kw: dict[str, Any] = {"epsilon": eps}
    else:
        _require(set(cert.inputs) == {"delta"}, "an epsilon enclosure has exactly inputs.delta")
        dlt = number_text(cert.inputs["delta"], "inputs.delta")
        _require(0 < dlt < 1, "inputs.delta must be in (0, 1)")
        _require(cert.delta_enclosure is None, "an epsilon enclosure records no delta enclosure")
        kw = {"delta": dlt}
    if cert.method == "gdp-closed-form":
        _require(all(g.mechanism in GDP_MECHANISMS for g in plan.groups), "gdp-closed-form needs a Gaussian-only plan")
        grid = None
    else:
        _require(any(g.mechanism not in GDP_MECHANISMS for g in plan.groups), "a Gaussian-only plan is closed form")
        text = disc.get("grid_bits")
        _require(isinstance(text, str) and text.isdigit(), "extra.discretization.grid_bits must be an integer")
        grid = int(text)
        _require(MIN_GRID_BITS <= grid <= MAX_GRID_BITS, f"grid_bits must be in [{MIN_GRID_BITS}, {MAX_GRID_BITS}]")
    if grid is not None:
        rounding = disc.get("rounding")
        _require(rounding in ("coupled-hoeffding", "deterministic"),
                 "extra.discretization.rounding must be 'coupled-hoeffding' or 'deterministic'")
        kw["coupling"] = rounding == "coupled-hoeffding"
        if "delta_ref" in disc:
            _require("epsilon" in kw, "only an epsilon-mode lattice records delta_ref")
            try:
                kw["delta_ref"] = number_text(disc["delta_ref"], "extra.discretization.delta_ref")
            except Exception as exc:  # noqa: BLE001 - any parse failure is a malformed record
                raise _Fail(f"extra.discretization.delta_ref: {exc}") from None
            _require(0 < kw["delta_ref"] < 1, "extra.discretization.delta_ref must lie in (0, 1)")
    if cert.claim == "delta-enclosure":
        _require(cert.delta_enclosure is not None, "a delta enclosure is recorded")
        recorded = enclosure_of(cert.delta_enclosure, "delta_enclosure")
    else:
        recorded = enclosure_of(cert.extra.get("epsilon_enclosure"), "extra.epsilon_enclosure")
    grids = None
    if ctd:
        try:
            grids = parse_ctd_grids(disc.get("connect_the_dots_grids"), grid)
        except InputError as exc:
            raise _Fail(f"extra.discretization: {exc}") from None
    from certdp.accounting.pld import work_budget

    with work_budget(VERIFY_WORK_SECONDS, VERIFY_MAX_COEFFICIENTS, VERIFY_MAX_EVALUATIONS):
        redo = account(plan, grid_bits=grid, ctd_grids=grids, **kw)
    _require(redo.methods == cert.extra.get("groups"), "extra.groups is not what the accountant reports for this plan")
    _require(redo.discretization == disc, f"extra.discretization is not the accountant's ({redo.discretization})")
    path = "the GDP closed form in Arb" if grid is None else f"the lattice accountant at the recorded step 2^-{grid}"
    say(f"recomputed by {path}")
    what = "delta enclosure" if cert.claim == "delta-enclosure" else "epsilon enclosure"
    if cert.claim != "delta-enclosure":
        _require(not redo.epsilon_upper_infinite, "no finite epsilon is certified at this delta")
    check_recorded(recorded, redo.enclosure, what)
    if grid is not None:
        _cross_check(plan, grid, kw, recorded, what, say, grids)
    else:
        _gdp_quadrature_check(plan, kw, recorded, say)


def gdp_delta_by_quadrature(mu2: Fraction, eps: Fraction, bits: int = 128) -> arb:
    """delta(eps) of mu-GDP by Arb's rigorous quadrature of E[(1 - e^(eps - L))_+], L ~ N(mu^2/2, mu^2),
    over [eps, eps + T] plus the Mills-ratio tail bound phi(x)/x -- a second formula, independent of
    the Phi-based closed form."""
    from flint import acb

    from certdp.numbers import arb_of, working_precision

    with working_precision(bits):
        mu = arb_of(mu2).sqrt()
        m = arb_of(mu2) / 2
        e = arb_of(eps)
        span = 40 * float(mu.mid()) + 40
        top = eps + Fraction(math.ceil(span))
        amu, am, ae = acb(mu), acb(m), acb(e)
        norm = acb(1 / ((2 * arb.pi()).sqrt() * mu))

        def integrand(z, analytic):
            return norm * (-((z - am) ** 2) / (2 * amu * amu)).exp() * (1 - (ae - z).exp())

        value = acb.integral(integrand, acb(e), acb(arb_of(top))).real
        x = (arb_of(top) - m) / mu
        tail = (-(x * x) / 2).exp() / ((2 * arb.pi()).sqrt() * x)  # P(L > top) <= phi(x)/x, x > 0
        return value + arb(0, arb(tail.upper()))


def _gdp_quadrature_check(plan, kw: dict, recorded: Enclosure, say) -> None:
    from certdp.accounting.accountant import gdp_mu_squared
    from certdp.numbers.balls import ball_endpoints

    mu2 = gdp_mu_squared(plan)
    if "epsilon" in kw:
        lo, hi = ball_endpoints(gdp_delta_by_quadrature(mu2, kw["epsilon"]))
        _require(lo <= recorded.upper and recorded.lower <= hi,
                 f"recorded delta enclosure {recorded.strings()} is wrong: quadrature gives [{float(lo):.6g}, {float(hi):.6g}]")
        say(f"cross-checked by Arb quadrature of the GDP hockey-stick integral (a second formula): "
            f"[{float(lo):.10g}, {float(hi):.10g}] meets the record")
        return
    delta = kw["delta"]
    at_hi, _ = ball_endpoints(gdp_delta_by_quadrature(mu2, recorded.upper))
    _require(not at_hi > delta, f"recorded epsilon upper end {exact_str(recorded.upper)} is wrong: the quadrature "
                                f"delta there exceeds {exact_str(delta)}")
    if recorded.lower > 0:
        _, at_lo = ball_endpoints(gdp_delta_by_quadrature(mu2, recorded.lower))
        _require(not at_lo < delta, f"recorded epsilon lower end {exact_str(recorded.lower)} is wrong: the "
                                    f"quadrature delta there is below {exact_str(delta)}")
    say("cross-checked by Arb quadrature of the GDP hockey-stick integral (a second formula): the recorded "
        "epsilon ends are not on the wrong sides of delta")


#: the verifier's work limit for a lattice recomputation (a forged plan / count / grid is refused, UNDECIDED)
VERIFY_WORK_SECONDS = 300.0
VERIFY_MAX_COEFFICIENTS = 2**23
VERIFY_MAX_EVALUATIONS = 2**21  # certified loss-CDF evaluations in all (~1 min of Arb)


def _cross_check(plan, grid: int, kw: dict, recorded: Enclosure, what: str, say,
                 ctd_grids: dict | None = None) -> None:
    """A second certified bracket by the *other* rounding rule at a coarser step must meet the record.

    Both brackets contain the true value, so disjoint ones prove the record wrong. It is the same
    lattice engine (exact products, the same loss CDFs), so it is not independent of it; the rounding
    argument differs (monotone domination alone vs. the coupled rule with Hoeffding's inequality)."""
    from certdp.accounting.pld import work_budget

    other = dict(kw)
    other["coupling"] = not kw.get("coupling", False)
    step = max(MIN_GRID_BITS, grid - 1)
    if ctd_grids is not None:  # connect-the-dots: the recorded grids' points on the coarser lattice
        ctd_grids = {k: [e for e in g if (e * 2**step).denominator == 1] for k, g in ctd_grids.items()}
        if any(len(g) < 2 for g in ctd_grids.values()):
            say(f"cross-check at step 2^-{step}: a recorded connect-the-dots grid has < 2 points on it, skipped")
            return
        other["ctd_grids"] = ctd_grids
    with work_budget(VERIFY_WORK_SECONDS, VERIFY_MAX_COEFFICIENTS, VERIFY_MAX_EVALUATIONS):
        second = account(plan, grid_bits=step, **other)
    rule = "coupled" if other["coupling"] else "deterministic"
    if second.enclosure is None:
        say(f"cross-check ({rule} rounding, step 2^-{step}): no bracket, inconclusive")
        return
    enc = second.enclosure
    upper = None if second.epsilon_upper_infinite else enc.upper
    _require(enc.lower <= recorded.upper and (upper is None or recorded.lower <= upper),
             f"recorded {what} {recorded.strings()} is wrong: the {rule}-rounding bracket at step 2^-{step} is "
             f"[{exact_str(enc.lower)}, {'inf' if upper is None else exact_str(upper)}]")
    say(f"cross-checked by the {rule} rounding rule at step 2^-{step} (the same lattice engine, a different "
        f"rounding argument): its bracket [{float(enc.lower):.6g}, {'inf' if upper is None else f'{float(upper):.6g}'}] "
        f"meets the record")


def check_composed_calibration(cert: Certificate, say: Callable[[str], None], classify: Callable,
                               check_recorded: Callable[..., None], enclosure_of: Callable,
                               invalid: type[Exception], undecided: type[Exception]) -> None:
    """Re-prove a ``composed-pld`` calibration: both ends recomputed from the exact inputs."""
    from certdp.certificate import number_text
    from certdp.workflows.methods import METHODS

    def need(ok: bool, message: str) -> None:
        if not ok:
            raise invalid(message)

    name = cert.mechanism
    need(name in COMPOSABLE, f"{name!r} has no calibration under composition")
    parameter, spec = COMPOSABLE[name]
    method = METHODS["composed-pld"]
    need(cert.kind == "calibration" and cert.claim == method.claim(name),
         f"a composed-pld calibration of {name} claims {method.claim(name)!r}")
    need(cert.lemma == method.lemma(name), "the lemma text is not the method's")
    need(cert.parameter == parameter, f"{name}'s parameter is {parameter!r}")
    need(cert.guarantee == cert.statement(), "the guarantee text does not match the certified content")
    need(cert.verdict is None and cert.condition is None, "a calibration has no verdict or condition")
    increasing = name in INCREASING_IN_PARAMETER
    need(cert.safe_side == ("lower" if increasing else "upper"),
         "the safe side is 'lower' for a rate (delta increasing in it) and 'upper' for a noise scale")
    try:
        params = _composed_fixed(name, dict(cert.parameters))
    except InputError as exc:
        raise invalid(f"parameters: {exc}") from None
    need({k: exact_str(v) for k, v in params.items()} == cert.parameters, "parameters are not in canonical form")
    gaussian = name in GDP_CALIBRATED
    allowed_inputs = {"epsilon", "delta", "rtol", "compositions"} | (set() if gaussian else {"grid_step"})
    need(set(cert.inputs) <= allowed_inputs and {"epsilon", "delta", "compositions"} <= set(cert.inputs),
         "inputs are not those of a composed-pld calibration")
    eps = number_text(cert.inputs["epsilon"], "inputs.epsilon")
    dlt = number_text(cert.inputs["delta"], "inputs.delta")
    need(eps > 0 and 0 < dlt < 1, "inputs out of domain")
    text = cert.inputs["compositions"]
    need(text.isdigit() and int(text) >= 1 and str(int(text)) == text, "inputs.compositions must be a positive integer")
    count = int(text)
    bits = None
    if not gaussian:
        need("grid_step" in cert.inputs, "inputs.grid_step is missing")
        step = number_text(cert.inputs["grid_step"], "inputs.grid_step")
        need(step > 0 and step.numerator == 1 and step.denominator & (step.denominator - 1) == 0,
             "inputs.grid_step must be 2^-k")
        bits = step.denominator.bit_length() - 1
        need(MIN_GRID_BITS <= bits <= MAX_GRID_BITS, "inputs.grid_step out of range")
    extra_allowed = {"evaluations", "delta_enclosure_at_unsafe_end", "notes"}
    need(set(cert.extra) <= extra_allowed, "extra fields are not those of a composed-pld calibration")
    need(cert.interval is not None, "a calibration records an interval")
    lo, hi = (Fraction(x) for x in cert.interval)
    need(0 < lo < hi, "interval must be positive and increasing")
    safe, unsafe = (lo, hi) if increasing else (hi, lo)
    need(Fraction(cert.value) == safe, "value is not the safe end of the interval")
    if "rtol" in cert.inputs:
        rtol = number_text(cert.inputs["rtol"], "inputs.rtol")
        need(0 < rtol < 1 and (hi - lo) / hi <= rtol, "the interval is wider than rtol")
    profile = composed_profile(name, eps, params, count, bits)
    say(f"recomputed by {'the GDP closed form' if gaussian else f'the lattice accountant at step 2^-{bits}'}")
    from certdp.numbers import Decision

    decision, enc = classify(profile, safe, dlt)
    need(decision is not Decision.NO, f"value {exact_str(safe)} is NOT private after {count} compositions: {enc}")
    if decision is Decision.UNKNOWN:
        raise undecided(f"could not decide the safe end {exact_str(safe)} ({enc})")
    say(f"value {exact_str(safe)} is private after {count} compositions: composed delta in {enc}")
    need(cert.delta_enclosure is not None, "a calibration records the delta enclosure at its value")
    check_recorded(enclosure_of(cert.delta_enclosure, "delta_enclosure"), enc, "delta enclosure")
    decision, enc_u = classify(profile, unsafe, dlt)
    need(decision is not Decision.YES, f"interval end {exact_str(unsafe)} is private too ({enc_u}): not tight")
    if decision is Decision.UNKNOWN:
        raise undecided(f"could not decide the unsafe end {exact_str(unsafe)}")
    say(f"interval end {exact_str(unsafe)} is not private: composed delta in {enc_u} > {cert.inputs['delta']}")
    if "delta_enclosure_at_unsafe_end" in cert.extra:
        check_recorded(enclosure_of(cert.extra["delta_enclosure_at_unsafe_end"], "extra.delta_enclosure_at_unsafe_end"),
                       enc_u, "delta enclosure at the unsafe end")


_ = json
