"""The CLI's input-validation layer: click parameter types and the wrapper every command runs in.

Every numeric option of every command is declared with one of the types below. Each parses the
text with the exact rules of :mod:`certdp.numbers.exact` (the same rules as the Python API) and
raises :class:`~certdp.numbers.InputError` naming the option, which ``certdp.cli.main`` prints as
exactly one line ``error: <parameter>: <reason>`` with exit code 2. Number types return the
*stripped text* (commands and workflows parse it exactly again; nothing is rounded here); count
types return an ``int``.

:func:`install` walks the command tree once and gives every leaf command

* ``--budget SECONDS`` (default 600, or ``$CERTDP_BUDGET``): a wall-clock deadline. When it
  passes, the computation is interrupted and the command ends UNDECIDED (exit 3) with one line
  saying so. That is honest: no answer is claimed. (When run from ``certdp.cli.main.main``, a
  watchdog thread ends an overrun of 5 s with exit 3 and the same line; a computation stuck inside
  one C call holds the interpreter lock, so that thread cannot run either, and faulthandler's C-level
  timer ends the process 10 s after the budget with exit status 1 and the stack of the call on stderr.)
* the mechanism's domain check (:mod:`certdp.mechanisms.domains`), decided before any work;
* UNDECIDED reporting: one ``UNDECIDED: <reason>`` line on stderr, and with ``--json`` a JSON
  object ``{"verdict": "UNDECIDED", "reason": ..., "delta_enclosure": ...}`` on stdout;
* quiet numerics: numpy floating-point warnings and Python warnings never reach stderr, and
  Python's 4300-digit int/str limit is lifted for the command (inputs are bounded up front);
* a progress spinner on stderr after 2 s for commands without their own progress display
  (only when stderr is a terminal).
"""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import sys
import threading
import warnings
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator

import click

from certdp.numbers import InputError, UndecidedError, parse_int, parse_real

__all__ = [
    "Real", "RealList", "Count", "GridSpec", "WritableFile", "CellList",
    "EPSILON", "EPSILON0", "DELTA", "DELTA0", "POSITIVE", "NONNEGATIVE", "FRACTION", "RTOL",
    "EPSILON_LIST", "SENSITIVITY_VECTOR", "SHAPE", "RealOrInf", "BUDGET", "OUTPUT_FILE", "PLOT_FILE",
    "BudgetExceeded", "install", "option_name", "DEFAULT_BUDGET", "MAX_GRID_POINTS",
]

DEFAULT_BUDGET = 600.0
#: Largest (eps, delta) grid of ``shape ggm --grid`` (points per axis; product of both axes).
MAX_GRID_AXIS = 1000
MAX_GRID_POINTS = 10_000


def option_name(param: click.Parameter | None, fallback: str = "value") -> str:
    """The user-facing name of an option: its longest flag without dashes (``--components`` -> components)."""
    if param is None:
        return fallback
    opts = [o for o in getattr(param, "opts", []) if o.startswith("--")] or getattr(param, "opts", [])
    if not opts:
        return param.name or fallback
    return max(opts, key=len).lstrip("-")


