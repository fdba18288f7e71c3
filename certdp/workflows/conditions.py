"""Re-proof of the sufficient conditions that ``sufficient`` calibration claims name.

A ``sufficient`` certificate says: the safe end satisfies the named condition (which implies
(epsilon, delta)-DP by the cited theorem) and the other end fails *that condition*. These
functions re-decide both statements from the exact inputs with Arb on the verifier's precision
ladder; they are called by :func:`certdp.workflows.verify.verify` only.

* ``seed000-thm-4.2`` (quasi-Gaussian): (4a) ``-h1 / (e^eps + 2 Phi(D/sigma)) <= delta``, i.e.
  ``h1 + h2 >= 0`` (:func:`~certdp.workflows.mixtures.qg_sigma1_profile`), and (4b)
  ``max_[0,D] f_q / (e^eps min_[0,D] f_q) <= 1`` (:func:`~certdp.workflows.mixtures.qg_ratio_enclosure`).
  ``extra.binding`` names the part the unsafe end fails; ``extra.sigma_1_interval`` /
  ``sigma_2_interval`` are re-proven as brackets of the two parts' thresholds.
* ``seed000-thm-3.2-condition-2`` (multi-Gaussian Alg. 1): the safe end by the certified sup of
  the hockey-stick divergence over *all* shifts (at most ``(1 - eta) delta``: stronger than the
  grid condition), the unsafe end by a certified lower bound above ``(1 - eta) delta`` on the
  grid's largest divergence (at a grid shift ``j Delta / N``, or by the Lipschitz bound of
  :func:`~certdp.workflows.mixtures.mg_paper_profile` from the continuum search); a recorded
  ``extra.unsafe_end_witness`` is re-checked at its own grid index.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from flint import arb, ctx

from certdp.certificate import Certificate, number_text
from certdp.numbers import Decision, Enclosure, arb_of, classify_point, exact_str, working_precision
from certdp.workflows.methods import CONDITIONS
from certdp.workflows.verify import (VERIFY_LADDER, VerifyInvalid, VerifyUndecided, _check_recorded, _enclosure,
                                     _refiner)

__all__ = ["check_condition"]

_LADDER = VERIFY_LADDER[:5]  # the conditions' engines gain nothing beyond 2048 bits


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise VerifyInvalid(message)


def _decide(profile: Callable, t: Fraction, threshold: Fraction, what: str) -> tuple[Decision, Enclosure | None]:
    decision, enc = classify_point(profile, t, threshold, _LADDER)
    if decision is Decision.UNKNOWN:
        raise VerifyUndecided(f"{what} at sigma = {exact_str(t)} is {enc}: not decided at {_LADDER[-1]} bits")
    return decision, enc


def check_condition(cert: Certificate, params: dict[str, Any], eps: Fraction, delta: Fraction, safe: Fraction,
                    unsafe: Fraction, report: Any) -> None:
    """Re-prove ``cert``'s sufficient-condition claim; raise VerifyInvalid / VerifyUndecided otherwise."""
    condition = cert.condition or {}
    name = condition.get("name")
    _require(name in CONDITIONS, f"unknown condition {name!r}")
    _require(condition.get("statement") == CONDITIONS[name], "the condition's statement is not the registered one")
    if cert.method == "seed000-thm-4.2":
        _require(name == "seed000-thm-4.2" and set(condition) == {"name", "statement"},
                 "a Thm 4.2 calibration names the condition seed000-thm-4.2 and nothing else")
        return _check_qg(cert, params, eps, delta, safe, unsafe, report)
    _require(name == "seed000-thm-3.2-condition-2", "an Alg. 1 calibration names condition (2) of Thm 3.2")
    return _check_mg(cert, params, eps, delta, safe, unsafe, report)


# ------------------------------------------------------------------------------ QG, Thm 4.2


