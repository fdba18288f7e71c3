"""The best K of the multi-Gaussian (seed 000 Table 3): the K minimising the l1 / l2 loss at Alg. 1's
sigma, chosen in float64 (:func:`mg_best_k_float`, a guide) or certified (:func:`mg_best_k_certified`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb

from certdp.numbers import decimal_bounds, working_precision

__all__ = ["mg_best_k_float", "mg_best_k_certified", "mg_loss", "BestK"]


def mg_best_k_float(eps: float, delta: float, ks: range = range(1, 21), eta: float = 0.01,
                    d: float = 1.0) -> dict[int, tuple[float, float, float]]:
    """K -> (sigma_K, E|X|, E X^2) in float64 for Alg. 1's sigma (continuum version); NOT certified.

    Only used to *choose* K (Table 3); the chosen K is certified afterwards.
    """
    from certdp.engines.gaussian_mixture.float_guide import mg_moments_float, mg_sigma_float

    out: dict[int, tuple[float, float, float]] = {}
    for k in ks:
        s = mg_sigma_float(eps, delta, k, d, eta=eta)
        l1, l2 = mg_moments_float(s, eps, k, d)
        out[k] = (s, l1, l2)
    return out


@dataclass
class BestK:
    """Result of :func:`mg_best_k_certified`: ``losses[K] = (lower, upper)`` (decimal strings) holds the
    loss of MG at Alg. 1's sigma for each K; ``best`` is the set of K not certified worse than
    another (one K when the search is decided); ``certificates`` are the per-K calibrations."""

    loss: str
    losses: dict[int, tuple[str, str]]
    best: list[int]
    certificates: dict[int, Any]

    @property
    def decided(self) -> bool:
        return len(self.best) == 1


def mg_loss(sigma: Fraction, components: int, epsilon: Fraction, loss: str) -> arb:
    """Arb enclosure (build inside the caller's precision) of the l1 (``E|X|``) or l2 (``E X^2``) loss
    of MG(sigma, K) with shape epsilon (closed forms, App. B.2)."""
    from certdp.mechanisms.multi_gaussian import MultiGaussian

    if loss not in ("l1", "l2"):
        raise ValueError("loss must be 'l1' or 'l2'")
    m = MultiGaussian(sigma, components=components, shape_epsilon=epsilon)
    return m.mean_abs() if loss == "l1" else m.mean_square()


def mg_best_k_certified(epsilon: object, delta: object, loss: str = "l1", ks: range = range(1, 21),
                        eta: object = Fraction(1, 100), progress: Any = None) -> BestK:
    """The K in ``ks`` minimising the l1 (``E|X|``) or l2 (``E X^2``) loss of MG(sigma_K, K), with
    sigma_K Alg. 1's sigma (Thm 3.2), *certified*.

    Each sigma_K is bracketed by :func:`~certdp.workflows.mixtures.mg_alg1.mg_paper_calibration` (rtol 1e-6):
    Alg. 1's sigma lies in ``[lo_K, hi_K]``. Both losses increase with sigma at fixed K
    (``E X^2 = sigma^2 + Delta^2 sum_k p_k k^2``; ``d/dsigma E|N(m, sigma^2)| = 2 phi(m / sigma) > 0``
    for every component), so the loss at Alg. 1's sigma lies in ``[loss(lo_K), loss(hi_K)]`` (Arb, 128
    bits). K is certified best when its upper end is below every other K's lower end; otherwise
    ``best`` lists every K whose interval meets the smallest upper end (losses within ~1e-6 cannot
    be told apart at this rtol). ``progress(K)`` is called after each K (a progress bar)."""
    from certdp.workflows.mixtures.mg_alg1 import mg_paper_calibration

    if loss not in ("l1", "l2"):
        raise ValueError("loss must be 'l1' or 'l2'")
    certificates: dict[int, Any] = {}
    bounds: dict[int, tuple[arb, arb]] = {}
    for k in ks:
        cert = mg_paper_calibration(epsilon=epsilon, delta=delta, components=k, eta=eta)
        certificates[k] = cert
        with working_precision(128):
            ends = [mg_loss(Fraction(sigma), k, Fraction(cert.inputs["epsilon"]), loss) for sigma in cert.interval]
        bounds[k] = (ends[0].lower(), ends[1].upper())
        if progress is not None:
            progress(k)
    smallest_upper = min(bounds.values(), key=lambda b: float(b[1]))[1]
    best = [k for k, (lo, _) in bounds.items() if not lo > smallest_upper]
    losses = {k: (decimal_bounds(lo)[0], decimal_bounds(up)[1]) for k, (lo, up) in bounds.items()}
    return BestK(loss, losses, best, certificates)
