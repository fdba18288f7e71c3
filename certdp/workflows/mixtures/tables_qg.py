"""Reproduction of seed 000 Tables 5 and 6 (QG vs analytic Gaussian, l1 / l2), certified.

Each cell is ``100 (a - q) / max(a, q)`` with ``a`` the loss of the analytic Gaussian at its
certified minimal sigma (foundation ``calibrate("gaussian")``, safe end) and ``q`` the loss of
the quasi-Gaussian at the certified Thm 4.2 sigma (:func:`qg_paper_calibration`, safe end); the
losses are ``E|X|`` (Table 5) and ``E X^2`` (Table 6) evaluated on Arb balls (QG moments from the
generated symbolic evaluators; Gaussian: ``sigma sqrt(2/pi)`` and ``sigma^2``). The printed value
is the midpoint of the certified enclosure of the improvement (its width is ~1e-10 pp).

The paper's published numbers below are copied from seed 000 App. D.4 (Tables 5-6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from flint import arb

__all__ = ["DELTAS", "EPSILONS", "PAPER_TABLE5", "PAPER_TABLE6", "QGCell", "qg_cell", "qg_tables"]

DELTAS = ["5e-7", "1e-6", "5e-6", "1e-5", "5e-5", "1e-4", "5e-4", "1e-3", "5e-3", "0.01", "0.02", "0.05",
          "0.1", "0.15", "0.25"]
EPSILONS = ["0.1", "0.25", "0.5", "0.75", "1", "2", "3", "4", "5", "10"]

PAPER_TABLE5 = [  # l1 improvement (%), rows = DELTAS, columns = EPSILONS
    [-0.51, -0.77, -1.76, -2.30, -2.47, -1.18, 1.70, 4.76, 7.56, 20.58],
    [-0.53, -1.12, -1.84, -2.37, -2.54, -1.17, 1.86, 5.07, 8.04, 22.13],
    [-0.58, -1.26, -2.07, -2.54, -2.71, -1.14, 2.30, 5.98, 9.41, 27.11],
    [-0.56, -1.31, -2.15, -2.63, -2.79, -1.12, 2.54, 6.46, 10.15, 30.34],
    [-0.67, -1.44, -2.35, -2.86, -3.02, -1.03, 3.28, 7.93, 12.39, 60.60],
    [-0.70, -1.51, -2.45, -2.98, -3.13, -0.96, 3.70, 8.78, 13.69, 59.40],
    [-0.79, -1.70, -2.74, -3.30, -3.44, -0.69, 5.11, 11.56, 18.10, 56.14],
    [-0.84, -1.79, -2.89, -3.47, -3.59, -0.49, 6.01, 13.35, 21.08, 54.48],
    [-0.91, -2.04, -3.30, -3.92, -3.99, 0.41, 9.54, 20.79, 37.45, 49.75],
    [-0.88, -2.13, -3.49, -4.14, -4.16, 1.20, 12.41, 27.97, 56.58, 47.20],
    [-0.72, -2.15, -3.67, -4.35, -4.29, 2.56, 17.43, 53.82, 53.28, 44.20],
    [0.01, -1.89, -3.76, -4.49, -4.20, 6.73, 45.29, 47.67, 47.63, 39.27],
    [1.46, -1.08, -3.42, -4.11, -3.32, 21.24, 37.64, 41.25, 41.83, 34.41],
    [3.00, 0.01, -2.69, -3.08, -1.23, 23.61, 31.70, 36.35, 37.46, 30.86],
    [-2.86, 3.21, 1.90, 6.11, 3.63, 10.04, 21.68, 28.22, 30.29, 25.22],
]

PAPER_TABLE6 = [  # l2 improvement (%)
    [-0.88, -1.23, -2.98, -3.94, -4.22, -1.86, 3.53, 9.25, 14.47, 36.92],
    [-0.91, -1.92, -3.13, -4.05, -4.33, -1.84, 3.82, 9.84, 15.34, 39.35],
    [-0.99, -2.15, -3.54, -4.33, -4.61, -1.76, 4.65, 11.50, 17.79, 46.86],
    [-0.95, -2.23, -3.66, -4.47, -4.75, -1.71, 5.10, 12.38, 19.10, 51.46],
    [-1.13, -2.44, -3.98, -4.84, -5.11, -1.51, 6.46, 15.02, 23.01, 84.45],
    [-1.18, -2.55, -4.15, -5.03, -5.29, -1.37, 7.23, 16.50, 25.21, 83.49],
    [-1.31, -2.83, -4.59, -5.53, -5.76, -0.86, 9.75, 21.29, 32.47, 80.73],
    [-1.36, -2.97, -4.80, -5.78, -5.98, -0.48, 11.31, 24.28, 37.14, 79.24],
    [-1.36, -3.24, -5.35, -6.41, -6.53, 1.14, 17.26, 35.96, 59.67, 74.71],
    [-1.18, -3.26, -5.55, -6.67, -6.73, 2.50, 21.84, 46.18, 79.05, 72.08],
    [-0.66, -3.08, -5.65, -6.85, -6.82, 4.77, 29.44, 74.39, 75.75, 68.82],
    [1.30, -1.99, -5.29, -6.66, -6.38, 11.36, 62.07, 67.11, 69.54, 63.06],
    [4.98, 0.52, -3.85, -5.38, -4.46, 31.45, 50.72, 58.54, 62.41, 56.91],
    [8.86, 3.54, -1.59, -2.87, -0.43, 30.00, 40.89, 51.34, 56.55, 52.12],
    [-0.52, 12.26, 9.46, 14.04, 5.36, 2.92, 22.28, 38.11, 46.01, 43.98],
]


@dataclass
class QGCell:
    delta: str
    epsilon: str
    sigma_gaussian: str
    sigma_qg: str
    binding: str
    l1_improvement: float  # midpoint of the certified enclosure (percent)
    l2_improvement: float
    l1_width: float
    l2_width: float
    seconds: float


def _improvement(a: arb, q: arb) -> arb:
    m = a if a > q else (q if q > a else a.union(q))
    return 100 * (a - q) / m


def qg_cell(delta: str, epsilon: str, sensitivity: str = "1") -> QGCell:
    import time

    from certdp.mechanisms.quasi_gaussian import QuasiGaussian
    from certdp.numbers import arb_of, working_precision
    from certdp.workflows.calibrate import calibrate
    from certdp.workflows.mixtures.qg_paper import qg_paper_calibration
    from fractions import Fraction

    t0 = time.perf_counter()
    ag = calibrate("gaussian", epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    qg = qg_paper_calibration(epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    with working_precision(128):
        sa = arb_of(Fraction(str(ag.value)))
        a1 = sa * (2 / arb.pi()).sqrt()
        a2 = sa * sa
        mech = QuasiGaussian(str(qg.value), sensitivity=sensitivity, shape_epsilon=epsilon)
        q1, q2 = mech.mean_abs(), mech.mean_square()
        i1, i2 = _improvement(a1, q1), _improvement(a2, q2)
        out = QGCell(delta, epsilon, str(ag.value), str(qg.value), qg.extra["binding"],
                     float(i1.mid()), float(i2.mid()), float(2 * i1.rad()), float(2 * i2.rad()),
                     time.perf_counter() - t0)
    return out


def qg_tables(progress: Callable[[QGCell], None] | None = None) -> list[list[QGCell]]:
    rows = []
    for d in DELTAS:
        row = []
        for e in EPSILONS:
            cell = qg_cell(d, e)
            row.append(cell)
            if progress is not None:
                progress(cell)
        rows.append(row)
    return rows
