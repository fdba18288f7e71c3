"""Independent 50-digit mpmath references for the accountant's tests (never Arb, never certdp code).

* GDP: delta(eps) of mu-GDP by quadrature of the hockey-stick integral of N(0,1) vs N(mu,1).
* k-fold Laplace: the exact finite mixture. One step's loss has atoms a (mass 1/2) and -a (mass
  e^-a/2), a = Delta/b, and density e^((z-a)/2)/4 on (-a, a). A sum of n continuous parts has density
  (e^(-a/2)/4)^n e^(t/2) (2a)^n f_n(t), f_n the density of a sum of n U(-a, a) (Irwin-Hall, exact
  piecewise polynomial), so delta_k(eps) is a finite sum of 1-D integrals over polynomial pieces.
* Poisson-subsampled Gaussian: one step by quadrature of (p - e^eps q)_+ over x, two steps by the
  1-D integral delta_2(eps) = E_{x ~ P}[delta_1(eps - L(x))] with delta_1 in closed form.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, factorial

import mpmath as mp

DPS = 50


def _mpf(q) -> mp.mpf:
    q = Fraction(str(q)) if not isinstance(q, Fraction) else q
    return mp.mpf(q.numerator) / q.denominator


def gdp_delta(mu2, eps) -> mp.mpf:
    with mp.workdps(DPS):
        mu, e = mp.sqrt(_mpf(mu2)), _mpf(eps)
        x0 = mu / 2 - e / mu  # (phi(x) - e^eps phi(x - mu))_+ > 0 for x < x0... for the pair N(0) vs N(mu)

        def f(x):
            return mp.npdf(x) - mp.exp(e) * mp.npdf(x, mu)
        return mp.quad(f, [-mp.inf, x0 - 10, x0 - 1, x0])


def _irwin_hall_density(n: int, y):
    """Density of the sum of n U(0,1) at y (exact piecewise polynomial)."""
    if y <= 0 or y >= n:
        return mp.mpf(0)
    k_max = int(mp.floor(y))
    return sum((-1) ** k * comb(n, k) * (y - k) ** (n - 1) for k in range(k_max + 1)) / factorial(n - 1)


def laplace_kfold_delta(scale, sensitivity, k: int, eps) -> mp.mpf:
    with mp.workdps(DPS):
        a = _mpf(Fraction(str(sensitivity)) / Fraction(str(scale)))
        e = _mpf(eps)
        p_plus, p_minus = mp.mpf(1) / 2, mp.exp(-a) / 2
        total = mp.mpf(0)
        for n_plus in range(k + 1):
            for n_minus in range(k - n_plus + 1):
                n = k - n_plus - n_minus
                weight = mp.mpf(factorial(k)) / (factorial(n_plus) * factorial(n_minus) * factorial(n))
                weight *= p_plus**n_plus * p_minus**n_minus
                shift = (n_plus - n_minus) * a
                if n == 0:
                    if shift > e:
                        total += weight * (1 - mp.exp(e - shift))
                    continue
                const = (mp.exp(-a / 2) / 4) ** n * (2 * a) ** n

                def density(t, n=n, const=const):
                    y = (t + n * a) / (2 * a)
                    return const * mp.exp(t / 2) * _irwin_hall_density(n, y) / (2 * a)

                lo = max(-n * a, e - shift)
                hi = n * a
                if lo >= hi:
                    continue
                knots = [lo] + [-n * a + 2 * a * j for j in range(1, n) if lo < -n * a + 2 * a * j < hi] + [hi]
                total += weight * mp.quad(lambda t: density(t) * (1 - mp.exp(e - shift - t)), knots)
        return total


def _sg_loss(x, q, s):
    return mp.log(1 - q + q * mp.exp((2 * x - 1) / (2 * s * s)))


def _sg_delta1(q, s, e, direction):
    """One step, closed form: remove: P = mixture, Q = N(0, s^2); add: the swap."""
    # remove: loss increasing in x, L > e iff x > x*(e)
    if direction == "remove":
        arg = mp.exp(e) - 1 + q
        if arg <= 0:
            return 1 - mp.exp(e)  # L > e everywhere
        xs = s * s * mp.log(arg / q) + mp.mpf(1) / 2
        p_tail = (1 - q) * mp.ncdf(-xs / s) + q * mp.ncdf(-(xs - 1) / s)
        q_tail = mp.ncdf(-xs / s)
        return p_tail - mp.exp(e) * q_tail
    # add: P = N(0, s^2), Q = mixture; L = -loss_remove(x) > e iff loss_remove(x) < -e iff x < x*(-e)
    arg = mp.exp(-e) - 1 + q
    if arg <= 0:
        return mp.mpf(0)
    xs = s * s * mp.log(arg / q) + mp.mpf(1) / 2
    p_tail = mp.ncdf(xs / s)
    q_tail = (1 - q) * mp.ncdf(xs / s) + q * mp.ncdf((xs - 1) / s)
    return max(p_tail - mp.exp(e) * q_tail, mp.mpf(0))


def subsampled_gaussian_delta(sigma, rate, eps, steps: int = 1, direction: str = "remove") -> mp.mpf:
    """delta of 1 or 2 steps, one direction; 1 step by quadrature of (p - e^eps q)_+ (not the closed form)."""
    with mp.workdps(DPS):
        s, q, e = _mpf(sigma), _mpf(rate), _mpf(eps)

        def mix(x):
            return (1 - q) * mp.npdf(x, 0, s) + q * mp.npdf(x, 1, s)

        def gauss(x):
            return mp.npdf(x, 0, s)

        if steps == 1:
            p, qq = (mix, gauss) if direction == "remove" else (gauss, mix)
            f = lambda x: max(p(x) - mp.exp(e) * qq(x), 0)  # noqa: E731
            # the sign changes once (monotone loss): split there for an accurate quadrature
            if direction == "remove":
                arg = mp.exp(e) - 1 + q
                xs = s * s * mp.log(arg / q) + mp.mpf(1) / 2 if arg > 0 else -mp.inf
                return mp.quad(f, [xs, xs + 5 * s, xs + 20 * s, mp.inf]) if xs != -mp.inf else mp.quad(f, [-mp.inf, 0, mp.inf])
            arg = mp.exp(-e) - 1 + q
            if arg <= 0:
                return mp.mpf(0)
            xs = s * s * mp.log(arg / q) + mp.mpf(1) / 2
            return mp.quad(f, [-mp.inf, xs - 20 * s, xs - 5 * s, xs])
        if steps == 2:
            p = mix if direction == "remove" else gauss
            sign = 1 if direction == "remove" else -1

            def g(x):
                return p(x) * _sg_delta1(q, s, e - sign * _sg_loss(x, q, s), direction)
            return mp.quad(g, [-mp.inf, -5 * s, 0, 1, 1 + 5 * s, mp.inf])
        raise ValueError("1 or 2 steps")
