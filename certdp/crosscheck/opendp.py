"""OpenDP: the Gaussian scale through its zCDP privacy map and zCDP -> approx-DP conversion; the Laplace scale."""

from __future__ import annotations

from certdp.crosscheck.base import Adapter, Question


def _dp():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def _gaussian(epsilon: float, delta: float) -> float:
    dp = _dp()
    space = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))

    def chain(scale: float):
        return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(*space, scale)), delta)

    return float(dp.binary_search_param(chain, d_in=1.0, d_out=(epsilon, delta), T=float))


def _laplace(epsilon: float, delta: float) -> float:
    dp = _dp()
    space = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))
    return float(dp.binary_search_param(lambda s: dp.m.make_laplace(*space, s), d_in=1.0, d_out=epsilon, T=float))


ADAPTER = Adapter(
    library="opendp", module="opendp", distribution="opendp",
    questions=(
        Question("gaussian", "gaussian",
                 "sigma for (eps, delta), sensitivity 1 (zCDP map of make_gaussian, then make_zCDP_to_approxDP)",
                 "opendp binary_search_param(make_fix_delta(make_zCDP_to_approxDP(make_gaussian(scale)), delta), "
                 "d_in=1, d_out=(eps, delta))", _gaussian),
        Question("laplace", "laplace", "Laplace scale for pure eps-DP, sensitivity 1 (delta ignored)",
                 "opendp binary_search_param(make_laplace(scale), d_in=1, d_out=eps)", _laplace, pure=True),
    ),
)
