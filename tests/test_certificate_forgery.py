"""Forgery: edit one field of a certificate, recompute the digest (anyone can), expect INVALID.

Every field of every kind of certificate is edited, once with the old guarantee text kept and once
with the guarantee regenerated from the edited content (a careful forger), by several mutations.
An edit may only pass `verify` when the edited statement is still true (a wider enclosure, a larger
rtol, the few cases in TRUE_AFTER_EDIT with their reasons); UNDECIDED counts as a refusal.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import certdp
from certdp.certificate import Certificate, CertificateFormatError
from certdp.numbers import exact_str
from certdp.workflows.calibrate import calibrate

CERTIFICATES = {
    "gaussian-minimal": lambda: calibrate("gaussian", epsilon="1", delta="1e-5", sensitivity=1),
    "laplace-pure-dp": lambda: calibrate("laplace", epsilon="1/2", delta="0", sensitivity=3),
    "uniform-minimal": lambda: calibrate("uniform", epsilon="1", delta="0.01", sensitivity=3),
    "audit-value": lambda: certdp.audit("gaussian", value="4", epsilon="1", delta="1e-5"),
    "audit-claim": lambda: certdp.audit("classic-gaussian", epsilon="10", delta="1e-5"),
    "profile": lambda: certdp.profile("gaussian", value="2", epsilon="1"),
    "qg-thm-4.2": lambda: calibrate("quasi-gaussian", method="paper", epsilon="1", delta="1e-5"),
    "mg-alg-1": lambda: calibrate("multi-gaussian", method="paper", components=2, epsilon="1", delta="1e-5"),
    "mg-audit-witness": lambda: certdp.audit("multi-gaussian", value="0.3", components=1, epsilon="1", delta="1e-5"),
    "composition-gdp": lambda: certdp.compose({"mechanisms": [{"mechanism": "gaussian", "sigma": "10", "count": 100}]},
                                              epsilon="1"),
    "composition-pld": lambda: certdp.compose(COMPOSITION_PLAN, epsilon="1", grid_bits=5),
    "composition-pld-epsilon": lambda: certdp.compose(COMPOSITION_PLAN, delta="1e-3", grid_bits=5),
    "composition-pld-coupled": lambda: certdp.compose(COUPLED_PLAN, epsilon="1", grid_bits=6),
    "composed-gaussian-calibration": lambda: calibrate("gaussian", epsilon="1", delta="1e-5", sensitivity=1,
                                                       compositions=10),
    "composition-connect-the-dots": lambda: certdp.compose(CTD_PLAN, epsilon="0.5", grid_bits=6),
    "ggm-vector-coupled": lambda: calibrate("ggm", method="quantile-coupling", epsilon="1", delta="1e-3", shape="3/2",
                                            sensitivity="1,2"),
    "composed-spherical-gaussian-calibration": lambda: calibrate("spherical-gaussian", epsilon="1", delta="1e-5",
                                                                 dimension=4, sensitivity=2, compositions=10),
}

COUPLED_PLAN = {"mechanisms": [{"mechanism": "laplace", "scale": "20", "count": 30},
                               {"mechanism": "subsampled-gaussian", "sigma": "2", "sampling_rate": "0.1", "count": 20}]}
CTD_PLAN = {"mechanisms": [{"mechanism": "l2-laplace", "theta": "2", "dimension": "3", "count": 2}]}

COMPOSITION_PLAN = {"mechanisms": [{"mechanism": "laplace", "scale": "2", "count": 2},
                                   {"mechanism": "subsampled-gaussian", "sigma": "1", "sampling_rate": "0.5", "count": 1}]}

#: (certificate, field path, mutation) whose edited statement is still true, and why.
TRUE_AFTER_EDIT = {
    ("audit-value", "inputs.delta", "times10"): "VALID at delta stays VALID at 10 delta",
    ("uniform-minimal", "inputs.epsilon", "times10"): "uniform noise: delta = Delta/2b for every eps > 0",
    ("uniform-minimal", "inputs.epsilon", "over10"): "uniform noise: delta = Delta/2b for every eps > 0",
    ("uniform-minimal", "inputs.epsilon", "nudge"): "uniform noise: delta = Delta/2b for every eps > 0",
    ("laplace-pure-dp", "interval.0", "over10"): "every scale below a smaller number is not eps-DP either",
    ("audit-value", "inputs.delta", "nudge"): "VALID at delta stays VALID at a larger delta",
    # the MG audit's recorded enclosure is [0.13, 1] (decision mode): these edits keep every part true
    ("mg-audit-witness", "parameters.sensitivity", "times10"): "more sensitivity: still violated, same witness H",
    ("mg-audit-witness", "inputs.delta", "times10"): "1e-4 is still far below the witness's H = 0.13",
    ("mg-audit-witness", "inputs.delta", "over10"): "VIOLATED at delta stays VIOLATED at a smaller delta",
    ("mg-audit-witness", "inputs.delta", "nudge"): "1e-5 (1 + 1e-9) is still far below H = 0.13",
    ("mg-audit-witness", "value", "over10"): "less noise: more violated, H at the witness shift larger",
    ("mg-audit-witness", "inputs.epsilon", "over10"): "smaller epsilon: more violated, H at the witness larger",
    # the coupled bracket is ~0.4 % wide and both ends have margin: these edits keep every part true
    ("ggm-vector-coupled", "inputs.delta", "nudge"): "delta (1 + 1e-9): both ends keep their proofs (wide bracket)",
    ("ggm-vector-coupled", "interval.0", "nudge"): "a 1e-9 larger unsafe end is still proven unsafe",
    ("ggm-vector-coupled", "inputs.bins", "times10"): "evidence, not claim: 10x the bins prove both ends too, "
                                                      "with an enclosure inside the recorded one",
}
ENCLOSURES = ("delta_enclosure", "extra.delta_enclosure_at_unsafe_end", "extra.claimed_value_enclosure",
              "extra.epsilon_enclosure")


def _still_true(name, path, label, old):
    """Edits that only weaken a statement: a wider enclosure, a larger rtol, a smaller witness bound."""
    if (name, path, label) in TRUE_AFTER_EDIT:
        return True
    if path.startswith(ENCLOSURES):
        q = Fraction(old)
        up = path.endswith(".1")
        moved_up = label in ("times10", "nudge") if q > 0 else label == "over10" if q < 0 else label in ("one", "tiny")
        return moved_up if up else not moved_up
    if path == "parameters.dimension" and name.startswith(("gaussian", "audit", "profile", "composed-spherical")):
        return True  # the spherical Gaussian's delta does not depend on the dimension
    if path.startswith(("extra.sigma_1_interval", "extra.sigma_2_interval")):
        return label in (("over10",) if path.endswith(".0") else ("times10", "nudge"))  # a wider bracket
    if path == "inputs.rtol":
        return label in ("times10", "nudge")
    if path in ("extra.unsafe_end_witness.H_lower_bound", "extra.witness.H_lower_bound"):
        return label == "over10"
    return False


INFORMATIONAL = ("extra.evaluations", "extra.notes", "extra.float_candidate", "precision_bits",
                 "extra.witness.failing_set_float", "extra.settings")


@pytest.fixture(scope="module")
def certificates():
    return {name: json.loads(make().to_json()) for name, make in CERTIFICATES.items()}


def _paths(data, prefix=""):
    """Every leaf of the certificate's JSON (except the digest and provenance)."""
    for key, value in data.items():
        path = f"{prefix}{key}"
        if path in ("digest", "created", "timing_seconds", "versions") or path in INFORMATIONAL:
            continue
        if isinstance(value, dict):
            yield from _paths(value, path + ".")
        elif isinstance(value, list) and all(isinstance(x, str) for x in value) and len(value) == 2:
            for i in range(2):
                yield f"{path}.{i}"
        else:
            yield path


