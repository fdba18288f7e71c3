"""Alg. 5 shape search: float search + certified final answer (small, fast instance)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from certdp.workflows.sgg_parameter_search import float_mse, optimize_sgg


def test_float_mse_gaussian_member_matches_gaussian():
    import math

    from certdp.mechanisms.gaussian import Gaussian

    mse, beta = float_mse(5, 4.0, 2.0, 1.0, 1e-5)
    sigma = Gaussian.float_candidate(1.0, math.log(1e-5), sensitivity=Fraction(1))
    assert abs(mse / (5 * sigma * sigma) - 1) < 1e-4   # float quadrature of Lemma 4.1: ~1e-5 accurate


@pytest.mark.slow
def test_optimize_sgg_certifies_its_answer():
    res = optimize_sgg(3, "1", "1e-2", maxfev=12, baselines=False)
    cert = res.certificate
    assert cert is not None and cert.mechanism == "sgg" and cert.safe_side == "lower"
    assert Fraction(cert.delta_enclosure[1]) <= Fraction(1, 100)
    assert Fraction(cert.parameters["alpha"]) == res.alpha
    lo, hi = (float(x) for x in res.mse_enclosure)
    assert lo <= hi and abs(lo / res.estimate.mse - 1) < 0.05
    # the search beats (or matches) the Gaussian member it started from
    g = float_mse(3, 2.0, 2.0, 1.0, 1e-2)[0]
    assert res.estimate.mse <= g * (1 + 1e-6)
