"""The certified bracket's walk and narrowing (issue 17): a poor float candidate costs few evaluations.

Synthetic monotone profiles with known roots (closed forms evaluated in Arb): the bracket must
contain the exact root, be at most ``rtol`` wide, and never evaluate one point twice (each SGG
evaluation costs seconds; the old narrowing re-evaluated the safe end while a one-sided secant
stagnated next to it).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import mpmath as mp
import pytest
from flint import arb

from certdp.numbers import certified_monotone_bracket


def _run(profile_of_t, delta, root, candidate, increasing):
    calls: Counter = Counter()

    def profile(t: arb) -> arb:
        calls[t.mid().str(30)] += 1
        return profile_of_t(t)

    rtol = Fraction(1, 10**6)
    bracket = certified_monotone_bracket(profile, delta, increasing=increasing, candidate=candidate, rtol=rtol)
    lo, hi = mp.mpf(str(bracket.lo)), mp.mpf(str(bracket.hi))
    assert lo < root < hi
    assert bracket.relative_width <= rtol
    assert max(calls.values()) == 1, calls.most_common(3)
    return bracket


@pytest.mark.parametrize("offset", [Fraction(3, 1000), Fraction(-3, 1000), Fraction(1, 10)])
def test_exponential_profile_poor_candidate(offset):
    """delta(t) = exp(-t) (decreasing): root t* = ln(1/delta)."""
    delta = Fraction(1, 10**5)
    with mp.workdps(40):
        root = mp.log(10**5)
        b = _run(lambda t: (-t).exp(), delta, root, float(root) * float(1 + offset), increasing=False)
    assert b.evaluations <= 12


def test_power_law_profile_regula_falsi_case():
    """delta(t) = t^8 (increasing, strongly convex in log-log terms of t): root t* = delta^(1/8)."""
    delta = Fraction(1, 10**12)
    with mp.workdps(40):
        root = mp.mpf(10) ** (mp.mpf(-12) / 8)
        b = _run(lambda t: t ** 8, delta, root, float(root) * 1.02, increasing=True)
    assert b.evaluations <= 12


def test_a_probe_that_raises_far_from_the_root_does_not_end_the_calibration():
    """delta(t) = exp(-t) with an engine that refuses every t below 3 (as the radial engine refused rates
    below its range): a candidate far below the root sends the walk into the refused range first; the
    refused probes count as undecided, the search goes on and the bracket still contains the root."""
    from certdp.numbers import UndecidedError

    delta = Fraction(1, 10**5)
    refused = []

    def profile(t: arb) -> arb:
        if t < 3:
            refused.append(t)
            raise UndecidedError("synthetic engine: parameter outside its range")
        return (-t).exp()

    with mp.workdps(40):
        root = mp.log(10**5)
    bracket = certified_monotone_bracket(profile, delta, increasing=False, candidate=2.0,
                                         rtol=Fraction(1, 10**6))
    assert refused, "the walk was expected to probe the refused range"
    lo, hi = mp.mpf(str(bracket.lo)), mp.mpf(str(bracket.hi))
    assert lo < root < hi
    assert bracket.relative_width <= Fraction(1, 10**6)


def test_a_profile_refused_everywhere_on_one_side_ends_undecided_with_the_reason():
    """Refusals on the whole safe side: the exponential search stops after a few refused probes in a
    row (no walk to absurd exponents) and the UndecidedError carries the engine's reason."""
    from certdp.numbers import UndecidedError

    def profile(t: arb) -> arb:
        if t > 5:
            raise UndecidedError("synthetic engine: parameter outside its range")
        return (-t).exp()

    with pytest.raises(UndecidedError, match="synthetic engine"):
        certified_monotone_bracket(profile, Fraction(1, 10**5), increasing=False, candidate=4.0,
                                   rtol=Fraction(1, 10**6))


@pytest.mark.parametrize("delta_text", ["1e-5", "1e-300"])
def test_power_law_over_many_orders_without_candidate(delta_text):
    """delta(t) = t^(1/16) (SGG T = 2, alpha = -1/2, p = 8: delta ~ beta^((alpha+1)/p)) with no float
    candidate: the root t* = delta^16 (1e-80, 1e-4800) is hundreds of binary orders below the start.
    Steps 2, 4, 16, 256, ... and geometric bisection took 54 probes at 1e-5; the exponential search now
    jumps along the power law through its last two certified points and the secant of a bracket wider
    than a factor 4 interpolates in ln t (5 probes; 16 at 1e-300); the bracket still contains the root."""
    delta = Fraction(delta_text)
    with mp.workdps(60):
        root = mp.pi * mp.mpf(delta_text) ** 16   # not a decimal: no probe lands on the root itself
        b = _run(lambda t: (t / arb.pi()).root(16), delta, root, None, increasing=True)
    assert b.evaluations <= 20


