"""Float guides (:mod:`certdp.engines.gaussian_mixture.float_guide`) against mpmath: they never decide,
but a wrong guide costs time or (before the retry) a bad candidate.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from mg_reference import sixty_digits, _q, _mp, lobe_reference, ref_h  # noqa: F401  (sixty_digits: autouse fixture)


@pytest.mark.parametrize("sigma,eps,K,phi", [
    ("0.35", "0.75", 10, "0.73"), ("0.2", "3", 10, "0.37"), ("0.8", "1", 2, "0.99"), ("1.5", "2", 5, "0.5"),
    # a run of width ~2e-3 (sigma / 90) next to x = -0.93, inside one cell of the root grid: it holds
    # almost all of H = 1.05e-7 (the guide without the cell resampling gave 1.7e-8)
    ("0.1847359", "10", 10, "0.925"),
])
def test_float_hockey_stick_and_slope_match_mpmath(sigma, eps, K, phi):
    """The float guide's ``(H, H')`` (roots by Newton, CDF sums, ``H' = sum f(b + phi) - f(a + phi)``)
    against the mpmath reference: ``H`` to 1e-9 relative, ``H'`` against a central difference of
    the 60-digit ``H`` (step 1e-6, error about 1e-12 times the third derivative)."""
    from certdp.engines.gaussian_mixture.float_guide import mg_components, mixture_hockey_stick_and_slope_float

    means, logw = mg_components(float(eps), K, 1.0)
    h, slope = mixture_hockey_stick_and_slope_float(means, logw, float(sigma), float(eps), float(phi))
    ref = ref_h(sigma, eps, K, phi)
    assert abs(h - ref) <= 1e-9 * ref, (h, ref)
    step = Fraction(1, 10**6)
    ref_slope = (ref_h(sigma, eps, K, _q(phi) + step) - ref_h(sigma, eps, K, _q(phi) - step)) / (2 * _mp(step))
    assert abs(slope - ref_slope) <= 1e-6 * abs(ref_slope) + 1e-12, (slope, ref_slope)


def test_float_shift_argmax_finds_the_higher_of_two_peaks_in_one_cell():
    """MG(0.2334693, K = 10, eps = 5): ``H`` has two local maxima between the grid shifts 7/8 and 15/16
    (4.95e-5 at 0.8834, 1.23e-5 at 0.919). The float search must return the higher one (Brent on
    ``H'`` over the whole cell found the lower one, and the guide fell back to ``H(7/8) = 3.9e-5``):
    its value is the 60-digit ``H`` at its argmax and at least the reference ``H(0.8834)``."""
    from certdp.engines.gaussian_mixture.float_guide import mg_profile_float

    value, arg = mg_profile_float(0.2334693, 5.0, 10, 1.0)
    assert abs(value - ref_h("0.2334693", "5", 10, Fraction(arg))) <= 1e-9 * value
    assert value >= ref_h("0.2334693", "5", 10, "0.8834") * (1 - 1e-9), (value, arg)


def test_float_profile_sees_a_peak_next_to_the_tied_shift():
    """MG K = 5 at eps 10, sigma 0.186813: H is ~1.5e-22 up to 0.984 Delta, then a peak of 2.44e-11 at
    0.992 Delta (mpmath below), and the tied value 1.9e-22 at Delta. The guide's slopes stopped at 63/64
    Delta before stop 29 and it returned the tied value 1.9e-22 (its sigma for (10, 1e-12) was then
    2.5e-4 low, a factor 17 in delta); now its sup holds the 60-digit peak to 1e-6."""
    from certdp.engines.gaussian_mixture.float_guide import mg_profile_float

    sup, arg = mg_profile_float(0.186813, 10.0, 5)
    assert 0.99 < arg < 0.994, arg
    ref = max(ref_h("0.186813", "10", 5, Fraction(round(arg * 2**20), 2**20) + Fraction(k, 2**12)) for k in (-1, 0, 1))
    assert abs(sup - ref) <= 1e-6 * ref, (sup, float(ref))
    assert ref_h("0.186813", "10", 5, 1) < 1e-20  # the tied shift itself is far below the peak


def test_float_hockey_stick_sees_the_thin_lobes_next_to_the_tie():
    """MG K = 30 at eps 1, sigma 0.35894986, phi = 1 - 5/4096: ``H`` is carried by ~30 runs of ``D``
    ~1e-3 wide (mass ~9e-13) that no root-grid cell holds a sign change of; the float estimate finds
    them at the maxima of the log-ratio inside cells and matches the independent 50-digit reference
    to 1e-4 (the CDF sums cancel to ~1e-9 of their terms; it saw only the end component, ~4e-14,
    before stop 32)."""
    from certdp.engines.gaussian_mixture.float_guide import mg_components, mixture_hockey_stick_float

    h = Fraction(5, 4096)
    ref = lobe_reference("0.35894986", 30, h)
    means, logw = mg_components(1.0, 30, 1.0)
    got = mixture_hockey_stick_float(means, logw, 0.35894986, 1.0, float(1 - h))
    assert abs(got - float(ref)) <= 1e-4 * float(ref)
