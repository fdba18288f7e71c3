"""prv-accountant (Microsoft): the epsilon it reports for one Gaussian release.

Asked the other way round: certdp's certified minimal sigma at the grid point
(eps, delta) goes in, and the accountant's upper epsilon comes out. The exact
answer is (within certdp's bracket width, 1e-12 relative) the grid's eps, so an
answer below it is an optimistic epsilon, and certdp's audit at that epsilon
proves whether it is VIOLATED.
"""

from __future__ import annotations

from certdp.crosscheck.base import Adapter, Question


def _epsilon(epsilon: float, delta: float, sigma: float) -> float:
    from prv_accountant import Accountant

    accountant = Accountant(noise_multiplier=sigma, sampling_probability=1.0, delta=delta,
                            eps_error=1e-3 * epsilon, max_compositions=1)
    _, _, upper = accountant.compute_epsilon(num_compositions=1)
    return float(upper)


ADAPTER = Adapter(
    library="prv-accountant", module="prv_accountant", distribution="prv-accountant",
    questions=(
        Question("gaussian", "gaussian",
                 "upper epsilon at delta of one Gaussian release with sigma = certdp's certified minimum for "
                 "(eps, delta), sensitivity 1",
                 "prv_accountant.Accountant(noise_multiplier=sigma, sampling_probability=1, delta, "
                 "eps_error=1e-3*eps, max_compositions=1).compute_epsilon(1)[2]", _epsilon, returns="epsilon"),
    ),
)