def test_enclosures_at_an_absolute_floor_do_not_send_the_guess_beyond_any_exponent():
    """delta(t) = exp(-690.78 / t) (root t* = 1 at delta = 1e-300) whose evaluations below t = 1/2 only state
    the engine's absolute floor, ``[0, 9e-1235 (1 + t / 10^4)]`` (sgg T=128 alpha=127 p=1/2 at (0.01, 1e-300):
    the radial engine's floor 2^-4096 at every probe near the 47x too small candidate).  The ``ln(-ln delta)``
    secant through two such points asked for a rational near 10^(1e300), which never finished (the cell
    timed out); now a guess more than e^65536 away is dropped and the walk goes on."""
    import signal

    delta = Fraction(1, 10**300)
    c = arb(690.7755278982137)
    floor = arb("9.14e-1235")

    def profile(t: arb) -> arb:
        if t < 0.5:
            return arb(0, floor * (1 + t / 10**4))
        return (-c / t).exp()

    def alarm(signum, frame):  # noqa: ARG001
        raise TimeoutError("the bracket's float guess did not finish")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, 20)
    try:
        with mp.workdps(40):
            root = mp.mpf("690.7755278982137") / (300 * mp.log(10))
            _run(profile, delta, root, 0.010012139, increasing=True)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("k", [16, 80])
def test_flat_power_law_at_tiny_delta_narrows_in_few_probes(k):
    """delta(t) = (t/pi)^(1/k) at 1e-300 without candidate (SGG alpha = -9/10, p = 8 has k = 80: root beta ~
    5e-24001).  The exponential search takes 12 probes to reach the root's order; the narrowing's secant of
    ``ln(-ln delta)`` in ``ln t`` then moved a tenth of the remaining way per probe, the far end never moving
    (8 more probes, 20 in all; each a 2 s engine call in the SGG cell).  A flat power law (log-log slope
    <= 1/2) is now interpolated as ``ln delta`` in ``ln t``, where it is straight, and an end the secant
    keeps leaving in place has its residual halved (Illinois): 3 narrowing probes."""
    delta = Fraction(1, 10**300)
    with mp.workdps(60):
        root = mp.pi * mp.mpf(10) ** (-300 * k)
        b = _run(lambda t: (t / arb.pi()).root(k), delta, root, None, increasing=True)
    assert b.evaluations <= 15


def _cliff(t: arb) -> arb:
    """A decreasing profile with a cliff at t* = 0.0947417 (MG's tangency at the tied shift, issue
    17): ~1e-30 below it, 1e-305 above, so log delta is no guide to where t* is."""
    star = arb("0.0947417")
    above, below = arb("1e-305"), arb("1e-30") * (star / t) ** 8
    if t > star:
        return above
    if t < star:
        return below
    return above.union(below)


def test_a_cliff_is_narrowed_by_bisection_after_two_failed_secant_steps():
    """Each secant guess on a cliff lands a few per cent from the private end and moves it by that
    much; after two such steps in a row the narrowing bisects (6 steps, then the secant again: a
    smooth profile whose secant failed twice early must not bisect to the end) (40 evaluations with
    a bisection after each failed secant step, 25 bisecting to the end, 27 now)."""
    with mp.workdps(40):
        b = _run(_cliff, Fraction(1, 10**300), mp.mpf("0.0947417"), 0.0955, increasing=False)
    assert b.evaluations <= 28, b.evaluations


def _loose_profile(root: float, seed: int, log: list):
    """delta(t) = (t / root)^(1/5) / 2 (increasing) returned as the radial engine returns it next to the
    target 1/2: a ball just narrow enough to exclude 1/2 (width 3.5e-5 halved until it does), its centre
    off the value by up to 0.45 of the width (so neighbouring enclosures overlap and carry little slope).
    Rigorous: the ball contains the float value, which is within 1e-15 of the exact one."""
    import math

    def profile(t: arb) -> arb:
        tf = float(t.mid())
        v = 0.5 * (tf / root) ** 0.2
        w = 3.5e-5
        while True:
            c = v + 0.45 * w * math.sin(1e7 * tf + seed)
            lo, hi = c - w / 2, c + w / 2
            if hi < 0.5 - 1e-12 or lo > 0.5 + 1e-12 or w < 1e-11:
                break
            w /= 2
        log.append((Fraction(tf), "YES" if hi <= 0.5 else "NO" if lo > 0.5 else "UNKNOWN"))
        return arb((lo + hi) / 2, (hi - lo) / 2 + 1e-13)
    return profile


@pytest.mark.parametrize("offset", [-8.6e-5, -3e-5, -2e-4, 1e-4, -5e-4])
def test_no_probe_is_decided_by_monotonicity_from_earlier_probes(offset):
    """Every probe is informative: none lies on the private side of an earlier private point or on the other
    side of an earlier non-private one (its decision would be known and the engine call wasted).  Fails
    before: the walk's fixed steps went on below a jump that had passed them (sgg T=2 alpha=1/2 p=8 at
    (10, 0.5) spent a 2 s probe so), and the secant's two straddling probes were both made when the first
    had decided the second (16 such probes in these 30 runs)."""
    root = 6.1792
    for seed in range(6):
        log: list = []
        bracket = certified_monotone_bracket(_loose_profile(root, seed, log), Fraction(1, 2), increasing=True,
                                             candidate=root * (1 + offset), rtol=Fraction(1, 10**6))
        assert float(bracket.lo) < root * (1 + 1e-8) and float(bracket.hi) > root * (1 - 1e-8)
        for i, (t, d) in enumerate(log):
            implied = [(t2, d2) for t2, d2 in log[:i]
                       if (d2 == d == "YES" and t <= t2) or (d2 == d == "NO" and t >= t2)]
            assert not implied, (seed, i, float(t), d, implied)
