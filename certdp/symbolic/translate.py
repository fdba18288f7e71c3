"""Translate SymPy expression trees into plain Python source.

The emitted body is the same for both targets; only the small helper
prelude differs (``ARB_PRELUDE`` uses python-flint, ``MP_PRELUDE`` mpmath).
Every operation goes through a helper (``_exp``, ``_Phi``, ``_q`` for exact
rationals, ...), so no Python float ever appears and integer division never
happens.  Supported nodes: Symbol, Integer, Rational, pi, E, Add, Mul, Pow,
exp, log, sqrt, Abs, erf, erfc, gamma, Phi, GammaP, GammaQ, BetaI, Max, Min,
Piecewise (with <, <=, >, >=, And), Sum over an integer index.
"""
from __future__ import annotations

import sympy as sp

from .common import BetaI, GammaP, GammaQ, Phi

ARB_PRELUDE = '''from flint import arb


def _A(v):
    return v if isinstance(v, arb) else arb(v)


def _q(n, d):
    return arb(n) / d


def _pi():
    return arb.pi()


def _exp(v):
    return _A(v).exp()


def _log(v):
    return _A(v).log()


def _sqrt(v):
    return _A(v).sqrt()


def _abs(v):
    return abs(v)


def _erf(v):
    return _A(v).erf()


def _erfc(v):
    return _A(v).erfc()


def _gamma(v):
    return _A(v).gamma()


def _Phi(v):
    # standard normal CDF as erfc(-v/sqrt(2))/2: no cancellation in either tail
    return (-_A(v) / arb(2).sqrt()).erfc() / 2


def _GammaQ(a, z):
    # regularized upper incomplete gamma Q(a, z), z >= 0.  A ball z touching 0 is
    # handled by monotonicity (Q decreasing in z, Q(a, 0) = 1): [Q(a, hi), 1].
    z = _A(z)
    if z > 0:
        return z.gamma_upper(_A(a), regularized=1)
    hi = z.nonnegative_part().upper()
    return arb(1) if hi == 0 else arb(1).union(hi.gamma_upper(_A(a), regularized=1))


def _GammaP(a, z):
    # regularized lower incomplete gamma P(a, z) = 1 - Q(a, z), z >= 0 (same monotone
    # treatment of a ball touching 0: [0, P(a, hi)]).
    z = _A(z)
    if z > 0:
        return z.gamma_lower(_A(a), regularized=1)
    hi = z.nonnegative_part().upper()
    return arb(0) if hi == 0 else arb(0).union(hi.gamma_lower(_A(a), regularized=1))


def _BetaI(a, b, z):
    # regularized lower incomplete beta I_z(a, b)
    return _A(z).beta_lower(_A(a), _A(b), regularized=1)


def _pow(a, e):
    # real power a**e for a base that is mathematically >= 0; a ball reaching below 0
    # (rounding, or |x| of a ball around 0) is clipped to [0, hi]: t -> t**e is
    # monotone there, so the result encloses a**e over the clipped ball.
    a, e = _A(a), _A(e)
    if a > 0:
        return a ** e
    a = a.nonnegative_part()
    if e > 0:
        hi = a.upper()
        return arb(0) if hi == 0 else arb(0).union(hi ** e)
    return a ** e


def _max(a, b):
    return _A(a).max(_A(b))


def _min(a, b):
    return _A(a).min(_A(b))


def _lt(a, b):
    a, b = _A(a), _A(b)
    return True if a < b else (False if a >= b else None)


def _le(a, b):
    a, b = _A(a), _A(b)
    return True if a <= b else (False if a > b else None)


def _and(*cs):
    if any(c is False for c in cs):
        return False
    return True if all(c is True for c in cs) else None


def _piecewise(branches):
    # branches: (condition in {True, False, None}, thunk), first true wins.  When a
    # condition is undecided for the ball (None), the union of every branch that may
    # apply is returned: each branch is evaluated on the whole ball, so the union
    # encloses the value at every point of the ball.
    out = None
    for cond, thunk in branches:
        if cond is False:
            continue
        val = _A(thunk())
        out = val if out is None else out.union(val)
        if cond is True:
            return out
    if out is None:
        raise ValueError("no Piecewise branch applies")
    return out


def _sum(term, lo, hi):
    total = arb(0)
    for k in range(lo, hi + 1):
        total += term(k)
    return total
'''

MP_PRELUDE = '''import mpmath
from mpmath import mp


def _A(v):
    return v if isinstance(v, mpmath.mpf) else mp.mpf(v)


def _q(n, d):
    return mp.mpf(n) / d


def _pi():
    return +mp.pi


def _exp(v):
    return mp.exp(v)


def _log(v):
    return mp.log(v)


def _sqrt(v):
    return mp.sqrt(v)


def _abs(v):
    return abs(v)


def _erf(v):
    return mp.erf(v)


def _erfc(v):
    return mp.erfc(v)


def _gamma(v):
    return mp.gamma(v)


def _Phi(v):
    # standard normal CDF as erfc(-v/sqrt(2))/2: no cancellation in either tail
    return mp.erfc(-_A(v) / mp.sqrt(2)) / 2


def _GammaQ(a, z):
    return mp.gammainc(a, z, mp.inf, regularized=True)


def _GammaP(a, z):
    return mp.gammainc(a, 0, z, regularized=True)


def _BetaI(a, b, z):
    return mp.betainc(a, b, 0, z, regularized=True)


def _pow(a, e):
    return _A(a) ** e


def _max(a, b):
    return max(_A(a), _A(b))


def _min(a, b):
    return min(_A(a), _A(b))


def _lt(a, b):
    return _A(a) < _A(b)


def _le(a, b):
    return _A(a) <= _A(b)


def _and(*cs):
    return all(cs)


def _piecewise(branches):
    for cond, thunk in branches:
        if cond:
            return _A(thunk())
    raise ValueError("no Piecewise branch applies")


def _sum(term, lo, hi):
    total = mp.mpf(0)
    for k in range(lo, hi + 1):
        total += term(k)
    return total
'''