def _check_qg(cert: Certificate, params: dict[str, Any], eps: Fraction, delta: Fraction, safe: Fraction,
              unsafe: Fraction, report: Any) -> None:
    from certdp.workflows.mixtures import qg_ratio_enclosure, qg_sigma1_profile

    allowed = {"sigma_1_interval", "sigma_2_interval", "binding", "notes", "exact_engine_check"}
    unknown = sorted(set(cert.extra) - allowed - {"evaluations"})
    _require(not unknown, f"extra field(s) {', '.join(unknown)} are not part of a Thm 4.2 certificate")
    _require(set(cert.inputs) <= {"epsilon", "delta", "rtol"}, "a Thm 4.2 calibration has inputs epsilon, delta, rtol")
    d = params["sensitivity"]
    _require(params.get("shape_epsilon") is None, "Thm 4.2 is stated for the QG mixture of its own epsilon")
    part_a = qg_sigma1_profile(eps, d)

    def part_b(t: arb) -> arb:
        with working_precision(max(ctx.prec, 128)):
            return qg_ratio_enclosure(t, arb_of(eps), arb_of(d))

    # (4a) holds for every sigma when e^eps + 2 >= 1/delta (Lemma 4.3): decided exactly
    with working_precision(128):
        a_everywhere = bool(arb_of(eps).exp() + 2 - 1 / arb_of(delta) >= 0)
    parts = {"sigma_1": (part_a, delta, "(4a) -h1/(e^eps + 2 Phi(D/sigma))"),
             "sigma_2": (part_b, Fraction(1), "(4b) max f_q / (e^eps min f_q)")}
    for key, (profile, threshold, what) in parts.items():
        if key == "sigma_1" and a_everywhere:
            report.say("(4a) holds for every sigma: e^eps + 2 >= 1/delta (Lemma 4.3), decided in Arb")
            _require(cert.extra.get("sigma_1_interval") is None, "sigma_1 = 0 here: no sigma_1 interval")
            continue
        decision, enc = _decide(profile, safe, threshold, what)
        _require(decision is Decision.YES, f"{what} = {enc} > {exact_str(threshold)} at the safe end: "
                                           "Thm 4.2's condition fails there")
        report.say(f"{what} <= {exact_str(threshold)} at sigma = {exact_str(safe)} (in {enc})")
        recorded = cert.extra.get(f"{key}_interval")
        _require(isinstance(recorded, list) and len(recorded) == 2, f"extra.{key}_interval must be [lo, hi]")
        lo, hi = (number_text(x, f"extra.{key}_interval") for x in recorded)
        _require(0 < lo < hi <= safe, f"extra.{key}_interval must satisfy 0 < lo < hi <= value")
        _require(_decide(profile, hi, threshold, what)[0] is Decision.YES, f"{what} fails at {key}'s upper end")
        _require(_decide(profile, lo, threshold, what)[0] is Decision.NO, f"{what} holds at {key}'s lower end")
        report.say(f"{key} in ({exact_str(lo)}, {exact_str(hi)}] re-proven")
    binding = cert.extra.get("binding")
    _require(binding in parts and not (binding == "sigma_1" and a_everywhere), "extra.binding must name a part")
    profile, threshold, what = parts[binding]
    decision, enc = _decide(profile, unsafe, threshold, what)
    _require(decision is Decision.NO, f"{what} holds at the unsafe end {exact_str(unsafe)} (in {enc}): "
                                      "it does not violate Thm 4.2's condition")
    report.say(f"{what} = {enc} > {exact_str(threshold)} at sigma = {exact_str(unsafe)}: the condition fails there")
    if cert.delta_enclosure is not None:
        from certdp.mechanisms.quasi_gaussian import QuasiGaussian

        def exact_profile(t: arb):
            return QuasiGaussian.profile_bounds(t, arb_of(eps), sensitivity=d, rel_tol=1e-9, target=arb_of(delta))

        decision, enc = _decide(exact_profile, safe, delta, "delta(eps) by the exact engine")
        _require(decision is Decision.YES, f"the exact engine finds delta(eps) in {enc} > delta at the safe end")
        _check_recorded(_enclosure(cert.delta_enclosure, "delta_enclosure"), enc, "delta enclosure", report,
                        _refiner(exact_profile, safe))
        report.recomputed = enc.strings() if enc else None
    if "exact_engine_check" in cert.extra:
        _require(cert.extra["exact_engine_check"] == "delta(eps) <= delta" and cert.delta_enclosure is not None,
                 "extra.exact_engine_check must be 'delta(eps) <= delta', with the delta enclosure recorded")


# ------------------------------------------------------------------------------ MG, Alg. 1


