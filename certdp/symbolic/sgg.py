"""Spherical generalized gamma (SGG) of seed 003 Def. 4.1-4.2 and Prop. A.1.

Radius R ~ GGamma(alpha, beta, p):
    f(r) = p beta^((alpha+1)/p) / Gamma((alpha+1)/p) r^alpha exp(-beta r^p),  r > 0
    P(R <= r) = P((alpha+1)/p, beta r^p)   (beta R^p ~ Gamma((alpha+1)/p, 1))
    E R^m = Gamma((alpha+1+m)/p) / (beta^(m/p) Gamma((alpha+1)/p));  MSE = E R^2.
Angle W = cos(Theta) for U ~ Unif(S^(T-1)):
    f_W(w) = Gamma(T/2)/(sqrt(pi) Gamma((T-1)/2)) (1 - w^2)^((T-3)/2),
    F_W(w) = I_{(w+1)/2}((T-1)/2, (T-1)/2).
Proofs: proofs/sgg_radius_def4_1.py, proofs/sgg_angle_law_prop_a1.py.
"""
import sympy as sp

from .common import BetaI, Evaluator, GammaP, GammaQ, T, alpha, beta, m, p, r, w

FAMILY = "sgg"
TITLE = "Spherical generalized gamma: radius GGamma(alpha, beta, p) and angle law"

shape = (alpha + 1) / p
radius_density = p * beta**shape / sp.gamma(shape) * r**alpha * sp.exp(-beta * r**p)
radius_cdf = GammaP(shape, beta * r**p)
radius_sf = GammaQ(shape, beta * r**p)
radius_moment = sp.gamma((alpha + 1 + m) / p) / (beta**(m / p) * sp.gamma(shape))
mean_square = sp.gamma((alpha + 3) / p) / (beta**(2 / p) * sp.gamma(shape))
angle_density = sp.gamma(T / 2) / (sp.sqrt(sp.pi) * sp.gamma((T - 1) / 2)) * (1 - w**2)**((T - 3) / 2)
angle_cdf = BetaI((T - 1) / 2, (T - 1) / 2, (w + 1) / 2)

_SRC = "seed 003 (Wei, Bienstock, Polychroniadou)"
_R = (alpha, beta, p)
EVALUATORS = [
    Evaluator("radius_density", (r,) + _R, radius_density, "Density of R ~ GGamma(alpha, beta, p), r > 0.", _SRC + " Def. 4.1"),
    Evaluator("radius_cdf", (r,) + _R, radius_cdf, "P(R <= r) = P((alpha+1)/p, beta r^p) (regularized lower incomplete gamma).",
              _SRC + " Def. 4.1 (re-derived in proofs/sgg_radius_def4_1.py)"),
    Evaluator("radius_sf", (r,) + _R, radius_sf, "P(R > r) = Q((alpha+1)/p, beta r^p) (regularized upper incomplete gamma).",
              _SRC + " Def. 4.1 (re-derived)"),
    Evaluator("radius_moment", (m,) + _R, radius_moment, "E R^m = Gamma((alpha+1+m)/p)/(beta^(m/p) Gamma((alpha+1)/p)).", _SRC + " Sec. 4"),
    Evaluator("mean_square", _R, mean_square, "MSE = E ||X||^2 = E R^2.", _SRC + " Sec. 4"),
    Evaluator("angle_density", (w, T), angle_density, "Density of W = cos(Theta), w in (-1, 1).", _SRC + " Prop. A.1"),
    Evaluator("angle_cdf", (w, T), angle_cdf, "F_W(w) = I_{(w+1)/2}((T-1)/2, (T-1)/2), w in [-1, 1].", _SRC + " Prop. A.1"),
]
