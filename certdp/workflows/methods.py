"""The registry of calibration methods: what each one claims and the result it rests on.

A calibration certificate names its ``method`` by one of these ids; :mod:`certdp.workflows.verify`
re-derives the certificate's ``claim`` and ``lemma`` from the id and the mechanism (so neither can
be edited into a stronger statement) and dispatches its re-proof on it. Mechanisms list the
methods they offer in ``Mechanism.calibration_methods`` (the first is the default of
:func:`certdp.calibrate`); the round-trip test enumerates them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["CalibrationMethod", "METHODS", "get_method", "methods_of", "condition_of"]


@dataclass(frozen=True)
class CalibrationMethod:
    """One way to calibrate: ``claim(cls)`` and ``lemma(cls)`` are what its certificates say."""

    name: str
    summary: str
    claim: Callable[[Any], str]
    lemma: Callable[[Any], str]


def _bracket_claim(cls: Any) -> str:
    return "minimal" if cls.monotone_proven else "endpoints"


def _bracket_lemma(cls: Any) -> str:
    return f"{cls.method}; rests on {cls.lemma}"


MIXTURE_MONOTONICITY = {
    "multi-gaussian": "delta non-increasing in sigma (seed 000 Lemma 3.4), so every sigma >= value is private",
    "quasi-gaussian": "monotonicity in sigma is not proven for QG: certified are the two ends only",
}

#: The sufficient conditions a ``sufficient`` claim may name: id -> the statement in words.
CONDITIONS: dict[str, str] = {
    "seed000-thm-4.2": ("the sufficient condition of seed 000 Thm 4.2 (h1 + h2 >= 0 and "
                        "max_[0,Delta] f_q <= e^eps min_[0,Delta] f_q)"),
    "seed000-thm-3.2-condition-2": ("condition (2) of seed 000 Thm 3.2 (the hockey-stick divergence at every "
                                    "grid shift is at most (1 - eta) delta)"),
}

METHODS: dict[str, CalibrationMethod] = {m.name: m for m in (
    CalibrationMethod(
        "certified-bracket", "certified monotone bracket on the mechanism's privacy profile",
        _bracket_claim, _bracket_lemma),
    CalibrationMethod(
        "pure-dp-closed-form", "exact rational closed form of the pure eps-DP scale (delta = 0)",
        lambda cls: "minimal", lambda cls: f"exact rational closed form (pure eps-DP); rests on {cls.lemma}"),
    CalibrationMethod(
        "seed000-thm-4.2", "certified seed 000 Thm 4.2 / Alg. 3-4 (quasi-Gaussian, sufficient condition)",
        lambda cls: "sufficient",
        lambda cls: "seed 000 Thm 4.2 (sufficient condition), Lemmas 4.3-4.5; certified brackets for sigma_1, "
                    "sigma_2"),
    CalibrationMethod(
        "seed000-alg-1", "certified seed 000 Alg. 1-2 (multi-Gaussian, condition (2) of Thm 3.2)",
        lambda cls: "sufficient",
        lambda cls: ("seed 000 Thm 3.2 condition (2), Alg. 1-2; Lemma 3.4 (up-set in sigma); safe end by the "
                     "exact engine's certified sup over all shifts, unsafe end by a certified grid witness")),
    CalibrationMethod(
        "exact-mixture-engine", "smallest sigma the exact Gaussian-mixture engine certifies",
        lambda cls: "minimal" if cls.name == "multi-gaussian" else "endpoints",
        lambda cls: f"{cls.lemma}; {MIXTURE_MONOTONICITY[cls.name]}"),
    CalibrationMethod(
        "product-loss-engine", "GGM with a sensitivity vector: pessimistic discretisation of the 1-D losses",
        lambda cls: "minimal",
        lambda cls: ("product-loss engine: pessimistic discretisation of the 1-D losses, convolution + suffix "
                     "sums with rigorous float64 error bounds; seed 004 Lemma 3.5 (worst shift = corner), "
                     "App. A.2 (loss representation), delta decreasing in b (App. B.6)")),
    CalibrationMethod(
        "quantile-coupling", "GGM with a sensitivity vector: coupled lower / upper bounds of delta (exact integers)",
        lambda cls: "minimal",
        lambda cls: ("quantile coupling (certdp/engines/quantile_coupling.py): the safe end by the mirrored "
                     "coupling lemma (an upper bound of delta), the unsafe end by the coupling lemma (a lower "
                     "bound), exact integer convolution + Arb; seed 004 Lemma 3.5 (worst shift = corner), App. A.2 "
                     "(loss representation), delta decreasing in b (App. B.6)")),
    CalibrationMethod(
        "composed-pld", "per-step noise of k identical steps: certified bracket on the composed delta",
        lambda cls: "minimal",
        lambda cls: _composed_lemma(getattr(cls, "name", cls))),
)}


def _composed_lemma(name: str) -> str:
    from certdp.accounting.profile_sources import CONNECT_THE_DOTS
    from certdp.workflows.compose import (
        COMPOSED_MONOTONICITY, COMPOSITION_LEMMA, CTD_LEMMA, GDP_CALIBRATED, GDP_LEMMA,
    )

    route = GDP_LEMMA if name in GDP_CALIBRATED else (CTD_LEMMA if name in CONNECT_THE_DOTS else COMPOSITION_LEMMA)
    return f"{route}; {COMPOSED_MONOTONICITY[name]}, per step and hence for the composition"


def get_method(name: str) -> CalibrationMethod:
    from certdp.numbers import InputError

    try:
        return METHODS[name]
    except KeyError:
        raise InputError("method", f"unknown calibration method {name!r} (known: {', '.join(METHODS)})") from None


def methods_of(cls: Any) -> tuple[str, ...]:
    """The calibration methods mechanism class ``cls`` offers (the first is its default)."""
    return tuple(getattr(cls, "calibration_methods", ("certified-bracket",)))


def condition_of(name: str, **numbers: str) -> dict[str, str]:
    """The ``condition`` record of a ``sufficient`` claim: its id, statement and numbers (targets)."""
    return {"name": name, "statement": CONDITIONS[name], **numbers}
