"""The dense shape grid of issue 17 (branch ``dense``): alpha = -9/10, p = 8 at (eps, delta) = (0.01, 1e-300).

``k = (alpha + 1)/p = 1/80``: delta ~ beta^(1/80), the root is beta ~ 5e-24001.  Before, the float quadrature's
root at 1e-12 (beta ~ 1e-960) was out of the double range, so ``sgg_rate_candidate`` returned None although the
scale-free limit needs no quadrature; the bracket walked 12 doublings from beta = 1 and its secant then crawled
(a tenth of the remaining way per probe): timeout (30 s) at every T, 46 s at T = 2 alone.

Reference: a *different formula and code*, the scale-free limit in mpmath (50 digits, tanh-sinh in ``t``;
the candidate's float version is Gauss-Legendre in ``c = sin(theta)``, the engine is Arb bins in ``z``).
With ``r = s t``, ``z_s = beta s^p`` the radial law is ``p z_s^k t^alpha e^(-z_s t^p) dt / Gamma(k)`` and the
loss ``c1 ln(q / t^2) - z_s (...)``, ``q = t^2 + 2 w t + 1``, ``c1 = (alpha + 1 - T)/2``; dropping the ``z_s``
terms (relative size ``z_s t_max^p ~ 1e-23980`` here) the threshold is ``w0(t, y) = (t^2 (E - 1) - 1)/(2 t)``,
``E = e^(y / c1)``, and ``delta = (p z_s^k / Gamma(k)) I`` with
``I = a^(alpha+1)/(alpha+1) + int_a^{1/(sqrt E - 1)} t^alpha F_W(-w0(t, -eps)) dt
- e^eps int_{1/(1 + sqrt E')}^{1/(1 - sqrt E')} t^alpha F_W(w0(t, eps)) dt``, ``a = 1/(sqrt E + 1)``
(``tests/test_sgg_tiny_delta.py`` has the R1SMG case ``alpha = 0, p = 2``; the identity test below checks
the generalisation reduces to it).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import pytest

import certdp

from test_sgg_tiny_delta import r1smg_scale_free_delta

EPS = Fraction(1, 100)
DELTA = "1e-300"


def _q(x) -> mp.mpf:
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def scale_free_delta(T: int, alpha, p, eps, z_s, dps: int = 50) -> mp.mpf:
    """delta of SGG(T, alpha, p) in the limit ``z_s = beta s^p -> 0`` (module docstring)."""
    with mp.workdps(dps):
        e, al, pw = _q(eps), _q(alpha), _q(p)
        k = (al + 1) / pw
        c1 = (al + 1 - T) / 2
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
        # geometric pieces: the ends are a factor ~ 4 |c1| / eps apart at small eps
        pa = [a_lo * (a_hi / a_lo) ** (mp.mpf(i) / 12) for i in range(13)]
        pb = [b_lo * (b_hi / b_lo) ** (mp.mpf(i) / 12) for i in range(13)]
        part_a = a_lo ** (al + 1) / (al + 1) + mp.quad(lambda t: t ** al * fw(-w0(t, E)), pa)
        part_b = mp.quad(lambda t: t ** al * fw(w0(t, Ep)), pb)
        return pw * _q(z_s) ** k / mp.gamma(k) * (part_a - mp.exp(e) * part_b)


def test_the_general_scale_free_reference_reduces_to_the_r1smg_one():
    beta = Fraction(7, 10**601)
    ours = scale_free_delta(10, 0, 2, 1, beta, dps=30)
    theirs = r1smg_scale_free_delta(10, 1, beta, dps=30)
    assert abs(ours / theirs - 1) < mp.mpf("1e-25")


def test_rate_candidate_exists_where_the_quadrature_root_leaves_the_doubles():
    """Fails before: ``sgg_rate_candidate`` returned None (the root at 1e-12 is beta ~ 1e-960)."""
    from certdp.mechanisms.sgg import sgg_rate_candidate

    rate = sgg_rate_candidate(2, -0.9, 8.0, float(EPS), math.log(1e-300), 1.0)
    assert rate is not None
    ref = scale_free_delta(2, Fraction(-9, 10), 8, EPS, Fraction(str(rate)))
    # a guess, but delta there is the target to 1e-5 (beta to ~1e-3: k = 1/80)
    assert abs(ref / mp.mpf(DELTA) - 1) < mp.mpf("1e-5"), ref


def test_calibration_alpha_near_minus_one_p8_tiny_delta():
    """The cell (T = 2, alpha = -9/10, p = 8) at (0.01, 1e-300): few engine calls (25 before, 46 s: the
    bracket walked from beta = 1), and the certified ends agree with the 50-digit reference: delta <= 1e-300
    at the safe end, > 1e-300 at the other, each inside the engine's enclosure there."""
    cert = certdp.calibrate("sgg", epsilon=str(EPS), delta=DELTA, sensitivity=1, rtol="1e-6",
                            dimension=2, alpha="-9/10", power=8)
    assert cert.extra["evaluations"] <= 6, cert.extra["evaluations"]
    # delta differs by ~3e-9 between the walk's two points, below the 64-bit width target 1.5e-8: the
    # engine refines on at 64 bits (fails before: both points went on to 128 bits)
    assert cert.precision_bits == 64, cert.precision_bits
    lo, hi = (Fraction(x) for x in cert.interval)
    assert cert.safe_side == "lower"        # a rate: delta increases with beta
    with mp.workdps(60):
        for rate, enclosure, private in ((lo, cert.delta_enclosure, True),
                                         (hi, cert.extra["delta_enclosure_at_unsafe_end"], False)):
            ref = scale_free_delta(2, Fraction(-9, 10), 8, EPS, rate)
            assert (ref <= mp.mpf(DELTA)) is private, (rate, ref)
            low, high = (mp.mpf(x) for x in enclosure)
            slack = mp.mpf("1e-30")
            assert low * (1 - slack) <= ref <= high * (1 + slack), (low, ref, high)


