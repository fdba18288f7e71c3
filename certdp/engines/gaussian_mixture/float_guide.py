"""Float64 guides of the mixture engine: seed 000's calibrations in float64 (NOT certified).

Used as candidates for the certified brackets, for the float-only column of the benchmark and
to compare with the paper's Julia numbers. Nothing here decides a privacy inequality.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import log_ndtr, ndtr

from certdp.engines.gaussian_mixture.settings import DEFAULT_SETTINGS
from certdp.engines.gaussian_mixture.tied_end import thin_lobes_likely

__all__ = ["qg_sigma1_float", "qg_sigma2_float", "qg_paper_sigma_float", "analytic_gaussian_sigma_float",
           "qg_moments_float", "mg_moments_float",
           "mixture_hockey_stick_float", "mixture_hockey_stick_and_slope_float", "mg_profile_float",
           "mg_sigma_float", "mg_argmax_hint", "mg_peak_scale", "qg_extremum_float", "mg_components"]


def _h_sum(sigma: float, eps: float, delta: float, d: float) -> float:
    a = -eps * sigma / d
    h1 = math.exp(2 * eps + float(log_ndtr(a - d / sigma))) - float(ndtr(a + d / sigma))
    h2 = (math.exp(eps) + 2 * float(ndtr(d / sigma))) * delta
    return h1 + h2


def qg_sigma1_float(eps: float, delta: float, d: float = 1.0) -> float:
    """sigma_1 of Thm 4.2 (Alg. 3, first part; Lemma 4.3)."""
    if math.exp(eps) + 2 >= 1 / delta:
        return 0.0
    hi = math.sqrt(2 * (eps - math.log(delta))) * d / eps
    lo = hi * 1e-6
    while _h_sum(lo, eps, delta, d) >= 0:
        lo /= 10
    return brentq(lambda s: _h_sum(s, eps, delta, d), lo, hi, xtol=1e-15 * hi, rtol=1e-15, maxiter=500)


def _log_f(x: float, s: float, eps: float, d: float) -> float:
    return float(np.logaddexp(eps - x * x / (2 * s * s), -(x - d) ** 2 / (2 * s * s)))


def _polish_extremum(x: float, s: float, eps: float, d: float) -> float | None:
    """Newton steps on F'(x) = 0, F = e^eps g(x) + g(x - D), from a grid extremum; None if they do
    not settle (a nearly degenerate extremum: the caller falls back to a bounded search)."""
    s2 = s * s
    for _ in range(12):
        ga = math.exp(eps - x * x / (2 * s2))
        gb = math.exp(-(x - d) ** 2 / (2 * s2))
        f1 = -(x * ga + (x - d) * gb) / s2
        f2 = ((x * x / s2 - 1) * ga + ((x - d) ** 2 / s2 - 1) * gb) / s2
        if f2 == 0 or not math.isfinite(f1 / f2):
            return None
        nx = x - f1 / f2
        if not 0.0 <= nx <= d:
            return None
        if abs(nx - x) <= 1e-15 * d:
            return nx
        x = nx
    return None


def qg_extremum_float(s: float, eps: float, d: float, maximize: bool) -> float:
    """Float location in [0, D] of the max (min) of F = e^eps g(x) + g(x - D) (Lemma 4.4
    regions): grid extremum, then Newton on F' (bounded scalar search where Newton does not
    settle); the grid point itself if neither improves on it."""
    grid = np.linspace(0.0, d, 401)
    vals = np.logaddexp(eps - grid ** 2 / (2 * s * s), -(grid - d) ** 2 / (2 * s * s))
    i = int(np.argmax(vals)) if maximize else int(np.argmin(vals))
    x = _polish_extremum(float(grid[i]), s, eps, d)
    if x is None:
        sign = -1.0 if maximize else 1.0
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, 400)]
        x = float(minimize_scalar(lambda y: sign * _log_f(y, s, eps, d), bounds=(lo, hi), method="bounded",
                                  options={"xatol": 1e-13 * d}).x)
    v = _log_f(x, s, eps, d)
    return x if (v > vals[i] if maximize else v < vals[i]) else float(grid[i])


def _log_ratio(s: float, eps: float, d: float) -> float:
    """log(max_{[0,D]} F / min_{[0,D]} F), F = e^eps g(x) + g(x - D)."""
    return _log_f(qg_extremum_float(s, eps, d, True), s, eps, d) - _log_f(qg_extremum_float(s, eps, d, False), s, eps, d)


def qg_sigma2_float(eps: float, d: float = 1.0) -> float:
    """sigma_2 of Thm 4.2: smallest sigma with max f_q <= e^eps min f_q on [0, Delta] (Lemma 4.5)."""
    hi = d / math.sqrt(2 * eps)
    if _log_ratio(hi, eps, d) - eps > 0:
        while _log_ratio(hi, eps, d) - eps > 0:
            hi *= 2
    lo = hi / 2
    while _log_ratio(lo, eps, d) - eps <= 0:
        lo /= 2
    return brentq(lambda s: _log_ratio(s, eps, d) - eps, lo, hi, xtol=1e-14 * hi, rtol=1e-14, maxiter=500)


def qg_paper_sigma_float(eps: float, delta: float, d: float = 1.0) -> float:
    """sigma = max(sigma_1, sigma_2) of Thm 4.2 (Alg. 3) in float64."""
    return max(qg_sigma1_float(eps, delta, d), qg_sigma2_float(eps, d))


def analytic_gaussian_sigma_float(eps: float, delta: float, d: float = 1.0) -> float:
    """Balle-Wang analytic Gaussian sigma in float64 (for tables and candidates only)."""

    def g(s: float) -> float:
        a, b = d / (2 * s), eps * s / d
        la = float(log_ndtr(a - b))
        lb = float(log_ndtr(-a - b))
        val = math.exp(la) - math.exp(eps + lb)
        return math.log(val) - math.log(delta) if val > 0 else -math.inf

    lo, hi = 1e-3 * d, 10.0 * d
    while g(hi) > 0:
        hi *= 2
    while g(lo) < 0:
        lo /= 2
    return brentq(g, lo, hi, xtol=1e-15 * hi, rtol=1e-15, maxiter=500)


def qg_moments_float(sigma: float, eps: float, d: float = 1.0) -> tuple[float, float]:
    """(E|X|, E X^2) of QG (App. C.4) in float64."""
    ph = float(ndtr(d / sigma))
    r2p = math.sqrt(2 * math.pi)
    c = r2p * sigma * (math.exp(eps) + 2 * ph)
    ea = (2 * math.exp(eps) * sigma ** 2 + 2 * (sigma ** 2 * math.exp(-d * d / (2 * sigma ** 2))
                                                  + d * sigma * r2p * ph)) / c
    e2 = (math.exp(eps) * r2p * sigma ** 3
          + 2 * sigma * r2p * (ph * (sigma ** 2 + d * d) + sigma * d * math.exp(-d * d / (2 * sigma ** 2)) / r2p)) / c
    return ea, e2


def mg_moments_float(sigma: float, eps: float, k_max: int, d: float = 1.0) -> tuple[float, float]:
    ks = np.arange(-k_max, k_max + 1)
    p = np.exp(-np.abs(ks) * eps)
    p /= p.sum()
    mu = ks * d
    ea = float(np.sum(p * (sigma * math.sqrt(2 / math.pi) * np.exp(-mu ** 2 / (2 * sigma ** 2))
                           + mu * (1 - 2 * ndtr(-mu / sigma)))))
    e2 = float(sigma ** 2 + np.sum(p * mu ** 2))
    return ea, e2


# ------------------------------------------------------------------ multi-Gaussian (float guide)


def mg_components(eps: float, k_max: int, d: float) -> tuple[np.ndarray, np.ndarray]:
    """Means ``k d`` and normalised log-weights ``-|k| eps`` of the MG mixture, ``|k| <= k_max``."""
    ks = np.arange(-k_max, k_max + 1)
    logw = -np.abs(ks) * float(eps)
    logw -= float(np.logaddexp.reduce(logw))
    return ks * d, logw


def _phi_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Phi(b) - Phi(a) for a <= b, on the tail side that avoids cancellation."""
    return np.where(a > 0, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a))


