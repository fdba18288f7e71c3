"""The certificate: the one object every certdp workflow returns.

A certificate records the exact inputs, the mechanism and its fixed
parameters, the certified result (an interval, a safe value, a certified
enclosure of delta at that value, or an audit verdict), the method and the
result it rests on, and provenance (precision, timing, package versions). Its
``digest`` is the SHA-256 of the canonical JSON of every other field, so any
edit is detected by :func:`certdp.workflows.verify.verify`.
"""

from __future__ import annotations

import hashlib
import json
import platform
import time
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

__all__ = ["Certificate", "CertificateFormatError", "SCHEMA", "package_versions"]

SCHEMA = "certdp.certificate/1"


class CertificateFormatError(ValueError):
    """The text is not a well-formed certdp certificate."""


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


@dataclass
class Certificate:
    """A certified result. See the module docstring; ``digest`` is filled in by :meth:`seal`.

    For a calibration, ``interval = [lo, hi]`` brackets the optimal parameter;
    ``safe_side`` says which end is proven private ("upper" for a scale,
    "lower" for a rate), ``value`` is that end (at most 17 significant digits)
    and ``delta_enclosure`` a certified enclosure of delta(epsilon) at ``value``.
    """

    kind: str
    mechanism: str
    parameters: dict[str, str]
    inputs: dict[str, str]
    method: str
    lemma: str
    delta_enclosure: list[str]
    parameter: str | None = None
    value: Decimal | None = None
    interval: tuple[Decimal, Decimal] | None = None
    safe_side: str | None = None
    verdict: str | None = None
    guarantee: str = ""
    precision_bits: int = 0
    timing_seconds: float = 0.0
    versions: dict[str, str] = field(default_factory=package_versions)
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    extra: dict[str, Any] = field(default_factory=dict)
    schema: str = SCHEMA
    digest: str = ""

    # ------------------------------------------------------------ digest
    def body(self) -> dict[str, Any]:
        """All fields except ``digest``, as plain JSON data."""
        data = self.to_dict()
        data.pop("digest")
        return data

    def compute_digest(self) -> str:
        canonical = json.dumps(self.body(), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(canonical.encode("ascii")).hexdigest()

    def seal(self) -> "Certificate":
        """Set ``digest`` from the current content and return self."""
        self.digest = self.compute_digest()
        return self

    # ------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data; decimals become exact strings."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["parameters"] = dict(self.parameters)
        data["inputs"] = dict(self.inputs)
        data["delta_enclosure"] = list(self.delta_enclosure)
        data["versions"] = dict(self.versions)
        data["extra"] = json.loads(json.dumps(self.extra))
        if self.value is not None:
            data["value"] = _decimal_text(self.value)
        if self.interval is not None:
            data["interval"] = [_decimal_text(x) for x in self.interval]
        return data

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False, ensure_ascii=True)

    @classmethod
    def from_json(cls, text: str) -> "Certificate":
        """Parse a certificate; :class:`CertificateFormatError` if it is not JSON or lacks fields."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, TypeError) as exc:
            raise CertificateFormatError(f"not valid JSON ({exc})") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> "Certificate":
        if not isinstance(data, dict):
            raise CertificateFormatError("a certificate must be a JSON object")
        names = {f.name for f in fields(cls)}
        required = {"kind", "mechanism", "parameters", "inputs", "method", "lemma", "delta_enclosure", "digest"}
        missing = sorted(required - data.keys())
        if missing:
            raise CertificateFormatError(f"missing field(s): {', '.join(missing)}")
        unknown = sorted(set(data) - names)
        if unknown:
            raise CertificateFormatError(f"unknown field(s): {', '.join(unknown)}")
        if data.get("schema", SCHEMA) != SCHEMA:
            raise CertificateFormatError(f"unsupported schema {data.get('schema')!r} (expected {SCHEMA})")
        data = dict(data)
        try:
            if data.get("value") is not None:
                data["value"] = Decimal(str(data["value"]))
            if data.get("interval") is not None:
                lo, hi = data["interval"]
                data["interval"] = (Decimal(str(lo)), Decimal(str(hi)))
        except (InvalidOperation, ValueError, TypeError):
            raise CertificateFormatError("value / interval must be decimal strings") from None
        for key in ("parameters", "inputs", "extra", "versions"):
            if key in data and not isinstance(data[key], dict):
                raise CertificateFormatError(f"field {key!r} must be a JSON object")
        if not (isinstance(data["delta_enclosure"], list) and len(data["delta_enclosure"]) == 2):
            raise CertificateFormatError("delta_enclosure must be a list [lower, upper]")
        return cls(**data)



def _decimal_text(x: Decimal) -> str:
    from fractions import Fraction

    from certdp.numbers.exact import exact_str

    return exact_str(Fraction(x))


class Stopwatch:
    """Wall-clock timer used by workflows to fill ``timing_seconds``."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return round(time.perf_counter() - self.start, 6)
