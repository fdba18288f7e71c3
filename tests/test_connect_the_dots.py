"""Connect-the-dots dominating pairs (certdp/accounting/dominating.py) and the plan mechanisms they serve.

References are independent of the construction: the exact mu-GDP delta of k Gaussians (50-digit
mpmath), the exact k-fold uniform delta 1 - (1 - Delta/2b)^k, the single-mechanism certified
profile (radial engine) for count-1 plans, group-order invariance, and fresh-process verification.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import pytest
from flint import arb

import certdp
from certdp.accounting import account, parse_plan
from certdp.accounting.dominating import DominatingLaw, ProfileSource
from certdp.accounting.pld import power
from certdp.certificate import Certificate
from certdp.engines.closed_form import gaussian_profile
from certdp.numbers import InputError, arb_of, exact_str, working_precision
from certdp.numbers.balls import ball_endpoints

ROOT = Path(__file__).resolve().parents[1]


def _gauss_bounds(eps: Fraction):
    with working_precision(256):
        return ball_endpoints(gaussian_profile(arb(1), arb_of(eps), arb(1)))


def _gdp(mu2: int, eps: Fraction) -> mp.mpf:
    with mp.workdps(60):
        mu = mp.sqrt(mu2)
        e = mp.mpf(eps.numerator) / eps.denominator
        return mp.ncdf(-e / mu + mu / 2) - mp.e ** e * mp.ncdf(-e / mu - mu / 2)


def _brackets(law, bits, tau, k, eps_list):
    up, low, grid = law.lattice_pair(bits, 96, tau, Fraction(1, 10**20))
    U = power(up, k, 2**24) if k > 1 else up
    L = power(low, k, 2**24) if k > 1 else low
    return [(L.delta_bound(e), U.delta_bound(e)) for e in eps_list], grid


@pytest.mark.parametrize("k", [1, 4])
def test_gaussian_pairs_bracket_exact_gdp_and_shrink(k):
    """The construction on the Gaussian's certified profile: lower <= exact GDP delta <= upper (50
    digits), at grid and off-grid epsilons, and the bracket shrinks as the grid refines."""
    eps_list = [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2)]
    widths = []
    for tau in (2.0**-4, 2.0**-7):
        law = DominatingLaw(ProfileSource("gaussian", _gauss_bounds))
        res, grid = _brackets(law, 10, tau, k, eps_list)
        assert grid[0] == 0 and all(g * 2**10 == int(g * 2**10) for g in grid)
        for (lo, hi), e in zip(res, eps_list):
            with mp.workdps(60):
                exact = _gdp(k, e)
                assert mp.mpf(lo.numerator) / lo.denominator <= exact <= mp.mpf(hi.numerator) / hi.denominator, (tau, e)
        widths.append(max(float((hi - lo) / hi) for lo, hi in res))
    assert widths[1] < widths[0] / 4, widths


def test_lower_pair_is_a_sub_probability_and_upper_dominates_total():
    law = DominatingLaw(ProfileSource("gaussian", _gauss_bounds))
    up, low, _ = law.lattice_pair(8, 96, 2.0**-6, Fraction(1, 10**20))
    assert low.inf == 0 and low.total() <= 2**96 <= up.total()
    assert (up.total() - 2**96) < 2**96 // 10**6 and (2**96 - low.total()) < 2**96 // 10**6


def test_uniform_plan_is_exact():
    """k-fold uniform noise: delta(eps) = 1 - (1 - Delta/2b)^k for every eps >= 0 (loss 0 or +inf)."""
    plan = {"mechanisms": [{"mechanism": "uniform", "scale": "10", "sensitivity": "1", "count": 5}]}
    c = account(plan, epsilon="0.7", grid_bits=6)
    exact = 1 - (1 - Fraction(1, 20)) ** 5
    assert c.enclosure.lower <= exact <= c.enclosure.upper
    assert c.enclosure.upper - c.enclosure.lower < Fraction(1, 10**15)


def test_spherical_gaussian_merges_into_gdp():
    a = account({"mechanisms": [{"mechanism": "spherical-gaussian", "sigma": "3", "dimension": 7, "count": 4}]},
                epsilon="1")
    b = account({"mechanisms": [{"mechanism": "gaussian", "sigma": "3", "count": 4}]}, epsilon="1")
    assert a.discretization["route"] == "closed-form" and a.enclosure == b.enclosure


@pytest.mark.parametrize("eps", ["0", "0.1", "0.25"])
def test_count_one_l2_laplace_contains_profile(eps):
    plan = {"mechanisms": [{"mechanism": "l2-laplace", "theta": "3", "dimension": 3, "count": 1}]}
    c = account(plan, epsilon=eps, grid_bits=9)
    prof = certdp.profile("l2-laplace", value="3", epsilon=eps, dimension=3)
    lo, hi = (Fraction(x) for x in prof.delta_enclosure)
    # both contain the true delta: they overlap (at a grid epsilon the upper end IS the engine's bound)
    assert c.enclosure.lower <= hi and lo <= c.enclosure.upper, (c.enclosure, lo, hi)
    assert c.relative_width < 0.05
    assert c.methods[0]["method"] == "connect-the-dots-pld-lattice"


def test_group_order_does_not_matter():
    g1 = {"mechanism": "l2-laplace", "theta": "2", "dimension": 3, "count": 2}
    g2 = {"mechanism": "l2-laplace", "theta": "3", "dimension": 4, "count": 1}
    a = account({"mechanisms": [g1, g2]}, epsilon="1", grid_bits=8)
    b = account({"mechanisms": [g2, g1]}, epsilon="1", grid_bits=8)
    assert a.enclosure.lower <= b.enclosure.upper and b.enclosure.lower <= a.enclosure.upper
    assert 0 < a.enclosure.lower < a.enclosure.upper < 1


def test_more_steps_more_delta():
    g = {"mechanism": "l2-laplace", "theta": "2", "dimension": 3}
    one = account({"mechanisms": [{**g, "count": 1}]}, epsilon="0.5", grid_bits=8)
    three = account({"mechanisms": [{**g, "count": 3}]}, epsilon="0.5", grid_bits=8)
    assert one.enclosure.upper < three.enclosure.lower


@pytest.mark.parametrize("entry, field", [
    ({"mechanism": "quasi-gaussian", "sigma": "2"}, "mechanisms[0].shape_epsilon"),
    ({"mechanism": "sgg", "rate": "1", "dimension": 3, "alpha": "5", "power": "1"}, "mechanisms[0].alpha"),
    ({"mechanism": "l2-laplace", "theta": "1", "dimension": "2.5"}, "mechanisms[0].dimension"),
    ({"mechanism": "l2-laplace", "theta": "1"}, "mechanisms[0].dimension"),
    ({"mechanism": "multi-gaussian", "sigma": "1", "shape_epsilon": "1", "components": "-1"},
     "mechanisms[0].components"),
])
def test_bad_ctd_entries_name_the_field(entry, field):
    with pytest.raises(InputError) as info:
        parse_plan({"mechanisms": [entry]})
    assert info.value.parameter == field


def test_sgg_composition_certificate_roundtrip_and_forgery(tmp_path):
    """A small SGG plan: VALID in a fresh process; the enclosure moved below the truth is INVALID."""
    plan = {"mechanisms": [{"mechanism": "l2-laplace", "theta": "2", "dimension": 3, "count": 2},
                           {"mechanism": "sgg", "rate": "1/3", "dimension": 4, "alpha": "3", "power": "1",
                            "count": 1}]}
    cert = certdp.compose(plan, epsilon="1", grid_bits=7)
    assert cert.method == "pld-lattice-connect-the-dots"
    assert "connect_the_dots_grids" in cert.extra["discretization"]
    good = tmp_path / "c.json"
    good.write_text(cert.to_json())
    lo, hi = (Fraction(x) for x in cert.delta_enclosure)
    forged = Certificate.from_json(cert.to_json())
    width = hi - lo
    forged.delta_enclosure = [exact_str(lo - 3 * width), exact_str(lo - 2 * width)]
    forged.guarantee = forged.statement()
    forged.seal()
    bad = tmp_path / "f.json"
    bad.write_text(forged.to_json())
    grid = json.loads(cert.to_json())
    grid["extra"]["discretization"]["connect_the_dots_grids"] = "0:1,2"  # not from 0: refused
    bad_grid = Certificate.from_dict(grid)
    bad_grid.seal()
    bad2 = tmp_path / "g.json"
    bad2.write_text(bad_grid.to_json())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "certdp.cli.main", "verify", "--json", str(good), str(bad), str(bad2)],
                         capture_output=True, text=True, env=env, timeout=600)
    results = json.loads(run.stdout)
    assert [r["status"] for r in results] == ["VALID", "INVALID", "INVALID"], run.stdout


def test_composed_l2_laplace_calibration_roundtrip_and_below_sequential(tmp_path):
    """Calibration under composition: VALID in a fresh process, the interval moved to the unsafe side is
    INVALID, and its unsafe end lies below the sequential-composition scale (which is private for the
    composition by the basic composition theorem, so the composed lower bound there is <= delta)."""
    cert = certdp.calibrate("l2-laplace", epsilon="1", delta="1e-3", dimension=3, compositions=2, grid_bits=7,
                            rtol="0.05")
    seq = certdp.calibrate("l2-laplace", epsilon="1/2", delta="5e-4", dimension=3, rtol="1e-4")
    lo, hi = (Fraction(x) for x in cert.interval)
    assert lo < hi and lo < Fraction(seq.value)
    good = tmp_path / "cal.json"
    good.write_text(cert.to_json())
    forged = Certificate.from_json(cert.to_json())
    forged.interval = [exact_str(lo * Fraction(9, 10)), exact_str(lo * Fraction(95, 100))]
    forged.value = forged.interval[1]
    forged.guarantee = forged.statement()
    forged.seal()
    bad = tmp_path / "forged.json"
    bad.write_text(forged.to_json())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "certdp.cli.main", "verify", "--json", str(good), str(bad)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert [r["status"] for r in json.loads(run.stdout)] == ["VALID", "INVALID"], run.stdout


@pytest.mark.slow
def test_sgg_gaussian_member_through_the_radial_engine_contains_exact_gdp():
    """SGG(alpha = T-1, p = 2, beta = 1/(2 sigma^2)) is N(0, sigma^2 I): three steps through the whole
    pipeline (radial engine -> connect-the-dots -> lattice) must bracket the exact mu-GDP delta,
    mu^2 = 3 s^2 / sigma^2 (50-digit mpmath)."""
    plan = {"mechanisms": [{"mechanism": "sgg", "rate": "1/8", "dimension": 3, "alpha": "2", "power": "2",
                            "count": 3}]}
    c = account(plan, epsilon="1", grid_bits=8)
    with mp.workdps(60):
        mu = mp.sqrt(mp.mpf(3) / 4)
        exact = mp.ncdf(-1 / mu + mu / 2) - mp.e * mp.ncdf(-1 / mu - mu / 2)
        lo, hi = c.enclosure.lower, c.enclosure.upper
        assert mp.mpf(lo.numerator) / lo.denominator <= exact <= mp.mpf(hi.numerator) / hi.denominator
    assert c.relative_width < 0.05


def test_lowered_point_is_proven_below_the_chord():
    """The lower hull's safe move for an ambiguous point: lower it until Arb proves it below the chord."""
    from certdp.accounting.dominating import _chord_minus, lowered_below_chord

    with working_precision(256):
        a = (arb(1), Fraction(1), 0)
        c = (arb(3), Fraction(0), 2)
        b = (arb(2) + arb("1e-70") * arb(0, 1), Fraction(1, 2), 1)  # on the chord, x only known to 1e-70
        d = _chord_minus(a, b, c)
        assert not d > 0 and not d <= 0  # ambiguous
        y = lowered_below_chord(a, b, c)
        assert y < Fraction(1, 2) and Fraction(1, 2) - y < Fraction(1, 10**30)
        assert _chord_minus(a, (b[0], y, 1), c) > 0


