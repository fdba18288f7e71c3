"""Multi-Gaussian mixture mechanism MG(sigma, K) (seed 000, Def. 3.1).

``f_m(x) = sum_{k=-K}^{K} p_k N(x; k Delta, sigma^2)``, ``p_k = e^{-|k| e} / sum_j e^{-|j| e}``
with ``e`` the design epsilon. K = 0 is the Gaussian. Symmetric, so one shift direction
suffices. The exact profile comes from :mod:`certdp.engines.gaussian_mixture`; delta is
non-increasing in sigma (seed 000 Lemma 3.4: a Gaussian convolution of both densities can only
shrink the hockey-stick divergence), which makes the certified bracket on sigma valid.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

import numpy as np
from flint import arb

from certdp.engines.gaussian_mixture import Component, GaussianMixture, interval_ball, privacy_profile_sup
from certdp.mechanisms.base import Mechanism, register
from certdp.numbers import InputError, arb_of, parse_positive

__all__ = ["MultiGaussian", "multi_gaussian_mixture", "multi_gaussian_core", "parse_components"]


def _weights(shape_epsilon: arb, k_max: int) -> list[arb]:
    raw = [(-abs(k) * shape_epsilon).exp() for k in range(-k_max, k_max + 1)]
    total = sum(raw, arb(0))
    return [r / total for r in raw]


def multi_gaussian_mixture(sigma: arb, shape_epsilon: arb, sensitivity: arb, components: int) -> GaussianMixture:
    ws = _weights(shape_epsilon, components)
    comps = [Component(w, k * sensitivity, None, k + components, -abs(k))
             for w, k in zip(ws, range(-components, components + 1))]
    return GaussianMixture(comps, sigma, (-components * sensitivity, sensitivity), design_epsilon=shape_epsilon)


def multi_gaussian_core(sigma: arb, shape_epsilon: arb, sensitivity: arb, components: int, epsilon: arb,
                        negligible: arb) -> tuple[GaussianMixture, arb]:
    """``(core, slack)``: MG(sigma, K) without its outer components ``|k| > k_c`` (weights unchanged, so
    ``core`` is a sub-density), ``k_c`` the smallest with ``slack <= negligible`` certified, and
    ``slack = (1 + e^eps) sum_{|k| > k_c} p_k``.

    Guarantee: for every shift, ``|H_f(phi) - H_core(phi)| <= slack``, since with ``f = core + rest``,
    ``|(a + b)_+ - a_+| <= |b|`` and ``int |rest(x + phi) - e^eps rest(x)| dx <= (1 + e^eps) mass(rest)``.
    So ``[lower - slack, upper + slack]`` from the engine on ``core`` encloses the profile of MG.
    With a large eps the outer weights ``e^{-|k| eps}`` are far below any decision's margin
    (eps = 10, K = 10, delta = 1e-4: ``k_c = 4``), and the engine's window and sums shrink with them."""
    ws = _weights(shape_epsilon, components)
    factor = 1 + epsilon.exp()
    keep, slack = components, arb(0)
    while keep > 0:
        outer = slack + factor * (ws[components - keep] + ws[components + keep])
        if not outer <= negligible:
            break
        keep, slack = keep - 1, outer
    comps = [Component(ws[k + components], k * sensitivity, None, k + keep, -abs(k)) for k in range(-keep, keep + 1)]
    core = GaussianMixture(comps, sigma, (-keep * sensitivity, sensitivity), design_epsilon=shape_epsilon)
    return core, slack


def parse_components(k: object) -> int:
    """The number of components ``K`` (an ``int`` or a decimal string, ``>= 0``); :class:`InputError` otherwise."""
    if isinstance(k, bool) or not isinstance(k, (int, str)):
        raise InputError("components", "must be an integer >= 0")
    try:
        v = int(k)
    except ValueError:
        raise InputError("components", "must be an integer >= 0") from None
    if v < 0:
        raise InputError("components", "must be >= 0")
    return v


