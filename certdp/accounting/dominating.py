"""Certified dominating pairs from a certified privacy profile: "connect the dots" on the lattice h*Z.

For mechanisms without a closed-form privacy-loss CDF (the SGG family, the Gaussian mixtures) the
accountant needs a discrete pair of distributions whose composition provably bounds the
mechanism's. This module builds, from certified enclosures of the privacy profile on a grid of
epsilons, an *upper* :class:`~certdp.accounting.pld.LatticePLD` (the P-law of the privacy loss of a
pair that dominates the mechanism) and a *lower* one (dominated by the P-law of a pair that the
mechanism's worst neighbouring pair dominates). Both then compose like every other law.

Notation. g(x) = H_x(P || Q) = sup_S P(S) - x Q(S), x = e^eps >= 0, for the mechanism's pair
(P, Q) = (N, N + v) (additive noise N, shift v of norm <= Delta). Facts used: g is convex and
non-increasing, g(0) = 1, g(x) >= (1 - x)_+, and g'(x) >= -1.

**Symmetry.** Every mechanism served here has noise symmetric under x -> -x (SGG: spherically
symmetric; quasi-Gaussian and multi-Gaussian: even densities, seed 000 Def. 3.1 / 4.1). The
reflection x -> v - x maps (N, N + v) to (N + v, N), so H_x(Q || P) = H_x(P || Q). With the
identity H_x(P || Q) = 1 - x + x H_{1/x}(Q || P) (complements of S), for x < 1:

    g(x) = 1 - x + x g(1/x)                                                           (R)

so the profile at negative epsilons follows from the certified profile at eps >= 0. (R) is
increasing in g(1/x), so it also holds for the supremum over shifts G(x) = sup_v g_v(x).

**Discrete pairs.** A pair with P-masses p_j at losses l_j (Q-masses q_j = p_j e^-l_j) and p_inf
at +infinity has H_x = p_inf + sum_j p_j (1 - x e^-l_j)_+ = p_inf + sum_j q_j (e^l_j - x)_+: convex,
piecewise linear in x, vertices at e^l_j, slope jumps q_j. Conversely a convex non-increasing
piecewise-linear f with f(0) = 1, slope >= -1 at 0 and vertices at e^l_j (l_j in h*Z) is the
profile of such a pair (q_j = slope jumps, p_j = q_j e^l_j, p_inf = f(+inf), Q's missing mass
1 - sum q_j at loss -infinity).

**Upper pair** (Zhu, Dong & Wang, AISTATS 2022, dominating pairs and Thm. 10: a pair (P', Q') with
H_x(P' || Q') >= H_x(M(D) || M(D')) for all x >= 0 -- all eps in R -- and all neighbours
dominates M, and the product of dominating pairs dominates the adaptive composition). With
certified U_i >= G(x_i) at x_i = e^eps_i (eps_i in [-E, E], the negative ones from (R), upper
ends), replaced by their running minimum (G is non-increasing): a chord between two points lies
above G (convexity), (0, 1) is exact, and the ray x >= x_n at height U_n lies above G (G is
non-increasing). Hence the piecewise-linear function through ANY convex subset of the points,
flat after the last, is >= G everywhere. The subset is a monotone-chain lower hull that keeps a
point only when Arb proves it strictly below the chord of its neighbours (an ambiguous point is
dropped: always safe). Its masses are Arb balls rounded UP to integer units; p_inf = U_n rounded
up. Rounding a mass up keeps "dominates the pair's P-law in the increasing-function order", the
:class:`LatticePLD` ``upper`` convention, which convolution preserves.

**Lower pair.** By Blackwell's theorem a pair (A, B) with H_x(A || B) <= H_x(P || Q) for all
x >= 0 is a post-processing of (P, Q); products of post-processings are post-processings, so the
composition of the lower pairs is dominated by the composition of the mechanism run on ONE fixed
neighbouring pair (shift of norm exactly Delta; the mixtures' lower ends are computed at the shift
Delta, not at the supremum over shifts). We build a *symmetric* lower pair: P-masses p_j at
l_j > 0, the mirrored masses p_-j = e^-l_j p_j = q_j at -l_j, p_0 at 0, nothing at infinity. Its
profile f satisfies (R) exactly, so f <= g on [1, inf) implies f <= g on [0, 1). On [1, inf), f is
any convex non-increasing piecewise-linear function with lattice vertices that reaches 0, and the
pair is genuine iff p_0 = 1 - f(1) + 2 f'(1+) >= 0, i.e. iff the line of f's first segment on
[1, .) passes below the point (-1, 1).

The certified lower envelope phi <= g on [x_i, x_{i+1}] is max(m_i, l_{i+1}) with
m_i(x) = L_i + tau_i (x - x_i), tau_i = (L_i - U_{i-1}) / (x_i - x_{i-1}) <= g'(x_i+) (valid for
x >= x_i) and l_{i+1}(x) = L_{i+1} + sigma_{i+1} (x - x_{i+1}), sigma_{i+1} = min(0, (U_{i+2} -
L_{i+1}) / (x_{i+2} - x_{i+1})) >= g'(x_{i+1}-) (valid for x <= x_{i+1}; sigma_n = 0). The kink
of phi is generally not a lattice point, so one lattice point kappa_i <= kink is put in each
interval with value min(m_i(kappa), l_{i+1}(kappa)) (>= 0 since kappa <= kink): the polyline
(x_i, L_i), (kappa_i, .), (x_{i+1}, L_{i+1}) is <= m_i on [x_i, kappa_i] and <= l_{i+1} on
[kappa_i, x_{i+1}], hence <= g. (The naive step-function lower bound max(L_{i+1}, (1-x)_+) with
chords through (x_i, max(L_{i+1}, 1 - x_i)) is NOT below g where the line 1 - x has its kink inside
an interval; the symmetric construction avoids that region altogether.) L_n is lowered to 0 (the
pair has no mass at infinity; the dropped tail is <= U_n). The lower convex hull of these points
together with the virtual point (-1, 1) lies below the polyline and gives p_0 >= 0. Here dropping
a point RAISES f, so the hull drops a point only when Arb proves it on or above the chord; an
ambiguous point is LOWERED below the chord instead (lowering keeps f <= g). Masses are rounded
DOWN (a lower LatticePLD may have total < 1).

**Grid.** One certified profile enclosure per grid epsilon >= 0 (cached per mechanism); the range
E is the first power of two with U(E) <= the budget (or the mechanism's domain limit: the rest is
the mass at +infinity, still sound); the grid starts with 16 intervals and halves an interval
while its float-estimated gap between the chord and the lower envelope, converted to an epsilon
shift, exceeds ``tau`` (only tightness depends on these floats). Every grid point lies on the
lattice (dyadic epsilons); any grid gives valid bounds, so a certificate records its grid and
``verify`` rebuilds the pairs on it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

from flint import arb, fmpz_poly

from certdp.accounting.pld import LatticePLD, check_budget
from certdp.numbers import UndecidedError, arb_of, working_precision
from certdp.numbers.balls import ball_endpoints

__all__ = ["ProfileSource", "DominatingLaw", "upper_pair", "lower_pair", "lowered_below_chord", "METHOD",
           "MAX_GRID_POINTS"]

METHOD = "connect-the-dots"
MAX_GRID_POINTS = 4096
INITIAL_INTERVALS = 16
PREC = 256


@dataclass
class ProfileSource:
    """Certified profile bounds of one mechanism at exact eps >= 0.

    ``bounds(eps) -> (lower, upper)`` exact rationals: ``upper`` >= the mechanism's privacy profile
    (supremum over neighbouring pairs and both directions), ``lower`` <= the profile of ONE fixed
    worst neighbouring pair (shift of norm Delta). ``eps_max`` is the largest epsilon the engine is
    asked about; ``delta_floor`` the smallest delta worth resolving.
    """

    name: str
    bounds: Callable[[Fraction], tuple[Fraction, Fraction]]
    eps_max: Fraction = Fraction(64)
    delta_floor: Fraction = Fraction(0)
    note: str = ""


@dataclass
class DominatingLaw:
    """A mechanism's upper/lower lattice pairs by connect-the-dots (see the module docstring)."""

    source: ProfileSource
    cache: dict[Fraction, tuple[Fraction, Fraction]] = field(default_factory=dict)
    calls: int = 0

    @property
    def name(self) -> str:
        return f"{METHOD}:{self.source.name}"

    def value(self, eps: Fraction) -> tuple[Fraction, Fraction]:
        if eps not in self.cache:
            check_budget(0, f"the certified profile of {self.source.name} at eps = {eps}")  # a verifier's deadline
            lo, hi = self.source.bounds(eps)
            self.calls += 1
            lo = max(Fraction(lo), Fraction(0))
            hi = min(Fraction(hi), Fraction(1))
            if lo > hi:
                raise ArithmeticError(f"{self.source.name}: profile bounds cross at eps = {eps}")
            self.cache[eps] = (lo, hi)
        return self.cache[eps]

    # ------------------------------------------------------------------ grid choice (floats guide)
    def eps_range(self, budget: Fraction) -> Fraction:
        """Smallest power of two E >= 1/4 with U(E) <= budget, or the largest power of two <= eps_max."""
        top = self.source.eps_max
        e = Fraction(1, 4)
        while True:
            if self.value(e)[1] <= budget or 2 * e > top:
                return e  # beyond the engine's domain the rest is the mass at +infinity (sound)
            try:
                self.value(2 * e)
            except (UndecidedError, ArithmeticError):
                return e  # the engine cannot go further out: the rest is the mass at +infinity
            e *= 2

    def grid(self, grid_bits: int, tau: float, budget: Fraction, floor: float = 0.0) -> list[Fraction]:
        """Adaptive dyadic grid on [0, E], every point a multiple of 2^-grid_bits (float-guided)."""
        E = self.eps_range(budget)
        h = Fraction(1, 2**grid_bits)
        step = max(E / INITIAL_INTERVALS, h)  # E is a power of two, so is the step
        pts = [step * k for k in range(int(E / step) + 1)]
        if pts[-1] < E:
            pts.append(E)
        for e in pts:
            self.value(e)
        floor = max(floor, float(budget), float(self.source.delta_floor))
        for _ in range(40):
            new = []
            fl = [(float(p), *(float(v) for v in self.value(p))) for p in pts]
            for i in range(len(pts) - 1):
                width = pts[i + 1] - pts[i]
                if width <= h or len(pts) + len(new) >= MAX_GRID_POINTS:
                    continue
                if _float_gap(fl, i) > tau and _float_abs_gap(fl, i) > floor:
                    new.append((pts[i] + pts[i + 1]) / 2)
            if not new:
                break
            ok = []
            for e in new:
                try:
                    self.value(e)
                    ok.append(e)
                except (UndecidedError, ArithmeticError):
                    pass  # this interval stays coarse (valid, only looser)
            if not ok:
                break
            pts = sorted(set(pts) | set(ok))
        return pts

    # ------------------------------------------------------------------ the lattice pairs
    def lattice_pair(self, grid_bits: int, scale_bits: int, tau: float, budget: Fraction, floor: float = 0.0,
                     grid: list[Fraction] | None = None) -> tuple[LatticePLD, LatticePLD, list[Fraction]]:
        """(upper, lower, grid): the two certified lattice measures and the epsilon grid used.

        ``tau`` (epsilon shift) and ``floor`` (absolute gap not worth refining) only steer the
        adaptive grid; a given ``grid`` (sorted dyadic epsilons from 0, on the lattice) is used as is."""
        pts = grid if grid is not None else self.grid(grid_bits, tau, budget, floor)
        data = [(e, *self.value(e)) for e in pts]
        up = upper_pair([(e, u) for e, _, u in data], grid_bits, scale_bits)
        low = lower_pair(data, grid_bits, scale_bits)
        return up, low, pts