@pytest.mark.parametrize("mechanism, extra", [
    ("multi-gaussian", {"components": 1}),
    pytest.param("quasi-gaussian", {}, marks=pytest.mark.slow),
])
def test_count_one_mixture_overlaps_the_exact_engine_profile(mechanism, extra):
    """One mixture step: the accountant's bracket and the exact engine's profile enclosure (a separate
    run of the engine with its own tolerances) must overlap -- each contains the true delta. At a grid
    epsilon (0.5) the upper end is the engine's certified upper bound itself."""
    c = account({"mechanisms": [{"mechanism": mechanism, "sigma": "2", "shape_epsilon": "1", "count": 1, **extra}]},
                epsilon="0.5", grid_bits=7)
    prof = certdp.profile(mechanism, value="2", epsilon="0.5", shape_epsilon="1", **extra)
    lo, hi = (Fraction(x) for x in prof.delta_enclosure)
    assert c.enclosure.lower <= hi and lo <= c.enclosure.upper
    assert c.relative_width < 0.05


# ------------------------------------------------------------------ calibration under composition: SGG presets

def _gdp_sigma_mpmath(eps: str, delta: str, s: str, k: int) -> mp.mpf:
    """The exact composed sigma: k steps of N(0, sigma^2 I) with l2 sensitivity s are mu-GDP with
    mu = sqrt(k) s / sigma; solve delta_mu(eps) = delta for mu at 50 digits (bisection, 200 halvings), an independent formula from the Arb closed form and the certified bracket."""
    with mp.workdps(50):
        e, d = mp.mpf(eps), mp.mpf(delta)

        def f(mu):
            return mp.ncdf(-e / mu + mu / 2) - mp.e ** e * mp.ncdf(-e / mu - mu / 2) - d

        a, b = mp.mpf("0.001"), mp.mpf(40)  # f(a) < 0 < f(b): delta_mu(eps) increases with mu
        assert f(a) < 0 < f(b)
        for _ in range(200):
            m = (a + b) / 2
            a, b = (m, b) if f(m) < 0 else (a, m)
        mu = (a + b) / 2
        return mp.sqrt(k) * mp.mpf(s) / mu


