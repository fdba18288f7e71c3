"""The radial engine at large epsilon (issue 17): the layer around the loss singularity r = s.

For alpha < T - 1 the privacy loss has a log singularity at ``r = s, w = -1``.  At large eps the B side
(``w*(r, eps) > -1``) is a layer ``|r/s - 1| <~ e^(-eps / (2 |c1|))`` around ``r = s`` where ``1 + w*`` is
tiny (``~1e-10`` in its middle at eps = 10, T = 2, and vanishing linearly at its ends, where
``F_W(w*)`` has a square-root end for T = 2); the A side has a similar layer at ``r ~ s e^-eps``.

The reference here is independent of the engine's formulas: mpmath at 50 digits integrates in ``r``
(not ``z = r^p``), solves ``Phi = y`` for ``q = |r e_1 + s u|^2`` (not for ``w``) by ``findroot`` /
bisection, forms ``1 + w* = (q - (r - s)^2) / (2 s r)`` directly, and uses the closed forms
``F_W(-1 + v) = (2/pi) asin(sqrt(v/2))`` (T = 2) and ``v / 2`` (T = 3) instead of the incomplete beta.
The breakpoints (where ``Phi(r, +-1) = +-eps``) are located by bisection in mpmath on a grid graded
towards ``r = s`` and ``r = 0``; the quadrature is split there (tanh-sinh handles the square-root
ends).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb

from certdp.engines.radial import sgg_delta_enclosure
from certdp.numbers import working_precision


MAXDEGREE = 8


def _mpf(q) -> mp.mpf:
    q = Fraction(q)
    return mp.mpf(q.numerator) / q.denominator


def mp_layer_delta(T, alpha, p, beta, eps, dps=50, far=40, near=90):
    """delta(eps) of SGG(alpha, beta, p) in R^T (s = 1) at ``dps`` digits; returns (delta, error estimate)."""
    assert T in (2, 3)
    with mp.workdps(dps):
        alpha, p, beta, eps = _mpf(alpha), _mpf(p), _mpf(beta), _mpf(eps)
        s = mp.mpf(1)
        c1 = (alpha + 1 - T) / 2
        k = (alpha + 1) / p
        log_norm = mp.log(p) + k * mp.log(beta) - mp.loggamma(k)

        def loss_q(r, q):                       # Phi as a function of q = r^2 + 2 s w r + s^2
            return c1 * mp.log(q / (r * r)) + beta * (r ** p - q ** (p / 2))

        def end_distance(r, y):
            """1 + w*(r, y) in [0, 2], from the root q* of loss_q(r, q) = y (decreasing in q)."""
            q_lo, q_hi = (r - s) ** 2, (r + s) ** 2
            if q_lo > 0 and loss_q(r, q_lo) <= y:
                return mp.mpf(0)
            if loss_q(r, q_hi) >= y:
                return mp.mpf(2)
            a, b = q_lo, q_hi                   # bisection in log q (q* may be 1e-30 of q_hi)
            la = mp.log(a) if a > 0 else mp.log(q_hi) - 400
            lb = mp.log(b)
            for _ in range(60):
                m = (la + lb) / 2
                if loss_q(r, mp.exp(m)) >= y:
                    la = m
                else:
                    lb = m
            q = mp.findroot(lambda lq: loss_q(r, mp.exp(lq)) - y, (la, lb), solver="illinois", verify=False)
            return (mp.exp(q) - (r - s) ** 2) / (2 * s * r)

        def fw_end(v):                          # F_W(-1 + v), closed forms
            if v <= 0:
                return mp.mpf(0)
            if v >= 2:
                return mp.mpf(1)
            return 2 / mp.pi * mp.asin(mp.sqrt(v / 2)) if T == 2 else v / 2

        def density(r):
            return mp.exp(log_norm + alpha * mp.log(r) - beta * r ** p)

        def a_integrand(r):                     # 1 - F_W(w*(r, -eps)) = F_W(-w*) = F_W(-1 + (1 - w*))
            return density(r) * fw_end(2 - end_distance(r, -eps))

        def b_integrand(r):
            return density(r) * fw_end(end_distance(r, eps))

        def cls(r, y):
            if loss_q(r, (r + s) ** 2) >= y:
                return 1
            if r != s and loss_q(r, (r - s) ** 2) <= y:
                return -1
            return 0

        grid = sorted({s * (1 + sg * mp.mpf(2) ** -j) for j in range(1, near) for sg in (1, -1)}
                      | {s * mp.mpf(2) ** -j for j in range(1, 200)} | {s * mp.mpf(2) ** j for j in range(1, far)})
        pieces = {}
        for y in (-eps, eps):
            pts = set()
            prev_r, prev_c = grid[0], cls(grid[0], y)
            for r in grid[1:]:
                c = cls(r, y)
                if c != prev_c:
                    for keep in (prev_c, c):     # end of the old class and start of the new one
                        lo, hi = prev_r, r
                        for _ in range(200):
                            mid = (lo + hi) / 2
                            if (cls(mid, y) == keep) == (keep == prev_c):
                                lo = mid
                            else:
                                hi = mid
                        pts.add((lo + hi) / 2)
                prev_r, prev_c = r, c
            pieces[y] = [mp.mpf(0)] + sorted(pts | {s}) + [mp.inf]
        A, ea = mp.quad(a_integrand, pieces[-eps], error=True, maxdegree=MAXDEGREE)
        B, eb = mp.quad(b_integrand, pieces[eps], error=True, maxdegree=MAXDEGREE)
        return A - mp.exp(eps) * B, ea + mp.exp(eps) * eb


def _check(T, alpha, p, beta, eps, rel):
    ref, err = mp_layer_delta(T, alpha, p, beta, eps)
    assert err < mp.mpf(rel) * ref / 100, (ref, err)
    with working_precision(128):
        enc = sgg_delta_enclosure(T, alpha, p, arb(Fraction(beta).numerator) / Fraction(beta).denominator,
                                  eps, 1, eta=arb(2) ** -600, rel_eta=rel)
    with mp.workdps(60):
        lo = mp.mpf(enc.lower.lower().mid().str(45, radius=False))
        hi = mp.mpf(enc.upper.upper().mid().str(45, radius=False))
    assert lo - err <= ref <= hi + err, (lo, ref, hi)
    assert hi - lo <= mp.mpf(rel) * lo * (1 + mp.mpf("1e-6"))
    return enc, ref


def test_r1smg_plane_at_eps_10_layer_matches_mpmath():
    """R1SMG (alpha = 0, p = 2) in R^2 at eps = 10 (delta ~ 1e-30): before issue 17's fix every rung
    stalled at ~2e-7 relative width (float guesses of w* could not hold -1 + 1e-15)."""
    enc, ref = _check(2, 0, 2, Fraction("1.52419e-51"), 10, 1e-10)
    assert mp.mpf("9e-31") < ref < mp.mpf("1.1e-30")
    assert enc.taylor_bins > 2 * enc.monotone_bins


def test_sgg_t3_alpha1_p3_at_eps_10_matches_mpmath():
    """SGG T = 3, alpha = 1, p = 3 at eps = 10 (delta ~ 1e-30): the layer at r = s with F_W linear."""
    enc, ref = _check(3, 1, 3, Fraction("4.7628186e-32"), 10, 1e-10)
    assert mp.mpf("9e-31") < ref < mp.mpf("1.1e-30")


def test_r1smg_plane_at_eps_50_layer_below_the_double_spacing_matches_mpmath():
    """R1SMG in R^2 at eps = 50, beta = 14.20687909587876 (delta ~ 1e-12, branch `layer2`): the B layer is
    ``|r/s - 1| ~ 1e-16`` (about one double spacing of ``z_s``) with ``1 + w* ~ 1e-32``.  Before: the 128-bit
    pass stalled at width 7.6e-21 against 4e-25 (``1 + w`` below the ulp of ``w``) and the layer's ends were
    located to one double spacing; now the call runs with the boosted precision and the layer rules."""
    enc, ref = _check(2, 0, 2, Fraction("14.2068790958787605"), 50, 1e-10)
    assert mp.mpf("9e-13") < ref < mp.mpf("1.1e-12")


def _assert_p_half_contains(beta: Fraction, ref, bits: int, eta_bits: int, rel: float, slack: str) -> None:
    """SGG T = 3, alpha = 2, p = 1/2, eps = 10 at ``beta``: the engine's enclosure at ``bits`` (width
    ``rel`` relative) contains the reference ``ref`` up to its quadrature error ``slack`` (relative)."""
    with working_precision(bits):
        enc = sgg_delta_enclosure(3, 2, Fraction(1, 2), arb(beta.numerator) / beta.denominator, 10, 1,
                                  eta=arb(2) ** -eta_bits, rel_eta=rel)
    with mp.workdps(60):
        lo = mp.mpf(enc.lower.lower().mid().str(45, radius=False))
        hi = mp.mpf(enc.upper.upper().mid().str(45, radius=False))
    assert lo * (1 - mp.mpf(slack)) <= ref <= hi * (1 + mp.mpf(slack)), (lo, ref, hi)
    assert hi - lo <= mp.mpf(rel) * lo * (1 + mp.mpf("1e-6"))


def test_p_half_next_to_the_pure_dp_boundary_at_eps_10_matches_hockey_stick_integral():
    """SGG T = 3, alpha = 2, p = 1/2 at rate 10.000167 (pure DP at rate <= 10): delta ~ 7e-31 lives in a
    layer of relative width ~1e-10 around z = 10 whose ends are below the double grid; the bin holding
    each end is cut at an arb point (``_explicit_end_cut``).  Reference: the hockey-stick integral in
    R^3 by mpmath (tests/test_sgg_corners.py, a different formula)."""
    from test_sgg_corners import mp_hockey_stick_r3

    beta = Fraction("10.000167")
    ref = mp_hockey_stick_r3(Fraction(1, 2), beta, 10, dps=50)
    assert mp.mpf("1e-31") < ref < mp.mpf("1e-30")
    _assert_p_half_contains(beta, ref, 128, 600, 1e-10, "1e-20")


class _Alarm(BaseException):
    pass


def test_a_long_engine_call_is_interrupted_by_sigalrm_within_10_s():
    """The engine is a Python loop over short Arb calls, so a SIGALRM budget (the coverage script's, the
    Python API's callers') ends it promptly: here a call that would run for minutes (eta = 1e-900 at
    2048 bits, bin budget 10^6) is interrupted 1 s in, and the exception arrives within 10 s."""
    import signal
    import time

    def handler(signum, frame):  # noqa: ARG001
        raise _Alarm()

    old = signal.signal(signal.SIGALRM, handler)
    start = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        with working_precision(2048):
            try:
                sgg_delta_enclosure(2, 0, 2, arb("1.52419e-51"), 10, 1, eta="1e-900", max_bins=10**6)
            except _Alarm:
                pass
            else:
                raise AssertionError("the engine call finished: not a long call")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.perf_counter() - start < 10.0


def test_a_bracket_that_stops_early_claims_no_rtol_and_verifies(monkeypatch, tmp_path):
    """When the certified bisection stops before rtol (a point next to the answer cannot be compared
    with delta: SGG T = 3, alpha = 2, p = 1/2 at (50, 1e-30)), the certificate keeps both certified ends
    but does not claim rtol (it claimed it and failed `certdp verify` as INVALID).  Simulated with the
    Gaussian: the bracket is asked for rtol = 1e-2 while the user asked 1e-6."""
    import certdp
    import certdp.workflows.calibrate as cal
    from test_certificate_roundtrip import _verify_in_fresh_process

    real = cal.certified_monotone_bracket

    def coarse(*args, **kwargs):
        # what the real bracket returns when its bisection stops early: the ends it had, with a note
        import dataclasses

        kwargs["rtol"] = Fraction(1, 100)
        bracket = real(*args, **kwargs)
        return dataclasses.replace(bracket, notes=bracket.notes + ("bisection stopped (simulated)",))

    monkeypatch.setattr(cal, "certified_monotone_bracket", coarse)
    cert = certdp.calibrate("gaussian", epsilon=1, delta="1e-5", rtol="1e-6")
    lo, hi = (Fraction(x) for x in cert.interval)
    assert (hi - lo) / hi > Fraction(1, 10**6)
    assert "rtol" not in cert.inputs and any("rtol is not claimed" in n for n in cert.extra["notes"])
    path = tmp_path / "coarse.json"
    path.write_text(cert.to_json())
    assert [r["status"] for r in _verify_in_fresh_process([path])] == ["VALID"]


def test_end_distance_ladder_is_finite_at_every_precision():
    """The end distances tried next to a breakpoint: a float start of 0 (2^(16 - prec) underflows above
    ~1070 bits) must not loop forever; at most _END_LADDER_STEPS positive, increasing values below 1/2."""
    from certdp.engines.radial import _END_LADDER_STEPS, _end_distances
    from certdp.numbers import working_precision

    for bits in (64, 1024, 2048, 8192):
        with working_precision(bits):
            for guess in (0.0, 1e-300, 1e-20, 0.3, 0.6):
                vs = _end_distances(guess)
                assert len(vs) <= _END_LADDER_STEPS
                assert all(0 < v < 0.5 for v in vs) and vs == sorted(vs)
                if guess < 0.1:
                    assert vs, (bits, guess)


def test_api_budget_ends_a_slow_radial_calibration():
    """sgg T=10 alpha=4 p=3/2 at (50, 1e-300) takes ~30 s: with budget=2 it ends (BudgetExhausted) well
    within 20 s, or is certified if the engine got faster; it never runs on."""
    import time

    import certdp
    from certdp.numbers.deadline import BudgetExhausted

    start = time.monotonic()
    try:
        cert = certdp.calibrate("sgg", epsilon=50, delta="1e-300", dimension=10, alpha=4, power="3/2",
                                sensitivity=1, rtol="1e-6", budget=2)
        assert cert.value > 0
    except BudgetExhausted as exc:
        assert "time budget" in str(exc)
    assert time.monotonic() - start < 20


def test_r1smg_plane_at_eps_20_layer_bins_are_taylor_and_match_mpmath():
    """R1SMG in R^2 at eps = 20 (delta ~ 1e-49 at rate 1e-80): in the layer ``1 + w* ~ 1e-18``, below the
    float spacing of the far-end distance ``2 - v``; the Taylor bins' upper bracket guess was rebuilt from
    ``2 - v = 2.0`` (``1 + w = 0``), never certified, and every layer bin fell back to first order (at 600
    bins: relative width 5e-3).  The layer's ends still limit the width (docs/sgg.md), so rel = 1e-4."""
    ref, err = mp_layer_delta(2, 0, 2, Fraction(1, 10**80), 20)
    assert err < mp.mpf("1e-3") * ref, (ref, err)          # the quadrature's own estimate (~4e-5 relative)
    assert mp.mpf("1e-50") < ref < mp.mpf("1e-48")
    with working_precision(128):
        enc = sgg_delta_enclosure(2, 0, 2, arb(1) / 10**80, 20, 1, eta=arb(2) ** -600, rel_eta=1e-4)
    with mp.workdps(60):
        lo = mp.mpf(enc.lower.lower().mid().str(45, radius=False))
        hi = mp.mpf(enc.upper.upper().mid().str(45, radius=False))
    assert lo - err <= ref <= hi + err, (lo, ref, hi)
    assert hi - lo <= mp.mpf("1e-4") * lo * (1 + mp.mpf("1e-6"))
    assert enc.taylor_bins > 0


