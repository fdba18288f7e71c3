"""The public Python API: calibrate, audit, profile, verify."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

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
from certdp.workflows.domains import check_domain
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


def calibrate(mechanism: str, *, epsilon: object, delta: object, **kwargs: Any) -> Certificate:
    """Certified calibration of ``mechanism`` at (epsilon, delta); see :func:`certdp.workflows.calibrate.calibrate`.

    Inputs outside the mechanism's supported domain (``docs/domains.md``) raise ``InputError`` at once.
    """
    _check(mechanism, epsilon, delta, kwargs)
    return _calibrate(mechanism, epsilon=epsilon, delta=delta, **kwargs)


def profile_curve(name: str, *, value: object, epsilons: Any, **fixed: Any):
    """Certified enclosures of delta(eps) for each eps (domain checked up front)."""
    epsilons = list(epsilons)
    _check(name, epsilons, None, fixed)
    return _profile_curve(name, value=value, epsilons=epsilons, **fixed)


def audit(name: str, *, epsilon: object, delta: object, value: object = None, **fixed: Any) -> Certificate:
    """Audit a named claim (``audit("classic-gaussian", ...)``) or a mechanism at ``value``.

    ``certdp.audit("gaussian", value="3.5", epsilon=1, delta="1e-5")`` checks a
    given sigma; ``certdp.audit("classic-gaussian", epsilon=2, delta="1e-5")``
    checks the textbook formula. The verdict is VALID, VIOLATED or UNDECIDED.
    """
    _check(name, epsilon, delta, fixed)
    if value is None and name in CLAIMS:
        return audit_claim(name, epsilon=epsilon, delta=delta, **fixed)
    if value is None:
        from certdp.numbers import InputError

        raise InputError("value", f"auditing mechanism {name!r} needs the parameter value to check")
    return _audit_value(name, value=value, epsilon=epsilon, delta=delta, **fixed)


def profile(name: str, *, value: object, epsilon: object, **fixed: Any) -> Certificate:
    """Certificate with a certified enclosure of delta(epsilon) for mechanism ``name`` at ``value``."""
    _check(name, epsilon, None, fixed)
    return _profile(name, value=value, epsilon=epsilon, **fixed)


def compose(plan: Any, *, epsilon: object = None, delta: object = None, grid_bits: int | None = None,
            rtol: object = "0.01", coupling: object = "auto") -> Certificate:
    """Certified accounting of a composition plan: a ``composition`` certificate.

    ``certdp.compose({"mechanisms": [{"mechanism": "subsampled-gaussian", "sigma": "1",
    "sampling_rate": "0.01", "count": 1000}]}, delta="1e-5")`` brackets the smallest epsilon
    (``cert.extra["epsilon_enclosure"]``); with ``epsilon=`` it brackets delta (``cert.delta_enclosure``).
    ``plan`` may be a dict, JSON text or a path to a JSON file. ``coupling``: "auto" (nearest
    rounding with a Hoeffding shift from ~32 steps on), True or False (deterministic rounding only).
    """
    from certdp.workflows.compose import compose as _compose

    return _compose(plan, epsilon=epsilon, delta=delta, grid_bits=grid_bits, rtol=rtol, coupling=coupling)