@pytest.mark.parametrize("k, s, eps, delta", [(1, "1", "1", "1e-5"), (10, "2", "1", "1e-5"), (100, "1", "0.5", "1e-6")])
def test_composed_spherical_gaussian_sigma_is_the_gdp_sigma(k, s, eps, delta):
    cert = certdp.calibrate("spherical-gaussian", epsilon=eps, delta=delta, dimension=7, sensitivity=s,
                            compositions=k)
    assert cert.claim == "minimal" and cert.safe_side == "upper" and cert.method == "composed-pld"
    lo, hi = (mp.mpf(str(x)) for x in cert.interval)
    ref = _gdp_sigma_mpmath(eps, delta, s, k)
    assert lo <= ref <= hi, (lo, ref, hi)
    assert (hi - lo) / hi <= mp.mpf("1e-12")
    # the safe end's certified composed delta is <= delta, the unsafe end's > delta
    assert Fraction(cert.delta_enclosure[1]) <= Fraction(delta)
    assert Fraction(cert.extra["delta_enclosure_at_unsafe_end"][0]) > Fraction(delta)


def test_composed_calibration_bad_sgg_input_names_the_field():
    with pytest.raises(InputError) as exc:
        certdp.calibrate("sgg", epsilon="1", delta="0.1", dimension=3, alpha="5", power="1", compositions=2)
    assert exc.value.parameter == "alpha"
    with pytest.raises(InputError) as exc:
        certdp.calibrate("r1smg", epsilon="1", delta="0.1", compositions=2)
    assert exc.value.parameter == "dimension"