def _float_gap(fl: list[tuple[float, float, float]], i: int) -> float:
    """Float estimate of the chord-minus-envelope gap at the middle of interval i, as an eps shift."""
    (e0, l0, u0), (e1, l1, u1) = fl[i], fl[i + 1]
    x0, x1 = math.exp(e0), math.exp(e1)
    em = 0.5 * (e0 + e1)
    xm = math.exp(em)
    chord = u0 + (u1 - u0) * (xm - x0) / (x1 - x0)
    env = _float_envelope(fl, i, xm)
    slope = abs(u1 - u0) / max(e1 - e0, 1e-300)  # |dg/deps| on the interval
    gap = max(chord - env, 0.0) + max(u0 - l0, u1 - l1)
    if slope <= 0:
        return 0.0 if gap <= 0 else math.inf
    return gap / slope


def _float_abs_gap(fl, i) -> float:
    (e0, l0, u0), (e1, l1, u1) = fl[i], fl[i + 1]
    xm = math.exp(0.5 * (e0 + e1))
    chord = u0 + (u1 - u0) * (xm - math.exp(e0)) / (math.exp(e1) - math.exp(e0))
    return chord - _float_envelope(fl, i, xm)


def _float_envelope(fl, i, xm) -> float:
    (e0, l0, _), (e1, l1, _) = fl[i], fl[i + 1]
    x0, x1 = math.exp(e0), math.exp(e1)
    if i > 0:
        ep, _, up = fl[i - 1]
        tau = (l0 - up) / (x0 - math.exp(ep))
    else:
        tau = -1.0
    if i + 2 < len(fl):
        en, _, un = fl[i + 2]
        sig = min(0.0, (un - l1) / (math.exp(en) - x1))
    else:
        sig = 0.0
    return max(l0 + tau * (xm - x0), l1 + sig * (xm - x1), 0.0)


