"""Tuning constants of the mixture engine, in one frozen dataclass.

Every field only steers *where* the engine spends its Arb evaluations (cut points, bisection
depths, budgets, which bound is tried first): none enters a bound, so any value keeps every
result certified; they trade time against the width of the enclosures. The engine reads
:data:`DEFAULT_SETTINGS`; :meth:`MixtureSettings.as_dict` gives JSON-able values so that a
certificate can record the settings it was computed with.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from fractions import Fraction

__all__ = ["MixtureSettings", "DEFAULT_SETTINGS"]


@dataclass(frozen=True)
class MixtureSettings:
    """The engine's tuning constants (module docstring: none of them affects soundness)."""

    # --- sign structure at a shift (structure.py)
    cut_step: float = 0.5  # spacing (in sigma) of the first cuts of the window (no float roots)
    guide_depth: int = 12  # float-only bisection levels of the guide
    guide_depth_tied: int = 4  # same, near a tied shift (D ~ 0 over long ranges: the Arb tests with pairs decide)
    guide_margin: float = 1.25  # float margin of the log-ratio test above which a piece gets an Arb test
    ball_budget: int = 2000  # ball mode: evaluations before the remaining unsigned pieces stay uncertain ...
    ball_budget_per_root: int = 200  # ... plus this many per float root
    # a shift ball's structure leaves a piece uncertain, unrefined, once sup D on it is below this share
    # of the caller's allowance spread over the window (the pieces' int D_+ then add at most that share)
    negligible_share: float = 0.02
    # --- second-order model on a ball of shifts (shift_model.py)
    root_slope_parts: int = 8  # sub-balls of the shift for the derivative of a clean root's boundary term
    sub_iters: int = 2  # passes narrowing a root sub-box by its speed bound
    sub_parts: int = 2  # parts of each root sub-box in its l_x enclosure (4: same intervals, slower)
    # (sub-pieces, sub-balls of the shift) tried, in turn, to prove a root piece monotone in x
    clean_root_parts: tuple[tuple[int, int], ...] = ((1, 1), (4, 1), (16, 1), (16, 4))
    excess_budget: int = 96  # bisections per shift ball for the int D_+ bounds of its uncertain pieces
    # --- bounds from end values (ball_bounds.py, model.py)
    mode_split: int = 16  # a mode set is bisected down to this fraction of it where D < 0 is not yet certified
    mode_box_width: float = 2.0 ** -8  # width (in sigma) to which the boxes holding the modes of f are bisected
    # --- branch and bound over the shift (search.py)
    grid_half: int = 4  # sub-balls on each side of the centre in the branch and bound's model grid
    initial_near_peak: Fraction = Fraction(1, 16)  # width of the first intervals around an interior argmax hint ...
    peak_scale_share: float = 1.5  # ... or, given the peak's scale (H halves within it), the power of 2 nearest scale / this
    near_peak_range: tuple[Fraction, Fraction] = (Fraction(1, 64), Fraction(1, 8))  # (narrowest, widest) of those widths
    chord_split: bool = True
    # --- balls of shifts next to a tied shift (tied_end.py)
    tied_end_width: float = 2.0 ** -2  # widest ball (in sigma) given the near-tie bound first ...
    tied_end_reach: float = 1.0  # ... when it lies within this distance (in sigma) of a tied shift
    tied_end_box: float = 0.5  # first x-boxes (in sigma) of that bound, ...
    tied_end_min_box: float = 2.0 ** -16  # ... bisected where not yet <= 0 down to this width (in sigma)
    tied_end_share: float = 0.5  # ... or until their positive part, spread over the window, is below this share of the goal
    tied_end_budget: int = 4000  # box evaluations before the bound gives up (None)
    tied_probe_levels: tuple[int, ...] = (6, 8, 10, 12)  # NO probes at tied shift -+ sigma 2^-k (search.py)
    thin_lobe_overlap: float = 0.25  # sigma / |tie| from which near-tie point values replace value_at (thin_lobes_likely)

    def as_dict(self) -> dict[str, object]:
        """JSON-able values: ``Fraction`` as exact strings (``"1/16"``), tuples as lists."""
        return {f.name: _jsonable(getattr(self, f.name)) for f in fields(self)}


def _jsonable(v: object) -> object:
    if isinstance(v, Fraction):
        return str(v)
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    return v


DEFAULT_SETTINGS = MixtureSettings()
