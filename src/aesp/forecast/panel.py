"""The panel: many load series on one regular time grid.

Every reader in :mod:`aesp.forecast.datasets` returns a :class:`Panel`; every forecaster consumes
one. Gaps in the raw trace are imputed (forward fill, back fill at the very start) so the values
array is dense, and ``observed`` records which points were real samples; metrics skip imputed
targets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Panel:
    """A set of load series sampled on a regular grid of ``step_s`` seconds.

    Shapes:
        values: (S, T); observed: (S, T); start_s: (S,).

    Units:
        values in the unit named by ``unit`` (e.g. percent of CPU); ``step_s`` and ``start_s``
        in seconds (Unix time for ``start_s``).

    Attributes:
        series_ids: One name per row.
        values: Dense values; imputed where ``observed`` is False.
        observed: True where the value came from a real sample in that grid cell.
        step_s: Grid spacing.
        start_s: Time of column 0 for each series. Equal for all rows when the series share a
            clock; NAB series come from different weeks and are aligned by index instead.
        unit: Unit of ``values``.
        dropped: Series ids the reader dropped (too few observed points), for reporting.
    """

    series_ids: tuple[str, ...]
    values: FloatArray
    observed: BoolArray
    step_s: int
    start_s: IntArray
    unit: str = ""
    dropped: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        n_series, n_steps = self.values.shape
        if self.observed.shape != (n_series, n_steps):
            raise ValueError(f"observed {self.observed.shape} != values {self.values.shape}")
        if len(self.series_ids) != n_series or self.start_s.shape != (n_series,):
            raise ValueError("series_ids and start_s need one entry per row of values")
        if self.step_s <= 0:
            raise ValueError(f"step_s must be positive, got {self.step_s}")

    @property
    def n_series(self) -> int:
        """Number of series S."""
        return int(self.values.shape[0])

    @property
    def n_steps(self) -> int:
        """Number of grid points T."""
        return int(self.values.shape[1])

    def head(self, n_steps: int) -> Panel:
        """The first ``n_steps`` points of every series (a chronological training split)."""
        return Panel(
            self.series_ids,
            self.values[:, :n_steps],
            self.observed[:, :n_steps],
            self.step_s,
            self.start_s,
            self.unit,
            self.dropped,
        )

    def select(self, rows: npt.ArrayLike) -> Panel:
        """A panel with only the given rows (series)."""
        idx = np.asarray(rows, dtype=np.int64)
        return Panel(
            tuple(self.series_ids[i] for i in idx),
            self.values[idx],
            self.observed[idx],
            self.step_s,
            self.start_s[idx],
            self.unit,
            self.dropped,
        )

    def seconds_of_day(self) -> FloatArray:
        """Seconds since midnight UTC of every grid point.

        Shapes:
            returns (S, T).
        """
        times_s = self.start_s[:, None] + self.step_s * np.arange(self.n_steps)[None, :]
        return (times_s % 86_400).astype(np.float64)


def steps_for(duration_s: int, step_s: int) -> int:
    """Grid steps closest to a duration, at least one (15 min at 300 s -> 3; at 57 s -> 16)."""
    return max(1, round(duration_s / step_s))


def regularise(
    times_s: FloatArray, values: FloatArray, grid_start_s: int, step_s: int, n_steps: int
) -> tuple[FloatArray, BoolArray]:
    """Bin irregular samples onto a regular grid by the mean, then fill the gaps.

    A grid cell ``i`` covers ``[grid_start_s + i*step_s, grid_start_s + (i+1)*step_s)``. Cells
    with no sample are filled with the last observed value (the first observed value before the
    first sample) and marked unobserved. Samples outside the grid are ignored.

    Shapes:
        times_s, values: (N,) -> dense (n_steps,), observed (n_steps,).

    Units:
        times_s and step_s in seconds; values unchanged.
    """
    cell = np.floor((times_s - grid_start_s) / step_s).astype(np.int64)
    keep = (cell >= 0) & (cell < n_steps) & np.isfinite(values)
    sums = np.bincount(cell[keep], weights=values[keep], minlength=n_steps)
    counts = np.bincount(cell[keep], minlength=n_steps)
    observed = counts > 0
    if not observed.any():
        return np.zeros(n_steps), observed
    dense = np.where(observed, sums / np.maximum(counts, 1), np.nan)
    return forward_fill(dense), observed


def forward_fill(x: FloatArray) -> FloatArray:
    """Replace NaNs by the previous finite value; leading NaNs by the first finite value.

    Shapes:
        x: (T,) with at least one finite value -> (T,).
    """
    finite = np.isfinite(x)
    idx = np.where(finite, np.arange(x.size), 0)
    np.maximum.accumulate(idx, out=idx)
    filled = x[idx]
    first = int(np.argmax(finite))
    filled[:first] = x[first]
    return filled
