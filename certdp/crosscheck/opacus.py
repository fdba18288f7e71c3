"""Opacus (Meta): ``get_noise_multiplier`` for its RDP, PRV and GDP accountants, one full-batch step.

With ``sample_rate=1`` and ``steps=1`` DP-SGD is one Gaussian release of
sensitivity 1 (the clipping norm), so the answer is a sigma for (eps, delta).
Opacus needs torch; the adapter is skipped when it is not installed.
"""

from __future__ import annotations

from certdp.crosscheck.base import Adapter, Question


def _noise(accountant: str):
    def answer(epsilon: float, delta: float) -> float:
        from opacus.accountants.utils import get_noise_multiplier

        return float(get_noise_multiplier(target_epsilon=epsilon, target_delta=delta, sample_rate=1.0, steps=1,
                                          accountant=accountant))

    return answer


ADAPTER = Adapter(
    library="opacus", module="opacus", distribution="opacus",
    questions=tuple(
        Question(f"gaussian-{acc}", "gaussian",
                 f"noise multiplier for (eps, delta) from the {acc.upper()} accountant, one step, sample_rate 1",
                 f"opacus.accountants.utils.get_noise_multiplier(eps, delta, sample_rate=1, steps=1, "
                 f"accountant={acc!r})", _noise(acc))
        for acc in ("rdp", "prv", "gdp")
    ),
)
