"""GGM mechanism: identities, paper numbers (seed 004 Table 2), moments, sampler, inputs."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from flint import arb

from certdp.mechanisms import GeneralizedGaussian, get_mechanism
from certdp.mechanisms.gaussian import Gaussian
from certdp.numbers import InputError, arb_of, working_precision
from certdp.workflows.calibrate import calibrate


def _inside(x: arb, lo: arb, hi: arb) -> bool:
    return arb(x.lower()) >= arb(lo.lower()) and arb(x.upper()) <= arb(hi.upper())


def test_registered():
    assert get_mechanism("ggm") is GeneralizedGaussian


@pytest.mark.parametrize("b,eps", [("7.97", "1"), ("2", "0.5"), ("20", "3")])
def test_p2_equals_gaussian_sigma_b_over_sqrt2(b, eps):
    """p = 2 through the monotone-loss engine == analytic Gaussian with sigma = b/sqrt(2)."""
    with working_precision(128):
        from certdp.engines.monotone_loss import delta_enclosure

        engine = delta_enclosure(arb(2), arb_of(b), arb_of(eps), arb(3))
        gauss = Gaussian.profile_ball(arb_of(b) / arb(2).sqrt(), arb_of(eps), sensitivity=Fraction(3))
        assert engine.overlaps(gauss)
        assert abs(engine - gauss) < arb(10) ** -30


def test_table2_scales_certified():
    """Seed 004 Table 2, (eps, delta, Delta) = (1, 0.01, 3): Laplace 2.94, Gaussian 7.97, uniform 150."""
    for shape, printed in (("1", "2.94"), ("2", "7.97"), ("inf", "150.00"), ("1.0649", "3.19")):
        cert = calibrate("ggm", epsilon=1, delta="0.01", shape=shape, sensitivity=3)
        lo, hi = cert.interval
        assert round(float(lo), 2) == float(printed) and round(float(hi), 2) == float(printed)
    # L2 column: 17.30 (Laplace), 31.74 (Gaussian), 7500 (uniform), 16.71 (p = 1.0649)
    for shape, printed in (("1", "17.30"), ("2", "31.74"), ("inf", "7500.00"), ("1.0649", "16.71")):
        cert = calibrate("ggm", epsilon=1, delta="0.01", shape=shape, sensitivity=3)
        mech = GeneralizedGaussian(cert.value, shape=shape, sensitivity=3)
        assert f"{float(mech.absolute_moment(2).mid()):.2f}" == printed


def test_gaussian_calibration_matches():
    g = calibrate("gaussian", epsilon=1, delta="0.01", sensitivity=3)
    m = calibrate("ggm", epsilon=1, delta="0.01", shape=2, sensitivity=3)
    # b = sqrt(2) sigma, both brackets certified: the intervals must be consistent
    s_lo, s_hi = (Fraction(x) for x in g.interval)
    b_lo, b_hi = (Fraction(x) for x in m.interval)
    assert b_lo ** 2 < 2 * s_hi ** 2 and 2 * s_lo ** 2 < b_hi ** 2


def test_single_active_coordinate_equals_1d():
    """Prop. 5.1: Delta = (3, 0, 0) gives exactly the 1-D problem."""
    one = GeneralizedGaussian("4", shape="1.5", sensitivity=3).privacy_profile(1)
    vec = GeneralizedGaussian("4", shape="1.5", sensitivity="3,0,0").privacy_profile(1)
    assert one.lower == vec.lower and one.upper == vec.upper


def test_uniform_vector_closed_form():
    enc = GeneralizedGaussian("10", shape="inf", sensitivity="1,2").privacy_profile("0.5")
    exact = 1 - (1 - Fraction(1, 20)) * (1 - Fraction(2, 20))
    assert Fraction(enc.lower) <= exact <= Fraction(enc.upper)


def test_gaussian_vector_uses_l2_norm():
    enc = GeneralizedGaussian("5", shape=2, sensitivity="3,4").privacy_profile(1)
    one = GeneralizedGaussian("5", shape=2, sensitivity=5).privacy_profile(1)
    assert enc.lower == one.lower


@pytest.mark.parametrize("p", ["1", "1.5", "2", "3.7", "inf"])
def test_moments_against_quadrature(p):
    mech = GeneralizedGaussian("1.7", shape=p, sensitivity=1)
    b = mp.mpf("1.7")
    mp.mp.dps = 50
    if p == "inf":
        ref2 = b**2 / 3
    else:
        pp = mp.mpf(p)
        dens = lambda x: pp / (2 * b * mp.gamma(1 / pp)) * mp.exp(-(abs(x) / b) ** pp)
        ref2 = 2 * mp.quad(lambda x: x**2 * dens(x), [0, b, 10 * b, mp.inf])
    got = mech.absolute_moment(2)
    assert abs(float(got.mid()) - float(ref2)) < 1e-13 * float(ref2)


@pytest.mark.parametrize("p", ["1.2", "2", "4", "inf"])
def test_sampler_second_moment(p):
    """Sample mean of X^2 within 6 standard errors of b^2 M_2(p) (false alarm < 1e-8)."""
    mech = GeneralizedGaussian("2", shape=p, sensitivity=1)
    rng = np.random.default_rng(12345)
    x = mech.sample(200_000, rng)
    target = float(mech.absolute_moment(2).mid())
    se = np.std(x**2) / np.sqrt(x.size)
    assert abs(np.mean(x**2) - target) < 6 * se


def test_bad_inputs():
    with pytest.raises(InputError) as e:
        GeneralizedGaussian("1", shape="0.5")
    assert e.value.parameter == "shape"
    with pytest.raises(InputError) as e:
        GeneralizedGaussian("1", shape="2", sensitivity="1,-2")
    assert e.value.parameter == "sensitivity"
    with pytest.raises(InputError):
        GeneralizedGaussian("1", shape="nan")
    with pytest.raises(InputError):
        GeneralizedGaussian("-1", shape="2")


def test_log_moment_factor_matches_generated_shape_factor():
    from certdp.mechanisms.generalized_gaussian import log_moment_factor, moment_factor

    with working_precision(128):
        for p in ("1", "1.0649", "2", "7.5"):
            a = log_moment_factor(arb_of(p), 2).exp()
            b = moment_factor(arb_of(p), 2)
            assert a.overlaps(b) and abs(a - b) < arb(10) ** -30
        assert moment_factor(float("inf"), 2).overlaps(arb(1) / 3)
