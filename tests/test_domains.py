"""The domain table (certdp/mechanisms/domains.py) is documented and enforced up front (issue 20)."""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path

import pytest

import certdp
from certdp.numbers import InputError
from certdp.mechanisms.domains import DOMAINS, check_domain

DOCS = Path(__file__).resolve().parents[1] / "docs" / "domains.md"


def test_every_mechanism_is_documented():
    text = DOCS.read_text()
    for name in DOMAINS:
        assert f"`{name}`" in text, name


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_outside_the_domain_is_refused_in_milliseconds(name):
    start = time.perf_counter()
    with pytest.raises(InputError) as err:
        check_domain(name, epsilon="1e400", delta="1e-5")
    assert err.value.parameter == "epsilon" and "supported domain" in err.value.reason
    with pytest.raises(InputError) as err:
        check_domain(name, epsilon="1", delta="1e-999999")
    assert err.value.parameter == "delta"
    # a hang guard, not a benchmark: refusing once meant a > 60 s exact computation on 1e-999999
    assert time.perf_counter() - start < 10


def test_api_checks_the_domain_too():
    with pytest.raises(InputError) as err:
        certdp.calibrate("gaussian", epsilon="1e400", delta="1e-5")
    assert err.value.parameter == "epsilon"
    with pytest.raises(InputError) as err:
        certdp.calibrate("multi-gaussian", epsilon="1", delta="1e-5", components=1000)
    assert err.value.parameter == "components"


def test_closed_forms_answer_at_extreme_delta():
    cert = certdp.calibrate("uniform", epsilon="1", delta="1e-100000")
    assert str(cert.interval[1]).startswith("5") and str(cert.interval[1]).upper().endswith("E+99999")


@pytest.mark.parametrize("name, fixed, eps_ok, eps_refused", [
    ("r1smg", {"dimension": 2}, "20", "20.5"),           # c1 = -1/2: measured eps = 20 (layer2), was 10
    ("r1smg", {"dimension": 3}, "40", "41"),             # c1 = -1: eps <= 40 |c1|
    ("r1smg", {"dimension": 4}, "50", "51"),             # c1 = -3/2: 40 |c1| = 60, the maximum 50
    ("r1smg", {"dimension": 10}, "50", "51"),            # c1 = -9/2: the sgg/r1smg maximum 50
    ("sgg", {"dimension": 2, "alpha": 0, "power": 1}, "20", "21"),
    ("sgg", {"dimension": 2, "alpha": "1/2", "power": 2}, "10", "11"),  # c1 = -1/4: 40 |c1| = 10 > 3
    ("sgg", {"dimension": 2, "alpha": "9/10", "power": 2}, "3", "4"),   # c1 = -1/20: the planar floor 3
    ("sgg", {"dimension": 3, "alpha": 1, "power": 3}, "20", "21"),
    ("sgg", {"dimension": 3, "alpha": "19/10", "power": 3}, "10", "11"),  # the floor 10 (unmeasured before too)
    ("sgg", {"dimension": 10, "alpha": 4, "power": "3/2"}, "50", "51"),  # c1 = -5/2
    ("sgg", {"dimension": 3, "alpha": 2, "power": "1/2"}, "50", "51"),   # alpha = T - 1: no singularity
])
def test_singular_loss_epsilon_caps(name, fixed, eps_ok, eps_refused):
    check_domain(name, epsilon=eps_ok, delta="1e-30", **fixed)
    with pytest.raises(InputError) as err:
        check_domain(name, epsilon=eps_refused, delta="1e-30", **fixed)
    assert err.value.parameter == "epsilon"


def test_radial_engine_domains_reach_delta_1e_300():
    """sgg / r1smg are documented down to delta = 1e-300 (issue 17; docs/coverage.md); since the `zs`
    round this includes SGG with alpha = T - 1 and p < 1 (bounded loss: the delta mass sits in a sliver around the
    cusp r = s, w = -1 below the double spacing; docs/sgg.md items 16-20), which kept delta >= 1e-30."""
    from certdp.mechanisms.domains import BOUNDED_LOSS_DELTA_MIN

    check_domain("r1smg", epsilon="10", delta="1e-300", dimension=1000)
    check_domain("r1smg", epsilon="3", delta="1e-300", dimension=2)
    check_domain("sgg", epsilon="10", delta="1e-300", dimension=10, alpha=4, power="3/2")
    check_domain("sgg", epsilon="1", delta="1e-300", dimension=2, alpha=1, power="3/2")
    for name in ("sgg", "r1smg"):
        with pytest.raises(InputError) as err:
            check_domain(name, epsilon="1", delta="1e-301", dimension=10, alpha=4, power="3/2")
        assert err.value.parameter == "delta"
    assert BOUNDED_LOSS_DELTA_MIN == Fraction(1, 10**300)
    for T, alpha in ((2, 1), (3, 2), (10, 9)):
        check_domain("sgg", epsilon="50", delta="1e-300", dimension=T, alpha=alpha, power="1/2")
    with pytest.raises(InputError) as err:
        check_domain("sgg", epsilon="1", delta="1e-301", dimension=3, alpha=2, power="1/2")
    assert err.value.parameter == "delta" and "1e-300" in err.value.reason
    text = DOCS.read_text()
    row = next(line for line in text.splitlines() if line.startswith("| `r1smg`"))
    assert "1e-300" in row
    row = next(line for line in text.splitlines() if line.startswith("| `sgg`"))
    assert "1e-300" in row and "1e-30 for alpha = T - 1" not in row