def test_r1smg_plane_at_eps_20_layer_ends_resolved_to_1e_12():
    """R1SMG in R^2 at eps = 20, rate 1.8569249e-43 (delta ~ 5e-31, the calibration point of (20, 1e-30)):
    at 128 bits and rel 1e-12 the engine raised 'bins cannot be split further' (the layer's ends, found by
    float breakpoints to ~1e-16 of z_s, sit in bins narrower than the double spacing; now halved at exact
    midpoints) and, before that, the guesses of 1 + w* ~ 1e-22 next to the ends were noise.  The
    enclosure must contain the 50-digit mpmath layer integral (within its quadrature error estimate)."""
    beta = Fraction("1.8569249e-43")
    ref, err = mp_layer_delta(2, 0, 2, beta, 20)
    assert err < mp.mpf("1e-3") * ref, (ref, err)
    assert mp.mpf("1e-31") < ref < mp.mpf("1e-30")
    _assert_contains_at_rel_1e_12(2, 0, 2, beta, ref, err)


def test_sgg_t3_alpha1_p3_at_eps_20_layer_ends_match_mpmath():
    """SGG T = 3, alpha = 1, p = 3 at eps = 20, rate 3.2219599e-28, rel 1e-12 at 128 bits: the float
    breakpoints were ~1e-15 (relative) off the layer's true ends, the grading went towards the wrong point
    and the engine stalled at 324 bins on every rung.  Against the 50-digit mpmath layer integral."""
    beta = Fraction("3.2219599e-28")
    ref, err = mp_layer_delta(3, 1, 3, beta, 20)
    assert err < mp.mpf("1e-3") * ref, (ref, err)
    _assert_contains_at_rel_1e_12(3, 1, 3, beta, ref, err)


