"""Fuzz the whole command tree (issue 20): every input gets an answer, one error line, or UNDECIDED.

For every leaf command of ``certdp`` and every one of its options, hypothesis (derandomized,
bounded) feeds bad, missing and extreme values on top of a valid baseline command line. Each case
runs in-process through ``certdp.cli.main.main`` (the real error mapping) with a small ``--budget``
and must

* exit with a code in {0, 1, 2, 3};
* on exit 2 print exactly one stderr line ``error: ...`` that names the option;
* never print "internal error", a traceback or a Python/numpy warning;
* finish within its budget (plus a small grace).

Whether a value is valid is *not* taken from the parser under test for the always-bad values
(empty, nan, inf, words, out-of-range exponents): those must be refused for every numeric option.
"""

from __future__ import annotations

import time

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import certdp.cli.main as cli_main
from certdp.cli import validate
from certdp.cli.groups import cli

BUDGET = 1.0
GRACE = 4.0  # import-free in-process runs; covers the work done before the deadline is armed

# A valid, fast baseline for every option a command requires (by option name).
BASELINE = {
    "epsilon": "1", "delta": "1e-5", "sigma": "1", "scale": "1", "shape": "2", "dimension": "4",
    "alpha": "0", "power": "2", "rate": "1", "theta": "1", "sigma-star": "1", "components": "1",
}
# Always invalid for a numeric option, whatever its range.
ALWAYS_BAD = ["", " ", "nan", "NaN", "inf", "-inf", "abc", "1e", "1e1000000", "--", "0x10", "1/0", "1..2", "١"]
# Often out of range, sometimes legal extremes.
EDGE = ["0", "-1", "-0", "1", "2.5", "1e-5", "1e400", "1e-100000", "1e-999999", "1e999999", "10000000",
        "-1e-5", "1.5", "1/3", "0.5:2:3", "1,2", "99,99", "1e6", "3"]
# Commands whose computations are long even at valid baseline values: only invalid values are fed.
NO_LEGAL_RUNS = ("table", "optimize", "shape", "crosscheck", "zcdp-compose")


def _leaves():
    return sorted(validate._walk(cli, ""), key=lambda pc: pc[0])


LEAVES = _leaves()


def _numeric(param: click.Parameter) -> bool:
    return isinstance(param, click.Option) and isinstance(param.type, (validate._Typed, validate.WritableFile))


def _flag(param: click.Option) -> str:
    return max((o for o in param.opts if o.startswith("--")), key=len)


def _baseline(path: str, command: click.Command, tmp_path, skip: str | None = None) -> list[str]:
    argv = path.split()
    for param in command.params:
        if isinstance(param, click.Argument):
            if param.name == "mechanism":
                argv.append("gaussian")
            elif param.name == "plan":
                f = tmp_path / "plan.json"
                f.write_text('{"mechanisms": [{"mechanism": "gaussian", "sigma": "10", "count": 10}]}')
                argv.append(str(f))
            else:
                f = tmp_path / "grid.csv"
                f.write_text("epsilon,delta,sigma\n1,1e-5,5\n")
                argv.append(str(f))
            continue
        if param.name == skip or not (param.required or param.name == "epsilon"):
            continue
        name = validate.option_name(param)
        argv += [_flag(param), BASELINE.get(name, "1")]
    return argv


def run(argv: list[str]) -> tuple[int, str, str, float]:
    runner = CliRunner()
    start = time.perf_counter()
    code = 0
    with runner.isolation() as streams:
        try:
            cli_main.main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    out, err = streams[0].getvalue().decode(), streams[1].getvalue().decode()
    return code, out, err, time.perf_counter() - start


def check(argv: list[str], name: str | None, seconds: float | None = BUDGET) -> int:
    if seconds is not None:
        argv = [*argv, "--budget", str(seconds)]
    code, out, err, elapsed = run(argv)
    where = f"certdp {' '.join(argv)} -> exit {code}\nstderr: {err[:500]}"
    assert code in (0, 1, 2, 3), where
    assert "internal error" not in err and "Traceback" not in err, where
    assert "Warning" not in err, where
    if code == 2:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), where
        if name is not None:
            assert name in lines[0], where
    if seconds is not None:
        assert elapsed < seconds + GRACE, where
    return code


@pytest.fixture(autouse=True)
def _no_hard_stop(monkeypatch):
    # in-process: the watchdog thread of a real process must never os._exit the test run
    monkeypatch.setitem(validate.HARD_STOP, "enabled", False)
    monkeypatch.setattr(cli_main, "HARD_STOP", {"enabled": False, "grace": 5.0})


def _cases(path: str, command: click.Command):
    options = [p for p in command.params if _numeric(p) and p.name != "budget"]
    return options


