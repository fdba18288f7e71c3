"""The certified accountant: delta(eps) or eps(delta) of a composition plan, as a certified bracket.

Routes (recorded per group in the result):

* ``gdp-closed-form`` -- every Gaussian group of the plan is merged exactly: n Gaussians with
  sensitivities Delta_i and noise sigma_i compose to mu-GDP with mu^2 = sum Delta_i^2/sigma_i^2 (Dong,
  Roth & Su 2022, Cor. 3.3; the privacy-loss law is N(mu^2/2, mu^2)). A plan of Gaussians only is
  answered in closed form, delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), in Arb.
* ``pld-lattice`` -- otherwise each group's privacy-loss law (closed-form CDF,
  :mod:`certdp.accounting.losses`) is discretized pessimistically and optimistically on h*Z
  (:mod:`certdp.accounting.pld`), powered to its count, and the groups are composed by a balanced
  tree; the merged Gaussian enters as one more law. Both adjacency directions (remove / add) are
  composed separately -- one neighbouring pair fixes the direction of every step -- and the
  maximum is taken.

  Laws with a certified partial mean (all four) are, from ~32 steps on, rounded to the nearest
  lattice point instead (the *coupled* rule, :func:`certdp.accounting.losses.discretize_coupled`),
  and the rounding errors enter through Hoeffding's inequality
  (:mod:`certdp.accounting.coupling`): the bracket is then ~ h sqrt(k log(1/p)) wide instead of ~ k h.

The lattice step h = 2^-grid_bits is chosen so that the bracket's relative width is <= ``rtol``
(a coarse run predicts the step; at most a few refinements), unless ``grid_bits`` is given.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from flint import arb

from certdp.accounting.dominating import METHOD as CTD_METHOD
from certdp.accounting.dominating import DominatingLaw
from certdp.accounting.losses import (
    AtomLaw,
    LossLaw,
    XFormLaw,
    discretize,
    discretize_coupled,
    discretize_x,
    discretize_x_coupled,
    gaussian_loss,
    ggm_loss,
    laplace_loss,
    subsampled_gaussian_losses,
    uniform_loss,
)
from certdp.accounting.coupling import DirectionBounds
from certdp.accounting.pld import LatticePLD, budget_active, charge, compose_all, power
from certdp.accounting.profile_sources import CONNECT_THE_DOTS, source_for
from certdp.accounting.plan import Plan, parse_plan
from certdp.numbers import (
    Enclosure,
    InputError,
    UndecidedError,
    arb_of,
    certified_monotone_bracket,
    parse_nonnegative,
    parse_probability,
    working_precision,
)
from certdp.numbers.balls import ball_endpoints

__all__ = ["Composition", "account", "gdp_mu_squared", "gdp_delta_ball", "MAX_GRID_BITS", "lattice_bounds",
           "GDP_MECHANISMS", "CTD_TAU_FACTOR", "COUPLED_MECHANISMS", "COUPLING_THRESHOLD",
           "bracket_width_in_steps", "encode_ctd_grids", "parse_ctd_grids"]

#: plan mechanisms that are exactly Gaussian (the spherical Gaussian N(0, sigma^2 I) with l2
#: sensitivity s has the privacy-loss law of the 1-D Gaussian with Delta = s: rotate the shift)
GDP_MECHANISMS = ("gaussian", "spherical-gaussian")
#: connect-the-dots grids are refined until the chord-to-envelope gap is <= CTD_TAU_FACTOR * h as an
#: epsilon shift (comparable to the lattice rounding of the closed-form laws)
CTD_TAU_FACTOR = 1

MAX_GRID_BITS = 24
MAX_COEFFICIENTS = 2**23
MIN_GRID_BITS = 4


@dataclass
class Composition:
    """The certified answer for one plan at one epsilon (``delta`` is None) or one delta."""

    plan: Plan
    epsilon: Fraction | None
    delta: Fraction | None
    enclosure: Enclosure | None          # delta enclosure (epsilon mode) or epsilon enclosure (delta mode)
    epsilon_upper_infinite: bool = False  # delta mode: no finite eps certified at this discretization
    methods: list[dict[str, str]] = field(default_factory=list)
    discretization: dict[str, str] | None = None
    directions: dict[str, list[str]] = field(default_factory=dict)
    timing_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: lattice route: the composed {direction: (upper, lower)} measures of the final grid (in-process only)
    bounds: dict | None = field(default=None, repr=False, compare=False)

    def delta_at(self, epsilon: Fraction) -> Enclosure:
        """Certified enclosure of the composed delta(``epsilon``), from the same lattice measures.

        Valid at every epsilon: the upper measure's delta(eps) is an upper bound and the lower
        measure's a lower bound of the true delta(eps), for each direction (the max is taken),
        whatever the epsilon or delta the grid was refined for. Lattice route only.
        """
        if self.bounds is None:
            raise InputError("epsilon", "delta_at needs the lattice route (a plan with a non-Gaussian group)")
        enc, _, _ = _lattice_answer(self.bounds, Fraction(epsilon), None)
        return enc

    @property
    def relative_width(self) -> float:
        if self.enclosure is None or self.epsilon_upper_infinite or self.enclosure.upper == 0:
            return math.inf
        return float((self.enclosure.upper - self.enclosure.lower) / self.enclosure.upper)


# ------------------------------------------------------------------------------ GDP closed form

def gdp_mu_squared(plan: Plan) -> Fraction:
    """mu^2 = sum count * (Delta/sigma)^2 over the plan's Gaussian groups (exact)."""
    return sum((g.count * (g.get("sensitivity") / g.get("sigma")) ** 2 for g in plan.groups
                if g.mechanism in GDP_MECHANISMS), Fraction(0))