def _assert_contains_at_rel_1e_12(T, alpha, p, beta, ref, err):
    """The 128-bit enclosure at eps = 20, rel 1e-12, contains ``ref`` (within its quadrature error
    ``err``) and is as narrow as asked."""
    with working_precision(128):
        enc = sgg_delta_enclosure(T, alpha, p, arb(beta.numerator) / beta.denominator, 20, 1,
                                  eta=arb(2) ** -600, rel_eta=1e-12)
    with mp.workdps(60):
        lo = mp.mpf(enc.lower.lower().mid().str(45, radius=False))
        hi = mp.mpf(enc.upper.upper().mid().str(45, radius=False))
    assert lo - err <= ref <= hi + err, (lo, ref, hi)
    assert hi - lo <= mp.mpf("1e-12") * lo * (1 + mp.mpf("1e-6"))


def mp_hockey_stick_scaled(p, beta, eps, dps, dimension=3, method="tanh-sinh"):
    """delta(eps) of SGG(T, alpha = T - 1, beta, p <= 1) by the hockey-stick integral in R^T, scaled for
    tiny delta: ``delta = int_{L > eps} f(x) (1 - e^(eps - L(x))) dx`` (``-expm1``: no cancellation of the
    two densities) over the region ``t = |x| < t*(theta)`` around ``x = 0`` (``L`` decreases in ``t`` from
    ``s^p`` there), in ``t = t* u`` with the integrand divided by its scale: mpmath's quadrature tests its
    error in absolute terms, and an unscaled integrand of size ~1e-92 passed at a low degree (the
    unscaled form of tests/test_sgg_corners.py was 7e-10 relative off at delta ~ 1e-94, 1e-307; this one
    agrees with the leading term ``delta ~ (beta - eps)^7 / 5040`` at eps = 1 to O(beta - eps)).
    Polar coordinates about the shift: ``dx = t^(T-1) dt |S^(T-2)| sin^(T-2)(theta) dtheta``; the density
    ``e^(-|x|^p) / (|S^(T-1)| Gamma(T/p) / p)`` after scaling ``x`` by ``beta^(1/p)`` (``s = beta^(1/p)``).
    ``method="gauss-legendre"`` for large T (both integrands analytic; ~10x faster at 50 digits).
    Independent of the radial engine (no Lemma 4.1, no ``w*``, no ``F_W``)."""
    T = int(dimension)
    with mp.workdps(dps):
        p, eps, beta = (mp.mpf(v.numerator) / v.denominator for v in (Fraction(p), Fraction(eps), Fraction(beta)))
        s = beta ** (1 / p)
        norm = 2 * mp.pi ** (mp.mpf(T) / 2) / mp.gamma(mp.mpf(T) / 2) * mp.gamma(T / p) / p   # |S^(T-1)| Gamma(T/p)/p
        sphere = 2 * mp.pi ** (mp.mpf(T - 1) / 2) / mp.gamma(mp.mpf(T - 1) / 2)                # |S^(T-2)|
        a = s ** p - eps                              # L(0) - eps > 0 (not pure DP)

        def excess(t, c):                             # L(x) - eps
            return ((t * t + 2 * t * s * c + s * s) ** (p / 2) - eps) - t ** p

        def t_star(c):
            lo, hi = mp.mpf(0), 4 * a ** (1 / p)
            while excess(hi, c) > 0:
                hi *= 2
            for _ in range(40):                       # bisection to a tight bracket, then Anderson's method
                m = (lo + hi) / 2
                lo, hi = (m, hi) if excess(m, c) > 0 else (lo, m)
            root = mp.findroot(lambda t: excess(t, c), (lo, hi), solver="anderson")
            assert lo <= root <= hi
            assert all(excess(root * k, c) < 0 for k in (1.5, 2, 4, 16, 256))   # one crossing
            return root

        def inner(th):
            c = mp.cos(th)
            ts = t_star(c)
            g = lambda u: u ** (T - 1) * mp.exp(-(ts * u) ** p) * (-mp.expm1(-excess(ts * u, c))) / a  # noqa: E731
            return mp.sin(th) ** (T - 2) * mp.quad(g, [0, 1], method=method) * (ts / t0) ** T

        t0 = a ** (1 / p)                             # the scale of t* (t* ~ a^(1/p)): both integrands O(1)
        return sphere * mp.quad(inner, [0, mp.pi / 2, mp.pi], method=method) * a * t0 ** T / norm