def _get_parent(data, path):
    parts = path.split(".")
    node = data
    for p in parts[:-1]:
        node = node[int(p)] if isinstance(node, list) else node[p]
    return node, (int(parts[-1]) if isinstance(node, list) else parts[-1])


def _mutations(value):
    if isinstance(value, bool) or value is None:
        return {}
    if isinstance(value, int):
        return {"plus1": value + 1, "minus1": value - 1}
    if isinstance(value, str):
        try:
            q = Fraction(value) if "/" in value else Fraction(value.replace("e", "E")) if any(c.isdigit() for c in value) else None
        except (ValueError, ZeroDivisionError):
            q = None
        if q is not None:
            if q == 0:
                return {"one": "1", "tiny": "1e-30"}
            return {"times10": exact_str(q * 10), "over10": exact_str(q / 10), "nudge": exact_str(q * (1 + Fraction(1, 10**9)))}
        return {"edited": value + " (edited)", "other": _other_word(value)}
    return {}


def _other_word(value):
    swaps = {"VALID": "VIOLATED", "VIOLATED": "VALID", "UNDECIDED": "VALID", "upper": "lower", "lower": "upper",
             "calibration": "profile", "audit": "profile", "profile": "audit", "minimal": "endpoints",
             "endpoints": "minimal", "sufficient": "minimal", "verdict": "enclosure", "gaussian": "laplace",
             "laplace": "uniform", "uniform": "laplace", "quasi-gaussian": "multi-gaussian",
             "multi-gaussian": "quasi-gaussian", "sigma": "scale", "scale": "sigma",
             "certified-bracket": "exact-mixture-engine", "seed000-thm-4.2": "exact-mixture-engine",
             "seed000-alg-1": "exact-mixture-engine", "pure-dp-closed-form": "certified-bracket",
             "quantile-coupling": "product-loss-engine",
             "classic-gaussian": "r1smg", "sigma_1": "sigma_2", "sigma_2": "sigma_1"}
    return swaps.get(value, "x" + value)


