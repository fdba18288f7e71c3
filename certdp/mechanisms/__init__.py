"""Mechanisms: one module per noise distribution, registered by name.

Importing this package registers every mechanism (one import line each).
"""

from certdp.mechanisms.base import REGISTRY, Mechanism, get_mechanism, mechanism_names, register
from certdp.mechanisms.gaussian import Gaussian
from certdp.mechanisms.laplace import Laplace
from certdp.mechanisms.uniform import Uniform
from certdp.mechanisms.generalized_gaussian import GeneralizedGaussian
import certdp.mechanisms.sgg  # noqa: E402,F401  (sgg, spherical-gaussian, l2-laplace, r1smg)
from certdp.mechanisms.quasi_gaussian import QuasiGaussian  # noqa: E402  (mixtures)
from certdp.mechanisms.multi_gaussian import MultiGaussian  # noqa: E402  (mixtures)

__all__ = ["REGISTRY", "Mechanism", "get_mechanism", "mechanism_names", "register",
           "Gaussian", "Laplace", "Uniform", "GeneralizedGaussian"]