def gdp_delta_ball(mu2: Fraction, epsilon: arb) -> arb:
    """delta(eps) of mu-GDP at the current precision: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)."""
    from certdp.engines.closed_form import gaussian_profile

    mu = arb_of(mu2).sqrt()
    return gaussian_profile(arb(1), epsilon, mu)


def _gdp_delta(mu2: Fraction, eps: Fraction) -> Enclosure:
    for bits in (128, 256, 512, 1024, 2048, 4096):
        with working_precision(bits):
            ball = gdp_delta_ball(mu2, arb_of(eps))
            if ball.is_finite() and (ball.rad() == 0 or ball.rel_accuracy_bits() >= 50):
                return Enclosure.from_arb(ball, bits, digits=20)
    raise UndecidedError("GDP closed form did not reach 50 correct bits at 4096 bits")


def _gdp_epsilon(mu2: Fraction, delta: Fraction) -> tuple[Enclosure, list[str]]:
    """Certified bracket of eps(delta) for mu-GDP (delta(eps) strictly decreasing in eps)."""
    with working_precision(256):
        at_zero = gdp_delta_ball(mu2, arb(0))
    if at_zero <= arb_of(delta):
        return Enclosure(Fraction(0), Fraction(0)), ["delta(0) <= delta: pure 0-DP at this delta"]
    from scipy.optimize import brentq
    from scipy.stats import norm

    mu = math.sqrt(float(mu2))

    def g(e):
        return math.log(max(norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2), 1e-300)) \
            - math.log(float(delta))

    candidate = None
    try:
        hi = 1.0
        while g(hi) > 0 and hi < 1e4:
            hi *= 2
        candidate = brentq(g, 0.0, hi, xtol=1e-14) if g(hi) <= 0 else None
    except (ValueError, OverflowError, ZeroDivisionError):
        candidate = None
    bracket = certified_monotone_bracket(lambda t: gdp_delta_ball(mu2, t), delta, increasing=False,
                                         candidate=candidate if candidate and candidate > 0 else None,
                                         rtol=Fraction(1, 10**13))
    return Enclosure(Fraction(bracket.lo), Fraction(bracket.hi)), list(bracket.notes)


