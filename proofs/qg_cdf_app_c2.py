"""Quasi-Gaussian mixture, seed 000 App. C.2: the CDF (completed; the seed text stops
after splitting F_q into the terms (i) and (ii)).

Derivation.  For x <= 0, |t| = -t on (-inf, x], so
  (i)  = e^eps/c int_{-inf}^x exp(-t^2/(2 sigma^2)) dt = e^eps sqrt(2 pi) sigma Phi(x/sigma)/c,
  (ii) = 1/c int_{-inf}^x exp(-(t + Delta)^2/(2 sigma^2)) dt = sqrt(2 pi) sigma Phi((x + Delta)/sigma)/c,
and with c = sqrt(2 pi) sigma (e^eps + 2 Phi(Delta/sigma)):
  F_q(x) = (e^eps Phi(x/sigma) + Phi((x + Delta)/sigma)) / (e^eps + 2 Phi(Delta/sigma)),  x <= 0.
The density is even, so F_q(x) = 1 - F_q(-x) for x > 0; the survival function for x >= 0 is
  S_q(x) = (e^eps Phi(-x/sigma) + Phi((Delta - x)/sigma)) / (e^eps + 2 Phi(Delta/sigma))
(sums of positive terms: no cancellation in the tail).
Checked symbolically: derivative of each branch = density on its side, F_q(0) = 1/2 from both
sides, F_q(-inf) = 0, S_q = 1 - F_q on both branches.
"""
import sympy as sp
from _proofkit import is_zero

from certdp.symbolic import quasi_gaussian as Q
from certdp.symbolic.common import Phi, to_standard, x

left, right = Q.cdf.args[0][0], Q.cdf.args[1][0]
sf_left, sf_right = Q.sf.args[0][0], Q.sf.args[1][0]


def test_branch_derivatives_are_density():
    assert is_zero(sp.diff(to_standard(left), x) - Q.density.subs(sp.Abs(x), -x))
    assert is_zero(sp.diff(to_standard(right), x) - Q.density.subs(sp.Abs(x), x))


def test_boundary_values():
    assert is_zero(left.subs(x, 0) - sp.Rational(1, 2))
    assert is_zero(right.subs(x, 0) - sp.Rational(1, 2))
    # x -> -inf: both Phi terms -> 0
    assert left.subs({Phi(x / Q.sigma): 0, Phi((x + Q.D) / Q.sigma): 0}) == 0


def test_sf_complements_cdf():
    assert is_zero(sf_left + left - 1)
    assert is_zero(sf_right + right - 1)
