"""Certified signs of ``D(x; phi) = f(x + phi) - e^eps f(x)`` on boxes of ``x`` times balls of shifts.

The main test is on the log-ratio ``l = log f(x + phi) - log f(x)`` (``D > 0`` iff ``l > eps``), whose
partials are enclosed from posterior means at box corners (:meth:`MixtureDifference.logratio_sign`);
its float version (:meth:`MixtureDifference.float_signability`) only decides where Arb is spent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from flint import arb, arb_poly

from certdp.engines.gaussian_mixture.balls import sqr
from certdp.engines.gaussian_mixture.model import Component, GaussianMixture

__all__ = ["Piece", "MixtureDifference"]


# ----------------------------------------------------------------------------------------
# sign structure of D(x) = f(x + phi) - e^eps f(x) on a window, for a ball of shifts


@dataclass
class Piece:
    lo: float
    hi: float
    sign: int  # +1 certified positive, -1 certified negative, 0 uncertain


class MixtureDifference:
    """D(x; phi) = f(x + phi) - e^eps f(x) for a fixed mixture and eps."""

    def __init__(self, mix: GaussianMixture, exp_eps: arb, eps_float: float, epsilon: arb | None = None):
        self.mix = mix
        self.ties_exact = epsilon is not None and mix.design_epsilon is epsilon
        self.exp_eps = exp_eps
        self.log_exp_eps = exp_eps.log()
        self.eps_f = eps_float
        self._poly_cache: dict = {}

    def value(self, x: arb, phi: arb) -> arb:
        return self.mix.density(x + phi) - self.exp_eps * self.mix.density(x)

    def derivative(self, x: arb, phi: arb) -> arb:
        return self.mix.density_derivative(x + phi) - self.exp_eps * self.mix.density_derivative(x)

    def _pairs(self, phi: arb) -> dict[int, int]:
        """Shifted component j -> unshifted component k whose terms nearly cancel.

        ``w_j g(x + phi - m_j)`` and ``e^eps w_k g(x - m_k)`` with ``w_j ~ e^eps w_k`` and
        ``m_j - phi ~ m_k`` (multi-Gaussian near phi = Delta: k = j - 1 for j <= 0; quasi-Gaussian:
        centre vs side component). Pairing only changes how the sum is enclosed, never its value.
        """
        pm = float(phi.mid())
        key = ("pairs", pm)  # any pairing is valid (see above): a float key is enough
        cached = self._poly_cache.get(key)
        if cached is not None:
            return cached
        mix = self.mix
        s = mix._f_sig
        pairs: dict[int, int] = {}
        used: set[int] = set()
        for j, cj in enumerate(mix.components):
            for k, ck in enumerate(mix.components):
                if k in used:
                    continue
                if abs((mix._f_mu[j] - pm) - mix._f_mu[k]) <= 0.25 * s and \
                        abs(mix._f_logw[j] - (self.eps_f + mix._f_logw[k])) <= 1e-9 * (1 + abs(mix._f_logw[j])):
                    pairs[j] = k
                    used.add(k)
                    break
        self._poly_cache[key] = pairs
        return pairs

    # -- log-ratio sign test (dependency-free mean value form) --
    def _active(self, lo: arb, hi: arb) -> tuple[int, ...] | None:
        """Indices of the components active on the whole of [lo, hi], None if a support edge lies inside."""
        if not self.mix.breakpoints:
            return self.mix.all_components
        ball = lo.union(hi)
        act = []
        for i, c in enumerate(self.mix.components):
            ind = self.mix._indicator(c, ball)
            if ind is None:
                return None
            if ind:
                act.append(i)
        return tuple(act)

    def _exponents(self, y: arb, act: tuple[int, ...]) -> list[arb]:
        mix = self.mix
        return [mix._logw[i] - sqr(y - mix.components[i].mean) * mix._half_inv_s2 for i in act]

    def _log_density(self, y: arb, act: tuple[int, ...]) -> arb:
        """log of sum_{i in act} w_i exp(-(y - m_i)^2 / 2 s^2) (normalising constant dropped)."""
        if self.mix._lattice_sums and act is self.mix.all_components:
            return self.mix.log_kernel_sum(y)
        ts = self._exponents(y, act)
        top = max(ts, key=lambda t: float(t.mid()))
        return top + sum(((t - top).exp() for t in ts), arb(0)).log()

    def _posterior_mean(self, y: arb, act: tuple[int, ...]) -> arb:
        """E[m_I | y] for the component posterior restricted to ``act``."""
        if self.mix._lattice_sums and act is self.mix.all_components:
            return self.mix.posterior_mean(y)
        ts = self._exponents(y, act)
        top = max(ts, key=lambda t: float(t.mid()))
        ws = [(t - top).exp() for t in ts]
        num = sum((w * self.mix.components[i].mean for w, i in zip(ws, act)), arb(0))
        return num / sum(ws, arb(0))

    def _posterior_mean_cached(self, y: arb, act: tuple[int, ...]) -> arb:
        """:meth:`_posterior_mean`, cached per structure (piece ends are shared by neighbours)."""
        key = ("pm", float(y.mid()), float(y.rad()), act)
        v = self._poly_cache.get(key)
        if v is None:
            v = self._poly_cache[key] = self._posterior_mean(y, act)
        return v

    def log_density_slope(self, lo: float, hi: float, act: tuple[int, ...]) -> arb:
        """Enclosure of ``(log f)'(y) = (E[m | y] - y) / s^2`` for every ``y`` in ``[lo, hi]`` (components
        ``act`` active there): ``E[m | y]`` is non-decreasing in ``y``, so its values at the two ends
        bound it (see :meth:`logratio_sign`)."""
        pmean, inv = self._posterior_mean_cached, self.mix._inv_s2
        return ((pmean(arb(lo), act).lower() - hi) * inv).union((pmean(arb(hi), act).upper() - lo) * inv)

    def logratio_partials(self, lo: float, hi: float, phi: arb):
        """``((lx_lo, lx_hi), (lp_lo, lp_hi), (act_x, act_y))``: bounds of ``l_x`` and ``l_phi`` over
        ``[lo, hi] x phi`` for ``l(x, t) = log f(x + t) - log f(x)``, from posterior means at the
        corners (see :meth:`logratio_sign`); None where a support edge meets the box."""
        xa, xb = arb(lo), arb(hi)
        pa, pb = phi.lower(), phi.upper()
        act_x = self._active(xa, xb)
        act_y = self._active(xa + pa, xb + pb)
        if act_x is None or act_y is None or not act_x or not act_y:
            return None
        pmean = self._posterior_mean_cached
        b_lo = pmean(xa, act_x).lower()
        b_hi = pmean(xb, act_x).upper()
        a_lo = pmean(xa + pa, act_y).lower()
        a_hi = pmean(xb + pb, act_y).upper()
        inv = self.mix._inv_s2
        lx = ((a_lo - b_hi - pb) * inv, (a_hi - b_lo - pa) * inv)
        lp = ((a_lo - xb - pb) * inv, (a_hi - xa - pa) * inv)
        return lx, lp, (act_x, act_y)

    def logratio_x_bounds(self, lo: float, hi: float, phi: arb, parts: int, shift_parts: int = 1):
        """``(lx_lo, lx_hi, (act_x, act_y))``: bounds of ``l_x`` over ``[lo, hi] x phi`` as the hull of
        :meth:`logratio_partials` on a grid of ``parts`` equal sub-pieces times ``shift_parts``
        sub-balls of ``phi`` (the corner bounds lose the variation of both posterior means across
        a box, in ``x`` and in the shift; neighbouring boxes share their corners' means through
        the cache). None where a support edge meets a sub-box or the active sets differ."""
        edges = [lo + (hi - lo) * j / parts for j in range(parts)] + [hi]
        if shift_parts > 1 and phi.rad() > 0:
            t0, t1 = phi.lower(), phi.upper()
            ts = [t0 + (t1 - t0) * arb(j) / shift_parts for j in range(shift_parts)] + [t1]
            balls = [ta.union(tb) for ta, tb in zip(ts, ts[1:])]
        else:
            balls = [phi]
        out = None
        for ball in balls:
            for a, b in zip(edges, edges[1:]):
                partials = self.logratio_partials(a, b, ball)
                if partials is None or (out is not None and partials[2] != out[2]):
                    return None
                (l0, l1), _, act = partials
                out = (l0, l1, act) if out is None else (out[0].min(l0), out[1].max(l1), act)
        return out

    def logratio_sign(self, lo: float, hi: float, phi: arb) -> int:
        """Certified sign of ``D`` on ``[lo, hi]`` for every shift in ``phi`` (0: undecided).

        ``D > 0`` iff ``l(x, phi) = log f(x + phi) - log f(x) > eps``. On a piece where the set of
        active components is fixed, ``(log f)'(y) = (E[m | y] - y) / s^2`` and the posterior mean
        ``E[m | y]`` is non-decreasing in ``y`` (an exponential family in ``y / s^2``), so both
        partial derivatives of ``l`` are enclosed from the posterior means at the two ends of each
        ball, with no dependency blow-up; the mean value theorem on the segment from the centre
        then gives ``l(X, Phi) in l(xm, pm) + l_x(X, Phi) [-rx, rx] + l_phi(X, Phi) [-rp, rp]``.
        """
        partials = self.logratio_partials(lo, hi, phi)
        if partials is None:
            return 0
        (lx_lo, lx_hi), (lp_lo, lp_hi), (act_x, act_y) = partials
        xa, xb = arb(lo), arb(hi)
        xm = (xa + xb) / 2
        rx = (xb - xa) / 2
        pm = arb(phi.mid())
        rp = arb(phi.rad())
        def excess(xv: arb) -> arb:  # l(xv, pm) - eps
            return self._log_density(xv + pm, act_y) - self._log_density(xv, act_x) - self.log_exp_eps

        centre = excess(xm)
        spread = lx_lo.abs_upper().max(lx_hi.abs_upper()) * rx + lp_lo.abs_upper().max(lp_hi.abs_upper()) * rp
        if centre.lower() > spread:
            return 1
        if centre.upper() < -spread:
            return -1
        if lx_lo > 0 or lx_hi < 0:
            # l is monotone in x on the piece for every shift: its extremes are at the two ends
            lp = lp_lo.abs_upper().max(lp_hi.abs_upper()) * rp
            ends = [excess(xa), excess(xb)]
            if all(v.lower() > lp for v in ends):
                return 1
            if all(v.upper() < -lp for v in ends):
                return -1
        return 0

    def float_signability(self, lo: np.ndarray, hi: np.ndarray, plo: float, phi_hi: float):
        """Float guide to :meth:`logratio_sign` on the boxes ``[lo_i, hi_i] x [plo, phi_hi]``:
        ``(ratio, log_top, shift_bound)`` with ``ratio`` = the margin ``|l - eps| / spread`` of the
        same mean-value test evaluated in floats (> 1: the certified test will likely decide the
        box), ``log_top`` ~ ``log`` of the largest ``w_j exp(-(y - m_j)^2 / 2 s^2)`` on the box's
        shifted ends, and ``shift_bound`` true where ``l(x, .) - eps`` changes sign across the shift
        ball (to first order) at the centre and both ends. It only chooses which boxes are worth an
        Arb test."""
        mix = self.mix
        inv = 1.0 / (mix._f_sig * mix._f_sig)
        pm, rp = 0.5 * (plo + phi_hi), 0.5 * (phi_hi - plo)
        xm, rx = 0.5 * (lo + hi), 0.5 * (hi - lo)
        n = lo.size
        ys = np.concatenate([lo, hi, lo + plo, hi + phi_hi, xm, xm + pm, lo + pm, hi + pm])
        mu = mix.posterior_mean_float(ys[:4 * n])
        b_lo, b_hi, a_lo, a_hi = mu[:n], mu[n:2 * n], mu[2 * n:3 * n], mu[3 * n:]
        lx_lo, lx_hi = (a_lo - b_hi - phi_hi) * inv, (a_hi - b_lo - plo) * inv
        lp = np.maximum(np.abs(a_lo - hi - phi_hi), np.abs(a_hi - lo - plo)) * inv * rp
        logk = mix.log_density_float(ys[4 * n:])
        centre = logk[n:2 * n] - logk[:n] - self.eps_f
        spread = np.maximum(np.abs(lx_lo), np.abs(lx_hi)) * rx + lp
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.abs(centre) / spread
            # monotone in x: the ends decide (second branch of logratio_sign)
            ea = logk[2 * n:3 * n] - mix.log_density_float(lo) - self.eps_f
            eb = logk[3 * n:] - mix.log_density_float(hi) - self.eps_f
            ends = np.where(ea * eb > 0, np.minimum(np.abs(ea), np.abs(eb)) / lp, 0.0)
        ratio = np.where((lx_lo > 0) | (lx_hi < 0), np.maximum(ratio, ends), ratio)
        top = np.maximum(logk[2 * n:3 * n], logk[3 * n:])
        # at the centre and both ends, l(x, .) - eps changes sign over the shifts (first order,
        # l_t = (log f)'(x + pm) at that very x): splitting in x will not help there (e.g. next to
        # a tied shift, where l ~ eps on long ranges)
        mu_m = mix.posterior_mean_float(ys[5 * n:])
        lt_c = np.abs(mu_m[:n] - xm - pm) * inv * rp
        lt_a = np.abs(mu_m[n:2 * n] - lo - pm) * inv * rp
        lt_b = np.abs(mu_m[2 * n:] - hi - pm) * inv * rp
        shift_bound = (np.abs(centre) < lt_c) & (np.abs(ea) < lt_a) & (np.abs(eb) < lt_b)
        return np.nan_to_num(ratio, nan=0.0, posinf=1e300), top, shift_bound

    def _tie_coefficient(self, cj: Component, ck: Component) -> arb:
        """``w_j - e^eps w_k``: exactly 0 for a declared tie (see ``GaussianMixture``)."""
        if (self.ties_exact and cj.weight_units is not None and ck.weight_units is not None
                and cj.weight_units == ck.weight_units + 1):
            return arb(0)
        return cj.weight - self.exp_eps * ck.weight

    def interval_sign(self, x: arb, phi: arb) -> int:
        """Certified sign of D on the whole ball x for every shift in the ball phi (0: unknown),
        from the bounds of :meth:`interval_bounds`."""
        lower, upper = self.interval_bounds(x, phi)
        if lower > 0:
            return 1
        if upper < 0:
            return -1
        return 0

    def interval_bounds(self, x: arb, phi: arb) -> tuple[arb, arb]:
        """``(lo, hi)`` with ``lo <= D(y, t) / N <= hi`` for every ``y`` in the ball ``x`` and ``t`` in
        the ball ``phi``, ``N = 1 / (sqrt(2 pi) s)`` the normal density's constant.

        Endpoint interval arithmetic on the log-terms: every term is positive, so the sums'
        lower (upper) bounds are sums of exp(lower) (exp(upper)) of the exponents. This avoids
        the mid-radius blow-up of products of wide balls. Nearly cancelling pairs (see
        :meth:`_pairs`) are enclosed together by the mean value theorem:
        ``w_j g(u1) - e^eps w_k g(u2) = w_j (u1 - u2) g'(xi) + (w_j - e^eps w_k) g(u2)``,
        ``xi`` in the hull of ``u1 = x + phi - m_j`` and ``u2 = x - m_k``."""
        mix = self.mix
        xp = x + phi
        pairs = self._pairs(phi)
        if mix._lattice_sums and not pairs:
            p_lo, p_hi = mix.kernel_sum_bounds(xp)
            m_lo, m_hi = mix.kernel_sum_bounds(x)
            return p_lo - self.exp_eps * m_hi, p_hi - self.exp_eps * m_lo
        h2 = mix._half_inv_s2
        p_lo = arb(0)
        p_hi = arb(0)
        m_lo = arb(0)
        m_hi = arb(0)
        paired = arb(0)
        skip_minus: set[int] = set()
        comps = mix.components
        for j, k in pairs.items():
            cj, ck = comps[j], comps[k]
            if mix._indicator(cj, xp) == 1 and mix._indicator(ck, x) == 1:
                u1 = xp - cj.mean
                u2 = x - ck.mean
                lo = u1.lower().min(u2.lower())
                hi = u1.upper().max(u2.upper())
                xi = (lo + hi) / 2 + (hi - lo) / 2 * arb(0, 1)
                gprime = -xi * mix._inv_s2 * (-sqr(xi) * h2).exp()
                wj = cj.weight
                paired += wj * (phi - cj.mean + ck.mean) * gprime \
                    + self._tie_coefficient(cj, ck) * (-sqr(u2) * h2).exp()
                skip_minus.add(k)
            else:
                skip_minus.add(-1)  # placeholder: keep j unpaired below
        done_plus = {j for j, k in pairs.items() if k in skip_minus}
        for idx, (c, lw) in enumerate(zip(comps, mix._logw)):
            if idx not in done_plus:
                ip = mix._indicator(c, xp)
                if ip != 0:
                    t = lw - sqr(xp - c.mean) * h2
                    p_hi += t.upper().exp()
                    if ip == 1:
                        p_lo += t.lower().exp()
            if idx not in skip_minus:
                im = mix._indicator(c, x)
                if im != 0:
                    t = lw - sqr(x - c.mean) * h2
                    m_hi += t.upper().exp()
                    if im == 1:
                        m_lo += t.lower().exp()
        return p_lo - self.exp_eps * m_hi + paired.lower(), p_hi - self.exp_eps * m_lo + paired.upper()

    # -- sign evaluators: q(x) has the sign of D(x) (a positive factor removed) --
    def _polys(self, x: arb, phi: arb):
        """Polynomials (P+, P-, P+', P-') for the region of x, or None if not lattice / ambiguous."""
        mix = self.mix
        if mix.lattice is None:
            return None
        act_p = []
        act_m = []
        for c in mix.components:
            i_m = mix._indicator(c, x)
            i_p = mix._indicator(c, x + phi)
            if i_m is None or i_p is None:
                return None
            act_p.append(i_p)
            act_m.append(i_m)
        key = (tuple(act_p), tuple(act_m), id(phi))
        cached = self._poly_cache.get(key)
        if cached is not None and cached[0] is phi:
            return cached[1]
        n = max(c.lattice_index for c in mix.components) + 1
        cp = [arb(0)] * n
        cm = [arb(0)] * n
        h2 = mix._half_inv_s2
        for c, ap, am in zip(mix.components, act_p, act_m):
            k = c.lattice_index
            if ap:
                cp[k] = cp[k] + c.weight * (-sqr(c.mean - phi) * h2).exp()
            if am:
                cm[k] = cm[k] + self.exp_eps * c.weight * (-sqr(c.mean) * h2).exp()
        pp, pm = arb_poly(cp), arb_poly(cm)
        res = (pp, pm, pp.derivative(), pm.derivative())
        self._poly_cache[key] = (phi, res)  # holding phi keeps id(phi) unique while cached
        return res

    def sign_value(self, x: arb, phi: arb) -> arb:
        polys = self._polys(x, phi)
        if polys is None:
            return self.value(x, phi)
        pp, pm, _, _ = polys
        mix = self.mix
        e = (x * mix.lattice[1] * mix._inv_s2).exp()
        return (-phi * x * mix._inv_s2).exp() * pp(e) - pm(e)

    def sign_derivative(self, x: arb, phi: arb) -> arb:
        polys = self._polys(x, phi)
        if polys is None:
            return self.derivative(x, phi)
        pp, pm, dpp, dpm = polys
        mix = self.mix
        a = mix.lattice[1] * mix._inv_s2
        e = (x * a).exp()
        g = (-phi * x * mix._inv_s2).exp()
        return a * e * (g * dpp(e) - dpm(e)) - phi * mix._inv_s2 * g * pp(e)

    # float guide: g(x) = log f(x + phi) - eps - log f(x) has the sign of D
    def float_roots(self, phi: float, xl: float, xr: float) -> list[float]:
        s = self.mix._f_sig
        n = int(min(20000, max(400, 24 * (xr - xl) / s)))
        xs = np.linspace(xl, xr, n)

        def g(x: np.ndarray) -> np.ndarray:
            return self.mix.log_density_float(x + phi) - self.eps_f - self.mix.log_density_float(x)

        gs = g(xs)
        sg = np.sign(gs)
        idx = np.nonzero(sg[:-1] * sg[1:] < 0)[0]
        if idx.size == 0:
            return []
        a = xs[idx].copy()
        b = xs[idx + 1].copy()
        fa = gs[idx].copy()
        fb = gs[idx + 1].copy()
        # Illinois (modified regula falsi), vectorised: superlinear on these smooth brackets; a
        # poor float root only costs the certified stage more work, never correctness
        wa, wb = fa.copy(), fb.copy()  # secant weights (halved at a stale end)
        side = np.zeros(a.shape)
        tol = 1e-13 * (np.abs(a) + np.abs(b) + self.mix._f_sig)
        for _ in range(40):
            with np.errstate(invalid="ignore", divide="ignore"):
                m = b - wb * (b - a) / (wb - wa)
            # a secant point within tol of the bracket (at an end, even): the root is there to second
            # order (regula falsi approaches it from one side; Illinois halvings would take ~30 steps)
            near = np.isfinite(m) & (m >= a - tol) & (m <= b + tol) & (np.minimum(np.abs(m - a), np.abs(b - m)) <= tol)
            if np.all((b - a <= tol) | near):
                return list(np.where(near, np.clip(m, a, b), np.where(np.abs(fa) <= np.abs(fb), a, b)))
            m = np.where(np.isfinite(m) & (m > a) & (m < b), m, 0.5 * (a + b))
            fm = g(m)
            left = np.sign(fm) == np.sign(fa)  # the root is in [m, b]
            a, fa, wa = np.where(left, m, a), np.where(left, fm, fa), np.where(left, fm, wa)
            b, fb, wb = np.where(left, b, m), np.where(left, fb, fm), np.where(left, wb, fm)
            wb = np.where(left & (side > 0), 0.5 * wb, wb)
            wa = np.where(~left & (side < 0), 0.5 * wa, wa)
            side = np.where(left, 1.0, -1.0)
            if np.all(b - a <= tol):
                break
        return list(np.where(np.abs(fa) <= np.abs(fb), a, b))
