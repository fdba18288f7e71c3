"""Audit of seed 000's printed improvement tables: one refutation rule, applied to every cell.

The rule (:data:`REFUTATION_RULE`, also in ``docs/mixtures_audit.md`` and the help of
``certdp table multi-gaussian``) is implemented once, by :func:`refute_printed_cell`:

    A printed improvement ``I`` (percent, two decimals) of a family ``F`` over the analytic Gaussian
    is REFUTED when, for *every* member of ``F`` the paper could have used, *no* sigma consistent
    with the print is (eps, delta)-DP, each member with a certified witness. Otherwise the cell is
    NOT_REFUTED (a named member has a certified (eps, delta)-DP sigma consistent with the print,
    with its certified delta) or UNDECIDED (with the reason); IMPOSSIBLE when no member has any
    sigma > 0 consistent with the print (e.g. the print implies a loss below the member's loss at
    sigma -> 0).

Definitions, each chosen in the paper's favour:

* *Members.* Table 4 ("multimodal", l2) and Table 1 (l1): every multi-Gaussian ``MG(sigma, K)``,
  ``K in [1, 20]``, and the quasi-Gaussian ``QG(sigma)`` (the column is the better of the two).
  Tables 5 (l1) and 6 (l2): QG only.
* *Consistent with the print.* The printed ``I`` stands for any true improvement in
  ``[I - 0.005, I + 0.005]``; the baseline is the analytic Gaussian's loss ``a`` (``E|X| =
  sigma_a sqrt(2/pi)`` or ``E X^2 = sigma_a^2``) at *any* sigma_a in the certified bracket of
  ``certdp.calibrate("gaussian")`` (lower end not DP, upper end DP). An improvement
  ``I = 100 (a - m) / max(a, m)`` implies the member's loss ``m = a (1 - I/100)`` (``I >= 0``) or
  ``a / (1 + I/100)`` (``I < 0``), increasing in ``a`` and decreasing in ``I``; so the member's loss
  lies in ``[m_min, m_max]`` with ``m_max`` from (largest ``a``, ``I - 0.005``) and ``m_min`` from
  (smallest ``a``, ``I + 0.005``). A sigma is *consistent* when the member's certified loss at sigma
  can lie in ``[m_min, m_max]``.
* *The consistent sigma set* (:func:`consistent_sigmas`) is enclosed by a certified branch and
  bound over sigma: global bounds of the loss (below) exclude ``sigma > S_up`` and a small
  ``(0, S_0]``; the rest is cut into balls, each dropped when its Arb loss enclosure misses
  ``[m_min, m_max]``, kept as *inner* when the enclosure lies inside it (every sigma there is
  consistent), split otherwise down to a relative width of 1e-12. No monotonicity of the loss
  in sigma is assumed (QG's is not proven). Global bounds (``g(s) = s sqrt(2/pi)`` for l1,
  ``s^2`` for l2; ``Delta`` the sensitivity): MG: ``max(F, g(s)) <= loss(s) <= F + g(s)`` with
  ``F = sum p_k |k Delta|^p`` the loss at sigma -> 0 (``E|N(m, s^2)|`` lies between ``max(|m|,
  s sqrt(2/pi))`` and ``|m| + s sqrt(2/pi)``; l2 is exact). QG, with ``w0 = e^e / (e^e + 2 Phi(Delta/s))``
  the central weight: ``loss >= w0 g(s) >= e^e/(e^e + 2) g(s)`` and ``loss >= (1 - w0) Delta^p``
  (the folded component's ``|X|`` is ``N(Delta, s^2)`` truncated to ``(0, inf)``, whose mean is
  ``>= Delta``); for ``s <= S_0``, ``loss <= g(S_0) + 2 (Delta + S_0 sqrt(2/pi)) / (e^e + 2
  Phi(Delta/S_0))`` (l1; l2: ``(Delta^2 + S_0^2)``), since ``E[Y; Y > 0] <= E|Y|``.
* *A member is refuted* when its consistent set is empty (IMPOSSIBLE) or no sigma in it is DP:
  for MG it suffices that the *largest* consistent sigma (the upper end of the enclosure: the one
  implied by ``I - 0.005`` and the largest baseline) is certified not DP, because
  ``MG(s') = MG(s) + N(0, s'^2 - s^2)`` is post-processing of ``MG(s)`` (so DP at ``s`` gives DP at
  every ``s' > s``; seed 000 Lemma 3.4). For QG no such monotonicity is proven, so the engine
  decides on a *ball* of sigmas holding the whole consistent set (its bounds hold for every sigma
  in the ball), split into sub-balls when needed.
* *A member survives* when a sigma certified consistent (an inner ball's end) is certified
  (eps, delta)-DP: the cell is then NOT_REFUTED, whatever the other members do.
* *Witness* (per refuted member): the shift ``phi`` (exact decimal), the sigma (or the sigma
  range) it holds for, the certified lower bound on ``H(phi) = int (f(x + phi) - e^eps f(x))_+ dx``
  (above delta) and, for illustration only, the float runs of the set where
  ``f(x + phi) > e^eps f(x)``.

Every decision is the exact engine's (:func:`~certdp.engines.gaussian_mixture.privacy_profile_sup`
in decision mode, seeded with the float worst shift for MG); floats only choose where to look.
Results are plain JSON (``dict``), so cells can run in a process pool.
"""

