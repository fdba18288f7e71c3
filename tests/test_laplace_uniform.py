"""Laplace and uniform: closed forms checked by quadrature and exact inverses."""

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

import certdp
from certdp.mechanisms import Laplace, Uniform

from reference import laplace_delta_quadrature, laplace_scale_exact, mpf


@pytest.mark.parametrize("scale, eps", [("0.5", "1"), ("2", "0.4"), ("3", "0.1"), ("10", "0.05"), ("1", "0.999")])
def test_laplace_profile_against_quadrature(scale, eps):
    enc = Laplace(scale).privacy_profile(eps)
    ref = laplace_delta_quadrature(scale, eps)
    assert mpf(enc.lower) <= ref <= mpf(enc.upper)


@pytest.mark.parametrize("eps, delta", [("1", "0.01"), ("0.1", "1e-5"), ("5", "1e-300"), ("0.01", "0.5")])
def test_laplace_calibration_contains_exact_inverse(eps, delta):
    cert = certdp.calibrate("laplace", epsilon=eps, delta=delta, sensitivity=3)
    with mp.workdps(60):
        exact = laplace_scale_exact(eps, delta, 3)
        assert mpf(cert.interval[0]) < exact <= mpf(cert.interval[1])


def test_seed004_table2_laplace_and_uniform():
    """Seed 004 Table 2, (1, 0.01, 3): Laplace b = 2.94 (L2 = 17.30), uniform b = 150 (L2 = 7500)."""
    lap = certdp.calibrate("laplace", epsilon=1, delta="0.01", sensitivity=3)
    assert round(float(lap.value), 2) == 2.94
    assert round(2 * float(lap.value) ** 2, 2) == 17.30
    uni = certdp.calibrate("uniform", epsilon=1, delta="0.01", sensitivity=3)
    assert Fraction(uni.interval[0]) < 150 <= Fraction(uni.interval[1])
    assert round(float(uni.value) ** 2 / 3) == 7500


def test_laplace_pure_dp_is_exact():
    cert = certdp.calibrate("laplace", epsilon="0.3", delta=0, sensitivity=1)
    assert Fraction(cert.value) >= Fraction(10, 3) > Fraction(cert.interval[0])
    assert cert.extra["exact_minimum"] == "10/3"
    assert certdp.verify(cert.to_json()).status == "VALID"


def test_uniform_profile_ignores_epsilon_and_caps_at_one():
    assert Uniform("100", sensitivity=1).privacy_profile("0.1").contains(Fraction(1, 200))
    assert Uniform("100", sensitivity=1).privacy_profile("50").contains(Fraction(1, 200))
    assert Uniform("0.1", sensitivity=1).privacy_profile("1").contains(1)


def test_moments_and_samplers():
    rng = np.random.default_rng(7)
    lap = Laplace("2")
    assert float(lap.mean_abs().mid()) == 2 and float(lap.mean_square().mid()) == 8
    x = lap.sample(200_000, rng)
    # |X| ~ Exp(b): mean 2, variance 4; 5.3-sigma band (false-alarm < 1.2e-7)
    assert abs(np.mean(np.abs(x)) - 2) < 5.3 * (4 / 200_000) ** 0.5
    uni = Uniform("3")
    assert float(uni.mean_abs().mid()) == 1.5 and float(uni.mean_square().mid()) == pytest.approx(3)
    u = uni.sample(200_000, rng)
    assert np.all(np.abs(u) <= 3)
    # X^2 for U(-3,3): mean 3, variance 81/5 - 9 = 7.2
    assert abs(np.mean(u ** 2) - 3) < 5.3 * (7.2 / 200_000) ** 0.5
