"""Composed SGG delta is monotone in the rate (seed 003 Lemma 4.2 at every eps in R, then Blackwell).

Claim.  Fix T >= 2, alpha in (-1, T-1], p > 0, sensitivity s > 0, k >= 1 steps.  Let
``delta_k(eps; beta)`` be the delta of the k-fold product of the worst neighbouring pair
``(X, X + mu)``, ``X ~ SGG(alpha, beta, p)``, ``||mu||_2 = s``.  Then ``beta -> delta_k(eps; beta)`` is
non-decreasing for every eps in R.  (R1SMG is alpha = 0, p = 2, with beta decreasing in sigma_star.)

Proof.
1. *Radial profile* (seed 003 Prop. 4.1): the Cartesian density is
   ``f(x) = C ||x||^(alpha + 1 - T) exp(-(beta ||x||)^p)``, non-increasing in ``||x||`` because
   ``alpha + 1 - T <= 0`` (``test_radial_profile_is_non_increasing``).  So every superlevel set
   ``A_t = {f >= t}`` (t > 0) is a centred closed ball ``B(0, rho(t))``.
2. *Shift monotonicity at every eps in R* (seed 003 Lemma 4.2; its proof never uses eps >= 0): with
   ``c = e^eps > 0`` and ``(a - b)_+ = a - min(a, b)``, the layer-cake identity gives
   ``delta_mu(eps) = 1 - int_0^inf lambda(B(0, rho(t)) n B(mu, rho(t / c))) dt``.  The volume of the
   intersection of two centred balls is ``(1_{B(0, r1)} * 1_{B(0, r2)})(mu)``, a convolution of two
   log-concave symmetric functions, hence log-concave (Prekopa) and symmetric, hence non-increasing
   along rays: it is non-increasing in ``||mu||`` (``test_lens_area_is_non_increasing_in_the_distance``
   for T = 2).  So ``delta_mu(eps)`` is non-decreasing in ``||mu||`` for every eps in R.  By the symmetry
   ``x -> mu - x`` of the pair the two orders ``H(P||Q)``, ``H(Q||P)`` coincide.
3. *Rate = shift* (seed 003 Prop. C.1's argument, valid for every eps): ``X_beta = beta^(-1/p) X_1`` and
   the hockey-stick divergence is invariant under the bijection ``x -> beta^(1/p) x``, so
   ``delta_mu(eps; beta) = delta_{beta^(1/p) mu}(eps; 1)``: non-decreasing in beta for every eps in R.
4. *Trade-off functions* (Dong, Roth & Su 2022, Prop. 2.12): the profile over all eps in R determines the
   trade-off function, ``delta(eps) = 1 + f*(-e^eps)``, and the convex conjugate reverses the pointwise
   order (f = f** for trade-off functions; at slopes >= 0 every trade-off function has the same
   conjugate).  So ``beta1 <= beta2`` gives ``T(P_1, Q_1) >= T(P_2, Q_2)`` pointwise.
5. *Blackwell* (Blackwell 1950; Dong, Roth & Su 2022, Thm. 2.10): then a Markov kernel K maps the pair at
   beta2 onto the pair at beta1.  Applied coordinatewise, ``K^(x k)`` maps the k-fold product at beta2
   onto the k-fold product at beta1; hockey-stick divergences do not increase under a kernel (data
   processing), so ``delta_k(eps; beta1) <= delta_k(eps; beta2)`` for every eps.  QED

Checked numerically here (corroboration, not the proof): an independent formula for delta_mu(eps) at
T = 2 -- the layer-cake integral of step 2 over exact lens areas, 20 digits -- is non-decreasing in
``||mu||`` at negative and positive eps for a log-singular, a p = 2 and a p = 1/2 shape, and agrees
with certdp's certified radial-engine enclosure (Lemma 4.1, a different representation) at eps >= 0.
"""
from fractions import Fraction

import sympy as sp
from _proofkit import mp

from flint import arb, ctx

DPS = 20


def test_radial_profile_is_non_increasing():
    r, beta, p, a, T = sp.symbols("r beta p alpha T", positive=True)
    log_f = (a + 1 - T) * sp.log(r) - (beta * r) ** p
    derivative = sp.simplify(sp.diff(log_f, r) * r)
    # r d/dr log f = (alpha + 1 - T) - p (beta r)^p: both terms <= 0 when alpha <= T - 1
    assert sp.simplify(derivative - ((a + 1 - T) - p * (beta * r) ** p)) == 0


def _mpf(v):
    v = Fraction(v) if not isinstance(v, str) else Fraction(v)
    return mp.mpf(v.numerator) / v.denominator


def _lens(a, b, d):
    """Area of B(0, a) n B(d e1, b) in the plane."""
    if d >= a + b:
        return mp.mpf(0)
    if d <= abs(a - b):
        return mp.pi * min(a, b) ** 2
    x = mp.acos((d * d + a * a - b * b) / (2 * d * a))
    y = mp.acos((d * d + b * b - a * a) / (2 * d * b))
    return a * a * x + b * b * y - mp.sqrt((-d + a + b) * (d + a - b) * (d - a + b) * (d + a + b)) / 2


