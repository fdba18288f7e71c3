"""The certificate: the one object every certdp workflow returns.

A certificate is a *statement* plus the data that lets anyone re-prove it
(:func:`certdp.workflows.verify.verify`). Schema 2 makes the statement explicit:

``kind``   ``calibration`` | ``audit`` | ``profile`` | ``composition`` | ``shape-search``
``claim``  what is asserted (one of :data:`CLAIMS_BY_KIND`):

* ``minimal``    (calibration) the ``interval`` brackets the minimal parameter at the target
  delta: the safe end is (epsilon, delta)-DP, the other end is not, and the profile is proven
  monotone in the parameter (``lemma``), so every value beyond the safe end is private too;
* ``endpoints``  (calibration) as ``minimal`` but monotonicity is not proven: the two ends only
  (the exact quasi-Gaussian calibration);
* ``sufficient`` (calibration) the safe end satisfies the named sufficient ``condition`` (which
  implies (epsilon, delta)-DP) and the other end fails *that condition* -- which says nothing
  about whether it is private;
* ``verdict``    (audit) ``verdict`` (VALID / VIOLATED / UNDECIDED) of the claim
  "the mechanism at ``value`` is (epsilon, delta)-DP", with the certified true delta;
* ``enclosure``  (profile) ``delta_enclosure`` contains delta(epsilon) at ``value``;
* ``objective-bounds`` (shape-search) the GGM shape choice for a sensitivity vector:
  ``extra.objective_bounds`` encloses the optimal log E|X_i|^m over all shapes and the selected
  mechanism (``extra.scale_certificate``) attains at most its upper end
  (:mod:`certdp.workflows.ggm_vector_certificate`).

The human-readable ``guarantee`` is generated from the certified fields by
:meth:`Certificate.statement` and ``verify`` regenerates and compares it, so the
text can never say more than what is re-proven.

``digest`` is the SHA-256 of the canonical JSON of the *certified content*: every field except
``digest`` and the provenance fields ``created``, ``timing_seconds``, ``versions`` and
``precision_bits`` (how it was computed, not what is claimed; so two runs
of the same calibration have the same digest). Reading is strict and bounded: a certificate is a
JSON object of at most :data:`MAX_TEXT_BYTES` bytes, numbers are exact decimal or ``p/q``
strings of at most :data:`MAX_NUMBER_CHARS` characters with decimal exponents of magnitude at
most :data:`MAX_EXPONENT`, checked *before* any arithmetic.
"""

from __future__ import annotations

import hashlib
import json
import platform
import re
import time
from dataclasses import MISSING, dataclass, field, fields
from datetime import datetime, timezone
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any, Mapping

from certdp.numbers.exact import exact_str

__all__ = ["Certificate", "CertificateFormatError", "SCHEMA", "CLAIMS_BY_KIND", "package_versions",
           "number_text", "Stopwatch"]

SCHEMA = "certdp.certificate/2"
OLD_SCHEMAS = ("certdp.certificate/1",)
CLAIMS_BY_KIND: dict[str, tuple[str, ...]] = {
    "calibration": ("minimal", "endpoints", "sufficient"),
    "audit": ("verdict",),
    "profile": ("enclosure",),
    "composition": ("delta-enclosure", "epsilon-enclosure"),
    "shape-search": ("objective-bounds",),
}
VERDICTS = ("VALID", "VIOLATED", "UNDECIDED")
PROVENANCE_FIELDS = ("created", "timing_seconds", "versions", "precision_bits")
MAX_TEXT_BYTES = 2_000_000
MAX_NUMBER_CHARS = 2000
MAX_EXPONENT = 1_000_000

_NUMBER_RE = re.compile(r"^-?(\d+\.?\d*|\.\d+)(e([+-]?\d{1,7}))?$|^-?\d+/\d+$")


class CertificateFormatError(ValueError):
    """The text is not a well-formed certdp certificate (the message says what is wrong)."""