# ------------------------------------------------------------------------------ lattice route

_CTD_LAWS: dict[str, DominatingLaw] = {}


def _ctd_law(g) -> DominatingLaw:
    """The connect-the-dots law of a group, shared across calls (its profile cache is reused)."""
    key = json.dumps({k: v for k, v in g.canonical().items() if k != "count"}, sort_keys=True)
    law = _CTD_LAWS.get(key)
    if law is None:
        law = DominatingLaw(source_for(g.mechanism, dict(g.params)))
        if len(_CTD_LAWS) >= 64:
            _CTD_LAWS.pop(next(iter(_CTD_LAWS)))
        _CTD_LAWS[key] = law
    return law


def _group_laws(plan: Plan) -> list[tuple[str, dict[str, LossLaw | XFormLaw], int]]:
    """(method label, {direction: law}, count) per lattice component (Gaussians merged into one)."""
    out: list[tuple[str, dict[str, LossLaw], int]] = []
    mu2 = gdp_mu_squared(plan)
    if mu2 > 0:
        law = gaussian_loss(mu2)
        out.append(("gaussian", {"remove": law, "add": law}, 1))
    merged: dict[tuple, int] = {}
    for g in plan.groups:  # identical groups compose as one with the summed count
        merged[(g.mechanism, g.params)] = merged.get((g.mechanism, g.params), 0) + g.count
    from certdp.accounting.plan import Group

    for g in (Group(m, p, c) for (m, p), c in merged.items()):
        if g.mechanism == "laplace":
            law = laplace_loss(g.get("scale"), g.get("sensitivity"))
            out.append(("laplace", {"remove": law, "add": law}, g.count))
        elif g.mechanism == "ggm":
            if g.get("shape") == 1:  # GGD with p = 1 is Laplace(b)
                law = laplace_loss(g.get("scale"), g.get("sensitivity"))
            else:
                law = ggm_loss(g.get("scale"), g.get("shape"), g.get("sensitivity"))
            out.append(("ggm", {"remove": law, "add": law}, g.count))
        elif g.mechanism == "subsampled-gaussian":
            if g.get("sampling_rate") == 1:
                law = gaussian_loss(1 / g.get("sigma") ** 2)
                out.append(("subsampled-gaussian", {"remove": law, "add": law}, g.count))
            else:
                remove, add = subsampled_gaussian_losses(g.get("sigma"), g.get("sampling_rate"))
                out.append(("subsampled-gaussian", {"remove": remove, "add": add}, g.count))
        elif g.mechanism == "uniform":
            law = uniform_loss(g.get("scale"), g.get("sensitivity"))
            out.append(("uniform", {"remove": law, "add": law}, g.count))
        elif g.mechanism in CONNECT_THE_DOTS:
            law = _ctd_law(g)
            out.append((g.mechanism, {"remove": law, "add": law}, g.count))
    return out


#: laws with a certified partial mean (the coupled rule applies to them), besides the merged GDP part
COUPLED_MECHANISMS = ("laplace", "subsampled-gaussian", "ggm")
#: from this many coupled steps on the coupled rule (bracket ~ 2 h sqrt(8 k)) beats the deterministic one (~ k h)
COUPLING_THRESHOLD = 32


def bracket_width_in_steps(coupled: int, deterministic: int, coupling: bool) -> float:
    """The bracket's width in units of h, roughly (a guess for the first lattice step; tightness only):
    k for k deterministic steps, ~2 sqrt(8 k) for k coupled ones (the Hoeffding shift at p ~ 1e-7)."""
    if not coupling:
        return coupled + deterministic
    return 2 * math.sqrt(8 * coupled) + deterministic


