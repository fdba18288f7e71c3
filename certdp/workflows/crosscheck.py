"""Moved to :mod:`certdp.crosscheck.csv_grid` (kept so old imports keep working)."""

from certdp.crosscheck.csv_grid import CrosscheckRow, crosscheck_rows, read_grid_csv  # noqa: F401

__all__ = ["CrosscheckRow", "crosscheck_rows", "read_grid_csv"]