# ----------------------------------------------------------------------------- c1 = -1/2 at large T
def test_engine_stops_once_decided_against_the_target_delta():
    """sgg T=128 alpha=126 p=2 (c1 = -1/2) next to its root at (0.01, 1e-300): the 64-bit rung stalled at a
    width of 1e-7 relative (target 1.5e-8, 953 bins, 3.6 s) and every probe went on to 128 bits.  With the
    bracket's delta passed in, the 64-bit call returns as soon as its enclosure (<= 2^-12 relative) is on one
    side of it.  Checked against the 128-bit enclosure of the full width target (the same engine: a
    consistency check of the early exit, not an independent value)."""
    from flint import arb

    from certdp.engines.radial import RadialPrecisionError, sgg_delta_enclosure
    from certdp.mechanisms.sgg import sgg_profile_enclosure
    from certdp.numbers import working_precision

    args = (128, Fraction(126), Fraction(2), Fraction("3.7096511e-8"), EPS, Fraction(1))
    target = Fraction(1, 10**300)
    with working_precision(64):
        with pytest.raises(RadialPrecisionError):
            sgg_delta_enclosure(*args, eta=arb(2) ** -4096, rel_eta=2.0 ** -26)
        early = sgg_delta_enclosure(*args, eta=arb(2) ** -4096, rel_eta=2.0 ** -26, decide_against=target)
    assert early.lower > arb(1) / 10**300                      # decided: NOT private (delta ~ 1.24e-300)
    assert early.upper - early.lower <= early.lower / 4096
    with working_precision(128):
        tight = sgg_profile_enclosure(*args)                   # relative width 1e-12, as the ladder's rung
    assert early.lower <= tight.upper() and tight.lower() <= early.upper


