"""prv-accountant (Microsoft): the epsilon it reports for one Gaussian release, and for DP-SGD.

Asked the other way round: certdp's certified minimal sigma at the grid point
(eps, delta) goes in, and the accountant's upper epsilon comes out. The exact
answer is (within certdp's bracket width, 1e-12 relative) the grid's eps, so an
answer below it is an optimistic epsilon, and certdp's audit at that epsilon
proves whether it is VIOLATED.

``dpsgd``: the upper epsilon it reports for k Poisson-subsampled Gaussian steps
(``compute_epsilon(k)[2]`` with ``eps_error=0.01``, an absolute error), refereed by
:mod:`certdp.crosscheck.dpsgd`. Its lower end and point estimate are not
claimed to be upper bounds and are not audited.
"""

from __future__ import annotations

from certdp.crosscheck.base import Adapter, Question


def _epsilon(epsilon: float, delta: float, sigma: float) -> float:
    from prv_accountant import Accountant

    accountant = Accountant(noise_multiplier=sigma, sampling_probability=1.0, delta=delta,
                            eps_error=1e-3 * epsilon, max_compositions=1)
    _, _, upper = accountant.compute_epsilon(num_compositions=1)
    return float(upper)


def _dpsgd(sampling_rate: float, sigma: float, steps: int, delta: float) -> float:
    from prv_accountant import Accountant

    accountant = Accountant(noise_multiplier=sigma, sampling_probability=sampling_rate, delta=delta,
                            eps_error=DPSGD_EPS_ERROR, max_compositions=steps)
    _, _, upper = accountant.compute_epsilon(num_compositions=steps)
    return float(upper)


#: prv-accountant's eps_error for the DP-SGD question (absolute; it claims upper - lower <= 2 eps_error)
DPSGD_EPS_ERROR = 0.01

ADAPTER = Adapter(
    library="prv-accountant", module="prv_accountant", distribution="prv-accountant",
    questions=(
        Question("gaussian", "gaussian",
                 "upper epsilon at delta of one Gaussian release with sigma = certdp's certified minimum for "
                 "(eps, delta), sensitivity 1",
                 "prv_accountant.Accountant(noise_multiplier=sigma, sampling_probability=1, delta, "
                 "eps_error=1e-3*eps, max_compositions=1).compute_epsilon(1)[2]", _epsilon, returns="epsilon"),
        Question("dpsgd", "subsampled-gaussian",
                 "upper epsilon at delta of k Poisson-subsampled Gaussian steps (rate q, noise multiplier sigma)",
                 "prv_accountant.Accountant(noise_multiplier=sigma, sampling_probability=q, delta, eps_error=0.01, "
                 "max_compositions=k).compute_epsilon(k)[2]", _dpsgd, returns="dpsgd-epsilon", fixed={}),
    ),
)
