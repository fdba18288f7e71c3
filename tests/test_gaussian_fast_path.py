"""The fast path of the closed-form calibrations (issue 17, item 2) against the general code it skips.

Each shortcut is compared with the code path it replaces, which stays in the package (or, for the
certificate, with a reconstruction from the public pieces written here):

* ``Gaussian.profile_at`` (per-precision constants) against the generated evaluator behind
  ``Gaussian.profile_ball``: the same midpoint and radius, bit for bit;
* the bracket's first-rung shortcut (``first_steps_at_first_rung=True``) against the general walk
  (``False``): the same bracket, enclosures, evaluation count and precision, including the inputs
  where the shortcut hands over to the general search (candidate off, precision escalation);
* the dyadic and float-guessed decimal rounding against ``_round_positive``'s division;
* ``Certificate._build`` (fields written at once) against the dataclass constructor;
* a whole calibration (first call and the prepared repeat) against a reconstruction by the
  general path -- SciPy ``brentq`` candidate, generated profile, general bracket, dataclass
  certificate --, body and digest, with the safe end checked against 60-digit mpmath.
"""

from __future__ import annotations

import dataclasses
import math
import random
from decimal import Decimal
from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb, ctx, fmpq

import certdp
from certdp.certificate import Certificate
from certdp.mechanisms import get_mechanism
from certdp.numbers import arb_of, certified_monotone_bracket, exact_str, parse_exact
from certdp.numbers.balls import _round_dyadic_positive, _round_positive, ball_endpoints
from certdp.workflows import calibrate as calibrate_module
from certdp.workflows.methods import METHODS

from reference import gaussian_delta_closed_form, mpf
from test_fast_bookkeeping import _scipy_candidate, reference_round

GAUSSIAN = get_mechanism("gaussian")
LAPLACE = get_mechanism("laplace")
UNIFORM = get_mechanism("uniform")


def _same_ball(a: arb, b: arb) -> bool:
    return a.mid() == b.mid() and a.rad() == b.rad()


def _random_rational(rng: random.Random, low: float, high: float) -> Fraction:
    return Fraction(repr(10 ** rng.uniform(low, high)))


# ------------------------------------------------------------------ the Gaussian profile closure
def test_profile_closure_gives_the_generated_balls_bit_for_bit():
    rng = random.Random(31)
    saved = ctx.prec
    try:
        for _ in range(1500):
            eps = _random_rational(rng, -2.5, 1.8)
            sens = rng.choice([Fraction(1), Fraction(2), Fraction(1, 3), _random_rational(rng, -2, 2)])
            closure = GAUSSIAN.profile_at(eps, sens)
            for bits in rng.sample([64, 128, 256, 512, 1024], 2):
                ctx.prec = bits
                sigma = arb(fmpq(rng.randint(1, 10**15), 10 ** rng.randint(0, 17)))
                if rng.random() < 0.2:  # a ball with a radius, as an audit of an irrational claim passes
                    sigma = sigma + arb(0, 2.0 ** -rng.randint(20, 60))
                fast, generic = closure(sigma), GAUSSIAN.profile_ball(sigma, arb_of(eps), sens)
                assert _same_ball(fast, generic), (eps, sens, sigma, bits)
    finally:
        ctx.prec = saved


def test_profile_closure_contains_mpmath_delta():
    """Not only equal to the generated evaluator: it encloses the 60-digit closed form."""
    rng = random.Random(32)
    saved = ctx.prec
    try:
        ctx.prec = 64
        for _ in range(60):
            eps, sens = _random_rational(rng, -2, 0.7), _random_rational(rng, -0.3, 0.3)
            sigma = _random_rational(rng, -0.5, 1)
            ball = GAUSSIAN.profile_at(eps, sens)(arb(fmpq(sigma.numerator, sigma.denominator)))
            lo, hi = ball_endpoints(ball)
            with mp.workdps(60):
                assert mpf(lo) <= gaussian_delta_closed_form(sigma, mpf(eps), mpf(sens)) <= mpf(hi)
    finally:
        ctx.prec = saved