def test_calibration_c1_minus_half_large_T_stays_at_64_bits():
    """The cell sgg T=128 alpha=126 p=2 at (0.01, 1e-300): timeout (30 s; 31 s alone, 17 engine calls, the
    last four each 3.5 s of a stalled 64-bit rung plus 2 s at 128 bits) -> every call at 64 bits."""
    cert = certdp.calibrate("sgg", epsilon=str(EPS), delta=DELTA, sensitivity=1, rtol="1e-6",
                            dimension=128, alpha="126", power=2)
    assert cert.precision_bits == 64, cert.precision_bits
    assert cert.extra["evaluations"] <= 14, cert.extra["evaluations"]
    low, high = (Fraction(x) for x in cert.delta_enclosure)
    assert high <= Fraction(1, 10**300) and high - low <= low / 4096
    unsafe_low = Fraction(cert.extra["delta_enclosure_at_unsafe_end"][0])
    assert unsafe_low > Fraction(1, 10**300)


def test_tiny_shape_profile_with_a_large_delta_hint_is_finite_at_64_bits():
    """sgg T=3 alpha=-9/10 p=8 (k = 1/80) at eps = 50, rate 25.252724 (delta ~ 0.5): with the float hint
    ln delta ~ -0.69 the engine's tail cut left the A side at [+/- 0.94] (122 bins, stalled) at every rung and
    the (50, 0.5) cell timed out; the profile now retries without the hint (the engine's own cut).  The
    result must agree with the engine called without a hint on the exact rate (a different input path; the
    128- and 256-bit rungs stall at ~100 bins here: not analysed)."""
    from flint import arb

    from certdp.engines.radial import sgg_delta_enclosure
    from certdp.mechanisms.sgg import sgg_profile_enclosure
    from certdp.numbers import working_precision

    with working_precision(64):
        ball = sgg_profile_enclosure(3, Fraction(-9, 10), 8, arb("25.252724"), Fraction(50), Fraction(1))
    assert ball.is_finite() and ball.rad() < 1e-6 * ball.mid()
    with working_precision(64):
        ref = sgg_delta_enclosure(3, Fraction(-9, 10), Fraction(8), Fraction("25.252724"), Fraction(50), Fraction(1),
                                  eta=arb(2) ** -4000, rel_eta=2.0 ** -26)
    assert ball.overlaps(ref.as_ball())


# ----------------------------------------------------------------------------- the same shape at delta = 1e-12
def test_rate_candidate_exists_at_the_quadrature_floor_itself():
    """Fails before: at delta = 1e-12 exactly (the quadrature's floor, not below it) the candidate came from the
    float quadrature alone, whose root beta ~ 3e-963 (T = 5, alpha = -9/10, p = 8, eps = 0.01) is out of the
    double range: None, an exponential search from beta = 1 and 31 probes (34 s).  Now the scale-free limit
    is the fallback; delta there (the 50-digit reference) is the target to 1e-5."""
    from certdp.mechanisms.sgg import sgg_rate_candidate

    rate = sgg_rate_candidate(5, -0.9, 8.0, float(EPS), math.log(1e-12), 1.0)
    assert rate is not None
    ref = scale_free_delta(5, Fraction(-9, 10), 8, EPS, Fraction(str(rate)))
    assert abs(ref / mp.mpf("1e-12") - 1) < mp.mpf("1e-5"), ref


def test_calibration_alpha_near_minus_one_p8_at_the_quadrature_floor():
    """(T = 5, alpha = -9/10, p = 8) at (0.01, 1e-12): 31 engine calls before (no candidate), now the walk's
    first two points; the certified ends agree with the 50-digit reference (as in the 1e-300 test above)."""
    cert = certdp.calibrate("sgg", epsilon=str(EPS), delta="1e-12", sensitivity=1, rtol="1e-6",
                            dimension=5, alpha="-9/10", power=8)
    assert cert.extra["evaluations"] <= 4, cert.extra["evaluations"]
    lo, hi = (Fraction(x) for x in cert.interval)
    with mp.workdps(60):
        for rate, enclosure, private in ((lo, cert.delta_enclosure, True),
                                         (hi, cert.extra["delta_enclosure_at_unsafe_end"], False)):
            ref = scale_free_delta(5, Fraction(-9, 10), 8, EPS, rate)
            assert (ref <= mp.mpf("1e-12")) is private, (rate, ref)
            low, high = (mp.mpf(x) for x in enclosure)
            slack = mp.mpf("1e-30")
            assert low * (1 - slack) <= ref <= high * (1 + slack), (low, ref, high)