def _fresh_verify(paths):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "certdp.cli.main", "verify", "--json", *map(str, paths)],
                         capture_output=True, text=True, env=env, timeout=900)
    data = json.loads(run.stdout)
    return [r["status"] for r in (data if isinstance(data, list) else [data])], run.stdout


SGG_FIXED = {"dimension": 2, "alpha": "1", "power": "1", "sensitivity": 1}


def test_composed_sgg_k1_overlaps_single_calibration_and_safe_end_is_private(tmp_path):
    """k = 1: the composed bracket on the rate (claim minimal, safe end = smaller rate) must overlap
    the single-mechanism certified bracket (both contain the true boundary: delta is monotone in the
    rate, seed 003 Prop. C.1 / Lemma 4.2); the safe end's composed upper bound is <= delta; VALID in a
    fresh process, a copy moved across the unsafe end INVALID."""
    cert = certdp.calibrate("sgg", epsilon="1", delta="0.1", compositions=1, rtol="0.1", grid_bits=5, **SGG_FIXED)
    assert cert.claim == "minimal" and cert.safe_side == "lower" and "Lemma 4.2" in cert.lemma
    lo, hi = (Fraction(x) for x in cert.interval)
    assert Fraction(cert.value) == lo
    assert Fraction(cert.delta_enclosure[1]) <= Fraction("0.1")
    assert Fraction(cert.extra["delta_enclosure_at_unsafe_end"][0]) > Fraction("0.1")
    single = certdp.calibrate("sgg", epsilon="1", delta="0.1", rtol="1e-4", **SGG_FIXED)
    s_lo, s_hi = (Fraction(x) for x in single.interval)
    assert lo <= s_hi and s_lo <= hi, (cert.interval, single.interval)
    good = tmp_path / "sgg.json"
    good.write_text(cert.to_json())
    forged = Certificate.from_json(cert.to_json())
    forged.interval = [exact_str(hi), exact_str(hi + (hi - lo))]  # moved across the unsafe end
    forged.value = forged.interval[0]
    forged.guarantee = forged.statement()
    forged.seal()
    bad = tmp_path / "forged.json"
    bad.write_text(forged.to_json())
    statuses, out = _fresh_verify([good, bad])
    assert statuses == ["VALID", "INVALID"], out
