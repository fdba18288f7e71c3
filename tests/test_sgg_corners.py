"""Issue 17 corners of the radial engine, checked against independent 50-digit mpmath computations.

* R1SMG at a tiny noise scale (``beta s^2 ~ 2e-26``, ``sigma_star ~ 2.5e25``): the mass of delta
  sits at ``z ~ 1e-26``, where the engine's Taylor models need their float spread estimate formed
  in Arb.  Reference: the Lemma 4.1 quadrature of ``test_sgg_radial`` with its breakpoint scan
  started at ``z = 1e-34``.
* SGG ``T = 3, alpha = 2, p = 1/2`` just above the pure-DP boundary (``eps = 1``, ``beta s^p =
  1.0657``): delta ~ 1e-12 comes from a neighbourhood of ``x = -mu`` where ``1 + w* ~ 3e-7``.
  Reference: a *different formula*, the hockey-stick integral ``int (f(x) - e^eps f(x + mu))_+ dx``
  in spherical coordinates about the origin of ``R^3`` (no Lemma 4.1, no threshold ``w*``): the
  positive part lives on ``{t < t*(theta)}`` where ``|x + mu|^p - |x|^p = eps``.
* Parameters beyond the range of the bin edges (``beta s^p < 2^-10^6``) end UNDECIDED at once (no hang).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb

from certdp.engines.radial import RadialRangeError, sgg_delta_enclosure
from certdp.numbers import working_precision

from test_sgg_radial import _contains, mp_sgg_delta


def _mpf(q) -> mp.mpf:
    q = Fraction(q)
    return mp.mpf(q.numerator) / q.denominator


def mp_hockey_stick_r3(p, beta, eps, s=1, dps=40):
    """delta(eps) of SGG(alpha = 2, beta, p) in R^3 (density ``propto exp(-beta |x|^p)``), ``p <= 1``.

    ``delta = int_{L > eps} f(x) - e^eps f(x + mu) dx`` with ``L = beta (|x + mu|^p - |x|^p)``; with
    ``beta = 1`` and ``s -> s beta^(1/p)`` (scaling), spherical coordinates ``x = t (cos th, ...)``:
    ``|x + mu|^2 = t^2 + 2 t s cos th + s^2``.  For ``p <= 1`` the region ``L > eps`` is
    ``t < t*(th)`` (``L`` decreases in ``t`` from ``s^p`` at ``t = 0``; checked on a grid below).
    Normalisation ``int exp(-|x|^p) dx = 4 pi Gamma(3/p) / p``.
    """
    with mp.workdps(dps):
        p, eps = _mpf(p), _mpf(eps)
        s = _mpf(s) * _mpf(beta) ** (1 / p)
        norm = 4 * mp.pi * mp.gamma(3 / p) / p

        def loss(t, c):
            return (t * t + 2 * t * s * c + s * s) ** (p / 2) - t ** p

        def t_star(c):
            hi = mp.mpf(1)
            while loss(hi, c) > eps:
                hi *= 2
            root = mp.findroot(lambda t: loss(t, c) - eps, (mp.mpf(0), hi), solver="anderson")
            assert all(loss(root * m, c) < eps for m in (1.5, 2, 4, 16, 256))  # one crossing
            return root

        def inner(th):
            c = mp.cos(th)
            f = lambda t: t * t * (mp.exp(-t ** p) - mp.exp(eps) * mp.exp(-(t * t + 2 * t * s * c + s * s)  # noqa: E731
                                                                          ** (p / 2)))
            return mp.sin(th) * mp.quad(f, [0, t_star(c)])

        return 2 * mp.pi * mp.quad(inner, [0, mp.pi / 2, mp.pi]) / norm


def test_r1smg_at_a_tiny_noise_scale_matches_mpmath():
    """R1SMG (alpha = 0, p = 2) in R^10 with beta = 2.037e-26 (delta ~ 1e-12 at eps = 0.01)."""
    beta = Fraction("2.037e-26")
    ref, err = mp_sgg_delta(10, 0, 2, beta, Fraction(1, 100), 1, z_lo=Fraction(1, 10**34))
    assert err < mp.mpf("1e-30")
    with working_precision(128):
        enc = sgg_delta_enclosure(10, 0, 2, arb(beta.numerator) / beta.denominator, Fraction(1, 100), 1,
                                  eta=arb(2) ** -400, rel_eta=1e-10, log_delta_hint=-27.6)
        assert float((enc.width / enc.lower).upper()) <= 1e-10
        assert _contains(enc, ref, err), (enc.lower, enc.upper, ref)
        # the bins at z ~ 1e-26 carry delta: they are Taylor models, not first-order enclosures
        assert enc.taylor_bins > 10 * enc.monotone_bins


def test_p_half_just_above_the_pure_dp_boundary_matches_hockey_stick_integral():
    beta = Fraction("1.0657326")
    ref = mp_hockey_stick_r3(Fraction(1, 2), beta, 1)
    assert mp.mpf("9e-13") < ref < mp.mpf("1.1e-12")
    with working_precision(128):
        enc = sgg_delta_enclosure(3, 2, Fraction(1, 2), arb(beta.numerator) / beta.denominator, 1, 1,
                                  eta=arb(2) ** -400, rel_eta=1e-8, log_delta_hint=-27.6)
        assert _contains(enc, ref), (enc.lower, enc.upper, ref)
        assert float((enc.width / enc.lower).upper()) <= 1e-8


@pytest.mark.slow
def test_calibration_just_above_the_pure_dp_boundary_brackets_the_true_rate():
    """The certified rate bracket at (eps, delta) = (1, 1e-12): the independent formula puts delta
    below the target at the safe (lower) end and above it at the other end."""
    import certdp

    cert = certdp.calibrate("sgg", epsilon=1, delta="1e-12", rtol="1e-6", dimension=3, alpha=2, power="1/2")
    lo, hi = (Fraction(str(v)) for v in cert.interval)
    assert mp_hockey_stick_r3(Fraction(1, 2), lo, 1) <= mp.mpf("1e-12") < mp_hockey_stick_r3(Fraction(1, 2), hi, 1)


def test_parameters_beyond_the_bin_edge_range_are_undecided_at_once():
    """beta s^p below 2^-10^6 (far beyond any supported delta; bin edges are exact points of any
    exponent, float guesses work on ln z) is refused up front, in milliseconds."""
    import time

    t0 = time.perf_counter()
    with working_precision(64), pytest.raises(RadialRangeError, match="below the range of its bin edges"):
        sgg_delta_enclosure(1000, 0, 2, arb(2) ** -(2 * 10**6 + 10), 50, 1)
    assert time.perf_counter() - t0 < 1.0
