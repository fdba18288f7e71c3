"""Cross-check a float implementation's calibrations over a grid.

Input: rows with ``epsilon``, ``delta``, the mechanism's parameter (e.g.
``sigma``) and optionally its fixed parameters (``sensitivity``, ...), as a
CSV file. Each row gets a certified audit verdict (VALID / VIOLATED /
UNDECIDED) and, optionally, the certified minimal parameter, so a library
author sees both unsafe rows and how much noise is wasted on safe ones.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable

from certdp.mechanisms import get_mechanism
from certdp.numbers import InputError, parse_exact
from certdp.workflows.audit import audit
from certdp.workflows.calibrate import calibrate

__all__ = ["CrosscheckRow", "crosscheck_rows", "read_grid_csv"]


@dataclass
class CrosscheckRow:
    epsilon: str
    delta: str
    value: str
    verdict: str
    delta_enclosure: list[str]
    certified_minimum: str | None = None
    relative_excess: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def read_grid_csv(path: str | Path, parameter: str) -> list[dict[str, str]]:
    """Read a CSV with a header containing epsilon, delta and ``parameter`` (InputError otherwise)."""
    file = Path(path)
    if not file.is_file():
        raise InputError("FILE", f"no such file: {path}")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("FILE", f"not a UTF-8 text CSV file (byte {exc.start}: {exc.reason})") from None
    if "\0" in text:
        raise InputError("FILE", "not a text CSV file (contains NUL bytes)")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    missing = [c for c in ("epsilon", "delta", parameter) if c not in header]
    if missing:
        raise InputError("FILE", f"CSV header lacks column(s) {', '.join(missing)} (has: {', '.join(header)})")
    rows = []
    for number, row in enumerate(reader, start=1):
        if None in row:
            raise InputError("FILE", f"row {number} has more fields than the header ({len(header)})")
        if any(v is None for v in row.values()):
            raise InputError("FILE", f"row {number} has fewer fields than the header ({len(header)})")
        rows.append(dict(row))
    return rows


def crosscheck_rows(mechanism: str, rows: Iterable[dict[str, str]], *, with_minimum: bool = True,
                    progress: Callable[[], None] | None = None) -> list[CrosscheckRow]:
    """Audit each row; with ``with_minimum`` also certify the minimal parameter and the relative excess."""
    cls = get_mechanism(mechanism)
    out: list[CrosscheckRow] = []
    for number, row in enumerate(rows, start=1):
        fixed = {k: v for k, v in row.items() if k not in ("epsilon", "delta", cls.parameter) and v not in (None, "")}
        try:
            cert = audit(mechanism, value=row[cls.parameter], epsilon=row["epsilon"], delta=row["delta"], **fixed)
        except InputError as exc:
            raise InputError(f"row {number}", str(exc)) from None
        result = CrosscheckRow(cert.inputs["epsilon"], cert.inputs["delta"], row[cls.parameter].strip(),
                               cert.verdict or "UNDECIDED", cert.delta_enclosure)
        if with_minimum:
            best = calibrate(mechanism, epsilon=row["epsilon"], delta=row["delta"], **fixed)
            result.certified_minimum = str(best.value)
            given = parse_exact(row[cls.parameter], cls.parameter)
            result.relative_excess = float((given - Fraction(best.value)) / Fraction(best.value))
        out.append(result)
        if progress is not None:
            progress()
    return out