# ------------------------------------------------------------------------------ Arb constructions

def _lattice_index(eps: Fraction, grid_bits: int) -> int:
    j = eps * 2**grid_bits
    if j.denominator != 1:
        raise ValueError(f"grid epsilon {eps} is not on the lattice 2^-{grid_bits} Z")
    return int(j)


def _exact(q: Fraction) -> arb:
    return arb_of(q)


def _lo(x: arb) -> Fraction:
    return ball_endpoints(x)[0]


def _hi(x: arb) -> Fraction:
    return ball_endpoints(x)[1]


def _chord_minus(a, b, c) -> arb:
    """chord through a and c evaluated at b's x, minus b's y (points are (X: arb, Y: Fraction, j))."""
    xa, ya, _ = a
    xb, yb, _ = b
    xc, yc, _ = c
    ya_, yc_ = _exact(ya), _exact(yc)
    return ya_ + (yc_ - ya_) * (xb - xa) / (xc - xa) - _exact(yb)


def lowered_below_chord(a, b, c) -> Fraction:
    """A value y' <= b's y with b' = (x_b, y') proven strictly below the chord through a and c.

    y' = (lower end of the chord's ball at x_b) - (its width) - 2^-(prec/2): lowering a point of the
    lower construction keeps it below g; the margin makes the strict comparison decidable."""
    xa, ya, _ = a
    xb, yb, _ = b
    xc, yc, _ = c
    ya_, yc_ = _exact(ya), _exact(yc)
    chord = ya_ + (yc_ - ya_) * (xb - xa) / (xc - xa)
    lo, hi = ball_endpoints(chord)
    from flint import ctx

    y = min(Fraction(yb), lo - (hi - lo) - Fraction(1, 2 ** (ctx.prec // 2)))
    if not _chord_minus(a, (xb, y, None), c) > 0:
        raise UndecidedError("connect-the-dots lower hull: cannot separate a point from a chord")
    return y


def _to_units(x: arb, scale_bits: int, up: bool) -> int:
    v = x * arb(2) ** scale_bits
    if up:
        return max(0, int(arb(v.upper()).ceil().unique_fmpz()))
    return max(0, int(arb(v.lower()).floor().unique_fmpz()))


def _measure(side: str, grid_bits: int, scale_bits: int, masses: dict[int, int], inf: int) -> LatticePLD:
    masses = {j: m for j, m in masses.items() if m}
    if not masses:
        return LatticePLD(side, grid_bits, scale_bits, 0, fmpz_poly([]), inf, 1)
    base, top = min(masses), max(masses)
    coeffs = [0] * (top - base + 1)
    for j, m in masses.items():
        coeffs[j - base] += m
    return LatticePLD(side, grid_bits, scale_bits, base, fmpz_poly(coeffs), inf, 1)


def upper_pair(points: list[tuple[Fraction, Fraction]], grid_bits: int, scale_bits: int) -> LatticePLD:
    """The upper lattice measure from certified ``(eps_i, U_i)``, eps_i >= 0 sorted, eps_0 = 0."""
    if not points or points[0][0] != 0:
        raise ValueError("the grid must start at eps = 0")
    with working_precision(max(PREC, scale_bits + 64)):
        full: list[tuple[arb, Fraction, int]] = []
        for e, u in reversed(points[1:]):  # negative epsilons by (R), upper ends
            x = (-_exact(e)).exp()
            full.append((x, _hi(1 - x + x * _exact(u)), -_lattice_index(e, grid_bits)))
        for e, u in points:
            full.append((_exact(e).exp(), Fraction(u), _lattice_index(e, grid_bits)))
        run, mono = Fraction(1), []
        for x, y, j in full:  # G non-increasing: the running minimum is still an upper bound
            run = min(run, y)
            mono.append((x, run, j))
        stack = [(arb(0), Fraction(1), None)]
        for p in mono:
            while len(stack) >= 2 and not _chord_minus(stack[-2], stack[-1], p) > 0:
                stack.pop()  # not proven strictly convex: dropping a point only raises f (safe)
            stack.append(p)
        verts = stack
        slopes = [(_exact(verts[k][1]) - _exact(verts[k - 1][1])) / (verts[k][0] - verts[k - 1][0])
                  for k in range(1, len(verts))] + [arb(0)]
        if slopes[0] < -1:  # impossible when every U_i >= g(x_i) >= 1 - x_i: a wrong profile bound
            raise ArithmeticError("connect-the-dots: first slope < -1 (the profile bounds are not valid)")
        masses: dict[int, int] = {}
        for k in range(1, len(verts)):
            q = slopes[k] - slopes[k - 1]
            p = q * verts[k][0]
            masses[verts[k][2]] = masses.get(verts[k][2], 0) + _to_units(p, scale_bits, True)
        inf = _to_units(_exact(verts[-1][1]), scale_bits, True)
    return _measure("upper", grid_bits, scale_bits, masses, inf)


def lower_pair(points: list[tuple[Fraction, Fraction, Fraction]], grid_bits: int, scale_bits: int) -> LatticePLD:
    """The lower lattice measure from certified ``(eps_i, L_i, U_i)``, eps_i >= 0 sorted, eps_0 = 0."""
    if len(points) < 2 or points[0][0] != 0:
        raise ValueError("the grid must start at eps = 0 and have two points")
    n = len(points) - 1
    h = Fraction(1, 2**grid_bits)
    with working_precision(max(PREC, scale_bits + 64)):
        idx = [_lattice_index(e, grid_bits) for e, _, _ in points]
        xs = [_exact(e).exp() for e, _, _ in points]
        L = [max(Fraction(lo), Fraction(0)) for _, lo, _ in points]
        U = [Fraction(u) for _, _, u in points]
        L[n] = Fraction(0)
        x_m1 = (-_exact(points[1][0])).exp()
        u_m1 = _hi(1 - x_m1 + x_m1 * _exact(U[1]))
        taus, sigmas = [], []
        for i in range(n + 1):
            xp, up_ = (x_m1, u_m1) if i == 0 else (xs[i - 1], U[i - 1])
            taus.append(_lo((_exact(L[i]) - _exact(up_)) / (xs[i] - xp)))
            if i == n:
                sigmas.append(Fraction(0))
            else:
                sigmas.append(min(Fraction(0), _hi((_exact(U[i + 1]) - _exact(L[i])) / (xs[i + 1] - xs[i]))))
        # sigma_i is used for the line l_i through (x_i, L_i), valid for x <= x_i; it needs the slope
        # of the chord to the RIGHT of x_i, i.e. (U_{i+1} - L_i)/(x_{i+1} - x_i) (computed above).
        w = list(L)
        inner: list[tuple[arb, Fraction, int] | None] = [None] * n
        for i in range(n):
            tau, sig = taus[i], sigmas[i + 1]
            m_line = lambda x, i=i, tau=tau: _exact(L[i]) + _exact(tau) * (x - xs[i])  # noqa: E731
            l_line = lambda x, i=i, sig=sig: _exact(L[i + 1]) + _exact(sig) * (x - xs[i + 1])  # noqa: E731
            fx0, fx1 = float(xs[i].mid()), float(xs[i + 1].mid())
            ft, fs = float(tau), float(sig)
            if ft < fs:
                kink = (float(L[i + 1]) - float(L[i]) + ft * fx0 - fs * fx1) / (ft - fs)
                j = math.floor(math.log(kink) / float(h)) if kink > 0 else idx[i]
            else:
                j = idx[i]
            j = min(max(j, idx[i]), idx[i + 1])
            placed, tries = False, 0
            while j > idx[i] and tries < 8:
                tries += 1
                x = (arb(j) * _exact(h)).exp()
                y = min(_lo(m_line(x)), _lo(l_line(x)))
                if y >= 0:
                    if j == idx[i + 1]:
                        w[i + 1] = min(w[i + 1], y)
                    else:
                        inner[i] = (x, y, j)
                    placed = True
                    break
                j -= 1
            if not placed:  # kappa = x_i: the segment must lie below l_{i+1} on the whole interval
                w[i] = min(w[i], max(Fraction(0), _lo(l_line(xs[i]))))
        seq: list[tuple[arb, Fraction, int]] = []
        for i in range(n + 1):
            seq.append((xs[i], w[i], idx[i]))
            if i < n and inner[i] is not None:
                seq.append(inner[i])
        stack: list[list] = [[arb(-1), Fraction(1), None]]
        for p in seq:
            p = list(p)
            while len(stack) >= 2:
                d = _chord_minus(tuple(stack[-2]), tuple(stack[-1]), tuple(p))
                if d > 0:
                    break
                if d <= 0:
                    stack.pop()  # proven on or above the chord: dropping it does not raise f
                    continue
                # ambiguous: LOWER the middle point strictly below the chord (keeps f <= g)
                new_y = lowered_below_chord(tuple(stack[-2]), tuple(stack[-1]), tuple(p))
                if new_y < 0:
                    raise UndecidedError("connect-the-dots lower hull: cannot separate a point from a chord")
                stack[-1][1] = new_y
            stack.append(p)
        verts = stack
        if verts[-1][1] != 0:
            raise ArithmeticError("connect-the-dots lower hull does not end at 0")
        slopes = [(_exact(verts[k][1]) - _exact(verts[k - 1][1])) / (verts[k][0] - verts[k - 1][0])
                  for k in range(1, len(verts))] + [arb(0)]
        masses: dict[int, int] = {}
        for k in range(1, len(verts)):
            j = verts[k][2]
            if j == 0:  # vertex at x = 1: the atom at loss 0, p_0 = 1 - f(1) + 2 f'(1+)
                p0 = 1 - _exact(verts[k][1]) + 2 * slopes[k]
                masses[0] = masses.get(0, 0) + _to_units(p0, 0 + scale_bits, False)
                continue
            q = slopes[k] - slopes[k - 1]
            masses[j] = masses.get(j, 0) + _to_units(q * verts[k][0], scale_bits, False)
            masses[-j] = masses.get(-j, 0) + _to_units(q, scale_bits, False)
    return _measure("lower", grid_bits, scale_bits, masses, 0)