from __future__ import annotations

import math
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterator, Sequence

from flint import arb

from certdp.numbers.deadline import check_deadline
from certdp.numbers import Decision, arb_of, decimal_bounds, exact_str, working_precision

__all__ = ["REFUTATION_RULE", "Member", "TABLES", "table_cells", "print_bounds", "implied_loss_range",
           "consistent_sigmas", "decide_member", "refute_printed_cell", "summarize", "AuditTimeout"]

REFUTATION_RULE = (
    "A printed improvement I (percent, two decimals) is REFUTED when, for every member the paper "
    "could have used (MG with every K in [1, 20], and QG, for the multimodal Table 4; QG for Tables "
    "5-6), no sigma consistent with the print is (eps, delta)-DP: for MG the largest consistent sigma "
    "(implied by I - 0.005 and the upper end of the certified analytic-Gaussian bracket) is certified "
    "not DP (smaller sigmas are then not DP either, by post-processing); for QG the engine certifies "
    "'not DP' on a ball holding every consistent sigma. Each refuted member has a witness: a shift, the "
    "certified lower bound on the hockey-stick divergence there (> delta), and (illustration) the "
    "failing set. NOT_REFUTED: some member has a sigma certified consistent with the print and "
    "certified (eps, delta)-DP (named, with its certified delta). IMPOSSIBLE: no member has any sigma "
    "> 0 consistent with the print. UNDECIDED: anything else (reason given)."
)

#: Tables whose printed values the text extraction of seed 000 holds. Table 1 (l1, multimodal) and
#: Table 2 are missing from the extraction (only their captions' cross-references survive).
TABLES = {"4": ("l2", "multimodal"), "5": ("l1", "QG"), "6": ("l2", "QG")}
UNAVAILABLE = {"1": "Table 1 (l1, multimodal) values are not in the text extraction of seed 000",
               "2": "Table 2 (vs truncated Laplace / Tulap) is not a Gaussian-baseline table and is not in the extraction"}


class AuditTimeout(Exception):
    """A member decision ran past its time budget (the member is UNDECIDED)."""


@contextmanager
def _deadline(seconds: float | None) -> Iterator[None]:
    """Raise :class:`AuditTimeout` after ``seconds``: by SIGALRM in the main thread, elsewhere (a Dask
    worker thread) by the cooperative deadline of :mod:`certdp.numbers.deadline`, checked between
    FLINT calls (per probe, precision rung and branch-and-bound step)."""
    import threading

    if not seconds:
        yield
        return
    if threading.current_thread() is not threading.main_thread():
        from certdp.numbers.deadline import BudgetExhausted, time_budget

        try:
            with time_budget(seconds):
                yield
        except BudgetExhausted:
            raise AuditTimeout() from None
        return

    def _raise(signum: int, frame: Any) -> None:
        raise AuditTimeout()

    old = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass(frozen=True)
class Member:
    """One mechanism the paper could have used: ``MG`` with ``k`` components on each side, or ``QG``."""

    family: str
    k: int | None = None

    @property
    def name(self) -> str:
        return f"MG(K={self.k})" if self.family == "MG" else "QG"

    @staticmethod
    def parse(text: str) -> "Member":
        if text == "QG":
            return Member("QG")
        if text.startswith("MG(K=") and text.endswith(")"):
            return Member("MG", int(text[5:-1]))
        raise ValueError(f"unknown member {text!r}")


def members_for(family: str, first_k: int | None = None, ks: Sequence[int] = range(1, 21)) -> list[Member]:
    """Members of ``family`` ("multimodal" = every MG K and QG; "QG"; "MG"), the likeliest survivor first
    (the paper's Table 3 K, then QG), so that a NOT_REFUTED cell stops early."""
    out: list[Member] = []
    if family in ("multimodal", "MG"):
        order = ([first_k] if first_k in ks else []) + [k for k in ks if k != first_k]
        out = [Member("MG", k) for k in order]
        if family == "multimodal":
            out.insert(1 if first_k in ks else 0, Member("QG"))
    elif family == "QG":
        out = [Member("QG")]
    else:
        raise ValueError(f"unknown family {family!r}")
    return out


# ------------------------------------------------------------------ the print and the baseline


