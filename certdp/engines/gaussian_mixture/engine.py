"""The shift engine: everything the search needs about ``H(phi)`` for one mixture and one ``eps``.

:class:`ShiftEngine` is assembled from four parts, one file each:

* :class:`~.shift_value.ShiftValueMixin` -- state (window, tolerances) and certified point values
  ``H(phi)`` (:meth:`value_at`, the tied shift :meth:`tied_value`, :meth:`tie_upper_bound`);
* :class:`~.ball_bounds.BallBoundsMixin` -- bounds over a ball of shifts from its two end values
  (:meth:`envelope_bound`, :meth:`chord_bound`);
* :class:`~.shift_model.ShiftModelMixin` -- the second-order model on a ball of shifts
  (:meth:`shift_expansion`, :meth:`derivative_on`);
* :class:`~.tied_end.TiedEndMixin` -- balls of shifts next to a tied shift (MG: ``phi = Delta``),
  from the matched pairs' divided differences (:meth:`near_tie_bound`, :meth:`tie_matching`).

:func:`hockey_stick_at_shift` and :func:`witness_at_shift` are the public one-shift entry points.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import arb

from certdp.engines.gaussian_mixture.ball_bounds import BallBoundsMixin
from certdp.engines.gaussian_mixture.model import GaussianMixture
from certdp.engines.gaussian_mixture.shift_model import ShiftModelMixin
from certdp.engines.gaussian_mixture.shift_value import ShiftResult, ShiftValueMixin
from certdp.engines.gaussian_mixture.tied_end import TiedEndMixin, thin_lobes_likely

__all__ = ["ShiftEngine", "ShiftWitness", "hockey_stick_at_shift", "hockey_stick_lower_bound", "witness_at_shift"]


class ShiftEngine(ShiftValueMixin, BallBoundsMixin, ShiftModelMixin, TiedEndMixin):
    """``H(phi) = int (f(x + phi) - e^eps f(x))_+ dx`` for the mixture ``mix`` and ``epsilon``:
    ``ShiftEngine(mix, epsilon, delta_scale, rel_tol)``; ``delta_scale`` and ``rel_tol`` set the tail
    window (tails of mass ``<~ 1e-3 rel_tol delta_scale`` are bounded and added to upper ends)."""


def hockey_stick_at_shift(mix: GaussianMixture, epsilon: arb, phi: arb, *, delta_scale: float = 1e-12,
                          rel_tol: float = 1e-14) -> ShiftResult:
    """Certified ``lower <= H(phi) <= upper`` with ``H(phi) = int (f(x+phi) - e^eps f(x))_+ dx``.

    Valid for every point of the balls ``phi``, ``epsilon`` and the mixture's parameters.
    ``delta_scale`` only sets the tail window (tails of mass ``<~ 1e-3 rel_tol delta_scale``
    are bounded, not dropped: they are added to ``upper``).
    """
    eng = ShiftEngine(mix, epsilon, delta_scale, rel_tol)
    return eng.value_at(phi)


def hockey_stick_lower_bound(mix: GaussianMixture, epsilon: arb, phi: arb, *, above: arb | None = None,
                             delta_scale: float = 1e-12, rel_tol: float = 1e-14, tie: arb | None = None) -> arb:
    """Certified lower bound of ``H(phi)``, valid for every point of the balls: the float-run bound
    (:meth:`ShiftEngine.lower_bound_at`, no sign structure) and, unless that already exceeds
    ``above``, the lower end of the certified point value (:func:`hockey_stick_at_shift`), the
    larger of the two. For decisions that need only ``H(phi) > above``.

    ``tie``: a shift that may be tied (MG: ``Delta``); within ``sigma`` of it, where ``D`` has thin
    lobes the float runs miss and the point value is slow, the near-tie bound's lower bound
    (:meth:`ShiftEngine.near_tie_point`) is tried before the point value."""
    eng = ShiftEngine(mix, epsilon, delta_scale, rel_tol)
    cheap = eng.lower_bound_at(phi)
    if above is not None and cheap > above:
        return cheap
    if tie is not None and above is not None and (phi - tie).abs_upper() <= mix.sigma and not phi.overlaps(tie) \
            and thin_lobes_likely(float(mix.sigma.mid()), float(tie.mid()), float(epsilon.mid())) \
            and eng.has_exact_tie(tie):
        cheap = cheap.max(eng.near_tie_point(phi, tie, above)[1])
        if cheap > above:
            return cheap
    return cheap.max(eng.value_at(phi).lower)


@dataclass(frozen=True)
class ShiftWitness:
    """Why ``H(phi) > delta`` at one shift: the float runs covering the certified-positive set of
    ``D(x) = f(x + phi) - e^eps f(x)`` (where ``f(x + phi) > e^eps f(x)``) and the certified bounds
    on ``H(phi)`` (``value.lower`` is the certified lower bound)."""

    runs: tuple[tuple[float, float], ...]
    value: ShiftResult


def witness_at_shift(mix: GaussianMixture, epsilon: arb, phi: arb, *, delta_scale: float,
                     rel_tol: float = 1e-8) -> ShiftWitness:
    """The failing set and the certified ``H(phi)`` at the shift ``phi`` (an audit witness).

    ``delta_scale`` is the delta the witness is compared with (it sets the tail window as in
    :func:`hockey_stick_at_shift`)."""
    eng = ShiftEngine(mix, epsilon, delta_scale, rel_tol)
    runs, _ = eng.structure(phi).runs()
    return ShiftWitness(tuple((a, b) for a, b in runs), eng.value_at(phi))
