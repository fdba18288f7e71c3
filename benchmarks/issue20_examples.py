"""Replay issue 20's example command lines; report how each behaves.

Each line is run as a subprocess (``python -m certdp.cli.main``) with a wall-clock limit.
A line PASSES when it

* exits 2 with exactly one stderr line ``error: <parameter>: ...`` (always acceptable), or
* (only where the line is legal input, ``expect="any"``) exits 0 or 3 within the limit,
  with no "internal error", no traceback and no warning on stderr.

``expect="2"`` lines are bad input: only a one-line exit 2 passes (exit 0 there is a silent accept).

    PYTHONPATH=. python3 benchmarks/issue20_examples.py [--limit SECONDS] [--budget SECONDS] [-k SUBSTRING]
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time

MG = "audit multi-gaussian --sigma 1 -K 2 --epsilon 1"
PROFILES = [
    "profile gaussian --sigma 2", "profile laplace --scale 1", "profile uniform --scale 1",
    "profile ggm --shape 1.5 --scale 1", "profile sgg -T 2 -a 0 -p 1 --rate 1",
    "profile spherical-gaussian -T 2 --sigma 1", "profile l2-laplace -T 2 --theta 1",
    "profile r1smg -T 2 --sigma-star 1", "profile quasi-gaussian --sigma 1",
    "profile multi-gaussian --sigma 1 -K 2",
]

#: (command line, expectation): "2" = must be refused with one line, "any" = 0/2/3 within the limit.
EXAMPLES: list[tuple[str, str]] = [
    (f"{MG} --delta 1", "2"),
    (f"{MG} --delta 1.5", "2"),
    *[(f"{p} --epsilon ''", "2") for p in PROFILES],
    ("shape ggm --grid --epsilon '' --delta 1e-5", "2"),
    ("shape ggm --grid --epsilon 0.5:2:3 --delta 1e-5 --sensitivity nan", "2"),
    ("shape ggm --grid --epsilon 1 --delta 1e-5 --moment 0", "2"),
    ("shape ggm --epsilon 1 --delta 1e-5 --moment 0", "2"),
    *[(f"{MG} --delta {d}", "2") for d in ("nan", "abc", "''", "0", "-1e-5")],
    ("audit multi-gaussian --sigma 1 -K -1 --epsilon 1 --delta 1e-5", "2"),
    ("calibrate multi-gaussian -K -1 --epsilon 1 --delta 1e-5", "2"),
    ("calibrate quasi-gaussian --epsilon 1 --delta 1e-5 --rtol 1", "2"),
    ("calibrate multi-gaussian -K 2 --epsilon 1 --delta 1e-5 --rtol 1", "2"),
    ("shape ggm --epsilon 1 --delta 1e-5 -t abc", "2"),
    ("shape ggm --grid --epsilon 1 --delta 1e-5 --sensitivity 0", "2"),
    ("shape ggm --grid --epsilon 1 --delta 1e-5 --sensitivity -1", "2"),
    ("shape ggm --grid --epsilon 1 --delta 1e-5 --moment -1", "2"),
    ("calibrate uniform --epsilon 1 --delta 1e-100000", "any"),
    ("calibrate quasi-gaussian --epsilon 1e400 --delta 1e-5", "any"),
    ("calibrate multi-gaussian -K 2 --epsilon 1e400 --delta 1e-5", "any"),
    ("shape ggm --epsilon 1e400 --delta 1e-5", "any"),
    ("optimize sgg -T 4 --epsilon 1e400 --delta 1e-5", "any"),
    ("optimize multi-gaussian --epsilon 1e400 --delta 1e-5", "any"),
    ("shape ggm --epsilon 1 --delta 1e-100000", "any"),
    ("optimize sgg -T 4 --epsilon 1 --delta 1e-100000", "any"),
    ("optimize multi-gaussian --epsilon 1 --delta 1e-100000", "any"),
    ("calibrate gaussian --epsilon 1e400 --delta 1e-5", "any"),
    ("calibrate laplace --epsilon 1e400 --delta 1e-5", "any"),
    ("calibrate ggm -p 1.5 --epsilon 1e400 --delta 1e-5", "any"),
    ("calibrate sgg -T 4 -a 0 -p 1 --epsilon 1e400 --delta 1e-5", "any"),
    ("calibrate spherical-gaussian -T 4 --epsilon 1e400 --delta 1e-5", "any"),
    ("calibrate l2-laplace -T 4 --epsilon 1e400 --delta 1e-5", "any"),
    ("calibrate r1smg -T 4 --epsilon 1e400 --delta 1e-5", "any"),
    ("profile gaussian --sigma 1 --epsilon 1e400", "any"),
    ("profile laplace --scale 1 --epsilon 1e400", "any"),
    ("profile ggm --shape 1.5 --scale 1 --epsilon 1e400", "any"),
    ("profile sgg -T 4 -a 0 -p 1 --rate 1 --epsilon 1e400", "any"),
    ("profile spherical-gaussian -T 4 --sigma 1 --epsilon 1e400", "any"),
    ("profile l2-laplace -T 4 --theta 1 --epsilon 1e400", "any"),
    ("profile r1smg -T 4 --sigma-star 1 --epsilon 1e400", "any"),
    ("audit gaussian --sigma 1 --epsilon 1e400 --delta 1e-5", "any"),
    ("audit laplace --scale 1 --epsilon 1e400 --delta 1e-5", "any"),
    ("audit r1smg -T 4 --epsilon 1e400 --delta 1e-5", "any"),
    ("calibrate gaussian --epsilon 1 --delta 1e-100000", "any"),
    ("calibrate ggm -p 1.5 --epsilon 1 --delta 1e-100000", "any"),
    ("calibrate sgg -T 4 -a 0 -p 1 --epsilon 1 --delta 1e-100000", "any"),
    ("calibrate spherical-gaussian -T 4 --epsilon 1 --delta 1e-100000", "any"),
    ("calibrate l2-laplace -T 4 --epsilon 1 --delta 1e-100000", "any"),
    ("calibrate r1smg -T 4 --epsilon 1 --delta 1e-100000", "any"),
    ("calibrate quasi-gaussian --method exact --epsilon 1 --delta 1e-100000", "any"),
    ("calibrate multi-gaussian -K 2 --method exact --epsilon 1 --delta 1e-100000", "any"),
    ("calibrate gaussian --dimension 10000000 --epsilon 1 --delta 1e-5", "any"),
    ("calibrate spherical-gaussian --dimension 10000000 --epsilon 1 --delta 1e-5", "any"),
    ("calibrate multi-gaussian -K 1000 --epsilon 1 --delta 1e-5", "any"),
    ("shape ggm --grid --epsilon 0.5:2:100000 --delta 1e-5", "any"),
    ("optimize sgg -T 4 --epsilon 1 --delta 1e-5", "any"),
    ("optimize sgg -T 4 --epsilon 1 --delta 1e-5 --maxfev 0", "2"),
    ("optimize sgg -T 4 --epsilon 1 --delta 1e-5 --maxfev -1", "2"),
    ("profile ggm --shape 1.5 --scale 1 --epsilon 0", "any"),
    ("calibrate uniform --epsilon 1 --delta 1e-5000", "any"),
    ("zcdp-compose --sigma 1e-999999 --delta 1e-5", "any"),
    ("profile multi-gaussian --sigma 1 --epsilon 1", "2"),
    ("table multi-gaussian --workers 0", "2"),
    ("table multi-gaussian --workers -1", "2"),
    ("table multi-gaussian --certify 99,99", "2"),
    ("calibrate gaussian --epsilon 1 --delta 1e-5 -o /nonexistent/c.json", "2"),
    ("profile gaussian --sigma 1 --epsilon 1,2 --plot /nonexistent/x.png", "2"),
    ("crosscheck gaussian {extra_csv}", "2"),
    ("crosscheck gaussian {binary_csv}", "2"),
    ("calibrate ggm -p 1.5 --epsilon 1000 --delta 1e-5", "any"),
    ("calibrate", "2"),
]


def _files(tmp: str) -> dict[str, str]:
    extra = os.path.join(tmp, "extra.csv")
    with open(extra, "w") as fh:
        fh.write("epsilon,delta,sigma\n1,1e-5,4,7\n")
    binary = os.path.join(tmp, "binary.csv")
    with open(binary, "wb") as fh:
        fh.write(bytes(range(256)) * 4)
    return {"extra_csv": extra, "binary_csv": binary}


def classify(code: int | None, stderr: str, expect: str) -> str:
    """"ok" or a short failure reason."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    if code is None:
        return "hang"
    if "internal error" in stderr or "Traceback" in stderr:
        return "internal error"
    if "Warning" in stderr:
        return "warning leaked"
    if code == 2:
        if len(lines) != 1 or not lines[0].startswith("error: ") or ":" not in lines[0][7:]:
            return f"exit 2 without one 'error: <parameter>: ...' line ({len(lines)} lines)"
        return "ok"
    if expect == "2":
        return f"bad input accepted (exit {code})"
    return "ok" if code in (0, 3) else f"exit {code}"