# ------------------------------------------------------------------ the bracket shortcut
def _bracket_fields(b) -> tuple:
    for end in (b.lo, b.hi):  # canonical ends (Certificate.for_calibration takes them as given)
        assert type(end) is Decimal and str(Decimal(exact_str(Fraction(end)))) == str(end)
    return (b.lo, b.hi, b.increasing, b.delta_at_safe.strings(), b.delta_at_unsafe.strings(),
            b.delta_at_safe.lower, b.delta_at_unsafe.upper, b.delta_at_safe.precision_bits,
            b.precision_bits, b.evaluations, b.notes)


def _profile(cls, eps: Fraction, sens: Fraction):
    def profile(t: arb) -> arb:
        return cls.profile_ball(t, arb_of(eps), sens)

    return profile


@pytest.mark.parametrize("cls", [GAUSSIAN, LAPLACE, UNIFORM], ids=lambda c: c.name)
def test_shortcut_gives_the_general_bracket(cls):
    rng = random.Random(33)
    handed_over = 0
    for i in range(120):
        eps, sens = _random_rational(rng, -2, 1.6), rng.choice([Fraction(1), _random_rational(rng, -1, 1)])
        delta = _random_rational(rng, -15, -0.5) if i % 7 else Fraction(1, 10**300)
        rtol = rng.choice([Fraction(1, 10**12), Fraction(1, 10**6), Fraction(1, 1000), Fraction(3, 10)])
        if cls is UNIFORM:
            exact = UNIFORM.exact_candidate(delta, sens)
        else:
            exact = cls.float_candidate(float(eps), math.log(delta.numerator) - math.log(delta.denominator), sens)
        # accurate, slightly and grossly off, a Decimal / Fraction / int candidate, none at all
        candidate = rng.choice([
            exact, exact, exact,
            None if exact is None else float(exact) * (1 + rng.choice([-1, 1]) * 10 ** rng.uniform(-13, -1)),
            None if exact is None else Decimal(repr(float(exact))),
            None if exact is None else Fraction(exact) * 3,
            None if exact is None else max(1, int(exact)),
            None,
        ])
        results = []
        for shortcut in (False, True):
            results.append(_bracket_fields(certified_monotone_bracket(
                _profile(cls, eps, sens), delta, increasing=False, candidate=candidate, rtol=rtol,
                first_steps_at_first_rung=shortcut)))
        assert results[0] == results[1], (cls.name, eps, delta, sens, rtol, candidate)
        handed_over += results[0][-2] != 2
    assert handed_over >= 10  # the hand-over to the general search was exercised


def test_shortcut_hands_over_undecided_and_escalating_points():
    """A profile that is undecidable at 64 bits (a wide ball) near the boundary: the shortcut must
    leave the point to the ladder, which decides it at 128 bits -- the same bracket as without it."""
    boundary = Fraction(5, 3)

    def profile(t: arb) -> arb:  # delta(t) = 1/t, blurred at 64 bits
        value = 1 / t
        return value + arb(0, 2.0**-20) if ctx.prec <= 64 else value

    for candidate in (float(boundary), float(boundary) * (1 + 1e-8), 1.0, 3.0):
        general = certified_monotone_bracket(profile, 1 / boundary, increasing=False, candidate=candidate,
                                             rtol=Fraction(1, 10**12))
        fast = certified_monotone_bracket(profile, 1 / boundary, increasing=False, candidate=candidate,
                                          rtol=Fraction(1, 10**12), first_steps_at_first_rung=True)
        assert _bracket_fields(general) == _bracket_fields(fast)
        assert general.precision_bits >= 128 and Fraction(general.lo) < boundary <= Fraction(general.hi)


# ------------------------------------------------------------------ decimal rounding
def test_dyadic_rounding_matches_the_division():
    rng = random.Random(34)
    for _ in range(20000):
        a = rng.getrandbits(rng.randint(1, 400)) or 1
        if rng.random() < 0.25:  # next to a power of ten, where the float guess of the exponent may be off
            a = max(1, 10 ** rng.randint(0, 80) * rng.choice([1, 2, 5]) + rng.choice([-1, 0, 1]))
        k = rng.randint(-4000, 400) if rng.random() < 0.9 else rng.randint(-40000, 4000)
        digits, away = rng.randint(1, 25), rng.random() < 0.5
        expected = _round_positive(a << k, 1, digits, away) if k >= 0 else _round_positive(a, 1 << -k, digits, away)
        assert _round_dyadic_positive(a, k, digits, away) == expected, (a, k, digits, away)


