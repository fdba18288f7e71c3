"""Multi-Gaussian mixture, seed 000 Def. 3.1 and App. B.1: normalizer, density, CDF.

Def. 3.1: f_m(x; sigma, K) = sum_{k=-K}^{K} w_k N(x; k Delta, sigma^2), w_k = e^(-|k| eps)/Z.
(The seed's App. B.6 prints the density as (1/Z) sum_k N(x; k Delta, sigma) -- the factor
e^(-|k| eps) inside the sum is missing there; Sec. 3 states the weights are proportional to
e^(-|k| eps), which is what is implemented.)
Derivation: Z = 1 + 2 sum_{k=1}^K e^(-k eps) = (1 + e^-eps - 2 e^(-(K+1) eps))/(1 - e^-eps)
(geometric sum; closed symbolically by SymPy summation with symbolic K).  The CDF and
survival are the weighted sums of the component CDFs Phi((x - k Delta)/sigma) and survivals
Phi((k Delta - x)/sigma).  Checked symbolically term by term, for symbolic k and K (density integrates to 1,
d/dx cdf = density, cdf + sf = 1), and K = 0 reduces to N(0, sigma^2).
"""
import sympy as sp
from _proofkit import is_zero

from certdp.symbolic import gaussian as G
from certdp.symbolic import multi_gaussian as MG
from certdp.symbolic.common import K, epsilon, k, to_standard, x

j = sp.Symbol("j", integer=True, positive=True)


def test_normalizer_closed_form():
    z = sp.summation(sp.exp(-j * epsilon), (j, 1, K))
    if isinstance(z, sp.Piecewise):  # SymPy splits off e^-eps = 1, impossible for eps > 0
        z = [v for v, c in z.args if c == sp.true][0]
    assert is_zero(1 + 2 * z - MG.Z_closed)
    for kk in range(4):
        assert is_zero(MG.Z.subs(K, kk).doit() - MG.Z_closed.subs(K, kk))


def _summand(expr):
    """The term of the Sum in ``expr`` (numerator Sum), as a function of k."""
    sums = [a for a in sp.preorder_traversal(expr) if isinstance(a, sp.Sum) and a.function.has(x)]
    assert len(sums) == 1
    return sums[0].function


def test_density_cdf_sf_termwise():
    """By linearity it suffices to check each term, symbolically in k (and so for every K)."""
    dens_term = _summand(MG.density) / (sp.sqrt(2 * sp.pi) * MG.sigma)
    assert is_zero(sp.integrate(dens_term, (x, -sp.oo, sp.oo)) - MG.weight_k)   # int f_m = Z/Z
    cdf_term, sf_term = _summand(MG.cdf), _summand(MG.sf)
    assert is_zero(sp.diff(to_standard(cdf_term), x) - dens_term)
    assert is_zero(cdf_term + sf_term - MG.weight_k)
    # the prefactors: density = (sum of terms)/(sqrt(2 pi) sigma Z), cdf = (sum)/Z, sf = (sum)/Z
    assert sp.simplify(MG.density * sp.sqrt(2 * sp.pi) * MG.sigma * MG.Z - sp.Sum(_summand(MG.density), (k, -K, K))) == 0
    assert sp.simplify(MG.cdf * MG.Z - sp.Sum(cdf_term, (k, -K, K))) == 0


def test_K0_is_gaussian():
    assert is_zero(MG.density.subs(K, 0).doit() - G.density)
    assert is_zero(MG.cdf.subs(K, 0).doit() - G.cdf)