def run(line: str, limit: float, budget: float | None) -> tuple[int | None, str, float]:
    argv = shlex.split(line)
    if budget is not None and len(argv) > 1:
        argv += ["--budget", str(budget)]
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", ".")}
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "certdp.cli.main", *argv], capture_output=True, text=True,
                              timeout=limit, env=env, stdin=subprocess.DEVNULL)
        return proc.returncode, proc.stderr, time.perf_counter() - start
    except subprocess.TimeoutExpired:
        return None, "", time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=float, default=40.0, help="wall-clock kill limit per line")
    ap.add_argument("--budget", type=float, default=None, help="pass --budget to every command")
    ap.add_argument("-k", default="", help="only lines containing this substring")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = _files(tmp)
        passed = total = 0
        for template, expect in EXAMPLES:
            line = template.format(**files)
            if args.k not in line:
                continue
            total += 1
            code, stderr, secs = run(line, args.limit, args.budget)
            verdict = classify(code, stderr, expect)
            passed += verdict == "ok"
            first = stderr.strip().splitlines()[0][:110] if stderr.strip() else ""
            print(f"{'PASS' if verdict == 'ok' else 'FAIL'} {secs:6.1f}s exit={code} [{verdict}] certdp {line}"
                  f"\n      {first}", flush=True)
        print(f"\n{passed}/{total} example lines behave")
    return 0 if passed == total else 1


if __name__ == "__main__":
    sys.exit(main())
