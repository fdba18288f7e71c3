"""The ``quantile-coupling`` calibration of GGM with a sensitivity vector, against independent values.

Independent reference: delta_{p,b}(eps; (D1, D2)) by 50-digit mpmath quadrature of the product density,
reduced to one dimension exactly.  With c_i = D_i / b, l_i(y) = |y + c_i|^p - |y|^p (increasing for
p > 1) and S the GGD(0, 1, p) survival function (regularized incomplete gamma),

    delta = E[(1 - e^(eps - l_1(Y_1) - l_2(Y_2)))_+]
          = int f(y1) [S(y*) - e^(eps - l_1(y1)) S(y* + c_2)] dy1,    l_2(y*) = eps - l_1(y1),

since for fixed y1 the positive part is the event Y_2 > y* and E[e^(-l_2(Y_2)); Y_2 > y*] = S(y* + c_2).
No code of certdp is used for it.  Also the analytic Gaussian (p = 2, ||D||_2, Prop. 3.4).
"""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest

import certdp
from certdp.numbers import UndecidedError


def _mp(q) -> mpmath.mpf:
    q = Fraction(q)
    return mpmath.mpf(q.numerator) / q.denominator


def _delta_by_quadrature(p, b, eps, sens) -> mpmath.mpf:
    """50-digit delta of GGM(p, b) for the two-coordinate sensitivity ``sens`` (module docstring)."""
    with mpmath.workdps(50):
        p, b, eps = _mp(p), _mp(b), _mp(eps)
        c1, c2 = (_mp(s) / b for s in sens)
        norm = p / (2 * mpmath.gamma(1 / p))

        def surv(y):
            tail = mpmath.gammainc(1 / p, abs(y) ** p, mpmath.inf, regularized=True) / 2
            return tail if y >= 0 else 1 - tail

        def loss(y, c):
            return abs(y + c) ** p - abs(y) ** p

        def root(t):
            lo, hi = mpmath.mpf(-1), mpmath.mpf(1)
            while loss(lo, c2) > t:
                lo *= 2
            while loss(hi, c2) < t:
                hi *= 2
            for _ in range(40):  # l_2 is increasing: bisect to a small bracket, then the secant method
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if loss(mid, c2) < t else (lo, mid)
            y = mpmath.findroot(lambda x: loss(x, c2) - t, (lo, hi), solver="secant", verify=False)
            assert lo - (hi - lo) <= y <= hi + (hi - lo) and abs(loss(y, c2) - t) < mpmath.mpf(10) ** -30 * (1 + abs(t))
            return y

        def integrand(y1):
            t = eps - loss(y1, c1)
            y = root(t)
            return norm * mpmath.exp(-abs(y1) ** p) * (surv(y) - mpmath.exp(t) * surv(y + c2))

        # 0 <= integrand <= f(y1): cutting at |y1| = Y, Y^p = 400, drops mass P(|Y_1| > Y) < e^-390 (<< 1e-100)
        big = mpmath.mpf(400) ** (1 / p)
        pts = [-big, -20, -10, -c1, 0, 5, 10, 20, big]
        return mpmath.quad(integrand, pts)


@pytest.mark.slow  # two 50-digit quadratures with a root per node: ~10-20 s each case
@pytest.mark.parametrize("delta", ["1e-12", "1e-30"])
def test_coupled_bracket_contains_the_quadrature_threshold(delta):
    """d = 2, p = 3/2, eps = 1: delta(b_safe) <= delta < delta(b_unsafe) by the 50-digit quadrature, i.e. the
    minimal scale lies in the certified bracket (where the product engine cannot certify at all)."""
    cert = certdp.calibrate("ggm", epsilon="1", delta=delta, shape="3/2", sensitivity=[1, 2])
    assert cert.method == "quantile-coupling"
    lo, hi = (Fraction(x) for x in cert.interval)
    target = _mp(Fraction(delta))
    assert _delta_by_quadrature("3/2", hi, 1, (1, 2)) <= target
    assert _delta_by_quadrature("3/2", lo, 1, (1, 2)) > target
    assert (hi - lo) / hi < Fraction(5, 1000)


def test_quadrature_reference_matches_the_gaussian_at_p_2():
    """The reference itself, at p = 2: the analytic Gaussian with ||(1, 2)||_2, sigma = b / sqrt 2."""
    b = Fraction(3)
    with mpmath.workdps(50):
        sigma, l2 = _mp(b) / mpmath.sqrt(2), mpmath.sqrt(5)
        exact = mpmath.ncdf(l2 / (2 * sigma) - sigma / l2) - mpmath.e * mpmath.ncdf(-l2 / (2 * sigma) - sigma / l2)
        assert abs(_delta_by_quadrature(2, b, 1, (1, 2)) - exact) < mpmath.mpf(10) ** -30 * exact


