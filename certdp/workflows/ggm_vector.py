"""Certified GGM calibration for a sensitivity VECTOR (seed 004 Sec. 3.3-3.6), through the product engine.

:func:`calibrate_vector` brackets the scale ``b(p)`` of GGM(p) for a sensitivity vector: with
``p = 2``, ``p = inf`` or one non-zero entry by the exact 1-D calibration, otherwise by the
deterministic, pessimistic product-loss engine (:mod:`certdp.engines.product_loss`).
:func:`vector_shape_search` is the certified shape search for a sensitivity vector: branch and
bound on p-intervals with lower bounds from the quantile coupling
(:mod:`certdp.engines.quantile_coupling`) and the projection to one coordinate (App. D.2), upper
bounds from :func:`calibrate_vector` at points.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from certdp.numbers import (
    UndecidedError,
    arb_of,
    decimal_bounds,
    exact_str,
    parse_positive,
    parse_probability,
    working_precision,
)
from certdp.workflows.ggm_shape_search import dyadic
from certdp.workflows.methods import METHODS

__all__ = ["calibrate_vector", "calibrate_vector_coupled", "calibrate_sensitivity_vector",
           "CoupledPointBounds", "vector_shape_search", "VECTOR_GRID_STEP", "CUT_POINTS_SHARED", "VECTOR_TOLERANCE"]

VECTOR_GRID_STEP = 2.0**-13
#: ``extra["cut_points"]`` of a vector certificate whose enclosures used one set of standardized cut
#: points, chosen at ``extra["float_candidate"]``, at every scale (``verify`` rebuilds them from it;
#: a certificate without the key cut each scale at itself, as certdp did before).
CUT_POINTS_SHARED = "standardized at the float candidate"


def calibrate_vector(shape: object, epsilon: object, delta: object, sensitivity: object, *,
                     grid_step: float = VECTOR_GRID_STEP, rtol: float = 2e-3):
    """Certified scale bracket for GGM(p) with a sensitivity VECTOR, as a Certificate.

    p = 2 and p = inf (and vectors with one non-zero entry) use the exact
    calibration (closed forms / 1-D engine) through :func:`certdp.workflows.calibrate.calibrate`.
    Otherwise delta is enclosed by :func:`certdp.engines.product_loss.product_delta_bounds`
    (deterministic, pessimistic discretisation): the safe end b_hi has a proven upper
    bound <= delta, the other end b_lo a proven lower bound > delta, so the exact
    minimal scale b(p) lies in (b_lo, b_hi].  The bracket's relative width is limited
    by the grid (about 1e-3 at the default step), not by precision.  No Monte Carlo,
    no alpha slack: the mechanism at b_hi is (eps, delta)-DP outright.
    """
    from certdp.certificate import Certificate, Stopwatch
    from certdp.engines.product_loss import float_product_scale, product_delta_bounds, standard_coordinates
    from certdp.mechanisms.generalized_gaussian import GeneralizedGaussian, parse_sensitivity_vector, parse_shape
    from certdp.workflows.calibrate import calibrate

    p = parse_shape(shape)
    vec = parse_sensitivity_vector(sensitivity)
    active = tuple(q for q in vec if q != 0)
    if isinstance(p, float) or p == 2 or len(active) == 1:
        return calibrate("ggm", epsilon=epsilon, delta=delta, shape=shape,
                         sensitivity=",".join(exact_str(q) for q in vec) if len(vec) > 1 else vec[0])
    clock = Stopwatch()
    eps = parse_positive(epsilon, "epsilon")
    dlt = parse_probability(delta, "delta")
    # the walk's first steps are rtol/2 wide: a candidate to 1e-5 is plenty
    cand = float_product_scale(float(p), float(eps), float(dlt), [float(q) for q in active], polish_tol=1e-5)
    if cand is None:
        raise UndecidedError("vector calibration: no float candidate")
    target = arb_of(dlt)
    w = rtol / 2
    b_hi = b_lo = None
    enc_hi = enc_lo = None
    evaluations = 0
    with working_precision(64):
        # cut points and bin masses once, at the candidate scale: every trial scale reuses them
        standard = standard_coordinates(p, cand, active, dt=grid_step)
        for _ in range(12):
            if b_hi is None:
                trial = dyadic(cand * (1 + w), 40)
                lo, hi = product_delta_bounds(p, arb_of(trial), arb_of(eps), active, dt=grid_step,
                                              standard=standard)
                evaluations += 1
                if arb(hi) <= target:
                    b_hi, enc_hi = trial, (lo, hi)
            if b_lo is None:
                trial = dyadic(cand * (1 - w), 40)
                lo, hi = product_delta_bounds(p, arb_of(trial), arb_of(eps), active, dt=grid_step,
                                              standard=standard)
                evaluations += 1
                if arb(lo) > target:
                    b_lo, enc_lo = trial, (lo, hi)
            if b_hi is not None and b_lo is not None:
                break
            w *= 2
    if b_hi is None or b_lo is None:
        raise UndecidedError("vector calibration: could not certify a bracket (refine grid_step)")
    params = GeneralizedGaussian.parse_fixed(shape=shape, sensitivity=sensitivity)
    method = METHODS["product-loss-engine"]
    return Certificate.for_calibration(
        claim=method.claim(GeneralizedGaussian), mechanism="ggm", parameter="scale", parameters=params,
        epsilon=eps, delta=dlt, interval=(b_lo, b_hi), safe_side="upper", method=method.name,
        lemma=method.lemma(GeneralizedGaussian), inputs={"grid_step": Fraction(grid_step)},
        delta_enclosure=decimal_bounds(arb(enc_hi[0]).union(arb(enc_hi[1])), 17),
        precision_bits=64, timing_seconds=clock.elapsed(),
        extra={"evaluations": evaluations,
               "delta_enclosure_at_unsafe_end": list(decimal_bounds(arb(enc_lo[0]).union(arb(enc_lo[1])), 17)),
               "float_candidate": repr(cand), "cut_points": CUT_POINTS_SHARED},
    )


def log_moment_lower(a: Fraction, c: Fraction, moment: int, slope: Fraction = Fraction(0)) -> arb:
    """An exact ball (a point) <= inf_{p in [a, c]} [slope (p - p_mid) + log M_m(p)], p_mid = (a + c) / 2
    (mean-value form with Arb digamma on the ball, or the naive ball if that is larger; 64 bits)."""
    from certdp.mechanisms.generalized_gaussian import log_moment_factor

    with working_precision(64):
        ball = arb_of(a).union(arb_of(c))
        pm = arb_of((a + c) / 2)
        half = arb_of((c - a) / 2)
        mp1 = arb(moment + 1)
        s = arb_of(slope)
        deriv = s + (-(mp1 / ball ** 2) * (mp1 / ball).digamma() + (1 / ball ** 2) * (1 / ball).digamma())
        mv = log_moment_factor(pm, moment) - half * abs(deriv)
        naive = log_moment_factor(ball, moment) + s * (ball - pm)
        lo = max(arb(mv.lower()).mid(), arb(naive.lower()).mid()) if mv.is_finite() else arb(naive.lower()).mid()
        return arb(lo)


def infinity_objective_lower(b_lo: Fraction, moment: int) -> float:
    """A float <= m log b_lo + log M_m(inf) = m log b_lo - log(m + 1), rounded down."""
    with working_precision(64):
        val = moment * arb_of(b_lo).log() - arb(moment + 1).log()
        return math.nextafter(float(arb(val.lower()).mid()), -math.inf)


def interval_objective_lower(b_lo: Fraction, m_term: arb, moment: int) -> float:
    """A float <= m log b_lo + m_term (the interval bound L_I of a proven unsafe b_lo), rounded down."""
    with working_precision(64):
        val = moment * arb_of(b_lo).log() + m_term
        return math.nextafter(float(arb(val.lower()).mid()), -math.inf)


def coupled_mass_bits(dimension: int, bins: int, dlt: Fraction) -> int:
    """Mass resolution for the coupled bounds: the mass moved by rounding, d K 2^-bits, is at most
    1e-5 delta (a tightness choice; any value gives valid bounds); in [24, U_BITS]."""
    from certdp.engines.quantile_coupling import U_BITS

    need = math.log2(dimension * max(bins, 1) * 1e5) - math.log2(float(dlt)) if dlt > Fraction(1, 2**1000) else U_BITS
    return min(max(math.ceil(need), 24), U_BITS)


class _CoupledIntervalBounds:
    """Certified lower bounds on F(p) = m log b(p) + log M_m(p) over p-intervals, vector sensitivity.

    Two lemmas, the larger bound wins:

    * projection (seed 004 App. D.2): dropping coordinates is post-processing, so the vector
      delta at any b is >= the 1-D delta of the largest coordinate and b(p; Delta) >=
      b(p; max_i Delta_i); the 1-D interval bound of :mod:`certdp.workflows.ggm_shape_search`
      (Arb p-balls through the monotone-loss engine) is therefore a valid lower bound;
    * quantile coupling (:mod:`certdp.engines.quantile_coupling`): a proven
      ``delta_lo(I, b_lo) > delta`` for every p in I gives b(p) > b_lo on I, because delta is
      decreasing in b (App. B.6, the lemma ``calibrate_vector`` uses); then
      ``L_I = m log b_lo + inf_I log M_m``, the infimum by the mean-value form with Arb digamma.
    """

    def __init__(self, eps: Fraction, dlt: Fraction, active: list[Fraction], moment: int, *,
                 cells: int, loss_step: float):
        from certdp.workflows.ggm_shape_search import _Problem

        self.eps, self.dlt, self.active, self.m = eps, dlt, active, moment
        self.cells, self.loss_step = cells, loss_step
        self.one_d = _Problem(eps, dlt, max(active), moment)
        self.float_b: dict[Fraction, float | None] = {}
        self.float_1d: dict[float, float | None] = {}
        self.log_ratio: dict[float, float] = {}  # p -> log(b-hat vector / b-hat 1-D), float model nodes
        self.width_coefficient = 0.8  # float guess of d(F - L_I)/d|I|, refined from converged bounds
        self.coupled_evaluations = 0
        self.quantile_evaluations = 0
        # per interval: (log(b_lo / model), secant elasticity), the children's first proposal
        self.offsets: dict[tuple[Fraction, Fraction], tuple[float, float]] = {}
        # the evidence of each bound, for the certificate: interval -> b_lo of the projection lemma /
        # (b_lo, beta, partition shape p, partition scale guess, bins, mass bits) of the coupling lemma
        self.projection_scale: dict[tuple[Fraction, Fraction], Fraction] = {}
        self.coupled_record: dict[tuple[Fraction, Fraction], tuple] = {}
        self.elasticity = -4.0  # last secant d log delta_lo / d log b (a float guess)

    def b_float(self, p: Fraction) -> float | None:
        from certdp.engines.product_loss import float_product_scale

        if p not in self.float_b:
            self.float_b[p] = float_product_scale(float(p), float(self.eps), float(self.dlt),
                                                  [float(q) for q in self.active], polish=False,
                                                  coarse_dt=2.0**-7)
        return self.float_b[p]

    def b_one_d(self, p: float) -> float | None:
        """float 1-D scale for max_i Delta_i (monotone-loss float solve, ~0.3 ms; a guess)."""
        from certdp.engines.monotone_loss import float_scale

        if p not in self.float_1d:
            self.float_1d[p] = float_scale(p, float(self.eps), float(self.dlt), float(max(self.active)))
        return self.float_1d[p]

    #: nodes of the float ratio model b-hat(p; Delta) / b-hat(p; max Delta_i) (smooth in p)
    MODEL_NODES = (Fraction(1), Fraction(9, 8), Fraction(5, 4), Fraction(11, 8), Fraction(3, 2),
                   Fraction(7, 4), Fraction(2), Fraction(5, 2), Fraction(3), Fraction(4), Fraction(6),
                   Fraction(8), Fraction(12), Fraction(16))

    def add_model_node(self, p: float, b: float | None) -> None:
        """Record a float vector scale (e.g. from the seed search) as a node of the ratio model."""
        one = self.b_one_d(p)
        if b is not None and one is not None and b > 0 and one > 0:
            self.log_ratio[p] = math.log(b) - math.log(one)

    def _ratio_node(self, q: Fraction) -> float | None:
        key = float(q)
        if key not in self.log_ratio:
            self.add_model_node(key, self.b_float(q))
        return self.log_ratio.get(key)

    def log_b_model(self, p: Fraction) -> tuple[float, float] | None:
        """float (log b-hat(p), d log b-hat / dp), a guess that only proposes trial scales:
        the 1-D float scale of max_i Delta_i (cheap, exact shape dependence) times the ratio
        b-hat(p; Delta) / b-hat(p; max_i Delta_i), interpolated linearly in p between float
        vector solves at :attr:`MODEL_NODES` and any node added by :meth:`add_model_node`."""
        nodes = self.MODEL_NODES
        below = max((q for q in nodes if q <= p), default=None)
        above = min((q for q in nodes if q > p), default=None)
        below = below if below is not None else above
        above = above if above is not None else below
        if self._ratio_node(below) is None or self._ratio_node(above) is None:
            return None
        known = sorted(x for x in self.log_ratio if float(below) <= x <= float(above))
        pf = float(p)
        lo_x = max((x for x in known if x <= pf), default=known[0])
        hi_x = min((x for x in known if x > pf), default=known[-1])
        if hi_x == lo_x:
            r_slope, r_val = 0.0, self.log_ratio[lo_x]
        else:
            r_slope = (self.log_ratio[hi_x] - self.log_ratio[lo_x]) / (hi_x - lo_x)
            r_val = self.log_ratio[lo_x] + r_slope * (pf - lo_x)
        step = 1e-3
        one, one_a, one_c = self.b_one_d(pf), self.b_one_d(max(pf - step, 1.0)), self.b_one_d(pf + step)
        if one is None or one_a is None or one_c is None:
            return None
        d_one = (math.log(one_c) - math.log(one_a)) / (pf + step - max(pf - step, 1.0))
        return math.log(one) + r_val, d_one + r_slope

    def mass_bits(self, bins: int) -> int:
        return coupled_mass_bits(len(self.active), bins, self.dlt)

    def model_objective_min(self, a: Fraction, c: Fraction) -> float:
        """float min of the model F at a, mid, c (a guess)."""
        vals = []
        for q in (a, (a + c) / 2, c):
            est = self.log_b_model(q)
            if est is None:
                return math.inf
            vals.append(self.m * est[0] + math.lgamma((self.m + 1) / float(q)) - math.lgamma(1 / float(q)))
        return min(vals)

    def predicted_coupled(self, a: Fraction, c: Fraction) -> float:
        """float guess of the coupled bound on [a, c] (float model minus the typical interval loss,
        ``width_coefficient`` |I| + 0.004, the coefficient learned from converged bounds); used only
        to skip computing bounds that would be split anyway (efficiency, never validity)."""
        return self.model_objective_min(a, c) - (self.width_coefficient * float(c - a) + 0.004)

    def log_moment_lower(self, a: Fraction, c: Fraction, slope: Fraction = Fraction(0)) -> arb:
        return log_moment_lower(a, c, self.m, slope)

    def projection_bound(self, a: Fraction, c: Fraction) -> float:
        res = self.one_d.lower_bound(a, c, hint=self.one_d.float_cache.get(a))
        if res is None:
            return -math.inf
        self.projection_scale[(a, c)] = res[1]
        return math.nextafter(float(res[0].mid()), -math.inf)

    def coupled_bound(self, a: Fraction, c: Fraction, *, goal: float | None = None, floor: float | None = None,
                      hint: tuple[float, float] | None = None) -> tuple[float, Fraction | None]:
        """(L_I, b_lo) from the quantile coupling; (-inf, None) when no scale was proven unsafe.

        The trial scales are float proposals (only the Arb test ``delta_lo > delta`` decides):
        the first at the float model times ``exp(hint[0])`` (``hint``: the parent interval's
        ``log(b_lo / model)`` and secant elasticity, recorded in :attr:`offsets`; a child is
        tighter, so that scale is usually proven unsafe at once), else at the model lowered by the
        learned interval loss, then secant steps on log delta_lo vs log b.  ``goal``
        (U*): stop once L_I >= goal (the interval is pruned) or L_I >= ``floor`` + 0.6 (goal -
        floor) (good enough for the tolerance); ``floor`` (U* - eta): stop when the predicted best
        L_I stays below it (the interval is split anyway).  These only save evaluations: any
        proven scale gives a valid bound.
        """
        from certdp.engines.quantile_coupling import QuantileBounds, coupled_delta_lower, u_partition

        est = self.log_b_model((a + c) / 2)
        if est is None:
            return -math.inf, None
        # p-dependent trial scale b(p) = b0 exp(beta (p - p_mid)), beta the float slope of log b-hat
        log_b, slope = est
        beta = Fraction(round(slope * 2**20), 2**20) if c > a else Fraction(0)
        with working_precision(64):
            m_term = self.log_moment_lower(a, c, self.m * beta)  # L_I = m log b_lo + m_term
        m_term_f = float(m_term.mid())
        guess = math.exp(log_b)
        pm = float((a + c) / 2)
        shared = u_partition(pm, [float(q) / guess for q in self.active], self.cells, delta=float(self.dlt))
        parts = [shared] * len(self.active)
        qb = QuantileBounds(a, c)
        target = float(self.dlt) * 1.0005  # aim just above delta (float proposals; the Arb test decides)
        # first proposal: the predicted threshold of the coupled bound (the model scale lowered by the
        # learned interval loss), or the parent's offset from the model when it has one
        if hint is not None:
            b_try = guess * math.exp(hint[0])
            elasticity = hint[1]
        else:
            b_try = guess * math.exp(-(self.width_coefficient * float(c - a) + 0.004) / self.m)
            elasticity = self.elasticity  # d log delta / d log b, a guess refined by secants
        local_secant = False
        last = None
        found = None  # largest scale proven unsafe (delta_lo > delta)
        failed = None  # smallest scale tried without that proof

        def objective_at(b: float) -> float:
            return self.m * math.log(b) + m_term_f

        enough = None if goal is None or floor is None else floor + 0.6 * (goal - floor)
        tries = (6 if c - a <= Fraction(1, 16) else 3) + (4 if self.dlt < Fraction(1, 10**6) else 0)
        converged = False
        for _ in range(tries):
            b_q = dyadic(b_try, 40)
            self.coupled_evaluations += 1
            lo = coupled_delta_lower(a, c, b_q, self.eps, self.active, parts, qb, log_slope=beta, h=self.loss_step,
                                     mass_bits=self.mass_bits(len(shared)))
            with working_precision(64):
                proven = bool(lo > arb_of(self.dlt))
            val = float(lo.mid())
            if proven:
                found = b_q if found is None or b_q > found else found
            else:
                failed = b_q if failed is None or b_q < failed else failed
            if val > 0 and last is not None and last[1] > 0 and last[0] != b_try:
                e = (math.log(val) - math.log(last[1])) / (math.log(b_try) - math.log(last[0]))
                if -200 < e < -0.1:
                    elasticity = e
                    local_secant = True
            if val > 0:
                last = (b_try, val)
                nxt = b_try * math.exp((math.log(target) - math.log(val)) / elasticity)
                # far from the threshold (tiny delta: log delta is strongly curved in log b) the
                # secant can crawl: step at least 5 % towards it
                if val > 4 * target:
                    nxt = max(nxt, b_try * 1.05)
                elif val < target / 4:
                    nxt = min(nxt, b_try / 1.05)
            else:
                nxt = b_try * 0.7
            if found is not None:
                f_found = objective_at(float(found))
                if goal is not None and f_found > goal:
                    break  # pruned: no need for a larger scale
                if enough is not None and f_found >= enough:
                    break  # within the tolerance's margin
            if (floor is not None and local_secant and val > 0
                    and objective_at(max(nxt, float(found or 0))) < floor - 2e-3):
                break  # even the predicted threshold (local secant) leaves L_I below U* - eta: split anyway
            if found is not None and failed is not None:
                lo_f, hi_f = float(found), float(failed)
                if hi_f <= lo_f * (1 + 5e-4):
                    converged = True
                    break  # bracketed to 5e-4: < 1e-3 on F
                if not (lo_f < nxt < hi_f):
                    nxt = math.sqrt(lo_f * hi_f)  # secant left the bracket: bisect (geometric)
            if found is not None and nxt <= float(found) * (1 + 5e-4):
                converged = True
                break  # the next proposal would gain < 1e-3 on F
            b_try = nxt
        self.quantile_evaluations += qb.evaluations
        if found is None:
            return -math.inf, None
        self.offsets[(a, c)] = (math.log(float(found)) - log_b, elasticity)
        self.coupled_record[(a, c)] = (found, beta, pm, guess, self.cells, self.mass_bits(len(shared)))
        if local_secant:
            self.elasticity = elasticity
        bound = interval_objective_lower(found, m_term, self.m)
        if converged and c > a:
            observed = (self.model_objective_min(a, c) - bound - 0.004) / float(c - a)
            self.width_coefficient = min(max(0.5 * (self.width_coefficient + observed), 0.25), 1.5)
        return bound, found


class CoupledPointBounds:
    """The coupled bounds of delta_{p, b}(eps; Delta) at the POINT p, one shared partition for every scale.

    The partition is :func:`~certdp.engines.quantile_coupling.u_partition` at the float scale
    ``guess`` (c_i = Delta_i / guess, ``cells`` bins, tail cut points down to ~1e-5 delta); the masses
    are rounded to ``mass_bits`` bits (default: the dropped mass is at most 1e-5 delta).  Any
    partition, scale guess and mass resolution give valid bounds: they only set the tightness.

    * :meth:`upper`: an Arb ball whose upper end is >= delta (mirror of the coupling lemma,
      :func:`~certdp.engines.quantile_coupling.coupled_delta_upper`);
    * :meth:`lower`: an Arb ball whose lower end is <= delta (coupling lemma,
      :func:`~certdp.engines.quantile_coupling.coupled_delta_lower` on the interval [p, p]).
    Exact integers and Arb only; the certified quantiles are shared by both and by every scale.
    """

    def __init__(self, p: Fraction, eps: Fraction, dlt: Fraction, active, guess: float, *, cells: int = 1000,
                 loss_step: float = 2.0**-12, mass_bits: int | None = None):
        from certdp.engines.quantile_coupling import QuantileBounds, u_partition

        self.p, self.eps, self.dlt = Fraction(p), Fraction(eps), Fraction(dlt)
        self.active = [Fraction(q) for q in active]
        self.guess, self.cells, self.loss_step = float(guess), int(cells), float(loss_step)
        part = u_partition(float(p), [float(q) / self.guess for q in self.active], self.cells, delta=float(dlt))
        self.parts = [part] * len(self.active)
        self.mass_bits = coupled_mass_bits(len(self.active), len(part), self.dlt) if mass_bits is None else mass_bits
        self.quantiles = QuantileBounds(self.p, self.p)
        self.evaluations = 0
        self._memo: dict[tuple[str, Fraction], arb] = {}  # each bound at each scale is computed once

    def upper(self, b: Fraction) -> arb:
        from certdp.engines.quantile_coupling import coupled_delta_upper

        key = ("upper", Fraction(b))
        if key not in self._memo:
            self.evaluations += 1
            self._memo[key] = coupled_delta_upper(self.p, b, self.eps, self.active, self.parts, self.quantiles,
                                                  h=self.loss_step, mass_bits=self.mass_bits)
        return self._memo[key]

    def lower(self, b: Fraction) -> arb:
        from certdp.engines.quantile_coupling import coupled_delta_lower

        key = ("lower", Fraction(b))
        if key not in self._memo:
            self.evaluations += 1
            self._memo[key] = coupled_delta_lower(self.p, self.p, b, self.eps, self.active, self.parts,
                                                  self.quantiles, h=self.loss_step, mass_bits=self.mass_bits)
        return self._memo[key]

    def enclosure(self, b: Fraction) -> arb:
        """A ball containing delta at ``b``: [lower end of :meth:`lower`, upper end of :meth:`upper`]."""
        low, up = self.lower(b), self.upper(b)
        with working_precision(128):
            return arb(low.lower()).union(arb(up.upper()))

    def proven_private(self, b: Fraction) -> bool:
        """delta(b) <= delta proven by the upper bound."""
        up = self.upper(b)
        with working_precision(64):
            return bool(up <= arb_of(self.dlt))

    def proven_not_private(self, b: Fraction) -> bool:
        """delta(b) > delta proven by the lower bound."""
        low = self.lower(b)
        with working_precision(64):
            return bool(low > arb_of(self.dlt))


class CoupledPointScale:
    """A certified scale bracket at a point p from the quantile coupling (used where the product-loss
    engine cannot certify, e.g. delta below ~1e-9: its float64 error terms are absolute).

    ``interval = (b_lo, b_hi)``: ``coupled_delta_lower(p, b_lo) > delta`` and ``coupled_delta_upper(p,
    b_hi) <= delta`` proven (exact integers and Arb), so b(p) lies in (b_lo, b_hi] (delta decreasing
    in b, App. B.6) and GGM(p, b_hi) is (eps, delta)-DP.  ``evidence``: what
    :mod:`certdp.workflows.ggm_vector_certificate` re-checks (the upper end only); ``bounds``: the
    :class:`CoupledPointBounds` that proved both ends."""

    method = "quantile-coupling-point"

    def __init__(self, shape: Fraction, b_lo: Fraction, b_hi: Fraction, evidence: dict,
                 bounds: CoupledPointBounds | None = None):
        from decimal import Decimal

        self.shape = shape
        self.interval = (Decimal(exact_str(b_lo)), Decimal(exact_str(b_hi)))
        self.value = self.interval[1]
        self.evidence = evidence
        self.bounds = bounds


def coupled_point_scale(p: Fraction, eps: Fraction, dlt: Fraction, active: list[Fraction], guess: float, *,
                        cells: int = 1000, loss_step: float = 2.0**-12, bisections: int = 5) -> CoupledPointScale:
    """Certified bracket (b_lo, b_hi] of b(p) by the coupled lower / upper bounds at the point p (float
    ``guess`` only proposes; a walk from it to each end's threshold, then ``bisections`` bisections)."""
    bounds = CoupledPointBounds(p, eps, dlt, active, guess, cells=cells, loss_step=loss_step)

    def edge(test, true_above: bool) -> Fraction:
        """The proven end nearest the threshold: walk from the guess (steps 0.2 %, doubling) until the
        test flips, then bisections; ``true_above``: the test holds for large scales (safe)."""
        b = dyadic(guess, 40)
        ok = test(b)
        b_true, b_false = (b, None) if ok else (None, b)
        w = 2e-3
        for _ in range(16):
            if b_true is not None and b_false is not None:
                break
            up = (ok and not true_above) or (not ok and true_above)
            b = dyadic(b * (1 + w) if up else b * (1 - w), 40)
            ok = test(b)
            if ok:
                b_true = b
            else:
                b_false = b
            w *= 2
        if b_true is None or b_false is None:
            raise UndecidedError(f"coupled point bracket at p = {exact_str(p)}: no scale proven")
        for _ in range(bisections):
            mid = dyadic((b_true + b_false) / 2, 40)
            if not (min(b_true, b_false) < mid < max(b_true, b_false)):
                break
            if test(mid):
                b_true = mid
            else:
                b_false = mid
        return b_true

    b_hi = edge(bounds.proven_private, True)
    b_lo = edge(bounds.proven_not_private, False)
    evidence = {"shape": exact_str(p), "scale": exact_str(b_hi),
                "partition": {"shape": repr(float(p)), "scale": repr(float(guess)), "bins": cells},
                "mass_bits": bounds.mass_bits, "loss_step": exact_str(Fraction(loss_step))}
    return CoupledPointScale(p, b_lo, b_hi, evidence, bounds)


#: ``extra["cut_points"]`` of a ``quantile-coupling`` calibration: one u-partition for every scale, cut at
#: ``extra["float_candidate"]`` (``verify`` rebuilds it from there; any partition gives valid bounds).
COUPLED_CUT_POINTS = "u_partition at the float candidate, shared by every scale"

#: (bins, loss step) of the coupled bracket, coarse to fine: the next is tried while the bracket is wider
#: than the goal (each roughly halves the bins' part of the gap; the loss step's part, set by
#: :func:`coupled_loss_shift` to ~0.1 %, is halved from the third on).
COUPLED_SETTINGS: tuple[tuple[int, float], ...] = ((1000, 2.0**-12), (2000, 2.0**-12), (4000, 2.0**-13),
                                                   (8000, 2.0**-14))

#: the finest goal the loss step is chosen for (the bins' share of the gap stays above ~1e-3 at 8000 bins)
COUPLED_MIN_GOAL = 1e-3

#: bracket width aimed at when no rtol is requested (then none is claimed): the product engine's ~2e-3
COUPLED_DEFAULT_GOAL = 5e-3

#: below this delta the product engine's absolute float64 error terms (~1e-11) cannot certify: the
#: automatic choice does not try it (docs/ggm.md "Vector calibration at tiny delta")
PRODUCT_DELTA_FLOOR = Fraction(1, 10**8)


def _vector_candidate(p: Fraction, eps: Fraction, dlt: Fraction, active) -> tuple[float, float, float]:
    """A float64 guess of b(p) for the vector, the mean excess delta / P(L > eps) and the slope
    -d log delta / d log b there (all only propose: the scales tried, the cut points, the loss step)."""
    from certdp.engines.product_loss import float_vector_scale

    found = float_vector_scale(float(p), float(eps), float(dlt), [float(q) for q in active], rtol=1e-4,
                               with_excess=True)
    if found is None or not (math.isfinite(found[0]) and found[0] > 0):
        raise UndecidedError("vector calibration: no float candidate")
    return found


#: the finest loss step :func:`coupled_loss_shift` can choose times the finest of :data:`COUPLED_SETTINGS`;
#: ``verify`` accepts no finer one (the engine's grid-length cap bounds the work of any step)
COUPLED_FINEST_STEP = Fraction(min(step for _, step in COUPLED_SETTINGS)) / 2**14

def coupled_loss_shift(p: Fraction, active, cand: float, excess: float, slope: float, width: float) -> int:
    """k in [-14, 6] such that the coupled calibration's loss grid is 2^k times :data:`COUPLED_SETTINGS`'.

    Rounding the losses to a step h moves the two bounds of delta apart by about d h / excess in
    relative terms (excess = delta / P(L > eps): the losses above eps count 1 - e^(eps - L), on that
    scale), hence the bracket by d h / (excess slope), slope = -d log delta / d log b (measured
    C ~ 1 at d = 5, p = 3/2 and p = 4, delta 0.1 and 1e-12).  The first step is the power of two
    below ``width`` excess slope / d (the calibration passes a quarter of its goal: the bins take the
    rest), for p = 1 also below 2^-10 ||Delta||_1 / b (the whole loss spread: near the pure-DP
    scale ||Delta||_1 / eps delta falls off a cliff and the slope says nothing about the step),
    clamped to [2^-26, 2^-6].  A tightness and cost choice only: any step
    gives valid bounds.  (The earlier rule, 2^-12 min(1, eps), was 64x too fine at eps = 0.01,
    delta = 0.1 -- 50 s instead of 2 s at d = 5 -- and 30x too fine at eps = 50.)"""
    d = len(active)
    spread = float(sum(abs(float(q)) for q in active)) / cand
    scale = width * excess * slope / d
    if p == 1:
        scale = min(scale, spread * 2.0**-10)
    if not (math.isfinite(scale) and scale > 0):
        return 0
    return max(min(math.floor(math.log2(scale)) + 12, 6), -14)


def laplace_pure_dp_scale(eps: Fraction, active) -> Fraction:
    """||Delta||_1 / eps (exact): GGM(1, b) with a sensitivity vector is pure eps-DP for b >= this.

    Lemma.  For p = 1 the privacy loss is L = sum_i (|x_i + Delta_i| - |x_i|) / b <= sum_i |Delta_i| / b
    (triangle inequality), so for b >= ||Delta||_1 / eps, L <= eps surely and delta(eps) =
    E[(1 - e^(eps - L))_+] = 0.  The coupled calibration uses it as its safe end where it is below the
    coupled one (at tiny delta the minimal scale sits just under it); ``verify`` re-checks it exactly."""
    return sum((abs(Fraction(q)) for q in active), Fraction(0)) / Fraction(eps)


def calibrate_vector_coupled(shape: object, epsilon: object, delta: object, sensitivity: object, *,
                             rtol: object = None, budget_seconds: float = 60.0, notes: list[str] | None = None):
    """Certified scale bracket for GGM(p) with a sensitivity VECTOR by the quantile coupling (method
    ``quantile-coupling``), as a Certificate.

    Guarantee.  With one u-partition cut at the float candidate (:class:`CoupledPointBounds`),
    the safe end b_hi has ``coupled_delta_upper(p, b_hi) <= delta`` proven (mirror of the coupling
    lemma, an upper bound of delta) and the unsafe end b_lo ``coupled_delta_lower(p, b_lo) > delta``
    (coupling lemma, a lower bound); delta is decreasing in b (seed 004 App. B.6), so the minimal
    scale b(p) lies in (b_lo, b_hi] and every b >= b_hi is (eps, delta)-DP.  Exact integers (the
    convolution) and Arb only; the float candidate only proposes.  Unlike the product engine this
    holds at any delta the partition resolves (tail masses down to 2^-160, delta to ~1e-30).

    Width.  The bracket is as wide as the gap between the two bounds (~0.4 % at 1000 bins, the loss
    step of :func:`coupled_loss_shift`); finer settings (:data:`COUPLED_SETTINGS`) are tried while it is wider than ``rtol`` (or
    :data:`COUPLED_DEFAULT_GOAL`) and ``budget_seconds`` lasts.  An explicit ``rtol`` is claimed (and
    checked by ``verify``); if no setting reaches it, :class:`UndecidedError` names the bracket reached.
    p = 2, p = inf and one active coordinate use the exact 1-D calibration, as :func:`calibrate_vector`.
    """
    import time

    from certdp.certificate import Certificate, Stopwatch
    from certdp.mechanisms.generalized_gaussian import GeneralizedGaussian, parse_sensitivity_vector, parse_shape
    from certdp.workflows.calibrate import calibrate

    p = parse_shape(shape)
    vec = parse_sensitivity_vector(sensitivity)
    active = tuple(q for q in vec if q != 0)
    if isinstance(p, float) or p == 2 or len(active) == 1:
        return calibrate("ggm", epsilon=epsilon, delta=delta, shape=shape, rtol=rtol,
                         sensitivity=",".join(exact_str(q) for q in vec) if len(vec) > 1 else vec[0])
    clock = Stopwatch()
    t0 = time.perf_counter()
    eps = parse_positive(epsilon, "epsilon")
    dlt = parse_probability(delta, "delta")
    tol = None if rtol is None else parse_positive(rtol, "rtol")
    goal = COUPLED_DEFAULT_GOAL if tol is None else float(tol)
    from certdp.engines.quantile_coupling import U_BITS

    if dlt < Fraction(1, 2**U_BITS):
        raise UndecidedError(f"vector calibration (quantile coupling): delta = {exact_str(dlt)} is below the "
                             f"coupling's mass resolution 2^-{U_BITS} (~7e-49): no tail bin can hold mass delta")
    cand, excess, slope = _vector_candidate(p, eps, dlt, active)
    # the step's share of the gap: a quarter of the goal, but no finer than the bins can use (their share
    # is >= ~1e-3 even at 8000 bins): an rtol of 1e-5 would otherwise ask for 2^-26 steps in vain
    shift = coupled_loss_shift(p, active, cand, excess, slope, max(goal, COUPLED_MIN_GOAL) / 4)
    pure = laplace_pure_dp_scale(eps, active) if p == 1 else None
    best = None
    evaluations = 0
    tried = []
    for cells, base_step in COUPLED_SETTINGS:
        step = base_step * 2.0**shift
        # bisect each end to a quarter of the goal (at least 5 times: the walk's first step is 0.2 %)
        bisections = max(5, math.ceil(math.log2(2e-3 / (goal / 4))))
        try:
            pt = coupled_point_scale(p, eps, dlt, list(active), cand, cells=cells, loss_step=step,
                                     bisections=bisections)
        except UndecidedError:
            tried.append(f"{cells} bins: no scale proven")
            continue
        evaluations += pt.bounds.evaluations
        lo, hi = (Fraction(x) for x in pt.interval)
        if pure is not None:
            hi = min(hi, pure)
        width = (hi - lo) / hi
        tried.append(f"{cells} bins, loss step 2^{round(math.log2(step))}: width {float(width):.3g}")
        if best is None or width < best[1]:
            best = (pt, width)
        if width <= goal or time.perf_counter() - t0 > budget_seconds:
            break
    if best is None:
        raise UndecidedError("vector calibration (quantile coupling): could not certify a bracket ("
                             + "; ".join(tried) + ")")
    pt, width = best
    b_lo, b_hi = (Fraction(x) for x in pt.interval)
    at_pure = pure is not None and pure <= b_hi
    if at_pure:
        b_hi = pure
    if tol is not None and width > tol:
        raise UndecidedError(f"vector calibration (quantile coupling): the certified bracket "
                             f"[{exact_str(b_lo)}, {exact_str(b_hi)}] has relative width {float(width):.3g} > rtol "
                             f"{exact_str(tol)} ({'; '.join(tried)})")
    bounds = pt.bounds
    before = bounds.evaluations
    enc_lo = bounds.enclosure(b_lo)
    enc_hi = arb(0) if at_pure else bounds.enclosure(b_hi)  # two of the four bounds are memoised
    evaluations += bounds.evaluations - before
    if at_pure:
        tried.append(f"safe end = ||Delta||_1 / eps = {exact_str(b_hi)}: the product Laplace is pure eps-DP there "
                     "(delta = 0 exactly)")
    params = GeneralizedGaussian.parse_fixed(shape=shape, sensitivity=sensitivity)
    method = METHODS["quantile-coupling"]
    return Certificate.for_calibration(
        claim=method.claim(GeneralizedGaussian), mechanism="ggm", parameter="scale", parameters=params,
        epsilon=eps, delta=dlt, rtol=tol, interval=(b_lo, b_hi), safe_side="upper", method=method.name,
        lemma=method.lemma(GeneralizedGaussian),
        inputs={"bins": bounds.cells, "loss_step": Fraction(bounds.loss_step), "mass_bits": bounds.mass_bits},
        delta_enclosure=decimal_bounds(enc_hi, 17), precision_bits=128, timing_seconds=clock.elapsed(),
        extra={"evaluations": evaluations, "delta_enclosure_at_unsafe_end": list(decimal_bounds(enc_lo, 17)),
               "float_candidate": repr(cand), "cut_points": COUPLED_CUT_POINTS,
               "notes": list(notes or []) + tried},
    )


def calibrate_sensitivity_vector(shape: object, epsilon: object, delta: object, sensitivity: object, *,
                                 rtol: object = None, method: str | None = None):
    """Certified calibration of GGM(p) for a sensitivity vector by the engine that certifies it best.

    ``method`` ``"product-loss-engine"`` (:func:`calibrate_vector`) or ``"quantile-coupling"``
    (:func:`calibrate_vector_coupled`) forces one; ``None`` chooses: the quantile coupling first (exact
    integers, any delta down to ~1e-30, and measured 3-10x faster than the product engine at d = 2 and
    d = 5 for a bracket of the same width, docs/ggm.md), the product engine as the fallback where the
    coupled bracket is not certified or too wide and delta >= :data:`PRODUCT_DELTA_FLOOR`.  The
    certificate's ``method`` names the engine; each is re-proven by ``verify`` on its own lemma.
    An explicit ``rtol`` must be met by the certified width (else :class:`UndecidedError`).
    """
    from fractions import Fraction as _F

    from certdp.numbers import InputError

    if method not in (None, "product-loss-engine", "quantile-coupling"):
        raise InputError("method", f"a sensitivity vector is calibrated by product-loss-engine or quantile-coupling, "
                                   f"not {method}")
    tol = None if rtol is None else parse_positive(rtol, "rtol")

    def product():
        cert = calibrate_vector(shape, epsilon, delta, sensitivity)
        lo, hi = (_F(x) for x in cert.interval)
        if tol is not None and cert.method == "product-loss-engine" and (hi - lo) / hi > tol:
            raise UndecidedError(f"vector calibration (product engine): the certified bracket [{lo}, {hi}] has "
                                 f"relative width {float((hi - lo) / hi):.3g} > rtol {exact_str(tol)}")
        return cert

    if method == "product-loss-engine":
        return product()
    if method == "quantile-coupling":
        return calibrate_vector_coupled(shape, epsilon, delta, sensitivity, rtol=tol)
    try:
        return calibrate_vector_coupled(shape, epsilon, delta, sensitivity, rtol=tol)
    except UndecidedError as coupled_failure:
        if parse_probability(delta, "delta") < PRODUCT_DELTA_FLOOR:
            raise
        try:
            return product()
        except UndecidedError as product_failure:
            raise UndecidedError(f"{coupled_failure}; {product_failure}") from None


#: default certified gap on log L_m for vectors (the 1-D default is 1e-4): the coupling bound's
#: first-order p-interval loss and the product engine's bracket at the upper end set the scale.
VECTOR_TOLERANCE = "0.02"


def vector_shape_search(epsilon: object, delta: object, sensitivity: object, *, moment: int = 2,
                        p_max: float = 4.0, evaluations: int = 14, tolerance: object = VECTOR_TOLERANCE,
                        cells: int = 1000, loss_step: float | None = None, budget_seconds: float = 300.0,
                        progress=None, trace: list | None = None) -> dict:
    """Certified shape choice for GGM with a sensitivity VECTOR: branch and bound on p-intervals.

    Guarantee.  With F(p) = m log b(p) + log M_m(p) (b(p) the minimal (eps, delta)-feasible scale
    for the vector), the result's ``objective_bounds`` [L*, U*] satisfy
    L* <= min_{p in [1, p_max] u {inf}} F(p) <= U*, with ``certified_gap`` = U* - L* <= tolerance,
    and GGM(p-hat, scale) is (eps, delta)-DP with log E|X_i|^m <= U*.

    * U*: certified safe scales at points, at the float seed p-hat (a float64 golden-section search
      of a float model, which only says where to look) and p = 1, 2, inf: :func:`calibrate_vector`
      (product engine; closed forms for p = 2, inf) for d <= 2, :func:`coupled_point_scale` (the
      coupled lower / upper bounds, exact integers) for d >= 3 and where the product engine cannot
      certify (delta below ~1e-9);
    * lower bounds on intervals I: :class:`_CoupledIntervalBounds` (projection lemma, App. D.2, and
      the quantile-coupling lemma of :mod:`certdp.engines.quantile_coupling`); p = inf:
      b(inf; Delta) >= max_i Delta_i / (2 delta) (projection, 1-D closed form);
    * best-first branch and bound: intervals with L_I > U* are pruned (seed 004 Sec. 4.4), the
      others bisected until U* - min L_I <= tolerance.  No monotonicity of b(p) is assumed.

    A search that does not reach the tolerance within ``budget_seconds`` raises
    :class:`UndecidedError` naming the gap it reached.  Returns a JSON-able dict
    (``kind = "shape-search-vector"``).
    """
    import heapq
    import time

    from certdp.engines.product_loss import float_product_scale
    from certdp.mechanisms.generalized_gaussian import moment_factor, parse_sensitivity_vector
    from certdp.numbers import InputError
    from certdp.workflows.ggm_shape_search import _initial_breakpoints

    t0 = time.perf_counter()
    eps = parse_positive(epsilon, "epsilon")
    dlt = parse_probability(delta, "delta")
    vec = parse_sensitivity_vector(sensitivity)
    eta = parse_positive(tolerance, "tolerance")
    if not isinstance(moment, int) or moment <= 0:
        raise InputError("moment", "must be a positive integer")
    pmax = Fraction(str(p_max))
    if pmax <= 1:
        raise InputError("p_max", "must be > 1")
    active_q = [q for q in vec if q != 0]
    if not active_q:
        raise InputError("sensitivity", "needs a non-zero entry")
    active = [float(q) for q in active_q]
    ef, df = float(eps), float(dlt)
    if loss_step is None:
        # the coupled bound loses ~d h to the loss grid; the exact products grow like 1/h: coarser
        # grids for more coordinates (2^-10 at d = 5 costs ~0.002 on F, halves the time per bound)
        loss_step = 2.0**-12 if len(active_q) <= 2 else (2.0**-11 if len(active_q) <= 4 else 2.0**-10)

    # float seed (where to look; NOT a decision: the branch and bound below covers all of
    # [1, p_max] u {inf}): golden section on the float model objective (1-D float scale x the ratio
    # model of :class:`_CoupledIntervalBounds`, its vector solves are the nodes the branch and
    # bound reuses), then one vector float solve at the model's minimiser added as a node and the
    # golden section repeated; [1, min(p_max, 4)] (large p makes the float engine slow).
    bounds = _CoupledIntervalBounds(eps, dlt, active_q, moment, cells=cells, loss_step=loss_step)

    def model_objective(p: float) -> float:
        est = bounds.log_b_model(Fraction(p))
        if est is None:
            return math.inf
        return moment * est[0] + math.lgamma((moment + 1) / p) - math.lgamma(1 / p)

    def golden(fn, lo: float, hi: float, n: int) -> float:
        g = (math.sqrt(5) - 1) / 2
        a, c = lo, hi
        x1, x2 = c - g * (c - a), a + g * (c - a)
        f1, f2 = fn(x1), fn(x2)
        for _ in range(max(n - 2, 0)):
            if f1 <= f2:
                c, x2, f2 = x2, x1, f1
                x1 = c - g * (c - a)
                f1 = fn(x1)
            else:
                a, x1, f1 = x1, x2, f2
                x2 = a + g * (c - a)
                f2 = fn(x2)
        return x1 if f1 <= f2 else x2

    seed_hi = min(float(pmax), 4.0)
    p_model = golden(model_objective, 1.0, seed_hi, max(evaluations, 2) + 10)
    for _ in range(2):
        q = float(Fraction(f"{p_model:.4g}"))
        if any(abs(q - x) < 5e-3 for x in bounds.log_ratio):
            break
        bounds.add_model_node(q, float_product_scale(q, ef, df, active, polish=False, coarse_dt=2.0**-7))
        p_model = golden(model_objective, 1.0, seed_hi, max(evaluations, 2) + 10)
    p_seed = Fraction(f"{p_model:.4g}")

    def certified(shape):
        # the product engine's cost grows fast with d: finer brackets only for d <= 2; for d >= 3 the
        # coupled point bracket (exact integers, loss grid 2^-12) is tighter and faster (d = 5:
        # 0.7 % wide against ~1.6 % for the product engine at grid 2^-11), the product engine the fallback
        grid, rtol = (VECTOR_GRID_STEP, 5e-4) if len(active_q) <= 2 else (2.0**-11, 2e-3)
        if len(active_q) >= 3 and shape not in ("2", "inf"):
            est = bounds.log_b_model(Fraction(shape))
            if est is not None:
                try:
                    cert = coupled_point_scale(Fraction(shape), eps, dlt, active_q, math.exp(est[0]), cells=cells)
                except UndecidedError:
                    cert = None
                if cert is not None and Fraction(cert.interval[1]) <= Fraction(cert.interval[0]) * Fraction(101, 100):
                    lo, hi = (Fraction(x) for x in cert.interval)
                    with working_precision(128):
                        mf = moment_factor(arb_of(shape), moment)
                        return cert, mf * arb_of(lo) ** moment, mf * arb_of(hi) ** moment
                coupled = cert  # wider than 1 % (e.g. p near 1): also ask the product engine, keep the tighter
            else:
                coupled = None
        else:
            coupled = None
        try:
            cert = calibrate_vector(shape, eps, dlt, ",".join(exact_str(q) for q in vec), grid_step=grid,
                                    rtol=rtol)
        except UndecidedError:
            # the product engine's float64 error terms are absolute (~1e-11): below delta ~1e-9 it
            # cannot certify; the coupled lower / upper bounds are exact (integers + Arb)
            if shape in ("2", "inf") or len(active_q) == 1:
                raise
            if coupled is not None:
                cert = coupled
                coupled = None
                lo, hi = (Fraction(x) for x in cert.interval)
                with working_precision(128):
                    mf = moment_factor(arb_of(shape), moment)
                    return cert, mf * arb_of(lo) ** moment, mf * arb_of(hi) ** moment
            est = bounds.log_b_model(Fraction(shape))
            if est is None:
                raise
            cert = coupled_point_scale(Fraction(shape), eps, dlt, active_q, math.exp(est[0]), cells=cells,
                                       loss_step=loss_step)
        if coupled is not None and Fraction(coupled.interval[1]) < Fraction(cert.interval[1]):
            cert = coupled  # the smaller certified safe scale
        lo, hi = (Fraction(x) for x in cert.interval)
        with working_precision(128):
            mf = moment_factor(arb_of(shape), moment) if shape != "inf" else arb(1) / (moment + 1)
            upper = mf * arb_of(hi) ** moment
            lower = mf * arb_of(lo) ** moment
        return cert, lower, upper

    candidates = {}
    sel_cert, _, sel_upper = certified(p_seed)
    candidates[exact_str(p_seed)] = (sel_cert, sel_upper)
    benchmarks = {}
    best_lower = None
    inf_unsafe = None
    for name in ("1", "2", "inf"):
        cert, lower, upper = certified(name)
        candidates[name] = (cert, upper)
        if name == "inf":
            inf_unsafe = Fraction(cert.interval[0])  # unsafe end of the certified bracket (b(inf) > it)
        benchmarks[name] = {"scale_interval": [str(x) for x in cert.interval], "safe_scale": str(cert.value),
                            f"L{moment}_bounds": list(decimal_bounds(lower.union(upper), 8)),
                            "method": cert.method}
        best_lower = lower if best_lower is None or lower < best_lower else best_lower
    best_name = min(candidates, key=lambda k: float(candidates[k][1].upper().mid()))
    sel_cert, sel_upper = candidates[best_name]
    with working_precision(128):
        u_star_arb = arb(sel_upper.log().upper())
    u_star = math.nextafter(float(u_star_arb.mid()), math.inf)

    # ---------------------------------------------------------------- certified branch and bound
    # p = inf: b(inf; Delta) >= max_i Delta_i / (2 delta) (projection, exact 1-D closed form) and
    # b(inf; Delta) > b_lo for the unsafe end b_lo of the vector's own bracket (closed form
    # 1 - prod_i (1 - Delta_i / 2b)_+, App. B.4; much better for balanced vectors): the larger bound
    inf_evidence = ("projection", max(active_q) / (2 * dlt))
    if inf_unsafe is not None and inf_unsafe > inf_evidence[1]:
        inf_evidence = ("closed-form", inf_unsafe)
    l_inf = infinity_objective_lower(inf_evidence[1], moment)
    eta_f = float(eta)
    heap: list[tuple[float, Fraction, Fraction]] = []
    pruned = {"projection": 0, "coupling": 0}
    skipped = {"coupling": 0}
    intervals = 0

    leaves: dict[tuple[Fraction, Fraction], tuple[float, str]] = {}  # final partition: bound, lemma

    def push(lo_p: Fraction, hi_p: Fraction, parent: tuple[Fraction, Fraction] | None = None) -> None:
        nonlocal intervals
        intervals += 1
        low = bounds.projection_bound(lo_p, hi_p)
        leaves[(lo_p, hi_p)] = (low, "projection")
        if low > u_star:
            pruned["projection"] += 1
            return
        if hi_p - lo_p > Fraction(1, 128) and bounds.predicted_coupled(lo_p, hi_p) < u_star - eta_f:
            # the coupled bound would not reach U* - eta: the interval gets split anyway (a float
            # guess, so at worst an extra split); it keeps the projection bound, which is valid.
            # Narrow intervals are always computed: a biased float model cannot split one forever
            skipped["coupling"] += 1
            heapq.heappush(heap, (low, lo_p, hi_p))
            return
        low_c, _b = bounds.coupled_bound(lo_p, hi_p, goal=u_star, floor=u_star - eta_f,
                                         hint=bounds.offsets.get(parent) if parent else None)
        if trace is not None:
            trace.append((float(lo_p), float(hi_p), low, low_c, round(time.perf_counter() - t0, 2)))
        if low_c > low:
            low = low_c
            leaves[(lo_p, hi_p)] = (low, "coupling")
        if low > u_star:
            pruned["coupling"] += 1
            return
        heapq.heappush(heap, (low, lo_p, hi_p))

    pts = _initial_breakpoints(pmax)
    for lo_p, hi_p in zip(pts[:-1], pts[1:]):
        push(lo_p, hi_p)
    gap = math.inf
    history = []
    while True:
        lower_star = min([l_inf] + ([heap[0][0]] if heap else []))
        gap = u_star - lower_star
        history.append((round(time.perf_counter() - t0, 2), gap))
        if progress is not None:
            progress(gap, eta_f)
        if gap <= eta_f or not heap:
            break
        if time.perf_counter() - t0 > budget_seconds:
            raise UndecidedError(f"vector shape search: budget of {budget_seconds:g} s spent at certified gap "
                                 f"{gap:.3g} (tolerance {eta_f:g}); best p = {best_name}, "
                                 f"min log L_{moment} in [{lower_star:.6g}, {u_star:.6g}]")
        low, lo_p, hi_p = heapq.heappop(heap)
        del leaves[(lo_p, hi_p)]
        if hi_p - lo_p < Fraction(1, 2**30):
            raise UndecidedError(f"vector shape search: interval [{float(lo_p)}, {float(hi_p)}] cannot be resolved "
                                 f"(certified gap {gap:.3g})")
        mid = dyadic((lo_p + hi_p) / 2, 24)
        if not (lo_p < mid < hi_p):
            mid = (lo_p + hi_p) / 2
        push(lo_p, mid, (lo_p, hi_p))
        push(mid, hi_p, (lo_p, hi_p))

    with working_precision(128):
        gain = 1 - sel_upper / best_lower
        lo_s = decimal_bounds(arb(lower_star), 12)[0]
        hi_s = decimal_bounds(u_star_arb, 12)[1]
    shape = best_name
    from certdp.workflows import ggm_vector_certificate

    leaf_list = []
    for (lo_p, hi_p), (_low, lemma) in sorted(leaves.items()):
        entry: dict = {"interval": [exact_str(lo_p), exact_str(hi_p)], "lemma": lemma}
        if lemma == "projection":
            entry["scale"] = exact_str(bounds.projection_scale[(lo_p, hi_p)])
        else:
            b_lo, beta, p_part, b_part, bins, mass_bits = bounds.coupled_record[(lo_p, hi_p)]
            entry.update(scale=exact_str(b_lo), log_slope=exact_str(beta),
                         partition={"shape": repr(float(p_part)), "scale": repr(float(b_part)), "bins": bins},
                         mass_bits=mass_bits, loss_step=exact_str(Fraction(loss_step)))
        leaf_list.append(entry)
    certificate = ggm_vector_certificate.build(
        eps=eps, dlt=dlt, vec=vec, moment=moment, pmax=pmax, eta=eta, shape=shape, scale_certificate=sel_cert,
        objective_bounds=(lo_s, hi_s), leaves=leaf_list,
        at_infinity={"lemma": inf_evidence[0], "scale": exact_str(inf_evidence[1])},
        timing_seconds=round(time.perf_counter() - t0, 3))
    return {
        "kind": "shape-search-vector",
        "mechanism": "ggm",
        "inputs": {"epsilon": exact_str(eps), "delta": exact_str(dlt),
                   "sensitivity": ",".join(exact_str(q) for q in vec), "moment": str(moment),
                   "p_max": exact_str(pmax), "tolerance": exact_str(eta)},
        "shape": shape,
        "shape_certified_optimal": True,
        "objective": f"log L_{moment}(p, b(p)) = {moment} log b(p) + log M_{moment}(p)",
        "objective_bounds": [lo_s, hi_s],
        "certified_gap": gap,
        "shape_seed": exact_str(p_seed),
        "shape_search": (f"certified branch and bound over [1, {exact_str(pmax)}] u {{inf}} (quantile coupling + "
                         f"projection lower bounds; seed by float64 golden section of the float model on "
                         f"[1, {min(float(pmax), 4.0):g}])"),
        "scale_interval": [str(x) for x in sel_cert.interval],
        "scale": str(sel_cert.value),
        f"L{moment}_upper_per_coordinate": decimal_bounds(sel_upper, 8)[1],
        "benchmarks": benchmarks,
        "improvement_lower_percent": float(gain.lower().mid()) * 100 if gain.is_finite() else None,
        "intervals": intervals,
        "pruned": pruned,
        "coupling_skipped": skipped["coupling"],
        "coupled_evaluations": bounds.coupled_evaluations,
        "quantile_evaluations": bounds.quantile_evaluations,
        "history": history,
        "guarantee": (f"GGM(p = {shape}, b = {sel_cert.value}) is ({exact_str(eps)}, {exact_str(dlt)})-DP "
                      f"for the sensitivity vector ({', '.join(exact_str(q) for q in vec)}); min over p in "
                      f"[1, {exact_str(pmax)}] u {{inf}} of log L_{moment}(p, b(p)) lies in [{lo_s}, {hi_s}] "
                      f"(certified gap {gap:.3g}); its E|X_i|^{moment} is at least "
                      f"{float(gain.lower().mid()) * 100:.2f} % below the minimal E|X_i|^{moment} of p = 1, 2, inf"),
        "method": sel_cert.method,
        "lemma": ("seed 004 App. D.2 (projection), quantile coupling (certdp/engines/quantile_coupling.py), "
                  "App. B.6 (delta decreasing in b), Sec. 4.4 (pruning)"),
        "timing_seconds": round(time.perf_counter() - t0, 3),
        "certificate": certificate.to_dict(),
    }
