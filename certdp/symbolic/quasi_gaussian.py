"""Quasi-Gaussian mixture of seed 000 Def. 4.1 (Liu, Selvi, Wiesemann).

    f_q(x; sigma) = (e^eps exp(-x^2/(2 sigma^2)) + exp(-(|x| - Delta)^2/(2 sigma^2))) / c,
    c = sqrt(2 pi) sigma (e^eps + 2 Phi(Delta/sigma))                      (App. C.1)
    F_q(x) = [e^eps Phi(x/sigma) + Phi((x + Delta)/sigma)] / (e^eps + 2 Phi(Delta/sigma)),  x <= 0
             (x > 0 by symmetry: F_q(x) = 1 - F_q(-x))                        (App. C.2, completed)
    E|X|  = 2 sigma [sigma e^eps + sigma exp(-Delta^2/(2 sigma^2)) + sqrt(2 pi) Delta Phi(Delta/sigma)] / c
    E X^2 = sqrt(2 pi) sigma [e^eps sigma^2 + 2 (sigma^2 + Delta^2) Phi(Delta/sigma)
             + 2 sigma Delta phi(Delta/sigma)] / c                             (App. C.4)
    h1(sigma) = e^(2 eps) Phi(-eps sigma/Delta - Delta/sigma) - Phi(-eps sigma/Delta + Delta/sigma)
    h2(sigma) = (e^eps + 2 Phi(Delta/sigma)) delta                            (Thm. 4.2)
    h1'(sigma) = 2 Delta/(sqrt(2 pi) sigma^2) exp(-(Delta/sigma - eps sigma/Delta)^2/2)  (Lemma 4.3, App. C.6)
Proofs: proofs/qg_normalizer_app_c1.py, qg_cdf_app_c2.py, qg_moments_app_c4.py,
qg_h1_derivative_lemma4_3_app_c6.py.
"""
import sympy as sp

from .common import Evaluator, Phi, delta, epsilon, sensitivity, sigma, x

FAMILY = "quasi_gaussian"
TITLE = "Quasi-Gaussian mixture (seed 000 Def. 4.1)"

D = sensitivity
mass = sp.exp(epsilon) + 2 * Phi(D / sigma)          # c / (sqrt(2 pi) sigma)
normalizer = sp.sqrt(2 * sp.pi) * sigma * mass
density = (sp.exp(epsilon) * sp.exp(-x**2 / (2 * sigma**2))
           + sp.exp(-(sp.Abs(x) - D)**2 / (2 * sigma**2))) / normalizer
_left_tail = (sp.exp(epsilon) * Phi(x / sigma) + Phi((x + D) / sigma)) / mass     # F_q(x), x <= 0
_right_tail = (sp.exp(epsilon) * Phi(-x / sigma) + Phi((D - x) / sigma)) / mass   # 1 - F_q(x), x >= 0
cdf = sp.Piecewise((_left_tail, x < 0), (1 - _right_tail, True))
sf = sp.Piecewise((1 - _left_tail, x < 0), (_right_tail, True))
mean_abs = 2 * sigma * (sigma * sp.exp(epsilon) + sigma * sp.exp(-D**2 / (2 * sigma**2))
                        + sp.sqrt(2 * sp.pi) * D * Phi(D / sigma)) / normalizer
mean_square = sp.sqrt(2 * sp.pi) * sigma * (
    sp.exp(epsilon) * sigma**2 + 2 * (sigma**2 + D**2) * Phi(D / sigma)
    + 2 * sigma * D * sp.exp(-D**2 / (2 * sigma**2)) / sp.sqrt(2 * sp.pi)) / normalizer
zero_mean_weight = sp.exp(epsilon) / mass
h1 = sp.exp(2 * epsilon) * Phi(-epsilon * sigma / D - D / sigma) - Phi(-epsilon * sigma / D + D / sigma)
h2 = mass * delta
dh1_dsigma = 2 * D / (sp.sqrt(2 * sp.pi) * sigma**2) * sp.exp(-(D / sigma - epsilon * sigma / D)**2 / 2)

_SRC = "seed 000 (Liu, Selvi, Wiesemann)"
_A = (sigma, epsilon, sensitivity)
EVALUATORS = [
    Evaluator("normalizer", _A, normalizer, "Normalizing constant c = sqrt(2 pi) sigma (e^eps + 2 Phi(Delta/sigma)).", _SRC + " App. C.1"),
    Evaluator("density", (x,) + _A, density, "Density f_q(x; sigma).", _SRC + " Def. 4.1"),
    Evaluator("cdf", (x,) + _A, cdf, "CDF F_q(x; sigma).", _SRC + " App. C.2 (left half re-derived, right half by symmetry)"),
    Evaluator("sf", (x,) + _A, sf, "Survival 1 - F_q(x; sigma) (no cancellation for x >= 0).", _SRC + " App. C.2 + symmetry"),
    Evaluator("mean_abs", _A, mean_abs, "E|X| (noise amplitude).", _SRC + " App. C.4 (the E|X| part is re-derived: the text only states the split)"),
    Evaluator("mean_square", _A, mean_square, "E X^2 (noise power).", _SRC + " App. C.4"),
    Evaluator("zero_mean_weight", _A, zero_mean_weight,
              "Probability e^eps/(e^eps + 2 Phi(Delta/sigma)) of the zero-mean Gaussian component (sampler).", _SRC + " App. C.3 (Alg. 5)"),
    Evaluator("h1", _A, h1, "h1(sigma) of Thm. 4.2 (4a).", _SRC + " Thm. 4.2"),
    Evaluator("h2", (sigma, epsilon, delta, sensitivity), h2, "h2(sigma) = (e^eps + 2 Phi(Delta/sigma)) delta of Thm. 4.2 (4a).", _SRC + " Thm. 4.2"),
    Evaluator("dh1_dsigma", _A, dh1_dsigma, "d h1/d sigma = 2 Delta/(sqrt(2 pi) sigma^2) exp(-(Delta/sigma - eps sigma/Delta)^2/2) > 0.",
              _SRC + " Lemma 4.3, App. C.6"),
]
