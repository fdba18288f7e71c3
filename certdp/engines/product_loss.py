"""Product-distribution engine: GGM with a sensitivity vector (seed 004 Sec. 3.3-3.6).

Structure.  For X = (X_1..X_d) i.i.d. GGD(0, b, p) and the worst shift Delta
(Lemma 3.5), the privacy loss is a sum of independent 1-D losses

    L = sum_i l_i(X_i),   l_i(x) = (|x + Delta_i|^p - |x|^p) / b^p   (non-decreasing in x, p >= 1),

and delta_{p,b}(eps; Delta) = E[h(L)] with h(t) = (1 - e^(eps - t))_+ (App. A.2),
h non-decreasing.

Deterministic certified enclosure (our construction; the paper only has Monte Carlo).
Cut the real line of coordinate i at exact points x_0 < ... < x_K.  On the bin
(x_{k-1}, x_k] the loss lies in [l_i(x_{k-1}), l_i(x_k)] (monotone), so

* UPPER: move each bin's mass to the grid point ceil(l_i(x_k)^+ / dt) dt (loss
  rounded up), the right tail (x_K, inf) to +inf when p > 1 (h = 1) or to
  Delta_i/b when p = 1; each coordinate's rounded loss dominates the true one
  pointwise, h is non-decreasing, so E[h(sum of rounded-up)] >= delta.
* LOWER: move mass to floor(l_i(x_{k-1})^- / dt) dt, the left tail to -inf
  (contributes 0), giving E[h(sum of rounded-down)] <= delta.

Bin masses S(x_{k-1}) - S(x_k) and loss values are Arb balls (regularized
incomplete gamma); the upper computation uses their upper ends rounded up to
float64, the lower computation their lower ends rounded down, and grid indices
come from outward-rounded loss endpoints.  The laws of coordinates 1..d-1 are
convolved in float64 with numpy's direct convolution (non-negative terms:
|fl(s) - s| <= gamma_n s, gamma_n = n u / (1 - n u), u = 2^-53, any summation
order; Higham, Accuracy and Stability, Sec. 3.1).  The last coordinate is summed
against h exactly by suffix sums, E[h(t + l_d)] = SA - e^(eps - t) SB, whose float
error is bounded in ABSOLUTE terms (each inner value lies in [0, total mass]; the
exponentials e^(-k dt) come from an Arb value of e^(-dt) and float products, each
with relative error <= gamma_N); we add/subtract 8 gamma_N * (total mass) plus an
underflow term, with N the total operation count of a chain.  The resulting floats
bracket the exact discrete expectations, which bracket delta.

The result is a rigorous enclosure [lower, upper] of delta whose width shrinks
like d * dt (grid resolution), not a Monte-Carlo estimate.  It rests on: the
float64 model of IEEE-754 round-to-nearest arithmetic for products and sums
(numpy on x86-64), and Arb.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb, ctx

from certdp.engines.monotone_loss import _survival_from_log
from certdp.numbers.balls import abs_pow, float_lower, float_upper, to_arb

__all__ = ["product_delta_enclosure", "product_delta_bounds", "float_product_delta", "float_product_scale",
           "mc_empirical_bernstein", "DEFAULT_GRID_STEP", "StandardCoordinate", "standard_coordinates"]

U = 2.0**-53
TINY = 2.0**-1074
DEFAULT_GRID_STEP = 2.0**-11


def _loss_float(x: np.ndarray, p: float, b: float, d: float) -> np.ndarray:
    return (np.abs(x + d) ** p - np.abs(x) ** p) / b**p


def _cut_points(p: float, b: float, d: float, dt: float, tail: float, thin: bool = True) -> np.ndarray:
    """Exact float cut points x_k so that consecutive losses differ by about dt.

    Any cut points give a valid enclosure; these just make it tight.  The range
    covers all but ~``tail`` of the mass of each side.
    """
    from scipy.special import gammainccinv

    s = 1.0 / p
    if p == 1.0:
        lo_x, hi_x = -d, 0.0  # loss is constant outside [-Delta, 0]
    else:
        r = b * float(gammainccinv(s, 2.0 * tail)) ** s  # P(|X| > r) = tail/... per side
        lo_x, hi_x = -r - d, r
    t_lo = _loss_float(np.array([lo_x]), p, b, d)[0]
    t_hi = _loss_float(np.array([hi_x]), p, b, d)[0]
    n = int(math.ceil((t_hi - t_lo) / dt)) + 1
    n = max(min(n, 400_000), 2)
    targets = np.linspace(t_lo, t_hi, n)
    # vectorised bisection for x with loss(x) = target (loss non-decreasing)
    a = np.full(n, lo_x)
    c = np.full(n, hi_x)
    for _ in range(42):
        m = 0.5 * (a + c)
        below = _loss_float(m, p, b, d) < targets
        a = np.where(below, m, a)
        c = np.where(below, c, m)
    x = np.unique(np.concatenate(([lo_x], 0.5 * (a + c), [hi_x])))
    return _thin(x, p, b, d, dt) if thin else x


def _thin(x: np.ndarray, p: float, b: float, d: float, dt: float) -> np.ndarray:
    """Drop cut points where little mass sits (float heuristic; any subset stays rigorous).

    A bin of mass m and loss span w costs about m * w in enclosure width; keep
    m * w <= dt^2 * rho_max (rho_max: largest loss density), so the central bins
    stay one grid step wide while the tails merge into few wide bins.
    """
    from scipy.special import gammaincc

    if len(x) < 8:
        return x
    s = 1.0 / p
    q = gammaincc(s, (np.abs(x) / b) ** p) / 2
    sf = np.where(x > 0, q, 1 - q)
    m = np.abs(np.diff(sf))
    loss = _loss_float(x, p, b, d)
    w = np.diff(loss)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho_max = float(np.nanmax(np.where(w > 0, m / np.maximum(w, 1e-300), 0.0)))
    tau = dt * dt * max(rho_max, 1e-300)
    keep = [0]
    acc_m = 0.0
    start_loss = loss[0]
    for k in range(1, len(x)):
        acc_m += m[k - 1]
        if acc_m * (loss[k] - start_loss) > tau:
            if keep[-1] != k - 1:
                keep.append(k - 1)
                acc_m = m[k - 1]
                start_loss = loss[k - 1]
            else:
                keep.append(k)
                acc_m = 0.0
                start_loss = loss[k]
    if keep[-1] != len(x) - 1:
        keep.append(len(x) - 1)
    return x[np.array(keep)]


def _round_down(x: arb) -> float:
    """A float <= every point of the ball ``x``, clipped at 0: for masses, which are >= 0."""
    return max(float_lower(x), 0.0)


class StandardCoordinate:
    """One coordinate's cut points in standardized units and their bin masses, shared by scales.

    With X = b Y, Y ~ GGD(0, 1, p), the bin (b y_{k-1}, b y_k] of X has the mass of the bin
    (y_{k-1}, y_k] of Y, whatever b is, and the loss there is l(b y) = |y + Delta/b|^p - |y|^p,
    non-decreasing in y.  So the expensive part of a coordinate's law -- the survival function
    (a regularized incomplete gamma per cut point) -- is computed once for the points ``ys`` and
    reused by every scale of a bracket search; only the losses depend on b.  Any cut points give
    a valid enclosure (they only set its tightness), so points chosen at one scale serve all.

    ``ys``: the exact float cut points y_0 < ... < y_{K-1}; ``powers``: Arb balls of |y_k|^p;
    ``mass_up`` / ``mass_lo``: the bin masses (bin 0 = (-inf, y_0], bins 1..K-1, bin K =
    (y_{K-1}, inf)) rounded up / down to float64.
    """

    def __init__(self, p: Fraction, ys: np.ndarray):
        p_a = to_arb(p)
        zero = arb(0)
        self.p = p
        self.ys = ys
        self.balls = [arb(float(y)) for y in ys]  # exact
        self.powers: list[arb] = []
        surv = []
        for y, y_ball in zip(ys, self.balls):
            if y == 0.0:
                surv.append(arb(1) / 2)
                self.powers.append(zero)
                continue
            log_abs = abs(y_ball).log()
            surv.append(_survival_from_log(1 if y > 0 else -1, log_abs, p_a, zero))
            self.powers.append((p_a * log_abs).exp())
        masses = [1 - surv[0]] + [surv[k - 1] - surv[k] for k in range(1, len(ys))] + [surv[-1]]
        self.mass_up = [float_upper(m) for m in masses]
        self.mass_lo = [_round_down(m) for m in masses]

    @classmethod
    def at_scale(cls, p: Fraction, b: float, d: Fraction, dt: float, tail: float) -> "StandardCoordinate":
        """Cut points chosen for the scale ``b`` (consecutive losses about ``dt`` apart), standardized."""
        xs = _cut_points(float(p), b, float(d), dt, tail)
        return cls(p, xs / b)




def _coordinate_laws(p: Fraction, b: arb, d: Fraction, dt: float, tail: float,
                     standard: StandardCoordinate | None = None):
    """Discrete dominating / dominated laws of l_i(X_i) on the grid dt Z.

    Returns (up_offset, up_masses, up_mult, up_top, lo_offset, lo_masses, lo_mult): masses as
    float arrays (already rounded outward), up_top = mass sent to +inf. ``standard`` (the
    coordinate's standardized cut points and masses, :class:`StandardCoordinate`) is computed
    here at the scale ``b`` when not given.
    """
    if standard is None:
        standard = StandardCoordinate.at_scale(p, float(b.mid()), d, dt, tail)
    p_a = to_arb(p)
    d_over_b = to_arb(d) / b
    inv_dt = arb(1) / arb(dt)  # dt is a power of two: exact
    up_idx = []
    lo_idx = []
    ceil, floor, upper, lower = math.ceil, math.floor, float_upper, float_lower
    for y_ball, y_pow in zip(standard.balls, standard.powers):
        scaled = (abs_pow(y_ball + d_over_b, p_a) - y_pow) * inv_dt  # l(b y) / dt
        up_idx.append(ceil(upper(scaled)))
        lo_idx.append(floor(lower(scaled)))
    k_count = len(standard.ys)
    mass_up, mass_lo = standard.mass_up, standard.mass_lo
    # UPPER law: bin k (k = 0..K-1) -> up_idx[k]; last bin -> +inf (p > 1) or Delta/b (p = 1)
    up_pairs = list(zip(up_idx, mass_up[:k_count]))
    up_top = 0.0
    if p == 1:
        last = math.ceil(float_upper(d_over_b * inv_dt))
        up_pairs.append((last, mass_up[-1]))
    else:
        up_top = mass_up[-1]
    # LOWER law: bin k (k = 1..K) -> lo_idx[k-1]; first bin -> -inf (p > 1, dropped) or -Delta/b (p = 1)
    lo_pairs = list(zip(lo_idx, mass_lo[1:]))
    if p == 1:
        first = math.floor(-float_upper(d_over_b * inv_dt))
        lo_pairs.append((first, mass_lo[0]))

    def to_array(pairs):
        idx = np.array([i for i, _ in pairs], dtype=np.int64)
        lo = int(idx.min())
        arr = np.zeros(int(idx.max()) - lo + 1)
        for i, m in pairs:
            arr[i - lo] += m  # float sums of non-negative numbers: error bound applied below
        return lo, arr, max(int(np.bincount(idx - lo).max()), 1)

    up_off, up_arr, up_mult = to_array(up_pairs)
    lo_off, lo_arr, lo_mult = to_array(lo_pairs)
    return up_off, up_arr, up_mult, up_top, lo_off, lo_arr, lo_mult


def standard_coordinates(p: Fraction, b: float, sensitivities, *, dt: float = DEFAULT_GRID_STEP,
                         tail: float = 1e-13) -> list[StandardCoordinate]:
    """The :class:`StandardCoordinate` of every coordinate, cut for the scale ``b`` (float, a guess):
    pass it to :func:`product_delta_bounds` at every scale of a search to compute the masses once."""
    return [StandardCoordinate.at_scale(Fraction(p), b, Fraction(d), dt, tail) for d in sensitivities]


def _last_coordinate_sum(c: np.ndarray, c_off: int, m: np.ndarray, m_off: int, eps: arb, dt: float, *,
                         with_tail: bool = False) -> float | tuple[float, float]:
    """float64 value of sum_j c_j sum_k m_k h((c_off + j + m_off + k) dt) via suffix sums
    (``with_tail``: and the mass of the total losses above eps, sum_j c_j sum_{k >= k0} m_k).

    h(t) = (1 - e^(eps - t))_+; for fixed j the inner sum is SA[k0] - e^(u_j - s_k0) SB[k0] with
    u_j = eps - t_j, SA the suffix sums of m_k, SB[k] = sum_{i >= k} m_i e^(-(i - k) dt) (the
    recurrence SB[k] = m_k + e^-dt SB[k + 1], all terms positive and <= the mass) and k0 the first k
    with s_k > u_j, so that u_j - s_k0 lies in [-dt, 0) and no exponential leaves [e^-dt, 1]: the
    split e^(u_j) * sum m_k e^(-s_k) overflowed once the losses spanned more than ~700 (p = 4,
    eps = 50: NaN).  Error analysis in :func:`product_delta_bounds`.
    """
    from scipy.signal import lfilter

    n_m = len(m)
    r = float(arb(-dt).exp().mid())
    sa = np.concatenate((np.cumsum(m[::-1])[::-1], [0.0]))
    sb = np.concatenate((lfilter([1.0], [1.0, -r], m[::-1])[::-1], [0.0]))
    e_over = eps / arb(dt)
    e_mid = float(e_over.mid())
    # s_k > eps - t_j  <=>  k > thr_j = e_over - c_off - j - m_off; with e_over = E + f (E an integer,
    # 0 <= f < 1, both exact) the integer part I_j = E - c_off - m_off - j is exact (int64) and
    # k0 = I_j + 1, so k0 - thr_j = 1 - f wherever k0 is not clipped
    e_int = math.floor(e_mid)
    e_frac = e_mid - e_int
    whole = np.int64(e_int - c_off - m_off) - np.arange(len(c), dtype=np.int64)
    # a misplaced threshold (e_mid within rounding of an integer) moves only terms with h ~ 0 there
    k0 = np.clip(whole + 1, 0, n_m)
    # e^(u_j - s_k0) = e^(-(k0 - thr_j) dt), <= 1 except where k0 was clipped to n_m (then SB = 0)
    e_t = np.exp(-np.maximum((k0 - whole).astype(np.float64) - e_frac, 0.0) * dt)
    inner = sa[k0] - e_t * sb[k0]
    inner = np.maximum(inner, 0.0)
    if with_tail:
        return float(np.dot(c, inner)), float(np.dot(c, sa[k0]))
    return float(np.dot(c, inner))


def product_delta_bounds(p: Fraction, b: arb, eps: arb, sensitivities, *, dt: float = DEFAULT_GRID_STEP,
                         tail: float = 1e-13, standard: list[StandardCoordinate] | None = None
                         ) -> tuple[float, float]:
    """Certified (lower, upper) float bounds on delta_{p,b}(eps; Delta), p >= 1 finite, b > 0 a ball.

    Coordinates 1..d-1: discrete laws convolved (numpy direct convolution, all
    terms >= 0: relative error <= gamma_n).  Last coordinate: exact suffix sums
    against h (cancellation-free in absolute terms: every inner sum is <= its
    total mass <= 1 + tiny, so the float error is at most a few gamma_N in
    ABSOLUTE terms, N the total number of operations in a chain; we add
    8 gamma_N * (total mass) to the upper bound and subtract it from the lower).
    The grid index of e.g. eps/dt is decided in float; a misplaced threshold
    can only move a term whose h-value lies within one rounding of 0, which the
    absolute error term covers (h is continuous and vanishes there).

    ``standard`` (from :func:`standard_coordinates`, one per coordinate in the same order) reuses
    the cut points and bin masses computed once for a search over scales; without it they are
    computed at ``b``.  Either way the bounds are rigorous (the cut points only set the tightness).
    """
    ups, los = [], []
    top_total = 0.0
    mult = 1
    if standard is not None and len(standard) != len(sensitivities):
        raise ValueError("one standard coordinate per sensitivity is needed")
    for i, d in enumerate(sensitivities):
        up_off, up_arr, mu, up_top, lo_off, lo_arr, ml = _coordinate_laws(
            Fraction(p), b, Fraction(d), dt, tail, None if standard is None else standard[i])
        ups.append((up_off, up_arr))
        los.append((lo_off, lo_arr))
        top_total += up_top
        mult = max(mult, mu, ml)

    def convolve_all(parts):
        off, arr = parts[0]
        n_ops = mult
        for o, a in parts[1:]:
            n_ops += min(len(arr), len(a)) + 1
            arr = np.convolve(arr, a)
            off += o
        return off, arr, n_ops

    if len(ups) == 1:
        ups = [(0, np.array([1.0]))] + ups
        los = [(0, np.array([1.0]))] + los
    up_off, up_c, n_up = convolve_all(ups[:-1])
    lo_off, lo_c, n_lo = convolve_all(los[:-1])
    s_up = _last_coordinate_sum(up_c, up_off, ups[-1][1], ups[-1][0], eps, dt)
    s_lo = _last_coordinate_sum(lo_c, lo_off, los[-1][1], los[-1][0], eps, dt)
    n_chain = max(n_up, n_lo) + len(up_c) + len(lo_c) + len(ups[-1][1]) + len(los[-1][1]) + 64
    gamma = n_chain * U / (1 - n_chain * U)
    mass_up = float(np.sum(up_c)) * (1 + gamma) * float(np.sum(ups[-1][1])) * (1 + gamma)
    err = 8 * gamma * max(mass_up, 1.0) + n_chain * 64 * TINY
    upper = math.nextafter(s_up + err + top_total * (1 + 4 * U), math.inf)
    lower = max(s_lo - err, 0.0)
    return lower, min(upper, 1.0)


def product_delta_enclosure(p: Fraction, b: arb, eps: arb, sensitivities) -> arb:
    """Arb ball [lower, upper] for delta (see :func:`product_delta_bounds`).

    The grid step follows the working precision so that the callers' precision
    escalation refines the grid: 64 bits -> 2^-10, 128 -> 2^-12, 256 -> 2^-13.  Above
    256 bits there is no finer grid (cost grows like 1/dt); a non-finite ball is
    returned ("cannot do better at this rung"), so escalation stops quickly and the
    callers keep the 256-bit enclosure / report UNKNOWN honestly.
    """
    if ctx.prec > 256:
        return arb(0, float("inf"))
    dt = 2.0**-10 if ctx.prec <= 64 else (2.0**-12 if ctx.prec <= 128 else 2.0**-13)
    lo, hi = product_delta_bounds(p, b, eps, sensitivities, dt=dt)
    return arb(lo).union(arb(hi))


# ------------------------------------------------------------------------------------------
# float64 estimates (candidates only) and the probabilistic MC / empirical-Bernstein method
# ------------------------------------------------------------------------------------------

def float_product_delta(p: float, b: float, eps: float, sensitivities, dt: float = 2.0**-10, *,
                        with_tail: bool = False, tail: float = 1e-12, fast: bool = False) -> float | tuple[float, float]:
    """float64 estimate of delta (same discretisation, mid-bin losses). Not certified.

    ``with_tail``: the pair (delta, P(L > eps)) -- their ratio delta / P(L > eps) is the mean of
    1 - e^(eps - L) over the losses above eps, the scale a loss grid must resolve."""
    from scipy.signal import fftconvolve
    from scipy.special import gammaincc

    arr_all = None
    off_all = 0
    laws = []
    for d in sensitivities:
        xs = _cut_points(p, b, d, dt, tail, thin=False)
        s = 1.0 / p
        sf = np.where(xs > 0, gammaincc(s, (np.abs(xs) / b) ** p) / 2, 1 - gammaincc(s, (np.abs(xs) / b) ** p) / 2)
        masses = np.concatenate(([1 - sf[0]], sf[:-1] - sf[1:], [sf[-1]]))
        loss = _loss_float(xs, p, b, d)
        mids = np.concatenate(([loss[0]], 0.5 * (loss[:-1] + loss[1:]), [loss[-1]]))
        idx = np.round(mids / dt).astype(np.int64)
        lo = int(idx.min())
        laws.append((lo, np.bincount(idx - lo, weights=masses)))
    arr_all, off_all = np.array([1.0]), 0
    for lo, arr in laws[:-1]:
        # FFT errors are ~1e-16 of the total mass: harmless for a delta above ~1e-9 (a float estimate)
        arr_all = fftconvolve(arr_all, arr) if fast and len(arr_all) * len(arr) > 1 << 16 else np.convolve(arr_all, arr)
        off_all += lo
    with ctx.workprec(64):
        return _last_coordinate_sum(arr_all, off_all, laws[-1][1], laws[-1][0], arb(eps), dt, with_tail=with_tail)


def _remembered(fn):
    """``fn`` with its values kept: brentq re-evaluates the bracket ends we already tried."""
    seen: dict[float, float] = {}

    def at(x: float) -> float:
        if x not in seen:
            seen[x] = fn(x)
        return seen[x]
    return at


def _float_log_scale_root(estimate, delta: float, lo: float, hi: float, tol: float) -> float:
    """Brent on log b of log estimate(b) - log delta (float64; a candidate only): ``lo`` if the
    estimate is already below delta there, else ``hi`` grown by 1.5x (at most 20 times) until it is."""
    from scipy.optimize import brentq

    f = _remembered(lambda lb: math.log(max(estimate(math.exp(lb)), 1e-300)) - math.log(delta))
    if f(math.log(lo)) < 0:
        return lo
    k = 0
    while f(math.log(hi)) > 0 and k < 20:
        hi *= 1.5
        k += 1
    return math.exp(brentq(f, math.log(lo), math.log(hi), xtol=tol, rtol=tol))


def float_product_scale(p: float, eps: float, delta: float, sensitivities, polish: bool = True,
                        coarse_dt: float = 2.0**-8, polish_tol: float = 1e-7) -> float | None:
    """float64 candidate for b-hat(p) (Brent on log b of the float estimate).

    ``polish``: refine the coarse-grid root on the grid 2^-11 to relative ``polish_tol``.

    Bracket: b(p; Delta) >= b(p; max_i Delta_i) (seed 004 App. D.2: the d-dim divergence
    dominates each 1-D one), and the 1-D scale for ||Delta||_1 as a first upper guess.
    """
    from scipy.optimize import brentq

    from certdp.engines.monotone_loss import float_scale

    lo = float_scale(p, eps, delta, max(sensitivities))
    hi = float_scale(p, eps, delta, sum(sensitivities))
    if lo is None or hi is None:
        return None
    lo *= 0.999
    try:
        b0 = _float_log_scale_root(lambda b: float_product_delta(p, b, eps, sensitivities, dt=coarse_dt), delta,
                                   lo, hi, 1e-6 if polish else 1e-4)
        if not polish or b0 == lo:
            return b0
        # polish at a finer grid from the coarse root
        f2 = _remembered(lambda lb: math.log(max(float_product_delta(p, math.exp(lb), eps, sensitivities,
                                                                    dt=2.0**-11), 1e-300)) - math.log(delta))
        a, c = math.log(b0) - 0.01, math.log(b0) + 0.01
        if f2(a) > 0 > f2(c):
            return math.exp(brentq(f2, a, c, xtol=polish_tol, rtol=polish_tol))
        return b0
    except (ValueError, OverflowError):
        return None


def _pow2_floor(x: float) -> float:
    return 2.0 ** math.floor(math.log2(x))


def float_vector_scale(p: float, eps: float, delta: float, sensitivities, *, rtol: float = 1e-4,
                       with_excess: bool = False) -> float | tuple[float, float, float] | None:
    """float64 candidate for b(p) of a sensitivity vector at any (eps, delta), resolving the loss.

    Not certified: it only proposes (the cut points and the first scale of a certified bracket).
    Brent on log b of :func:`float_product_delta`, with the loss grid and the tail cut following the
    cell instead of fixed: the grid is 2^-5 times the loss scale max_i Delta_i / b_hi (b_hi the 1-D
    scale of ||Delta||_1, an upper bound of b) -- at eps = 0.01, d = 5, p = 1 the fixed grid 2^-7 was
    coarser than the whole loss range and the candidate came out 2.3x too small -- then refined to
    2^-5 times the mean excess delta / P(L > eps) at the first root (the scale the losses above eps
    must be resolved at, but at least 2^-12 max_i Delta_i / b) and the root re-solved if that is finer; the tails are cut at
    min(1e-12, delta / 1000); FFT convolution where delta >= 1e-9 (its ~1e-16 absolute errors are
    harmless there).  ``with_excess``: the triple (b, delta / P(L > eps), -d log delta / d log b) at the
    returned scale (the excess is the grid step when no loss above eps was resolved).
    """
    from certdp.engines.monotone_loss import float_scale

    lo = float_scale(p, eps, delta, max(sensitivities))
    hi = float_scale(p, eps, delta, sum(sensitivities))
    if lo is None or hi is None:
        return None
    lo *= 0.999
    tail = min(1e-12, delta * 1e-3)
    fast = delta >= 1e-9

    def root(dt: float, a: float, c: float) -> float:
        return _float_log_scale_root(
            lambda b: float_product_delta(p, b, eps, sensitivities, dt=dt, tail=tail, fast=fast), delta, a, c, rtol)

    try:
        dt = 2.0**-5 * _pow2_floor(min(1.0, max(sensitivities) / hi))
        b1 = root(dt, lo, hi)
        est, above = float_product_delta(p, b1, eps, sensitivities, dt=dt, tail=tail, fast=fast, with_tail=True)
        excess = est / above if above > 0 and est > 0 else dt
        # never finer than 2^-12 of one coordinate's loss scale: near the pure-DP scale of p = 1 the excess
        # is tiny only because delta falls off a cliff (eps = 50, d = 3: 11 s for no better candidate)
        dt2 = max(2.0**-5 * _pow2_floor(excess), _pow2_floor(2.0**-12 * max(sensitivities) / b1))
        if dt2 < dt:
            b1 = root(dt2, max(lo, b1 * 0.9), b1 * 1.1)
            est, above = float_product_delta(p, b1, eps, sensitivities, dt=dt2, tail=tail, fast=fast, with_tail=True)
            excess = est / above if above > 0 and est > 0 else dt2
        if not with_excess:
            return b1
        # -d log delta / d log b at b1 (one-sided, 1 %): with the excess it sets the loss step a bracket needs
        est2 = float_product_delta(p, b1 * 1.01, eps, sensitivities, dt=min(dt, dt2), tail=tail, fast=fast)
        slope = (math.log(max(est, 1e-300)) - math.log(max(est2, 1e-300))) / math.log(1.01)
        return b1, excess, slope
    except (ValueError, OverflowError):
        return None


def mc_empirical_bernstein(p: float, b: float, eps: float, sensitivities, n: int, alpha: float,
                           rng: np.random.Generator) -> tuple[float, float, float]:
    """PROBABILISTIC (seed 004 Sec. 3.5, Maurer & Pontil 2009): (mean, L_N, U_N).

    W = (1 - exp(eps - L(X)))_+ in [0, 1], X ~ GGD(0, b, p)^d.  With probability
    >= 1 - alpha, L_N <= delta <= U_N (two-sided, alpha/2 each side):
    mean +- (sqrt(2 V log(4/alpha) / n) + 7 log(4/alpha) / (3 (n - 1))), V the
    sample variance.  NOT a certified bound: it fails with probability alpha.
    """
    d = len(sensitivities)
    g = rng.gamma(1.0 / p, 1.0, size=(n, d))
    x = b * rng.choice(np.array([-1.0, 1.0]), size=(n, d)) * g ** (1.0 / p)
    deltas = np.asarray(sensitivities, dtype=float)
    loss = ((np.abs(x + deltas) ** p - np.abs(x) ** p) / b**p).sum(axis=1)
    w = np.clip(-np.expm1(eps - loss), 0.0, 1.0)
    mean = float(w.mean())
    var = float(w.var(ddof=1))
    log_term = math.log(4.0 / alpha)
    rad = math.sqrt(2 * var * log_term / n) + 7 * log_term / (3 * (n - 1))
    return mean, max(mean - rad, 0.0), min(mean + rad, 1.0)
