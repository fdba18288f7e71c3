"""The Gaussian privacy profile by rigorous numerical integration (an independent verification path).

delta(eps) = int (phi(x) - e^eps phi(x - mu))_+ dx in units of sigma, with
mu = Delta/sigma. The integrand is positive exactly for x < x0 = mu/2 - eps/mu,
so with any exact point ``c <= x0`` and ``L < min(c, 0)``::

    delta = int_L^c g + int_{-inf}^L g + int_c^{x0} g,    g = phi(x) - e^eps phi(x - mu) >= 0 there,

* ``int_L^c g`` is computed by Arb's certified Gauss-Legendre integration
  (``acb.integral``, Petras' algorithm with error bounds) of the integrand
  rescaled by phi(x0), so that a delta of 1e-300 is integrated with a
  *relative* tolerance;
* ``0 <= int_{-inf}^L g <= Phi(L) <= phi(L)/|L|`` (Mills' inequality);
* ``0 <= int_c^{x0} g <= (x0 - c) max_{[c, x0]} phi``.

No erfc is used: this shares no special-function code with
:func:`certdp.engines.closed_form.gaussian_profile`, which is why
``certdp verify`` uses it for Gaussian certificates.
"""

from __future__ import annotations

from flint import acb, arb, ctx

__all__ = ["gaussian_profile_by_integration"]


def _point_below(x: arb) -> arb:
    return arb(x.lower())


def gaussian_profile_by_integration(sigma: arb, epsilon: arb, sensitivity: arb) -> arb:
    """Enclosure of the Gaussian delta(eps) by certified quadrature; valid for every point of the balls."""
    mu = sensitivity / sigma
    x0 = mu / 2 - epsilon / mu
    c = _point_below(x0)
    # Truncation: make phi(L)/|L| <= 2^-(prec+20) * phi(c) (T(T + 2|c|) >= T^2 for c <= 0).
    bits = ctx.prec + 20
    width = (2 * arb(bits) * arb(2).log()).sqrt() + 1
    start = c if c < 0 else arb(0)
    left = _point_below(start - width)
    scale = (-(x0 * x0) / 2).exp() / (2 * arb.pi()).sqrt()  # phi(x0) as a ball
    e_eps = epsilon.exp()
    x0_sq = x0 * x0

    def rescaled(x: acb, analytic: bool) -> acb:
        # (phi(x) - e^eps phi(x - mu)) / phi(x0): entire in x, so `analytic` needs no check.
        return ((x0_sq - x * x) / 2).exp() - e_eps * ((x0_sq - (x - mu) * (x - mu)) / 2).exp()

    body = acb.integral(rescaled, left, c, rel_tol=arb(2) ** (-ctx.prec)).real * scale
    tail = (-(left * left) / 2).exp() / ((2 * arb.pi()).sqrt() * abs(left))
    top = arb(x0.upper())
    nearest = arb(0) if (c <= 0 and top >= 0) or not (c < 0 or c > 0) else abs(c).min(abs(top))
    sliver = (top - c) * (-(nearest * nearest) / 2).exp() / (2 * arb.pi()).sqrt()
    extra = tail + sliver.max(arb(0))
    return body + arb(0).union(extra)
