"""Certified ``H(phi)`` at one shift (package docstring, "Fixed shift"), including the tied shift where
components move exactly onto others (:meth:`ShiftValueMixin.tied_value`).

:class:`ShiftValueMixin` holds the engine's state; it is the first part of
:class:`~certdp.engines.gaussian_mixture.engine.ShiftEngine`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from flint import arb

from certdp.engines.gaussian_mixture.balls import sqr, ncdf, nsf, interval_ball
from certdp.engines.gaussian_mixture.model import GaussianMixture
from certdp.engines.gaussian_mixture.settings import DEFAULT_SETTINGS as settings
from certdp.engines.gaussian_mixture.signs import MixtureDifference
from certdp.engines.gaussian_mixture.structure import SignStructure

__all__ = ["ShiftResult", "ShiftValueMixin"]


@dataclass
class ShiftResult:
    """Certified bounds on H(phi) (and, for a ball of shifts, on H' over the ball)."""

    lower: arb
    upper: arb
    derivative: arb | None
    roots: int
    uncertain: int
    evaluations: int
    #: float pieces covering every x with D(x, phi) > 0 inside ``window`` (runs and uncertain pieces)
    positive_cover: tuple[tuple[float, float], ...] | None = None
    window: tuple[float, float] | None = None


class ShiftValueMixin:
    """Engine state (window, tolerances, evaluation count) and certified point values of ``H``."""

    def __init__(self, mix: GaussianMixture, epsilon: arb, delta_scale: float, rel_tol: float):
        self.mix = mix
        self.eps = epsilon
        self.diff = MixtureDifference(mix, epsilon.exp(), float(epsilon), epsilon)
        s = mix._f_sig
        scale = max(delta_scale, 1e-300)
        tail_tol = max(scale * rel_tol * 1e-3, 1e-4000)
        self.tail_tol = tail_tol
        # Phi(-T) <= tail_tol with T = sqrt(2 log(1/tail_tol)) + 1 (Mills: Phi(-T) <= phi(T)/T)
        # (in logs: 1 / tail_tol overflows to inf below ~1e-308, e.g. at delta = 1e-300, and an
        # infinite window made every float guide nan; the window only steers, the mass outside it
        # is added certified in value_at)
        big_t = math.sqrt(-2 * math.log(min(tail_tol, 1e-3))) + 1.0 if tail_tol > 0 else 40.0
        lo_m, hi_m = mix.mean_range
        self.big_t = big_t
        self.xr = hi_m + big_t * s
        self.xl_base = lo_m - big_t * s  # XL = xl_base - phi_max
        self.root_width = s * 1e-9
        self.excess_tol = 1e-6 * scale
        self.ball_depth = 8
        self.evaluations = 0

    def window(self, phi_hi: float) -> tuple[float, float]:
        return self.xl_base - phi_hi, self.xr

    def structure(self, phi: arb, allowance: float = 0.0) -> SignStructure:
        plo, phi_ = float(phi.lower()), float(phi.upper())
        # float root samples slightly inside the ball: at an end such as phi = Delta exactly, tied
        # components cancel in float64 and the sampled roots are noise (the padding covers the gap)
        inset = (phi_ - plo) / 256
        floats = [0.5 * (plo + phi_)] if phi_ - plo < 1e-15 * (abs(phi_) + 1) else \
            [plo + inset, 0.5 * (plo + phi_), phi_ - inset]
        xl, xr = self.window(phi_)
        # ball shifts move roots: allow wider root pieces
        if len(floats) == 1:
            st = SignStructure(self.diff, phi, floats, xl, xr, self.root_width, negligible=self.tail_tol)
        else:
            rw = max(self.root_width, (phi_ - plo) * 0.02)
            st = SignStructure(self.diff, phi, floats, xl, xr, rw, max_depth=self.ball_depth, min_piece=rw,
                            negligible=self.tail_tol,
                            negligible_density=settings.negligible_share * allowance / (xr - xl))
        self.evaluations += st.evaluations
        return st

    def value_at(self, phi: arb) -> ShiftResult:
        """Certified bounds on ``H(phi)`` at one shift (package docstring, "Fixed shift"; at a tied
        shift :meth:`tied_value` when it applies)."""
        tied = self.tied_value(phi)
        if tied is not None:
            return tied
        st = self.structure(phi)
        pos, unc = st.runs()
        mix = self.mix
        core = self._integral_over(pos, phi)
        extra = arb(0)
        for a, b in unc:
            d = self.diff.value(interval_ball(a, b), phi)
            up = d.upper()
            if up > 0:
                extra += arb(b - a) * up
        xl, xr = st.xl, st.xr
        extra += mix.mass_below(arb(xl) + phi) + mix.mass_above(arb(xr) + phi)
        lower = core.lower()
        if lower < 0:
            lower = arb(0)
        upper = (core + extra).upper().min(arb(1))  # H <= int f(x + phi) dx = 1 always
        return ShiftResult(lower, upper, None, len(unc), len(unc), st.evaluations,
                           tuple(sorted(pos + unc)), (xl, xr))

    def _integral_over(self, runs, phi: arb) -> arb:
        """``int_R D(x, phi) dx`` over the union ``R`` of the float intervals ``runs``: an exact sum of
        Gaussian-CDF differences (:meth:`GaussianMixture.mass`), valid for every point of ``phi``."""
        mix = self.mix
        total = arb(0)
        for a, b in runs:
            aa, bb = arb(float(a)), arb(float(b))
            total += mix.mass(aa + phi, bb + phi) - self.diff.exp_eps * mix.mass(aa, bb)
        return total

    def lower_bound_at(self, phi: arb) -> arb:
        """Certified lower bound of ``H(phi)`` from float roots alone, with no sign certified.

        For every measurable set ``R``, ``int_R D <= int_R D_+ <= H(phi)`` (``D <= D_+``). Here ``R``
        is the union of the float positive runs of ``D`` inside the window (float roots of
        ``log f(x + phi) - eps - log f(x)``, :meth:`MixtureDifference.float_roots`; a run's sign is
        the float sign at its midpoint), and ``int_R D`` is an exact sum of Gaussian-CDF
        differences in Arb (:meth:`GaussianMixture.mass`). Floats only choose ``R``: a wrong root
        or a missed run lowers the bound, never invalidates it (and a root error ``r`` costs
        ``O(r^2)``, since ``D = 0`` at a true root). Valid for every point of the ball ``phi``.
        Costs one float root scan and ``2 x runs x components`` CDF evaluations instead of the
        certified sign structure of :meth:`value_at` (MG K = 50, sigma 0.3588, phi 0.975: 0.1 s against
        2.4 s), so a decision that needs only ``H > target`` (not private) takes this first."""
        pf = float(phi.mid())
        xl, xr = self.window(float(phi.upper()))
        edges = np.array([xl] + sorted(r for r in self.diff.float_roots(pf, xl, xr) if xl < r < xr) + [xr])
        mids = 0.5 * (edges[:-1] + edges[1:])
        mix = self.mix
        with np.errstate(divide="ignore", invalid="ignore"):
            ell = mix.log_density_float(mids + pf) - self.diff.eps_f - mix.log_density_float(mids)
        runs = [(edges[i], edges[i + 1]) for i in np.nonzero(ell > 0)[0]]
        return self._integral_over(runs, phi).lower().max(arb(0))

    def _tied_terms(self, phi: arb) -> list[tuple[arb, arb]] | None:
        """``D(x, phi) = sum_m c_m g(x - mu_m)`` with matched components merged: ``(c_m, mu_m)`` at a
        shift that moves components exactly onto others (multi-Gaussian at ``phi = Delta``), or None
        (no exact match, or a truncated mixture). ``g`` is the common ``N(0, s^2)`` density.

        A shifted component ``j`` matched to an unshifted ``k`` of certified equal mean
        ``m_j - phi = m_k`` (each ``k`` used once; floats only propose the matches) gives the term
        ``(w_j - e^eps w_k, m_k)``, dropped when that coefficient is exactly 0 (a declared tie,
        :meth:`MixtureDifference._tie_coefficient`); an unmatched shifted component gives ``(w_j, m_j - phi)``
        and an unmatched unshifted one ``(-e^eps w_k, m_k)``. The merge is exact, so the terms hold
        none of the cancellation that makes ``D`` unsignable on long ranges at a tied shift. The
        matching is :meth:`TiedEndMixin.tie_matching`'s."""
        tie = self.tie_matching(phi)
        if tie is None:
            return None
        terms = [(c, mu) for _, c, mu in tie.pairs if not (c.is_exact() and c == 0)]
        terms += list(tie.shifted)
        terms += [(-self.diff.exp_eps * w, mu) for w, mu in tie.unshifted]
        return terms

    def tie_upper_bound(self, phi: arb) -> arb | None:
        """Upper bound of ``H(phi)`` from the weights alone at a tied shift (:meth:`_tied_terms`), or
        None: ``(sum a_i)_+ <= sum (a_i)_+``, so ``H <= sum`` of the coefficients not certified
        ``<= 0`` (each term integrates to its coefficient). Nearly sharp where ``H(phi)`` is carried
        by the unmatched end components (MG at the tied shift: ``H(Delta) <= w_{-K}``)."""
        terms = self._tied_terms(phi)
        if terms is None:
            return None
        return sum((c.max(arb(0)) for c, _ in terms if not c <= 0), arb(0)).upper()

    def tied_value(self, phi: arb) -> ShiftResult | None:
        """Certified ``H(phi)`` at a tied shift from the merged terms of :meth:`_tied_terms`, or None
        (not a tied shift, or more than one sign change).

        *Rule of signs.* ``D(x) e^{x^2 / 2 s^2} sqrt(2 pi) s = sum_m c_m e^{-mu_m^2 / 2 s^2}
        e^{x mu_m / s^2}`` is an exponential sum with distinct exponents, so ``D`` has at most as
        many real zeros as the ``c_m``, ordered by ``mu_m``, have sign changes (Laguerre's
        extension of Descartes' rule; Polya and Szego, Problems and Theorems II, Part V, Chap. 1).
        With one change ``D`` has exactly one root ``r`` and one sign on each side (at ``-inf``
        that of the leftmost term); MG at ``phi = Delta`` has signs ``+, -, ..., -``. Then
        ``H = F(r)`` with ``F(y) = int_{-inf}^y D`` (or the mass above ``r`` when the positive side
        is the right one), and on a box ``[a, b]`` holding ``r`` with certified signs of ``D`` at
        its ends, ``F`` is largest at ``r``:
        ``max(F(a), F(b)) <= H <= max(F(a), F(b)) + (b - a) sup_[a, b] |D|``. With no sign change
        ``D <= 0`` and ``H = 0``."""
        terms = self._tied_terms(phi)
        if terms is None:
            return None
        signs = []
        for c, _ in terms:
            if not (c > 0 or c < 0):
                return None
            signs.append(1 if c > 0 else -1)
        order = sorted(range(len(terms)), key=lambda i: float(terms[i][1].mid()))
        if any(not terms[i][1] < terms[j][1] for i, j in zip(order, order[1:])):
            return None
        terms = [terms[i] for i in order]
        signs = [signs[i] for i in order]
        changes = sum(1 for u, v in zip(signs, signs[1:]) if u != v)
        mix = self.mix
        xl, xr = self.window(float(phi.upper()))
        if changes == 0 and signs[0] < 0:
            return ShiftResult(arb(0), arb(0), None, 0, 0, 0, (), (xl, xr))
        if changes != 1:
            return None
        sigma, h2 = mix.sigma, mix._half_inv_s2
        left_positive = signs[0] > 0
        f_c = np.array([float(c.mid()) for c, _ in terms])
        f_mu = np.array([float(m.mid()) for _, m in terms])
        s = mix._f_sig
        pos = f_c > 0

        def excess(x: float) -> float:  # log of the positive terms minus log of the negative ones (floats)
            with np.errstate(divide="ignore"):  # a coefficient below 1e-308 is -inf in logs, as it should
                e = np.log(np.abs(f_c)) - (x - f_mu) ** 2 / (2 * s * s)
            return float(np.logaddexp.reduce(e[pos]) - np.logaddexp.reduce(e[~pos]))

        lo, hi = float(f_mu.min()) - 40 * s, float(f_mu.max()) + 40 * s
        if not (excess(lo) > 0) == left_positive or not (excess(hi) > 0) != left_positive:
            return None
        for _ in range(200):  # float bisection: the root is unique
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            if (excess(mid) > 0) == left_positive:
                lo = mid
            else:
                hi = mid

        def d_at(x: arb) -> arb:
            return sum((c * (-sqr(x - m) * h2).exp() for c, m in terms), arb(0))

        half = 4 * (abs(lo) + abs(hi) + s) * 2.0 ** -52
        for _ in range(12):
            a, b = lo - half, hi + half
            da, db = d_at(arb(a)), d_at(arb(b))
            if (da > 0 and db < 0) if left_positive else (da < 0 and db > 0):
                break
            half *= 16
        else:
            return None

        def side_mass(y: arb) -> arb:
            if left_positive:
                return sum((c * ncdf((y - m) / sigma) for c, m in terms), arb(0))
            return sum((c * nsf((y - m) / sigma) for c, m in terms), arb(0))

        fa, fb = side_mass(arb(a)), side_mass(arb(b))
        box = interval_ball(a, b)
        rise = arb(b - a) * d_at(box).abs_upper() * mix._norm
        lower = fa.max(fb).lower().max(arb(0))
        upper = (fa.max(fb) + rise).upper().min(arb(1))
        cover = ((xl, b),) if left_positive else ((a, xr),)
        return ShiftResult(lower, upper, None, 1, 0, 0, cover, (xl, xr))
