"""What an adapter is: the questions it asks a peer library, and how the answers map onto certdp.

An adapter never decides anything. It calls the library (floats in, a float
out), reads the float answer through its shortest repr (``repr(3.7306316348148236)``
is the exact decimal certdp audits), and says in one sentence what it asked.
The verdict comes from certdp's certified audit (:mod:`certdp.crosscheck.runner`).

Importing an adapter module never imports its library: the library is imported
inside the answer function, so ``import certdp`` and ``certdp crosscheck --help``
work with no peer installed.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from dataclasses import dataclass, field
from typing import Callable

from certdp.numbers import InputError

__all__ = ["Question", "Adapter", "PeerMissing"]


class PeerMissing(InputError):
    """The peer library of an adapter is not installed (a clean exit-2 error at the command line)."""

    def __init__(self, library: str, distribution: str):
        super().__init__("LIBRARY", f"{library} is not installed (pip install {distribution}, "
                                    f"or pip install 'certdp[peers]')")
        self.library = library
        self.distribution = distribution


@dataclass(frozen=True)
class Question:
    """One calibration a library offers, mapped onto a certdp mechanism.

    ``returns`` is ``"parameter"`` when the library answers the mechanism's
    parameter for (epsilon, delta) (``answer(epsilon, delta) -> float``), and
    ``"epsilon"`` when it answers an epsilon for a given parameter at delta
    (``answer(epsilon, delta, parameter) -> float``, the parameter being
    certdp's certified minimum at the grid point, so the right answer is the
    grid's epsilon). ``pure`` questions ignore the grid's delta: the library
    calibrates pure epsilon-DP and certdp audits against delta = 0.

    DP-SGD questions (``mechanism="subsampled-gaussian"``, refereed by
    :mod:`certdp.crosscheck.dpsgd`): ``"dpsgd-epsilon"`` answers the epsilon of
    k Poisson-subsampled Gaussian steps (``answer(q, sigma, k, delta) -> eps``),
    ``"dpsgd-sigma"`` the noise multiplier for a target epsilon
    (``answer(q, eps, k, delta) -> sigma``).
    """

    name: str
    mechanism: str
    asks: str
    call: str
    answer: Callable[..., float]
    returns: str = "parameter"
    fixed: dict[str, str] = field(default_factory=lambda: {"sensitivity": "1"})
    pure: bool = False


@dataclass(frozen=True)
class Adapter:
    """A peer library: its import name, its pip distribution and the questions it answers."""

    library: str
    module: str
    distribution: str
    questions: tuple[Question, ...]
    notes: str = ""

    def available(self) -> bool:
        try:
            return importlib.util.find_spec(self.module) is not None
        except (ImportError, ValueError):
            return False

    def require(self) -> None:
        if not self.available():
            raise PeerMissing(self.library, self.distribution)

    def version(self) -> str:
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return "unknown"

    def question(self, name: str | None) -> Question:
        """The question called ``name`` (the first one when ``None``); InputError names the choices."""
        if name is None:
            return self.questions[0]
        for q in self.questions:
            if q.name == name:
                return q
        choices = ", ".join(q.name for q in self.questions)
        raise InputError("mechanism", f"{self.library} has no question {name!r} (choose from: {choices})")
