"""Referee other DP libraries: call them over a grid, prove which answers are wrong.

One module per peer library (``certdp.crosscheck.<module>.ADAPTER``); none of
them imports its library until it is asked a question, and ``import certdp``
imports none of this package. The CSV path for libraries without an adapter is
:mod:`certdp.crosscheck.csv_grid`.
"""

from __future__ import annotations

import importlib

from certdp.crosscheck.base import Adapter, PeerMissing, Question
from certdp.numbers import InputError

__all__ = ["ADAPTERS", "get_adapter", "library_names", "Adapter", "Question", "PeerMissing"]

#: library name -> adapter module (the name users type; ``_`` and ``-`` are interchangeable)
ADAPTERS = {
    "dp-accounting": "certdp.crosscheck.dp_accounting",
    "opendp": "certdp.crosscheck.opendp",
    "diffprivlib": "certdp.crosscheck.diffprivlib",
    "autodp": "certdp.crosscheck.autodp",
    "prv-accountant": "certdp.crosscheck.prv_accountant",
    "opacus": "certdp.crosscheck.opacus",
}


def library_names() -> list[str]:
    return list(ADAPTERS)


def _canonical(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def is_library(name: str) -> bool:
    return _canonical(name) in ADAPTERS


def get_adapter(name: str) -> Adapter:
    """The adapter for library ``name`` (InputError naming the known libraries otherwise)."""
    key = _canonical(name)
    if key not in ADAPTERS:
        raise InputError("LIBRARY", f"no adapter for {name!r} (adapters: {', '.join(ADAPTERS)}; "
                                    "for another library pass a mechanism and a CSV file)")
    return importlib.import_module(ADAPTERS[key]).ADAPTER