@register
class MultiGaussian(Mechanism):
    """Multi-Gaussian mixture MG(sigma, K); ``components`` is K (2K+1 Gaussians)."""

    name = "multi-gaussian"
    aliases = ("mg",)
    calibration_methods = ("seed000-alg-1", "exact-mixture-engine")
    parameter = "sigma"
    profile_increasing = False
    method = ("exact hockey-stick engine for equal-variance Gaussian mixtures (certified roots, "
              "erfc sums, derivative branch and bound over the shift)")
    lemma = "seed 000 Def. 3.1; monotone in sigma by Lemma 3.4; engine: certdp.engines.gaussian_mixture"

    def __init__(self, sigma: object, *, components: object = 1, sensitivity: object = 1,
                 shape_epsilon: object = None):
        self.sigma: Fraction | arb = sigma if isinstance(sigma, arb) else parse_positive(sigma, "sigma")
        fixed = self.parse_fixed(components=components, sensitivity=sensitivity, shape_epsilon=shape_epsilon)
        self.components: int = fixed["components"]
        self.sensitivity: Fraction = fixed["sensitivity"]
        self.shape_epsilon: Fraction | None = fixed["shape_epsilon"]

    @classmethod
    def parse_fixed(cls, components: object = 1, sensitivity: object = 1, shape_epsilon: object = None) -> dict[str, Any]:
        return {
            "components": parse_components(components),
            "sensitivity": parse_positive(sensitivity, "sensitivity"),
            "shape_epsilon": None if shape_epsilon is None else parse_positive(shape_epsilon, "shape_epsilon"),
        }

    @property
    def value(self) -> Fraction | arb:
        return self.sigma

    def fixed_parameters(self) -> dict[str, Any]:
        out: dict[str, Any] = {"components": self.components, "sensitivity": self.sensitivity}
        if self.shape_epsilon is not None:
            out["shape_epsilon"] = self.shape_epsilon
        return out

    @classmethod
    def profile_ball(cls, value: arb, epsilon: arb, components: int = 1, sensitivity: Fraction = Fraction(1),
                     shape_epsilon: Fraction | None = None, rel_tol: float = 1e-7,
                     target: arb | None = None) -> arb:
        lo, hi = cls.profile_bounds(value, epsilon, components, sensitivity, shape_epsilon, rel_tol, target)
        return interval_ball(lo, hi)

    @classmethod
    def profile_bounds(cls, value: arb, epsilon: arb, components: int = 1, sensitivity: Fraction = Fraction(1),
                       shape_epsilon: Fraction | None = None, rel_tol: float = 1e-7,
                       target: arb | None = None, hints: Sequence[float] | None = None,
                       argmax_out: list[float] | None = None, peak_scale: float | None = None) -> tuple[arb, arb]:
        """``(lower, upper)`` with ``lower <= delta(eps) <= upper`` (exact engine, seed 000 MG).

        ``hints``: float worst shifts (default: the float guide's at ``value``), and ``peak_scale``
        the float width of the peak there (default with the default hints: the guide's); they only
        speed up the search. ``argmax_out`` receives the shift of the best certified lower bound."""
        se = epsilon if shape_epsilon is None else arb_of(shape_epsilon)
        d = arb_of(sensitivity)
        if target is not None and shape_epsilon is None and hints is None:
            from certdp.engines.gaussian_mixture.float_guide import mg_argmax_hint, mg_peak_scale

            hints = mg_argmax_hint(float(value.mid()), float(epsilon.mid()), components, float(sensitivity))
            if hints and peak_scale is None:
                peak_scale = mg_peak_scale(float(value.mid()), float(epsilon.mid()), components, float(sensitivity),
                                           hints[0])
        hints = list(hints or [])
        if target is not None and shape_epsilon is None:
            # outer components below 1e-12 of the target (their effect is added to the bounds)
            mix, slack = multi_gaussian_core(value, se, d, components, epsilon, target * arb("1e-12"))
        else:
            mix, slack = multi_gaussian_mixture(value, se, d, components), arb(0)
        core_target = None if target is None else (target - slack).lower()  # "delta <= target" on the core then holds for MG
        res = privacy_profile_sup(mix, epsilon, d, symmetric=True, rel_tol=rel_tol, target=core_target, hints=hints,
                                  peak_scale=peak_scale)
        if argmax_out is not None:
            argmax_out.append(res.argmax)
        return (res.lower - slack).max(arb(0)).lower(), (res.upper + slack).upper()

    # ------------------------------------------------------------------ moments
    def _setup(self) -> tuple[arb, arb, list[arb]]:
        if self.shape_epsilon is None:
            raise ValueError("moments of MG need shape_epsilon (the design epsilon)")
        s = self.sigma if isinstance(self.sigma, arb) else arb_of(self.sigma)
        return s, arb_of(self.sensitivity), _weights(arb_of(self.shape_epsilon), self.components)

    def mean_abs(self) -> arb:
        """E|X| (App. B.2), from the generated SymPy evaluator (certdp/generated/arb_multi_gaussian.py)."""
        from certdp.generated import arb_multi_gaussian as gen

        s, d, _ = self._setup()
        return gen.mean_abs(s, arb_of(self.shape_epsilon), d, self.components)

    def mean_square(self) -> arb:
        """E X^2 = s^2 + D^2 sum_k p_k k^2 (App. B.2), from the generated SymPy evaluator."""
        from certdp.generated import arb_multi_gaussian as gen

        s, d, _ = self._setup()
        return gen.mean_square(s, arb_of(self.shape_epsilon), d, self.components)

    def sample(self, size: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """Pick k with probability p_k, then N(k Delta, sigma^2) (App. B.1; floating point)."""
        if self.shape_epsilon is None:
            raise ValueError("sampling MG needs shape_epsilon")
        e = float(self.shape_epsilon)
        ks = np.arange(-self.components, self.components + 1)
        p = np.exp(-np.abs(ks) * e)
        p /= p.sum()
        shape = (size,) if isinstance(size, int) else tuple(size)
        k = rng.choice(ks, size=shape, p=p)
        return k * float(self.sensitivity) + rng.normal(0.0, float(self.sigma), shape)