def test_lens_area_is_non_increasing_in_the_distance():
    with mp.workdps(DPS):
        for a, b in ((1, 1), (1, 3), (2, 0.5), (0.1, 0.1)):
            a, b = mp.mpf(a), mp.mpf(b)
            ds = [mp.mpf(i) / 50 * (a + b) * mp.mpf("1.1") for i in range(51)]
            areas = [_lens(a, b, d) for d in ds]
            assert all(x >= y for x, y in zip(areas, areas[1:]))
            assert areas[0] == mp.pi * min(a, b) ** 2 and areas[-1] == 0


def layer_cake_delta(alpha, p, beta, eps, shift):
    """delta of (X, X + mu), X ~ SGG(alpha, beta, p) in R^2, ||mu|| = shift, by step 2's layer cake.

    ``int_0^inf lens(rho(t), rho(t/c), s) dt`` with t = f(r1) (dt = -f'(r1) dr1), rho by bisection in log r.
    """
    with mp.workdps(DPS):
        alpha, p, beta, eps, s = (_mpf(v) for v in (alpha, p, beta, eps, shift))
        c = mp.exp(eps)
        k = (alpha + 1) / p
        log_c0 = mp.log(p) + (alpha + 1) * mp.log(beta) - mp.log(2 * mp.pi) - mp.loggamma(k)

        def log_f(r):
            return log_c0 + (alpha - 1) * mp.log(r) - (beta * r) ** p

        def rho(log_t):                          # radius of {f >= t}: root of the decreasing log f - log t
            if alpha == 1 and log_t >= log_c0:
                return mp.mpf(0)
            lo, hi = mp.mpf(-200), mp.mpf(200)
            for _ in range(16):
                mid = (lo + hi) / 2
                if log_f(mp.exp(mid)) >= log_t:
                    lo = mid
                else:
                    hi = mid
            return mp.exp(mp.findroot(lambda u: log_f(mp.exp(u)) - log_t, (lo, hi), solver="anderson", verify=False))

        def integrand(r1):
            minus_df = mp.exp(log_f(r1)) * ((1 - alpha) / r1 + p * beta ** p * r1 ** (p - 1))
            return _lens(r1, rho(log_f(r1) - eps), s) * minus_df

        def regime(r1):                          # the lens formula's three regimes (kinks between them)
            r2 = rho(log_f(r1) - eps)
            return 0 if s >= r1 + r2 else (2 if s <= abs(r1 - r2) else 1)

        coarse = [mp.mpf(2) ** (j / mp.mpf(4)) / beta for j in range(-120, 20)]
        kinks = []
        for lo, hi in zip(coarse, coarse[1:]):
            if regime(lo) != regime(hi):          # bisect to the kink (tanh-sinh copes with it at an end)
                for _ in range(mp.prec):
                    mid = (lo + hi) / 2
                    lo, hi = (mid, hi) if regime(mid) == regime(lo) else (lo, mid)
                kinks.append((lo + hi) / 2)
        grid = sorted(set([mp.mpf(0)] + coarse[::8] + kinks)) + [mp.inf]
        overlap = mp.quad(integrand, grid)
        return 1 - overlap


SHAPES = ((Fraction(0), Fraction(1)), (Fraction(1, 2), Fraction(2)), (Fraction(1), Fraction(1, 2)))


def test_delta_is_non_decreasing_in_the_shift_at_every_sign_of_eps():
    for alpha, p in SHAPES:
        for eps in ("-1", "0.5"):
            values = [layer_cake_delta(alpha, p, 1, eps, s) for s in ("0.5", "1", "2")]
            # never below the floor 1 - e^eps (exact there when the loss is bounded by |eps|: p = 1/2)
            assert all(max(0, 1 - mp.exp(float(eps))) - 1e-12 <= v <= 1 for v in values)
            assert all(y >= x - 1e-12 for x, y in zip(values, values[1:])), (alpha, p, eps, values)
            assert values[-1] > values[0] + 1e-9, (alpha, p, eps, values)


def test_layer_cake_agrees_with_the_certified_radial_engine():
    from certdp.mechanisms.sgg import sgg_profile_enclosure

    for alpha, p in SHAPES:
        with mp.workdps(DPS):
            ref = layer_cake_delta(alpha, p, 1, "0.5", 1)
        old = ctx.prec
        ctx.prec = 128
        try:
            enc = sgg_profile_enclosure(2, alpha, p, Fraction(1), Fraction(1, 2), 1, relative_eta=1e-12)
        finally:
            ctx.prec = old
        assert enc.is_finite()
        # the quadrature's own error is ~1e-15 relative at these widths
        assert abs(float(enc.mid()) - float(ref)) <= 1e-12 * float(ref) + float(enc.rad()), (alpha, p, enc, ref)
        assert isinstance(enc, arb)
