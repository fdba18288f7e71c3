"""The public Python API: calibrate, audit, profile, verify."""

from __future__ import annotations

from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction
from typing import Any, Iterator

from certdp.certificate import Certificate
from certdp.numbers import parse_exact
from certdp.workflows.audit import audit_claim
from certdp.workflows.audit import audit as _audit_value
from certdp.workflows.calibrate import calibrate as _calibrate
from certdp.workflows.claims import CLAIMS
import certdp.workflows.sgg_audit  # noqa: E402,F401  (registers the "r1smg" claim)
from certdp.workflows.profile import profile as _profile
from certdp.workflows.profile import profile_curve as _profile_curve
from certdp.workflows.common import typed_key
from certdp.mechanisms.domains import check_domain
from certdp.workflows.verify import Verification, verify

__all__ = ["calibrate", "audit", "profile", "profile_curve", "verify", "compose", "Certificate", "Verification"]


def _check(name: str, epsilon: object, delta: object, fixed: dict[str, Any]) -> None:
    """Parse-layer and domain checks up front (docs/domains.md): InputError naming the parameter.

    Inputs that passed are remembered (typed, see :func:`certdp.workflows.common.typed_key`), so a
    repeated call skips the checks; a failing input is checked -- and refused -- every time."""
    key = typed_key(name, {"epsilon": epsilon, "delta": delta, **fixed})
    if key is not None and key in _CHECKED:
        return
    scalar = isinstance(epsilon, (str, int, float, Fraction, Decimal)) or epsilon is None
    eps = [epsilon] if scalar else list(epsilon)
    for e in eps:
        if e is not None:
            parse_exact(e, "epsilon")
    if delta is not None:
        parse_exact(delta, "delta")
    check_domain(name, epsilon=eps, delta=delta, **fixed)
    if key is not None:
        if len(_CHECKED) >= 4096:
            _CHECKED.clear()
        _CHECKED.add(key)


_CHECKED: set[tuple] = set()


@contextmanager
def _budgeted(budget: float | None, single_point: bool = False) -> Iterator[None]:
    """Run the block under :func:`certdp.numbers.deadline.time_budget` (``None``: no budget).

    When it runs out, :class:`~certdp.numbers.deadline.BudgetExhausted` (an ``UndecidedError``) is
    raised with what was already certified: the calibration bracket's proven points
    (``exc.reached``), or for one profile point the radial engine's reached enclosure
    (``exc.enclosure``).  The checks are cooperative (between FLINT calls; see the deadline module)."""
    if budget is None:
        yield
        return
    from certdp.engines import radial
    from certdp.numbers.bracket import bracket_reached, describe_reached
    from certdp.numbers.deadline import BudgetExhausted, check_deadline, time_budget

    seconds = float(Fraction(str(budget)) if not isinstance(budget, (int, float)) else budget)
    previous = radial._PROGRESS_HOOK.get()

    def check_then_report(*args: Any) -> None:      # after every refinement round of the radial engine
        check_deadline("a radial-engine round")
        if previous is not None:
            previous(*args)

    reached: dict = {}
    enclosure: list = []
    try:
        with time_budget(seconds), radial.radial_progress(check_then_report), bracket_reached(reached):
            if single_point:
                with radial.radial_reached(enclosure):
                    yield
            else:
                yield
    except BudgetExhausted as exc:
        message, data, bounds = str(exc), None, None
        partial = describe_reached(reached)
        if partial is not None:
            message += f"; certified so far: {partial[0]}"
            data = partial[1]
        elif enclosure:
            from certdp.numbers import Enclosure

            lower, upper, bits, _bins = enclosure
            bounds = tuple(Enclosure.from_bounds(lower, upper, bits).strings())
            message += f"; certified so far: delta in [{bounds[0]}, {bounds[1]}]"
        error = BudgetExhausted(message)
        error.reached, error.enclosure = data, bounds
        raise error from None