def test_p_half_at_delta_1e_100_next_to_the_pure_dp_boundary_matches_hockey_stick_integral():
    """As below at rate 10 + 1.75e-14 (delta ~ 1e-100; the B sliver ~1e-28 relative, below the double
    spacing of ``z_s``; A and ``e^eps B`` cancel to 14 digits), 256 bits."""
    beta = Fraction("10.0000000000000175")
    ref = mp_hockey_stick_scaled(Fraction(1, 2), beta, 10, dps=50)
    assert mp.mpf("1e-101") < ref < mp.mpf("1e-99")
    _assert_p_half_contains(beta, ref, 256, 2000, 1e-12, "1e-30")


@pytest.mark.slow
def test_p_half_at_delta_1e_300_next_to_the_pure_dp_boundary_matches_hockey_stick_integral():
    """SGG T = 3, alpha = 2, p = 1/2 at rate 10 + 4.7e-43, eps = 10 (pure DP at rate <= 10): delta ~ 1e-300
    is carried by the cusp ``x = -mu`` of ``|x + mu|^p``: on the B side a sliver of relative width ~1e-86
    around ``z_s`` where ``1 + w* ~ 1e-172`` (sub-double bins, factored end distances, Taylor models
    carried by ``1 + w_e``), on the A side a transition of relative width ~1e-43 at ``z ~ 4.7e-43``, and
    ``A`` and ``e^eps B`` cancel to 43 digits.  Reference: the scaled hockey-stick integral at 70 digits (A and e^eps B cancel to 43)."""
    beta = Fraction("10.00000000000000000000000000000000000000000047")
    ref = mp_hockey_stick_scaled(Fraction(1, 2), beta, 10, dps=70)
    assert mp.mpf("9e-301") < ref < mp.mpf("1.1e-300")
    _assert_p_half_contains(beta, ref, 512, 2000, 1e-10, "1e-30")


