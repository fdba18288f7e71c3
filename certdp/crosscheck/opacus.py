"""Opacus (Meta): its RDP, PRV and GDP accountants, as DP-SGD epsilons and as ``get_noise_multiplier``.

* ``gaussian-rdp|prv|gdp``: ``get_noise_multiplier`` with ``sample_rate=1`` and
  ``steps=1`` -- one Gaussian release of sensitivity 1 (the clipping norm), so
  the answer is a sigma for (eps, delta), audited like any Gaussian sigma.
* ``dpsgd-rdp|prv|gdp``: the accountant's epsilon at delta after k steps of
  Poisson rate q and noise multiplier sigma (``accountant.history = [(sigma, q,
  k)]``, then ``get_epsilon(delta)``).
* ``noise-rdp|prv|gdp``: ``get_noise_multiplier(target_epsilon=eps, target_delta=delta,
  sample_rate=q, steps=k, accountant=...)``: the claim is that DP-SGD at the
  returned sigma is (eps, delta)-DP.

The DP-SGD questions are refereed by :mod:`certdp.crosscheck.dpsgd` against
certdp's certified composition bracket (add-or-remove adjacency, both
directions). Opacus' GDP accountant uses the central-limit approximation of
Bu et al. (its own warning says so): it is an estimate, not a bound, and the
referee treats it as the claim Opacus returns.

Opacus needs torch; the adapter is skipped when it is not installed.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager

from certdp.crosscheck.base import Adapter, Question

_ACCOUNTANTS = {"rdp": "RDPAccountant", "prv": "PRVAccountant", "gdp": "GaussianAccountant"}


@contextmanager
def _silenced():
    """Opacus warns on some calls (GDP: an approximation; RDP: optimal order at the end of the alphas)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _noise(accountant: str):
    def answer(epsilon: float, delta: float) -> float:
        from opacus.accountants.utils import get_noise_multiplier

        with _silenced():
            return float(get_noise_multiplier(target_epsilon=epsilon, target_delta=delta, sample_rate=1.0, steps=1,
                                              accountant=accountant))

    return answer


def _dpsgd_epsilon(accountant: str):
    def answer(sampling_rate: float, sigma: float, steps: int, delta: float) -> float:
        import opacus.accountants

        with _silenced():
            acc = getattr(opacus.accountants, _ACCOUNTANTS[accountant])()
            acc.history = [(sigma, sampling_rate, steps)]
            return float(acc.get_epsilon(delta))

    return answer


def _dpsgd_noise(accountant: str):
    def answer(sampling_rate: float, epsilon: float, steps: int, delta: float) -> float:
        from opacus.accountants.utils import get_noise_multiplier

        with _silenced():
            return float(get_noise_multiplier(target_epsilon=epsilon, target_delta=delta, sample_rate=sampling_rate,
                                              steps=steps, accountant=accountant))

    return answer


ADAPTER = Adapter(
    library="opacus", module="opacus", distribution="opacus",
    questions=(
        *(Question(f"gaussian-{acc}", "gaussian",
                   f"noise multiplier for (eps, delta) from the {acc.upper()} accountant, one step, sample_rate 1",
                   f"opacus.accountants.utils.get_noise_multiplier(eps, delta, sample_rate=1, steps=1, "
                   f"accountant={acc!r})", _noise(acc))
          for acc in _ACCOUNTANTS),
        *(Question(f"dpsgd-{acc}", "subsampled-gaussian",
                   f"epsilon at delta of k Poisson-subsampled Gaussian steps (rate q, noise multiplier sigma) "
                   f"from the {acc.upper()} accountant",
                   f"opacus.accountants.{name}() with history [(sigma, q, k)], .get_epsilon(delta)",
                   _dpsgd_epsilon(acc), returns="dpsgd-epsilon", fixed={})
          for acc, name in _ACCOUNTANTS.items()),
        *(Question(f"noise-{acc}", "subsampled-gaussian",
                   f"noise multiplier for a target (eps, delta) after k Poisson-subsampled steps of rate q, "
                   f"{acc.upper()} accountant",
                   f"opacus.accountants.utils.get_noise_multiplier(target_epsilon=eps, target_delta=delta, "
                   f"sample_rate=q, steps=k, accountant={acc!r})", _dpsgd_noise(acc), returns="dpsgd-sigma",
                   fixed={})
          for acc in _ACCOUNTANTS),
    ),
)
