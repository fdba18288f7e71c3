"""The foundation mechanisms take their closed forms from the generated (SymPy-derived) evaluators."""

from fractions import Fraction

import pytest
from flint import arb

from certdp.engines.closed_form import laplace_profile
from certdp.generated import arb_laplace
from certdp.mechanisms import Gaussian, Laplace, Uniform
from certdp.numbers import arb_of, working_precision


@pytest.mark.parametrize("scale, eps", [("0.5", "1"), ("2", "0.4"), ("3", "0.1"), ("0.2", "3")])
def test_laplace_expm1_form_equals_generated_formula(scale, eps):
    with working_precision(128):
        ours = laplace_profile(arb_of(scale), arb_of(eps), arb(1))
        generated = arb_laplace.privacy_profile(arb_of(eps), arb(1), arb_of(scale))
        assert ours.overlaps(generated)
        assert ours.rad() <= generated.rad() + arb(2) ** -120


def test_moments_come_from_generated_evaluators():
    with working_precision(128):
        assert Gaussian("2").mean_square().overlaps(arb(4))
        assert Gaussian("1", dimension=2).mean_abs().overlaps((arb.pi() / 2).sqrt())  # Rayleigh mean
        assert Laplace("3").mean_square().overlaps(arb(18))
        assert Uniform("3").mean_abs().overlaps(arb(3) / 2)


def test_laplace_tiny_delta_needs_no_escalation():
    """The expm1 form certifies delta = 1e-300 at 64 bits (1 - exp would need ~1000 bits)."""
    import certdp

    cert = certdp.calibrate("laplace", epsilon="1", delta="1e-300")
    assert cert.precision_bits == 64
    assert Fraction(cert.interval[0]) < Fraction(cert.interval[1])
