"""Analytic Gaussian: certified calibration against independent 60-digit mpmath quadrature."""

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import certdp
from certdp.mechanisms import Gaussian
from certdp.numbers import parse_exact

from reference import gaussian_delta_closed_form, gaussian_delta_quadrature, mpf

EPSILONS = ["1e-3", "0.1", "1", "10", "50", "200"]
DELTAS = ["1e-300", "1e-100", "1e-12", "1e-5", "0.01", "0.25", "0.5"]


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("delta", DELTAS)
def test_calibration_grid_against_quadrature(epsilon, delta):
    """Issue 2 grid: the safe end is private and the other end is not, by independent quadrature."""
    cert = certdp.calibrate("gaussian", epsilon=epsilon, delta=delta, sensitivity=1)
    lo, hi = cert.interval
    assert cert.value == hi and cert.safe_side == "upper"
    assert (Fraction(hi) - Fraction(lo)) / Fraction(hi) <= Fraction(1, 10**12)
    d = mpf(delta)
    with mp.workdps(60):
        at_hi = gaussian_delta_quadrature(hi, epsilon)
        at_lo = gaussian_delta_quadrature(lo, epsilon)
        assert at_hi <= d < at_lo
        # the certified enclosure at the returned sigma contains the quadrature value
        enc_lo, enc_hi = (mpf(x) for x in cert.delta_enclosure)
        assert enc_lo <= at_hi <= enc_hi


@pytest.mark.parametrize("epsilon, delta", [("1", "1e-5000"), ("50", "1e-5000"), ("0.001", "1e-1000")])
def test_extreme_deltas_just_work(epsilon, delta):
    cert = certdp.calibrate("gaussian", epsilon=epsilon, delta=delta)
    with mp.workdps(80):
        assert gaussian_delta_closed_form(cert.interval[1], epsilon) <= mpf(delta)
        assert gaussian_delta_closed_form(cert.interval[0], epsilon) > mpf(delta)


def test_profile_enclosure_contains_quadrature_over_a_sweep():
    for sigma in ["0.05", "0.3", "1", "4.5", "30"]:
        for eps in ["0", "0.01", "1", "7.5"]:
            enc = Gaussian(sigma).privacy_profile(eps)
            ref = gaussian_delta_quadrature(sigma, eps)
            assert enc.contains(Fraction(mp.nstr(ref, 40))) or (
                mpf(enc.lower) <= ref <= mpf(enc.upper)), (sigma, eps)
            assert enc.upper - enc.lower <= enc.upper * Fraction(1, 10**11)


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=1e-3, max_value=100), st.floats(min_value=-200, max_value=-0.7),
       st.floats(min_value=0.1, max_value=10))
def test_safety_and_tightness_property(epsilon, log10_delta, sensitivity):
    delta = f"{10 ** log10_delta:.6g}"
    eps, sens = repr(epsilon), repr(sensitivity)
    cert = certdp.calibrate("gaussian", epsilon=eps, delta=delta, sensitivity=sens)
    lo, hi = cert.interval
    with mp.workdps(60):
        assert gaussian_delta_closed_form(hi, eps, sens) <= mpf(delta)
        assert gaussian_delta_closed_form(lo, eps, sens) > mpf(delta)


@settings(max_examples=30, deadline=None)
@given(st.floats(min_value=0.01, max_value=50), st.floats(min_value=0.01, max_value=20))
def test_profile_is_decreasing_in_sigma(sigma, epsilon):
    smaller = Gaussian(repr(sigma)).privacy_profile(repr(epsilon))
    larger = Gaussian(repr(sigma * 1.001)).privacy_profile(repr(epsilon))
    # Away from saturation (delta ~ 1 - 1e-20) and underflow, a 0.1% step in sigma is resolved.
    assume(Fraction(1, 10**300) < smaller.upper < Fraction(999, 1000))
    assert larger.upper < smaller.lower


def test_scale_invariance_sigma_proportional_to_sensitivity():
    a = certdp.calibrate("gaussian", epsilon="0.7", delta="1e-6", sensitivity=1)
    b = certdp.calibrate("gaussian", epsilon="0.7", delta="1e-6", sensitivity=3)
    assert Fraction(a.interval[0]) * 3 <= Fraction(b.interval[1])
    assert Fraction(b.interval[0]) <= Fraction(a.interval[1]) * 3


def test_seed004_table2_gaussian_scale():
    """Seed 004 Table 2, (eps, delta, Delta) = (1, 0.01, 3): GGM p = 2 scale b = sigma sqrt 2 = 7.97."""
    cert = certdp.calibrate("gaussian", epsilon=1, delta="0.01", sensitivity=3)
    b = float(cert.value) * 2 ** 0.5
    assert round(b, 2) == 7.97
    assert round(b ** 2 / 2, 2) == pytest.approx(31.74, abs=0.01)  # L2 = E X^2 = sigma^2


def test_exact_input_decimal_not_binary():
    """epsilon=0.1 means one tenth: certificates record the exact value."""
    cert = certdp.calibrate("gaussian", epsilon=0.1, delta="1e-5")
    assert cert.inputs["epsilon"] == "0.1" and parse_exact(cert.inputs["epsilon"], "e") == Fraction(1, 10)


def test_moments_and_sampler():
    g = Gaussian("2.5", dimension=1)
    assert abs(float(g.mean_abs().mid()) - 2.5 * (2 / np.pi) ** 0.5) < 1e-14
    assert float(g.mean_square().mid()) == pytest.approx(6.25, rel=1e-15)
    rng = np.random.default_rng(2026)
    x = g.sample(200_000, rng)
    # E X^2 = 6.25 with Var(X^2) = 2 sigma^4 = 78.125; a 5.3-sigma band has false-alarm rate < 1.2e-7.
    assert abs(np.mean(x ** 2) - 6.25) < 5.3 * (78.125 / 200_000) ** 0.5
    g3 = Gaussian("1", dimension=3)
    # E||X|| = sqrt(2) Gamma(2)/Gamma(3/2) = 2 sqrt(2/pi)
    assert float(g3.mean_abs().mid()) == pytest.approx(2 * (2 / np.pi) ** 0.5, rel=1e-14)
    assert g3.sample(5, rng).shape == (5, 3)


@pytest.mark.parametrize("sigma, eps", [("3.7306316348169", "1"), ("36664.470095441", "0.001"),
                                        ("0.197601278988", "200"), ("0.05", "0.01"), ("3.0365554990541", "50")])
def test_independent_quadrature_path_agrees_with_closed_form_and_mpmath(sigma, eps):
    from flint import arb

    from certdp.engines.hockey_stick_integral import gaussian_profile_by_integration
    from certdp.numbers import Enclosure, arb_of, working_precision

    with working_precision(128):
        integral = gaussian_profile_by_integration(arb_of(sigma), arb_of(eps), arb(1))
        closed = Gaussian.profile_ball(arb_of(sigma), arb_of(eps))
        assert integral.overlaps(closed) and integral.rel_accuracy_bits() > 60
        enc = Enclosure.from_arb(integral)
    ref = gaussian_delta_closed_form(sigma, eps)
    assert mpf(enc.lower) <= ref <= mpf(enc.upper)


def test_verify_uses_the_independent_path():
    cert = certdp.calibrate("gaussian", epsilon="2", delta="1e-9")
    result = certdp.verify(cert.to_json())
    assert result.status == "VALID" and any("independent path" in r for r in result.reasons)
