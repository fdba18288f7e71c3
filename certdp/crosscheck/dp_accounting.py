"""dp-accounting (Google): analytic Gaussian and Laplace noise, and sigma from its PLD and RDP accountants.

The accountants are asked about one Gaussian release (a single GaussianDpEvent):
DP-SGD's subsampled compositions need certdp's composition accounting, which
this adapter does not ask yet.
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
    ),
)
