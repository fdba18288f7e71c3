"""Multi-Gaussian mixture, seed 000 App. B.2: E|X| and E X^2 (re-derived: the appendix text is
missing from the seed).

For one component N(mu, sigma^2), mu >= 0:
  E|Y| = sigma sqrt(2/pi) exp(-mu^2/(2 sigma^2)) + mu (1 - 2 Phi(-mu/sigma))   [folded normal mean]
  E Y^2 = sigma^2 + mu^2.
By symmetry of |.| the component at -k Delta has the same E|Y| as the one at +k Delta, so with
w_k = e^(-|k| eps)/Z:
  E|X| = sum_k w_k [sigma sqrt(2/pi) exp(-(k Delta)^2/(2 sigma^2)) + |k| Delta (1 - 2 Phi(-|k| Delta/sigma))],
  E X^2 = sigma^2 + Delta^2 sum_k w_k k^2.
The component identities close symbolically (SymPy integrate, symbolic mu > 0); the mixture
sums are checked against 50-digit quadrature of the density at random points, K in {1, 3}.
"""
import sympy as sp
from _proofkit import close, is_zero, mp, mpv, num, points, quad

from certdp.symbolic import multi_gaussian as MG
from certdp.symbolic.common import Phi, sigma

y = sp.Symbol("y", real=True)
mu = sp.Symbol("mu", positive=True)
comp = sp.exp(-(y - mu)**2 / (2 * sigma**2)) / (sp.sqrt(2 * sp.pi) * sigma)


def test_folded_normal_mean():
    e_abs = sp.integrate(-y * comp, (y, -sp.oo, 0)) + sp.integrate(y * comp, (y, 0, sp.oo))
    formula = sigma * sp.sqrt(2 / sp.pi) * sp.exp(-mu**2 / (2 * sigma**2)) + mu * (1 - 2 * Phi(-mu / sigma))
    assert is_zero(e_abs - formula)


def test_component_second_moment():
    assert is_zero(sp.integrate(y**2 * comp, (y, -sp.oo, sp.oo)) - (sigma**2 + mu**2))


def test_mixture_moments_quadrature():
    rng_points = points(2, 21, sigma=(0.2, 3), epsilon=(0.2, 5), sensitivity=(0.5, 2))
    for i, pt in enumerate(rng_points):
        kk = (1, 3)[i]
        with mp.workdps(60):
            s, e, d = mpv(pt["sigma"]), mpv(pt["epsilon"]), mpv(pt["sensitivity"])
            ws = {q: mp.exp(-abs(q) * e) for q in range(-kk, kk + 1)}
            z = sum(ws.values())
            f = lambda t: sum(wq * mp.npdf(t, q * d, s) for q, wq in ws.items()) / z  # noqa: E731
            pts = sorted({mp.mpf(0)} | {q * d for q in range(0, kk + 1)}) + [kk * d + 14 * s]
            tail_pts = [-(kk * d + 14 * s)] + sorted({-q * d for q in range(0, kk + 1)})
            allpts = sorted(set(tail_pts) | set(pts))
            assert close(quad(f, allpts), 1, rel=mp.mpf(10) ** -40)
            assert close(quad(lambda t: abs(t) * f(t), allpts), num(MG.mean_abs, K=kk, **pt), rel=mp.mpf(10) ** -40)
            assert close(quad(lambda t: t * t * f(t), allpts), num(MG.mean_square, K=kk, **pt), rel=mp.mpf(10) ** -40)
