"""Multi-Gaussian (seed 000 Sec. 3): moments, sampler, K = 0 == Gaussian, zCDP composition."""

from __future__ import annotations

import math

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb

from certdp.mechanisms import get_mechanism
from certdp.mechanisms.gaussian import Gaussian
from certdp.mechanisms.multi_gaussian import MultiGaussian
from certdp.numbers import InputError, working_precision
from certdp.workflows.mixtures import zcdp_composition

mpmath.mp.dps = 50


@pytest.fixture(autouse=True)
def _fifty_digits():
    """Other test modules change mpmath's global precision: pin 50 digits for every test here."""
    with mpmath.workdps(50):
        yield


def _inside(ball: arb, x) -> bool:
    lo = mpmath.mpf(ball.lower().str(45, radius=False))
    hi = mpmath.mpf(ball.upper().str(45, radius=False))
    return lo - mpmath.mpf("1e-40") <= x <= hi + mpmath.mpf("1e-40")


def test_registered_and_bad_components():
    assert get_mechanism("multi-gaussian") is MultiGaussian
    with pytest.raises(InputError):
        MultiGaussian("1", components=-1)


@pytest.mark.parametrize("sigma,eps,k", [("0.3", "1", 2), ("0.8", "0.5", 4)])
def test_closed_form_moments_match_quadrature(sigma, eps, k):
    s, e = mpmath.mpf(sigma), mpmath.mpf(eps)
    ws = [mpmath.e ** (-abs(j) * e) for j in range(-k, k + 1)]
    z = sum(ws)
    f = lambda x: sum(w * mpmath.npdf(x, j, s) for w, j in zip(ws, range(-k, k + 1))) / z  # noqa: E731
    pts = [-k - 30 * s] + list(range(-k, k + 1)) + [k + 30 * s]
    m1 = mpmath.quad(lambda x: abs(x) * f(x), pts)
    m2 = mpmath.quad(lambda x: x * x * f(x), pts)
    with working_precision(160):
        m = MultiGaussian(sigma, components=k, shape_epsilon=eps)
        assert _inside(m.mean_abs(), m1)
        assert _inside(m.mean_square(), m2)


def test_sampler_moments():
    m = MultiGaussian("0.3", components=3, shape_epsilon="1")
    x = m.sample(200_000, np.random.default_rng(11))
    with working_precision(64):
        m2 = float(m.mean_square())
    assert abs(np.mean(x * x) - m2) < 5 * np.std(x * x) / math.sqrt(x.size)


@pytest.mark.parametrize("sigma,eps", [("0.7", "1"), ("2", "0.25")])
def test_k0_profile_equals_gaussian(sigma, eps):
    with working_precision(128):
        mg = MultiGaussian.profile_ball(arb(sigma), arb(eps), components=0, rel_tol=1e-12)
        g = Gaussian.profile_ball(arb(sigma), arb(eps))
        assert mg.overlaps(g)
        assert float(mg.rad()) < 1e-10 * float(g.mid())


def test_monotone_in_sigma_lemma_3_4():
    with working_precision(128):
        vals = [MultiGaussian.profile_ball(arb(s), arb(1), components=1, rel_tol=1e-8) for s in ("0.5", "0.6", "0.7")]
        assert vals[0] > vals[1] > vals[2]


def test_zcdp_composition():
    out = zcdp_composition(["1", "2"], ["1", "1"], "1e-5")
    rho = mpmath.mpf(1) / 2 + mpmath.mpf(1) / 8
    assert out["rho_total"] == "0.625"
    eps = rho + 2 * mpmath.sqrt(rho * mpmath.log(mpmath.mpf(10) ** 5))
    lo, hi = out["standard"]["formula_enclosure"]
    assert mpmath.mpf(lo) <= eps <= mpmath.mpf(hi) == mpmath.mpf(out["standard"]["epsilon_upper"])
    assert mpmath.mpf(out["epsilon_total_upper"]) <= eps


def _cks_mp(rho, delta, alpha):
    """CKS 2020 Cor. 13 at one alpha, 50 digits, written from delta = e^((a-1)(a rho - eps)) (1-1/a)^a / (a-1)."""
    a = mpmath.mpf(alpha.numerator) / alpha.denominator
    return a * rho + (mpmath.log(1 / delta) + a * mpmath.log(1 - 1 / a) - mpmath.log(a - 1)) / (a - 1)


def _gdp_epsilon_mp(mu, delta):
    def gdp(e):
        return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2) - delta
    lo, hi = mpmath.mpf(0), mpmath.mpf(200)
    for _ in range(250):  # bisection: delta(eps) of mu-GDP is decreasing
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gdp(mid) > 0 else (lo, mid)
    return lo


@pytest.mark.parametrize("sigmas, delta", [(["1"], "1e-5"), (["2", "3"], "1e-6"), (["0.5"], "1e-3"),
                                           (["10"] * 50, "1e-10"), (["1.3", "0.9"], "1e-12")])
def test_zcdp_cks_certified_against_mpmath_and_gdp(sigmas, delta):
    from certdp.workflows.mixtures.zcdp import cks_alpha

    out = zcdp_composition(sigmas, ["1"] * len(sigmas), delta)
    with mpmath.workdps(50):
        rho = sum(1 / (2 * mpmath.mpf(s) ** 2) for s in sigmas)
        d = mpmath.mpf(delta)
        alpha = Fraction(out["cks"]["alpha"])
        assert alpha == cks_alpha(Fraction(out["rho_total"]), Fraction(delta))
        ref = _cks_mp(rho, d, alpha)
        cks_up = mpmath.mpf(out["cks"]["epsilon_upper"])
        assert ref <= cks_up <= ref * (1 + mpmath.mpf("1e-18"))
        # the certified eps satisfies the CKS inequality: the delta at (alpha, eps) is <= delta
        a = mpmath.mpf(alpha.numerator) / alpha.denominator
        assert mpmath.exp((a - 1) * (a * rho - cks_up)) / (a - 1) * (1 - 1 / a) ** a <= d
        # near-optimal alpha: within 1e-9 of the infimum over alpha (mpmath minimisation)
        def eps_u(u):  # the CKS epsilon at alpha = 1 + e^u, directly in mpmath
            am1 = mpmath.exp(u)
            return (1 + am1) * rho + (mpmath.log(1 / d) + (1 + am1) * mpmath.log(am1 / (1 + am1)) - u) / am1

        lo, hi = mpmath.mpf(-30), mpmath.mpf(30)
        for _ in range(300):  # golden section in 50 digits (eps is unimodal in u)
            m1, m2 = lo + (hi - lo) * mpmath.mpf("0.381966"), lo + (hi - lo) * mpmath.mpf("0.618034")
            lo, hi = (lo, m2) if eps_u(m1) <= eps_u(m2) else (m1, hi)
        inf_eps = eps_u((lo + hi) / 2)
        assert inf_eps <= cks_up <= inf_eps * (1 + mpmath.mpf("1e-9"))
        # CKS <= standard; both >= the exact GDP epsilon of the same Gaussians (rho = mu^2/2)
        standard = rho + 2 * mpmath.sqrt(rho * mpmath.log(1 / d))
        assert cks_up <= standard
        assert mpmath.mpf(out["epsilon_total_upper"]) == cks_up
        gdp = _gdp_epsilon_mp(mpmath.sqrt(2 * rho), d)
        assert gdp <= cks_up <= standard
