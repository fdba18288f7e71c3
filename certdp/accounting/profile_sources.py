"""Certified profile bounds of the plan mechanisms served by connect-the-dots (:mod:`.dominating`).

Each adapter returns a :class:`~certdp.accounting.dominating.ProfileSource` whose ``bounds(eps)``
is ``(lower, upper)``: ``upper`` >= the mechanism's certified privacy profile (supremum over
shifts of norm <= Delta and both directions), ``lower`` <= the profile of ONE fixed neighbouring
pair, the shift of norm exactly Delta. Symmetry (needed by the reflection identity of
:mod:`.dominating`) is checked per mechanism:

* SGG family (``sgg``, ``l2-laplace``, ``r1smg``): spherically symmetric noise; the radial engine
  (seed 003 Lemma 4.1) computes the profile at a shift of norm exactly s, the worst one (Lemma
  4.2), and every shift of that norm gives the same pair up to a rotation: one ball gives both
  bounds.
* ``quasi-gaussian``, ``multi-gaussian``: even densities (seed 000 Def. 4.1: |x| only; Def. 3.1:
  weights e^(-|k| e) at means k Delta). ``upper`` is the exact engine's supremum over
  |phi| <= Delta, ``lower`` the engine's value at phi = Delta. The design epsilon
  ``shape_epsilon`` must be given: the mechanism is the density, fixed once.

``uniform`` and ``spherical-gaussian`` are not served here: their loss laws are exact and handled
by :mod:`certdp.accounting.accountant` directly (uniform: loss 0 or +infinity; the spherical
Gaussian is the 1-D Gaussian with Delta = s, merged into the GDP part).
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb

from certdp.accounting.dominating import ProfileSource
from certdp.mechanisms.domains import domain_of
from certdp.numbers import UndecidedError, arb_of, working_precision
from certdp.numbers.balls import ball_endpoints

__all__ = ["CONNECT_THE_DOTS", "source_for"]

#: plan mechanism -> SGG shape (alpha, power) as a function of T and the rate from the parameter
SGG_PRESETS = {
    "l2-laplace": ("theta", lambda T: (Fraction(T - 1), Fraction(1)), lambda v: 1 / v),
    "r1smg": ("sigma_star", lambda T: (Fraction(0), Fraction(2)), lambda v: 1 / (2 * v)),
}
CONNECT_THE_DOTS = ("sgg", "l2-laplace", "r1smg", "quasi-gaussian", "multi-gaussian")


def _domain(mechanism: str, **shape: object) -> tuple[Fraction, Fraction]:
    """(largest epsilon asked of the engine, smallest delta worth resolving): the documented domain of
    ``mechanism`` for this shape (:func:`certdp.mechanisms.domains.domain_of`, docs/domains.md)."""
    d = domain_of(mechanism, **shape)
    return d.epsilon_max, d.delta_min


def _sgg_source(label: str, T: int, alpha: Fraction, power: Fraction, rate: Fraction, s: Fraction,
                domain: str) -> ProfileSource:
    from certdp.mechanisms.sgg import sgg_profile_enclosure

    def bounds(eps: Fraction) -> tuple[Fraction, Fraction]:
        for bits in (128, 256, 512):
            with working_precision(bits):
                ball = sgg_profile_enclosure(T, alpha, power, rate, eps, s, relative_eta=1e-7)
                if ball.is_finite():
                    return ball_endpoints(ball)
        raise UndecidedError(f"{label}: radial engine did not enclose delta({eps}) at 512 bits")

    eps_max, dmin = _domain(domain, dimension=T, alpha=alpha, power=power)
    return ProfileSource(label, bounds, eps_max=eps_max, delta_floor=dmin,
                         note="radial engine (seed 003 Lemma 4.1), shift of norm s (Lemma 4.2)")


def _mixture_source(label: str, make_mix, sup_bounds, s: Fraction, domain: str) -> ProfileSource:
    from certdp.engines.gaussian_mixture import hockey_stick_at_shift

    def bounds(eps: Fraction) -> tuple[Fraction, Fraction]:
        with working_precision(128):
            e = arb_of(eps)
            _, hi = sup_bounds(e)
            at = hockey_stick_at_shift(make_mix(), e, arb_of(s), delta_scale=1e-30, rel_tol=1e-10)
            lo = ball_endpoints(at.lower)[0]
            up = ball_endpoints(hi)[1]
            return lo, up

    eps_max, dmin = _domain(domain)
    return ProfileSource(label, bounds, eps_max=eps_max, delta_floor=dmin,
                         note="exact mixture engine: sup over |phi| <= Delta (upper), phi = Delta (lower)")


def source_for(mechanism: str, params: dict[str, Fraction]) -> ProfileSource:
    """The profile source of one plan group (``params`` as parsed by the plan)."""
    s = params["sensitivity"]
    label = mechanism + "(" + ", ".join(f"{k}={v}" for k, v in sorted(params.items())) + ")"
    if mechanism == "sgg":
        return _sgg_source(label, int(params["dimension"]), params["alpha"], params["power"], params["rate"], s, "sgg")
    if mechanism in SGG_PRESETS:
        key, shape, rate = SGG_PRESETS[mechanism]
        T = int(params["dimension"])
        alpha, power = shape(T)
        return _sgg_source(label, T, alpha, power, rate(params[key]), s, mechanism)
    if mechanism == "quasi-gaussian":
        from certdp.mechanisms.quasi_gaussian import QuasiGaussian, quasi_gaussian_mixture

        sigma, se = params["sigma"], params["shape_epsilon"]

        def make():
            return quasi_gaussian_mixture(arb_of(sigma), arb_of(se), arb_of(s))

        def sup(e: arb):
            return QuasiGaussian.profile_bounds(arb_of(sigma), e, s, se, rel_tol=1e-10)

        return _mixture_source(label, make, sup, s, mechanism)
    if mechanism == "multi-gaussian":
        from certdp.mechanisms.multi_gaussian import MultiGaussian, multi_gaussian_mixture

        sigma, se, K = params["sigma"], params["shape_epsilon"], int(params["components"])

        def make():
            return multi_gaussian_mixture(arb_of(sigma), arb_of(se), arb_of(s), K)

        def sup(e: arb):
            return MultiGaussian.profile_bounds(arb_of(sigma), e, K, s, se, rel_tol=1e-10)

        return _mixture_source(label, make, sup, s, mechanism)
    raise ValueError(f"no connect-the-dots source for {mechanism!r}")


_ = arb