def _check_mg(cert: Certificate, params: dict[str, Any], eps: Fraction, delta: Fraction, safe: Fraction,
              unsafe: Fraction, report: Any) -> None:
    from certdp.workflows.mixtures import mg_paper_profile

    _require(set(cert.extra) <= {"unsafe_end_witness", "delta_enclosure_at_unsafe_end", "evaluations", "settings"},
             "unexpected extra fields in an Alg. 1 certificate")
    _require(set(cert.inputs) <= {"epsilon", "delta", "rtol", "eta"} and "eta" in cert.inputs,
             "an Alg. 1 calibration has inputs epsilon, delta, eta (and rtol)")
    _require(params.get("shape_epsilon") is None, "Alg. 1 calibrates the MG mixture of its own epsilon")
    eta = number_text(cert.inputs["eta"], "inputs.eta")
    _require(0 < eta < 1, "inputs.eta must be in (0, 1)")
    target = (1 - eta) * delta
    condition = cert.condition or {}
    _require(set(condition) == {"name", "statement", "eta", "target_delta"} and condition.get("eta") == exact_str(eta)
             and condition.get("target_delta") == exact_str(target),
             f"the condition must record eta = {exact_str(eta)} and target_delta = (1 - eta) delta = {exact_str(target)}")
    k, d = params["components"], params["sensitivity"]
    profile = mg_paper_profile(eps, delta, eta, k, d)
    decision, enc = _decide(profile, safe, target, "the certified sup of H over all shifts")
    _require(decision is Decision.YES, f"sup H = {enc} > (1 - eta) delta at the safe end: condition (2) is not proven")
    report.say(f"sup over all shifts of H at sigma = {exact_str(safe)} in {enc} <= (1 - eta) delta = {exact_str(target)}")
    report.recomputed = enc.strings() if enc else None
    _require(cert.delta_enclosure is not None, "an Alg. 1 certificate records the delta enclosure at its value")
    _check_recorded(_enclosure(cert.delta_enclosure, "delta_enclosure"), enc, "delta enclosure", report,
                    _refiner(profile, safe))
    decision, enc = _decide(profile, unsafe, target, "H at the grid shift next to the worst shift")
    _require(decision is Decision.NO, f"no grid shift violating condition (2) at the unsafe end {exact_str(unsafe)}")
    report.say(f"a grid shift at sigma = {exact_str(unsafe)} has H > (1 - eta) delta (in {enc}): condition (2) fails")
    if "delta_enclosure_at_unsafe_end" in cert.extra:
        _check_recorded(_enclosure(cert.extra["delta_enclosure_at_unsafe_end"], "extra.delta_enclosure_at_unsafe_end"),
                        enc, "enclosure at the unsafe end", report, _refiner(profile, unsafe))
    witness = cert.extra.get("unsafe_end_witness")
    if witness is not None:
        _check_mg_witness(witness, eps, delta, eta, k, d, unsafe, target, report)


def _check_mg_witness(witness: Any, eps: Fraction, delta: Fraction, eta: Fraction, k: int, d: Fraction,
                      unsafe: Fraction, target: Fraction, report: Any) -> None:
    from certdp.engines.gaussian_mixture import ShiftEngine
    from certdp.mechanisms.multi_gaussian import multi_gaussian_core
    from certdp.workflows.mixtures import mg_grid_step

    _require(isinstance(witness, dict) and set(witness) == {"grid_index", "grid_size", "shift", "H_lower_bound"},
             "extra.unsafe_end_witness must be {grid_index, grid_size, shift, H_lower_bound}")
    j, n = witness["grid_index"], witness["grid_size"]
    _require(type(j) is int and type(n) is int and 0 <= j <= n, "witness grid index/size must be integers")
    # N ~ 1/delta: 4096 bits reach far below the domain's delta floor and bound a forger's precision
    _require(n.bit_length() <= 4096, "witness grid size above 2^4096")
    _require(witness["shift"] == f"{j}/{n} * Delta", "witness shift text must be 'j/N * Delta'")
    # N ~ 1 / (eta sigma delta) has ~3.3 log10(1/delta) bits: sigma must carry more to fix N
    with working_precision(max(256, 2 * n.bit_length() + 64)):
        t = arb_of(unsafe)
        _require(mg_grid_step(t, (arb_of(delta), arb_of(eta)), arb_of(d)) == n,
                 f"the grid at sigma = {exact_str(unsafe)} does not have N = {n} steps (Alg. 1's beta)")
        e = arb_of(eps)
        mix, slack = multi_gaussian_core(t, e, arb_of(d), k, e, arb_of(target) * arb("1e-12"))
        eng = ShiftEngine(mix, e, float(delta), 1e-14)  # hockey_stick_at_shift's engine
        phi = arb_of(d) * arb(j) / arb(n)
        value = eng.value_at(phi)
        # the certified point value's lower end, or the float-run bound where that is the tighter one
        lower = (value.lower.max(eng.lower_bound_at(phi)) - slack).lower()
        claimed = number_text(witness["H_lower_bound"], "witness.H_lower_bound")
        _require(bool(lower > arb_of(target)), f"H at the witness shift {j}/{n} is not proven above (1 - eta) delta")
        _require(bool(arb_of(claimed) <= value.upper), "the witness's H lower bound exceeds the certified H there")
    report.say(f"witness grid shift {j}/{n} * Delta re-proven: H > (1 - eta) delta")