def _effective_steps(plan: Plan, coupled_only: bool = False, coupling: bool = True) -> float:
    """:func:`bracket_width_in_steps` of ``plan``; ``coupled_only``: the number of steps that can be coupled."""
    coupled = (1 if gdp_mu_squared(plan) > 0 else 0)
    deterministic = 0
    for g in plan.groups:
        if g.mechanism in COUPLED_MECHANISMS:
            coupled += g.count
        elif g.mechanism not in GDP_MECHANISMS:
            deterministic += g.count
    if coupled_only:
        return coupled
    return bracket_width_in_steps(coupled, deterministic, coupling)


def _settings(plan: Plan, delta_ref: Fraction | None) -> tuple[int, float, int]:
    """(scale_bits, tail probability per truncation, tail in integer units).

    Mass moved by a truncation inside a binary-powering chain reaches the result once per copy of the
    truncated factor (e_{2m} <= 2 e_m + t), so the moved mass of k steps adds up to ~ k t, not
    ~ log k t: ``pieces`` counts steps (2 per step, for the base window and the chain's products)."""
    pieces = sum(2 * g.count for g in plan.groups) + 2 * len(plan.groups) + 4
    ref = float(delta_ref) if delta_ref is not None else 1e-12
    ref = min(max(ref, 1e-300), 1e-3)
    tail_prob = ref * 2.0**-14 / pieces  # all moved tails together: <= 2^-14 delta_ref
    tail_bits = math.ceil(-math.log2(tail_prob))
    scale_bits = max(64, tail_bits + 28)
    return scale_bits, tail_prob, math.floor(tail_prob * 2.0**scale_bits)


