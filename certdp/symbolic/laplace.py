"""Laplace(0, b): density, CDF, survival, moments, privacy profile.

Privacy profile for sensitivity Delta and eps >= 0 (re-derived in
proofs/laplace_closed_forms.py):
    delta(eps) = max(0, 1 - exp((eps - Delta/b)/2)).
"""
import sympy as sp

from .common import Evaluator, b, epsilon, m, sensitivity, x

FAMILY = "laplace"
TITLE = "Laplace(0, b)"

density = sp.exp(-sp.Abs(x) / b) / (2 * b)
cdf = sp.Piecewise((sp.exp(x / b) / 2, x < 0), (1 - sp.exp(-x / b) / 2, True))
sf = sp.Piecewise((1 - sp.exp(x / b) / 2, x < 0), (sp.exp(-x / b) / 2, True))
mean_abs = b
mean_square = 2 * b**2
abs_moment = b**m * sp.gamma(m + 1)
privacy_profile = sp.Max(0, 1 - sp.exp((epsilon - sensitivity / b) / 2))

EVALUATORS = [
    Evaluator("density", (x, b), density, "Density exp(-|x|/b)/(2b).", "standard"),
    Evaluator("cdf", (x, b), cdf, "CDF P(X <= x).", "standard"),
    Evaluator("sf", (x, b), sf, "Survival P(X > x).", "standard"),
    Evaluator("mean_abs", (b,), mean_abs, "E|X| = b.", "standard"),
    Evaluator("mean_square", (b,), mean_square, "E X^2 = 2 b^2.", "standard"),
    Evaluator("abs_moment", (m, b), abs_moment, "E|X|^m = b^m Gamma(m+1), m > -1.", "standard; proofs/laplace_closed_forms.py"),
    Evaluator(
        "privacy_profile",
        (epsilon, sensitivity, b),
        privacy_profile,
        "Exact privacy profile delta(eps) of the Laplace mechanism, eps >= 0.",
        "re-derived in proofs/laplace_closed_forms.py (cf. seed 004 Sec. 3, p = 1)",
    ),
]