def _logsumexp_rows(a: np.ndarray) -> np.ndarray:
    top = a.max(axis=1)
    return top + np.log(np.exp(a - top[:, None]).sum(axis=1))


ROOT_GRID_PER_SIGMA = 8  # root-grid points per sigma of the float guide
ROOT_GRID_MIN = 400
NEAR_ROOT = 0.05  # |log-ratio - eps| at both ends of a root-grid cell below which it is resampled ...
CELL_SAMPLES = 32  # ... at this many points (a run narrower than the cell may hide there) ...
CELL_CAP = 16  # ... in at most this many cells, those closest to 0
MAX_BISECTIONS = 14  # bisections of a cell to the maximum of the log-ratio inside it (thin runs)


def _refine_roots(ell_and_slope, a: np.ndarray, b: np.ndarray, ga: np.ndarray, xtol: float,
                  iters: int = 60) -> np.ndarray:
    """Roots of ``ell`` in the brackets ``[a, b]`` (``ell(a) = ga`` and ``ell(b)`` of opposite signs)
    to ``xtol``: vectorised Newton steps, kept inside the shrinking bracket (bisection otherwise)."""
    if a.size == 0:
        return a
    lo, hi, g_lo = a.copy(), b.copy(), ga.copy()
    x = 0.5 * (lo + hi)
    for _ in range(iters):
        g, slope = ell_and_slope(x)
        left = np.sign(g) == np.sign(g_lo)  # the root is to the right of x
        lo, g_lo, hi = np.where(left, x, lo), np.where(left, g, g_lo), np.where(left, hi, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = g / slope
        done = np.abs(step) <= xtol
        newton = x - step
        x = np.where(done | ((newton > lo) & (newton < hi)), newton, 0.5 * (lo + hi))
        if np.all(done):
            break
    return x


def _root_grid_float(means: np.ndarray, logw: np.ndarray, sigma: float, max_shift: float,
                    tail: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """``(xs, log f(xs))``: the root grid of :func:`mixture_hockey_stick_and_slope_float` for every
    shift in ``[0, max_shift]`` at once (its unshifted half is then computed once per sigma)."""
    xl = float(means.min()) - max_shift - tail * sigma
    xr = float(means.max()) + tail * sigma
    n = int(min(40000, max(ROOT_GRID_MIN, ROOT_GRID_PER_SIGMA * (xr - xl) / sigma)))
    xs = np.linspace(xl, xr, n)
    return xs, _logsumexp_rows(logw[None, :] - (xs[:, None] - means[None, :]) ** 2 / (2 * sigma * sigma))


def mixture_hockey_stick_and_slope_float(means: np.ndarray, logw: np.ndarray, sigma: float, eps: float,
                                         phi: float, tail: float = 10.0,
                                         grid: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[float, float]:
    """``(H(phi), H'(phi))`` with ``H(phi) = int (f(x + phi) - e^eps f(x))_+ dx`` for
    ``f = sum_k w_k N(m_k, sigma^2)``, in float64 (an estimate only).

    Roots of ``log f(x + phi) - log f(x) - eps`` are located on a grid of step ``sigma / 8`` (cells
    whose two ends are close to a root are resampled 32 times finer: a narrow run may hide there) and
    refined by safeguarded Newton steps; ``H`` is then a sum of Gaussian-CDF differences over
    the positive runs and ``H' = sum over runs [a, b] of f(b + phi) - f(a + phi)`` (the engine's
    derivative formula, package docstring of :mod:`certdp.engines.gaussian_mixture`). ``grid``: a
    :func:`_root_grid_float` for a ``max_shift >= phi`` (same ``tail``), reused across shifts.
    """
    xs, base = grid if grid is not None else _root_grid_float(means, logw, sigma, phi, tail)
    xl, xr = float(xs[0]), float(xs[-1])
    inv = 1.0 / (2 * sigma * sigma)

    def ell(x: np.ndarray) -> np.ndarray:
        a = _logsumexp_rows(logw[None, :] - (x[:, None] + phi - means[None, :]) ** 2 * inv)
        b = _logsumexp_rows(logw[None, :] - (x[:, None] - means[None, :]) ** 2 * inv)
        return a - b - eps

    def ell_and_slope(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # d/dx log f(x + phi) = -(x + phi - posterior mean) / sigma^2, and the same at x
        za, zb = x[:, None] + phi - means[None, :], x[:, None] - means[None, :]
        ea, eb = logw[None, :] - za * za * inv, logw[None, :] - zb * zb * inv
        ta, tb = ea.max(axis=1), eb.max(axis=1)
        pa, pb = np.exp(ea - ta[:, None]), np.exp(eb - tb[:, None])
        sa, sb = pa.sum(axis=1), pb.sum(axis=1)
        value = ta + np.log(sa) - tb - np.log(sb) - eps
        slope = ((pb * zb).sum(axis=1) / sb - (pa * za).sum(axis=1) / sa) * (2 * inv)
        return value, slope

    g = _logsumexp_rows(logw[None, :] - (xs[:, None] + phi - means[None, :]) ** 2 * inv) - base - eps
    idx = np.nonzero(np.sign(g[:-1]) * np.sign(g[1:]) < 0)[0]
    a, b, ga = xs[idx], xs[idx + 1], g[idx]
    # a narrow run (two roots in one cell, e.g. a near-tangency of f(. + phi) and e^eps f) hides in a
    # cell whose two ends have the same, small value of ell: such cells are resampled finely
    cells = np.nonzero((np.sign(g[:-1]) == np.sign(g[1:])) & (np.maximum(np.abs(g[:-1]), np.abs(g[1:])) < NEAR_ROOT))[0]
    if cells.size > CELL_CAP:  # e.g. next to a tied shift, where ell ~ 0 on long ranges: the closest only
        cells = np.sort(cells[np.argsort(np.maximum(np.abs(g[cells]), np.abs(g[cells + 1])))[:CELL_CAP]])
    if cells.size:
        fine = xs[cells][:, None] + (xs[1] - xs[0]) * np.linspace(0.0, 1.0, CELL_SAMPLES + 1)[None, :]
        gf = ell(fine.ravel()).reshape(fine.shape)
        ci, cj = np.nonzero(np.sign(gf[:, :-1]) * np.sign(gf[:, 1:]) < 0)
        a = np.concatenate((a, fine[ci, cj]))
        b = np.concatenate((b, fine[ci, cj + 1]))
        ga = np.concatenate((ga, gf[ci, cj]))
    # thin runs at a local maximum of ell inside a cell with negative ends (next to a tied shift, where
    # ell ~ 0 on long ranges, MG at eps 1 has ~50 runs ~1e-3 sigma wide that the cells above miss):
    # where the slope changes sign inside such a cell, bisect it to the maximum; a positive maximum
    # splits the cell into two root brackets
    cand = np.nonzero((g[:-1] < 0) & (g[1:] < 0) & (np.maximum(g[:-1], g[1:]) > -NEAR_ROOT))[0]
    if cand.size:
        _, slopes = ell_and_slope(np.concatenate((xs[cand], xs[cand + 1])))
        cand = cand[(slopes[:cand.size] > 0) & (slopes[cand.size:] < 0)]
    if cand.size:
        lo_x, hi_x = xs[cand].copy(), xs[cand + 1].copy()
        for _ in range(MAX_BISECTIONS):
            mid = 0.5 * (lo_x + hi_x)
            rising = ell_and_slope(mid)[1] > 0
            lo_x, hi_x = np.where(rising, mid, lo_x), np.where(rising, hi_x, mid)
        top = 0.5 * (lo_x + hi_x)
        v_top = ell(top)
        up = v_top > 0
        a = np.concatenate((a, xs[cand][up], top[up]))
        b = np.concatenate((b, top[up], xs[cand + 1][up]))
        ga = np.concatenate((ga, g[cand][up], v_top[up]))
    # D vanishes at a root, so a root error r moves H by O(r^2): 1e-9 sigma is ample
    roots = np.sort(_refine_roots(ell_and_slope, a, b, ga, 1e-9 * sigma))
    edges = np.concatenate(([-np.inf], roots, [np.inf]))
    inner_lo, inner_hi = np.maximum(edges[:-1], xl), np.minimum(edges[1:], xr)
    positive = ell(0.5 * (inner_lo + inner_hi)) > 0
    lo, hi = edges[:-1][positive], edges[1:][positive]
    if lo.size == 0:
        return 0.0, 0.0
    w = np.exp(logw)
    za = (lo[:, None] + phi - means[None, :]) / sigma
    zb = (hi[:, None] + phi - means[None, :]) / sigma
    ya = (lo[:, None] - means[None, :]) / sigma
    yb = (hi[:, None] - means[None, :]) / sigma
    total = float(np.sum(w * _phi_diff(za, zb)) - math.exp(eps) * np.sum(w * _phi_diff(ya, yb)))
    with np.errstate(invalid="ignore", over="ignore"):
        dens_b = np.where(np.isfinite(zb), np.exp(-0.5 * zb * zb), 0.0)
        dens_a = np.where(np.isfinite(za), np.exp(-0.5 * za * za), 0.0)
    slope = float(np.sum(w * (dens_b - dens_a))) / (math.sqrt(2 * math.pi) * sigma)
    return max(total, 0.0), slope


def mixture_hockey_stick_float(means: np.ndarray, logw: np.ndarray, sigma: float, eps: float, phi: float,
                               tail: float = 10.0) -> float:
    """``H(phi)`` alone (see :func:`mixture_hockey_stick_and_slope_float`). A float estimate only."""
    return mixture_hockey_stick_and_slope_float(means, logw, sigma, eps, phi, tail)[0]


#: float slopes are taken no closer to the tied shift ``phi = Delta`` than this (there tied components
#: cancel in float64 and ``H'`` is noise). Was 1 - 1/64, which hid every peak in (63/64, 1) Delta from the
#: guide: MG K = 5 at (10, 1e-12) peaks at 0.992 Delta (H and H' are clean there in float64), and the
#: candidate came out 2.5e-4 low (a factor 17 in delta), costing a missed-peak retry and ~14 probes
_SLOPE_END = 1 - 1 / 1024


def _slope_root(hs, lo: float, hi: float, d: float) -> tuple[float, float] | None:
    """``(H, phi)`` at a root of ``H'`` in ``[lo, hi]`` (Brent) when the slope falls from + to - there."""
    if not hs(lo)[1] > 0 > hs(hi)[1]:
        return None
    try:
        # H' = 0 at the argmax: a shift error u moves H by O(u^2), so 1e-8 Delta is ample
        p = brentq(lambda t: hs(t)[1], lo, hi, xtol=1e-8 * d, rtol=1e-12, maxiter=100)
    except (ValueError, RuntimeError):
        return None
    return hs(p)[0], p


PEAK_TRACK_STEP = 1e-2  # relative sigma step below which the guide's argmax moves by one Newton step
PEAK_TRACK_MOVE = 1e-3  # ... if that step moves it by less than this (in units of Delta)
CELL_PARTS = 8  # sub-cells searched for roots of H' in a grid cell where the slope falls from + to -


def _shift_argmax(hs, phis: np.ndarray, d: float) -> tuple[float, float]:
    """Largest ``H`` over the grid shifts and the local maxima between them: a root of ``H'`` in every
    cell where the slope falls from + to - (a sharp peak can sit between two low grid values, e.g.
    next to the tied shift ``Delta``), else a bounded scalar search around the best grid shift."""
    vals = [hs(p) for p in phis]
    i = int(np.argmax([v[0] for v in vals]))
    best, arg = vals[i][0], float(phis[i])
    if best <= 0:
        return best, arg
    # slopes at the cells' ends (next to Delta the one-sided slope a little inside, as in _slope_root)
    ends = [0.0] + [float(p) for p in phis]
    ends[-1] = min(ends[-1], _SLOPE_END * d)
    slopes = [hs(p)[1] for p in ends]
    found_any = False
    for lo, hi, s_lo, s_hi in zip(ends, ends[1:], slopes, slopes[1:]):
        if s_lo > 0 > s_hi:
            found = _slope_root(hs, lo, hi, d)
            if found is not None and found[0] >= max(hs(lo)[0], hs(hi)[0]):
                found_any = True
                if found[0] > best:
                    best, arg = found
                continue
            # a root of H' below the cell's ends: the slope changes sign several times in the cell
            # (two peaks and a dip between); one root of H' per sub-cell where it falls from + to -
            subs = np.linspace(lo, hi, CELL_PARTS + 1)
            sub_slopes = [s_lo] + [hs(float(p))[1] for p in subs[1:-1]] + [s_hi]
            for a, b, sa, sb in zip(subs, subs[1:], sub_slopes, sub_slopes[1:]):
                found = _slope_root(hs, float(a), float(b), d) if sa > 0 > sb else None
                if found is not None:
                    found_any = True
                    if found[0] > best:
                        best, arg = found
    if not found_any and i < len(phis) - 1:
        lo = float(phis[i - 1]) if i > 0 else 0.0
        r = minimize_scalar(lambda t: -hs(t)[0], bounds=(lo, float(phis[i + 1])), method="bounded",
                            options={"xatol": 1e-9 * d})
        if -r.fun > best:
            best, arg = -r.fun, float(r.x)
    return best, arg


def tail_for_level(level: float) -> float:
    """Half-width in sigmas of the float root grid around the means, ``T = sqrt(2 log(1 / level)) + 1``
    (at least 10), so that a positive run of ``D`` outside it carries ``H``-mass ``<= Phi(-T) < level``
    (Mills). With the fixed 10 sigma of old, a run at ``delta = 1e-30`` (about 11.4 sigma out) fell
    outside the grid, the guide saw ``H = 0`` and its candidate sigma stalled near 10 for every
    smaller delta."""
    log_inv = -math.log(level) if level > 0 else 745.0  # level below the float range: its floor
    return max(10.0, math.sqrt(2 * log_inv) + 1.0)


def _mg_shift_profile(means: np.ndarray, logw: np.ndarray, sigma: float, eps: float, d: float,
                      tail: float = 10.0):
    """``phi -> (H(phi), H'(phi))`` for one MG, memoised (Brent revisits its bracket ends); ``tail``
    as in :func:`_root_grid_float` (see :func:`tail_for_level`)."""
    cache: dict[float, tuple[float, float]] = {}
    grid: list = []  # the root grid for shifts up to d, built at the first call

    def hs(p: float) -> tuple[float, float]:
        if p not in cache:
            if not grid:
                grid.append(_root_grid_float(means, logw, sigma, d, tail))
            cache[p] = mixture_hockey_stick_and_slope_float(means, logw, sigma, eps, p, tail,
                                                            grid=grid[0] if 0 <= p <= d else None)
        return cache[p]

    return hs


def mg_profile_float(sigma: float, eps: float, k_max: int, d: float = 1.0, n_phi: int = 17,
                     shape_eps: float | None = None) -> tuple[float, float]:
    """(sup_{phi in [0, d]} H(phi), argmax) for MG(sigma, K) in float64 (grid + Brent on ``H'``)."""
    means, logw = mg_components(eps if shape_eps is None else shape_eps, k_max, d)
    return _shift_argmax(_mg_shift_profile(means, logw, sigma, eps, d), np.linspace(0.0, d, n_phi)[1:], d)


def mg_sigma_float(eps: float, delta: float, k_max: int, d: float = 1.0, eta: float = 0.0,
                   shifts: Sequence[float] = (), argmax: list[float] | None = None) -> float:
    """Smallest sigma with sup H <= (1 - eta) delta for MG(sigma, K), in float64 (a candidate only).

    With ``eta > 0`` this is the continuum version of seed 000's condition (2) (Alg. 1); the
    paper's grid version lies between the ``eta = 0`` and this value.

    Brent's method in sigma. The worst shift moves little between its steps, so each step after the
    first looks for it only next to the previous one (``H'`` changing sign within ``d / 8``); the
    root found is then checked against the full shift grid and the search is redone on the full grid
    if another shift is worse. ``shifts`` (e.g. a certified argmax the grid missed: a peak narrower
    than the grid's step) are searched as well, on 16 cells within ``d / 64`` of each. ``argmax``, if
    given, receives the worst grid-tracked shift at the result (a hint for the certified search).
    """
    target = (1 - eta) * delta
    sg = analytic_gaussian_sigma_float(eps, target, d)
    means, logw = mg_components(eps, k_max, d)
    # a component of weight w moves H by at most (1 + e^eps) w (|(a + b)_+ - a_+| <= |b|): those
    # below 1e-13 target each change H by < 3e-12 target together, far below the guide's accuracy,
    # and dropping them shrinks the window and the sums (eps = 10, K = 10: 21 -> 9 components)
    keep = logw + math.log1p(math.exp(eps)) >= math.log(1e-13 * target)
    means, logw = means[keep], logw[keep]
    tail = tail_for_level(1e-6 * target)
    last_arg: list[float] = []

    def near_shifts(hs) -> float:
        best = 0.0
        for p in shifts:  # 16 cells within d / 64 of p, and a root of H' in each where it falls
            pts = np.linspace(max(p - d / 64, 0.0), min(p + d / 64, _SLOPE_END * d), 17)
            vals = [hs(float(q)) for q in pts]
            best = max([best] + [v[0] for v in vals])
            for a, b, va, vb in zip(pts, pts[1:], vals, vals[1:]):
                found = _slope_root(hs, float(a), float(b), d) if va[1] > 0 > vb[1] else None
                if found is not None:
                    best = max(best, found[0])
        return best

    peak: dict[str, float] = {}  # sigma, H'' at the last interior argmax found by a root search

    def sup_h(s: float, local: bool) -> float:
        hs = _mg_shift_profile(means, logw, s, eps, d, tail)
        best = max(sup_h_grid(hs, s, local), near_shifts(hs))
        if thin_lobes_likely(s, d, eps):
            # the peak of H may sit within ~sigma / 100 of the tied shift Delta, on the thin lobes of D
            # (MG at eps 1): the certified search's probe levels Delta - sigma 2^-k as well
            best = max([best] + [hs(d - s * 2.0 ** -k)[0] for k in DEFAULT_SETTINGS.tied_probe_levels])
        return best

    def sup_h_grid(hs, s: float, local: bool) -> float:
        if local and last_arg and last_arg[0] == d and hs(_SLOPE_END * d)[1] > 0:
            return hs(d)[0]  # still rising into the tied shift: the worst shift stays at Delta
        if local and last_arg and 0 < last_arg[0] < d:
            p0 = last_arg[0]
            if peak and abs(s / peak["sigma"] - 1) < PEAK_TRACK_STEP:
                # sigma barely moved (Brent's last steps): one Newton step from the last argmax with
                # the H'' found there; the value H + H'^2 / 2|H''| is exact to third order
                h0, d0 = hs(p0)
                move = -d0 / peak["curvature"]
                if abs(move) < PEAK_TRACK_MOVE * d:
                    last_arg[0] = p0 + move
                    return h0 - d0 * d0 / (2 * peak["curvature"])
            found = _slope_root(hs, max(p0 - d / 8, 0.0), min(p0 + d / 8, _SLOPE_END * d), d)
            # H' may vanish numerically far from the peak (large eps): keep only a true improvement
            if found is not None and found[0] >= hs(p0)[0] * (1 - 1e-12):
                last_arg[0] = found[1]
                step = 1e-5 * d
                curvature = (hs(found[1] + step)[1] - hs(found[1] - step)[1]) / (2 * step)
                peak.clear()
                if curvature < 0:
                    peak.update(sigma=s, curvature=curvature)
                return found[0]
        v, arg = _shift_argmax(hs, np.linspace(0.0, d, 17)[1:], d)
        last_arg[:] = [arg]
        peak.clear()
        return v

    def solve(local: bool) -> float:
        seen: dict[float, float] = {}  # Brent starts by re-evaluating the bracket's ends

        def g(s: float) -> float:
            if s not in seen:
                v = sup_h(s, local)
                seen[s] = (math.log(v) if v > 0 else -800.0) - math.log(target)
            return seen[s]

        hi = sg
        while g(hi) > 0:
            hi *= 1.5
        lo = hi / 2
        while g(lo) < 0:
            hi, lo = lo, lo / 2
        return brentq(g, lo, hi, xtol=1e-9 * hi, rtol=1e-9, maxiter=200)

    s_local = solve(local=True)
    tracked = sup_h(s_local, local=True)
    hs_local = _mg_shift_profile(means, logw, s_local, eps, d, tail)
    full = max(_shift_argmax(hs_local, np.linspace(0.0, d, 17)[1:], d)[0], near_shifts(hs_local))
    result = s_local
    if full > tracked * (1 + 1e-9):  # a worse shift away from the tracked one: search on the full grid
        result = solve(local=False)
    if argmax is not None and last_arg:
        argmax.append(last_arg[0])
    return result


def mg_peak_scale(sigma: float, epsilon: float, components: int, sensitivity: float, shift: float) -> float | None:
    """``sqrt(H / |H''|)`` at ``shift`` for MG(sigma, K), in float64: about the distance over which ``H``
    halves next to a peak there (None unless ``H > 0`` and ``H'' < 0`` at an interior shift). A hint
    for the layout of the certified shift search; it decides nothing."""
    d = float(sensitivity)
    if not 0 < shift < _SLOPE_END * d:
        return None
    try:
        means, logw = mg_components(epsilon, components, d)
        hs = _mg_shift_profile(means, logw, sigma, epsilon, d)
        step = 1e-3 * d
        h = hs(shift)[0]
        curvature = (hs(shift + step)[1] - hs(shift - step)[1]) / (2 * step)
    except (ValueError, ArithmeticError):
        return None
    return math.sqrt(h / -curvature) if h > 0 and curvature < 0 else None


def mg_argmax_hint(sigma: float, epsilon: float, components: int, sensitivity: float) -> list[float]:
    """``[float argmax]`` of the MG shift profile, or ``[]`` if floats fail: a hint for the certified
    shift search (it only speeds up a "delta > target" decision, never decides anything)."""
    try:
        return [mg_profile_float(sigma, epsilon, components, sensitivity)[1]]
    except (ValueError, ArithmeticError):
        return []