class _Typed(click.ParamType):
    """Base: convert() raises InputError (one line, exit 2) instead of click's multi-line usage error."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value is None:
            return None
        return self.check(value, option_name(param))

    def check(self, value: Any, name: str) -> Any:  # pragma: no cover - every subclass defines it
        """Return the checked value, or raise InputError naming ``name`` (each subclass says how)."""
        raise TypeError(f"{type(self).__name__} must define check()")


class Real(_Typed):
    """An exact real number in an interval; returns the stripped text."""

    def __init__(self, low=None, high=None, *, low_open: bool = False, high_open: bool = False,
                 metavar: str = "NUMBER"):
        self.low = None if low is None else Fraction(low)
        self.high = None if high is None else Fraction(high)
        self.low_open, self.high_open = low_open, high_open
        self.name = metavar.lower()
        self._metavar = metavar

    def get_metavar(self, param, ctx=None) -> str:  # noqa: D401 - click API (ctx arg since click 8.2)
        return self._metavar

    def parse(self, value: Any, name: str) -> Fraction:
        return parse_real(value, name, low=self.low, high=self.high, low_open=self.low_open,
                          high_open=self.high_open)

    def check(self, value: Any, name: str) -> Any:
        if isinstance(value, (Fraction, int)) and not isinstance(value, bool):
            self.parse(value, name)
            return value
        self.parse(value, name)
        return str(value).strip()


class RealOrInf(Real):
    """Like :class:`Real`, but ``inf`` (the limit shape p = infinity) is accepted too; returns text."""

    def check(self, value: Any, name: str) -> Any:
        if str(value).strip().lower().lstrip("+") in ("inf", "infinity"):
            return "inf"
        return super().check(value, name)


class RealList(Real):
    """A comma-separated, non-empty list of exact reals; returns the text with empty items dropped."""

    def __init__(self, *args: Any, max_items: int = 10_000, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.max_items = max_items

    def check(self, value: Any, name: str) -> Any:
        items = [v.strip() for v in str(value).split(",")]
        if not any(items):
            raise InputError(name, "expected a number or a comma-separated list, got an empty string")
        if "" in items:
            raise InputError(name, f"empty item in the comma-separated list {str(value)!r}")
        if len(items) > self.max_items:
            raise InputError(name, f"at most {self.max_items} values (got {len(items)})")
        for item in items:
            self.parse(item, name)
        return ",".join(items)


class Count(_Typed):
    """An integer (a count, dimension, budget of evaluations) in ``[low, high]``; returns ``int``."""

    name = "integer"

    def __init__(self, low: int | None = None, high: int | None = None):
        self.low, self.high = low, high

    def get_metavar(self, param, ctx=None) -> str:
        return "N"

    def check(self, value: Any, name: str) -> int:
        return parse_int(value, name, low=self.low, high=self.high)


class GridSpec(Real):
    """``START:STOP:N`` (N points) or a comma list; each value checked like :class:`Real`; returns text."""

    def check(self, value: Any, name: str) -> Any:
        text = str(value).strip()
        if ":" in text:
            parts = [p.strip() for p in text.split(":")]
            if len(parts) != 3:
                raise InputError(name, f"expected START:STOP:N or a comma list, got {text!r}")
            self.parse(parts[0], name)
            self.parse(parts[1], name)
            parse_int(parts[2], name, low=1, high=MAX_GRID_AXIS)
            return ":".join(parts)
        return RealList.check(self, text, name)  # type: ignore[arg-type]

    max_items = MAX_GRID_AXIS


class CellList(_Typed):
    """``row,col;row,col`` table cells (or ``all``) inside a ``rows`` x ``cols`` table; returns text."""

    name = "cells"

    def __init__(self, rows: int, cols: int):
        self.rows, self.cols = rows, cols

    def check(self, value: Any, name: str) -> Any:
        text = str(value).strip()
        if text in ("", "all"):
            return text
        for cell in text.split(";"):
            if not cell.strip():
                continue
            parts = cell.split(",")
            if len(parts) != 2:
                raise InputError(name, f"expected 'row,col;row,col' or 'all', got {cell.strip()!r}")
            parse_int(parts[0], name, low=0, high=self.rows - 1)
            parse_int(parts[1], name, low=0, high=self.cols - 1)
        return text


class WritableFile(click.Path):
    """A file path that can be written: checked before any computation (exit 2 otherwise)."""

    def __init__(self, suffix: str | None = None):
        super().__init__(dir_okay=False, allow_dash=False)
        self.suffix = suffix

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value is None:
            return None
        name = option_name(param, "file")
        path = Path(str(value))
        if not str(value).strip():
            raise InputError(name, "expected a file name, got an empty string")
        if path.is_dir():
            raise InputError(name, f"{value} is a directory")
        parent = path.parent if str(path.parent) else Path(".")
        if not parent.is_dir():
            raise InputError(name, f"cannot write {value}: directory {parent} does not exist")
        if path.exists() and not os.access(path, os.W_OK):
            raise InputError(name, f"cannot write {value}: permission denied")
        if not path.exists() and not os.access(parent, os.W_OK):
            raise InputError(name, f"cannot write {value}: directory {parent} is not writable")
        if self.suffix and path.suffix.lower() != self.suffix:
            raise InputError(name, f"expected a {self.suffix} file name (got {value})")
        return str(value)


# ---------------------------------------------------------------- the shared instances
EPSILON = Real(0, low_open=True, metavar="EPS")            # epsilon > 0
EPSILON0 = Real(0, metavar="EPS")                          # epsilon >= 0 (a profile point)
EPSILON_LIST = RealList(0, metavar="EPS[,EPS...]")         # profile curves
DELTA = Real(0, 1, low_open=True, high_open=True, metavar="DELTA")   # delta in (0, 1)
DELTA0 = Real(0, 1, high_open=True, metavar="DELTA")       # delta in [0, 1) (Laplace: 0 is pure DP)
POSITIVE = Real(0, low_open=True)                          # scales, sensitivities, rates
NONNEGATIVE = Real(0)
FRACTION = Real(0, 1, low_open=True, high_open=True)       # eta, tolerances in (0, 1)
SHAPE = RealOrInf(1, metavar="P")                          # generalized Gaussian shape p in [1, inf]
RTOL = Real(0, 1, low_open=True, high_open=True, metavar="RTOL")
SENSITIVITY_VECTOR = RealList(0, low_open=True, metavar="D or D1,D2,...", max_items=1000)
BUDGET = Real(0, 10**6, low_open=True, metavar="SECONDS")
OUTPUT_FILE = WritableFile()
PLOT_FILE = WritableFile(".png")


# ---------------------------------------------------------------- the wrapper every command runs in
class BudgetExceeded(BaseException):
    """The ``--budget`` deadline passed. A BaseException so that no ``except Exception`` swallows it."""


_state = threading.local()
#: Set by ``certdp.cli.main.main`` (a real process): allows the hard-stop watchdog thread.
HARD_STOP = {"enabled": False, "grace": 5.0}
#: Commands that draw their own progress display (no extra spinner for them).
_OWN_PROGRESS = ("shape", "optimize", "table", "crosscheck", "sgg", "spherical-gaussian", "l2-laplace", "r1smg")


@contextmanager
def _deadline(seconds: float, reached: dict | None = None) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def _raise(signum, frame):  # noqa: ARG001
        raise BudgetExceeded()

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    watchdog = None
    if HARD_STOP["enabled"]:
        def _hard_stop() -> None:
            partial = _reached_points(reached) if reached else None
            so_far = f"; certified so far: {partial[0]}" if partial else ""
            sys.stderr.write(f"UNDECIDED: the budget of {seconds:g} s was exceeded (hard stop inside a "
                             f"long numerical call; no answer is claimed{so_far})\n")
            sys.stderr.flush()
            os._exit(3)

        watchdog = threading.Timer(seconds + HARD_STOP["grace"], _hard_stop)
        watchdog.daemon = True
        watchdog.start()
        # python-flint holds the interpreter lock through a FLINT / Arb call, so neither the alarm nor the
        # thread above runs until the call returns (a 1 s timer fired after a 4.8 s fmpz.fac_ui).  The last
        # resort is faulthandler's C thread, which needs no lock: it prints "Timeout" and the stack of the
        # call that overran (on stderr), then ends the process with exit status 1 -- no answer claimed
        for stream in (sys.stderr, sys.__stderr__):
            try:
                faulthandler.dump_traceback_later(seconds + 2 * HARD_STOP["grace"], exit=True, file=stream)
                break
            except (AttributeError, ValueError, OSError):     # a stream without a file descriptor
                continue
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if watchdog is not None:
            watchdog.cancel()
            faulthandler.cancel_dump_traceback_later()


@contextmanager
def _quiet_numerics() -> Iterator[None]:
    import numpy as np

    old_limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else None
    if old_limit is not None:
        sys.set_int_max_str_digits(0)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            yield
    finally:
        if old_limit is not None:
            sys.set_int_max_str_digits(old_limit)


@contextmanager
def _spinner(enabled: bool, label: str) -> Iterator[None]:
    if not enabled:
        yield
        return
    from rich.console import Console

    console = Console(stderr=True)
    status = console.status(f"{label} ...", spinner="dots")
    timer = threading.Timer(2.0, status.start)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        status.stop()


def _undecided(reason: str, as_json: bool, command: str, enclosure: Any = None,
               extra: dict | None = None) -> None:
    if as_json:
        click.echo(json.dumps({"verdict": "UNDECIDED", "reason": reason, "command": command,
                               "delta_enclosure": list(enclosure) if enclosure else None, **(extra or {})},
                              indent=2))
    click.echo(f"UNDECIDED: {reason}", err=True)
    sys.exit(3)


@contextmanager
def _bracket_record(path: str, reached: dict) -> Iterator[None]:
    """For ``calibrate`` commands: keep the calibration bracket's certified points in ``reached``."""
    if path.split()[0] != "calibrate":
        yield
        return
    from certdp.numbers.bracket import bracket_reached

    with bracket_reached(reached):
        yield


