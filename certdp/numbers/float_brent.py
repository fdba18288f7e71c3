"""Brent's root finder in plain Python floats: a line-by-line port of SciPy's ``brentq.c``.

NOT certified: it only produces float64 *guesses* (candidates that a certified bracket then
checks).  Why a port: ``scipy.optimize.brentq`` wraps the objective in a Python NaN check and
validates its arguments on every call, which costs more than the objective itself for the analytic
Gaussian's candidate.  The port performs the same IEEE-754 double operations in the same order as
``brentq.c`` (SciPy 1.x), so it returns the same root bit for bit -- ``tests/test_fast_bookkeeping.py``
compares the two on thousands of calibrations, and the certificates (whose bracket points are
rounded from the candidate) are unchanged.
"""

from __future__ import annotations

import math
from typing import Callable

__all__ = ["brent_root"]


def brent_root(f: Callable[[float], float], xa: float, xb: float, *, xtol: float, rtol: float, maxiter: int,
               fa: float | None = None, fb: float | None = None) -> float:
    """A root of ``f`` in ``[xa, xb]`` (``f(xa)``, ``f(xb)`` of opposite signs), as ``brentq`` finds it.

    ``fa`` / ``fb``: the values at the ends if the caller has them (saves two evaluations; must be
    ``f(xa)``, ``f(xb)``).  Raises ``ValueError`` when ``f`` returns NaN or the signs agree and
    ``RuntimeError`` when ``maxiter`` iterations do not converge (as ``brentq`` does).
    """
    xpre, xcur = xa, xb
    xblk = fblk = spre = scur = 0.0
    fpre = _checked(f, xpre) if fa is None else fa
    fcur = _checked(f, xcur) if fb is None else fb
    if fpre != fpre or fcur != fcur:  # a NaN end value given by the caller (f's own are checked)
        _nan(xpre if fpre != fpre else xcur)
    if fpre == 0:
        return xpre
    if fcur == 0:
        return xcur
    # signs compared as (x < 0): for the nonzero, non-NaN values reaching these tests that is
    # brentq.c's signbit comparison, without two calls per iteration
    if (fpre < 0) == (fcur < 0):
        raise ValueError("f(a) and f(b) must have different signs")
    for _ in range(maxiter):
        if fpre != 0 and fcur != 0 and (fpre < 0) != (fcur < 0):
            xblk = xpre
            fblk = fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0 or abs(sbis) < delta:
            return xcur
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:  # interpolate
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:  # extrapolate
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):  # good short step
                spre = scur
                scur = stry
            else:  # bisect
                spre = sbis
                scur = sbis
        else:  # bisect
            spre = sbis
            scur = sbis
        xpre = xcur
        fpre = fcur
        if abs(scur) > delta:
            xcur += scur
        else:
            xcur += delta if sbis > 0 else -delta
        fcur = f(xcur)
        if fcur != fcur:  # NaN (the check of brentq's wrapper, inlined: this loop is the candidate's cost)
            _nan(xcur)
    raise RuntimeError(f"Failed to converge after {maxiter} iterations, value is {xcur}")


def _checked(f: Callable[[float], float], x: float) -> float:
    fx = f(x)
    if math.isnan(fx):
        _nan(x)
    return fx


def _nan(x: float) -> None:
    raise ValueError("The function value at x=%f is NaN; solver cannot continue." % x)
