"""Gaussian N(0, sigma^2): density, CDF, survival, moments, privacy profile.

Privacy profile (sensitivity Delta, Balle & Wang 2018 Thm. 8; seed 003 Eq. 6
with u = sigma^2, s = Delta):
    delta(eps) = Phi(Delta/(2 sigma) - eps sigma/Delta)
                 - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta).
Proofs: proofs/gaussian_closed_forms.py.
"""
import sympy as sp

from .common import Evaluator, Phi, epsilon, m, sensitivity, sigma, x

FAMILY = "gaussian"
TITLE = "Gaussian N(0, sigma^2)"

density = sp.exp(-x**2 / (2 * sigma**2)) / (sp.sqrt(2 * sp.pi) * sigma)
cdf = Phi(x / sigma)
sf = Phi(-x / sigma)
mean_abs = sigma * sp.sqrt(2 / sp.pi)
mean_square = sigma**2
abs_moment = sigma**m * 2**(m / 2) * sp.gamma((m + 1) / 2) / sp.sqrt(sp.pi)
privacy_profile = Phi(sensitivity / (2 * sigma) - epsilon * sigma / sensitivity) - sp.exp(epsilon) * Phi(
    -sensitivity / (2 * sigma) - epsilon * sigma / sensitivity
)

EVALUATORS = [
    Evaluator("density", (x, sigma), density, "Density of N(0, sigma^2).", "standard"),
    Evaluator("cdf", (x, sigma), cdf, "CDF P(X <= x), through erfc (no cancellation).", "standard"),
    Evaluator("sf", (x, sigma), sf, "Survival P(X > x), through erfc (no underflow to 0 in the tail).", "standard"),
    Evaluator("mean_abs", (sigma,), mean_abs, "E|X| (noise amplitude).", "standard; proofs/gaussian_closed_forms.py"),
    Evaluator("mean_square", (sigma,), mean_square, "E X^2 (noise power).", "standard"),
    Evaluator("abs_moment", (m, sigma), abs_moment, "E|X|^m for real m > -1.", "standard; proofs/gaussian_closed_forms.py"),
    Evaluator(
        "privacy_profile",
        (epsilon, sigma, sensitivity),
        privacy_profile,
        "Exact privacy profile delta(eps) of the Gaussian mechanism with l2 sensitivity Delta.",
        "Balle & Wang 2018 Thm. 8; seed 003 Eq. 6 (g(u) with u = sigma^2, s = Delta)",
        "Decreasing in sigma. The difference of two Phi terms cancels for large sigma*eps/Delta; "
        "the Arb ball then widens and the caller must raise the precision.",
    ),
]
