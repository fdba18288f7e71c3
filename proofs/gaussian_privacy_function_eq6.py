"""Gaussian privacy function g(u) of seed 003 Eq. 6 and its derivatives.

    a(u) = s/(2 sqrt u) - eps sqrt(u)/s,  b(u) = -s/(2 sqrt u) - eps sqrt(u)/s,
    g(u) = Phi(a) - e^eps Phi(b).
(The extracted seed text of Eq. 6 is scrambled; this is the form consistent with its
proof of Lemma 3.1, where a(u) and b(u) are spelled out, and with Balle & Wang.)

Derivation of g'.  a^2 - b^2 = (a - b)(a + b) = (s/sqrt u)(-2 eps sqrt(u)/s) = -2 eps, so
phi(a) = e^eps phi(b).  Then g' = phi(a) a' - e^eps phi(b) b' = phi(a) (a - b)'
= phi(a) d/du (s u^(-1/2)) = -s/(2 u^(3/2)) phi(a).
Differentiating once more (a' = -s/(4 u^(3/2)) - eps/(2 s sqrt u)):
    g'' = phi(a) (4 eps^2 u^2 + 12 s^2 u - s^4) / (16 s u^(7/2)).
So g is concave on (0, u_c) and convex on (u_c, inf) with u_c the positive root of
4 eps^2 u^2 + 12 s^2 u - s^4, u_c = s^2/(2 (3 + sqrt(9 + eps^2))) -- an explicit form of the
convexity region that seed 003 Lemma 3.2 only establishes asymptotically.
All identities below close symbolically (SymPy diff + simplify).
"""
import sympy as sp
from _proofkit import close, is_zero, mp, num, points

from certdp.symbolic import gaussian as G
from certdp.symbolic import gaussian_privacy as GP
from certdp.symbolic.common import epsilon, s, sensitivity, sigma, u


def test_g_is_gaussian_profile():
    assert sp.simplify(GP.g - G.privacy_profile.subs({sigma: sp.sqrt(u), sensitivity: s})) == 0


def test_first_derivative():
    assert is_zero(sp.diff(GP.g, u) - GP.dg_du)


def test_second_derivative():
    assert is_zero(sp.diff(GP.dg_du, u) - GP.d2g_du2)


def test_convexity_threshold_is_the_sign_change():
    poly = 4 * epsilon**2 * u**2 + 12 * s**2 * u - s**4
    assert sp.simplify(sp.radsimp(poly.subs(u, GP.convexity_threshold))) == 0
    for pt in points(4, 4, epsilon=(0.05, 5), s=(0.5, 3)):
        uc = num(GP.convexity_threshold, **pt)
        assert num(GP.d2g_du2, u=uc * mp.mpf("0.99"), **pt) < 0 < num(GP.d2g_du2, u=uc * mp.mpf("1.01"), **pt)


def test_derivative_numerically():
    for pt in points(3, 5, epsilon=(0.1, 3), s=(0.5, 2), u=(0.2, 5)):
        with mp.workdps(60):
            gfun = lambda t: num(GP.g, epsilon=pt["epsilon"], s=pt["s"], u=t)  # noqa: E731
            from _proofkit import mpv
            u0 = mpv(pt["u"])
            assert close(mp.diff(gfun, u0), num(GP.dg_du, **pt), rel=mp.mpf(10) ** -30)
