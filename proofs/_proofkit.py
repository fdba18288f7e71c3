"""Helpers for the proof scripts (no tests here).

* ``is_zero(expr)``   : SymPy closes ``expr == 0`` (after rewriting Phi/GammaQ/... into
                        SymPy built-ins), by simplify / gammasimp / powsimp.
* ``num(expr, **vals)``: evaluate a derivation at 50 digits with mpmath (opaque functions
                        mapped to mpmath), independently of the generated code.
* ``quad(f, pts)``    : mpmath quadrature at 50 digits over consecutive breakpoints.
* ``points(n, seed, **ranges)``: reproducible random parameter points (exact rationals).
"""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import sympy as sp
from mpmath import mp

from certdp.symbolic.common import BetaI, GammaP, GammaQ, Phi, to_standard

DPS = 50


def is_zero(expr) -> bool:
    e = to_standard(sp.sympify(expr))
    for f in (sp.simplify, lambda t: sp.simplify(sp.gammasimp(t)), lambda t: sp.simplify(sp.powsimp(sp.expand(t), force=True))):
        try:
            if f(e) == 0:
                return True
        except Exception:  # pragma: no cover - simplifier failure means "not closed"
            pass
    return False


_MP = {
    "Phi": lambda v: mp.erfc(-v / mp.sqrt(2)) / 2,
    "GammaQ": lambda a, z: mp.gammainc(a, z, mp.inf, regularized=True),
    "GammaP": lambda a, z: mp.gammainc(a, 0, z, regularized=True),
    "BetaI": lambda a, b, z: mp.betainc(a, b, 0, z, regularized=True),
}


_LAMBDA_CACHE = {}


def _compiled(expr, names):
    key = (sp.srepr(expr), names)
    if key not in _LAMBDA_CACHE:
        e = expr
        syms = sorted(e.free_symbols, key=lambda t: t.name)
        _LAMBDA_CACHE[key] = ([t.name for t in syms], sp.lambdify(syms, e, modules=[_MP, "mpmath"]))
    return _LAMBDA_CACHE[key]


def num(expr, **vals):
    """Value of ``expr`` at the given symbol values (by name), >= 50 digits.

    A SymPy ``Sum`` needs its limits given (e.g. K=3): it is expanded with ``doit``.
    """
    with mp.workdps(max(mp.dps, DPS + 10)):
        e = sp.sympify(expr)
        if e.has(sp.Sum):
            e = e.subs({t: vals[t.name] for t in e.free_symbols if t.is_integer and t.name in vals}).doit()
        names, f = _compiled(e, tuple(sorted(vals)))
        return mp.mpf(f(*[mpv(vals[n]) for n in names]))


def mpv(v):
    """Exact-ish conversion of a Fraction / int / str to an mpf at the current precision."""
    if isinstance(v, Fraction):
        return mp.mpf(v.numerator) / v.denominator
    return mp.mpf(v)


def quad(f, pts):
    with mp.workdps(max(mp.dps, DPS + 10)):
        return mp.quad(f, [mp.mpf(t) if not isinstance(t, mpmath.mpf) and t not in (mp.inf, -mp.inf) else t for t in pts],
                       maxdegree=10)


def close(a, b, rel=mp.mpf(10) ** -45, scale=None):
    a, b = mp.mpf(a), mp.mpf(b)
    s = abs(b) if scale is None else mp.mpf(scale)
    return abs(a - b) <= rel * max(s, mp.mpf(10) ** -300)


def points(n, seed, **ranges):
    """n points, each a dict name -> Fraction drawn uniformly (3 decimals) from ranges."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        out.append({k: Fraction(round(rng.uniform(lo, hi), 3)).limit_denominator(1000) for k, (lo, hi) in ranges.items()})
    return out


__all__ = ["is_zero", "num", "mpv", "quad", "close", "points", "Phi", "GammaQ", "GammaP", "BetaI", "mp"]
