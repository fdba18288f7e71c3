"""Gaussian privacy function g(u) of seed 003 Eq. 6, with g'(u) and g''(u).

    a(u) = s/(2 sqrt u) - eps sqrt(u)/s,   b(u) = -s/(2 sqrt u) - eps sqrt(u)/s,
    g(u) = Phi(a(u)) - e^eps Phi(b(u))             (u = Gaussian variance).

Because phi(a) = e^eps phi(b) (a^2 - b^2 = -2 eps), the derivatives collapse to
    g'(u)  = -s/(2 u^(3/2)) phi(a(u)),
    g''(u) = phi(a(u)) (4 eps^2 u^2 + 12 s^2 u - s^4) / (16 s u^(7/2)),
both checked against sympy.diff in proofs/gaussian_privacy_function_eq6.py.
"""
import sympy as sp

from .common import Evaluator, Phi, epsilon, phi_density, s, u

FAMILY = "gaussian_privacy"
TITLE = "Gaussian privacy function g(u) (seed 003 Eq. 6)"

a_u = s / (2 * sp.sqrt(u)) - epsilon * sp.sqrt(u) / s
b_u = -s / (2 * sp.sqrt(u)) - epsilon * sp.sqrt(u) / s

g = Phi(a_u) - sp.exp(epsilon) * Phi(b_u)
#: closed forms (the proof checks them against sympy.diff(g, u) and diff(g, u, 2))
dg_du = -s / (2 * u**sp.Rational(3, 2)) * phi_density(a_u)
d2g_du2 = phi_density(a_u) * (4 * epsilon**2 * u**2 + 12 * s**2 * u - s**4) / (16 * s * u**sp.Rational(7, 2))

#: g'' >= 0 exactly when 4 eps^2 u^2 + 12 s^2 u - s^4 >= 0, i.e. u >= u_c (positive root,
#: written without cancellation): g is convex on [u_c, inf) and concave on (0, u_c].
convexity_threshold = s**2 / (2 * (3 + sp.sqrt(9 + epsilon**2)))

_SRC = "seed 003 Eq. 6 (Wei, Bienstock, Polychroniadou)"
EVALUATORS = [
    Evaluator("g", (u, epsilon, s), g,
              "Gaussian privacy function g(u) = optimal delta of N(0, u I) at level eps, l2 sensitivity s.",
              _SRC, "Decreasing in u. Phi via erfc."),
    Evaluator("dg_du", (u, epsilon, s), dg_du, "g'(u) = -s/(2 u^(3/2)) phi(a(u)) (< 0).",
              _SRC + "; derivative re-derived in proofs/gaussian_privacy_function_eq6.py"),
    Evaluator("d2g_du2", (u, epsilon, s), d2g_du2,
              "g''(u) = phi(a(u)) (4 eps^2 u^2 + 12 s^2 u - s^4)/(16 s u^(7/2)).",
              _SRC + " (convexity, Lemma 3.2); re-derived in proofs/gaussian_privacy_function_eq6.py"),
    Evaluator("convexity_threshold", (epsilon, s), convexity_threshold,
              "u_c = s^2/(2 (3 + sqrt(9 + eps^2))): g'' < 0 on (0, u_c), g'' > 0 on (u_c, inf).",
              "new (sign of g'' above); makes the convexity condition of seed 003 Lemma 3.2 explicit"),
]
