"""Shared vocabulary of the symbolic layer (SymPy only; never imported at runtime).

Special functions that must be evaluated in a *numerically safe* form are
introduced as opaque SymPy functions, so that SymPy's automatic rewriting
(e.g. ``erfc(-x) -> 2 - erfc(x)``, which cancels catastrophically) cannot touch
them.  Each has a ``to_standard`` rewrite into SymPy's own functions, used by the
proofs in ``proofs/``.

* ``Phi(x)``        standard normal CDF; generated as ``erfc(-x/sqrt(2))/2``
                    (never ``(1+erf)/2``: no cancellation in either tail).
* ``GammaQ(s, z)``  regularized upper incomplete gamma  Gamma(s, z)/Gamma(s).
* ``GammaP(s, z)``  regularized lower incomplete gamma  gamma(s, z)/Gamma(s).
* ``BetaI(a, b, x)`` regularized lower incomplete beta  I_x(a, b).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp


class Phi(sp.Function):
    """Standard normal CDF Phi(x) (opaque: no automatic rewriting)."""

    nargs = 1

    def fdiff(self, argindex=1):
        x = self.args[0]
        return sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)

    def _eval_rewrite_as_erfc(self, x, **kwargs):
        return sp.erfc(-x / sp.sqrt(2)) / 2


class GammaQ(sp.Function):
    """Regularized upper incomplete gamma Q(s, z) = Gamma(s, z) / Gamma(s)."""

    nargs = 2

    def fdiff(self, argindex=2):
        s, z = self.args
        if argindex == 2:
            return -z**(s - 1) * sp.exp(-z) / sp.gamma(s)
        raise sp.ArgumentIndexError(self, argindex)


class GammaP(sp.Function):
    """Regularized lower incomplete gamma P(s, z) = gamma(s, z) / Gamma(s)."""

    nargs = 2

    def fdiff(self, argindex=2):
        s, z = self.args
        if argindex == 2:
            return z**(s - 1) * sp.exp(-z) / sp.gamma(s)
        raise sp.ArgumentIndexError(self, argindex)


class BetaI(sp.Function):
    """Regularized lower incomplete beta I_x(a, b) (arguments a, b, x)."""

    nargs = 3

    def fdiff(self, argindex=3):
        a, b, x = self.args
        if argindex == 3:
            return x**(a - 1) * (1 - x)**(b - 1) / sp.beta(a, b)
        raise sp.ArgumentIndexError(self, argindex)


def to_standard(expr):
    """Rewrite the opaque functions into SymPy built-ins (for proofs only)."""
    return expr.replace(Phi, lambda x: sp.erfc(-x / sp.sqrt(2)) / 2).replace(
        GammaQ, lambda s, z: sp.uppergamma(s, z) / sp.gamma(s)
    ).replace(
        GammaP, lambda s, z: sp.lowergamma(s, z) / sp.gamma(s)
    ).replace(
        BetaI, lambda a, b, x: sp.betainc_regularized(a, b, 0, x)
    )


def phi_density(x):
    """Standard normal density exp(-x^2/2)/sqrt(2 pi)."""
    return sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)


# Symbols shared by the families.  Names are the Python argument names of the
# generated evaluators.
x = sp.Symbol("x", real=True)
r = sp.Symbol("r", positive=True)
w = sp.Symbol("w", real=True)
u = sp.Symbol("u", positive=True)
sigma = sp.Symbol("sigma", positive=True)
epsilon = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", positive=True)
sensitivity = sp.Symbol("sensitivity", positive=True)
s = sp.Symbol("s", positive=True)
b = sp.Symbol("b", positive=True)
p = sp.Symbol("p", positive=True)
m = sp.Symbol("m", positive=True)
alpha = sp.Symbol("alpha", real=True)
beta = sp.Symbol("beta", positive=True)
T = sp.Symbol("T", positive=True)
K = sp.Symbol("K", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True)

#: symbols that the generated code receives as Python ``int`` (loop bounds)
INTEGER_ARGS = frozenset({"K"})


@dataclass(frozen=True)
class Evaluator:
    """One generated function: ``name(*args) = expr``.

    ``summary`` is a one-line description; ``source`` names the paper and
    section the formula comes from (or says it is re-derived, and where the
    derivation is written down in ``proofs/``).
    """

    name: str
    args: tuple
    expr: object
    summary: str
    source: str
    notes: str = ""
    int_args: tuple = field(default=())
