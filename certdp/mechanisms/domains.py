"""The supported domain of every mechanism, decided up front in microseconds.

Inputs outside a mechanism's domain are refused with an :class:`~certdp.numbers.InputError` that
names the parameter and states the supported range, *before* any computation: a run that could only
end in a long hang or an UNDECIDED at the end is never started. Inside the domain every computation
still has the CLI's ``--budget`` (an honest UNDECIDED when it runs out).

The bounds are measured, not theoretical: each is where the current engines still answer in seconds
on one core (see ``docs/domains.md``, which lists the same table, and
``benchmarks/issue20_examples.py``). Widening a bound is a one-line change here once an engine
handles more; the test ``tests/test_domains.py`` keeps this table and the docs in step.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Mapping

from certdp.numbers import InputError, exact_str, parse_exact

__all__ = ["Domain", "DOMAINS", "check_domain", "check_command", "domain_of", "domain_table"]


@dataclass(frozen=True)
class Domain:
    """Largest epsilon, smallest delta, largest dimension / component count a mechanism supports."""

    epsilon_max: Fraction
    delta_min: Fraction
    dimension_max: int | None = None
    components_max: int | None = None
    note: str = ""
    #: Further closed ranges ``name: (low, high)`` of fixed parameters (e.g. the SGG power).
    bounds: tuple[tuple[str, Fraction, Fraction], ...] = ()


_E = Fraction
DOMAINS: dict[str, Domain] = {
    # closed forms in Arb
    "gaussian": Domain(_E(10**6), _E(1, 10**100000), note="analytic Gaussian, closed form (Balle & Wang)"),
    "laplace": Domain(_E(10**6), _E(1, 10**100000), note="closed form"),
    "uniform": Domain(_E(10**6), _E(1, 10**100000), note="closed form"),
    "spherical-gaussian": Domain(_E(10**6), _E(1, 10**100000), dimension_max=10**9,
                                 note="1-D Gaussian with the l2 sensitivity"),
    # monotone privacy loss (1-D GGM): the loss root grows like eps^(1/(p-1))
    "ggm": Domain(_E(100), _E(1, 10**2000), note="root of the privacy-loss equation, incomplete gamma"),
    # radial engine (SGG family): adaptive binning; cost grows fast with eps, 1/delta and T
    "sgg": Domain(_E(50), _E(1, 10**300), dimension_max=10**4,
                  note="radial engine (seed 003 Lemma 4.1); lower epsilon cap for T-3 < alpha < T-1 (singular_epsilon_max)",
                  bounds=(("power", _E(1, 10), _E(100)),)),
    "l2-laplace": Domain(_E(50), _E(1, 10**300), dimension_max=10**4,
                         note="radial engine, closed-form threshold (docs/coverage.md: every cell <= ~10 s)"),
    "r1smg": Domain(_E(50), _E(1, 10**300), dimension_max=10**4,
                    note="radial engine; epsilon <= 20 (T - 1) for T < 4 (singular_epsilon_max)"),
    # Gaussian mixtures: exact engine (Descartes root isolation + branch and bound over the shift)
    "quasi-gaussian": Domain(_E(50), _E(1, 10**300), note="exact mixture engine"),
    "multi-gaussian": Domain(_E(50), _E(1, 10**300), components_max=50, note="exact mixture engine"),
}
_ALIASES = {"classic-gaussian": "gaussian"}


def _range_text(d: Domain) -> str:
    return f"0 < epsilon <= {exact_str(d.epsilon_max)}, {exact_str(d.delta_min)} <= delta < 1"


#: GGM with a sensitivity VECTOR (>= 2 non-zero entries) and p not in {2, inf}: the vector engines' delta
#: floor.  The quantile coupling resolves tail masses to 2^-160 (~7e-49): measured certified at delta = 1e-40
#: for d = 2, 3, 5, every p in {1, 3/2, 4} and eps in {1, 10, 50} (docs/ggm.md "Vector calibration at tiny
#: delta"; eps = 50 at d = 5, p >= 3/2 exceeds 30 s), UNDECIDED at 1e-60 and 1e-300.  The product engine stops
#: near 1e-9.  p = 2 (the Gaussian closed form) and p = inf keep the ggm row.
VECTOR_DELTA_MIN = Fraction(1, 10**40)


def _ggm_vector_engine(shape: object, sensitivity: object) -> bool:
    """Is this GGM input calibrated by the vector engines (>= 2 active entries, p not 2 or inf)?"""
    from certdp.mechanisms.generalized_gaussian import parse_sensitivity_vector, parse_shape

    if sensitivity is None:
        return False
    try:
        vec = parse_sensitivity_vector(sensitivity)
        p = parse_shape(2 if shape is None else shape)
    except (InputError, ValueError, TypeError):
        return False  # the parse layer reports it
    return sum(1 for q in vec if q != 0) >= 2 and not isinstance(p, float) and p != 2


def domain_of(mechanism: str, *, dimension: object = None, alpha: object = None,
              power: object = None, shape: object = None, sensitivity: object = None) -> Domain | None:
    """The domain of ``mechanism`` for one shape: :data:`DOMAINS` narrowed by the shape-dependent caps.

    For ``sgg`` / ``r1smg`` the epsilon cap of a log-singular loss (:func:`singular_epsilon_max`) and
    the delta floor of a bounded loss (``alpha = T - 1``, ``p < 1``) apply; ``sgg`` with ``alpha = T - 1``
    and ``p`` in {1, 2} has the l2-Laplace domain (closed-form threshold). ``None`` for a mechanism
    without a table entry. Used by the up-front check and by the accountant (which asks the engine
    nothing outside it)."""
    domain = DOMAINS.get(_ALIASES.get(mechanism, mechanism))
    if domain is None:
        return None
    if mechanism == "sgg" and _closed_form_member(dimension, alpha, power):
        return DOMAINS["l2-laplace"]  # alpha = T - 1, p in {1, 2}: the radial engine's closed-form threshold
    if mechanism in ("ggm", "generalized-gaussian") and _ggm_vector_engine(shape, sensitivity):
        domain = replace(domain, delta_min=VECTOR_DELTA_MIN,
                         note="sensitivity vector: quantile coupling / product engine (VECTOR_DELTA_MIN)")
    if mechanism in ("sgg", "r1smg"):
        cap = singular_epsilon_max(dimension, 0 if mechanism == "r1smg" else alpha)
        if cap is not None and cap < domain.epsilon_max:
            domain = replace(domain, epsilon_max=cap)
    if mechanism == "sgg" and _bounded_loss_shape(dimension, alpha, power):
        domain = replace(domain, delta_min=BOUNDED_LOSS_DELTA_MIN)
    return domain


def check_domain(mechanism: str, *, epsilon: object = None, delta: object = None, dimension: object = None,
                 components: object = None, **fixed: Any) -> None:
    """Raise :class:`InputError` (naming the parameter, stating the range) if an input is outside the domain.

    ``epsilon`` / ``delta`` may each be one value or an iterable of values. Values must already be
    valid numbers (the parse layer checks that); unknown mechanisms are not checked here.
    """
    domain = domain_of(mechanism, dimension=dimension, alpha=fixed.get("alpha"), power=fixed.get("power"),
                       shape=fixed.get("shape"), sensitivity=fixed.get("sensitivity"))
    if domain is None:
        return
    for eps in _values(epsilon, "epsilon"):
        if _below(domain.epsilon_max, eps):
            raise InputError("epsilon", f"{exact_str(eps)} is outside the {_where(mechanism, domain)}")
    for d in _values(delta, "delta"):
        if d.numerator > 0 and _below(d, domain.delta_min):
            raise InputError("delta", f"{exact_str(d)} is outside the {_where(mechanism, domain)}")
    if dimension is not None and domain.dimension_max is not None:
        t = parse_exact(dimension, "dimension")
        if t > domain.dimension_max:
            raise InputError("dimension", f"{exact_str(t)} is above the supported maximum "
                                          f"{domain.dimension_max} for {mechanism} (see docs/domains.md)")
    for name, low, high in domain.bounds:
        if fixed.get(name) is not None:
            v = parse_exact(fixed[name], name)
            if not low <= v <= high:
                raise InputError(name, f"{exact_str(v)} is outside the supported range [{exact_str(low)}, "
                                       f"{exact_str(high)}] for {mechanism} (see docs/domains.md)")
    if mechanism == "sgg" and near_singular_shape(dimension, fixed.get("alpha")):
        raise InputError("alpha", f"{exact_str(parse_exact(fixed['alpha'], 'alpha'))} is within "
                                  f"{exact_str(2 * NEAR_SINGULAR_C1)} of T - 1 but below it: the nearly "
                                  f"regular log-singular loss (-{exact_str(NEAR_SINGULAR_C1)} < c1 < 0) is outside "
                                  f"the supported domain of sgg (use alpha = T - 1 or alpha <= T - 1 - "
                                  f"{exact_str(2 * NEAR_SINGULAR_C1)}); see docs/domains.md")
    if components is not None and domain.components_max is not None:
        k = parse_exact(components, "components")
        if k > domain.components_max:
            raise InputError("components", f"{exact_str(k)} is above the supported maximum "
                                           f"{domain.components_max} for {mechanism} (see docs/domains.md)")


#: Before issue 17's large-eps round: T = 2 with alpha < 1 stopped at eps = 3, every other SGG at eps = 10.
#: Kept as floors of :func:`singular_epsilon_max` (those claims stand; they were measured where stated in
#: docs/coverage.md).
PLANAR_SINGULAR_EPSILON_MAX = Fraction(3)
SINGULAR_EPSILON_FLOOR = Fraction(10)
#: Largest epsilon for a log-singular loss, per unit of |c1| (c1 = (alpha + 1 - T)/2): eps <= 40 |c1| (was 20 |c1|
#: before the `layer2` round; docs/coverage.md "The layer at eps = 20 and 50").
SINGULAR_EPSILON_PER_C1 = Fraction(40)


#: alpha just below T - 1 (-NEAR_SINGULAR_C1 < c1 < 0): the log singularity's coefficient is tiny and the radial
#: engine times out even at eps = 1 for p = 2, 8 (docs/coverage.md "Why the eps cap ... stays"); refused.
NEAR_SINGULAR_C1 = Fraction(1, 20)


def near_singular_shape(dimension: object, alpha: object) -> bool:
    """``-NEAR_SINGULAR_C1 < c1 < 0`` with ``c1 = (alpha + 1 - T)/2`` (False when not parseable)."""
    if dimension is None or alpha is None:
        return False
    try:
        t, a = parse_exact(dimension, "x"), parse_exact(alpha, "x")
    except (InputError, TypeError):
        return False
    return -NEAR_SINGULAR_C1 < (a + 1 - t) / 2 < 0


#: alpha = T - 1 with p < 1: the loss is bounded by beta s^p (pure DP above it) and a tiny delta is the mass
#: of a neighbourhood of x = -mu (r = s, w = -1, the cusp of |x + mu|^p).  Until issue 17's `zs` round the
#: engine stalled there below delta = 1e-30 (a sliver around z_s below the double spacing); with the
#: factored end distances, Arb breakpoints and end-distance Taylor models (docs/sgg.md items 16-20) the
#: coverage cells T = 2, 3, 10 with p = 1/2 at eps 0.01 ... 50, delta 1e-30, 1e-100, 1e-300 are certified in
#: <= 18 s (loaded machine), T = 2, 3 with p = 1/4 and T = 3, 10 with p = 3/4 at eps 1, 50 in <= 11 s
#: (docs/coverage.md), so the floor is the SGG one.  Not measured: p < 1/4.
BOUNDED_LOSS_DELTA_MIN = Fraction(1, 10**300)


def _bounded_loss_shape(dimension: object, alpha: object, power: object) -> bool:
    """SGG with alpha = T - 1 and p < 1 (subadditive |x|^p: bounded loss, pure DP at eps >= beta s^p)."""
    try:
        t, a, p = (parse_exact(v, "x") for v in (dimension, alpha, power))
    except (InputError, TypeError):
        return False
    return a == t - 1 and p < 1


def singular_epsilon_max(dimension: object, alpha: object) -> Fraction | None:
    """Epsilon cap of the radial engine when the privacy loss has a log singularity (``-1 < ... c1 < 0``).

    For ``alpha < T - 1`` the loss ``Phi = c1 ln(q / r^2) + ...`` (``c1 = (alpha + 1 - T)/2 < 0``) is
    singular at ``r = s, w = -1``; at large eps the B side of delta is carried by a layer
    ``|r/s - 1| <~ e^(-eps / (2 |c1|))`` around ``r = s``.  Measured (issue 17, docs/coverage.md): with
    ``c1 = -1/2`` (r1smg T = 2, sgg T = 2 alpha = 0, sgg T = 3 alpha = 1) every cell of the eps = 20 column
    (delta 1e-300 ... 0.1) is certified since the `layer2` round (layer 2e-9 wide; thin-layer precision
    boost, layer breakpoints and splits in a local coordinate, scale-free rate candidate); eps = 50 is
    certified in most cells but not within the time goal on the loaded machine.  The cap keeps the layer at
    least as wide as at that measured point: ``eps <= 40 |c1|`` (so 50 from ``c1 <= -5/4``, e.g. R1SMG at
    T >= 4, also measured at eps = 50), but never below the earlier floors (3 for T = 2, 10 otherwise).
    ``None``: no singularity (``alpha = T - 1``) or not parseable (the parse layer reports it).
    """
    try:
        t, a = parse_exact(dimension, "x"), parse_exact(alpha, "x")
    except (InputError, TypeError):
        return None
    c1 = (a + 1 - t) / 2
    if c1 >= 0:
        return None
    floor = PLANAR_SINGULAR_EPSILON_MAX if t == 2 and a < 1 else SINGULAR_EPSILON_FLOOR
    return max(floor, SINGULAR_EPSILON_PER_C1 * -c1)


def _where(mechanism: str, domain: Domain) -> str:
    return f"supported domain of {mechanism}: {_range_text(domain)}; see docs/domains.md"


def _below(q: Fraction, low: Fraction) -> bool:
    """``q < low`` for rationals, exactly; for positive ones the bit lengths settle most cases
    without multiplying by a huge denominator (``low`` may be 1e-100000)."""
    if q.numerator <= 0 or low.numerator <= 0:
        return q < low
    # 2^(n-1) <= integer < 2^n, so log2 q lies in (nq - dq - 1, nq - dq + 1), likewise for low
    q_log2 = q.numerator.bit_length() - q.denominator.bit_length()
    low_log2 = low.numerator.bit_length() - low.denominator.bit_length()
    if q_log2 - 1 >= low_log2 + 1:
        return False
    if q_log2 + 1 <= low_log2 - 1:
        return True
    return q < low


def _closed_form_member(dimension: object, alpha: object, power: object) -> bool:
    """SGG with alpha = T - 1 and p in {1, 2} (l2-Laplace, the Gaussian member): the closed-form threshold."""
    try:
        t, a, p = (parse_exact(v, "x") for v in (dimension, alpha, power))
    except (InputError, TypeError):
        return False
    return a == t - 1 and p in (1, 2)


def _values(value: object, name: str) -> list[Fraction]:
    if value is None:
        return []
    if type(value) in (float, int, Fraction):  # the common scalar: no string splitting
        return [parse_exact(value, name)]
    if isinstance(value, str):
        items = [v for v in value.replace(":", ",").split(",") if v.strip()]
        if ":" in value and len(items) == 3:  # a START:STOP:N grid: the ends matter
            items = items[:2]
        out = []
        for item in items:
            try:
                out.append(parse_exact(item, name))
            except InputError:
                pass  # the parse layer reports malformed values; this check only bounds valid ones
        return out
    if isinstance(value, (list, tuple, set)):
        return [q for v in value for q in _values(v, name)]
    return [parse_exact(value, name)]


def check_command(path: str, params: Mapping[str, Any]) -> None:
    """Domain check for the CLI command ``path`` (e.g. ``"calibrate gaussian"``) with its parsed options."""
    words = path.split()
    if len(words) != 2:
        return
    group, name = words
    if group not in ("calibrate", "profile", "audit", "shape", "optimize"):
        return
    check_domain(name, epsilon=params.get("epsilon"), delta=params.get("delta"),
                 dimension=params.get("dimension"),
                 components=params.get("components", params.get("max_components")),
                 power=params.get("power"), alpha=params.get("alpha"))


def domain_table() -> list[dict[str, str]]:
    """The table of :data:`DOMAINS` as strings (docs and ``tests/test_domains.py``)."""
    return [{"mechanism": k, "epsilon_max": exact_str(d.epsilon_max), "delta_min": exact_str(d.delta_min),
             "dimension_max": "-" if d.dimension_max is None else str(d.dimension_max),
             "components_max": "-" if d.components_max is None else str(d.components_max), "engine": d.note}
            for k, d in DOMAINS.items()]