@pytest.mark.parametrize("delta", ["1e-12", "1e-30"])
def test_coupled_point_bracket_at_p_2_contains_the_gaussian_threshold(delta):
    """p = 2 through the coupled engine itself (the calibration would use the closed form): the bracket
    contains the analytic Gaussian's threshold for ||(1, 2)||_2 (mpmath, 50 digits)."""
    from certdp.workflows.ggm_vector import coupled_point_scale

    dl = Fraction(delta)
    pt = coupled_point_scale(Fraction(2), Fraction(1), dl, [Fraction(1), Fraction(2)], 7.0 if dl > 1e-20 else 11.0)
    lo, hi = (Fraction(x) for x in pt.interval)
    with mpmath.workdps(50):
        l2 = mpmath.sqrt(5)

        def gauss(b):
            sigma = _mp(b) / mpmath.sqrt(2)
            return mpmath.ncdf(l2 / (2 * sigma) - sigma / l2) - mpmath.e * mpmath.ncdf(-l2 / (2 * sigma) - sigma / l2)
        assert gauss(hi) <= _mp(dl) < gauss(lo)


def test_the_product_engine_alone_cannot_certify_delta_1e12():
    """The old path (product engine only) is UNDECIDED at delta 1e-12; the default path certifies."""
    from certdp.workflows.ggm_vector import calibrate_vector

    with pytest.raises(UndecidedError):
        calibrate_vector("3/2", 1, "1e-12", "1,2")
    with pytest.raises(UndecidedError):
        certdp.calibrate("ggm", method="product-loss-engine", epsilon="1", delta="1e-12", shape="3/2",
                         sensitivity="1,2")
    assert certdp.calibrate("ggm", epsilon="1", delta="1e-12", shape="3/2", sensitivity="1,2").method == \
        "quantile-coupling"


def test_explicit_rtol_is_met_and_claimed_or_undecided_with_the_reached_bracket():
    cert = certdp.calibrate("ggm", epsilon="1", delta="1e-12", shape="3/2", sensitivity="1,2", rtol="1e-2")
    lo, hi = (Fraction(x) for x in cert.interval)
    assert cert.inputs["rtol"] == "0.01" and (hi - lo) / hi <= Fraction(1, 100)
    assert certdp.verify(cert).status == "VALID"
    data = json.loads(cert.to_json())  # a smaller rtol claimed: the width check refuses it
    data["inputs"]["rtol"] = "1e-4"
    forged = certdp.Certificate.from_dict(data)
    forged.guarantee = forged.statement()
    assert certdp.verify(forged.seal()).status == "INVALID"
    with pytest.raises(UndecidedError, match=r"certified bracket \[.*relative width"):
        certdp.calibrate("ggm", epsilon="1", delta="1e-12", shape="3/2", sensitivity="1,2", rtol="1e-5")


def test_product_engine_is_the_fallback(monkeypatch):
    """Where the coupled bracket fails and delta >= 1e-8 the product engine answers (and is named)."""
    import certdp.workflows.ggm_vector as gv

    def refusing(*args, **kwargs):
        raise UndecidedError("coupled refused (test)")

    monkeypatch.setattr(gv, "calibrate_vector_coupled", refusing)
    cert = certdp.calibrate("ggm", epsilon="1", delta="0.01", shape="3/2", sensitivity="1,2")
    assert cert.method == "product-loss-engine"
    with pytest.raises(UndecidedError, match="coupled refused"):
        certdp.calibrate("ggm", epsilon="1", delta="1e-12", shape="3/2", sensitivity="1,2")


