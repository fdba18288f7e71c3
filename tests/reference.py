"""Independent high-precision references for the tests (mpmath, never Arb).

Each reference uses a different formula than certdp's evaluators: the
hockey-stick divergence is computed by mpmath quadrature of the densities,
rescaled so that mpmath's absolute quadrature tolerance is meaningful even
when delta is 1e-300.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp

DPS = 60


def mpf(q) -> mp.mpf:
    """Exact rational -> mpf at DPS digits (outside workdps mpmath would round to 15 digits)."""
    q = Fraction(str(q)) if not isinstance(q, Fraction) else q
    with mp.workdps(DPS):
        return mp.mpf(q.numerator) / q.denominator


def gaussian_delta_quadrature(sigma, epsilon, sensitivity=1) -> mp.mpf:
    """delta(eps) = int (phi(x) - e^eps phi(x - mu))_+ dx with mu = Delta/sigma, by quadrature.

    The integrand is positive exactly for x < x0 = mu/2 - eps/mu. Substituting
    x = x0 - t and factoring phi(x0) out keeps the integrand of order one.
    """
    with mp.workdps(DPS):
        s, e, d = mpf(sigma), mpf(epsilon), mpf(sensitivity)
        mu = d / s
        x0 = mu / 2 - e / mu

        def g(t):
            # phi(x0 - t)/phi(x0) - e^eps phi(x0 - t - mu)/phi(x0)
            first = mp.exp(x0 * t - t * t / 2)
            second = mp.exp(e - ((x0 - t - mu) ** 2 - x0 ** 2) / 2)
            return first - second

        scale = max(1, abs(x0))
        integral = mp.quad(g, [0, 1 / scale, 10 / scale, 100 / scale, mp.inf])
        return mp.npdf(x0) * integral


def gaussian_delta_closed_form(sigma, epsilon, sensitivity=1) -> mp.mpf:
    """The Balle-Wang closed form with mpmath's ncdf (second, cheaper reference)."""
    with mp.workdps(DPS):
        s, e, d = mpf(sigma), mpf(epsilon), mpf(sensitivity)
        a, b = d / (2 * s), e * s / d
        return mp.ncdf(a - b) - mp.exp(e) * mp.ncdf(-a - b)


def laplace_delta_quadrature(scale, epsilon, sensitivity=1) -> mp.mpf:
    """int (f(x) - e^eps f(x - Delta))_+ dx for Laplace(b), by quadrature split at the kinks."""
    with mp.workdps(DPS):
        b, e, d = mpf(scale), mpf(epsilon), mpf(sensitivity)

        def f(x):
            return mp.exp(-abs(x) / b) / (2 * b)

        def h(x):
            return max(f(x) - mp.exp(e) * f(x - d), 0)

        return mp.quad(h, [-mp.inf, 0, d / 2 - e * b / 2 if e * b < d else 0, d, mp.inf])


def laplace_scale_exact(epsilon, delta, sensitivity=1) -> mp.mpf:
    with mp.workdps(DPS):
        return mpf(sensitivity) / (mpf(epsilon) - 2 * mp.log1p(-mpf(delta)))
