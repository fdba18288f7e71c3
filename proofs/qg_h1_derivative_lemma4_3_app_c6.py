"""Quasi-Gaussian mixture, seed 000 Lemma 4.3 / App. C.6: d h1/d sigma.

h1(sigma) = e^(2 eps) Phi(-eps sigma/Delta - Delta/sigma) - Phi(-eps sigma/Delta + Delta/sigma).
App. C.6: h1'(sigma) = 2 Delta/(sqrt(2 pi) sigma^2) exp(-(Delta/sigma - eps sigma/Delta)^2/2) > 0,
because e^(2 eps) exp(-(eps s/D + D/s)^2/2) = exp(-(D/s - eps s/D)^2/2) (the squares differ by
4 eps).  Closed symbolically (SymPy diff + simplify).  Also checked: h1 -> -1 as sigma -> 0+
(seed's limit), and Lemma 4.3's claim that h1 + h2 >= 0 for sigma >= sqrt(2 (eps - log delta)) Delta/eps
at random points (50-digit evaluation).
"""
import sympy as sp
from _proofkit import is_zero, mp, mpv, num, points

from certdp.symbolic import quasi_gaussian as Q
from certdp.symbolic.common import sigma


def test_derivative_app_c6():
    assert is_zero(sp.diff(Q.h1, sigma) - Q.dh1_dsigma)


def test_limit_at_zero():
    for pt in points(3, 12, epsilon=(0.1, 5), sensitivity=(0.5, 2)):
        assert abs(num(Q.h1, sigma="1/1000", **pt) + 1) < mp.mpf(10) ** -40


def test_nonnegative_beyond_threshold():
    for pt in points(6, 13, epsilon=(0.1, 5), sensitivity=(0.5, 2), delta=(0.001, 0.2)):
        e, d, dl = mpv(pt["epsilon"]), mpv(pt["sensitivity"]), mpv(pt["delta"])
        s0 = mp.sqrt(2 * (e - mp.log(dl))) * d / e
        for factor in ("1", "1.5", "4"):
            sg = s0 * mp.mpf(factor)
            assert num(Q.h1, sigma=sg, **pt) + num(Q.h2, sigma=sg, **pt) >= 0
