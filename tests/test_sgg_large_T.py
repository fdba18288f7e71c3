"""The radial engine at large T and small eps (branch `bigt`), against an independent mpmath quadrature.

At T = 1000, alpha = 999/2, p = 2 (``c1 = -249.75``, ``k = 250.25``) and eps = 0.01 the mass of delta sits in
the bulk, ``z ~ k``, i.e. ``r ~ 7e4 s`` at the calibrated rate: ``t = s / r ~ 1.5e-5``, ``w*`` is interior
(``~ -0.68`` on the B side), and ``A``, ``e^eps B`` cancel to ``1e-5`` relative.

The reference works in ``q = r^2 + 2 s w r + s^2`` (not in ``log1p``/``expm1`` forms of the engine): ``Phi =
c1 ln(q / r^2) + z - q^(p/2)`` at 20 extra digits, ``w*`` by bisection then the Illinois method on that
expression, ``F_W`` by mpmath's regularized incomplete beta, the Gamma(k) density in ``z`` integrated by
tanh-sinh on pieces of half a standard deviation.  Its ``A`` and ``B`` agree with the engine's to 14 digits at
this point; the pieces change the value by < 1e-19 relative between ``sqrt(k)`` and ``sqrt(k)/2`` wide pieces at
degree 9 (the mpmath error estimate itself is pessimistic, so it is not used).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb

from certdp.engines.radial import SGGRadialProblem, sgg_delta_enclosure
from certdp.numbers import working_precision

T, ALPHA, P, EPS = 1000, Fraction(999, 2), Fraction(2), Fraction(1, 100)
#: the first probe of the calibration at (0.01, 1e-300) before the fixes (delta ~ 1.8e-143)
RATE = Fraction("5.355209100e-8")


def _mpf(q) -> mp.mpf:
    q = Fraction(q)
    return mp.mpf(q.numerator) / q.denominator


def _ends(x: arb) -> tuple[mp.mpf, mp.mpf]:
    """The exact ends of a ball as mpf (printed at 256 bits: at 64 the decimal string is rounded)."""
    with working_precision(256), mp.workdps(80):
        return (mp.mpf(x.lower().mid().str(70, radius=False)), mp.mpf(x.upper().mid().str(70, radius=False)))


def _wstar(r, z, sb, c1, p, y):
    """``w*(r, y)`` from ``Phi(q) = y`` written in q (Lemma 4.1's loss), by bisection + Illinois."""
    def phi(w):
        q = r * r + 2 * sb * w * r + sb * sb
        return c1 * mp.log(q / (r * r)) + z - q ** (p / 2)

    if phi(mp.mpf(1)) >= y:
        return mp.mpf(1)
    if phi(mp.mpf(-1)) <= y:
        return mp.mpf(-1)
    with mp.extradps(20):
        lo, hi = mp.mpf(-1), mp.mpf(1)
        for _ in range(12):
            m = (lo + hi) / 2
            if phi(m) >= y:
                lo = m
            else:
                hi = m
        return +mp.findroot(lambda w: phi(w) - y, (lo, hi), solver="illinois", verify=False)


def mp_bulk_integrals(dimension, alpha, p, beta, eps, pieces, dps=50):
    """``(A, B)`` of Lemma 4.1 over ``z`` in the union of ``pieces`` (Gamma(k, 1) law of ``Z = beta R^p``, s = 1)."""
    with mp.workdps(dps):
        alpha, p, beta, eps = _mpf(alpha), _mpf(p), _mpf(beta), _mpf(eps)
        c1 = (alpha + 1 - dimension) / 2
        k = (alpha + 1) / p
        a = mp.mpf(dimension - 1) / 2
        sb = beta ** (1 / p)                  # Lemma C.1: beta -> 1, s -> s beta^(1/p)

        def dens(z):
            return mp.exp((k - 1) * mp.log(z) - z - mp.loggamma(k))

        def fw(w):
            return mp.betainc(a, a, 0, (1 + w) / 2, regularized=True)

        def a_int(z):
            return dens(z) * fw(-_wstar(z ** (1 / p), z, sb, c1, p, -eps))

        def b_int(z):
            return dens(z) * fw(_wstar(z ** (1 / p), z, sb, c1, p, eps))

        pts = [x if isinstance(x, mp.mpf) else mp.inf if x == "inf" else _mpf(x) for x in pieces]
        out = []
        for f in (a_int, b_int):
            val = err = mp.mpf(0)
            for lo, hi in zip(pts[:-1], pts[1:]):
                # mpmath tests its quadrature error in absolute terms (1e-50): unscaled, an integrand of
                # 1e-141 "converged" at the first degree, 4e-14 relative off; so each piece is divided by
                # its value at the middle
                scale = abs(f((lo + hi) / 2)) or mp.mpf(1)
                v, e = mp.quad(lambda z: f(z) / scale, [lo, hi], method="gauss-legendre", error=True)
                val, err = val + v * scale, err + e * scale
            assert err < mp.mpf("1e-30") * abs(val), (val, err)
            out.append(val)
        return tuple(out)


#: the reference integrates z in [Z_LO, Z_HI]; the Gamma(k) mass outside (< 1e-240, G <= 1) is added to its error
Z_LO, Z_HI = 10, 2000


def _bulk_pieces():
    """Geometric pieces (ratio 1.2) up to ``k - 8 sqrt(k)``, a standard deviation wide in the bulk, geometric
    again from ``k + 40 sqrt(k)``: Gauss-Legendre on each (the integrand spans 1e-240 ... 1e-139)."""
    with mp.workdps(50):
        k = _mpf(ALPHA + 1) / 2
        lo, hi = k - 8 * mp.sqrt(k), k + 40 * mp.sqrt(k)
        pts = [mp.mpf(Z_LO)]
        while pts[-1] * mp.mpf("1.2") < lo:
            pts.append(pts[-1] * mp.mpf("1.2"))
        pts += [lo + j * mp.sqrt(k) for j in range(0, 49)]
        while pts[-1] * mp.mpf("1.2") < Z_HI:
            pts.append(pts[-1] * mp.mpf("1.2"))
        return pts + [mp.mpf(Z_HI)]


def test_wstar_in_the_bulk_at_64_bits_is_tight_and_contains_the_mpmath_root():
    """``w*`` at ``r ~ 6e4 s`` (``w < -1/2``): the q/r^2 form of ``Phi`` kept only an absolute ``2^-64`` in
    ``ln(1 - 2e-5)``, so the certified point enclosure was ``+-4.6e-13`` (every Taylor bin of B inherited it,
    times ``d ln F_W / dw ~ 1300``: the 64-bit pass stalled at 7e-10 of A).  Now ``log1p`` where ``s/r < 1/4``."""
    z = Fraction("231.409627520921361")
    with working_precision(64):
        prob = SGGRadialProblem(T, ALPHA, P, RATE, EPS, 1)
        zb = arb(z.numerator) / z.denominator
        w = prob.certified_point_wstar(zb, prob.eps, prob.wstar_guess(zb, float(EPS)))
        assert w is not None
        assert w.rad() < arb("1e-16"), w
    lo, hi = _ends(w)
    with mp.workdps(50):
        zm = _mpf(z)
        ref = _wstar(zm.sqrt(), zm, _mpf(RATE).sqrt(), _mpf(ALPHA + 1 - T) / 2, mp.mpf(2), _mpf(EPS))
        assert lo <= ref <= hi, (lo, ref, hi)


def test_one_bulk_bin_at_64_bits_matches_mpmath():
    """The B-side Taylor bin ``[231.30, 231.52]`` at 64 bits: relative radius 3.7e-10 before the fix, now
    < 1e-13, and both sides contain the 50-digit quadrature of the same bin."""
    zl, zu = Fraction(231.300784360113255), Fraction(231.518470681729468)    # bin edges are doubles
    a_ref, b_ref = mp_bulk_integrals(T, ALPHA, P, RATE, EPS, [zl, zu])
    with working_precision(64):
        prob = SGGRadialProblem(T, ALPHA, P, RATE, EPS, 1)
        zla, zua = arb(float(zl)), arb(float(zu))
        for minus, ref in ((True, a_ref), (False, b_ref)):
            c, method = prob.bin_contribution(zla, zua, -prob.eps if minus else prob.eps, minus, 13)
            assert method == "taylor"
            assert c.rad() < arb("1e-13") * abs(c.mid()), c
            lo, hi = _ends(c)
            assert lo <= ref <= hi, (minus, lo, ref, hi)


@pytest.mark.slow
def test_64_bit_engine_pass_at_t1000_eps_001_matches_mpmath():
    """The whole profile at 64 bits, relative width 2^-26 (the first rung of the calibration): it stalled at
    1.1e-147 (width) > 2.7e-151 (target) with 1104 bins before the fix and returned nan; now certified
    (~520 bins, ~4 s) and it contains the quadrature's ``A - e^eps B`` (~20 s of mpmath)."""
    with working_precision(64):
        enc = sgg_delta_enclosure(T, ALPHA, P, RATE, EPS, 1, eta=arb(2) ** -4096, rel_eta=2.0 ** -26)
    lo, hi = _ends(enc.lower)[0], _ends(enc.upper)[1]
    a_ref, b_ref = mp_bulk_integrals(T, ALPHA, P, RATE, EPS, _bulk_pieces())
    with mp.workdps(50):
        ref = a_ref - mp.exp(_mpf(EPS)) * b_ref
        k = _mpf(ALPHA + 1) / 2
        outside = mp.gammainc(k, 0, Z_LO, regularized=True) + mp.gammainc(k, Z_HI, mp.inf, regularized=True)
        assert outside < mp.mpf("1e-100") * ref
        # the quadrature's A and B to 1e-18 relative (asserted): ~1e-13 of delta after the cancellation
        slack = mp.mpf("1e-12") * ref + (1 + mp.exp(_mpf(EPS))) * outside
        assert lo - slack <= ref <= hi + slack, (lo, ref, hi)


def test_the_scale_free_regime_needs_the_whole_b_layer_below_the_gamma_scale():
    """``delta ~ C z_s^k`` needs ``z_s t_max^p`` small, ``t_max ~ 2 |c1| / eps`` the B layer's outer end: the
    floor root of T = 1000, alpha = 999/2, p = 2 at eps = 0.01 (``z_s ~ 7.6e-7 < 1e-3``, ``t_max ~ 5e4``) is not
    in it (the old test ``z_s < 1e-3`` said it was: candidate 3.4x below the root), R1SMG's (``z_s ~ 1e-20``) is."""
    import math

    from certdp.mechanisms.sgg import _scale_free_regime

    assert not _scale_free_regime(1000, 499.5, 2.0, 0.01, math.log(7.6e-7))
    assert _scale_free_regime(1000, 0.0, 2.0, 0.01, math.log(1.7e-28))
    assert _scale_free_regime(2, 0.0, 2.0, 50.0, math.log(1e-4))      # eps = 50: t_max ~ 1


@pytest.mark.slow
def test_rate_candidate_at_t1000_eps_001_delta_1e_300_lands_next_to_the_root():
    """The float candidate (a guess) at (0.01, 1e-300): the power law from the 1e-12 root gave a first probe
    with delta 1.8e-143; with the bulk secants (docs/sgg.md item 27) the certified 64-bit profile at the
    candidate is within e^(+-5) of 1e-300."""
    import math

    from certdp.mechanisms.sgg import sgg_rate_candidate

    beta = sgg_rate_candidate(T, float(ALPHA), float(P), float(EPS), math.log(1e-300), 1.0)
    with working_precision(64):
        enc = sgg_delta_enclosure(T, ALPHA, P, Fraction(beta), EPS, 1, eta=arb(2) ** -4096, rel_eta=1e-3)
        ld = float(enc.upper.log().mid())
    assert abs(ld - math.log(1e-300)) < 5, ld