_FUNCS = {
    sp.exp: "_exp",
    sp.log: "_log",
    sp.Abs: "_abs",
    sp.erf: "_erf",
    sp.erfc: "_erfc",
    sp.gamma: "_gamma",
    Phi: "_Phi",
    GammaQ: "_GammaQ",
    GammaP: "_GammaP",
    BetaI: "_BetaI",
}


class Translator:
    """SymPy expression -> Python expression source (target-independent)."""

    def __init__(self, int_symbols=()):
        self.int_symbols = set(int_symbols)

    def __call__(self, e) -> str:
        return self.emit(e)

    # -- integers: plain ints only for loop bounds and integer exponents
    def emit_int(self, e) -> str:
        e = sp.sympify(e)
        if e.is_Integer:
            return str(int(e))
        if e.is_Symbol:
            return e.name
        if e.is_Add:
            return "(" + " + ".join(self.emit_int(a) for a in e.args) + ")"
        if e.is_Mul:
            return "(" + "*".join(self.emit_int(a) for a in e.args) + ")"
        raise TypeError(f"not an integer expression: {e}")

    def emit(self, e) -> str:  # noqa: C901 - a dispatcher
        if e is sp.true or e == sp.true:
            return "True"
        if isinstance(e, sp.Symbol):
            return e.name
        if e.is_Integer:
            return f"_A({int(e)})"
        if e.is_Rational:
            return f"_q({e.p}, {e.q})"
        if e is sp.pi:
            return "_pi()"
        if e is sp.E:
            return "_exp(1)"
        if isinstance(e, sp.Float):
            raise TypeError("floats are not allowed in derivations")
        if e.is_Add:
            return "(" + " + ".join(self.emit(a) for a in e.args) + ")"
        if e.is_Mul:
            return self._mul(e)
        if e.is_Pow:
            return self._pow(e)
        if isinstance(e, sp.Piecewise):
            parts = ", ".join(f"({self._cond(c)}, lambda: {self.emit(v)})" for v, c in e.args)
            return f"_piecewise([{parts}])"
        if isinstance(e, sp.Max):
            return self._fold("_max", e.args)
        if isinstance(e, sp.Min):
            return self._fold("_min", e.args)
        if isinstance(e, sp.Sum):
            (idx, lo, hi), = e.limits
            return f"_sum(lambda {idx.name}: {self.emit(e.function)}, {self.emit_int(lo)}, {self.emit_int(hi)})"
        if e.func in _FUNCS:
            return f"{_FUNCS[e.func]}(" + ", ".join(self.emit(a) for a in e.args) + ")"
        raise TypeError(f"cannot translate {type(e).__name__}: {e}")

    def _fold(self, name, args):
        out = self.emit(args[0])
        for a in args[1:]:
            out = f"{name}({out}, {self.emit(a)})"
        return out

    def _cond(self, c) -> str:
        if c is sp.true or c == sp.true:
            return "True"
        if isinstance(c, sp.And):
            return "_and(" + ", ".join(self._cond(a) for a in c.args) + ")"
        if isinstance(c, sp.StrictLessThan):
            return f"_lt({self.emit(c.lhs)}, {self.emit(c.rhs)})"
        if isinstance(c, sp.LessThan):
            return f"_le({self.emit(c.lhs)}, {self.emit(c.rhs)})"
        if isinstance(c, sp.StrictGreaterThan):
            return f"_lt({self.emit(c.rhs)}, {self.emit(c.lhs)})"
        if isinstance(c, sp.GreaterThan):
            return f"_le({self.emit(c.rhs)}, {self.emit(c.lhs)})"
        raise TypeError(f"cannot translate condition {c}")

    def _mul(self, e) -> str:
        num, den = [], []
        coeff, rest = e.as_coeff_Mul()
        sign = ""
        if coeff.is_Rational:
            if coeff < 0:
                sign, coeff = "-", -coeff
            if coeff.p != 1:
                num.append(f"_A({coeff.p})")
            if coeff.q != 1:
                den.append(f"_A({coeff.q})")
            factors = sp.Mul.make_args(rest)
        else:
            factors = e.args
        for f in factors:
            if f.is_Pow and f.exp.is_Rational and f.exp.is_negative:
                den.append(self.emit(f.base) if f.exp == -1 else self.emit(sp.Pow(f.base, -f.exp, evaluate=False)))
            else:
                num.append(self.emit(f))
        n = "*".join(num) if num else "_A(1)"
        if len(num) > 1:
            n = f"({n})"
        if not den:
            return f"({sign}{n})"
        d = "*".join(den)
        return f"({sign}{n}/({d}))"

    def _pow(self, e) -> str:
        base, ex = e.base, e.exp
        if ex == sp.S.Half:
            return f"_sqrt({self.emit(base)})"
        if ex.is_Rational and ex.is_negative:
            if ex == -1:
                return f"(_A(1)/{self.emit(base)})"
            return f"(_A(1)/{self._pow(sp.Pow(base, -ex, evaluate=False))})"
        if ex == 1:
            return self.emit(base)
        if ex.is_Integer:
            return f"({self.emit(base)})**{int(ex)}"
        if base is sp.E:
            return f"_exp({self.emit(ex)})"
        return f"_pow({self.emit(base)}, {self.emit(ex)})"