@lru_cache(maxsize=1)
def _parameter_string():
    """:func:`certdp.mechanisms.base.parameter_string` (imported on first use: the mechanisms import
    this module)."""
    from certdp.mechanisms.base import parameter_string

    return parameter_string


@lru_cache(maxsize=1)
def _versions() -> tuple[tuple[str, str], ...]:
    from importlib import metadata

    versions = {"python": platform.python_version()}
    for dist in ("certdp", "python-flint", "mpmath", "numpy", "scipy"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
            versions[dist] = "unknown"
    return tuple(versions.items())


def package_versions() -> dict[str, str]:
    """Versions of Python, certdp and the numerical packages the result depends on (looked up once)."""
    return dict(_versions())


def number_text(value: Any, where: str) -> Fraction:
    """Parse a certificate number (exact decimal or ``p/q`` string) after bounding its size.

    Raises :class:`CertificateFormatError` naming ``where`` for anything else, before any
    arithmetic, so an untrusted file cannot make the reader build a gigantic integer.
    """
    if not isinstance(value, str):
        raise CertificateFormatError(f"{where}: a number must be a JSON string, got {type(value).__name__}")
    text = value.strip().lower()
    if len(text) > MAX_NUMBER_CHARS:
        raise CertificateFormatError(f"{where}: number longer than {MAX_NUMBER_CHARS} characters")
    match = _NUMBER_RE.match(text)
    if match is None:
        raise CertificateFormatError(f"{where}: not an exact decimal or p/q number: {value[:40]!r}")
    if match.group(3) is not None and abs(int(match.group(3))) > MAX_EXPONENT:
        raise CertificateFormatError(f"{where}: exponent beyond +-{MAX_EXPONENT}")
    if "/" in text:
        num, den = text.split("/")
        if int(den) == 0:
            raise CertificateFormatError(f"{where}: zero denominator")
        return Fraction(int(num), int(den))
    mantissa, _, exponent = text.partition("e")
    q = Fraction(Decimal(mantissa))
    e = int(exponent) if exponent else 0
    return q * 10**e if e >= 0 else q / 10**(-e)


def _exact(q: Fraction | Decimal | int) -> str:
    return exact_str(q)


def _display_value(q: Fraction | Decimal) -> Decimal | Fraction:
    """A terminating rational as a Decimal (what users print), any other rational as a Fraction."""
    text = _exact(q)
    return Fraction(q) if "/" in text else Decimal(text)


def _canonical_decimal(x: Any) -> Decimal:
    """``Decimal(exact_str(x))`` for a terminating decimal ``x`` (a Decimal needs no Fraction; a
    finite Decimal is looked up by its text, which determines it)."""
    if type(x) is Decimal and x.is_finite():
        text = str(x)
        if len(text) <= 600:
            return _canonical_decimal_of_text(text)
    return Decimal(_exact(x if type(x) is Decimal else Fraction(x)))


@lru_cache(maxsize=4096)
def _canonical_decimal_of_text(text: str) -> Decimal:
    """``Decimal(exact_str(Decimal(text)))`` (a Decimal is immutable: the cached one can be shared)."""
    return Decimal(_exact(Decimal(text)))


_STAMP: list[tuple[int, str]] = [(-1, "")]


def _utc_now() -> str:
    """The UTC time to the second, ``2026-01-31T12:00:00Z`` (formatted once per second)."""
    now = int(time.time())
    if _STAMP[0][0] != now:
        _STAMP[0] = (now, datetime.fromtimestamp(now, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    return _STAMP[0][1]


def _strings(pair: Any) -> list[str] | None:
    """An enclosure given as an :class:`~certdp.numbers.Enclosure`, a pair of numbers or strings."""
    if pair is None:
        return None
    if hasattr(pair, "strings"):
        return list(pair.strings())
    lo, hi = pair
    return [x if isinstance(x, str) else _exact(x) for x in (lo, hi)]


@dataclass
class Certificate:
    """A certified statement (see the module docstring). Build one with :meth:`for_calibration`,
    :meth:`for_audit` or :meth:`for_profile`; those seal it.

    Sealing is lazy: a built certificate's ``guarantee`` (:meth:`statement`) and ``digest``
    (:meth:`compute_digest`) are computed on first access -- reading either field, ``to_dict``,
    ``to_json``, ``==`` -- and then kept, so a calibration that nobody prints pays neither. A
    built certificate is complete: editing a field afterwards is forging it (call :meth:`seal`
    to recompute the digest, as a forger would; ``verify`` re-proves the content either way).
    A certificate read by :meth:`from_json` keeps the ``guarantee`` and ``digest`` it was given.

    ``value`` is the parameter the statement is about (for a calibration: the safe end of
    ``interval``), a :class:`~decimal.Decimal` when it is a terminating decimal, else a
    :class:`~fractions.Fraction`. ``safe_side`` says which end of ``interval`` is the safe one
    ("upper" for a scale, "lower" for a rate).
    """

    kind: str
    claim: str
    mechanism: str
    parameters: dict[str, str]
    inputs: dict[str, str]
    method: str
    lemma: str
    parameter: str | None = None
    value: Decimal | Fraction | None = None
    interval: tuple[Decimal, Decimal] | None = None
    safe_side: str | None = None
    verdict: str | None = None
    delta_enclosure: list[str] | None = None
    condition: dict[str, str] | None = None
    guarantee: str = ""
    precision_bits: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    timing_seconds: float = 0.0
    versions: dict[str, str] = field(default_factory=package_versions)
    created: str = field(default_factory=_utc_now)
    schema: str = SCHEMA
    digest: str = ""

    # ------------------------------------------------------------ builders
    @classmethod
    def _build(cls, *, kind: str, claim: str, mechanism: str, parameters: Mapping[str, Any],
               inputs: Mapping[str, Any], method: str, lemma: str, extra: Mapping[str, Any] | None,
               timing_seconds: float, **content: Any) -> "Certificate":
        parameter_string = _parameter_string()
        if not _CONTENT_FIELDS.issuperset(content):  # what cls(**...) would refuse
            raise TypeError(f"unknown certificate fields: {sorted(set(content) - _CONTENT_FIELDS)}")
        # The instance cls(...) would make -- every field, its default where not given -- written
        # into __dict__ at once (the dataclass __init__ assigns 23 fields one by one); without
        # `guarantee` and `digest`: the lazy seal computes them by __getattr__ on first access.
        cert = object.__new__(cls)
        state = cert.__dict__
        state.update(_PLAIN_DEFAULTS)
        state.update(
            kind=kind, claim=claim, mechanism=mechanism,
            parameters={k: v if type(v) is str else parameter_string(v) for k, v in parameters.items() if v is not None},
            inputs={k: v if isinstance(v, str) else _exact(v) for k, v in inputs.items() if v is not None},
            method=method, lemma=lemma,
            extra={k: v for k, v in (extra or {}).items() if v is not None},
            timing_seconds=timing_seconds, versions=package_versions(), created=_utc_now(),
        )
        state.update(content)
        state.pop("guarantee", None)
        state.pop("digest", None)
        return cert

    def __getattr__(self, name: str) -> Any:
        """Compute a lazily sealed ``guarantee`` or ``digest`` (called only when it is not set yet)."""
        if name == "guarantee":
            value = self.statement()
        elif name == "digest":
            value = self.compute_digest()
        else:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.__dict__[name] = value
        return value

    @classmethod
    def for_calibration(cls, *, claim: str, mechanism: str, parameter: str, parameters: Mapping[str, Any],
                        epsilon: Fraction, delta: Fraction, interval: tuple[Any, Any], safe_side: str,
                        method: str, lemma: str, delta_enclosure: Any = None,
                        condition: Mapping[str, str] | None = None, rtol: Fraction | None = None,
                        inputs: Mapping[str, Any] | None = None, precision_bits: int = 0,
                        timing_seconds: float = 0.0, extra: Mapping[str, Any] | None = None,
                        interval_is_canonical: bool = False) -> "Certificate":
        """A calibration certificate; ``value`` is the ``safe_side`` end of ``interval``.

        ``interval_is_canonical``: the ends are already ``Decimal(exact_str(end))`` (the ends of a
        :class:`~certdp.numbers.Bracket` are), so they are taken as given -- the same Decimals."""
        if interval_is_canonical and type(interval[0]) is Decimal and type(interval[1]) is Decimal:
            lo, hi = interval
        else:
            lo, hi = (_canonical_decimal(x) for x in interval)
        return cls._build(
            kind="calibration", claim=claim, mechanism=mechanism, parameters=parameters,
            inputs={"epsilon": epsilon, "delta": delta, "rtol": rtol, **(inputs or {})},
            method=method, lemma=lemma, extra=extra, timing_seconds=timing_seconds,
            parameter=parameter, value=hi if safe_side == "upper" else lo,
            interval=(lo, hi), safe_side=safe_side,
            delta_enclosure=_strings(delta_enclosure),
            condition=dict(condition) if condition else None, precision_bits=precision_bits,
        )

    @classmethod
    def for_audit(cls, *, mechanism: str, parameter: str, parameters: Mapping[str, Any], epsilon: Fraction,
                  delta: Fraction, verdict: str, delta_enclosure: Any, method: str, lemma: str,
                  value: Fraction | None = None, precision_bits: int = 0, timing_seconds: float = 0.0,
                  extra: Mapping[str, Any] | None = None) -> "Certificate":
        """An audit certificate: ``verdict`` of "``mechanism`` at ``value`` is (epsilon, delta)-DP".

        ``value`` is None for the audit of a named published claim (``extra["claim"]``), whose
        parameter is an irrational ball recomputed from the claim's formula.
        """
        return cls._build(
            kind="audit", claim="verdict", mechanism=mechanism, parameters=parameters,
            inputs={"epsilon": epsilon, "delta": delta}, method=method, lemma=lemma, extra=extra,
            timing_seconds=timing_seconds, parameter=parameter,
            value=None if value is None else _display_value(value), verdict=verdict,
            delta_enclosure=_strings(delta_enclosure), precision_bits=precision_bits,
        )

    @classmethod
    def for_profile(cls, *, mechanism: str, parameter: str, parameters: Mapping[str, Any], epsilon: Fraction,
                    value: Fraction, delta_enclosure: Any, method: str, lemma: str, precision_bits: int = 0,
                    timing_seconds: float = 0.0, extra: Mapping[str, Any] | None = None) -> "Certificate":
        """A profile certificate: ``delta_enclosure`` contains delta(epsilon) at ``value``."""
        return cls._build(
            kind="profile", claim="enclosure", mechanism=mechanism, parameters=parameters,
            inputs={"epsilon": epsilon}, method=method, lemma=lemma, extra=extra,
            timing_seconds=timing_seconds, parameter=parameter, value=_display_value(value),
            delta_enclosure=_strings(delta_enclosure), precision_bits=precision_bits,
        )

    @classmethod
    def for_composition(cls, *, claim: str, plan: str, inputs: Mapping[str, Any], method: str, lemma: str,
                        delta_enclosure: Any = None, precision_bits: int = 0, timing_seconds: float = 0.0,
                        extra: Mapping[str, Any] | None = None) -> "Certificate":
        """A composition certificate (mechanism ``plan``, ``parameters = {"plan": <canonical JSON>}``):
        ``delta-enclosure`` (delta(epsilon) of the composed plan lies in ``delta_enclosure``) or
        ``epsilon-enclosure`` (the smallest epsilon with delta(epsilon) <= delta lies in
        ``extra.epsilon_enclosure``)."""
        return cls._build(
            kind="composition", claim=claim, mechanism="plan", parameters={"plan": plan}, inputs=inputs,
            method=method, lemma=lemma, extra=extra, timing_seconds=timing_seconds,
            delta_enclosure=_strings(delta_enclosure), precision_bits=precision_bits,
        )

    # ------------------------------------------------------------ the statement
    @property
    def unsafe_end(self) -> Decimal | None:
        """The end of ``interval`` that is not the safe one (None without an interval)."""
        if self.interval is None:
            return None
        return self.interval[0] if self.safe_side == "upper" else self.interval[1]

    def statement(self) -> str:
        """The guarantee in words, generated from the certified fields only."""
        mech, par = self.mechanism, self.parameter or "parameter"
        eps, delta = self.inputs.get("epsilon", "?"), self.inputs.get("delta", "?")
        dp = f"{eps}-DP (delta = 0)" if delta == "0" else f"({eps}, {delta})-DP"
        enclosure = "[{}, {}]".format(*self.delta_enclosure) if self.delta_enclosure else "(not computed)"
        value = "?" if self.value is None else _exact(self.value)
        if self.kind == "calibration":
            safe, unsafe = value, "?" if self.unsafe_end is None else _exact(self.unsafe_end)
            if self.claim == "minimal":
                safe_word, unsafe_word = ("at least", "below") if self.safe_side == "upper" else ("at most", "above")
                return (f"{mech} noise with {par} {safe_word} {safe} is {dp}; "
                        f"every {par} {unsafe_word} {unsafe} is not.")
            if self.claim == "endpoints":
                return (f"{mech} noise with {par} = {safe} is {dp} and with {par} = {unsafe} it is not "
                        f"(monotonicity in {par} is not proven, so nothing is claimed about other values).")
            if self.claim == "sufficient":
                cond = (self.condition or {}).get("statement", "?")
                return (f"{mech} noise with {par} = {safe} satisfies {cond}, hence is {dp}; "
                        f"{par} = {unsafe} violates that condition (which alone does not make it non-private).")
        if self.kind == "audit":
            claim = self.extra.get("claim")
            shown = value if self.value is not None else f"the claimed {par} ({claim})"
            if self.verdict == "VALID":
                return f"proven: {mech} with {par} = {shown} is {dp}; its true delta is in {enclosure}"
            if self.verdict == "VIOLATED":
                return f"proven: {mech} with {par} = {shown} is NOT {dp}; its true delta is in {enclosure}"
            return (f"undecided: the true delta of {mech} with {par} = {shown}, in {enclosure}, "
                    f"straddles {delta} at the top of the precision ladder")
        if self.kind == "profile":
            return f"delta({eps}) of {mech} with {par} = {value} lies in {enclosure}"
        if self.kind == "shape-search":
            extra = self.extra
            lo, hi = (list(extra.get("objective_bounds") or ["?", "?"]) + ["?", "?"])[:2]
            scale = ((extra.get("scale_certificate") or {}).get("value")
                     or (extra.get("scale_evidence") or {}).get("scale", "?"))
            m = self.inputs.get("moment", "?")
            return (f"GGM with shape p = {extra.get('shape', '?')} and scale {scale} is {dp} for the sensitivity "
                    f"vector ({self.parameters.get('sensitivity', '?')}); the minimum over p in "
                    f"[1, {self.inputs.get('p_max', '?')}] u {{inf}} of log E|X_i|^{m} at the minimal private "
                    f"scale lies in [{lo}, {hi}], and log E|X_i|^{m} of the selected mechanism is at most {hi} "
                    f"(gap <= tolerance {self.inputs.get('tolerance', '?')})")
        if self.kind == "composition":
            plan = self.parameters.get("plan", "?")
            if self.claim == "delta-enclosure":
                return f"delta({eps}) of the composition of the plan {plan} lies in {enclosure}"
            lo, hi = (list(self.extra.get("epsilon_enclosure") or ["?", "?"]) + ["?", "?"])[:2]
            return (f"the composition of the plan {plan} is ({hi}, {delta})-DP and is not (e, {delta})-DP "
                    f"for any e < {lo}")
        return "?"

    # ------------------------------------------------------------ digest
    def body(self) -> dict[str, Any]:
        """The certified content: every field except ``digest`` and the provenance fields."""
        return self._data(_BODY_FIELDS)

    def compute_digest(self) -> str:
        """SHA-256 of the canonical JSON (sorted keys, no spaces, ASCII) of :meth:`body`."""
        canonical = _CANONICAL_JSON.encode(self.body())
        return hashlib.sha256(canonical.encode("ascii")).hexdigest()

    def seal(self) -> "Certificate":
        """Set ``digest`` from the current content and return self."""
        self.digest = self.compute_digest()
        return self

    # ------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data; numbers become exact strings; fields that are None are left out."""
        return self._data(_field_names())

    def _data(self, names: tuple[str, ...]) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name in names:
            v = getattr(self, name)
            if v is None:
                continue
            if name == "value":
                v = _exact(v)
            elif name == "interval":
                v = [_exact(x) for x in v]
            elif isinstance(v, (dict, list)):
                v = _json_copy(v)
            data[name] = v
        return data

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False, ensure_ascii=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> "Certificate":
        """Parse a certificate strictly; :class:`CertificateFormatError` says what is wrong."""
        if isinstance(text, (bytes, bytearray)):
            if len(text) > MAX_TEXT_BYTES:
                raise CertificateFormatError(f"larger than {MAX_TEXT_BYTES} bytes")
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError:
                raise CertificateFormatError("not UTF-8 text (a certificate is UTF-8 JSON)") from None
        if not isinstance(text, str):
            raise CertificateFormatError("a certificate is JSON text")
        if len(text) > MAX_TEXT_BYTES:
            raise CertificateFormatError(f"larger than {MAX_TEXT_BYTES} bytes")
        if "\x00" in text:
            raise CertificateFormatError("binary content (NUL bytes): not a JSON certificate")
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, TypeError) as exc:
            raise CertificateFormatError(f"not valid JSON ({exc})") from None
        except RecursionError:
            raise CertificateFormatError("JSON nested too deeply") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> "Certificate":
        """Check every field's type and size (see the module docstring) and build the object."""
        if not isinstance(data, dict):
            raise CertificateFormatError("a certificate must be a JSON object")
        schema = data.get("schema")
        if schema in OLD_SCHEMAS:
            raise CertificateFormatError(
                f"schema {schema!r} is the old format (certdp 0.1, no 'claim' field); this certdp reads "
                f"{SCHEMA!r}: re-issue the certificate with the current certdp")
        if schema != SCHEMA:
            raise CertificateFormatError(f"unsupported schema {schema!r} (expected {SCHEMA!r})")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise CertificateFormatError(f"unknown field(s): {', '.join(map(str, unknown))[:200]}")
        required = {"kind", "claim", "mechanism", "parameters", "inputs", "method", "lemma", "digest"}
        missing = sorted(required - data.keys())
        if missing:
            raise CertificateFormatError(f"missing field(s): {', '.join(missing)}")
        for key in ("kind", "claim", "mechanism", "method", "lemma", "digest", "guarantee", "created",
                    "parameter", "safe_side", "verdict"):
            if key in data and not isinstance(data[key], str):
                raise CertificateFormatError(f"field {key!r} must be a string")
        kind = data["kind"]
        if kind not in CLAIMS_BY_KIND:
            raise CertificateFormatError(f"unknown kind {kind[:40]!r} (known: {', '.join(CLAIMS_BY_KIND)})")
        if data["claim"] not in CLAIMS_BY_KIND[kind]:
            raise CertificateFormatError(f"claim {data['claim'][:40]!r} is not one of a {kind}'s: "
                                         f"{', '.join(CLAIMS_BY_KIND[kind])}")
        if "verdict" in data and data["verdict"] not in VERDICTS:
            raise CertificateFormatError(f"verdict must be one of {', '.join(VERDICTS)}")
        if "safe_side" in data and data["safe_side"] not in ("upper", "lower"):
            raise CertificateFormatError("safe_side must be 'upper' or 'lower'")
        if not re.fullmatch(r"[0-9a-f]{64}", data["digest"]):
            raise CertificateFormatError("digest must be 64 lowercase hex digits")
        out = dict(data)
        for key in ("parameters", "inputs", "versions", "condition"):
            if key in data:
                _check_string_map(data[key], key)
        for key, text in data["inputs"].items():
            number_text(text, f"inputs.{key}")
        if "extra" in data and not isinstance(data["extra"], dict):
            raise CertificateFormatError("field 'extra' must be a JSON object")
        if "precision_bits" in data and (type(data["precision_bits"]) is not int or
                                         not 0 <= data["precision_bits"] <= 1 << 20):
            raise CertificateFormatError("precision_bits must be an integer in [0, 2^20]")
        if "timing_seconds" in data and (type(data["timing_seconds"]) not in (int, float) or
                                         not 0 <= data["timing_seconds"] < 1e9):
            raise CertificateFormatError("timing_seconds must be a non-negative number")
        if "value" in data:
            out["value"] = _display_value(number_text(data["value"], "value"))
        for key in ("interval", "delta_enclosure"):
            if key in data:
                pair = data[key]
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise CertificateFormatError(f"{key} must be a list [lower, upper]")
                ends = [number_text(x, key) for x in pair]
                if key == "interval":
                    out[key] = tuple(Decimal(_exact(x)) if "/" not in _exact(x) else _bad_interval() for x in ends)
        return cls(**out)


@lru_cache(maxsize=1)
def _field_names() -> tuple[str, ...]:
    return tuple(f.name for f in fields(Certificate))


#: Field defaults that are plain values (no factory), for :meth:`Certificate._build`.
_PLAIN_DEFAULTS = {f.name: f.default for f in fields(Certificate) if f.default is not MISSING}
#: The fields :meth:`Certificate._build` may receive as ``**content``.
_CONTENT_FIELDS = frozenset(_field_names()) - {"kind", "claim", "mechanism", "parameters", "inputs", "method",
                                                "lemma", "extra", "timing_seconds"}

# The lazily sealed fields are looked up through __getattr__: no class attribute may shadow them
# (the dataclass left their defaults there; __init__ keeps its own copy of the defaults).
del Certificate.guarantee, Certificate.digest
_BODY_FIELDS = tuple(name for name in _field_names() if name not in ("digest", *PROVENANCE_FIELDS))
#: The canonical JSON of the digest, one encoder for all (``json.dumps`` with these options
#: would build a new encoder per call).
_CANONICAL_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)


class _NotPlain(Exception):
    pass


_PLAIN_LEAVES = (str, int, bool, type(None))


def _plain_copy(v: Any) -> Any:
    """Deep copy of JSON data made of dicts with str keys, lists, tuples, str, int, bool, None;
    :class:`_NotPlain` for anything else (a float, whose JSON text is decided by ``json``)."""
    kind = type(v)
    if kind in _PLAIN_LEAVES:
        return v
    if kind is dict:
        out = {}
        for k, x in v.items():
            if type(k) is not str:
                raise _NotPlain
            out[k] = _plain_copy(x)
        return out
    if kind is list or kind is tuple:
        return [_plain_copy(x) for x in v]
    raise _NotPlain


def _json_copy(v: Any) -> Any:
    """``json.loads(json.dumps(v))``, without the round trip when ``v`` holds only dicts with
    string keys, lists, tuples, strings, ints, bools and None (then the round trip is a deep copy
    with tuples turned into lists): same result, a fraction of the time."""
    try:
        return _plain_copy(v)
    except (_NotPlain, RecursionError):
        return json.loads(json.dumps(v))


def _bad_interval() -> Decimal:
    raise CertificateFormatError("interval ends must be terminating decimals")


def _check_string_map(value: Any, key: str) -> None:
    if not isinstance(value, dict):
        raise CertificateFormatError(f"field {key!r} must be a JSON object")
    if len(value) > 64:
        raise CertificateFormatError(f"field {key!r} has too many entries")
    for k, v in value.items():
        if not isinstance(v, str) or len(v) > 100_000:
            raise CertificateFormatError(f"{key}.{k} must be a string")


class Stopwatch:
    """Wall-clock timer used by workflows to fill ``timing_seconds``."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return round(time.perf_counter() - self.start, 6)
