"""Exact Gaussian-mixture engine against independent 50-digit mpmath computations."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from flint import arb

from certdp.engines.gaussian_mixture import (
    Component,
    GaussianMixture,
    hockey_stick_at_shift,
    privacy_profile_sup,
    shift_tv_bound,
)
from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
from certdp.mechanisms.quasi_gaussian import quasi_gaussian_mixture
from certdp.numbers import working_precision

mpmath.mp.dps = 50


@pytest.fixture(autouse=True)
def _fifty_digits():
    """Other test modules change mpmath's global precision: pin 50 digits for every test here."""
    with mpmath.workdps(50):
        yield


def _mp_density(kind: str, sigma, eps, k: int = 0):
    s = mpmath.mpf(sigma)
    e = mpmath.mpf(eps)
    g = lambda u: mpmath.exp(-u * u / (2 * s * s))  # noqa: E731
    if kind == "qg":
        c = mpmath.sqrt(2 * mpmath.pi) * s * (mpmath.e ** e + 2 * mpmath.ncdf(1 / s))
        return lambda x: (mpmath.e ** e * g(x) + g(abs(x) - 1)) / c
    ws = [mpmath.e ** (-abs(j) * e) for j in range(-k, k + 1)]
    z = sum(ws)
    return lambda x: sum(w * g(x - j) for w, j in zip(ws, range(-k, k + 1))) / (z * mpmath.sqrt(2 * mpmath.pi) * s)


def _mp_hockey(f, eps, phi, lo, hi):
    """int (f(x+phi) - e^eps f(x))_+ by quadrature split at numerically found roots (50 digits)."""
    e = mpmath.mpf(eps)
    p = mpmath.mpf(phi)
    d = lambda x: f(x + p) - mpmath.e ** e * f(x)  # noqa: E731
    xs = np.linspace(lo, hi, 1201)
    vals = [d(mpmath.mpf(float(x))) for x in xs]
    pts = [mpmath.mpf(lo)]
    for i in range(len(xs) - 1):
        if vals[i] * vals[i + 1] < 0:
            pts.append(mpmath.findroot(d, (mpmath.mpf(float(xs[i])), mpmath.mpf(float(xs[i + 1]))),
                                       solver="anderson"))
        for kink in (0.0, -float(phi)):  # the QG kinks of f(x) and f(x + phi)
            if float(xs[i]) < kink <= float(xs[i + 1]):
                pts.append(mpmath.mpf(0) if kink == 0.0 else -p)
    pts.append(mpmath.mpf(hi))
    # short sub-intervals keep tanh-sinh's (absolute) error far below the enclosure width
    pts.extend(mpmath.mpf(float(x)) for x in np.arange(lo, hi, 0.1))
    pts = sorted(set(pts))
    total = mpmath.mpf(0)
    for a, b in zip(pts, pts[1:]):
        m = (a + b) / 2
        if d(m) > 0:
            total += mpmath.quad(d, [a, b])
    return total


@pytest.mark.parametrize("kind,sigma,eps,k,phi", [
    ("mg", "0.5", "1", 0, "1"),
    ("mg", "0.4", "2", 2, "0.7"),
    ("mg", "0.3", "1", 3, "0.5"),
    ("qg", "0.3", "2", 0, "0.8"),
    ("qg", "0.23", "5", 0, "0.866"),
    ("qg", "1.0", "0.5", 0, "1"),
])
def test_fixed_shift_enclosure_contains_quadrature(kind, sigma, eps, k, phi):
    with working_precision(128):
        s, e, p = arb(sigma), arb(eps), arb(phi)
        mix = quasi_gaussian_mixture(s, e, arb(1)) if kind == "qg" else multi_gaussian_mixture(s, e, arb(1), k)
        res = hockey_stick_at_shift(mix, e, p)
        f = _mp_density(kind, sigma, eps, k)
        ref = _mp_hockey(f, eps, phi, -k - 2 - 20 * float(sigma), k + 1 + 20 * float(sigma))
        lo = mpmath.mpf(res.lower.lower().str(40, radius=False))
        hi = mpmath.mpf(res.upper.upper().str(40, radius=False))
        assert lo <= ref <= hi, (lo, ref, hi)
        assert hi - lo <= mpmath.mpf("1e-15") * (abs(ref) + mpmath.mpf("1e-30"))


@pytest.mark.parametrize("sigma,eps", [("1", "1"), ("0.5", "2"), ("3", "0.1"), ("0.2", "10")])
def test_k0_equals_analytic_gaussian(sigma, eps):
    with working_precision(128):
        mix = multi_gaussian_mixture(arb(sigma), arb(eps), arb(1), 0)
        res = privacy_profile_sup(mix, arb(eps), arb(1), symmetric=True, rel_tol=1e-12)
        s = mpmath.mpf(sigma)
        e = mpmath.mpf(eps)
        ref = mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.e ** e * mpmath.ncdf(-1 / (2 * s) - e * s)
        lo = mpmath.mpf(res.lower.lower().str(40, radius=False))
        hi = mpmath.mpf(res.upper.upper().str(40, radius=False))
        assert lo <= ref <= hi


def test_sup_at_least_every_shift_value_and_asymmetric_directions():
    """The sup enclosure dominates point values; an asymmetric mixture needs both directions."""
    with working_precision(128):
        s = arb("0.5")
        comps = [Component(arb("0.7"), arb(0), None, 0), Component(arb("0.3"), arb(1), None, 1)]
        mix = GaussianMixture(comps, s, (arb(0), arb(1)))
        both = privacy_profile_sup(mix, arb(1), arb(1), symmetric=False, rel_tol=1e-8)
        one = privacy_profile_sup(mix, arb(1), arb(1), symmetric=True, rel_tol=1e-8)
        mirror = privacy_profile_sup(mix.mirrored(), arb(1), arb(1), symmetric=True, rel_tol=1e-8)
        assert both.upper >= one.lower and both.upper >= mirror.lower
        for phi in ("0.3", "0.9", "1"):
            v = hockey_stick_at_shift(mix, arb(1), arb(phi))
            assert both.upper >= v.lower


def test_tv_lipschitz_bound_below_global_constant():
    with working_precision(128):
        s = arb("0.3")
        for h in ("0.001", "0.1", "1"):
            assert shift_tv_bound(arb(h), s) <= arb(h) / ((2 * arb.pi()).sqrt() * s)
