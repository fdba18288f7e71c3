"""Generalized Gaussian GGD(0, b, p) (seed 004 Sec. 2.2, 2.4).

    density  g_{p,b}(x) = p/(2 b Gamma(1/p)) exp(-|x/b|^p)
    survival S(x) = Q(1/p, (x/b)^p)/2 for x >= 0  (Q = regularized upper incomplete gamma),
             S(x) = 1 - Q(1/p, (-x/b)^p)/2 for x < 0
    M_m(p)  = Gamma((m+1)/p)/Gamma(1/p),  M_m(inf) = 1/(m+1),  E|X|^m = b^m M_m(p).
Proofs: proofs/ggm_density_moments_sec2_4.py.
"""
import sympy as sp

from .common import Evaluator, GammaQ, b, m, p, x

FAMILY = "generalized_gaussian"
TITLE = "Generalized Gaussian GGD(0, b, p)"

density = p / (2 * b * sp.gamma(1 / p)) * sp.exp(-(sp.Abs(x) / b)**p)
# |x| in both branches: a ball straddling 0 then still gets a finite enclosure
_tail = GammaQ(1 / p, (sp.Abs(x) / b)**p) / 2          # P(X > |x|)
sf = sp.Piecewise((1 - _tail, x < 0), (_tail, True))
cdf = sp.Piecewise((_tail, x < 0), (1 - _tail, True))
shape_factor = sp.gamma((m + 1) / p) / sp.gamma(1 / p)
shape_factor_inf = 1 / (m + 1)
abs_moment = b**m * shape_factor
mean_abs = b * sp.gamma(2 / p) / sp.gamma(1 / p)
mean_square = b**2 * sp.gamma(3 / p) / sp.gamma(1 / p)

_SRC = "seed 004 (Zhang, Ould Haye, Zhao)"
EVALUATORS = [
    Evaluator("density", (x, p, b), density, "Density p/(2 b Gamma(1/p)) exp(-|x/b|^p).", _SRC + " Sec. 2.2"),
    Evaluator("sf", (x, p, b), sf, "Survival P(X > x) via the regularized upper incomplete gamma.",
              _SRC + " Sec. 3.1 (survival); proofs/ggm_density_moments_sec2_4.py",
              "For x >= 0 no cancellation: Q(1/p, (x/b)^p)/2."),
    Evaluator("cdf", (x, p, b), cdf, "CDF P(X <= x) via the regularized upper incomplete gamma.", _SRC + " Sec. 2.2"),
    Evaluator("shape_factor", (m, p), shape_factor, "M_m(p) = Gamma((m+1)/p)/Gamma(1/p), finite p.", _SRC + " Sec. 2.4"),
    Evaluator("shape_factor_inf", (m,), shape_factor_inf, "M_m(inf) = 1/(m+1) (p = infinity: uniform on [-b, b]).", _SRC + " Sec. 2.4"),
    Evaluator("abs_moment", (m, p, b), abs_moment, "L_m(p, b) = E|X|^m = b^m M_m(p).", _SRC + " Sec. 2.4 (Table 1)"),
    Evaluator("mean_abs", (p, b), mean_abs, "E|X| = b Gamma(2/p)/Gamma(1/p).", _SRC + " Sec. 2.4, m = 1"),
    Evaluator("mean_square", (p, b), mean_square, "E X^2 = b^2 Gamma(3/p)/Gamma(1/p).", _SRC + " Sec. 2.4, m = 2"),
]
