"""The radial engine at tiny delta (issue 17: delta down to 1e-300), against independent mpmath values.

* The Gaussian member of SGG (``alpha = T - 1, p = 2``: ``N(0, sigma^2 I_T)`` with
  ``beta = 1/(2 sigma^2)``) at delta ~ 1e-12, 1e-100, 1e-300 for T = 2 and T = 10: its profile is the
  1-D analytic Gaussian with ``Delta = s`` (rotate the shift onto an axis), evaluated by mpmath's
  ``ncdf`` at 60 digits (``tests/reference.py``) -- no radial structure, no Arb.  At T = 2 and
  (eps, delta) = (50, 1e-300) the bin ``[0, z_1]`` used to leave ``(1 + e^50) z_1`` of width with
  ``z_1 >= 1e-322`` (the smallest double), a floor above delta itself.
* R1SMG (``alpha = 0, p = 2``) at T = 1000 (and T = 10) with ``beta s^2 ~ 1e-200`` and ``~ 1e-600``
  (delta ~ 1e-100, 1e-300), where the loss lives at ``z ~ beta s^2`` far below the doubles (the engine
  refused ``beta s^2 < 2^-800`` before).  Reference: a *different formula*, the scale-free limit.  With
  ``r = s t`` the radial density is ``2 sqrt(z_s / pi) e^(-z_s t^2) dt`` (``z_s = beta s^2``) and the
  loss is ``c1 ln(q / t^2) - z_s (2 w t + 1)`` with ``q = t^2 + 2 w t + 1``; dropping the ``z_s`` terms
  (relative size ``z_s t_max^2 < 1e-180`` here, far below the 50 digits compared) the threshold is
  explicit, ``w0(t, y) = (t^2 (E - 1) - 1) / (2 t)`` with ``E = e^(y / c1)``, and
  ``delta = 2 sqrt(z_s / pi) I`` with
  ``I = 1/(sqrt E + 1) + int_{1/(sqrt E + 1)}^{1/(sqrt E - 1)} F_W(-w0(t, -eps)) dt
  - e^eps int_{1/(1 + sqrt E')}^{1/(1 - sqrt E')} F_W(w0(t, eps)) dt`` (``E = e^(eps/|c1|)``,
  ``E' = 1/E``; the limits are where ``w0 = +-1``), by mpmath quadrature of the incomplete beta.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb

from certdp.engines.radial import sgg_delta_enclosure
from certdp.numbers import working_precision

from reference import gaussian_delta_closed_form

REL = 1e-10          # relative width asked of the engine


def _q(x) -> mp.mpf:
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def _arb(q: Fraction) -> arb:
    return arb(q.numerator) / q.denominator


def _inside(enc, ref: mp.mpf, slack: str = "1e-40") -> bool:
    """``ref`` in ``[lower, upper]`` (45 significant digits of each end) up to a relative ``slack``
    (the reference's own accuracy)."""
    with mp.workdps(60):
        lo = mp.mpf(enc.lower.lower().mid().str(45, radius=False))
        hi = mp.mpf(enc.upper.upper().mid().str(45, radius=False))
        return lo * (1 - mp.mpf(slack)) <= ref <= hi * (1 + mp.mpf(slack))


def _enclose(T, alpha, rate: Fraction, eps, log_delta: float):
    with working_precision(128):
        enc = sgg_delta_enclosure(T, alpha, 2, _arb(rate), Fraction(eps), 1, eta=arb(2) ** -8000,
                                  rel_eta=REL, log_delta_hint=log_delta)
    assert enc.lower > 0
    assert float((enc.width / enc.lower).upper()) <= REL
    return enc


# ----------------------------------------------------------------------------- the Gaussian member
GAUSSIAN_CASES = [
    # T, eps, delta (sigma from the float root of the analytic Gaussian at (eps, delta))
    (2, 1, "1e-12"), (2, 1, "1e-100"), (2, 1, "1e-300"), (2, 50, "1e-300"),
    (10, 1, "1e-12"), (10, 1, "1e-100"), (10, 1, "1e-300"),
]


@pytest.mark.parametrize("T,eps,delta", GAUSSIAN_CASES)
def test_gaussian_member_matches_the_analytic_gaussian(T, eps, delta):
    from certdp.mechanisms.gaussian import Gaussian

    sigma = Fraction(repr(Gaussian.float_candidate(float(eps), math.log(float(delta)), sensitivity=1)))
    rate = 1 / (2 * sigma * sigma)
    ref = gaussian_delta_closed_form(sigma, eps)
    assert mp.mpf(delta) / 2 < ref < 2 * mp.mpf(delta)       # the sigma is where the test means it
    enc = _enclose(T, T - 1, rate, eps, math.log(float(delta)))
    assert _inside(enc, ref), (enc.lower, enc.upper, ref)


# ----------------------------------------------------------------------------- R1SMG, scale-free limit
def r1smg_scale_free_delta(T: int, eps, z_s, dps: int = 50) -> mp.mpf:
    """delta of R1SMG in R^T in the limit ``z_s = beta s^2 -> 0`` (module docstring): ``2 sqrt(z_s/pi) I``."""
    with mp.workdps(dps):
        e, zs = _q(eps), _q(z_s)
        c1 = mp.mpf(1 - T) / 2
        a = mp.mpf(T - 1) / 2

        def fw(w):
            if w <= -1:
                return mp.mpf(0)
            if w >= 1:
                return mp.mpf(1)
            return mp.betainc(a, a, 0, (w + 1) / 2, regularized=True)

        E = mp.exp(e / -c1)
        Ep = 1 / E
        sE, sEp = mp.sqrt(E), mp.sqrt(Ep)

        def w0(t, y_E):
            return (t * t * (y_E - 1) - 1) / (2 * t)

        a_lo, a_hi = 1 / (sE + 1), 1 / (sE - 1)
        b_lo, b_hi = 1 / (1 + sEp), 1 / (1 - sEp)
        mid_a = [a_lo + (a_hi - a_lo) * mp.mpf(i) / 8 for i in range(9)]
        mid_b = [b_lo + (b_hi - b_lo) * mp.mpf(i) / 8 for i in range(9)]
        part_a = a_lo + mp.quad(lambda t: fw(-w0(t, E)), mid_a)
        part_b = mp.quad(lambda t: fw(w0(t, Ep)), mid_b)
        return 2 * mp.sqrt(zs / mp.pi) * (part_a - mp.exp(e) * part_b)


R1SMG_CASES = [
    # T, eps, beta (s = 1): z_s = beta; the reference at 30 digits (the incomplete beta with
    # a = 499.5 costs ~ 3 s per quadrature at 30 digits, ~ 10 s at 50)
    (1000, 1, Fraction(1, 10**600)),
    pytest.param(1000, Fraction(1, 100), Fraction(3, 10**201), marks=pytest.mark.slow),
    (10, 1, Fraction(7, 10**601)),
    # the plane at eps = 50 (branch `layer2`): the B layer |r/s - 1| ~ e^-50 around z_s = 1.4e-575, below
    # the double spacing and outside the doubles (a timeout before: the layer was invisible to the scan on ln z)
    (2, 50, Fraction(14, 10**576)),
]


@pytest.mark.parametrize("T,eps,beta", R1SMG_CASES)
def test_r1smg_far_below_the_doubles_matches_the_scale_free_limit(T, eps, beta):
    # the eps = 50 layer is e^-50 wide in t: 30 digits leave it 8 (the reference was 2x off), 60 leave 38
    ref = r1smg_scale_free_delta(T, eps, beta, dps=30 if eps < 20 else 60)
    log_delta = float(mp.log(ref))
    assert log_delta < -200
    enc = _enclose(T, 0, beta, eps, log_delta)
    assert _inside(enc, ref, slack="1e-25"), (enc.lower, enc.upper, ref)


def test_scale_free_reference_agrees_with_the_lemma_quadrature_where_both_apply():
    """The reference formula itself, checked against the Lemma 4.1 mpmath quadrature of
    ``test_sgg_radial`` at a z_s where that quadrature is accurate (beta s^2 = 2.037e-26, T = 10,
    eps = 0.01: the neglected z_s terms are ~ 1e-20 relative there)."""
    from test_sgg_radial import mp_sgg_delta

    beta = Fraction("2.037e-26")
    lemma, err = mp_sgg_delta(10, 0, 2, beta, Fraction(1, 100), 1, dps=30, z_lo=Fraction(1, 10**34))
    limit = r1smg_scale_free_delta(10, Fraction(1, 100), beta, dps=30)
    assert abs(lemma - limit) <= err + mp.mpf("1e-15") * limit


@pytest.mark.parametrize("T,eps", [(2, 50), (2, 20), (10, 1)])
def test_scale_free_rate_candidate_hits_the_target_delta(T, eps):
    """The float rate candidate for alpha < T - 1 below 1e-12 (``_scale_free_rate``: the layers in local
    coordinates, Gauss-Legendre in ``c = sin(theta)``) against the mpmath scale-free limit above (quadrature in
    ``t``): at its rate the reference delta is the target to 1e-6 (a guess, but a good one: the old
    extrapolation was 1e20 off in beta at (50, 1e-300), T = 2)."""
    from certdp.mechanisms.sgg import _scale_free_rate

    rate = _scale_free_rate(T, 0.0, 2.0, float(eps), math.log(1e-300), 1.0)
    beta = Fraction(str(rate))
    ref = r1smg_scale_free_delta(T, eps, beta, dps=60)
    assert abs(ref / mp.mpf("1e-300") - 1) < mp.mpf("1e-6"), ref