@pytest.mark.parametrize("mechanism, params", [
    ("sgg", {"dimension": 2, "alpha": 0, "power": 1, "rate": 1}),        # log-singular, c1 = -1/2
    ("sgg", {"dimension": 10, "alpha": 4, "power": Fraction(3, 2), "rate": 1}),
    ("sgg", {"dimension": 3, "alpha": 2, "power": Fraction(1, 2), "rate": 1}),  # bounded loss
    ("r1smg", {"dimension": 3, "sigma_star": 1}),
    ("l2-laplace", {"dimension": 2, "theta": 1}),
])
def test_accountant_asks_the_engine_nothing_outside_the_domain(mechanism, params):
    """The accountant's profile sources take their (eps_max, delta_floor) from the same table as the
    up-front check: a configuration the CLI refuses at eps is never asked of the engine at eps."""
    from certdp.accounting.profile_sources import source_for

    src = source_for(mechanism, {"sensitivity": Fraction(1), **{k: Fraction(v) for k, v in params.items()}})
    shape = {k: params[k] for k in ("dimension", "alpha", "power") if k in params}
    check_domain(mechanism, epsilon=src.eps_max, delta=src.delta_floor, **shape)  # inside
    with pytest.raises(InputError):
        check_domain(mechanism, epsilon=src.eps_max * (1 + Fraction(1, 10**6)), **shape)
    if src.delta_floor > 0:
        with pytest.raises(InputError):
            check_domain(mechanism, epsilon=1, delta=src.delta_floor / 2, **shape)


def test_ggm_sensitivity_vector_has_its_own_delta_floor():
    """p not in {2, inf} with >= 2 active entries: delta >= 1e-40 (the quantile coupling's measured floor);
    the scalar, p = 2 and one-active-entry cases keep the ggm row (1e-2000)."""
    from certdp.mechanisms.domains import VECTOR_DELTA_MIN

    assert VECTOR_DELTA_MIN == Fraction(1, 10**40)
    with pytest.raises(InputError) as err:
        check_domain("ggm", epsilon="1", delta="1e-41", shape="3/2", sensitivity="1,2")
    assert err.value.parameter == "delta" and "1e-40" in err.value.reason
    check_domain("ggm", epsilon="1", delta="1e-40", shape="3/2", sensitivity=[1, 2])
    for fixed in ({"shape": "2", "sensitivity": "1,2"}, {"shape": "inf", "sensitivity": "1,2"},
                  {"shape": "3/2", "sensitivity": "0,2"}, {"shape": "3/2", "sensitivity": "2"}):
        check_domain("ggm", epsilon="1", delta="1e-300", **fixed)
    with pytest.raises(InputError):
        certdp.calibrate("ggm", epsilon="1", delta="1e-300", shape="3/2", sensitivity="1,2")
    # at the floor the vector calibration certifies (and quickly: ~1 s)
    cert = certdp.calibrate("ggm", epsilon="1", delta="1e-40", shape="3/2", sensitivity="1,2")
    assert cert.method == "quantile-coupling" and certdp.verify(cert).status == "VALID"


@pytest.mark.parametrize("dimension, alpha, refused", [
    (2, "499/500", True), (2, "0.95", True), (3, "1.99", True),   # -1/20 < c1 < 0: refused
    (2, "9/10", False), (2, "1", False), (3, "19/10", False), (3, "2", False), (10, "8", False),
])
def test_nearly_regular_singular_shapes_are_refused(dimension, alpha, refused):
    """alpha within 1/10 of T - 1 but below it (-1/20 < c1 < 0) is outside the domain (the radial engine
    timed out there even at eps = 1, docs/coverage.md); the edge c1 = -1/20 and alpha = T - 1 are inside."""
    fixed = {"dimension": dimension, "alpha": alpha, "power": "2"}
    if refused:
        with pytest.raises(InputError) as exc:
            check_domain("sgg", epsilon="1", delta="1e-5", **fixed)
        assert exc.value.parameter == "alpha" and "T - 1" in str(exc.value)
    else:
        check_domain("sgg", epsilon="1", delta="1e-5", **fixed)


@pytest.mark.parametrize("alpha, refused", [("0.95", True), ("499/500", True), ("9/10", False), ("1", False)])
def test_plan_steps_refuse_nearly_regular_singular_shapes(alpha, refused):
    """The accountant asks the radial engine for many epsilons of each step: a nearly regular log-singular
    shape (-1/20 < c1 < 0) is refused when the plan is read, as the calibration refuses it."""
    from certdp.accounting import parse_plan

    plan = {"mechanisms": [{"mechanism": "sgg", "dimension": 2, "alpha": alpha, "power": 2, "rate": 1,
                            "count": 2}]}
    if refused:
        with pytest.raises(InputError) as exc:
            parse_plan(plan)
        assert exc.value.parameter.endswith(".alpha") and "T - 1" in str(exc.value)
    else:
        parse_plan(plan)
