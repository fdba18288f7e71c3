"""Multi-Gaussian calibration at tiny delta (branch ``mix``): the grid size of Alg. 1, the engine's
window and the witness check, against independent mpmath values."""

from __future__ import annotations

import warnings

import mpmath
import pytest
from flint import arb

from certdp.workflows.mixtures.mg_alg1 import mg_grid_step
from certdp.numbers.precision import working_precision


@pytest.mark.parametrize("delta, bits", [("1e-12", 64), ("1e-30", 128), ("1e-300", 1100)])
def test_grid_step_is_exact_ceiling_at_tiny_delta(delta, bits):
    # N = ceil(Delta / (sqrt(2 pi) eta sigma delta)) needs log2 N > 53 bits: float candidates fail there
    with working_precision(bits):
        n = mg_grid_step(arb(1106612) / 100000, (arb(delta), arb("0.01")), arb(1))
    with mpmath.workdps(400):
        q = 1 / (mpmath.sqrt(2 * mpmath.pi) * mpmath.mpf("0.01") * mpmath.mpf(1106612) / 100000 * mpmath.mpf(delta))
        assert n == int(mpmath.ceil(q))


def _mg1_h_at_delta_shift(sigma: mpmath.mpf, eps: int = 1) -> mpmath.mpf:
    """H(Delta) for MG(sigma, K = 1), Delta = 1, in mpmath: the one root r of
    ``f(x + 1) = e^eps f(x)`` (f > e^eps f(. - 1) to its left), then ``F(r + 1) - e^eps F(r)``."""
    ks = (-1, 0, 1)
    z = sum(mpmath.exp(-abs(k) * eps) for k in ks)
    w = [mpmath.exp(-abs(k) * eps) / z for k in ks]

    def dens(x):
        return sum(wk * mpmath.npdf(x, k, sigma) for wk, k in zip(w, ks))

    def cdf(x):
        return sum(wk * mpmath.ncdf(x, k, sigma) for wk, k in zip(w, ks))

    g = lambda x: mpmath.log(dens(x + 1)) - eps - mpmath.log(dens(x))
    lo, hi = -80 * sigma, mpmath.mpf(0)
    assert g(lo) > 0 > g(hi)
    for _ in range(400):  # bisection: g has one sign change on [lo, 0]
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if g(mid) > 0 else (lo, mid)
    return cdf(hi + 1) - mpmath.exp(eps) * cdf(hi)


@pytest.mark.parametrize("delta", ["1e-30", "1e-300"])
def test_multi_gaussian_k1_tiny_delta_brackets_mpmath_and_verifies(delta):
    import certdp
    from certdp.workflows.verify import verify

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no float overflow to inf / nan on the way
        cert = certdp.calibrate("multi-gaussian", epsilon=1, delta=delta, sensitivity=1, components=1, rtol="1e-6")
    lo, hi = cert.interval
    target = mpmath.mpf("0.99") * mpmath.mpf(delta)
    with mpmath.workdps(60):
        # the unsafe end's witness is the grid shift Delta; the safe end bounds H at every shift
        assert _mg1_h_at_delta_shift(mpmath.mpf(str(lo))) > target
        assert _mg1_h_at_delta_shift(mpmath.mpf(str(hi))) <= target
    assert verify(cert).status == "VALID"


def test_a_witness_grid_beyond_2_4096_steps_is_refused_at_once():
    """verify sizes its precision by log2 N: a forged N of 2^5000 steps is INVALID before any work."""
    import json

    import certdp
    from certdp.certificate import Certificate

    cert = certdp.calibrate("multi-gaussian", epsilon=1, delta="1e-12", sensitivity=1, components=1, rtol="1e-6")
    assert certdp.verify(cert.to_json()).status == "VALID"
    data = json.loads(cert.to_json())
    witness = data["extra"]["unsafe_end_witness"]
    witness["grid_size"], witness["grid_index"] = 2**5000, 2**4999
    witness["shift"] = f"{2**4999}/{2**5000} * Delta"
    forged = Certificate.from_dict(data)
    forged.guarantee = forged.statement()
    result = certdp.verify(forged.seal().to_json())
    assert result.status == "INVALID" and any("2^4096" in r for r in result.reasons), result.reasons
