"""Closed-form privacy profiles (Gaussian, Laplace, uniform), evaluated on Arb balls.

Each function returns a ball containing delta(epsilon) for *every* point of
its input balls, at the current working precision. Both shift directions
are covered: the three noise densities are symmetric, so the profile of the
shift +Delta equals that of -Delta.

The formulas are derived in :mod:`certdp.symbolic` and checked in
``proofs/``; the Gaussian and uniform profiles are the generated evaluators
themselves. The Laplace profile is written here as ``-expm1(x)`` instead of
the generated ``1 - exp(x)``: same formula, no cancellation when delta is tiny
(``tests/test_symbolic_wiring.py`` checks that the two agree).
"""

from __future__ import annotations

from flint import arb

from certdp.generated import arb_gaussian, arb_uniform

__all__ = ["gaussian_profile", "laplace_profile", "uniform_profile"]


def gaussian_profile(sigma: arb, epsilon: arb, sensitivity: arb) -> arb:
    """Exact (epsilon, delta) profile of the Gaussian mechanism N(0, sigma^2) with l2 sensitivity Delta.

    delta(eps) = Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta)

    Balle & Wang (2018), Thm. 8; seed 003 Eq. (6) with u = sigma^2; seed 004
    Sec. 3.2. The T-dimensional spherical Gaussian with l2 sensitivity s has
    the same profile with Delta = s (rotate the shift onto one axis). Phi goes
    through erfc, so tiny deltas (1e-5000) keep their relative accuracy; the
    difference may cancel, which the caller's precision ladder absorbs.
    """
    return arb_gaussian.privacy_profile(epsilon, sigma, sensitivity)


def laplace_profile(scale: arb, epsilon: arb, sensitivity: arb) -> arb:
    """Exact profile of the Laplace mechanism Lap(b): delta(eps) = [1 - exp((eps - Delta/b)/2)]_+.

    Seed 004 Prop. 3.3 (p = 1). Zero exactly when b >= Delta/eps (pure eps-DP).
    """
    exponent = (epsilon - sensitivity / scale) / 2
    return (-exponent.expm1()).nonnegative_part()


def uniform_profile(scale: arb, epsilon: arb, sensitivity: arb) -> arb:
    """Exact profile of uniform noise on [-b, b]: delta(eps) = min{1, Delta/(2b)} for every eps >= 0.

    The privacy loss only takes the values 0 and +-infinity, so delta is the
    total-variation distance of the two shifted boxes (seed 004, p = infinity).
    """
    return arb_uniform.privacy_profile(epsilon, sensitivity, scale)
