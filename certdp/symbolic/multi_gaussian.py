"""Multi-Gaussian mixture of seed 000 Def. 3.1 (Liu, Selvi, Wiesemann).

2K+1 Gaussians with common sigma, means k Delta (k = -K..K), weights
w_k = e^(-|k| eps) / Z,  Z = sum_{k=-K}^{K} e^(-|k| eps).

Representation: SymPy ``Sum`` over k with a *symbolic* upper limit K; the
generated code loops ``for k in range(-K, K + 1)`` with K a Python int given at
run time.  (The seed's App. B.6 prints the density without the weights
e^(-|k| eps) inside the sum; Def. 3.1 / Sec. 3 text fixes them.)

    F(x)   = sum_k w_k Phi((x - k Delta)/sigma),   S(x) = sum_k w_k Phi((k Delta - x)/sigma)
    E|X|   = sum_k w_k [sigma sqrt(2/pi) exp(-(k Delta)^2/(2 sigma^2)) + |k| Delta erf(|k| Delta/(sqrt 2 sigma))]
    E X^2  = sigma^2 + Delta^2 sum_k w_k k^2                                   (App. B.2, re-derived)
    Z      = (1 + e^-eps - 2 e^(-(K+1) eps)) / (1 - e^-eps)   (closed form, proved; generated: the sum)
Proofs: proofs/mg_density_cdf_def3_1.py, proofs/mg_moments_app_b2.py.
"""
import sympy as sp

from .common import Evaluator, K, Phi, epsilon, k, sensitivity, sigma, x

FAMILY = "multi_gaussian"
TITLE = "Multi-Gaussian mixture (seed 000 Def. 3.1)"

D = sensitivity
weight_k = sp.exp(-sp.Abs(k) * epsilon)


def _sum(term):
    return sp.Sum(term, (k, -K, K))


Z = _sum(weight_k)
Z_closed = (1 + sp.exp(-epsilon) - 2 * sp.exp(-(K + 1) * epsilon)) / (1 - sp.exp(-epsilon))
density = _sum(weight_k * sp.exp(-(x - k * D)**2 / (2 * sigma**2))) / (sp.sqrt(2 * sp.pi) * sigma * Z)
cdf = _sum(weight_k * Phi((x - k * D) / sigma)) / Z
sf = _sum(weight_k * Phi((k * D - x) / sigma)) / Z
# E|N(mu, sigma^2)| = sigma sqrt(2/pi) exp(-mu^2/(2 sigma^2)) + |mu| erf(|mu|/(sqrt 2 sigma)); erf(y) = 1 - erfc(y)
# is written as 2 Phi(sqrt2 y) - 1 = 1 - 2 Phi(-sqrt2 y): both terms >= 0, no cancellation in the sum.
_abs_mu = sp.Abs(k) * D
mean_abs = _sum(weight_k * (sigma * sp.sqrt(2 / sp.pi) * sp.exp(-(k * D)**2 / (2 * sigma**2))
                            + _abs_mu * (1 - 2 * Phi(-_abs_mu / sigma)))) / Z
mean_square = sigma**2 + D**2 * _sum(weight_k * k**2) / Z

_SRC = "seed 000 (Liu, Selvi, Wiesemann)"
_A = (sigma, epsilon, sensitivity, K)
EVALUATORS = [
    Evaluator("normalizer", (epsilon, K), Z, "Z = sum_{k=-K}^{K} e^(-|k| eps) (weights w_k = e^(-|k| eps)/Z).", _SRC + " Def. 3.1"),
    Evaluator("density", (x,) + _A, density, "Density f_m(x; sigma, K).", _SRC + " Def. 3.1 (weights restored, cf. App. B.6)"),
    Evaluator("cdf", (x,) + _A, cdf, "CDF: sum of weighted Gaussian CDFs.", _SRC + " App. B.1 (re-derived)"),
    Evaluator("sf", (x,) + _A, sf, "Survival: sum of weighted Gaussian survivals (erfc form).", _SRC + " App. B.1 (re-derived)"),
    Evaluator("mean_abs", _A, mean_abs, "E|X| (noise amplitude).", _SRC + " App. B.2 (re-derived: text missing)"),
    Evaluator("mean_square", _A, mean_square, "E X^2 = sigma^2 + Delta^2 sum_k w_k k^2 (noise power).", _SRC + " App. B.2 (re-derived: text missing)"),
]
for _e in EVALUATORS:
    object.__setattr__(_e, "int_args", ("K",))