def test_ratio_rounding_beyond_the_float_range():
    """``_round_positive`` guesses the exponent from ``a / den`` as a float; beyond the float range
    (overflow, underflow to 0) it falls back to the bit lengths. Both against Fraction arithmetic."""
    rng = random.Random(35)
    for _ in range(400):
        num, den = rng.randint(1, 10**30), rng.randint(1, 10**30)
        scale = 10 ** rng.randint(300, 1200)
        for a, b in ((num * scale, den), (num, den * scale), (num, den)):
            digits, away = rng.randint(1, 22), rng.random() < 0.5
            n, shift = _round_positive(a, b, digits, away)
            value = Fraction(n) / Fraction(10) ** shift
            assert value == reference_round(Fraction(a, b), digits, "up" if away else "down")


# ------------------------------------------------------------------ the certificate
def test_build_writes_what_the_dataclass_constructor_writes():
    certs = [certdp.calibrate("gaussian", epsilon=1, delta="1e-5", sensitivity=2),
             certdp.calibrate("laplace", epsilon="0.5", delta=0, sensitivity=1),
             certdp.audit("gaussian", value="3.5", epsilon=1, delta="1e-5"),
             certdp.profile("gaussian", value="2", epsilon="0.5")]
    for cert in certs:
        rebuilt = Certificate(**{f.name: getattr(cert, f.name) for f in dataclasses.fields(Certificate)
                                 if f.name not in ("guarantee", "digest")})
        state = {k: v for k, v in rebuilt.__dict__.items() if k not in ("guarantee", "digest")}
        assert cert.__dict__.keys() - {"guarantee", "digest"} == state.keys()
        assert all(cert.__dict__[k] == v and type(cert.__dict__[k]) is type(v) for k, v in state.items())
        rebuilt.guarantee = rebuilt.statement()
        assert cert.compute_digest() == rebuilt.compute_digest() and cert.guarantee == rebuilt.guarantee
    with pytest.raises(TypeError):
        Certificate._build(kind="profile", claim="enclosure", mechanism="gaussian", parameters={}, inputs={},
                           method="m", lemma="l", extra=None, timing_seconds=0.0, no_such_field=1)


def _reconstructed(mechanism: str, epsilon, delta, sensitivity) -> Certificate:
    """The calibration certificate by the general path: SciPy's candidate (Gaussian), the generated
    profile, the general bracket and the dataclass constructor."""
    cls = get_mechanism(mechanism)
    eps, dlt, sens = (parse_exact(x, "x") for x in (epsilon, delta, sensitivity))
    rtol = Fraction(1, 10**12)
    if cls is GAUSSIAN:
        candidate = _scipy_candidate(float(eps), math.log(dlt.numerator) - math.log(dlt.denominator), float(sens))
    elif cls is UNIFORM:
        candidate = UNIFORM.exact_candidate(dlt, sens)
    else:
        candidate = LAPLACE.float_candidate(float(eps), math.log(dlt.numerator) - math.log(dlt.denominator), sens)
    bracket = certified_monotone_bracket(_profile(cls, eps, sens), dlt, increasing=False, candidate=candidate,
                                         rtol=rtol)
    params = {"sensitivity": exact_str(sens), **({"dimension": "1"} if cls is GAUSSIAN else {})}
    method = METHODS["certified-bracket"]
    lo, hi = (Decimal(exact_str(Fraction(x))) for x in (bracket.lo, bracket.hi))
    cert = Certificate(
        kind="calibration", claim=method.claim(cls), mechanism=cls.name, parameters=params,
        inputs={"epsilon": exact_str(eps), "delta": exact_str(dlt), "rtol": exact_str(rtol)},
        method=method.name, lemma=method.lemma(cls), parameter=cls.parameter, value=hi, interval=(lo, hi),
        safe_side="upper", delta_enclosure=bracket.delta_at_safe.strings(), precision_bits=bracket.precision_bits,
        extra={"evaluations": bracket.evaluations,
               "delta_enclosure_at_unsafe_end": bracket.delta_at_unsafe.strings(),
               **({"notes": list(bracket.notes)} if bracket.notes else {})},
    )
    cert.guarantee = cert.statement()
    return cert