def test_cli_calibrates_a_vector_at_delta_1e12(cli):
    out = cli("calibrate", "ggm", "-s", "1,2", "--shape", "3/2", "--epsilon", "1", "--delta", "1e-12", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["method"] == "quantile-coupling" and "rtol" not in data["inputs"]
    ver = cli("verify", "-", "--json", stdin=out.stdout)
    assert json.loads(ver.stdout)["status"] == "VALID"


@pytest.mark.parametrize("shape, epsilon, delta", [
    pytest.param("4", "1/100", "1/10", marks=pytest.mark.slow),   # small eps, large delta: loss step 2^-14
    pytest.param("3/2", "50", "1e-12", marks=pytest.mark.slow),   # large eps: loss step 2^-6
    ("4", "50", "1e-30"),
])
def test_coupled_bracket_at_the_domain_corners_contains_the_quadrature_threshold(shape, epsilon, delta):
    """The loss step follows the cell (excess and slope of the float candidate, not eps): at the corners
    of the documented domain the certified bracket still holds the 50-digit quadrature threshold."""
    cert = certdp.calibrate("ggm", epsilon=epsilon, delta=delta, shape=shape, sensitivity=[1, 2])
    assert cert.method == "quantile-coupling"
    lo, hi = (Fraction(x) for x in cert.interval)
    target = _mp(Fraction(delta))
    assert _delta_by_quadrature(shape, hi, Fraction(epsilon), (1, 2)) <= target
    assert _delta_by_quadrature(shape, lo, Fraction(epsilon), (1, 2)) > target
    assert (hi - lo) / hi < Fraction(5, 1000)


@pytest.mark.parametrize("delta", ["1e-12", "1e-30"])
def test_laplace_vector_near_its_pure_dp_scale(delta):
    """p = 1, d = 5, eps = 0.01: the product Laplace is pure eps-DP at b = ||Delta||_1 / eps = 600 exactly
    (loss <= sum_i Delta_i / b), so any delta > 0 has b(1) <= 600: the proven-unsafe end must lie below
    600 and the bracket must be tight there (a fixed loss grid 2^-19 once gave a 2.3x too small float
    candidate and a 1 % bracket; now the grid follows the loss spread).  Round-trips through verify."""
    cert = certdp.calibrate("ggm", epsilon="1/100", delta=delta, shape="1", sensitivity="1,2,1,1,1")
    lo, hi = (Fraction(x) for x in cert.interval)
    assert cert.method == "quantile-coupling"
    # the safe end is the exact pure-DP scale (the coupled upper end lies above it), delta = 0 recorded
    assert hi == 600 and lo < 600 and (hi - lo) / hi < Fraction(1, 100)
    assert [Fraction(x) for x in cert.delta_enclosure] == [0, 0]
    assert certdp.verify(cert).status == "VALID"
    # the exact branch of verify applies only at or above ||Delta||_1 / eps: a safe end moved below it
    # (599) must be re-proven by the coupled upper bound, which fails there
    data = json.loads(cert.to_json())
    data["interval"][1] = data["value"] = "599"
    forged = certdp.Certificate.from_dict(data)
    forged.guarantee = forged.statement()
    assert certdp.verify(forged.seal()).status == "INVALID"


def test_the_coupled_engine_refuses_a_loss_grid_beyond_its_cap():
    """A step far finer than the losses need (2^-28 at eps = 50, losses spread over ~100) is refused
    quickly with UndecidedError, whoever asks (verify bounds its work the same way)."""
    from certdp.engines.quantile_coupling import MAX_LOSS_POINTS
    from certdp.workflows.ggm_vector import CoupledPointBounds

    bounds = CoupledPointBounds(Fraction(4), Fraction(50), Fraction(1, 10**12), [Fraction(1), Fraction(2)], 2.0,
                                loss_step=2.0**-28)
    for side in (bounds.upper, bounds.lower):
        with pytest.raises(UndecidedError, match=f"at most {MAX_LOSS_POINTS}"):
            side(Fraction(2))


def test_verify_refuses_a_recorded_loss_step_finer_than_the_calibration_uses():
    """A forged loss step (finer than COUPLED_FINEST_STEP) is INVALID before any work is done; a coarser
    recorded step that no longer proves the recorded ends is INVALID too."""
    from certdp.workflows.ggm_vector import COUPLED_FINEST_STEP

    cert = certdp.calibrate("ggm", epsilon="1", delta="1e-12", shape="3/2", sensitivity="1,2", rtol="1e-2")
    assert certdp.verify(cert).status == "VALID"
    for step in (COUPLED_FINEST_STEP / 2, Fraction(1, 4)):
        data = json.loads(cert.to_json())
        data["inputs"]["loss_step"] = str(step)
        forged = certdp.Certificate.from_dict(data)
        forged.guarantee = forged.statement()
        assert certdp.verify(forged.seal()).status == "INVALID", step


@pytest.mark.parametrize("scale", ["1/2", pytest.param("3/4", marks=pytest.mark.slow)])
def test_product_engine_bounds_when_the_losses_span_more_than_the_float_exponent_range(scale):
    """p = 4, eps = 50, Delta = (1, 2), b = 1/2: the losses span ~1000, beyond float64's e^709; the last
    coordinate's sum keeps every exponential in [e^-dt, 1] (it was NaN at b = 1/2).  The certified
    bounds contain the 50-digit quadrature and the float estimate lies between them."""
    from certdp.engines.product_loss import float_product_delta, product_delta_bounds
    from certdp.numbers import arb_of

    b = Fraction(scale)
    lower, upper = product_delta_bounds(Fraction(4), arb_of(b), arb_of(Fraction(50)), [Fraction(1), Fraction(2)])
    exact = _delta_by_quadrature("4", b, 50, (1, 2))
    assert lower <= exact <= upper and upper - lower < 1e-4
    assert lower <= float_product_delta(4.0, float(b), 50.0, [1.0, 2.0]) <= upper
