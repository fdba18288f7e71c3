"""Generalized Gaussian GGD(0, b, p): seed 004 Sec. 2.2 (density) and Sec. 2.4 (M_m(p)).

Closed symbolically (SymPy integrate with symbolic p, b, m > 0):
  * int g_{p,b} = 1;
  * E|X|^m = 2 int_0^inf t^m g_{p,b}(t) dt = b^m Gamma((m+1)/p)/Gamma(1/p) = b^m M_m(p);
  * M_m(inf) = lim_{p->inf} M_m(p) = 1/(m+1) (SymPy limit), = E|U|^m for U uniform on [-1, 1];
  * survival: d/dx [Q(1/p, (x/b)^p)/2] = -g_{p,b}(x) for x > 0 and S(0) = 1/2, S(+inf) = 0,
    so S(x) = Q(1/p, (x/b)^p)/2 for x >= 0; the x < 0 branch is 1 - S(-x) by symmetry.
  * consistency: p = 2 is N(0, b^2/2); p = 1 is Laplace(0, b).
"""
import sympy as sp
from _proofkit import is_zero

from certdp.symbolic import gaussian as G
from certdp.symbolic import generalized_gaussian as GG
from certdp.symbolic import laplace as L
from certdp.symbolic.common import GammaQ, b, m, p, sigma, x

t = sp.Symbol("t", positive=True)
dens_pos = GG.density.subs(x, t)


def test_normalized():
    assert sp.simplify(2 * sp.integrate(dens_pos, (t, 0, sp.oo), conds="none")) == 1


def test_abs_moment_sec2_4():
    moment = 2 * sp.integrate(t**m * dens_pos, (t, 0, sp.oo), conds="none")
    assert is_zero(moment - GG.abs_moment)
    assert is_zero(GG.abs_moment.subs(m, 1) - GG.mean_abs)
    assert is_zero(GG.abs_moment.subs(m, 2) - GG.mean_square)


def test_shape_factor_at_infinity():
    assert sp.simplify(sp.limit(GG.shape_factor, p, sp.oo) - GG.shape_factor_inf) == 0
    assert sp.simplify(sp.integrate(t**m / 2, (t, 0, 1)) * 2 - GG.shape_factor_inf) == 0


def test_survival_via_regularized_upper_gamma():
    tail = GG.sf.args[1][0].subs(sp.Abs(x), t).subs(x, t)
    assert is_zero(sp.diff(tail, t) + dens_pos)
    assert tail.subs(t, 0) == GammaQ(1 / p, 0) / 2
    assert sp.simplify((sp.uppergamma(1 / p, 0) / sp.gamma(1 / p))) == 1
    left = GG.sf.args[0][0].subs(sp.Abs(x), t)
    assert sp.simplify(left + tail - 1) == 0  # S(-t) + S(t) = 1
    assert sp.simplify(GG.cdf.args[1][0] + GG.sf.args[1][0] - 1) == 0


def test_special_cases():
    assert is_zero(GG.density.subs(p, 2).subs(x, t) - G.density.subs({sigma: b / sp.sqrt(2), x: t}))
    assert is_zero(GG.density.subs(p, 1) - L.density)
    assert is_zero(GG.mean_square.subs(p, 2) - G.mean_square.subs(sigma, b / sp.sqrt(2)))