def test_p_half_at_t128_peak_in_the_cusp_sliver_certified_at_64_bits_matches_hockey_stick_integral():
    """SGG T = 128, alpha = 127, p = 1/2 at rate 10.240655, eps = 10 (delta ~ 3.9e-669, the third probe of the
    calibration at (10, 1e-300)): ``G = I_{v/2}(63.5, 63.5) ~ v^63.5`` peaks inside the B sliver around
    ``z_s`` and ``F_W`` steps inside the A transition, each ~1/8 of its set wide.  The one or two bins
    spanning a set stalled on every rung up to 2048 bits (certified at 4096 after ~340 s); with the sets cut
    into ``ceil(sqrt(63.5)) = 8`` pieces (``_cusp_breakpoints``) the 64-bit pass certifies.  Reference: the
    hockey-stick integral in R^128 at 50 digits (Gauss-Legendre; tanh-sinh gives the same 30 digits)."""
    beta = Fraction("10.240655")
    ref = mp_hockey_stick_scaled(Fraction(1, 2), beta, 10, dps=50, dimension=128, method="gauss-legendre")
    assert mp.mpf("1e-669") < ref < mp.mpf("1e-668")
    with working_precision(64):
        enc = sgg_delta_enclosure(128, 127, Fraction(1, 2), arb(beta.numerator) / beta.denominator, 10, 1,
                                  eta=arb(2) ** -3000, rel_eta=1e-6)
    assert enc.precision_bits == 64
    with mp.workdps(60):
        lo = mp.mpf(enc.lower.lower().mid().str(45, radius=False))
        hi = mp.mpf(enc.upper.upper().mid().str(45, radius=False))
    assert lo * (1 - mp.mpf("1e-20")) <= ref <= hi * (1 + mp.mpf("1e-20")), (lo, ref, hi)
    assert hi - lo <= mp.mpf("1e-6") * lo * (1 + mp.mpf("1e-6"))


