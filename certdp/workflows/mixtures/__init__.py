"""Certified calibrations and table reproductions for the Gaussian-mixture mechanisms of seed 000.

One file per method (each has its own docstring with the theorem it relies on):

``qg_paper``     quasi-Gaussian, Thm 4.2 / Alg. 3-4: :func:`qg_paper_calibration`
``mg_alg1``      multi-Gaussian, Thm 3.2 / Alg. 1-2 (condition (2) on the shift grid):
                 :func:`mg_paper_calibration`, :func:`mg_grid_step`
``exact``        the smallest sigma the exact engine certifies (QG or MG): :func:`exact_calibration`
``missed_peak``  the retry both MG calibrations use when the float guide missed a narrow peak
``best_k``       the l1 / l2-best K of the multi-Gaussian (Table 3): :func:`mg_best_k_certified`
``tables_qg``    Tables 5-6 (QG vs analytic Gaussian): :func:`qg_tables`
``tables_mg``    Tables 3-4 (MG), recomputed: :func:`mg_cell`, :func:`mg_cell_float`
``table_audit``  the refutation rule for printed Tables 4-6: :func:`refute_printed_cell`
``zcdp``         zCDP composition, Cor. 3.7-3.8: :func:`zcdp_composition`
``audit``        certified ``delta(eps)`` and audit witnesses at a given sigma (the CLI's profile/audit)

The exact engine is :mod:`certdp.engines.gaussian_mixture`; its float64 guides (never deciding) are
:mod:`certdp.engines.gaussian_mixture.float_guide`.
"""

from certdp.workflows.mixtures.audit import MixtureProfileValue, check_mixture_witness, mixture_audit, mixture_profile_value
from certdp.workflows.mixtures.best_k import BestK, mg_best_k_certified, mg_best_k_float, mg_loss
from certdp.workflows.mixtures.exact import exact_calibration
from certdp.workflows.mixtures.mg_alg1 import mg_grid_step, mg_paper_calibration, mg_paper_profile
from certdp.workflows.mixtures.qg_paper import qg_paper_calibration, qg_ratio_enclosure, qg_sigma1_profile
from certdp.workflows.mixtures.zcdp import zcdp_composition

__all__ = ["qg_paper_calibration", "mg_paper_calibration", "mg_grid_step", "exact_calibration", "zcdp_composition",
           "qg_sigma1_profile", "qg_ratio_enclosure", "mg_paper_profile", "BestK", "mg_best_k_certified",
           "mg_best_k_float", "mg_loss", "MixtureProfileValue", "mixture_profile_value", "mixture_audit",
           "check_mixture_witness"]
