"""SGG radius R ~ GGamma(alpha, beta, p): seed 003 Def. 4.1.

Closed symbolically (SymPy, alpha > 0, beta, p, m > 0 symbolic; the case -1 < alpha <= 0
is the same Gamma integral and is checked by 50-digit quadrature):
  * int_0^inf f = 1;  E R^m = Gamma((alpha+1+m)/p)/(beta^(m/p) Gamma((alpha+1)/p));
  * d/dr P((alpha+1)/p, beta r^p) = f(r)  (so the CDF is the regularized lower incomplete
    gamma: beta R^p ~ Gamma((alpha+1)/p, 1)), and radius_sf = 1 - radius_cdf;
  * Gaussian case (seed 003 Sec. 4): alpha = T-1, p = 2, beta = 1/(2 sigma^2) gives
    E R^2 = T sigma^2 (chi distribution scaled by sigma).
"""
import sympy as sp
from _proofkit import close, is_zero, mp, mpv, num, points, quad

from certdp.symbolic import sgg as S
from certdp.symbolic.common import to_standard, T, alpha, beta, m, p, r, sigma

a_pos = sp.Symbol("alpha", positive=True)
dens = S.radius_density.subs(alpha, a_pos)


def test_normalized_and_moments():
    assert sp.simplify(sp.integrate(dens, (r, 0, sp.oo), conds="none")) == 1
    mom = sp.integrate(r**m * dens, (r, 0, sp.oo), conds="none")
    assert is_zero(mom - S.radius_moment.subs(alpha, a_pos))
    assert is_zero(S.radius_moment.subs(m, 2) - S.mean_square)


def test_cdf_is_regularized_lower_gamma():
    assert is_zero(sp.diff(S.radius_cdf, r) - S.radius_density)
    # Q = 1 - P: the derivatives are opposite and Q(s, 0) = 1 - P(s, 0) = 1
    assert sp.simplify(sp.diff(S.radius_sf, r) + S.radius_density) == 0
    assert sp.simplify(to_standard(S.radius_sf.subs({r: 0, alpha: a_pos}))) == 1


def test_gaussian_special_case():
    ms = S.mean_square.subs({alpha: T - 1, p: 2, beta: 1 / (2 * sigma**2)})
    assert is_zero(ms - T * sigma**2)


def test_negative_alpha_by_quadrature():
    """-1 < alpha <= 0: r^alpha is singular at 0; integrate in v = log r over a finite range
    [v_lo, v_hi] (density written by hand).  Neglected tails: below r0 = e^v_lo the mass is
    <= p beta^k r0^(alpha+1)/(Gamma(k) (alpha+1)) < 1e-60 by choice of v_lo; above, beta r^p > 400,
    mass Q(k, 400) < 1e-150.  (Infinite v-ranges make mpmath evaluate exp(e^v) at huge v.)"""
    for pt in points(3, 7, alpha=(-0.9, 0.0), beta=(0.2, 3), p=(0.5, 4), m=(0.5, 3)):
        with mp.workdps(60):
            a, bt, pp, mm = (mpv(pt[k]) for k in ("alpha", "beta", "p", "m"))
            k = (a + 1) / pp
            f = lambda t: pp * bt**k / mp.gamma(k) * t**a * mp.exp(-bt * t**pp)  # noqa: E731
            c = pp * bt**k / (mp.gamma(k) * (a + 1))
            v_lo = (mp.log(mp.mpf(10) ** -70) - mp.log(c)) / (a + 1)
            v_hi = mp.log(400 / bt) / pp
            v0 = mp.log(1 / bt) / pp
            pts = [v_lo, v0 - 10, v0 - 2, v0, v_hi]
            assert close(quad(lambda v: f(mp.exp(v)) * mp.exp(v), pts), 1, rel=mp.mpf(10) ** -40)
            mom = quad(lambda v: mp.exp(v * (mm + 1)) * f(mp.exp(v)), pts)
            assert close(mom, num(S.radius_moment, **pt), rel=mp.mpf(10) ** -40)