PRINT_HALF_WIDTH = Fraction(1, 200)


def print_bounds(printed: object, half_width: Fraction = PRINT_HALF_WIDTH) -> tuple[Fraction, Fraction]:
    """Improvements consistent with a two-decimal print: ``[I - 0.005, I + 0.005]`` (exact)."""
    i = Fraction(str(printed))
    return i - half_width, i + half_width


def _implied(a: arb, i: Fraction) -> arb:
    frac = arb_of(i / 100)
    return a * (1 - frac) if i >= 0 else a / (1 + frac)


def baseline_sigma(epsilon: str, delta: str, sensitivity: str = "1") -> tuple[Fraction, Fraction]:
    """Certified bracket of the analytic Gaussian's minimal sigma (lower end not DP, upper end DP)."""
    from certdp.workflows.calibrate import calibrate

    g = calibrate("gaussian", epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    return Fraction(str(g.interval[0])), Fraction(str(g.interval[1]))


def _gauss_loss(s: arb, loss: str) -> arb:
    return s * (2 / arb.pi()).sqrt() if loss == "l1" else s * s


def implied_loss_range(sigma_a: tuple[Fraction, Fraction], loss: str, printed: object,
                       half_width: Fraction = PRINT_HALF_WIDTH) -> tuple[arb, arb] | None:
    """``(m_min, m_max)``: every member loss consistent with the print and the baseline bracket lies in
    ``[m_min.lower(), m_max.upper()]`` (call inside a working precision). ``None``: the print implies
    no positive loss at all (``I - 0.005 >= 100``)."""
    i_lo, i_hi = print_bounds(printed, half_width)
    if i_lo >= 100:
        return None
    if i_lo <= -100:
        raise ValueError("a printed improvement <= -100 % is not of the form 100 (a - m) / max(a, m)")
    a_lo = _gauss_loss(arb_of(sigma_a[0]), loss)
    a_hi = _gauss_loss(arb_of(sigma_a[1]), loss)
    m_max = _implied(a_hi, i_lo).upper()
    m_min = _implied(a_lo, i_hi).lower() if i_hi < 100 else arb(0)
    if m_min < 0:
        m_min = arb(0)
    return m_min, m_max


# ------------------------------------------------------------------ the consistent sigma set


def _ball(lo: Fraction, hi: Fraction) -> arb:
    if lo == hi:
        return arb_of(lo)
    a, b = arb_of(lo), arb_of(hi)
    return (a + b) / 2 + (b - a).upper() / 2 * arb(0, 1)


def member_loss(member: Member, sigma: arb, epsilon: Fraction, loss: str, sensitivity: Fraction = Fraction(1)) -> arb:
    """Arb enclosure of the member's l1 (``E|X|``) / l2 (``E X^2``) loss for every sigma in the ball."""
    if member.family == "MG":
        from certdp.mechanisms.multi_gaussian import MultiGaussian

        mech: Any = MultiGaussian(sigma, components=member.k, sensitivity=sensitivity, shape_epsilon=epsilon)
    else:
        from certdp.mechanisms.quasi_gaussian import QuasiGaussian

        mech = QuasiGaussian(sigma, sensitivity=sensitivity, shape_epsilon=epsilon)
    return mech.mean_abs() if loss == "l1" else mech.mean_square()


def _g(s: arb, loss: str) -> arb:
    return _gauss_loss(s, loss)


def _g_inv_upper(m: arb, loss: str) -> arb:
    """An upper bound on ``g^{-1}(m)`` (``g(s) = s sqrt(2/pi)`` or ``s^2``)."""
    return (m / (2 / arb.pi()).sqrt()).upper() if loss == "l1" else m.sqrt().upper()


@dataclass
class ConsistentSet:
    """Enclosure of ``{sigma > 0 : loss(sigma) in [m_min, m_max]}``: ``hull = (lo, hi)`` holds it
    (``lo = 0`` when small sigmas could not be excluded); ``inner`` is the largest sigma found with
    the loss *certified* inside ``[m_min, m_max]`` (None if none was found); ``empty`` when the
    set is certified empty (``reason`` says why)."""

    empty: bool
    hull: tuple[Fraction, Fraction] | None
    inner: Fraction | None
    reason: str
    evaluations: int


def _round_sig(q: Fraction, digits: int, up: bool) -> Fraction:
    """``q`` rounded up (``up``) or down to ``digits`` significant decimal digits (exact)."""
    if q == 0:
        return q
    e = math.floor(math.log10(float(q))) - digits + 1
    scale = Fraction(10) ** e
    n = q / scale
    r = math.ceil(n) if up else math.floor(n)
    return r * scale


def consistent_sigmas(member: Member, epsilon: Fraction, loss: str, m_min: arb, m_max: arb,
                      sensitivity: Fraction = Fraction(1), rel_width: Fraction = Fraction(1, 10**12),
                      max_evaluations: int = 4000) -> ConsistentSet:
    """Certified enclosure of the sigmas whose member loss can lie in ``[m_min, m_max]`` (module
    docstring: global bounds, then branch and bound over sigma balls; no monotonicity assumed).
    Call inside a working precision."""
    d = arb_of(sensitivity)
    e = arb_of(epsilon)
    p = 1 if loss == "l1" else 2
    dp = d if p == 1 else d * d
    evals = 0
    if member.family == "MG":
        ks = range(-member.k, member.k + 1)
        raw = [(-abs(k) * e).exp() for k in ks]
        z = sum(raw, arb(0))
        floor_ = sum((r * abs(k) ** p for r, k in zip(raw, ks)), arb(0)) / z * dp
        if m_max <= floor_:  # loss(s) > F for every s > 0
            return ConsistentSet(True, None, None, f"the implied loss is at most {decimal_bounds(m_max, 8)[1]} <= "
                                 f"{decimal_bounds(floor_, 8)[0]}, the {loss} loss of MG(K={member.k}) at sigma -> 0", 0)
        s_up = _g_inv_upper(m_max, loss)  # loss >= g(s)

        def small_bounds(s0: arb) -> tuple[arb, arb]:
            return floor_, floor_ + _g(s0, loss)
    else:
        ee = e.exp()
        w0_min = ee / (ee + 2)
        floor_ = dp / (ee + 1)
        if m_max < floor_:
            return ConsistentSet(True, None, None, f"the implied loss is at most {decimal_bounds(m_max, 8)[1]} < "
                                 f"{decimal_bounds(floor_, 8)[0]} = Delta^{p}/(e^eps + 1), a lower bound of QG's {loss} "
                                 f"loss at every sigma", 0)
        s_up = _g_inv_upper(m_max / w0_min, loss)

        def small_bounds(s0: arb) -> tuple[arb, arb]:
            from certdp.numbers import normal_cdf

            ph = normal_cdf(d / s0)
            lo = 2 * ph * dp / (ee + 2 * ph)
            top = (d + s0 * (2 / arb.pi()).sqrt()) if p == 1 else (d * d + s0 * s0)
            return lo, _g(s0, loss) + 2 * top / (ee + 2 * ph)
    s_up_q = _round_sig(Fraction(str(decimal_bounds(s_up, 12)[1])), 6, True)
    # the small-sigma region (0, s0]
    s0_q: Fraction | None = None
    for j in range(4, 80, 4):
        cand = s_up_q / 2 ** j
        lo_b, hi_b = small_bounds(arb_of(cand))
        evals += 1
        if hi_b < m_min or lo_b > m_max:
            s0_q = cand
            break
    lower_open = s0_q is None
    if lower_open:
        s0_q = s_up_q / 2 ** 80
    # initial geometric grid on [s0, s_up], then branch and bound
    n0 = 32
    ratio = (float(s_up_q) / float(s0_q)) ** (1 / n0)
    grid = [s0_q] + [_round_sig(Fraction(float(s0_q) * ratio ** i), 6, False) for i in range(1, n0)] + [s_up_q]
    grid = sorted(set(grid))
    stack = list(zip(grid, grid[1:]))
    inner: list[tuple[Fraction, Fraction]] = []
    boundary: list[tuple[Fraction, Fraction]] = []
    while stack:
        a, b = stack.pop()
        if evals >= max_evaluations:
            boundary.append((a, b))
            continue
        val = member_loss(member, _ball(a, b), epsilon, loss, sensitivity)
        evals += 1
        if val < m_min or val > m_max:
            continue
        if val >= m_min and val <= m_max:
            inner.append((a, b))
            continue
        if b - a <= rel_width * b:
            boundary.append((a, b))
            continue
        mid = _round_sig((a + b) / 2, 30, False)
        if not a < mid < b:
            mid = (a + b) / 2
        stack += [(a, mid), (mid, b)]
    pieces = inner + boundary
    if not pieces and not lower_open:
        return ConsistentSet(True, None, None, f"no sigma in (0, {exact_str(s_up_q)}] has a certified {loss} loss in "
                             f"[m_min, m_max] and larger sigmas have a larger loss", evals)
    lo = Fraction(0) if lower_open else min(pc[0] for pc in pieces)
    hi = max(pc[1] for pc in pieces) if pieces else s0_q
    best_inner: Fraction | None = None
    if inner:
        top = max(pc[1] for pc in inner)
        rounded = _round_sig(top, 15, False)
        v = member_loss(member, arb_of(rounded), epsilon, loss, sensitivity)
        best_inner = rounded if (v >= m_min and v <= m_max) else top
    hi_out = _round_sig(hi, 15, True)
    reason = "small sigmas could not be excluded" if lower_open else ""
    return ConsistentSet(False, (lo, hi_out), best_inner, reason, evals)


# ------------------------------------------------------------------ the engine's verdict for one member


def decide_member(member: Member, sigma_lo: Fraction, sigma_hi: Fraction, epsilon: Fraction, delta: Fraction,
                  sensitivity: Fraction = Fraction(1), max_intervals: int = 4000) -> dict[str, Any]:
    """Is the member (eps, delta)-DP for *every* sigma in ``[sigma_lo, sigma_hi]`` (YES), for *none*
    (NO, with witness), or undecided? Exact engine in decision mode, 128 then 256 bits."""
    from certdp.engines.gaussian_mixture import privacy_profile_sup, witness_at_shift
    from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
    from certdp.mechanisms.quasi_gaussian import quasi_gaussian_mixture

    hints: list[float] = []
    if member.family == "MG":
        from certdp.engines.gaussian_mixture.float_guide import mg_argmax_hint

        hints = mg_argmax_hint(float(sigma_hi), float(epsilon), member.k, float(sensitivity))
    for bits in (128, 256):
        with working_precision(bits):
            e = arb_of(epsilon)
            d = arb_of(sensitivity)
            s = _ball(sigma_lo, sigma_hi)
            mix = (multi_gaussian_mixture(s, e, d, member.k) if member.family == "MG"
                   else quasi_gaussian_mixture(s, e, d))
            tgt = arb_of(delta)
            res = privacy_profile_sup(mix, e, d, symmetric=True, rel_tol=1e-9, target=tgt, hints=hints,
                                      max_intervals=max_intervals)
            enc = [decimal_bounds(res.lower, 12)[0], decimal_bounds(res.upper, 12)[1]]
            if res.decided is Decision.YES:
                return {"decision": "DP", "delta_enclosure": enc, "bits": bits}
            if res.decided is Decision.NO:
                shift = Fraction(abs(res.argmax)) * sensitivity
                wit = witness_at_shift(mix, e, arb_of(shift), delta_scale=float(delta), rel_tol=1e-8)
                if not wit.value.lower > tgt:  # the search's own lower bound came from a nearby point
                    continue
                return {"decision": "NOT_DP", "delta_enclosure": enc, "bits": bits,
                        "witness": {"shift": exact_str(shift),
                                    "H_lower_bound": decimal_bounds(wit.value.lower, 15)[0],
                                    "failing_set_float": [[float(a), float(b)] for a, b in wit.runs]}}
    return {"decision": "UNDECIDED", "reason": "the sup search did not separate delta at 256 bits"}


def witness_on_ball(member: Member, lo: Fraction, hi: Fraction, epsilon: Fraction, delta: Fraction, shift: Fraction,
                    sensitivity: Fraction = Fraction(1)) -> dict[str, Any] | None:
    """The certified ``H(shift)`` for every sigma in ``[lo, hi]`` at once (one ball evaluation); the
    witness dict when its lower bound exceeds ``delta`` (then no sigma in the range is DP), else None."""
    from certdp.engines.gaussian_mixture import witness_at_shift
    from certdp.mechanisms.multi_gaussian import multi_gaussian_mixture
    from certdp.mechanisms.quasi_gaussian import quasi_gaussian_mixture

    for bits in (128, 256):
        with working_precision(bits):
            e, d, s = arb_of(epsilon), arb_of(sensitivity), _ball(lo, hi)
            mix = (multi_gaussian_mixture(s, e, d, member.k) if member.family == "MG"
                   else quasi_gaussian_mixture(s, e, d))
            wit = witness_at_shift(mix, e, arb_of(shift), delta_scale=float(delta), rel_tol=1e-8)
            if wit.value.lower > arb_of(delta):
                return {"sigma_range": [exact_str(lo), exact_str(hi)], "shift": exact_str(shift),
                        "H_lower_bound": decimal_bounds(wit.value.lower, 15)[0],
                        "failing_set_float": [[float(a), float(b)] for a, b in wit.runs]}
    return None


def _series_ncdf(y: Any) -> Any:
    from flint import arb_series

    return (y * arb_series([-1 / arb(2).sqrt()], prec=y.prec)).erfc() / 2


def qg_fixed_set_lower_bound(lo: Fraction, hi: Fraction, epsilon: Fraction, shift: Fraction,
                             runs: Sequence[tuple[float, float]], sensitivity: Fraction = Fraction(1)) -> arb:
    """A certified lower bound on ``H(shift)`` of QG valid for *every* sigma in ``[lo, hi]`` (call inside a
    working precision).

    For any fixed set ``A`` (here the union of ``runs``, exact dyadic ends), ``H(phi; s) >= L(s) =
    int_A (f_s(x + phi) - e^eps f_s(x)) dx``, and ``L`` is a closed form in ``s`` (Gaussian CDFs: the
    central part ``e^eps [Phi(b/s) - Phi(a/s)]`` and the folded part's CDF ``Phi((x + D)/s)`` for
    ``x < 0``, ``Phi(D/s) + Phi((x - D)/s) - Phi(-D/s)`` for ``x >= 0``, over ``e^eps + 2 Phi(D/s)``).
    Mean value form: ``L(s) >= L(m) - sup_[lo, hi] |L'| (hi - lo)/2``, ``m`` the midpoint, with ``L(m)``
    a point evaluation and ``L'`` enclosed on the whole ball by a length-2 Arb power series, so the
    cancellation between the two integrals does not widen with the sigma range."""
    from flint import arb_series

    e, d = arb_of(epsilon), arb_of(sensitivity)
    ee = e.exp()
    phi = arb_of(shift)

    def mass(a: arb, b: arb, S: Any, a_neg: bool, b_neg: bool) -> Any:
        def fold(x: arb, neg: bool) -> Any:
            if neg:
                return _series_ncdf((x + d) / S)
            return _series_ncdf(d / S) + _series_ncdf((x - d) / S) - _series_ncdf(-d / S)

        central = (_series_ncdf(b / S) - _series_ncdf(a / S)) * ee
        return (central + fold(b, b_neg) - fold(a, a_neg)) / (2 * _series_ncdf(d / S) + ee)

    def total(s0: arb) -> Any:
        S = arb_series([s0, 1], prec=2)
        acc = arb_series([0], prec=2)
        for a_f, b_f in runs:
            a, b = arb(a_f), arb(b_f)
            qa, qb = Fraction(a_f), Fraction(b_f)
            acc += mass(a + phi, b + phi, S, qa + shift < 0, qb + shift < 0) - mass(a, b, S, qa < 0, qb < 0) * ee
        return acc

    mid = (lo + hi) / 2
    value = total(arb_of(mid)).coeffs()[0]
    slope = total(_ball(lo, hi)).coeffs()[1]
    return value - abs(slope) * arb_of((hi - lo) / 2)


def _refute_range(member: Member, lo: Fraction, hi: Fraction, epsilon: Fraction, delta: Fraction, shift: Fraction,
                  sensitivity: Fraction, depth: int = 3) -> list[dict[str, Any]] | None:
    """Witnesses covering ``[lo, hi]`` (the ball, or its halves recursively, ``depth`` levels; a sub-range
    whose own worst shift differs gets it from a point decision at its midpoint); None if not all refuted.
    QG first tries :func:`qg_fixed_set_lower_bound` with the failing set at the midpoint sigma."""
    if member.family == "QG":
        from certdp.engines.gaussian_mixture import witness_at_shift
        from certdp.mechanisms.quasi_gaussian import quasi_gaussian_mixture

        with working_precision(128):
            mid = (lo + hi) / 2
            e, d = arb_of(epsilon), arb_of(sensitivity)
            wit = witness_at_shift(quasi_gaussian_mixture(arb_of(mid), e, d), e, arb_of(shift),
                                   delta_scale=float(delta), rel_tol=1e-8)
            bound = qg_fixed_set_lower_bound(lo, hi, epsilon, shift, wit.runs, sensitivity)
            if bound > arb_of(delta):
                return [{"sigma_range": [exact_str(lo), exact_str(hi)], "shift": exact_str(shift),
                         "H_lower_bound": decimal_bounds(bound, 15)[0],
                         "failing_set_float": [[float(a), float(b)] for a, b in wit.runs],
                         "bound": "int over the fixed set failing_set_float of f(x + phi) - e^eps f(x), "
                                  "mean value form in sigma (qg_fixed_set_lower_bound)"}]
    w = witness_on_ball(member, lo, hi, epsilon, delta, shift, sensitivity)
    if w is not None:
        return [w]
    if depth == 0:
        return None
    mid = (lo + hi) / 2
    out: list[dict[str, Any]] = []
    for a, b in ((lo, mid), (mid, hi)):
        r = decide_member(member, (a + b) / 2, (a + b) / 2, epsilon, delta, sensitivity)
        if r["decision"] != "NOT_DP":
            return None
        sub = _refute_range(member, a, b, epsilon, delta, Fraction(r["witness"]["shift"]), sensitivity, depth - 1)
        if sub is None:
            return None
        out += sub
    return out


def _member_verdict(member: Member, epsilon: Fraction, delta: Fraction, loss: str, m_min: arb, m_max: arb,
                    sensitivity: Fraction, timeout: float | None) -> dict[str, Any]:
    t0 = time.perf_counter()
    out: dict[str, Any] = {"member": member.name}
    try:
        with _deadline(timeout):
            check_deadline("the member's consistent sigma range")
            cs = consistent_sigmas(member, epsilon, loss, m_min, m_max, sensitivity)
            out["sigma_evaluations"] = cs.evaluations
            if cs.empty:
                out.update(status="IMPOSSIBLE", reason=cs.reason)
                return out
            lo, hi = cs.hull
            out["consistent_sigma_hull"] = [exact_str(lo), exact_str(hi)]
            out["consistent_sigma_inner"] = None if cs.inner is None else exact_str(cs.inner)
            audits: list[float] = []
            # first, one decision at the largest certified-consistent sigma (the largest consistent one
            # when none is certified): DP at a certified-consistent sigma means the member survives
            point = cs.inner if cs.inner is not None else hi
            t1 = time.perf_counter()
            check_deadline("a member decision")
            r = decide_member(member, point, point, epsilon, delta, sensitivity)
            audits.append(time.perf_counter() - t1)
            if r["decision"] == "DP" and cs.inner is not None:
                out.update(status="SURVIVES", sigma=exact_str(cs.inner), delta_enclosure=r["delta_enclosure"])
                return out
            if member.family == "MG":
                # not DP there: its worst shift re-evaluated at the largest consistent sigma hi (one point
                # value) refutes every sigma <= hi by post-processing; a full decision at hi only if it fails
                if r["decision"] == "NOT_DP":
                    t1 = time.perf_counter()
                    check_deadline("a member decision")
                    w = witness_on_ball(member, hi, hi, epsilon, delta, Fraction(r["witness"]["shift"]), sensitivity)
                    audits.append(time.perf_counter() - t1)
                    if w is None:
                        t1 = time.perf_counter()
                        r = decide_member(member, hi, hi, epsilon, delta, sensitivity)
                        audits.append(time.perf_counter() - t1)
                        w = r.get("witness")
                        if w is not None:
                            w = {"sigma_range": [exact_str(hi), exact_str(hi)], **w}
                    if w is not None:
                        w = {k: v for k, v in w.items() if k != "sigma_range"}
                        out.update(status="REFUTED", sigma=exact_str(hi), delta_enclosure=r["delta_enclosure"],
                                   witness={"sigma": exact_str(hi), "covers": "every sigma <= this one "
                                            "(post-processing)", **w})
                        return out
                    out.update(status="UNDECIDED", reason="not DP at the largest certified-consistent sigma, "
                               f"{r['decision']} at the largest consistent one: the range straddles the threshold")
                    return out
                out.update(status="UNDECIDED", reason=(r.get("reason") or "DP at the largest consistent sigma, but "
                           "no sigma certified consistent with the print was found"))
                return out
            # QG: no monotonicity in sigma; refutation needs the whole consistent range
            if r["decision"] != "NOT_DP":
                out.update(status="UNDECIDED", reason=f"{r['decision']} at sigma = {exact_str(point)}, which is not "
                           "certified consistent with the print" if r["decision"] == "DP" else r.get("reason", ""))
                return out
            if lo == 0:
                out.update(status="UNDECIDED", reason="not DP at the largest consistent sigma, but " + cs.reason)
                return out
            t1 = time.perf_counter()
            check_deadline("a member decision")
            wits = _refute_range(member, lo, hi, epsilon, delta, Fraction(r["witness"]["shift"]), sensitivity)
            audits.append(time.perf_counter() - t1)
            if wits is None:
                out.update(status="UNDECIDED", reason="not DP at the largest consistent sigma, but the sigma range "
                           "could not be refuted as a whole")
                return out
            out.update(status="REFUTED", sigma_range=[exact_str(lo), exact_str(hi)], delta_enclosure=r["delta_enclosure"],
                       witness=wits[0])
            if len(wits) > 1:
                out["witness"] = {"sigma_range": [exact_str(lo), exact_str(hi)], "pieces": wits}
            return out
    except AuditTimeout:
        out.update(status="UNDECIDED", reason=f"timeout after {timeout:g} s")
        return out
    finally:
        out["seconds"] = round(time.perf_counter() - t0, 4)
        if "audits" in locals():
            out["audit_seconds"] = [round(a, 4) for a in audits]


# ------------------------------------------------------------------ the rule for one cell


def refute_printed_cell(table: str, epsilon: str, delta: str, printed: object, *, loss: str | None = None,
                        family: str | None = None, members: Sequence[Member] | None = None,
                        first_k: int | None = None, sensitivity: str = "1",
                        timeout: float | None = 60.0, half_width: Fraction = PRINT_HALF_WIDTH) -> dict[str, Any]:
    """Apply :data:`REFUTATION_RULE` to one printed cell (plain JSON out).

    ``table`` names the paper's table ("4", "5", "6", or anything for constructed cells, with
    ``loss`` and ``family`` given); ``members`` overrides the family's members (tests);
    ``first_k`` is tried first (the paper's Table 3 K). Stops at the first surviving member.
    ``half_width`` is the print's rounding (0.005 for two decimals; 0 treats the print as exact,
    which is *not* the rule: tests use it to show what the rounding changes).
    """
    t0 = time.perf_counter()
    if loss is None or family is None:
        loss_t, family_t = TABLES[table]
        loss, family = loss or loss_t, family or family_t
    eps, dl, sens = Fraction(epsilon), Fraction(delta), Fraction(sensitivity)
    mem = list(members) if members is not None else members_for(family, first_k)
    cell: dict[str, Any] = {"table": table, "epsilon": epsilon, "delta": delta, "printed": printed,
                            "loss": loss, "family": family}
    lo_i, hi_i = print_bounds(printed, half_width)
    cell["print_interval"] = [exact_str(lo_i), exact_str(hi_i)]
    sa = baseline_sigma(epsilon, delta, sensitivity)
    cell["baseline_sigma_bracket"] = [exact_str(sa[0]), exact_str(sa[1])]
    with working_precision(128):
        rng = implied_loss_range(sa, loss, printed, half_width)
        if rng is None:
            cell.update(verdict="IMPOSSIBLE", reason="the print implies a loss <= 0", members_tried=[], witnesses=[],
                        survivor=None, members=[], seconds=round(time.perf_counter() - t0, 4))
            return cell
        m_min, m_max = rng
        cell["implied_loss_range"] = [decimal_bounds(m_min, 15)[0], decimal_bounds(m_max, 15)[1]]
        results = []
        for m in mem:
            r = _member_verdict(m, eps, dl, loss, m_min, m_max, sens, timeout)
            results.append(r)
            if r["status"] == "SURVIVES":
                break
    statuses = [r["status"] for r in results]
    cell["members_tried"] = [r["member"] for r in results]
    cell["members"] = results
    cell["witnesses"] = [{"member": r["member"], **r["witness"]} for r in results if r["status"] == "REFUTED"]
    cell["survivor"] = None
    if "SURVIVES" in statuses:
        s = results[statuses.index("SURVIVES")]
        cell.update(verdict="NOT_REFUTED", survivor={"member": s["member"], "sigma": s["sigma"],
                                                     "delta_enclosure": s["delta_enclosure"]})
    elif all(st == "IMPOSSIBLE" for st in statuses):
        cell.update(verdict="IMPOSSIBLE", reason="no member has a sigma > 0 consistent with the print")
    elif all(st in ("IMPOSSIBLE", "REFUTED") for st in statuses):
        cell["verdict"] = "REFUTED"
    else:
        cell.update(verdict="UNDECIDED", reason="; ".join(f"{r['member']}: {r.get('reason', '')}" for r in results
                                                          if r["status"] == "UNDECIDED"))
    cell["seconds"] = round(time.perf_counter() - t0, 4)
    return cell


# ------------------------------------------------------------------ the tables


def table_cells(tables: Sequence[str] = ("4", "5", "6")) -> list[dict[str, Any]]:
    """Task descriptions (plain dicts) for every printed (non-NA) cell of the given tables."""
    from certdp.workflows.mixtures.tables_mg import PAPER_TABLE3, PAPER_TABLE4
    from certdp.workflows.mixtures.tables_qg import DELTAS, EPSILONS, PAPER_TABLE5, PAPER_TABLE6

    grids = {"4": PAPER_TABLE4, "5": PAPER_TABLE5, "6": PAPER_TABLE6}
    out = []
    for t in tables:
        if t not in grids:
            raise ValueError(f"table {t}: {UNAVAILABLE.get(t, 'not a seed 000 improvement table')}")
        for i, dl in enumerate(DELTAS):
            for j, ep in enumerate(EPSILONS):
                v = grids[t][i][j]
                if v is None:
                    continue
                out.append({"table": t, "epsilon": ep, "delta": dl, "printed": f"{v:.2f}",
                            "first_k": PAPER_TABLE3[i][j] if t == "4" else None})
    return out


def run_task(task: dict[str, Any], timeout: float | None = 60.0) -> dict[str, Any]:
    """One table cell through :func:`refute_printed_cell` (picklable in and out)."""
    return refute_printed_cell(task["table"], task["epsilon"], task["delta"], task["printed"],
                               first_k=task.get("first_k"), timeout=timeout)


def summarize(cells: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Counts per table and verdict."""
    out: dict[str, dict[str, int]] = {}
    for c in cells:
        t = out.setdefault(c["table"], {v: 0 for v in ("REFUTED", "NOT_REFUTED", "UNDECIDED", "IMPOSSIBLE")})
        t[c["verdict"]] += 1
    return out
