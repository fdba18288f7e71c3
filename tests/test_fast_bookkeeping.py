"""The fast bookkeeping of the closed-form calibrations (issue 17, item 2) against reference code.

Every fast helper is compared with a straightforward reference written here (Fraction / Decimal
arithmetic, ``json.loads(json.dumps(...))``, ``hashlib`` on ``json.dumps``), on random and edge
inputs; the calibration certificates are checked field by field against what the contract
specifies, against independent 60-digit mpmath values, and by ``certdp verify`` in a fresh process.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import struct
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import pytest
from flint import arb, ctx

import certdp
from certdp.certificate import Certificate, _json_copy
from certdp.numbers import Enclosure, exact_str, parse_exact, round_decimal
from certdp.numbers.balls import ball_endpoints, dyadic_endpoints, round_dyadic, round_fraction, round_ratio
from certdp.numbers.exact import decimal_text, fraction_of_float_repr
from certdp.mechanisms.domains import _below

from reference import gaussian_delta_closed_form, gaussian_delta_quadrature, mpf

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ references
def reference_exact_str(q: Fraction) -> str:
    """exact_str by Decimal arithmetic: a terminating decimal when the denominator is 2^a 5^b."""
    q = Fraction(q)
    den = q.denominator
    for prime in (2, 5):
        while den % prime == 0:
            den //= prime
    if den != 1:
        return f"{q.numerator}/{q.denominator}"
    if q.denominator == 1 and abs(q.numerator) < 10**21:
        return str(q.numerator)
    digits = 0
    while (q * 10**digits).denominator != 1:
        digits += 1
    n = int(q * 10**digits)
    sign, text = ("-" if n < 0 else ""), str(abs(n)).rstrip("0")
    exponent = len(str(abs(n))) - len(text) - digits
    adjusted = len(text) - 1 + exponent
    if -4 <= adjusted <= 20:
        with_point = format(Decimal(f"{text}e{exponent}"), "f")
        return sign + with_point
    return f"{sign}{text[0]}{'.' + text[1:] if len(text) > 1 else ''}e{adjusted}"


def reference_round(q: Fraction, digits: int, direction: str) -> Fraction:
    """Directed rounding to significant digits by Fraction arithmetic and a log10 search."""
    if q == 0:
        return Fraction(0)
    e = 0
    a = abs(q)
    while a >= Fraction(10) ** (e + 1):
        e += 1
    while a < Fraction(10) ** e:
        e -= 1
    unit = Fraction(10) ** (e - digits + 1)
    n = q / unit
    n = math.floor(n) if direction == "down" else math.ceil(n)
    return n * unit


def _random_fractions(rng: random.Random, count: int) -> list[Fraction]:
    out = [Fraction(0), Fraction(1), Fraction(-1), Fraction(10**21), Fraction(10**21 - 1), Fraction(1, 3),
           Fraction(-7, 10**30), Fraction(999999, 10**6), Fraction(10**25, 1)]
    for _ in range(count):
        kind = rng.randrange(5)
        num = rng.randint(-10**rng.randint(0, 30), 10**rng.randint(0, 30))
        den = {0: 1, 1: 2**rng.randint(0, 90), 2: 5**rng.randint(0, 50), 3: 10**rng.randint(0, 40),
               4: rng.randint(1, 10**6)}[kind]
        out.append(Fraction(num, den))
    return out


# ------------------------------------------------------------------ numbers layer
def test_exact_str_matches_reference():
    rng = random.Random(17)
    for q in _random_fractions(rng, 3000):
        assert exact_str(q) == reference_exact_str(q), q
        if "/" not in exact_str(q):
            assert parse_exact(exact_str(q), "q") == q
            assert exact_str(Decimal(exact_str(q))) == exact_str(q)


def test_exact_str_of_decimals_and_digit_text():
    rng = random.Random(18)
    decimals = [Decimal("0"), Decimal("-0"), Decimal("0E-30"), Decimal("1E+21"), Decimal("-1.50E-7"),
                Decimal("123.4500"), Decimal("999999999999999999999")]
    decimals += [Decimal((rng.randint(0, 1), tuple(rng.randint(0, 9) for _ in range(rng.randint(1, 25))),
                          rng.randint(-40, 30))) for _ in range(2000)]
    for d in decimals:
        assert exact_str(d) == reference_exact_str(Fraction(d)), d
    for _ in range(2000):
        n, e = rng.randint(-10**25, 10**25), rng.randint(-40, 30)
        assert decimal_text(n, e) == reference_exact_str(Fraction(n) * Fraction(10) ** e)


def test_directed_rounding_matches_reference():
    rng = random.Random(19)
    for q in _random_fractions(rng, 1500):
        digits, direction = rng.randint(1, 22), rng.choice(["up", "down"])
        expected = reference_round(q, digits, direction)
        assert Fraction(round_decimal(q, digits, direction)) == expected
        assert round_fraction(q, digits, direction) == expected
        k = rng.randint(1, 9)
        assert round_ratio(q.numerator * k, q.denominator * k, digits, direction) == expected
        mantissa, exponent = rng.randint(-2**70, 2**70), rng.randint(-150, 60)
        value = Fraction(mantissa) * Fraction(2) ** exponent
        assert round_dyadic(mantissa, exponent, digits, direction) == reference_round(value, digits, direction)


def test_enclosure_of_a_ball_is_outward_and_lazy():
    rng = random.Random(20)
    saved = ctx.prec
    try:
        for _ in range(400):
            ctx.prec = rng.choice([30, 64, 200])
            x = arb(rng.uniform(-10, 10)) * arb(10) ** rng.randint(-300, 300) / 3
            lo, hi = ball_endpoints(x)
            (lm, le), (hm, he) = dyadic_endpoints(x)
            assert (Fraction(lm) * Fraction(2) ** le, Fraction(hm) * Fraction(2) ** he) == (lo, hi)
            enc = Enclosure.from_arb(x, 64)
            strings = enc.strings()  # written from the digits, before the Fractions exist
            assert enc.lower == reference_round(lo, 20, "down") <= lo
            assert hi <= enc.upper == reference_round(hi, 20, "up")
            assert strings == [exact_str(enc.lower), exact_str(enc.upper)]
            assert enc == Enclosure(enc.lower, enc.upper, 64) and hash(enc) == hash(Enclosure(enc.lower, enc.upper, 64))
    finally:
        ctx.prec = saved


def test_float_repr_parsing_and_cached_inputs():
    rng = random.Random(21)
    for _ in range(3000):
        x = struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
        if math.isfinite(x):
            assert fraction_of_float_repr(x) == Fraction(Decimal(repr(x)))
            assert parse_exact(x, "x") == parse_exact(x, "x") == Fraction(Decimal(repr(x)))
    # cached by (type, value): 1, 1.0, "1" and True stay distinct inputs
    assert parse_exact(1, "x") == parse_exact(1.0, "x") == parse_exact("1", "x") == 1
    for bad in (True, float("nan"), "nan", Decimal("NaN")):
        for _ in range(2):  # errors are never cached
            with pytest.raises(certdp.numbers.InputError, match="^x: "):
                parse_exact(bad, "x")


def test_below_and_json_copy_match_plain_python():
    rng = random.Random(22)
    fractions = _random_fractions(rng, 400) + [Fraction(1, 10**3000), Fraction(10**3000)]
    for a in fractions:
        b = rng.choice(fractions)
        assert _below(a, b) == (a < b) and _below(a, a) is False
    samples = [{"a": [1, "x", (2, 3), None, True, {"b": []}]}, [1, 2, "3"], {"e": 1.5}, {1: "x"},
               {"t": (1, (2,))}, {"evaluations": 2, "delta_enclosure_at_unsafe_end": ["1e-5", "2e-5"]}]
    for v in samples:
        assert _json_copy(v) == json.loads(json.dumps(v))


# ------------------------------------------------------------------ certificates
POINTS = [("gaussian", 1.0, 1e-5, 1), ("gaussian", "0.01", "1e-12", "2"), ("gaussian", 50, "0.1", "1/3"),
          ("gaussian", "1/3", "1e-300", 1), ("laplace", 1.0, 1e-5, 1), ("laplace", "0.1", "0.3", "0.5"),
          ("uniform", 1.0, 0.01, 1), ("uniform", 10, "1e-9", "3")]


def _independent_digest(cert: Certificate) -> str:
    """SHA-256 of the canonical JSON of the certified content, written from the JSON text."""
    data = json.loads(cert.to_json())
    for key in ("digest", "created", "timing_seconds", "versions", "precision_bits"):
        data.pop(key, None)
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode("ascii")).hexdigest()


@pytest.mark.parametrize("mechanism, epsilon, delta, sensitivity", POINTS)
def test_calibration_certificate_content(mechanism, epsilon, delta, sensitivity):
    """Fields as the contract specifies; the lazily computed digest equals an eager SHA-256 of the
    canonical JSON; the safe end is private and the other end is not, by 60-digit mpmath."""
    cert = certdp.calibrate(mechanism, epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    assert "digest" not in cert.__dict__  # sealed lazily ...
    digest = _independent_digest(cert)
    assert cert.digest == digest == cert.compute_digest()  # ... to the same digest
    assert (cert.kind, cert.claim, cert.method, cert.safe_side) == ("calibration", "minimal", "certified-bracket", "upper")
    lo, hi = (Fraction(x) for x in cert.interval)
    assert Fraction(cert.value) == hi and lo < hi and (hi - lo) / hi <= Fraction(1, 10**12)
    assert cert.inputs == {"epsilon": exact_str(parse_exact(epsilon, "e")), "delta": exact_str(parse_exact(delta, "d")),
                           "rtol": "1e-12"}
    assert cert.guarantee == cert.statement() and exact_str(hi) in cert.guarantee
    enc_lo, enc_hi = (Fraction(x) for x in cert.delta_enclosure)
    un_lo, un_hi = (Fraction(x) for x in cert.extra["delta_enclosure_at_unsafe_end"])
    d = parse_exact(delta, "delta")
    assert enc_lo <= enc_hi <= d < un_lo <= un_hi
    if mechanism == "gaussian":
        with mp.workdps(60):
            at_hi = gaussian_delta_closed_form(hi, mpf(parse_exact(epsilon, "e")), mpf(parse_exact(sensitivity, "s")))
            at_lo = gaussian_delta_closed_form(lo, mpf(parse_exact(epsilon, "e")), mpf(parse_exact(sensitivity, "s")))
            assert mpf(enc_lo) <= at_hi <= mpf(enc_hi) and mpf(un_lo) <= at_lo <= mpf(un_hi)
    elif mechanism == "laplace":
        with mp.workdps(60):
            e, s = mpf(parse_exact(epsilon, "e")), mpf(parse_exact(sensitivity, "s"))
            at_hi = -mp.expm1((e - s / mpf(hi)) / 2)
            at_lo = -mp.expm1((e - s / mpf(lo)) / 2)
            assert mpf(enc_lo) <= at_hi <= mpf(enc_hi) and mpf(un_lo) <= at_lo <= mpf(un_hi)
    else:  # uniform: delta = Delta / (2 b) exactly
        s = parse_exact(sensitivity, "s")
        assert enc_lo <= s / (2 * hi) <= enc_hi and un_lo <= s / (2 * lo) <= un_hi


def test_gaussian_certificate_against_quadrature_and_same_digest_twice():
    cert = certdp.calibrate("gaussian", epsilon="2", delta="1e-7", sensitivity=1)
    lo, hi = cert.interval
    with mp.workdps(60):
        assert gaussian_delta_quadrature(hi, 2) <= mpf("1e-7") < gaussian_delta_quadrature(lo, 2)
    again = certdp.calibrate("gaussian", epsilon=2.0, delta=1e-7, sensitivity=1.0)
    assert again.digest == cert.digest  # same statement, same digest (provenance excluded)
    sealed = certdp.calibrate("gaussian", epsilon=2, delta="1e-7", sensitivity=1).seal()
    assert sealed.digest == cert.digest


def test_fast_certificates_verify_in_a_fresh_process(tmp_path):
    """Each certificate passes `certdp verify` in a fresh process; a forged value fails."""
    files = []
    for i, (mechanism, epsilon, delta, sensitivity) in enumerate(POINTS):
        path = tmp_path / f"c{i}.json"
        path.write_text(certdp.calibrate(mechanism, epsilon=epsilon, delta=delta, sensitivity=sensitivity).to_json())
        files.append(str(path))
    forged = json.loads(Path(files[0]).read_text())
    forged["value"] = forged["interval"][1] = forged["interval"][0]  # the unsafe end claimed safe
    forged_cert = Certificate.from_dict(forged)
    forged_cert.guarantee = forged_cert.statement()
    (tmp_path / "forged.json").write_text(forged_cert.seal().to_json())
    code = ("import sys, certdp\n"
            "for f in sys.argv[1:]: print(f, certdp.verify(open(f).read()).status)\n")
    out = subprocess.run([sys.executable, "-c", code, *files, str(tmp_path / "forged.json")], cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    status = dict(line.rsplit(" ", 1) for line in out.stdout.strip().splitlines())
    assert all(status[f] == "VALID" for f in files), status
    assert status[str(tmp_path / "forged.json")] == "INVALID"


# ------------------------------------------------------------------ the float candidate
def _scipy_candidate(eps: float, log_d: float, sens: float) -> float:
    """The float candidate as SciPy computes it: ``brentq`` on the ufunc ``log_ndtr`` formula."""
    from scipy.optimize import brentq
    from scipy.special import log_ndtr

    def gap(log_sigma: float) -> float:
        sigma = math.exp(log_sigma)
        a, b = sens / (2.0 * sigma), eps * sigma / sens
        la, lb = float(log_ndtr(a - b)), float(log_ndtr(-a - b))
        g = eps + lb - la
        return (-math.inf if g >= 0.0 else la + math.log1p(-math.exp(g))) - log_d

    c = math.log(sens) + 0.5 * math.log(2.0 * (math.log(1.25) - log_d)) - math.log(eps)
    lo, hi = c - 2.0, c + 0.5
    while gap(lo) <= 0:
        lo -= 2.0
    while gap(hi) >= 0:
        hi += 2.0
    return math.exp(brentq(gap, lo, hi, xtol=1e-15, rtol=8.9e-16, maxiter=200))


def test_float_candidate_is_scipys_bit_for_bit():
    """The ported Brent and the scalar log_ndtr give SciPy's candidate exactly (so the rounded
    bracket points, hence the certificates, are those of the SciPy path)."""
    from scipy.optimize import brentq

    from certdp.mechanisms.gaussian import Gaussian
    from certdp.numbers.float_brent import brent_root

    rng = random.Random(23)
    for _ in range(1500):
        eps, log_d, sens = 10 ** rng.uniform(-3, 2.5), -(10 ** rng.uniform(-1.5, 3.3)), 10 ** rng.uniform(-2, 2)
        assert Gaussian.float_candidate(eps, log_d, Fraction(repr(sens))) == _scipy_candidate(eps, log_d, sens)
    for i in range(500):
        r, k = rng.uniform(-3, 3), rng.randint(1, 5)
        f = lambda x: (x - r) ** k * math.exp(x / 7) + 1e-2 * math.sin(x)  # noqa: E731
        lo, hi = r - rng.uniform(0.1, 5), r + rng.uniform(0.1, 5)
        if math.copysign(1, f(lo)) != math.copysign(1, f(hi)):
            for xtol, rtol in ((1e-12, 8.9e-16), (1e-6, 1e-6)):
                assert brent_root(f, lo, hi, xtol=xtol, rtol=rtol, maxiter=100) == \
                    brentq(f, lo, hi, xtol=xtol, rtol=rtol, maxiter=100)
    with pytest.raises(ValueError):
        brent_root(lambda x: x, 1.0, 2.0, xtol=1e-12, rtol=1e-12, maxiter=50)  # no sign change


def test_vector_certificate_cut_points_marker():
    """A vector certificate says its cut points were shared (standardized at the float candidate);
    verify rebuilds them only then, so certificates cut per scale (older certdp) still verify, and
    a removed marker cannot turn into a false VALID (at worst UNDECIDED: any cut points are rigorous)."""
    from certdp.workflows.ggm_vector import CUT_POINTS_SHARED, calibrate_vector

    cert = calibrate_vector("1.5", 1, "0.01", "1,2", grid_step=2.0**-9, rtol=3e-2)
    assert cert.extra["cut_points"] == CUT_POINTS_SHARED
    assert certdp.verify(cert.to_json()).status == "VALID"
    data = json.loads(cert.to_json())
    data["extra"].pop("cut_points")
    edited = Certificate.from_dict(data)
    assert certdp.verify(edited.seal().to_json()).status in ("UNDECIDED", "VALID")
