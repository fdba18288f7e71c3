"""Certified calibration: the smallest noise (largest rate) that is (epsilon, delta)-DP.

:func:`calibrate` dispatches on the calibration method (:mod:`certdp.workflows.methods`). The
generic method, ``certified-bracket``, works for every registered mechanism whose privacy profile
is monotone in its ``parameter``; its result rests on that monotonicity (stated by each mechanism)
and on :func:`certdp.numbers.certified_monotone_bracket`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from certdp.certificate import Certificate, Stopwatch
from certdp.numbers.bracket import name_reached_parameter
from certdp.mechanisms import get_mechanism
from certdp.numbers import (
    InputError,
    certified_monotone_bracket,
    exact_str,
    parse_exact,
    parse_positive,
    parse_probability,
    round_decimal,
)
from certdp.workflows.common import float_or_none, log_of_fraction, profile_closure, resolve_fixed, typed_key
from certdp.workflows.methods import METHODS, get_method, methods_of

__all__ = ["calibrate", "DEFAULT_RTOL", "METHOD_ALIASES"]

DEFAULT_RTOL = Fraction(1, 10**12)

#: Short names accepted for ``method`` (the CLI's ``--method paper|exact``), per mechanism.
METHOD_ALIASES: dict[str, dict[str, str]] = {
    "paper": {"quasi-gaussian": "seed000-thm-4.2", "multi-gaussian": "seed000-alg-1"},
    "exact": {"quasi-gaussian": "exact-mixture-engine", "multi-gaussian": "exact-mixture-engine"},
    "bracket": {},
}


def _method_for(cls: Any, method: str | None, params: dict[str, Any]) -> str:
    offered = methods_of(cls)
    if method is None:
        chooser = getattr(cls, "default_method_for", None)
        return chooser(params) if chooser is not None else offered[0]
    method = METHOD_ALIASES.get(method, {}).get(cls.name, "certified-bracket" if method == "bracket" else method)
    get_method(method)
    if method not in offered:
        raise InputError("method", f"{cls.name} offers {', '.join(offered)}, not {method}")
    return method


def calibrate(mechanism: str, *, epsilon: object, delta: object, rtol: object = None,
              method: str | None = None, compositions: object = None, **fixed: Any) -> Certificate:
    """Certified calibration of ``mechanism`` at (epsilon, delta) by ``method``.

    ``method`` is an id of :data:`certdp.workflows.methods.METHODS` (or ``"paper"`` / ``"exact"``
    for the mixtures); by default the mechanism's first. For ``certified-bracket`` the returned
    sealed :class:`Certificate` has ``interval = [lo, hi]`` of relative width ``<= rtol``
    (default 1e-12); the safe end (``value``) is proven (epsilon, delta)-DP and the other end
    proven not to be. Raises :class:`InputError` for bad input and :class:`UndecidedError` if
    the boundary cannot be certified even at 4096 bits.

    ``compositions=k`` calibrates the per-step noise of k identical steps (method ``composed-pld``,
    :mod:`certdp.workflows.compose`; gaussian, laplace, subsampled-gaussian, spherical-gaussian,
    l2-laplace, sgg, r1smg; all claim ``minimal``).
    """
    key = None
    if compositions is None:
        key = typed_key(mechanism, {"epsilon": epsilon, "delta": delta, "rtol": rtol, "method": method, **fixed})
        prepared = _PREPARED.get(key) if key is not None else None
        if prepared is not None:  # these very inputs were parsed and checked before
            return _run_bracket(prepared, Stopwatch())
    if compositions is not None or mechanism == "subsampled-gaussian":
        from certdp.workflows.compose import calibrate_composed

        if method not in (None, "composed-pld"):
            raise InputError("method", "calibration under composition uses method composed-pld")
        return calibrate_composed(mechanism, epsilon=epsilon, delta=delta,
                                  compositions=1 if compositions is None else compositions, rtol=rtol, **fixed)
    cls = get_mechanism(mechanism)
    params = resolve_fixed(cls, fixed)
    chosen = _method_for(cls, method, params)
    if chosen == "certified-bracket":
        return _bracket_calibration(cls, epsilon, delta, DEFAULT_RTOL if rtol is None else rtol, params, key)
    options = {} if rtol is None else {"rtol": rtol}
    if chosen in ("product-loss-engine", "quantile-coupling"):
        from certdp.workflows.ggm_vector import calibrate_sensitivity_vector

        # no explicit method: the vector workflow picks the engine (and names it in the certificate)
        return calibrate_sensitivity_vector(fixed.get("shape", 2), epsilon, delta, fixed.get("sensitivity", 1),
                                            rtol=rtol, method=None if method is None else chosen)
    from certdp.workflows import mixtures

    if chosen == "seed000-thm-4.2":
        return mixtures.qg_paper_calibration(epsilon=epsilon, delta=delta, **fixed, **options)
    if chosen == "seed000-alg-1":
        return mixtures.mg_paper_calibration(epsilon=epsilon, delta=delta, **fixed, **options)
    if chosen == "exact-mixture-engine":
        return mixtures.exact_calibration(cls.name, epsilon=epsilon, delta=delta, **fixed, **options)
    raise InputError("method", f"{chosen} has no calibration routine")  # pragma: no cover - registry bug


class _PreparedBracket:
    """The parsed, checked inputs of one certified-bracket calibration and what follows from them
    alone (exact conversions and the certificate's fixed strings), kept per typed input by
    :func:`calibrate`: a repeated calibration redoes the float candidate, the Arb evaluations and
    the certificate, not the parsing. Nothing computed from the profile is kept."""

    __slots__ = ("cls", "eps", "delta", "tol", "params", "eps_float", "log_delta", "cheap",
                 "exact_candidate", "claim", "lemma", "method", "texts", "parameter_texts")

    def __init__(self, cls: Any, eps: Fraction, delta: Fraction, tol: Fraction, params: dict[str, Any]):
        method = METHODS["certified-bracket"]
        self.cls, self.eps, self.delta, self.tol, self.params = cls, eps, delta, tol, params
        self.eps_float = float_or_none(eps)
        self.log_delta = log_of_fraction(delta)
        self.cheap = bool(getattr(cls, "cheap_profile", False))
        self.exact_candidate = getattr(cls, "exact_candidate", None)
        self.claim, self.lemma, self.method = method.claim(cls), method.lemma(cls), method.name
        # the certificate's input and parameter strings (Certificate reads strings as given)
        self.texts = (exact_str(eps), exact_str(delta), exact_str(tol))
        parameter_string = _parameter_string()
        self.parameter_texts = {k: parameter_string(v) for k, v in params.items() if v is not None}


def _parameter_string():
    from certdp.mechanisms.base import parameter_string

    return parameter_string


_PREPARED: dict[tuple, _PreparedBracket] = {}


def _bracket_calibration(cls: Any, epsilon: object, delta: object, rtol: object,
                         params: dict[str, Any], key: tuple | None = None) -> Certificate:
    clock = Stopwatch()
    eps = parse_positive(epsilon, "epsilon")
    tol = parse_positive(rtol, "rtol")
    if not tol.numerator < tol.denominator:
        raise InputError("rtol", "must be < 1")
    delta_q = parse_exact(delta, "delta")
    if delta_q.numerator == 0 and hasattr(cls, "pure_dp_scale"):
        return _pure_dp(cls, eps, params, clock)
    delta_q = parse_probability(delta, "delta")
    prepared = _PreparedBracket(cls, eps, delta_q, tol, params)
    if key is not None and all(type(v) in _IMMUTABLE for v in params.values()):
        if len(_PREPARED) >= 1024:
            _PREPARED.clear()
        _PREPARED[key] = prepared
    return _run_bracket(prepared, clock)


_IMMUTABLE = (Fraction, int, float, str, bool, tuple, type(None))


def _run_bracket(p: _PreparedBracket, clock: Stopwatch) -> Certificate:
    """The float candidate, the certified bracket and the certificate of a prepared calibration."""
    cls = p.cls
    candidate: object = None
    if p.exact_candidate is not None:
        candidate = p.exact_candidate(p.delta, **p.params)
    elif p.eps_float is not None:
        try:
            candidate = cls.float_candidate(p.eps_float, p.log_delta, **p.params)
        except (ArithmeticError, ValueError):
            candidate = None
    name_reached_parameter(cls.parameter)
    bracket = certified_monotone_bracket(
        profile_closure(cls, p.eps, p.params), p.delta, increasing=cls.profile_increasing, candidate=candidate, rtol=p.tol,
        first_steps_at_first_rung=p.cheap,
    )
    eps_text, delta_text, tol_text = p.texts
    notes = bracket.notes
    if notes and bracket.relative_width > p.tol:
        # the bisection stopped early (a point next to the answer could not be compared with delta, e.g.
        # SGG p < 1 next to its pure-DP boundary at eps = 50): both ends are still certified, rtol is not
        notes = (*notes, f"relative width {float(bracket.relative_width):.3g} > rtol: rtol is not claimed")
        tol_text = None
    return Certificate.for_calibration(
        claim=p.claim, mechanism=cls.name, parameter=cls.parameter, parameters=p.parameter_texts,
        epsilon=eps_text, delta=delta_text, rtol=tol_text, interval=(bracket.lo, bracket.hi),
        safe_side="lower" if cls.profile_increasing else "upper",
        method=p.method, lemma=p.lemma, delta_enclosure=bracket.delta_at_safe,
        precision_bits=bracket.precision_bits, timing_seconds=clock.elapsed(),
        extra={
            "evaluations": bracket.evaluations,
            "delta_enclosure_at_unsafe_end": bracket.delta_at_unsafe.strings(),
            **({"notes": list(notes)} if notes else {}),
        },
        interval_is_canonical=True,
    )


def _pure_dp(cls: Any, eps: Fraction, params: dict[str, Any], clock: Stopwatch) -> Certificate:
    """Pure eps-DP (delta = 0) for mechanisms with an exact rational answer (Laplace: b = Delta/eps)."""
    exact = cls.pure_dp_scale(eps, **params)
    value = round_decimal(exact, 17, "up")
    below = round_decimal(exact, 17, "down")
    if below == value:
        below = round_decimal(exact * (1 - Fraction(1, 10**16)), 17, "down")
    method = METHODS["pure-dp-closed-form"]
    return Certificate.for_calibration(
        claim=method.claim(cls), mechanism=cls.name, parameter=cls.parameter, parameters=params,
        epsilon=eps, delta=Fraction(0), interval=(below, value), safe_side="upper",
        method=method.name, lemma=method.lemma(cls), delta_enclosure=["0", "0"],
        timing_seconds=clock.elapsed(), extra={"exact_minimum": exact_str(exact)},
    )
