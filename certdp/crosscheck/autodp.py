"""autodp: its analytic-Gaussian, RDP-Gaussian and classical-Gaussian calibrators, eps_delta_calibrator,
and the DP-SGD epsilon of ``NoisySGD_Mechanism`` (RDP of the Poisson-subsampled Gaussian, composed k times)."""

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


def _dpsgd(sampling_rate: float, sigma: float, steps: int, delta: float) -> float:
    import autodp.rdp_acct  # noqa: F401
    from autodp.mechanism_zoo import NoisySGD_Mechanism

    return float(NoisySGD_Mechanism(prob=sampling_rate, sigma=sigma, niter=steps).get_approxDP(delta))


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
        Question("dpsgd", "subsampled-gaussian",
                 "epsilon at delta of k Poisson-subsampled Gaussian steps (rate q, noise multiplier sigma), "
                 "NoisySGD_Mechanism (RDP)",
                 "autodp.mechanism_zoo.NoisySGD_Mechanism(prob=q, sigma=sigma, niter=k).get_approxDP(delta)",
                 _dpsgd, returns="dpsgd-epsilon", fixed={}),
    ),
)