def calibrate(mechanism: str, *, epsilon: object, delta: object, budget: float | None = None,
              **kwargs: Any) -> Certificate:
    """Certified calibration of ``mechanism`` at (epsilon, delta); see :func:`certdp.workflows.calibrate.calibrate`.

    Inputs outside the mechanism's supported domain (``docs/domains.md``) raise ``InputError`` at once.
    ``budget=seconds``: past it, ``BudgetExhausted`` (an ``UndecidedError``) carrying the parameters
    already proven private / not private (``exc.reached``); checked between FLINT calls.
    """
    _check(mechanism, epsilon, delta, kwargs)
    if budget is None:
        return _calibrate(mechanism, epsilon=epsilon, delta=delta, **kwargs)
    with _budgeted(budget):
        return _calibrate(mechanism, epsilon=epsilon, delta=delta, **kwargs)


def profile_curve(name: str, *, value: object, epsilons: Any, budget: float | None = None, **fixed: Any):
    """Certified enclosures of delta(eps) for each eps (domain checked up front; ``budget`` as for
    :func:`calibrate`)."""
    epsilons = list(epsilons)
    _check(name, epsilons, None, fixed)
    with _budgeted(budget):
        return _profile_curve(name, value=value, epsilons=epsilons, **fixed)


def audit(name: str, *, epsilon: object, delta: object, value: object = None, budget: float | None = None,
          **fixed: Any) -> Certificate:
    """Audit a named claim (``audit("classic-gaussian", ...)``) or a mechanism at ``value``.

    ``certdp.audit("gaussian", value="3.5", epsilon=1, delta="1e-5")`` checks a
    given sigma; ``certdp.audit("classic-gaussian", epsilon=2, delta="1e-5")``
    checks the textbook formula. The verdict is VALID, VIOLATED or UNDECIDED. ``budget`` as for
    :func:`calibrate`.
    """
    _check(name, epsilon, delta, fixed)
    with _budgeted(budget):
        return _audit_checked(name, epsilon, delta, value, fixed)


def _audit_checked(name: str, epsilon: object, delta: object, value: object, fixed: dict[str, Any]) -> Certificate:
    if value is None and name in CLAIMS:
        return audit_claim(name, epsilon=epsilon, delta=delta, **fixed)
    if value is None:
        from certdp.numbers import InputError

        raise InputError("value", f"auditing mechanism {name!r} needs the parameter value to check")
    return _audit_value(name, value=value, epsilon=epsilon, delta=delta, **fixed)


def profile(name: str, *, value: object, epsilon: object, budget: float | None = None, **fixed: Any) -> Certificate:
    """Certificate with a certified enclosure of delta(epsilon) for mechanism ``name`` at ``value``.

    ``budget=seconds``: past it, ``BudgetExhausted`` with the enclosure reached (``exc.enclosure``,
    radial engine) -- checked between FLINT calls."""
    _check(name, epsilon, None, fixed)
    with _budgeted(budget, single_point=True):
        return _profile(name, value=value, epsilon=epsilon, **fixed)


def compose(plan: Any, *, epsilon: object = None, delta: object = None, grid_bits: int | None = None,
            rtol: object = "0.01", coupling: object = "auto", budget: float | None = None) -> Certificate:
    """Certified accounting of a composition plan: a ``composition`` certificate.

    ``certdp.compose({"mechanisms": [{"mechanism": "subsampled-gaussian", "sigma": "1",
    "sampling_rate": "0.01", "count": 1000}]}, delta="1e-5")`` brackets the smallest epsilon
    (``cert.extra["epsilon_enclosure"]``); with ``epsilon=`` it brackets delta (``cert.delta_enclosure``).
    ``plan`` may be a dict, JSON text or a path to a JSON file. ``coupling``: "auto" (nearest
    rounding with a Hoeffding shift from ~32 steps on), True or False (deterministic rounding only).
    ``budget`` as for :func:`calibrate`.
    """
    from certdp.workflows.compose import compose as _compose

    with _budgeted(budget):
        return _compose(plan, epsilon=epsilon, delta=delta, grid_bits=grid_bits, rtol=rtol, coupling=coupling)