def lattice_bounds(plan: Plan, grid_bits: int, delta_ref: Fraction | None = None,
                   cache: dict | None = None, sides: tuple[str, ...] = ("upper", "lower"),
                   coupled: bool = True,
                   ctd_grids: dict[int, list[Fraction]] | None = None,
                   grids_used: dict[int, list[Fraction]] | None = None,
                   ) -> dict[str, DirectionBounds]:
    """{direction: DirectionBounds} of the plan at step 2^-grid_bits (a side not in ``sides`` is None).

    Laws with a certified partial mean are discretized by the coupled rule when ``coupled`` (their
    rounding errors enter through Hoeffding's inequality, :mod:`certdp.accounting.coupling`), the
    others by the deterministic upper / lower rule. Connect-the-dots groups use the epsilon grid
    ``ctd_grids[k]`` (k = index of the component in the order of :func:`_group_laws`) when given,
    else an adaptive one; the grids used are written to ``grids_used``."""
    scale_bits, tail_prob, tail = _settings(plan, delta_ref)
    coarse_mass = (float(delta_ref) if delta_ref is not None else 1e-12) * 2.0**-7
    components = _group_laws(plan)
    symmetric = all(laws["remove"] is laws["add"] for _, laws, _ in components)
    directions = ("remove",) if symmetric else ("remove", "add")
    if budget_active():  # a verifier's work limit: count every certified evaluation before making any
        from certdp.accounting.losses import _evaluation_points

        for direction in directions:
            for _, laws, count in components:
                law = laws[direction]
                if isinstance(law, (DominatingLaw, AtomLaw)):
                    continue  # connect-the-dots grids are capped by the verifier; atoms cost nothing
                float_law = law.law if isinstance(law, XFormLaw) else law
                charge(len(_evaluation_points(float_law, grid_bits, tail_prob, coarse_mass)) * (2 if isinstance(law, XFormLaw) else 1),
                       f"the discretization of {law.name}")
    out = {}
    for direction in directions:
        ups, lows = [], []
        n_coupled, bias_lo, bias_hi, range_sq = 0, Fraction(0), Fraction(0), Fraction(0)
        for k, (_, laws, count) in enumerate(components):
            law = laws[direction]
            use_coupled = coupled and ((isinstance(law, LossLaw) and law.partial_mean is not None)
                                       or (isinstance(law, XFormLaw) and law.partial_mean_x is not None))
            key = (id(law), law.name, grid_bits, scale_bits, count, use_coupled)
            if cache is not None and key in cache:
                up, low, bias = cache[key]
            else:
                bias = None
                if isinstance(law, DominatingLaw):
                    tau = CTD_TAU_FACTOR * 2.0**-grid_bits
                    given = None if ctd_grids is None else ctd_grids.get(k)
                    # the mass left at +infinity costs ~ steps * U(E): keep it ~2^-10 of the delta of interest
                    budget = Fraction(coarse_mass * 2.0**-3 / plan.total_count)
                    up1, low1, grid = law.lattice_pair(grid_bits, scale_bits, tau, budget, floor=float(budget),
                                                       grid=given)
                    if grids_used is not None:
                        grids_used[k] = grid
                elif isinstance(law, AtomLaw):
                    up1, low1 = law.lattice(grid_bits, scale_bits)
                elif use_coupled:
                    if isinstance(law, XFormLaw):
                        cd = discretize_x_coupled(law, grid_bits, scale_bits, tail_prob, coarse_mass)
                    else:
                        cd = discretize_coupled(law, grid_bits, scale_bits, tail_prob, coarse_mass)
                    r = cd.range_width if cd.range_width is not None else Fraction(1, 2**grid_bits)
                    up1, low1, bias = cd.upper, cd.lower, (cd.bias_lower, cd.bias_upper, r)
                elif isinstance(law, XFormLaw):
                    up1, low1 = discretize_x(law, grid_bits, scale_bits, tail_prob, coarse_mass)
                else:
                    up1, low1 = discretize(law, grid_bits, scale_bits, tail_prob, coarse_mass)
                up = power(up1.truncated(tail), count, tail) if "upper" in sides else None
                low = power(low1.truncated(tail), count, tail) if "lower" in sides else None
                if cache is not None:
                    cache[key] = (up, low, bias)
            if bias is not None:
                n_coupled += count
                bias_lo += count * bias[0]
                bias_hi += count * bias[1]
                range_sq += count * bias[2] ** 2
            ups.append(up)
            lows.append(low)
        out[direction] = DirectionBounds(compose_all(ups, tail) if "upper" in sides else None,
                                         compose_all(lows, tail) if "lower" in sides else None,
                                         n_coupled, bias_lo, bias_hi, range_sq)
    if symmetric:
        out = {"both": out["remove"]}
    return out


def _lattice_answer(bounds: dict[str, DirectionBounds], eps: Fraction | None,
                    delta: Fraction | None) -> tuple[Enclosure | None, bool, dict[str, list[str]]]:
    per: dict[str, list[str]] = {}
    los, his = [], []
    infinite = False
    for direction, pair in bounds.items():
        if eps is not None:
            hi, lo = pair.delta_upper(eps), pair.delta_lower(eps)
        else:
            hi, lo = pair.epsilon_upper(delta), pair.epsilon_lower(delta)
        if hi is None:
            infinite = True
            per[direction] = [_str(lo, "down"), "inf"]
        else:
            his.append(hi)
            per[direction] = [_str(lo, "down"), _str(hi, "up")]
        los.append(lo)
    lower = max(los)
    if infinite:
        return Enclosure(lower, lower), True, per
    enc = Enclosure(lower, max(his))
    return _outward(enc), False, per


def _outward(enc: Enclosure, digits: int = 20) -> Enclosure:
    from certdp.numbers import round_decimal

    return Enclosure(Fraction(round_decimal(enc.lower, digits, "down")) if enc.lower else Fraction(0),
                     Fraction(round_decimal(enc.upper, digits, "up")) if enc.upper else Fraction(0))


def _str(q: Fraction, direction: str) -> str:
    from certdp.numbers import exact_str, round_decimal

    return exact_str(Fraction(round_decimal(q, 20, direction))) if q else "0"


