"""Issue 20's example command lines (benchmarks/issue20_examples.py), run in-process.

Bad-input lines must exit 2 with one line naming the parameter (fast, default run). Legal extreme
lines must give an answer or end UNDECIDED within their budget (slow-marked: each may use it).
"""

from __future__ import annotations

import importlib.util
import shlex
from pathlib import Path

import pytest

from test_cli_fuzz import _no_hard_stop, run  # noqa: F401  (fixture reused)

_spec = importlib.util.spec_from_file_location(
    "issue20_examples", Path(__file__).resolve().parents[1] / "benchmarks" / "issue20_examples.py")
examples = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(examples)

BAD = [line for line, expect in examples.EXAMPLES if expect == "2"]
LEGAL = [line for line, expect in examples.EXAMPLES if expect == "any"]
BUDGET = 10.0


def _argv(line: str, tmp_path) -> list[str]:
    files = examples._files(str(tmp_path))
    return shlex.split(line.format(**files))


@pytest.mark.parametrize("line", BAD)
def test_bad_input_lines_exit_2_with_one_line(line, tmp_path):
    argv = _argv(line, tmp_path)
    code, _, err, _ = run(argv + (["--budget", "20"] if len(argv) > 1 else []))
    assert examples.classify(code, err, "2") == "ok", (line, code, err)
    assert code == 2


@pytest.mark.slow
@pytest.mark.parametrize("line", LEGAL)
def test_legal_extreme_lines_answer_or_undecided_within_budget(line, tmp_path):
    code, _, err, seconds = run(_argv(line, tmp_path) + ["--budget", str(BUDGET)])
    assert examples.classify(code, err, "any") == "ok", (line, code, err)
    assert seconds < BUDGET + 5