def _reached_points(reached: dict) -> tuple[str, dict] | None:
    from certdp.numbers.bracket import describe_reached

    return describe_reached(reached)


def _import_matplotlib() -> None:
    """Import matplotlib (Agg) and pyplot *before* the ``--budget`` alarm starts: an import that the alarm
    cuts leaves half-initialised modules behind, and in a process that goes on (``CliRunner`` in the
    tests, a notebook) the next plot failed with ``AttributeError: module 'matplotlib' has no attribute
    'get_data_path'``.  An import is not part of the computation the budget bounds."""
    from certdp.cli.plots import agg_pyplot

    agg_pyplot()


def _wrap(command: click.Command, path: str) -> None:
    original = command.callback
    if original is None or getattr(original, "_certdp_wrapped", False):
        return

    def callback(*args: Any, budget: Any = None, **kwargs: Any) -> Any:
        seconds = float(Fraction(budget)) if budget is not None else _default_budget()
        as_json = bool(kwargs.get("as_json"))
        from certdp.mechanisms.domains import check_command

        check_command(path, kwargs)
        spin = (not as_json and sys.stderr.isatty()
                and not any(word in path.split() for word in _OWN_PROGRESS))
        reached: dict = {}
        if kwargs.get("plot"):
            _import_matplotlib()
        try:
            with _quiet_numerics(), _deadline(seconds, reached), _spinner(spin, f"certdp {path}"), \
                    _bracket_record(path, reached):
                return original(*args, **kwargs)
        except BudgetExceeded:
            partial = _reached_points(reached)
            if partial is not None:
                text, data = partial
                _undecided(f"the budget of {seconds:g} s was exceeded before the requested width; certified "
                           f"so far: {text} (raise --budget for the calibrated value)", as_json, path,
                           extra={"reached": data})
            _undecided(f"the budget of {seconds:g} s was exceeded before a certified answer (no answer is "
                       "claimed; raise --budget)", as_json, path)
        except UndecidedError as exc:
            _undecided(str(exc), as_json, path, getattr(exc, "enclosure", None))
        except (OverflowError, ZeroDivisionError, FloatingPointError) as exc:
            # A float range problem inside an engine: no answer was produced, so UNDECIDED is honest.
            # It still marks an input the domain table should refuse up front (please report it).
            _undecided(f"numerical range exceeded inside the computation ({type(exc).__name__}: {exc}); "
                       "no answer is claimed", as_json, path)

    callback._certdp_wrapped = True  # type: ignore[attr-defined]
    command.callback = callback
    command.params.append(click.Option(
        ["--budget"], type=BUDGET, default=None, show_default=f"{DEFAULT_BUDGET:g}, or $CERTDP_BUDGET",
        help="Wall-clock seconds; past it the command ends UNDECIDED (exit 3), claiming nothing."))


def _default_budget() -> float:
    text = os.environ.get("CERTDP_BUDGET")
    if not text:
        return DEFAULT_BUDGET
    return float(BUDGET.parse(text, "CERTDP_BUDGET"))


def _walk(group: click.Command, prefix: str) -> Iterator[tuple[str, click.Command]]:
    if isinstance(group, click.Group):
        for name, sub in group.commands.items():
            yield from _walk(sub, f"{prefix} {name}".strip())
    else:
        yield prefix, group


def install(root: click.Group) -> None:
    """Give every leaf command of ``root`` the budget, domain check and UNDECIDED reporting (idempotent)."""
    for path, command in _walk(root, ""):
        _wrap(command, path)  # no-op for an already wrapped command
    for _, group in _groups(root):
        group.no_args_is_help = False
        group.invoke_without_command = False


def _groups(root: click.Command, prefix: str = "") -> Iterator[tuple[str, click.Group]]:
    if isinstance(root, click.Group):
        yield prefix, root
        for name, sub in root.commands.items():
            yield from _groups(sub, f"{prefix} {name}".strip())
