"""The ``--grid`` syntax: ``eps=0.01:50:12,delta=1e-12:0.1:8`` (and ``q``, ``sigma``, ``k`` for DP-SGD).

Each axis is ``start:stop:count`` (``count`` log-spaced values from ``start``
to ``stop``, both included) or a single value. Interior values are rounded to
4 significant digits and every value is written as the shortest repr of its
double (``"0.0217"``), so the float a library is called with prints as the
exact decimal certdp audits.

Axes: ``eps`` (epsilon > 0), ``delta`` (in (0, 1)), and for the DP-SGD
questions ``q`` (Poisson sampling rate, in (0, 1]), ``sigma`` (noise
multiplier > 0) and ``k`` (number of steps, an integer >= 1; log-spaced values
are rounded to integers). A question uses some of them (:data:`DPSGD_AXES`);
an axis it does not use is an error naming the ones it does.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

from certdp.numbers import InputError, parse_exact

__all__ = ["DEFAULT_GRID", "DEFAULT_DPSGD_GRID", "DPSGD_AXES", "parse_grid", "parse_axis", "MAX_POINTS"]

DEFAULT_GRID = "eps=0.01:50:12,delta=1e-12:0.1:8"
#: default grids of the DP-SGD questions, by what the library answers (an epsilon, or a noise multiplier)
DEFAULT_DPSGD_GRID = {
    "dpsgd-epsilon": "q=0.001:0.1:3,sigma=0.8:2:3,k=10:1000:3,delta=1e-5",
    "dpsgd-sigma": "q=0.001:0.1:3,eps=0.5:8:3,k=10:1000:3,delta=1e-5",
}
#: the axes a DP-SGD question is asked over
DPSGD_AXES = {
    "dpsgd-epsilon": ("sampling_rate", "sigma", "steps", "delta"),
    "dpsgd-sigma": ("sampling_rate", "epsilon", "steps", "delta"),
}
MAX_POINTS = 10_000
_KEYS = {"eps": "epsilon", "epsilon": "epsilon", "delta": "delta", "q": "sampling_rate",
         "sampling_rate": "sampling_rate", "sigma": "sigma", "k": "steps", "steps": "steps"}
#: the name an axis is typed with (for error messages)
_TYPED = {"epsilon": "eps", "delta": "delta", "sampling_rate": "q", "sigma": "sigma", "steps": "k"}


def _error(reason: str) -> InputError:
    return InputError("grid", reason)


def _number(text: str, axis: str) -> float:
    try:
        q = parse_exact(text, axis)
    except InputError:
        raise _error(f"{axis}: not a number: {text!r}") from None
    value = float(q)
    if not math.isfinite(value) or value <= 0:
        raise _error(f"{axis}: values must be positive (got {text!r})")
    if axis == "delta" and value >= 1:
        raise _error(f"delta: values must be in (0, 1) (got {text!r})")
    if axis == "sampling_rate" and value > 1:
        raise _error(f"q: values must be in (0, 1] (got {text!r})")
    if axis == "steps" and (value != int(value) or value < 1):
        raise _error(f"k: values must be integers >= 1 (got {text!r})")
    return value


def _shortest(value: float) -> str:
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def parse_axis(axis: str, text: str) -> list[str]:
    """Values of one axis as exact decimal strings (InputError ``grid: ...`` when malformed)."""
    parts = text.split(":")
    if len(parts) == 1:
        return [_shortest(_number(parts[0], axis))]
    if len(parts) != 3:
        raise _error(f"{axis}: expected start:stop:count or one value, got {text!r}")
    start, stop = _number(parts[0], axis), _number(parts[1], axis)
    try:
        count = int(parts[2])
    except ValueError:
        raise _error(f"{axis}: count must be an integer, got {parts[2]!r}") from None
    if count < 2:
        raise _error(f"{axis}: count must be at least 2 in start:stop:count (give one value for a single point)")
    if count > MAX_POINTS:
        raise _error(f"{axis}: count {count} is over {MAX_POINTS}")
    if not start < stop:
        raise _error(f"{axis}: start must be below stop (got {parts[0]}:{parts[1]})")
    lo, hi = math.log10(start), math.log10(stop)
    values = [start]
    for i in range(1, count - 1):
        x = 10 ** (lo + (hi - lo) * i / (count - 1))
        values.append(float(f"{x:.4g}"))
    values.append(stop)
    if axis == "steps":
        values = [float(round(v)) for v in values]
    out = [_shortest(v) for v in values]
    if len(set(out)) != len(out):
        raise _error(f"{axis}: {count} values between {parts[0]} and {parts[1]} are too close at 4 digits")
    return out


def parse_grid(text: str, axes_used: tuple[str, ...] = ("epsilon", "delta"),
               default: str = DEFAULT_GRID) -> dict[str, list[str]]:
    """``{"epsilon": [...], "delta": [...]}`` from ``eps=a:b:n,delta=c:d:m``; unset axes take the default.

    ``axes_used`` are the axes of the question (default: epsilon and delta); ``default`` the grid
    whose values fill the axes not given.
    """
    if not text or not text.strip():
        raise _error("empty grid")
    axes: dict[str, list[str]] = {}
    known = ", ".join(_TYPED[a] for a in axes_used)
    for item in text.split(","):
        if "=" not in item:
            raise _error(f"expected key=start:stop:count, got {item.strip()!r}")
        key, _, value = item.partition("=")
        key = key.strip().lower()
        if key not in _KEYS or _KEYS[key] not in axes_used:
            raise _error(f"unknown axis {key!r} (this question's axes: {known})")
        axis = _KEYS[key]
        if axis in axes:
            raise _error(f"{axis} given twice")
        axes[axis] = parse_axis(axis, value.strip())
    defaults = {_KEYS[k]: v for k, v in (item.split("=") for item in default.split(","))}
    for axis in axes_used:
        axes.setdefault(axis, parse_axis(axis, defaults[axis]))
    total = math.prod(len(axes[a]) for a in axes_used)
    if total > MAX_POINTS:
        raise _error(f"{' x '.join(str(len(axes[a])) for a in axes_used)} points is over {MAX_POINTS}")
    return {a: axes[a] for a in axes_used}


def exact(text: str) -> Fraction:
    """The exact rational a grid string stands for."""
    return Fraction(Decimal(text))