def test_layer_wider_than_the_old_neighbourhood_beyond_the_doubles_matches_scale_free_limit():
    """sgg T = 2, alpha = -7/10, p = 11/4 at (25, 1e-153) (a random in-domain cell that timed out): rate ~3e-1385,
    so ``z_s`` is beyond the doubles (layer mode) and the B layer around ``r = s`` ends at ``z_s (1 +- 1.13e-6)``,
    outside the old layer neighbourhood ``2^-20``: no Arb breakpoints at its ends, float guesses of the wrong
    class next to them, first-order bins, and a stall at ~5e-6 relative on every rung (each probe ~12 s,
    UNDECIDED).  The neighbourhood now covers 16 layer half-widths.  At ``z_s ~ 1e-1385`` the scale-free
    limit is exact to far below the width asked: the 64-bit enclosure (relative width 1e-7) contains it, and
    the calibration's ends fall on the right sides of 1e-153 by it."""
    from flint import arb

    from certdp.engines.radial import sgg_delta_enclosure
    from certdp.numbers import working_precision

    shape = (2, Fraction(-7, 10), Fraction(11, 4))
    rate = Fraction("3.1385393e-1385")
    ref = scale_free_delta(*shape, 25, rate)
    with working_precision(64):
        enc = sgg_delta_enclosure(*shape, arb(rate.numerator) / rate.denominator, 25, 1, eta=arb(2) ** -4000,
                                  rel_eta=1e-7)
    with mp.workdps(60):
        low = mp.mpf(enc.lower.lower().mid().str(40, radius=False))
        high = mp.mpf(enc.upper.upper().mid().str(40, radius=False))
        assert low * (1 - mp.mpf("1e-30")) <= ref <= high * (1 + mp.mpf("1e-30")), (low, ref, high)
        assert high - low <= mp.mpf("1e-7") * low * (1 + mp.mpf("1e-6"))
    cert = certdp.calibrate("sgg", epsilon="25", delta="1e-153", sensitivity=1, rtol="1e-6", dimension=2,
                            alpha="-7/10", power="11/4")
    lo, hi = (Fraction(x) for x in cert.interval)
    with mp.workdps(60):
        assert scale_free_delta(*shape, 25, lo) <= mp.mpf("1e-153") < scale_free_delta(*shape, 25, hi)


def test_scale_free_candidate_resolves_the_near_singular_layer_ends():
    """``_scale_free_rate`` at T = 128, alpha = -1/2, p = 8, (0.01, 1e-300): with |c1| ~ 64 the layers reach
    ``t ~ 1 / (1 - e^(-eps/(2|c1|)))`` ~ 1e4, so the integrands in ``c`` peak within ~1e-4 of ``c = +-1``; 96
    Gauss-Legendre nodes left the integral 3e-7 off (4e-6 at T = 1000: the candidate 6.7e-5 off in beta, and
    with delta ~ beta^(1/16) the walk crawled, 8 probes, 27 s for T = 1000).  With 512 nodes the candidate's
    delta by the 50-digit reference is within 1e-9 of the target (4e-13 here, 1.4e-11 at T = 1000)."""
    from certdp.mechanisms.sgg import _scale_free_rate

    rate = _scale_free_rate(128, -0.5, 8.0, 0.01, math.log(1e-300), 1.0)
    ref = scale_free_delta(128, Fraction(-1, 2), 8, EPS, Fraction(str(rate)))
    assert abs(ref / mp.mpf("1e-300") - 1) < mp.mpf("1e-9"), (rate, ref)
