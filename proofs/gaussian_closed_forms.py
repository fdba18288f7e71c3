"""Gaussian N(0, sigma^2): closed forms of certdp.symbolic.gaussian.

Symbolic (SymPy integrate/diff + simplify): normalization, cdf' = density,
cdf + sf = 1, E|X|, E X^2, E|X|^m for symbolic m.

Privacy profile (Balle & Wang 2018 Thm. 8).  Derivation: with f the N(0, sigma^2)
density and f_D(x) = f(x - Delta), f(x) > e^eps f_D(x)  <=>  (Delta^2 - 2 x Delta)/(2 sigma^2) > eps
<=>  x < x* = Delta/2 - eps sigma^2/Delta.  Hence
    delta(eps) = int_{-inf}^{x*} (f - e^eps f_D) = Phi(x*/sigma) - e^eps Phi((x* - Delta)/sigma),
which is the closed form (checked symbolically by substitution), and independently by
50-digit mpmath quadrature of the positive part (f - e^eps f_D)_+ over the whole line
at random parameter points.
"""
import sympy as sp
from _proofkit import Phi, close, is_zero, mp, mpv, num, points, quad

from certdp.symbolic import gaussian as G
from certdp.symbolic.common import epsilon, m, sensitivity, sigma, to_standard, x

t = sp.Symbol("t", positive=True)


def test_normalized_and_cdf():
    assert sp.simplify(sp.integrate(G.density, (x, -sp.oo, sp.oo))) == 1
    assert is_zero(sp.diff(to_standard(G.cdf), x) - G.density)
    assert is_zero(G.cdf + G.sf - 1)


def test_moments_symbolic():
    assert is_zero(sp.integrate(sp.Abs(x) * G.density, (x, -sp.oo, sp.oo)) - G.mean_abs)
    assert is_zero(sp.integrate(x**2 * G.density, (x, -sp.oo, sp.oo)) - G.mean_square)
    half = sp.integrate(t**m * G.density.subs(x, t), (t, 0, sp.oo), conds="none")
    assert is_zero(2 * half - G.abs_moment)


def test_profile_symbolic_substitution():
    xs = sensitivity / 2 - epsilon * sigma**2 / sensitivity
    derived = Phi(xs / sigma) - sp.exp(epsilon) * Phi((xs - sensitivity) / sigma)
    assert sp.simplify(sp.expand(derived - G.privacy_profile)) == 0


def test_profile_quadrature():
    for pt in points(5, 1, epsilon=(0.05, 4), sigma=(0.3, 5), sensitivity=(0.5, 3)):
        with mp.workdps(60):
            e, s, d = mpv(pt["epsilon"]), mpv(pt["sigma"]), mpv(pt["sensitivity"])
            f = lambda z: mp.npdf(z, 0, s)  # noqa: E731
            xs = d / 2 - e * s**2 / d
            val = quad(lambda z: max(f(z) - mp.exp(e) * f(z - d), 0), [-mp.inf, xs - 10 * s, xs, xs + 10 * s, mp.inf])
            assert close(val, num(G.privacy_profile, **pt), rel=mp.mpf(10) ** -40)
