"""The ``shape-search`` certificate of the certified GGM shape search for a sensitivity vector.

:func:`certdp.workflows.ggm_vector.vector_shape_search` proves, for F(p) = m log b(p) + log M_m(p)
(b(p) the minimal (eps, delta)-feasible scale of GGM(p) for the vector Delta),

    L* <= min_{p in [1, p_max] u {inf}} F(p) <= U*,   U* - L* <= tolerance,

and that GGM(p-hat, b) is (eps, delta)-DP with m log b + log M_m(p-hat) <= U*.  The certificate
(kind ``shape-search``, claim ``objective-bounds``) records the evidence, and :func:`check` (called
by ``certdp verify``) re-proves every part of it from the exact inputs:

* ``extra.scale_certificate``: the calibration certificate of the selected shape (product-loss
  engine, or the exact 1-D / closed-form calibration); verified on its own (fresh recomputation),
  and U* >= m log(its safe scale) + log M_m(p-hat) in Arb -- the upper half;
* ``extra.leaves``: a partition of [1, p_max] into intervals, each with the scale b_lo it proves
  unsafe for every p of the interval and the lemma that proves it -- ``projection`` (seed 004
  App. D.2 + Thm 3.2: the 1-D profile of max_i Delta_i on the p-ball, Arb) or ``coupling``
  (:mod:`certdp.engines.quantile_coupling`, at the recorded log-slope, partition and mass
  resolution: the partition is rebuilt from its recorded float inputs; any partition is valid).
  Delta decreasing in b (App. B.6) gives b(p) > b_lo on the interval, so
  inf_I F >= m log b_lo + inf_I [m beta (p - p_mid) + log M_m(p)] (coupling, sloped scale) or
  m log b_lo + inf_I log M_m (projection); each must be >= L*;
* ``extra.at_infinity``: b(inf) >= b_lo by the projection (b_lo <= max_i Delta_i / (2 delta)) or
  by the exact closed form (1 - prod_i (1 - Delta_i / (2 b_lo))_+ > delta, rational arithmetic);
  m log b_lo - log(m + 1) >= L*;
* U* - L* <= tolerance (exact decimals), and the guarantee text regenerated.

A recorded piece of evidence that does not prove its part makes the certificate INVALID (the
record is false or forged); only the recomputation's own failure to decide is UNDECIDED.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

from certdp.certificate import Certificate, CertificateFormatError, number_text
from certdp.numbers import exact_str

__all__ = ["SHAPE_METHOD", "SHAPE_LEMMA", "SHAPE_KIND", "SHAPE_CLAIM", "build", "check", "MAX_LEAVES"]

SHAPE_KIND = "shape-search"
SHAPE_CLAIM = "objective-bounds"
SHAPE_METHOD = "quantile-coupling-branch-and-bound"
SHAPE_LEMMA = ("branch and bound over p-intervals (seed 004 Sec. 4.4): lower bounds by the projection to one "
               "coordinate (App. D.2, Thm 3.2) and the quantile coupling (certdp/engines/quantile_coupling.py), "
               "delta decreasing in b (App. B.6); p = inf by App. B.4; the upper bound by the selected shape's "
               "calibration certificate")
MAX_LEAVES = 4096
MAX_BINS = 20000


class _Fail(Exception):
    pass


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise _Fail(message)


def build(*, eps: Fraction, dlt: Fraction, vec: tuple[Fraction, ...], moment: int, pmax: Fraction,
          eta: Fraction, shape: str, scale_certificate: Any, objective_bounds: tuple[str, str],
          leaves: list[dict[str, Any]], at_infinity: dict[str, str], timing_seconds: float,
          notes: list[str] | None = None) -> Certificate:
    """The shape-search certificate (see the module docstring); ``leaves`` sorted by interval."""
    from certdp.certificate import _canonical_decimal

    sens = ",".join(exact_str(q) for q in vec)
    value = None if shape == "inf" else _canonical_decimal(Fraction(shape))
    return Certificate._build(
        kind=SHAPE_KIND, claim=SHAPE_CLAIM, mechanism="ggm", parameters={"sensitivity": sens},
        inputs={"epsilon": eps, "delta": dlt, "moment": moment, "p_max": pmax, "tolerance": eta},
        method=SHAPE_METHOD, lemma=SHAPE_LEMMA, timing_seconds=timing_seconds, parameter="shape", value=value,
        extra={"shape": shape, "objective_bounds": list(objective_bounds),
               **({"scale_certificate": scale_certificate.to_dict()} if isinstance(scale_certificate, Certificate)
                  else {"scale_evidence": scale_certificate.evidence}),
               "leaves": leaves, "at_infinity": at_infinity, "notes": notes},
    )


def check(cert: Certificate, say: Callable[[str], None], invalid: type[Exception],
          undecided: type[Exception]) -> None:
    """Re-prove a shape-search certificate (called by :func:`certdp.workflows.verify.verify`)."""
    try:
        _check(cert, say, undecided)
    except _Fail as exc:
        raise invalid(str(exc)) from None
    except (CertificateFormatError, ValueError, TypeError, KeyError) as exc:
        raise invalid(f"malformed shape-search evidence: {exc}") from None


def _int_field(d: dict, key: str, lo: int, hi: int, where: str) -> int:
    v = d.get(key)
    _require(type(v) is int and lo <= v <= hi, f"{where}.{key} must be an integer in [{lo}, {hi}]")
    return v


def _float_field(d: dict, key: str, where: str) -> float:
    v = d.get(key)
    _require(isinstance(v, str) and len(v) < 40, f"{where}.{key} must be a float's repr")
    x = float(v)
    _require(math.isfinite(x) and x > 0 and repr(x) == v, f"{where}.{key} must be a positive float's repr")
    return x


def _check(cert: Certificate, say: Callable[[str], None], undecided: type[Exception]) -> None:
    from flint import arb

    from certdp.engines.quantile_coupling import QuantileBounds, U_BITS, coupled_delta_lower, u_partition
    from certdp.mechanisms.generalized_gaussian import log_moment_factor, parse_sensitivity_vector
    from certdp.numbers import arb_of, working_precision
    from certdp.workflows.ggm_vector import infinity_objective_lower, interval_objective_lower, log_moment_lower

    _require(cert.mechanism == "ggm", "a shape-search certificate's mechanism is 'ggm'")
    _require(cert.claim == SHAPE_CLAIM, f"a shape-search certificate claims {SHAPE_CLAIM!r}")
    _require(cert.method == SHAPE_METHOD, f"unknown shape-search method {cert.method!r}")
    _require(cert.lemma == SHAPE_LEMMA, "the lemma text is not the method's")
    _require(cert.parameter == "shape" and cert.interval is None and cert.safe_side is None and
             cert.verdict is None and cert.condition is None and cert.delta_enclosure is None,
             "a shape-search certificate has parameter 'shape' and no interval, safe side, verdict, condition "
             "or enclosure")
    _require(set(cert.parameters) == {"sensitivity"}, "a shape-search certificate records parameters.sensitivity only")
    vec = parse_sensitivity_vector(cert.parameters["sensitivity"])
    _require(",".join(exact_str(q) for q in vec) == cert.parameters["sensitivity"] and len(vec) >= 2,
             "parameters.sensitivity is not a canonical vector")
    active = [q for q in vec if q != 0]
    _require(len(active) >= 1, "the sensitivity vector needs a non-zero entry")
    _require(set(cert.inputs) == {"epsilon", "delta", "moment", "p_max", "tolerance"},
             "inputs must be exactly epsilon, delta, moment, p_max, tolerance")
    num = {k: number_text(v, f"inputs.{k}") for k, v in cert.inputs.items()}
    for k, v in num.items():
        _require(exact_str(v) == cert.inputs[k], f"inputs.{k} is not in canonical form")
    eps, dlt, pmax, eta = num["epsilon"], num["delta"], num["p_max"], num["tolerance"]
    _require(eps > 0 and 0 < dlt < 1 and pmax > 1 and eta > 0, "inputs out of domain")
    _require(num["moment"].denominator == 1 and 1 <= num["moment"] <= 100, "inputs.moment must be an integer in [1, 100]")
    m = int(num["moment"])
    allowed = {"shape", "objective_bounds", "scale_certificate", "scale_evidence", "leaves", "at_infinity", "notes"}
    unknown = sorted(set(cert.extra) - allowed)
    _require(not unknown, f"extra field(s) {', '.join(unknown)} are not part of a shape-search certificate")
    if "notes" in cert.extra:
        _require(isinstance(cert.extra["notes"], list), "extra.notes must be a list")
    shape = cert.extra.get("shape")
    _require(isinstance(shape, str), "extra.shape is missing")
    if shape == "inf":
        _require(cert.value is None, "value must be absent for the shape inf")
    else:
        p_hat = number_text(shape, "extra.shape")
        _require(exact_str(p_hat) == shape and 1 <= p_hat <= pmax, "extra.shape must be a canonical p in [1, p_max]")
        _require(cert.value is not None and Fraction(cert.value) == p_hat, "value must equal extra.shape")
    _require(cert.guarantee == cert.statement(), "the guarantee text does not match the certified content")
    bounds = cert.extra.get("objective_bounds")
    _require(isinstance(bounds, list) and len(bounds) == 2, "extra.objective_bounds must be [L*, U*]")
    l_star, u_star = (number_text(x, "extra.objective_bounds") for x in bounds)
    _require(l_star <= u_star, "extra.objective_bounds is reversed")
    _require(u_star - l_star <= eta, f"the gap U* - L* = {float(u_star - l_star):.4g} exceeds the tolerance {exact_str(eta)}")

    # ------------------------------------------------------------ upper half: the selected shape's scale
    from certdp.workflows.verify import verify

    _require(("scale_certificate" in cert.extra) != ("scale_evidence" in cert.extra),
             "exactly one of extra.scale_certificate / extra.scale_evidence is needed")
    if "scale_certificate" in cert.extra:
        scale_data = cert.extra.get("scale_certificate")
        _require(isinstance(scale_data, dict), "extra.scale_certificate must be a certificate")
        scale_cert = Certificate.from_dict(scale_data)
        _require(scale_cert.kind == "calibration" and scale_cert.mechanism == "ggm" and
                 scale_cert.safe_side == "upper", "extra.scale_certificate must be a ggm scale calibration")
        _require(scale_cert.parameters.get("shape") == shape, "the scale certificate is for another shape")
        _require(scale_cert.parameters.get("sensitivity") == cert.parameters["sensitivity"],
                 "the scale certificate is for another sensitivity")
        _require(scale_cert.inputs.get("epsilon") == cert.inputs["epsilon"] and
                 scale_cert.inputs.get("delta") == cert.inputs["delta"],
                 "the scale certificate is for another (eps, delta)")
        result = verify(scale_cert)
        if result.status == "UNDECIDED":
            raise undecided("the selected shape's scale certificate could not be re-proven: "
                            + "; ".join(result.reasons))
        _require(result.status == "VALID",
                 "the selected shape's scale certificate is invalid: " + "; ".join(result.reasons))
        b_safe = Fraction(scale_cert.value)
        how = "its certificate verifies"
    else:
        ev = cert.extra["scale_evidence"]
        where = "extra.scale_evidence"
        _require(isinstance(ev, dict) and set(ev) == {"shape", "scale", "partition", "mass_bits", "loss_step"},
                 f"{where}: fields")
        _require(ev["shape"] == shape and shape != "inf", f"{where} is for another shape")
        p_sel = number_text(shape, f"{where}.shape")
        b_safe = number_text(ev["scale"], f"{where}.scale")
        _require(b_safe > 0, f"{where}.scale must be > 0")
        step = number_text(ev["loss_step"], f"{where}.loss_step")
        _require(step.numerator == 1 and step.denominator & (step.denominator - 1) == 0 and 2**-30 <= step <= 1,
                 f"{where}.loss_step must be 2^-k, 0 <= k <= 30")
        mass_bits = _int_field(ev, "mass_bits", 1, U_BITS, where)
        part = ev["partition"]
        _require(isinstance(part, dict) and set(part) == {"shape", "scale", "bins"}, f"{where}.partition: fields")
        p_part, b_part = _float_field(part, "shape", where), _float_field(part, "scale", where)
        bins = _int_field(part, "bins", 2, MAX_BINS, where)
        _require(1 <= p_part <= 1e4, f"{where}.partition.shape out of range")
        from certdp.engines.quantile_coupling import coupled_delta_upper

        shared = u_partition(p_part, [float(q) / b_part for q in active], bins, delta=float(dlt))
        up = coupled_delta_upper(p_sel, b_safe, eps, active, [shared] * len(active), QuantileBounds(p_sel, p_sel),
                                 h=float(step), mass_bits=mass_bits)
        with working_precision(64):
            _require(bool(up <= arb_of(dlt)), f"{where}: the coupled upper bound at the recorded scale is not "
                                              f"proven <= delta")
        how = "the coupled upper bound of delta re-proven"
    with working_precision(128):
        p_arb = math.inf if shape == "inf" else arb_of(Fraction(shape))
        f_hat = m * arb_of(b_safe).log() + log_moment_factor(p_arb, m)
        _require(bool(f_hat <= arb_of(u_star)), f"U* = {bounds[1]} is below log E|X|^{m} of the selected mechanism "
                                                f"({f_hat.str(10)})")
    say(f"upper bound re-proven: the selected GGM(p = {shape}) at scale {exact_str(b_safe)} is private "
        f"({how}) and its log E|X|^{m} is <= U*")

    # ------------------------------------------------------------ lower half: p = inf
    inf_ev = cert.extra.get("at_infinity")
    _require(isinstance(inf_ev, dict) and set(inf_ev) == {"lemma", "scale"}, "extra.at_infinity must be {lemma, scale}")
    b_inf = number_text(inf_ev["scale"], "extra.at_infinity.scale")
    _require(b_inf > 0, "extra.at_infinity.scale must be > 0")
    if inf_ev["lemma"] == "projection":
        _require(b_inf <= max(active) / (2 * dlt), "at p = inf the projection gives b(inf) >= max Delta_i / (2 delta) "
                                                   "only: the recorded scale is larger")
    elif inf_ev["lemma"] == "closed-form":
        overlap = Fraction(1)
        for q in active:
            overlap *= max(1 - q / (2 * b_inf), Fraction(0))
        _require(1 - overlap > dlt, "at p = inf the recorded scale is not proven unsafe by the closed form (App. B.4)")
    else:
        raise _Fail("extra.at_infinity.lemma must be 'projection' or 'closed-form'")
    _require(Fraction(infinity_objective_lower(b_inf, m)) >= l_star, "at p = inf the bound is below L*")

    # ------------------------------------------------------------ lower half: the partition of [1, p_max]
    leaves = cert.extra.get("leaves")
    _require(isinstance(leaves, list) and 1 <= len(leaves) <= MAX_LEAVES,
             f"extra.leaves must be a list of 1 to {MAX_LEAVES} intervals")
    edge = Fraction(1)
    counts = {"projection": 0, "coupling": 0}
    with working_precision(64):
        eps_a, dlt_a = arb_of(eps), arb_of(dlt)
    for i, leaf in enumerate(leaves):
        where = f"extra.leaves[{i}]"
        _require(isinstance(leaf, dict) and isinstance(leaf.get("interval"), list) and len(leaf["interval"]) == 2,
                 f"{where}.interval must be [a, c]")
        a, c = (number_text(x, f"{where}.interval") for x in leaf["interval"])
        _require(a == edge and a < c, f"{where} does not continue the partition at {exact_str(edge)}")
        edge = c
        b_lo = number_text(leaf.get("scale"), f"{where}.scale")
        _require(b_lo > 0, f"{where}.scale must be > 0")
        lemma = leaf.get("lemma")
        if lemma == "projection":
            _require(set(leaf) == {"interval", "lemma", "scale"}, f"{where}: unexpected fields")
            from certdp.engines.monotone_loss import delta_enclosure

            with working_precision(64):
                p_ball = arb_of(a).union(arb_of(c))
                enc = delta_enclosure(p_ball, arb_of(b_lo), eps_a, arb_of(max(active)))
                _require(enc is not None and enc.is_finite() and bool(arb(enc.lower()) > dlt_a),
                         f"{where}: the 1-D profile of max Delta_i at the recorded scale is not proven > delta "
                         f"on the p-ball")
                val = m * arb_of(b_lo).log() + log_moment_factor(p_ball, m)
                bound = math.nextafter(float(arb(val.lower()).mid()), -math.inf)
        elif lemma == "coupling":
            _require(set(leaf) == {"interval", "lemma", "scale", "log_slope", "partition", "mass_bits", "loss_step"},
                     f"{where}: unexpected fields")
            beta = number_text(leaf["log_slope"], f"{where}.log_slope")
            _require(abs(beta) <= 100, f"{where}.log_slope out of range")
            step = number_text(leaf["loss_step"], f"{where}.loss_step")
            _require(step.numerator == 1 and step.denominator & (step.denominator - 1) == 0 and
                     2**-30 <= step <= 1, f"{where}.loss_step must be 2^-k, 0 <= k <= 30")
            mass_bits = _int_field(leaf, "mass_bits", 1, U_BITS, where)
            part = leaf["partition"]
            _require(isinstance(part, dict) and set(part) == {"shape", "scale", "bins"}, f"{where}.partition: fields")
            p_part = _float_field(part, "shape", f"{where}.partition")
            b_part = _float_field(part, "scale", f"{where}.partition")
            bins = _int_field(part, "bins", 2, MAX_BINS, f"{where}.partition")
            _require(1 <= p_part <= 1e4, f"{where}.partition.shape out of range")
            shared = u_partition(p_part, [float(q) / b_part for q in active], bins, delta=float(dlt))
            qb = QuantileBounds(a, c)
            low = coupled_delta_lower(a, c, b_lo, eps, active, [shared] * len(active), qb, log_slope=beta,
                                      h=float(step), mass_bits=mass_bits)
            with working_precision(64):
                _require(bool(low > dlt_a), f"{where}: the coupling bound at the recorded scale is not proven > delta")
            bound = interval_objective_lower(b_lo, log_moment_lower(a, c, m, m * beta), m)
        else:
            raise _Fail(f"{where}.lemma must be 'projection' or 'coupling'")
        counts[lemma] += 1
        _require(Fraction(bound) >= l_star, f"{where}: its certified bound {bound:.8g} is below L* = {bounds[0]}")
    _require(edge == pmax, f"the leaves end at {exact_str(edge)}, not at p_max = {exact_str(pmax)}")
    say(f"lower bound re-proven: {len(leaves)} intervals cover [1, {exact_str(pmax)}] ({counts['coupling']} by the "
        f"quantile coupling, {counts['projection']} by the projection), p = inf by the {inf_ev['lemma']} lemma; "
        f"all >= L* = {bounds[0]}; gap {float(u_star - l_star):.4g} <= tolerance {exact_str(eta)}")
