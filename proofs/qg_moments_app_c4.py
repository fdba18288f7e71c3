"""Quasi-Gaussian mixture, seed 000 App. C.4: E|X| and E X^2.

Seed text gives the split E g(X) = e^eps/c (i) + 1/c (ii) and the computation of (ii) for
x^2 only.  Re-derivation (t = |x|, u = (t - Delta)/sigma):
  E|X|:  (i) = 2 sigma^2,
         (ii) = 2 int_0^inf t exp(-(t-Delta)^2/(2 sigma^2)) dt
              = 2 sigma^2 exp(-Delta^2/(2 sigma^2)) + 2 sqrt(2 pi) sigma Delta Phi(Delta/sigma),
         E|X| = 2 sigma [sigma e^eps + sigma exp(-Delta^2/(2 sigma^2)) + sqrt(2 pi) Delta Phi(Delta/sigma)] / c.
  E X^2: (i) = sqrt(2 pi) sigma^3,
         (ii) = 2 sigma sqrt(2 pi) (Phi(Delta/sigma)(sigma^2 + Delta^2) + sigma Delta phi(Delta/sigma))
              (as in the seed), so
         E X^2 = sqrt(2 pi) sigma [e^eps sigma^2 + 2 (sigma^2 + Delta^2) Phi(Delta/sigma)
                  + 2 sigma Delta phi(Delta/sigma)] / c.
Closed symbolically (SymPy integrate of each piece + simplify); cross-checked by 50-digit
quadrature of the density at random points.
"""
import sympy as sp
from _proofkit import close, is_zero, mp, mpv, num, points, quad

from certdp.symbolic import quasi_gaussian as Q
from certdp.symbolic.common import epsilon, sigma

t = sp.Symbol("t", positive=True)
D = Q.D


def _moment(power):
    core = 2 * sp.integrate(t**power * sp.exp(-t**2 / (2 * sigma**2)), (t, 0, sp.oo))
    bump = 2 * sp.integrate(t**power * sp.exp(-(t - D)**2 / (2 * sigma**2)), (t, 0, sp.oo))
    return (sp.exp(epsilon) * core + bump) / Q.normalizer


def test_mean_abs_symbolic():
    assert is_zero(_moment(1) - Q.mean_abs)


def test_mean_square_symbolic():
    assert is_zero(_moment(2) - Q.mean_square)


def test_seed_part_ii_of_mean_square():
    ii = 2 * sp.integrate(t**2 * sp.exp(-(t - D)**2 / (2 * sigma**2)), (t, 0, sp.oo))
    seed = 2 * sigma * sp.sqrt(2 * sp.pi) * (Q.Phi(D / sigma) * (sigma**2 + D**2)
                                            + sigma * D / sp.sqrt(2 * sp.pi) * sp.exp(-D**2 / (2 * sigma**2)))
    assert is_zero(ii - seed)


def test_moments_quadrature():
    for pt in points(4, 11, sigma=(0.2, 4), epsilon=(0.1, 6), sensitivity=(0.5, 2)):
        with mp.workdps(60):
            s, e, d = mpv(pt["sigma"]), mpv(pt["epsilon"]), mpv(pt["sensitivity"])
            c = mp.sqrt(2 * mp.pi) * s * (mp.exp(e) + mp.erfc(-d / s / mp.sqrt(2)))
            f = lambda z: (mp.exp(e) * mp.exp(-z**2 / (2 * s**2)) + mp.exp(-(abs(z) - d)**2 / (2 * s**2))) / c  # noqa: E731
            pts = [0, d, d + 12 * s, mp.inf]
            assert close(2 * quad(f, pts), 1)
            assert close(2 * quad(lambda z: z * f(z), pts), num(Q.mean_abs, **pt), rel=mp.mpf(10) ** -40)
            assert close(2 * quad(lambda z: z * z * f(z), pts), num(Q.mean_square, **pt), rel=mp.mpf(10) ** -40)
