"""Uniform on [-b, b] (GGM with p = infinity): density, CDF, moments, profile.

Privacy profile for sensitivity Delta and eps >= 0 (re-derived in
proofs/uniform_closed_forms.py): delta(eps) = min(1, Delta/(2b)), independent of eps.
"""
import sympy as sp

from .common import Evaluator, b, epsilon, m, sensitivity, x

FAMILY = "uniform"
TITLE = "Uniform on [-b, b]"

density = sp.Piecewise((0, x < -b), (1 / (2 * b), x <= b), (0, True))
cdf = sp.Piecewise((0, x < -b), ((x + b) / (2 * b), x < b), (1, True))
sf = sp.Piecewise((1, x < -b), ((b - x) / (2 * b), x < b), (0, True))
mean_abs = b / 2
mean_square = b**2 / 3
abs_moment = b**m / (m + 1)
privacy_profile = sp.Min(1, sensitivity / (2 * b))

EVALUATORS = [
    Evaluator("density", (x, b), density, "Density 1/(2b) on [-b, b].", "standard"),
    Evaluator("cdf", (x, b), cdf, "CDF P(X <= x).", "standard"),
    Evaluator("sf", (x, b), sf, "Survival P(X > x).", "standard"),
    Evaluator("mean_abs", (b,), mean_abs, "E|X| = b/2.", "standard"),
    Evaluator("mean_square", (b,), mean_square, "E X^2 = b^2/3.", "standard"),
    Evaluator("abs_moment", (m, b), abs_moment, "E|X|^m = b^m/(m+1) (= b^m M_m(inf), seed 004 Sec. 2.4).", "seed 004 Sec. 2.4"),
    Evaluator(
        "privacy_profile",
        (epsilon, sensitivity, b),
        privacy_profile,
        "Exact privacy profile delta(eps) = min(1, Delta/(2b)) for eps >= 0 (epsilon is unused).",
        "re-derived in proofs/uniform_closed_forms.py",
    ),
]
