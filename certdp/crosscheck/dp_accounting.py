"""dp-accounting (Google): analytic Gaussian and Laplace noise, sigma from its PLD and RDP accountants,
and the epsilon of DP-SGD (k Poisson-subsampled Gaussian steps) from the same two accountants.

The ``gaussian-pld`` / ``gaussian-rdp`` questions are about one Gaussian release
(a single GaussianDpEvent); ``dpsgd-pld`` / ``dpsgd-rdp`` compose
``PoissonSampledDpEvent(q, GaussianDpEvent(sigma))`` k times (default
neighbouring relation ADD_OR_REMOVE_ONE, default PLD discretization 1e-4) and
are refereed against certdp's certified composition bracket.
"""

from __future__ import annotations

from certdp.crosscheck.base import Adapter, Question


def _params(epsilon: float, delta: float):
    from dp_accounting.pld import common

    return common.DifferentialPrivacyParameters(epsilon, delta)


def _analytic(epsilon: float, delta: float) -> float:
    from dp_accounting.pld import accountant

    return float(accountant.get_smallest_gaussian_noise(_params(epsilon, delta), 1, 1.0))


def _laplace(epsilon: float, delta: float) -> float:
    from dp_accounting.pld import accountant

    return float(accountant.get_smallest_laplace_noise(_params(epsilon, delta), 1, 1.0))


def _calibrated(kind: str):
    def answer(epsilon: float, delta: float) -> float:
        import dp_accounting

        fresh = (lambda: dp_accounting.pld.PLDAccountant()) if kind == "pld" else \
            (lambda: dp_accounting.rdp.RdpAccountant())
        return float(dp_accounting.calibrate_dp_mechanism(fresh, dp_accounting.GaussianDpEvent, epsilon, delta))

    return answer


def _dpsgd(kind: str):
    def answer(sampling_rate: float, sigma: float, steps: int, delta: float) -> float:
        import dp_accounting

        accountant = dp_accounting.pld.PLDAccountant() if kind == "pld" else dp_accounting.rdp.RdpAccountant()
        event = dp_accounting.PoissonSampledDpEvent(sampling_rate, dp_accounting.GaussianDpEvent(sigma))
        accountant.compose(event, steps)
        return float(accountant.get_epsilon(delta))

    return answer


ADAPTER = Adapter(
    library="dp-accounting", module="dp_accounting", distribution="dp-accounting",
    questions=(
        Question("gaussian", "gaussian", "sigma for (eps, delta), sensitivity 1 (analytic Gaussian)",
                 "dp_accounting.pld.accountant.get_smallest_gaussian_noise(DifferentialPrivacyParameters(eps, delta), "
                 "1, 1)", _analytic),
        Question("laplace", "laplace", "Laplace scale for (eps, delta), sensitivity 1",
                 "dp_accounting.pld.accountant.get_smallest_laplace_noise(DifferentialPrivacyParameters(eps, delta), "
                 "1, 1)", _laplace),
        Question("gaussian-pld", "gaussian", "sigma for (eps, delta), sensitivity 1, from the PLD accountant",
                 "dp_accounting.calibrate_dp_mechanism(PLDAccountant, GaussianDpEvent, eps, delta)",
                 _calibrated("pld")),
        Question("gaussian-rdp", "gaussian", "sigma for (eps, delta), sensitivity 1, from the RDP accountant",
                 "dp_accounting.calibrate_dp_mechanism(RdpAccountant, GaussianDpEvent, eps, delta)",
                 _calibrated("rdp")),
        *(Question(f"dpsgd-{kind}", "subsampled-gaussian",
                   f"epsilon at delta of k Poisson-subsampled Gaussian steps (rate q, noise multiplier sigma, "
                   f"add-or-remove adjacency) from the {kind.upper()} accountant",
                   f"{'PLDAccountant' if kind == 'pld' else 'RdpAccountant'}().compose(PoissonSampledDpEvent(q, "
                   f"GaussianDpEvent(sigma)), k).get_epsilon(delta)", _dpsgd(kind), returns="dpsgd-epsilon",
                   fixed={})
          for kind in ("pld", "rdp")),
    ),
)
