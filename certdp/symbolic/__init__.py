"""SymPy derivations of the closed forms used by certdp (build-time only).

Never imported by ``import certdp``: ``python -m certdp.symbolic.build`` turns
each family's ``EVALUATORS`` into plain-Python modules under
``certdp/generated/`` (``arb_<family>.py`` for python-flint balls,
``mp_<family>.py`` for mpmath).  See docs/symbolic.md.
"""

FAMILY_MODULES = (
    "gaussian",
    "laplace",
    "uniform",
    "gaussian_privacy",
    "generalized_gaussian",
    "quasi_gaussian",
    "multi_gaussian",
    "sgg",
)