def use_coupling(plan: Plan) -> bool:
    """The automatic choice: the coupled rule (bracket ~ 2 h sqrt(8 k)) once it beats the deterministic
    one (~ k h), i.e. from about 32 coupled steps on."""
    return _effective_steps(plan, coupled_only=True) > COUPLING_THRESHOLD


def encode_ctd_grids(grids: dict[int, list[Fraction]], grid_bits: int) -> str:
    """``"k:n0,n1,...;..."``: component k's connect-the-dots grid as integer multiples of 2^-grid_bits."""
    return ";".join(f"{k}:" + ",".join(str(int(e * 2**grid_bits)) for e in grids[k]) for k in sorted(grids))


def parse_ctd_grids(text: object, grid_bits: int, max_points: int = 20000) -> dict[int, list[Fraction]]:
    """Inverse of :func:`encode_ctd_grids`; InputError on anything but sorted non-negative integers from 0."""
    if not isinstance(text, str) or len(text) > 2_000_000:
        raise InputError("connect_the_dots_grids", "must be a string")
    out: dict[int, list[Fraction]] = {}
    for part in text.split(";"):
        head, _, body = part.partition(":")
        nums = body.split(",")
        if not head.isdigit() or not all(n.isdigit() for n in nums) or len(nums) > max_points:
            raise InputError("connect_the_dots_grids", "malformed grid")
        vals = [int(n) for n in nums]
        if vals[0] != 0 or any(b <= a for a, b in zip(vals, vals[1:])) or len(vals) < 2:
            raise InputError("connect_the_dots_grids", "a grid is strictly increasing from 0 with >= 2 points")
        if vals[-1] > 64 * 2**grid_bits:
            raise InputError("connect_the_dots_grids", "grid epsilons are at most 64")
        out[int(head)] = [Fraction(v, 2**grid_bits) for v in vals]
    return out