def _forge(data, path, new, regenerate):
    data = json.loads(json.dumps(data))
    parent, key = _get_parent(data, path)
    parent[key] = new
    try:
        cert = Certificate.from_dict(data)
    except CertificateFormatError:
        return None  # rejected on reading: fine
    if path == "kind":  # a forger relabelling the kind also relabels the claim
        cert.claim = {"calibration": "minimal", "audit": "verdict", "profile": "enclosure"}[cert.kind]
    if regenerate:
        cert.guarantee = cert.statement()
    return cert.seal()


def _cases():
    for name in CERTIFICATES:
        yield pytest.param(name, id=name)


@pytest.mark.parametrize("name", list(_cases()))
def test_every_field_edit_is_caught(certificates, name):
    data = certificates[name]
    assert certdp.verify(json.dumps(data)).status == "VALID"
    checked = 0
    wrongly_valid = []
    fast = name in ("qg-thm-4.2", "mg-alg-1", "mg-audit-witness")
    for path in _paths(data):
        parent, key = _get_parent(data, path)
        for label, new in _mutations(parent[key]).items():
            if fast and label == "nudge":
                continue
            for regenerate in ((False,) if path == "guarantee" else (False, True)):
                forged = _forge(data, path, new, regenerate)
                if forged is None:
                    continue
                try:
                    status = certdp.verify(forged).status
                except CertificateFormatError:
                    continue
                checked += 1
                true_edit = _still_true(name, path, label, parent[key])
                if not regenerate and path != "guarantee" and forged.guarantee != forged.statement():
                    assert status == "INVALID", (path, label, "stale guarantee text accepted")
                elif true_edit:
                    pass  # a weaker but true statement: verify may accept it or refuse it as not canonical
                elif status == "VALID":  # UNDECIDED is a refusal too: the forged statement is not re-proven
                    wrongly_valid.append((path, label, regenerate, status))
    assert not wrongly_valid, wrongly_valid
    assert checked >= 20


# ------------------------------------------------------------------------------ composition: work limit, cross-checks

def _forged_composition(edit):
    import time

    cert = certdp.compose(COMPOSITION_PLAN, epsilon="1", grid_bits=5)
    data = json.loads(cert.to_json())
    edit(data)
    forged = Certificate.from_dict(data)
    forged.guarantee = forged.statement()
    forged = forged.seal()
    start = time.perf_counter()
    result = certdp.verify(forged)
    return result, time.perf_counter() - start


