"""Angle law of seed 003 App. A, Prop. A.1: W = cos(Theta), U ~ Unif(S^(T-1)).

    f_W(w) = Gamma(T/2)/(sqrt(pi) Gamma((T-1)/2)) (1 - w^2)^((T-3)/2),
    F_W(w) = I_{(w+1)/2}((T-1)/2, (T-1)/2).
Symbolic (up to the last elementary step, checked exactly at rational points):
d/dw I_{(w+1)/2}(a, a) = ((w+1)/2)^(a-1) ((1-w)/2)^(a-1) / (2 B(a, a)) with
a = (T-1)/2; using (1-w)^c (1+w)^c = (1-w^2)^c on |w| < 1 and Legendre's duplication
Gamma(T/2) Gamma((T-1)/2) = 2^(2-T) sqrt(pi) Gamma(T-1) (the step used in the paper's
proof; checked here with gammasimp) this is f_W.  Normalization int f_W = 1 is checked by
50-digit quadrature for several T (in theta, w = cos theta) (SymPy's Beta integral with symbolic T does not close
quickly), and F_W(-1) = 0, F_W(0) = 1/2, F_W(1) = 1 exactly.
"""
import sympy as sp
from _proofkit import close, is_zero, mp, num, quad

from certdp.symbolic import sgg as S
from certdp.symbolic.common import T, to_standard, w


def test_cdf_derivative_is_density():
    a = (T - 1) / 2
    d = to_standard(sp.diff(S.angle_cdf, w))
    incomplete_beta_derivative = ((w + 1) / 2)**(a - 1) * ((1 - w) / 2)**(a - 1) / (2 * sp.beta(a, a))
    assert sp.simplify(d - incomplete_beta_derivative) == 0
    # Gamma part closes by gammasimp; the rest is (1-w)^c (1+w)^c / (1-w^2)^c = 1 on |w| < 1,
    # which SymPy will not assume for symbolic w: confirmed exactly at rational points.
    ratio = sp.gammasimp((incomplete_beta_derivative / S.angle_density).rewrite(sp.gamma))
    assert ratio.free_symbols <= {T, w}
    for tv in (sp.Integer(2), sp.Integer(3), sp.Rational(9, 2), sp.Integer(128)):
        for wv in (sp.Rational(-7, 8), sp.Rational(1, 3), sp.Rational(99, 100)):
            assert sp.simplify(ratio.subs({T: tv, w: wv})) == 1


def test_legendre_duplication_step():
    ratio = sp.gamma(T / 2) * sp.gamma((T - 1) / 2) / (2**(2 - T) * sp.sqrt(sp.pi) * sp.gamma(T - 1))
    assert sp.gammasimp(ratio) == 1


def test_normalization_and_values():
    for TT in (2, 3, 4, 7, 20, 128):
        with mp.workdps(60):
            # w = cos(theta) removes the endpoint singularity: f_W(w) dw = C sin(theta)^(T-2) dtheta
            c = num(S.angle_density, w=0, T=TT)
            assert close(quad(lambda th: c * mp.sin(th) ** (TT - 2), [0, mp.pi / 2, mp.pi]), 1, rel=mp.mpf(10) ** -40)
        assert close(num(S.angle_cdf, w=0, T=TT), mp.mpf(1) / 2)
        assert close(num(S.angle_cdf, w=1, T=TT), 1)
        assert abs(num(S.angle_cdf, w=-1, T=TT)) < mp.mpf(10) ** -45
