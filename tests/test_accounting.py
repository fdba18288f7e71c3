"""The certified accountant: enclosures contain independent 50-digit mpmath values; consistency."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import certdp
from certdp.accounting import account, parse_plan
from certdp.accounting.pld import LatticePLD
from certdp.numbers import InputError

from accounting_reference import gdp_delta, laplace_kfold_delta, subsampled_gaussian_delta


def _contains(enclosure, value) -> bool:
    with mp.workdps(50):
        lo = mp.mpf(enclosure.lower.numerator) / enclosure.lower.denominator
        hi = mp.mpf(enclosure.upper.numerator) / enclosure.upper.denominator
        return lo <= value <= hi


def _plan(*groups):
    return {"mechanisms": list(groups)}


# ------------------------------------------------------------------------------ GDP closed form

@pytest.mark.parametrize("groups, eps", [
    ([{"mechanism": "gaussian", "sigma": "10", "count": 100}], "1"),
    ([{"mechanism": "gaussian", "sigma": "3", "sensitivity": "2", "count": 7},
      {"mechanism": "gaussian", "sigma": "1/3", "sensitivity": "0.1", "count": 2}], "0.5"),
    ([{"mechanism": "gaussian", "sigma": "0.7", "count": 1}], "3"),
])
def test_gdp_closed_form_contains_quadrature(groups, eps):
    plan = _plan(*groups)
    result = account(plan, epsilon=eps)
    mu2 = sum(Fraction(g["count"]) * (Fraction(g.get("sensitivity", "1")) / Fraction(g["sigma"])) ** 2 for g in groups)
    ref = gdp_delta(mu2, eps)
    assert _contains(result.enclosure, ref)
    assert result.enclosure.width <= Fraction(1, 10**12) * result.enclosure.upper
    assert result.discretization["route"] == "closed-form"
    assert all(m["method"] == "gdp-closed-form" for m in result.methods)


def test_gdp_epsilon_bracket_straddles_delta():
    plan = _plan({"mechanism": "gaussian", "sigma": "10", "count": 100})
    result = account(plan, delta="1e-5")
    lo, hi = result.enclosure.lower, result.enclosure.upper
    assert (hi - lo) / hi <= Fraction(1, 10**12)
    assert gdp_delta(1, lo) > mp.mpf("1e-5") > gdp_delta(1, hi)


def test_gaussian_count_one_matches_profile():
    comp = account(_plan({"mechanism": "gaussian", "sigma": "2", "sensitivity": "1", "count": 1}), epsilon="1")
    single = certdp.profile("gaussian", value="2", epsilon="1")
    lo, hi = (Fraction(x) for x in single.delta_enclosure)
    assert comp.enclosure.lower <= hi and lo <= comp.enclosure.upper  # overlap
    assert abs(comp.enclosure.upper - hi) <= Fraction(1, 10**15)


# ------------------------------------------------------------------------------ Laplace: exact mixture

@pytest.mark.parametrize("scale, k, eps", [("2", 1, "0.2"), ("2", 3, "1"), ("1", 2, "0.5"), ("3", 5, "0.4")])
def test_laplace_kfold_contains_exact_mixture(scale, k, eps):
    result = account(_plan({"mechanism": "laplace", "scale": scale, "count": k}), epsilon=eps, grid_bits=12)
    ref = laplace_kfold_delta(scale, 1, k, eps)
    assert _contains(result.enclosure, ref), (result.enclosure, ref)
    assert result.enclosure.width <= Fraction(1, 20) * result.enclosure.upper


def test_laplace_count_one_contains_profile():
    comp = account(_plan({"mechanism": "laplace", "scale": "2", "sensitivity": "1", "count": 1}), epsilon="0.3",
                   grid_bits=14)
    single = certdp.profile("laplace", value="2", epsilon="0.3")
    lo, hi = (Fraction(x) for x in single.delta_enclosure)
    assert comp.enclosure.lower <= lo and hi <= comp.enclosure.upper


# ------------------------------------------------------------------------------ subsampled Gaussian

@pytest.mark.parametrize("sigma, q, eps, steps", [
    ("1", "0.5", "0.5", 1), ("2", "0.1", "0.1", 1), ("0.8", "0.2", "1", 1), ("1", "0.5", "0.5", 2), ("2", "0.1", "0.2", 2),
])
def test_subsampled_gaussian_contains_quadrature(sigma, q, eps, steps):
    plan = _plan({"mechanism": "subsampled-gaussian", "sigma": sigma, "sampling_rate": q, "count": steps})
    result = account(plan, epsilon=eps, grid_bits=12)
    for direction in ("remove", "add"):
        ref = subsampled_gaussian_delta(sigma, q, eps, steps, direction)
        lo, hi = (Fraction(x) for x in result.directions[direction])
        assert mp.mpf(lo.numerator) / lo.denominator <= ref <= mp.mpf(hi.numerator) / hi.denominator, direction
    ref = max(subsampled_gaussian_delta(sigma, q, eps, steps, d) for d in ("remove", "add"))
    assert _contains(result.enclosure, ref)


def test_subsampled_rate_one_is_gaussian():
    sg = account(_plan({"mechanism": "subsampled-gaussian", "sigma": "2", "sampling_rate": "1", "count": 3}),
                 epsilon="1", grid_bits=12)
    ref = gdp_delta(Fraction(3, 4), "1")
    assert _contains(sg.enclosure, ref)


# ------------------------------------------------------------------------------ consistency

def test_brackets_shrink_with_the_step():
    plan = _plan({"mechanism": "laplace", "scale": "3", "count": 4},
                 {"mechanism": "subsampled-gaussian", "sigma": "1", "sampling_rate": "0.3", "count": 3})
    widths, encs = [], []
    for bits in (7, 9, 11):
        enc = account(plan, epsilon="0.5", grid_bits=bits).enclosure
        widths.append(enc.width)
        encs.append(enc)
    assert widths[0] > widths[1] > widths[2]
    assert widths[2] * 3 < widths[0]
    for a in encs:
        for b in encs:
            assert a.overlaps(b)


def test_order_and_grouping_do_not_matter():
    a = {"mechanism": "laplace", "scale": "3", "count": 4}
    b = {"mechanism": "subsampled-gaussian", "sigma": "1", "sampling_rate": "0.3", "count": 3}
    c = {"mechanism": "gaussian", "sigma": "4", "count": 2}
    split = [{"mechanism": "laplace", "scale": "3", "count": 1}, {"mechanism": "laplace", "scale": "3", "count": 3}]
    encs = [account(_plan(*groups), epsilon="0.7", grid_bits=10).enclosure
            for groups in ([a, b, c], [c, b, a], [b, a, c], [*split, b, c])]
    for x in encs:
        for y in encs:
            assert x.overlaps(y)


def test_epsilon_mode_consistent_with_delta_mode():
    plan = _plan({"mechanism": "subsampled-gaussian", "sigma": "1", "sampling_rate": "0.2", "count": 5})
    eps_enc = account(plan, delta="1e-4", grid_bits=11).enclosure
    at_hi = account(plan, epsilon=eps_enc.upper, grid_bits=11).enclosure
    at_lo = account(plan, epsilon=eps_enc.lower, grid_bits=11).enclosure
    assert at_hi.upper <= Fraction(1, 10**4) < at_lo.upper


def test_lattice_upper_and_lower_bound_exact_small_measure():
    """The delta of a hand-made discrete measure: 1/2 at loss 1 and 1/2 at +inf -> 1/2 + (1 - e^(eps-1))/2."""
    from flint import fmpz_poly

    pld = LatticePLD("upper", 2, 8, 4, fmpz_poly([128]), 128)
    with mp.workdps(50):
        ref = mp.mpf(1) / 2 + (1 - mp.exp(mp.mpf(1) / 4 - 1)) / 2
    from certdp.numbers.balls import ball_endpoints

    lo, hi = ball_endpoints(pld.delta_ball(Fraction(1, 4)))
    with mp.workdps(50):
        assert mp.mpf(lo.numerator) / lo.denominator <= ref <= mp.mpf(hi.numerator) / hi.denominator
        assert hi - lo < Fraction(1, 10**30)


@settings(max_examples=6, deadline=None, derandomize=True)
@given(k=st.integers(1, 6), eps=st.sampled_from(["0.2", "0.5", "1"]), sigma=st.sampled_from(["0.8", "1", "2"]))
def test_monotone_in_count_sigma_and_epsilon(k, eps, sigma):
    def enc(count=k, e=eps, s=sigma):
        return account(_plan({"mechanism": "subsampled-gaussian", "sigma": s, "sampling_rate": "0.3", "count": count},
                             {"mechanism": "laplace", "scale": "4", "count": 1}), epsilon=e, grid_bits=9).enclosure
    base = enc()
    assert enc(count=k + 1).upper >= base.lower  # delta grows with the count
    assert enc(s=str(Fraction(sigma) * 2)).lower <= base.upper  # and shrinks with sigma
    larger_eps = enc(e=str(Fraction(eps) * 2))
    assert larger_eps.upper <= base.upper and larger_eps.lower <= base.lower  # same measure, f decreasing in eps


# ------------------------------------------------------------------------------ bad input

@pytest.mark.parametrize("plan, field", [
    ({"mechanisms": []}, "mechanisms"),
    ({}, "mechanisms"),
    ([], "mechanisms"),
    ("[1,", "plan"),
    ({"mechanisms": [{"mechanism": "gaussian", "sigma": "1", "count": 0}]}, "mechanisms[0].count"),
    ({"mechanisms": [{"mechanism": "gaussian", "sigma": "1", "count": "2.5"}]}, "mechanisms[0].count"),
    ({"mechanisms": [{"mechanism": "gaussian", "sigma": "1", "count": True}]}, "mechanisms[0].count"),
    ({"mechanisms": [{"mechanism": "subsampled-gaussian", "sigma": "1", "sampling_rate": "0"}]},
     "mechanisms[0].sampling_rate"),
    ({"mechanisms": [{"mechanism": "subsampled-gaussian", "sigma": "1", "sampling_rate": "1.01"}]},
     "mechanisms[0].sampling_rate"),
    ({"mechanisms": [{"mechanism": "nope", "sigma": "1"}]}, "mechanisms[0].mechanism"),
    ({"mechanisms": [{"mechanism": "gaussian", "sigma": "1", "scale": "2"}]}, "mechanisms[0].scale"),
    ({"mechanisms": [{"mechanism": "gaussian"}]}, "mechanisms[0].sigma"),
    ({"mechanisms": [{"mechanism": "gaussian", "sigma": "-1"}]}, "mechanisms[0].sigma"),
    ({"mechanisms": ["gaussian"]}, "mechanisms[0]"),
])
def test_bad_plans_name_the_field(plan, field):
    with pytest.raises(InputError) as info:
        parse_plan(plan) if not isinstance(plan, str) else parse_plan(plan)
    assert info.value.parameter == field


def test_compose_needs_exactly_one_target():
    plan = _plan({"mechanism": "gaussian", "sigma": "1"})
    with pytest.raises(InputError):
        account(plan)
    with pytest.raises(InputError):
        account(plan, epsilon="1", delta="1e-5")


# ------------------------------------------------------------------------------ calibration under composition

def test_gaussian_composed_calibration_is_sqrt_k_times_single():
    single = certdp.calibrate("gaussian", epsilon="1", delta="1e-5", sensitivity=1)
    comp = certdp.calibrate("gaussian", epsilon="1", delta="1e-5", sensitivity=1, compositions=100)
    assert comp.method == "composed-pld" and comp.claim == "minimal"
    lo, hi = (Fraction(x) for x in comp.interval)
    slo, shi = (Fraction(x) * 10 for x in single.interval)
    assert lo <= shi and slo <= hi
    assert certdp.verify(comp.to_json()).status == "VALID"


def test_default_calibration_path_unchanged():
    a = certdp.calibrate("gaussian", epsilon="1", delta="1e-5", sensitivity=1)
    b = certdp.calibrate("gaussian", epsilon="1", delta="1e-5", sensitivity=1, compositions=None)
    assert a.digest == b.digest and a.method == "certified-bracket"


def test_laplace_composed_calibration_ends_against_the_exact_mixture():
    cert = certdp.calibrate("laplace", epsilon="1", delta="1e-3", sensitivity=1, compositions=3, rtol="0.05")
    lo, hi = (Fraction(x) for x in cert.interval)
    assert laplace_kfold_delta(hi, 1, 3, 1) <= mp.mpf("1e-3") < laplace_kfold_delta(lo, 1, 3, 1)
    assert certdp.verify(cert.to_json()).status == "VALID"


# ------------------------------------------------------------------------------ 1-D GGM (x-grid discretization)

def test_ggm_one_step_contains_profile():
    comp = account(_plan({"mechanism": "ggm", "scale": "2", "shape": "1.5", "count": 1}), epsilon="0.5", grid_bits=9)
    single = certdp.profile("ggm", value="2", epsilon="0.5", shape="1.5")
    lo, hi = (Fraction(x) for x in single.delta_enclosure)
    assert comp.enclosure.lower <= lo and hi <= comp.enclosure.upper
    assert comp.enclosure.width < Fraction(1, 50) * comp.enclosure.upper


def test_ggm_shape_two_is_gaussian_under_composition():
    # GGD(b, p = 2) is N(0, b^2/2): 3 steps at b = 2 are mu-GDP with mu^2 = 3 / 2
    comp = account(_plan({"mechanism": "ggm", "scale": "2", "shape": "2", "count": 3}), epsilon="0.5", grid_bits=9)
    assert _contains(comp.enclosure, gdp_delta(Fraction(3, 2), "0.5"))


def test_ggm_shape_one_is_laplace():
    comp = account(_plan({"mechanism": "ggm", "scale": "2", "shape": "1", "count": 3}), epsilon="1", grid_bits=12)
    assert _contains(comp.enclosure, laplace_kfold_delta("2", 1, 3, "1"))


# ------------------------------------------------------------------------------ coupled rounding (Hoeffding)

@pytest.mark.parametrize("scale, k, eps", [("2", 3, "1"), ("3", 12, "0.8"), ("1", 8, "2")])
def test_coupled_laplace_contains_exact_mixture(scale, k, eps):
    result = account(_plan({"mechanism": "laplace", "scale": scale, "count": k}), epsilon=eps, grid_bits=12,
                     coupling=True)
    assert result.discretization["rounding"] == "coupled-hoeffding"
    ref = laplace_kfold_delta(scale, 1, k, eps)
    assert _contains(result.enclosure, ref), (result.enclosure, ref)


@pytest.mark.parametrize("sigma, q, eps, steps", [("1", "0.5", "0.5", 1), ("2", "0.1", "0.2", 2), ("0.8", "0.2", "1", 2)])
def test_coupled_subsampled_gaussian_contains_quadrature(sigma, q, eps, steps):
    plan = _plan({"mechanism": "subsampled-gaussian", "sigma": sigma, "sampling_rate": q, "count": steps})
    result = account(plan, epsilon=eps, grid_bits=12, coupling=True)
    for direction in ("remove", "add"):
        ref = subsampled_gaussian_delta(sigma, q, eps, steps, direction)
        lo, hi = (Fraction(x) for x in result.directions[direction])
        assert mp.mpf(lo.numerator) / lo.denominator <= ref <= mp.mpf(hi.numerator) / hi.denominator, direction


def test_coupled_and_deterministic_brackets_overlap_and_coupled_is_narrower_for_many_steps():
    plan = _plan({"mechanism": "subsampled-gaussian", "sigma": "1", "sampling_rate": "0.05", "count": 400},
                 {"mechanism": "laplace", "scale": "50", "count": 100})
    det = account(plan, delta="1e-5", grid_bits=11, coupling=False).enclosure
    cpl = account(plan, delta="1e-5", grid_bits=11, coupling=True).enclosure
    assert det.overlaps(cpl)
    assert cpl.width * 2 < det.width


def _mp_partial_mean_gaussian(mu2, a, b):
    with mp.workdps(50):
        m, s = mp.mpf(mu2) / 2, mp.sqrt(mp.mpf(mu2))
        return mp.quad(lambda z: z * mp.npdf(z, m, s), [a, m, b])


@pytest.mark.parametrize("law_name", ["gaussian", "laplace", "remove", "add"])
def test_partial_means_against_mpmath(law_name):
    from certdp.accounting.losses import gaussian_loss, laplace_loss, subsampled_gaussian_losses
    from certdp.numbers import working_precision

    g = 10
    cases = [(-300, 200), (-40, 1000), (-5000, 5000)]
    with mp.workdps(50):
        for i_lo, i_hi in cases:
            a, b = mp.mpf(i_lo) / 2**g, mp.mpf(i_hi) / 2**g
            if law_name == "gaussian":
                law = gaussian_loss(Fraction(1, 3))
                m, s = mp.mpf(1) / 6, mp.sqrt(mp.mpf(1) / 3)
                ref = mp.quad(lambda z: z * mp.npdf(z, m, s), [a, m, b])
            elif law_name == "laplace":
                law = laplace_loss(Fraction(4), Fraction(1))  # a = 1/4: atoms at -1/4 (e^-a/2) and 1/4 (1/2)
                al = mp.mpf(1) / 4
                ref = mp.mpf(0)
                if a < -al <= b:
                    ref -= al * mp.exp(-al) / 2
                if a < al <= b:
                    ref += al / 2
                lo, hi = max(a, -al), min(b, al)
                if lo < hi:
                    ref += mp.quad(lambda z: z * mp.exp((z - al) / 2) / 4, [lo, hi])
            else:
                q, s = mp.mpf(1) / 10, mp.mpf(3) / 2
                remove, add = subsampled_gaussian_losses(Fraction(3, 2), Fraction(1, 10))
                law = remove if law_name == "remove" else add
                ell = lambda x: mp.log(1 - q + q * mp.exp((2 * x - 1) / (2 * s * s)))  # noqa: E731

                def x_of(z):
                    arg = mp.expm1(z) + q
                    return None if arg <= 0 else s * s * mp.log(arg / q) + mp.mpf(1) / 2

                if law_name == "remove":
                    dens = lambda x: (1 - q) * mp.npdf(x, 0, s) + q * mp.npdf(x, 1, s)  # noqa: E731
                    xa, xb = x_of(a), x_of(b)
                    ref = 0 if xb is None else mp.quad(lambda x: dens(x) * ell(x),
                                                       [xa if xa is not None else -mp.inf, xb])
                else:
                    xa, xb = x_of(-b), x_of(-a)
                    ref = 0 if xb is None else -mp.quad(lambda x: mp.npdf(x, 0, s) * ell(x),
                                                        [xa if xa is not None else -mp.inf, xb])
            from certdp.numbers.balls import ball_endpoints

            with working_precision(200):
                ball = law.partial_mean(i_lo, i_hi, g)
            lo, hi = ball_endpoints(ball)
            slack = mp.mpf("1e-45")  # the 50-digit quadrature's own error, far above the 200-bit ball's radius
            assert mp.mpf(lo.numerator) / lo.denominator - slack <= ref <= mp.mpf(hi.numerator) / hi.denominator + slack, \
                (law_name, i_lo, i_hi, ref)
            assert hi - lo < Fraction(1, 10**30)


@pytest.mark.parametrize("count, bits", [(3, 9), (40, 9)])
def test_coupled_ggm_shape_two_is_gaussian(count, bits):
    # GGD(b, p = 2) is N(0, b^2/2): k steps at b = 4 are mu-GDP with mu^2 = k / 8
    comp = account(_plan({"mechanism": "ggm", "scale": "4", "shape": "2", "count": count}), epsilon="0.5",
                   grid_bits=bits, coupling=True)
    assert comp.discretization["rounding"] == "coupled-hoeffding"
    assert _contains(comp.enclosure, gdp_delta(Fraction(count, 8), "0.5"))


def test_coupled_ggm_overlaps_deterministic_and_is_narrower():
    plan = _plan({"mechanism": "ggm", "scale": "30", "shape": "1.5", "count": 300})
    det = account(plan, epsilon="0.5", grid_bits=10, coupling=False).enclosure
    cpl = account(plan, epsilon="0.5", grid_bits=10, coupling=True).enclosure
    assert det.overlaps(cpl) and cpl.width < det.width


@pytest.mark.parametrize("a, b", [("-200", "200"), ("-7/3", "5"), ("-1", "0"), ("1/2", "9"), ("-9", "-1")])
def test_ggm_partial_mean_against_mpmath(a, b):
    from certdp.accounting.losses import ggm_loss
    from certdp.numbers import working_precision
    from certdp.numbers.balls import ball_endpoints

    law = ggm_loss(Fraction(30), Fraction(3, 2), Fraction(1))
    with working_precision(160):
        lo, hi = ball_endpoints(law.partial_mean_x(Fraction(a), Fraction(b)))
    with mp.workdps(50):
        p, s = mp.mpf(3) / 2, mp.mpf(30)
        dens = lambda x: p / (2 * s * mp.gamma(1 / p)) * mp.exp(-(abs(x) / s) ** p)  # noqa: E731
        loss = lambda x: (abs(x + 1) ** p - abs(x) ** p) / s ** p  # noqa: E731
        aa, bb = mp.mpf(Fraction(a).numerator) / Fraction(a).denominator, mp.mpf(Fraction(b).numerator) / Fraction(b).denominator
        knots = [aa] + [t for t in (mp.mpf(-1), mp.mpf(0)) if aa < t < bb] + [bb]
        ref = mp.quad(lambda x: dens(x) * loss(x), knots)
        assert mp.mpf(lo.numerator) / lo.denominator <= ref <= mp.mpf(hi.numerator) / hi.denominator
        assert hi - lo < Fraction(1, 10**12)