@pytest.mark.parametrize("what", ["huge-count", "tiny-grid", "huge-plan"])
def test_forged_composition_work_is_refused_quickly(what):
    def edit(data):
        plan = json.loads(data["parameters"]["plan"])
        if what == "huge-count":
            plan["mechanisms"][0]["count"] = "10000000"
            data["extra"]["discretization"]["grid_bits"] = "20"
            data["extra"]["discretization"]["grid_step"] = "2^-20"
        elif what == "tiny-grid":
            data["extra"]["discretization"]["grid_bits"] = "24"
            data["extra"]["discretization"]["grid_step"] = "2^-24"
        else:
            plan["mechanisms"] = [{"mechanism": "laplace", "scale": str(2 + i), "sensitivity": "1", "count": "9999999"}
                                  for i in range(300)]
            data["extra"]["discretization"]["grid_bits"] = "22"
            data["extra"]["discretization"]["grid_step"] = "2^-22"
        from certdp.accounting import parse_plan

        data["parameters"]["plan"] = parse_plan(plan).canonical_json()
    result, seconds = _forged_composition(edit)
    assert result.status in ("UNDECIDED", "INVALID"), result
    assert seconds < 120, seconds
    if result.status == "UNDECIDED":
        assert any("work limit" in r for r in result.reasons), result.reasons


def test_lattice_verification_cross_checks_with_the_other_rounding_rule():
    cert = certdp.compose(COMPOSITION_PLAN, epsilon="1", grid_bits=8)
    result = certdp.verify(cert)
    assert result.status == "VALID"
    assert any("cross-checked by the" in r and "same lattice engine" in r for r in result.reasons), result.reasons


def test_gdp_verification_cross_checks_by_quadrature_and_catches_a_shifted_record():
    cert = certdp.compose({"mechanisms": [{"mechanism": "gaussian", "sigma": "3", "count": 4}]}, epsilon="0.5")
    result = certdp.verify(cert)
    assert result.status == "VALID"
    assert any("quadrature" in r for r in result.reasons), result.reasons
    for claim in ("delta", "epsilon"):
        c = cert if claim == "delta" else certdp.compose({"mechanisms": [{"mechanism": "gaussian", "sigma": "3",
                                                                         "count": 4}]}, delta="1e-4")
        data = json.loads(json.dumps(c.to_dict()))
        key = ("delta_enclosure",) if claim == "delta" else ("extra", "epsilon_enclosure")
        parent = data
        for k in key[:-1]:
            parent = parent[k]
        lo, hi = (Fraction(x) for x in parent[key[-1]])
        parent[key[-1]] = [str(float(lo * Fraction(11, 10))), str(float(hi * Fraction(11, 10)))]
        forged = Certificate.from_dict(data)
        forged.guarantee = forged.statement()
        assert certdp.verify(forged.seal()).status == "INVALID"


def test_composed_sgg_certificate_forgeries_are_refused():
    """An sgg calibration under composition claims 'minimal' (seed 003 Lemma 4.2 at every eps in R +
    Blackwell, proofs/sgg_composed_monotonicity_lemma4_2.py): relabelling its claim, flipping its safe
    side, editing the lemma's monotonicity reason or doubling the rate is INVALID (guarantee regenerated
    and digest recomputed each time), and the genuine one is VALID."""
    cert = calibrate("sgg", epsilon="1", delta="0.1", dimension=2, alpha="1", power="1", sensitivity=1,
                     compositions=2, grid_bits=5, rtol="0.1")
    assert cert.claim == "minimal" and cert.safe_side == "lower" and "Lemma 4.2" in cert.lemma
    assert certdp.verify(cert.to_json()).status == "VALID"
    edits = {
        "claim-sufficient": lambda c: setattr(c, "claim", "sufficient"),
        "safe-side-upper": lambda c: (setattr(c, "safe_side", "upper"), setattr(c, "value", c.interval[1])),
        "lemma-reason-edited": lambda c: setattr(c, "lemma", c.lemma.replace("Lemma 4.2", "Lemma 4.1")),
        "rate-doubled": lambda c: (setattr(c, "interval", [str(2 * Fraction(x)) for x in c.interval]),
                                   setattr(c, "value", c.interval[0])),
    }
    for label, edit in edits.items():
        forged = Certificate.from_json(cert.to_json())
        edit(forged)
        forged.guarantee = forged.statement()
        assert certdp.verify(forged.seal()).status == "INVALID", label


# ------------------------------------------------------------------------------ shape-search (GGM, sensitivity vector)
@pytest.fixture(scope="module")
def shape_certificate():
    from certdp.workflows.ggm_vector import vector_shape_search

    return vector_shape_search("1", "0.01", "1,2", tolerance="0.1", p_max=2.0)["certificate"]


def _edit_shape(data, edit):
    data = json.loads(json.dumps(data))
    edit(data)
    cert = Certificate.from_dict(data)
    cert.guarantee = cert.statement()  # a careful forger regenerates the text and the digest
    return cert.seal()