def test_bounded_loss_candidate_at_t128_below_the_quadrature_floor_matches_hockey_stick_integral():
    """The float candidate of sgg T = 128, alpha = 127, p = 1/2 at (10, 1e-300): the power law in ``beta -
    eps`` through the quadrature's roots at 1e-12 and 1e-8 gave 10.0228, where delta is ~1e-932 (the walk
    then took 12 probes); corrected by coarse engine evaluations (``_bounded_loss_refined_rate``) the
    candidate's delta, by the 50-digit hockey-stick integral in R^128, is within a factor e^0.05 of 1e-300."""
    import math

    from certdp.mechanisms.sgg import sgg_rate_candidate

    cand = sgg_rate_candidate(128, 127.0, 0.5, 10.0, math.log(1e-300), 1.0)
    ref = mp_hockey_stick_scaled(Fraction(1, 2), Fraction(repr(cand)), 10, dps=50, dimension=128,
                                 method="gauss-legendre")
    assert abs(mp.log(ref) - mp.log(mp.mpf("1e-300"))) < mp.mpf("0.05"), (cand, ref)


def test_p_half_scaled_reference_agrees_with_the_leading_term_at_eps_1():
    """The reference itself: at rate 1 + a (eps = 1, s = 1) the region is ``|x| < a^2`` to leading order and
    ``delta = f(0) int (a - |x|^(1/2)) dx = a^7 / 5040 (1 + O(a))`` (``f(0) = 1 / (8 pi Gamma(6))``)."""
    a = Fraction(14, 10**15)
    ref = mp_hockey_stick_scaled(Fraction(1, 2), 1 + a, 1, dps=40)
    lead = mp.mpf(a.numerator) ** 7 / mp.mpf(a.denominator) ** 7 / 5040
    assert abs(ref / lead - 1) < 1e-12


def test_split_point_of_a_bin_below_1e_154_is_inside_it():
    """Bins of z ~ 1e-183 (alpha = -1/2, p = 8: beta ~ 1e-197 at delta = 1e-12): the geometric midpoint
    was ``sqrt(zl * zu)``, whose product underflows to 0.0, so the bin "could not be split further" and
    the calibration timed out at every rung."""
    from certdp.engines.radial import _split_point_float

    zl, zu = 3.5752611e-183, 3.7489e-177
    m = _split_point_float(zl, zu, [])
    assert zl < m < zu
    m = _split_point_float(zl, zu, [1e-190])          # graded towards a breakpoint below the bin
    assert zl < m < zu


def test_alpha_near_minus_one_large_power_at_tiny_rate_matches_mpmath():
    """sgg T = 2, alpha = -1/2, p = 8 (delta ~ beta^(1/16)) at eps = 0.01: beta = 1.43e-193 puts delta near
    1e-12 with the bins at z ~ 1e-183 .. 1e-177; against the 50-digit quadrature (fails on the old split)."""
    _check(2, Fraction(-1, 2), Fraction(8), Fraction("1.4299059375413864e-193"), Fraction(1, 100), 1e-7)
