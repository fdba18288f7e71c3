"""Uniform on [-b, b]: closed forms of certdp.symbolic.uniform.

Symbolic: normalization, moments E|X|^m = b^m/(m+1) (= M_m(inf) b^m, seed 004 Sec. 2.4).

Privacy profile (re-derived).  For eps >= 0 and shift Delta: where both densities are
positive, f - e^eps f_D = (1 - e^eps)/(2b) <= 0; the positive part lives where f > 0 and
f_D = 0, i.e. x in [-b, min(b, Delta - b)), of mass min(2b, Delta)/(2b).  So
delta(eps) = min(1, Delta/(2b)), independent of eps.  Checked by 50-digit quadrature.
"""
import sympy as sp
from _proofkit import close, mp, mpv, num, points, quad

from certdp.symbolic import uniform as U
from certdp.symbolic.common import b, m, x

t = sp.Symbol("t", positive=True)


def test_moments_symbolic():
    dens = 1 / (2 * b)
    assert sp.simplify(sp.integrate(U.density, (x, -b, b)) - 1) == 0
    assert sp.simplify(2 * sp.integrate(t * dens, (t, 0, b)) - U.mean_abs) == 0
    assert sp.simplify(2 * sp.integrate(t**2 * dens, (t, 0, b)) - U.mean_square) == 0
    assert sp.simplify(2 * sp.integrate(t**m * dens, (t, 0, b)) - U.abs_moment) == 0


def test_cdf_sf_symbolic():
    assert sp.simplify(sp.diff(U.cdf.args[1][0], x) - 1 / (2 * b)) == 0
    assert sp.simplify(U.cdf.args[1][0] + U.sf.args[1][0] - 1) == 0


def test_profile_quadrature():
    for pt in points(6, 3, epsilon=(0.0, 3), b=(0.3, 3), sensitivity=(0.1, 4)):
        with mp.workdps(60):
            e, bb, d = mpv(pt["epsilon"]), mpv(pt["b"]), mpv(pt["sensitivity"])
            f = lambda z: 1 / (2 * bb) if -bb <= z <= bb else mp.mpf(0)  # noqa: E731
            pts = sorted({-bb, bb, d - bb, d + bb})
            val = quad(lambda z: max(f(z) - mp.exp(e) * f(z - d), 0), pts)
            assert close(val, num(U.privacy_profile, **pt), scale=1, rel=mp.mpf(10) ** -40)