def test_calibration_certificates_equal_the_general_path():
    rng = random.Random(36)
    points = [("gaussian", 1.0, 1e-5, 1), ("gaussian", "0.01", "1e-12", "2"), ("gaussian", 50, "1e-300", "1/3"),
              ("gaussian", 0.1, 0.01, 1), ("laplace", 1.0, 1e-5, 1), ("uniform", 10, "1e-9", "3")]
    for _ in range(40):
        points.append((rng.choice(["gaussian", "gaussian", "laplace", "uniform"]), 10 ** rng.uniform(-2, 1.69),
                       10 ** -rng.uniform(0.5, 15), rng.choice([1, 2, 0.5, 10 ** rng.uniform(-2, 2)])))
    for mechanism, epsilon, delta, sensitivity in points:
        expected = _reconstructed(mechanism, epsilon, delta, sensitivity)
        first = certdp.calibrate(mechanism, epsilon=epsilon, delta=delta, sensitivity=sensitivity)
        again = certdp.calibrate(mechanism, epsilon=epsilon, delta=delta, sensitivity=sensitivity)  # prepared inputs
        for cert in (first, again):
            assert cert.body() == expected.body(), (mechanism, epsilon, delta, sensitivity)
            assert cert.digest == expected.compute_digest()
            assert cert.precision_bits == expected.precision_bits
        if mechanism == "gaussian":
            lo, hi = (Fraction(x) for x in first.interval)
            e, s = parse_exact(epsilon, "e"), parse_exact(sensitivity, "s")
            with mp.workdps(60):
                assert gaussian_delta_closed_form(hi, mpf(e), mpf(s)) <= mpf(parse_exact(delta, "d")) \
                    < gaussian_delta_closed_form(lo, mpf(e), mpf(s))


def test_prepared_inputs_are_typed_and_errors_are_not_kept():
    calibrate_module._PREPARED.clear()
    a = certdp.calibrate("gaussian", epsilon=1, delta="1e-5")
    b = certdp.calibrate("gaussian", epsilon=1.0, delta="1e-5")
    c = certdp.calibrate("gaussian", epsilon="1", delta="1e-5", rtol="1e-6")
    assert a.digest == b.digest != c.digest and c.inputs["rtol"] == exact_str(Fraction(1, 10**6))
    assert len(calibrate_module._PREPARED) == 3
    for _ in range(2):
        with pytest.raises(certdp.numbers.InputError, match="^delta: "):
            certdp.calibrate("gaussian", epsilon=1, delta="1.5")
    assert len(calibrate_module._PREPARED) == 3


def test_shortcut_writes_the_reached_record_of_the_general_search():
    """Under a budget record (``bracket_reached``) the shortcut leaves the same certified points as
    the general search: after a whole bracket, and when the second evaluation is interrupted."""
    from certdp.numbers.bracket import bracket_reached

    eps, delta = Fraction(1), Fraction(1, 10**5)
    candidate = GAUSSIAN.float_candidate(1.0, math.log(1e-5))
    for off in (1.0, 1 + 1e-9, 1 - 1e-9):
        records = []
        for shortcut in (False, True):
            record: dict = {}
            with bracket_reached(record):
                certified_monotone_bracket(_profile(GAUSSIAN, eps, Fraction(1)), delta, increasing=False,
                                           candidate=candidate * off, rtol=Fraction(1, 10**12),
                                           first_steps_at_first_rung=shortcut)
            records.append({k: (v[0], v[1].strings()) if isinstance(v, tuple) else v for k, v in record.items()})
        assert records[0] == records[1] and "safe" in records[0] and "unsafe" in records[0]

    class Stop(Exception):
        pass

    def second_call_stops():
        calls = []

        def profile(t: arb) -> arb:
            calls.append(t)
            if len(calls) > 1:
                raise Stop
            return GAUSSIAN.profile_ball(t, arb_of(eps), Fraction(1))

        return profile

    records = []
    for shortcut in (False, True):
        record = {}
        with bracket_reached(record), pytest.raises(Stop):
            certified_monotone_bracket(second_call_stops(), delta, increasing=False, candidate=candidate,
                                       rtol=Fraction(1, 10**12), first_steps_at_first_rung=shortcut)
        records.append({k: (v[0], v[1].strings()) if isinstance(v, tuple) else v for k, v in record.items()})
    assert records[0] == records[1] and "safe" in records[0] and "unsafe" not in records[0]
