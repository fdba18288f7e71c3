"""Laplace(0, b): closed forms of certdp.symbolic.laplace.

Symbolic: normalization, cdf' = density on each side, cdf + sf = 1, continuity at 0,
E|X|, E X^2, E|X|^m.

Privacy profile (re-derived).  Privacy loss L(x) = log f(x)/f(x - Delta) =
(|x - Delta| - |x|)/b: equals Delta/b for x <= 0, (Delta - 2x)/b on [0, Delta], -Delta/b
after.  For 0 <= eps < Delta/b the set {L > eps} is x < x* = (Delta - eps b)/2 in (0, Delta/2],
so delta = F(x*) - e^eps F(x* - Delta) = 1 - e^(-x*/b)/2 - e^eps e^((x*-Delta)/b)/2
= 1 - exp((eps - Delta/b)/2);  for eps >= Delta/b the set is empty and delta = 0.
Checked symbolically (substitution) and by 50-digit quadrature at random points.
"""
import sympy as sp
from _proofkit import close, is_zero, mp, mpv, num, points, quad

from certdp.symbolic import laplace as L
from certdp.symbolic.common import b, epsilon, m, sensitivity, x

t = sp.Symbol("t", positive=True)
left, right = L.cdf.args[0][0], L.cdf.args[1][0]


def test_normalization_cdf_sf():
    assert sp.simplify(sp.integrate(L.density, (x, -sp.oo, sp.oo))) == 1
    assert is_zero(sp.diff(left, x) - L.density.subs(sp.Abs(x), -x))
    assert is_zero(sp.diff(right, x) - L.density.subs(sp.Abs(x), x))
    assert left.subs(x, 0) == right.subs(x, 0) == sp.Rational(1, 2)
    for v, c in L.sf.args:
        pass
    assert is_zero(L.sf.args[0][0] + left - 1) and is_zero(L.sf.args[1][0] + right - 1)


def test_moments():
    dens = L.density.subs(x, t)
    assert is_zero(2 * sp.integrate(t * dens, (t, 0, sp.oo)) - L.mean_abs)
    assert is_zero(2 * sp.integrate(t**2 * dens, (t, 0, sp.oo)) - L.mean_square)
    assert is_zero(2 * sp.integrate(t**m * dens, (t, 0, sp.oo), conds="none") - L.abs_moment)


def test_profile_symbolic():
    xs = (sensitivity - epsilon * b) / 2
    delta = right.subs(x, xs) - sp.exp(epsilon) * left.subs(x, xs - sensitivity)
    assert is_zero(delta - (1 - sp.exp((epsilon - sensitivity / b) / 2)))


def test_profile_quadrature():
    for pt in points(6, 2, epsilon=(0.05, 3), b=(0.3, 4), sensitivity=(0.5, 3)):
        with mp.workdps(60):
            e, bb, d = mpv(pt["epsilon"]), mpv(pt["b"]), mpv(pt["sensitivity"])
            f = lambda z: mp.exp(-abs(z) / bb) / (2 * bb)  # noqa: E731
            val = quad(lambda z: max(f(z) - mp.exp(e) * f(z - d), 0),
                       [-mp.inf, 0, (d - e * bb) / 2 if e * bb < d else d / 2, d, mp.inf])
            expected = num(L.privacy_profile, **pt)
            assert close(val, expected, scale=1, rel=mp.mpf(10) ** -40)
