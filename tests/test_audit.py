"""Audits: verdicts against independent mpmath values; the classic Gaussian claim fails for large eps."""

import mpmath as mp
import pytest

import certdp
from certdp.numbers import InputError

from reference import gaussian_delta_quadrature, mpf


def _classic_sigma(eps, delta):
    with mp.workdps(60):
        return mp.sqrt(2 * mp.log(mp.mpf(5) / 4 / mpf(delta))) / mpf(eps)


@pytest.mark.parametrize("eps, delta, expected", [
    ("0.5", "1e-5", "VALID"), ("1", "1e-5", "VALID"), ("5", "1e-5", "VALID"),
    ("10", "1e-5", "VIOLATED"), ("20", "0.01", "VIOLATED"), ("200", "1e-300", "VIOLATED"),
])
def test_classic_gaussian_claim(eps, delta, expected):
    cert = certdp.audit("classic-gaussian", epsilon=eps, delta=delta)
    assert cert.verdict == expected
    with mp.workdps(60):
        sigma = _classic_sigma(eps, delta)
        true_delta = gaussian_delta_quadrature(mp.nstr(sigma, 55), eps)
        assert (true_delta <= mpf(delta)) == (expected == "VALID")
        lo, hi = (mpf(x) for x in cert.delta_enclosure)
        assert lo * (1 - mp.mpf(10) ** -40) <= true_delta <= hi * (1 + mp.mpf(10) ** -40)


def test_audit_given_sigma_both_sides_of_the_optimum():
    cert = certdp.calibrate("gaussian", epsilon=1, delta="1e-5")
    assert certdp.audit("gaussian", value=str(cert.interval[1]), epsilon=1, delta="1e-5").verdict == "VALID"
    assert certdp.audit("gaussian", value=str(cert.interval[0]), epsilon=1, delta="1e-5").verdict == "VIOLATED"


def test_audit_needs_a_value_for_a_mechanism():
    with pytest.raises(InputError):
        certdp.audit("gaussian", epsilon=1, delta="1e-5")


def test_classic_gaussian_failure_threshold_is_located_and_independently_confirmed():
    from certdp.workflows.audit import claim_failure_bracket

    result = claim_failure_bracket("classic-gaussian", delta="1e-5", rtol="1e-5")
    a, b = result["epsilon_valid"], result["epsilon_violated"]
    assert 8.4 < float(a) < float(b) < 8.45
    with mp.workdps(60):
        for eps, private in ((a, True), (b, False)):
            sigma = _classic_sigma(eps, "1e-5")
            true_delta = gaussian_delta_quadrature(mp.nstr(sigma, 55), eps)
            assert (true_delta <= mpf("1e-5")) == private