def _bump(q, factor):
    return exact_str(Fraction(q) * factor)


SHAPE_FORGERIES = {
    # the claimed gap tightened: L* raised (some leaf's certified bound is now below it)
    "lower-bound-raised": lambda d: d["extra"]["objective_bounds"].__setitem__(
        0, exact_str(Fraction(d["extra"]["objective_bounds"][0]) + Fraction(1, 20))),
    # U* lowered below log E|X|^2 of the selected mechanism
    "upper-bound-lowered": lambda d: d["extra"]["objective_bounds"].__setitem__(
        1, exact_str(Fraction(d["extra"]["objective_bounds"][1]) - Fraction(1, 20))),
    # a leaf's unsafe scale raised 10 %: not proven unsafe
    "leaf-scale-raised": lambda d: d["extra"]["leaves"][len(d["extra"]["leaves"]) // 2].__setitem__(
        "scale", _bump(d["extra"]["leaves"][len(d["extra"]["leaves"]) // 2]["scale"], Fraction(11, 10))),
    # a leaf dropped: the intervals no longer cover [1, p_max]
    "leaf-dropped": lambda d: d["extra"]["leaves"].pop(1),
    # p = inf: the closed-form scale raised 10x
    "infinity-scale-raised": lambda d: d["extra"]["at_infinity"].__setitem__(
        "scale", _bump(d["extra"]["at_infinity"]["scale"], 10)),
    # the selected shape's scale certificate edited (its own digest breaks)
    "scale-certificate-edited": lambda d: d["extra"]["scale_certificate"].__setitem__(
        "value", _bump(d["extra"]["scale_certificate"]["value"], Fraction(1, 2))),
    # another shape claimed than the scale certificate's
    "shape-relabelled": lambda d: (d["extra"].__setitem__("shape", "1.5"), d.__setitem__("value", "1.5")),
    # a larger tolerance claimed away: the gap is then no longer <= the (smaller) recorded tolerance
    "tolerance-shrunk": lambda d: d["inputs"].__setitem__("tolerance", "0.001"),
}


def test_shape_search_certificate_verifies(shape_certificate):
    result = certdp.verify(json.dumps(shape_certificate))
    assert result.status == "VALID", result.reasons


@pytest.mark.parametrize("name", list(SHAPE_FORGERIES))
def test_shape_search_forgeries_are_refused(shape_certificate, name):
    forged = _edit_shape(shape_certificate, SHAPE_FORGERIES[name])
    result = certdp.verify(forged)
    assert result.status == "INVALID", (name, result.status, result.reasons)


@pytest.fixture(scope="module")
def shape_certificate_coupled_scale():
    """A shape-search certificate whose selected scale rests on the coupled upper bound (what happens
    below delta ~1e-9, where the product engine cannot certify): forced here by making the product
    engine refuse, at a quick (eps, delta)."""
    import certdp.workflows.ggm_vector as gv
    from certdp.numbers import UndecidedError

    real = gv.calibrate_vector

    def refusing(shape, *args, **kwargs):
        if str(shape) not in ("2", "inf"):
            raise UndecidedError("product engine refused (test)")
        return real(shape, *args, **kwargs)

    gv.calibrate_vector = refusing
    try:
        return gv.vector_shape_search("1", "0.01", "1,2", tolerance="0.1", p_max=2.0)["certificate"]
    finally:
        gv.calibrate_vector = real


def test_shape_search_with_coupled_scale_verifies_and_forgeries_fail(shape_certificate_coupled_scale):
    data = shape_certificate_coupled_scale
    assert "scale_evidence" in data["extra"] and "scale_certificate" not in data["extra"]
    assert certdp.verify(json.dumps(data)).status == "VALID"

    def lowered(d):  # the safe scale lowered 5 %: the coupled upper bound no longer proves delta
        d["extra"]["scale_evidence"]["scale"] = _bump(d["extra"]["scale_evidence"]["scale"], Fraction(95, 100))

    def coarser(d):  # fewer bins: the recomputed bound is looser and does not prove delta at that scale
        d["extra"]["scale_evidence"]["partition"]["bins"] = 20

    for edit in (lowered, coarser):
        result = certdp.verify(_edit_shape(data, edit))
        assert result.status == "INVALID", (edit.__name__, result.reasons)
