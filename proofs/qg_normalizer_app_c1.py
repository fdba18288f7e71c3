"""Quasi-Gaussian mixture, seed 000 App. C.1: the normalizing constant.

int [e^eps exp(-x^2/(2 sigma^2)) + exp(-(|x| - Delta)^2/(2 sigma^2))] dx
  = sqrt(2 pi) sigma e^eps + 2 int_0^inf exp(-(x - Delta)^2/(2 sigma^2)) dx
  = sqrt(2 pi) sigma (e^eps + 2 Phi(Delta/sigma)) = c.
Closed symbolically (SymPy integrate).  Also: the sampler weight of App. C.3,
e^eps/(e^eps + 2 Phi(Delta/sigma)), is the mass of the zero-mean component.
"""
import sympy as sp
from _proofkit import is_zero

from certdp.symbolic import quasi_gaussian as Q
from certdp.symbolic.common import epsilon, sigma, x

t = sp.Symbol("t", positive=True)
D = Q.D


def test_normalizer():
    core = sp.integrate(sp.exp(epsilon) * sp.exp(-x**2 / (2 * sigma**2)), (x, -sp.oo, sp.oo))
    bump = 2 * sp.integrate(sp.exp(-(t - D)**2 / (2 * sigma**2)), (t, 0, sp.oo))
    assert is_zero(core + bump - Q.normalizer)


def test_zero_mean_weight_is_component_mass():
    core = sp.integrate(sp.exp(epsilon) * sp.exp(-x**2 / (2 * sigma**2)), (x, -sp.oo, sp.oo))
    assert is_zero(core / Q.normalizer - Q.zero_mean_weight)