@pytest.mark.parametrize("path", [p for p, _ in LEAVES])
def test_always_bad_values_are_refused_with_one_line(path, tmp_path):
    """Every numeric option of every command refuses nan / inf / words / empty with one line naming it."""
    command = dict(LEAVES)[path]
    for param in _cases(path, command):
        name = validate.option_name(param)
        files = isinstance(param.type, validate.WritableFile)
        cells = isinstance(param.type, validate.CellList)  # "" = no cells, legal
        for value in (("", "/nonexistent/x.png", str(tmp_path)) if files else ("nan", "abc") if cells
                      else ("nan", "abc", "")):
            argv = [*_baseline(path, command, tmp_path, skip=param.name), _flag(param), value]
            assert check(argv, name) == 2, f"{path} {_flag(param)} {value!r} was accepted"


@pytest.mark.parametrize("path", [p for p, _ in LEAVES])
def test_missing_required_options_name_the_option(path, tmp_path):
    command = dict(LEAVES)[path]
    for param in command.params:
        if isinstance(param, click.Option) and param.required:
            argv = _baseline(path, command, tmp_path, skip=param.name)
            assert check(argv, _flag(param), seconds=None) == 2


def _fuzz(path: str, data, tmp_path) -> None:
    command = dict(LEAVES)[path]
    options = _cases(path, command)
    if not options:
        return
    param = data.draw(st.sampled_from(options), label="option")
    legal_runs = not any(w in path.split() for w in NO_LEGAL_RUNS)
    files = isinstance(param.type, validate.WritableFile)
    pool = ["", "/nonexistent/dir/x.png", str(tmp_path), str(tmp_path / "ok.png")] if files else ALWAYS_BAD + EDGE
    value = data.draw(st.sampled_from(pool), label="value")
    name = validate.option_name(param)
    bad = value in ALWAYS_BAD and not files and not (value.strip() == "" and isinstance(param.type, validate.CellList))
    if not bad:
        try:
            param.type.convert(value, param, None)
        except Exception:  # noqa: BLE001 - only decides whether the case runs a computation
            bad = True
    if not bad and not legal_runs:
        return
    argv = [*_baseline(path, command, tmp_path, skip=param.name), _flag(param), value]
    code = check(argv, name)
    if bad and value in ALWAYS_BAD:
        assert code == 2, f"{path} {_flag(param)} {value!r} was accepted"


@pytest.mark.parametrize("path", [p for p, _ in LEAVES])
@settings(derandomize=True, max_examples=12, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_options(path, data, tmp_path):
    _fuzz(path, data, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for p, _ in LEAVES])
@settings(derandomize=True, max_examples=200, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_options_slow(path, data, tmp_path):
    _fuzz(path, data, tmp_path)


def test_every_leaf_has_a_budget():
    for path, command in LEAVES:
        assert any(p.name == "budget" for p in command.params), path


def test_bare_groups_print_one_line():
    for group in ("calibrate", "profile", "audit", "table", "optimize", "shape"):
        code, _, err, _ = run([group])
        assert code == 2 and len(err.strip().splitlines()) == 1 and "choose from" in err, err


def test_matplotlib_is_imported_before_the_budget_alarm_starts(tmp_path):
    """A ``--plot`` command imports matplotlib before its ``--budget`` alarm is armed.  Fails before: the
    import ran under the alarm; on a loaded machine (``test_fuzz_options``, budget 1 s, CI at load 4)
    the alarm cut it, and the next example in the same process failed with ``AttributeError: module
    'matplotlib' has no attribute 'get_data_path'`` reported as an internal error.  Checked in a fresh
    interpreter (matplotlib not yet imported) by recording ``sys.modules`` when the alarm is set."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(f'''
        import signal, sys
        from click.testing import CliRunner
        from certdp.cli.main import cli
        seen = []
        real = signal.setitimer
        def spy(which, seconds, *rest):
            if seconds:
                seen.append("matplotlib.pyplot" in sys.modules)
            return real(which, seconds, *rest)
        signal.setitimer = spy
        assert "matplotlib.pyplot" not in sys.modules
        r = CliRunner().invoke(cli, ["profile", "laplace", "--epsilon", "1,2", "--scale", "1",
                                     "--plot", {str(tmp_path / "p.png")!r}, "--budget", "60"])
        assert r.exit_code == 0, r.output
        print(seen)
        ''')
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    seen = eval(out.stdout.strip().splitlines()[-1])
    assert seen and all(seen), seen


def test_budget_hard_stop_ends_a_single_long_flint_call():
    """python-flint holds the interpreter lock through one FLINT call, so neither the ``--budget`` alarm nor
    the watchdog thread can run inside it (the thread fired only after the call returned).  faulthandler's
    C-level timer ends the process ``2 * grace`` after the budget: exit 1 with "Timeout" and the stack, before
    the call (``fmpz.fac_ui(2e7)``, ~5 s here; budget 0.5 s, grace 0.5 s) ends.  Fails before: the process
    ran the call to its end and then exited 3."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent('''
        from certdp.cli import validate
        from flint import fmpz
        validate.HARD_STOP.update(enabled=True, grace=0.5)
        with validate._deadline(0.5):
            fmpz.fac_ui(2 * 10**7)
        print("the call finished")
        ''')
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert "Timeout" in out.stderr and "the call finished" not in out.stdout