def account(plan: Any, *, epsilon: object = None, delta: object = None, grid_bits: int | None = None,
            rtol: object = "0.01", max_grid_bits: int = MAX_GRID_BITS, coupling: object = "auto",
            delta_ref: object = None, ctd_grids: dict[int, list[Fraction]] | None = None) -> Composition:
    """Certified delta(eps) (give ``epsilon``) or eps(delta) (give ``delta``) of the composed ``plan``.

    ``coupling``: "auto" (see :func:`use_coupling`), True (coupled rule for every law with a certified
    partial mean) or False (deterministic rule only). ``delta_ref`` (epsilon mode): the delta scale
    that sets the tail mass moved per truncation and the integer scale (tightness only; by default
    1e-12 for the first lattice, then the first lattice's certified upper bound). ``ctd_grids`` (with
    a fixed ``grid_bits``): the connect-the-dots epsilon grids to use, as recorded in a certificate
    (any grid gives valid bounds)."""
    start = time.perf_counter()
    plan = parse_plan(plan)
    if (epsilon is None) == (delta is None):
        raise InputError("epsilon", "give exactly one of epsilon and delta")
    eps = parse_nonnegative(epsilon, "epsilon") if epsilon is not None else None
    dlt = parse_probability(delta, "delta") if delta is not None else None
    tol = parse_nonnegative(rtol, "rtol")
    if not 0 < tol < 1:
        raise InputError("rtol", "must lie in (0, 1)")
    if grid_bits is not None and not (isinstance(grid_bits, int) and MIN_GRID_BITS <= grid_bits <= MAX_GRID_BITS):
        raise InputError("grid_bits", f"must be an integer in [{MIN_GRID_BITS}, {MAX_GRID_BITS}]")
    mu2 = gdp_mu_squared(plan)
    non_gauss = [g for g in plan.groups if g.mechanism not in GDP_MECHANISMS]
    methods = [{"group": g.label(), "method": "gdp-closed-form" if g.mechanism in GDP_MECHANISMS and not non_gauss
                else ("gdp-merged-then-pld-lattice" if g.mechanism in GDP_MECHANISMS
                      else (f"{CTD_METHOD}-pld-lattice" if g.mechanism in CONNECT_THE_DOTS else "pld-lattice"))}
               for g in plan.groups]
    result = Composition(plan, eps, dlt, None, methods=methods)
    if not non_gauss:
        if eps is not None:
            result.enclosure = _gdp_delta(mu2, eps)
        else:
            result.enclosure, result.notes = _gdp_epsilon(mu2, dlt)
        result.discretization = {"route": "closed-form", "mu_squared": _exact(mu2)}
        result.timing_seconds = round(time.perf_counter() - start, 6)
        return result
    coupled = use_coupling(plan) if coupling == "auto" else bool(coupling)
    if grid_bits is None:
        bits = min(max(MIN_GRID_BITS, math.ceil(math.log2(_effective_steps(plan, coupling=coupled) / 0.2))),
                   max_grid_bits)
        adaptive = True
    else:
        bits, adaptive = grid_bits, False
    cache: dict = {}
    previous = math.inf
    ref = dlt if dlt is not None else (parse_probability(delta_ref, "delta_ref") if delta_ref is not None else None)
    for _ in range(4):
        grids_used: dict[int, list[Fraction]] = {}
        bounds = lattice_bounds(plan, bits, ref, cache, coupled=coupled, ctd_grids=ctd_grids,
                                grids_used=grids_used)
        enc, infinite, per = _lattice_answer(bounds, eps, dlt)
        result.enclosure, result.epsilon_upper_infinite, result.directions = enc, infinite, per
        result.bounds = bounds
        width = result.relative_width
        # absolute floor: a delta bracket inside [0, 1e-12] is accepted as it is
        tiny = eps is not None and enc is not None and enc.upper <= Fraction(1, 10**12)
        stalled = width > previous / 1.5  # the last refinement did not help (e.g. true delta = 0)
        if not adaptive or width <= float(tol) or tiny or stalled or bits >= max_grid_bits:
            break
        previous = width
        grow = 1 if not math.isfinite(width) else max(1, math.ceil(math.log2(width / float(tol) * 1.05)))
        longest = max(pair.longest() for pair in bounds.values())
        if longest * 2**grow > MAX_COEFFICIENTS:
            grow = max(0, int(math.log2(MAX_COEFFICIENTS / max(longest, 1))))
            if grow == 0:
                result.notes.append("stopped refining: the composed support would exceed "
                                    f"{MAX_COEFFICIENTS} lattice points")
                break
        bits = min(bits + grow, max_grid_bits)
        cache.clear()
        if eps is not None and ref is None and enc is not None and 0 < enc.upper < 1:
            from certdp.numbers import round_decimal

            ref = Fraction(round_decimal(enc.upper, 2, "up"))  # the delta scale for the finer lattices
    scale_bits, tail_prob, _ = _settings(plan, ref)
    result.discretization = {"route": "pld-lattice", "grid_step": f"2^-{bits}", "grid_bits": str(bits),
                             "scale_bits": str(scale_bits), "tail_per_truncation": f"{tail_prob:.3e}",
                             "rounding": "coupled-hoeffding" if coupled else "deterministic",
                             **({"delta_ref": _exact(ref)} if eps is not None and ref is not None else {})}
    if grids_used:
        result.discretization["connect_the_dots_grids"] = encode_ctd_grids(grids_used, bits)
        result.discretization["connect_the_dots_grid_points"] = ",".join(
            str(len(grids_used[k])) for k in sorted(grids_used))
    if adaptive and result.relative_width > float(tol):
        result.notes.append(f"relative width {result.relative_width:.3g} > rtol {float(tol)} at the finest "
                            f"grid tried (2^-{bits})")
    result.timing_seconds = round(time.perf_counter() - start, 6)
    return result


def _exact(q: Fraction) -> str:
    from certdp.numbers import exact_str

    return exact_str(q)
