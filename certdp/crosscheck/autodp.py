"""autodp: its analytic-Gaussian, RDP-Gaussian and classical-Gaussian calibrators, and eps_delta_calibrator."""

from __future__ import annotations

from certdp.crosscheck.base import Adapter, Question


def _calibrator():
    import autodp.rdp_acct  # noqa: F401  (autodp 0.2 has a circular import privacy_calibrator <-> rdp_acct)
    from autodp import privacy_calibrator

    return privacy_calibrator


def _analytic(epsilon: float, delta: float) -> float:
    return float(_calibrator().ana_gaussian_mech(epsilon, delta)["sigma"])  # sensitivity 1; 3rd argument is tol


def _rdp(epsilon: float, delta: float) -> float:
    return float(_calibrator().gaussian_mech(epsilon, delta)["sigma"])


def _classic(epsilon: float, delta: float) -> float:
    return float(_calibrator().classical_gaussian_mech(epsilon, delta)["sigma"])  # asserts eps <= 1


def _zoo(epsilon: float, delta: float) -> float:
    from autodp.calibrator_zoo import eps_delta_calibrator
    from autodp.mechanism_zoo import ExactGaussianMechanism

    mech = eps_delta_calibrator()(ExactGaussianMechanism, epsilon, delta, [0, 1000], name="GM")
    return float(mech.params["sigma"])


ADAPTER = Adapter(
    library="autodp", module="autodp", distribution="autodp",
    questions=(
        Question("gaussian", "gaussian", "sigma for (eps, delta), sensitivity 1 (analytic Gaussian, Balle & Wang)",
                 "autodp.privacy_calibrator.ana_gaussian_mech(epsilon, delta)['sigma']", _analytic),
        Question("gaussian-rdp", "gaussian", "sigma for (eps, delta), sensitivity 1 (RDP of the Gaussian)",
                 "autodp.privacy_calibrator.gaussian_mech(epsilon, delta)['sigma']", _rdp),
        Question("classic-gaussian", "gaussian", "sigma for (eps, delta), sensitivity 1 (classical, eps <= 1)",
                 "autodp.privacy_calibrator.classical_gaussian_mech(epsilon, delta)['sigma']", _classic),
        Question("gaussian-calibrator", "gaussian",
                 "sigma for (eps, delta), sensitivity 1 (eps_delta_calibrator on ExactGaussianMechanism)",
                 "autodp.calibrator_zoo.eps_delta_calibrator()(ExactGaussianMechanism, epsilon, delta, [0, 1000])",
                 _zoo),
    ),
)
