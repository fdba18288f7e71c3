"""diffprivlib (IBM): the Gaussian, analytic Gaussian and Laplace mechanisms' noise scales.

``LaplaceBoundedDomain`` is not asked: its privacy rests on the truncation to
a bounded domain, a mechanism certdp does not model.
"""

from __future__ import annotations

from certdp.crosscheck.base import Adapter, Question


def _analytic(epsilon: float, delta: float) -> float:
    from diffprivlib.mechanisms import GaussianAnalytic

    return float(GaussianAnalytic(epsilon=epsilon, delta=delta, sensitivity=1.0)._scale)


def _classic(epsilon: float, delta: float) -> float:
    from diffprivlib.mechanisms import Gaussian

    return float(Gaussian(epsilon=epsilon, delta=delta, sensitivity=1.0)._scale)  # raises for epsilon > 1


def _laplace(epsilon: float, delta: float) -> float:
    import numpy as np
    from diffprivlib.mechanisms import Laplace

    mech = Laplace(epsilon=epsilon, delta=delta, sensitivity=1.0)
    # the scale Laplace.randomise draws with (diffprivlib 0.6), same expression, same float operations
    return float(mech.sensitivity / (mech.epsilon - np.log(1 - mech.delta)))


ADAPTER = Adapter(
    library="diffprivlib", module="diffprivlib", distribution="diffprivlib",
    questions=(
        Question("gaussian", "gaussian", "sigma for (eps, delta), sensitivity 1 (analytic Gaussian)",
                 "diffprivlib.mechanisms.GaussianAnalytic(epsilon, delta, sensitivity=1)._scale", _analytic),
        Question("classic-gaussian", "gaussian", "sigma for (eps, delta), sensitivity 1 (classic Gaussian, eps <= 1)",
                 "diffprivlib.mechanisms.Gaussian(epsilon, delta, sensitivity=1)._scale", _classic),
        Question("laplace", "laplace", "Laplace scale for (eps, delta), sensitivity 1",
                 "diffprivlib.mechanisms.Laplace(epsilon, delta, sensitivity=1): "
                 "sensitivity / (epsilon - log(1 - delta))", _laplace),
    ),
)
