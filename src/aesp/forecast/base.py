"""The :class:`Forecaster` protocol, the :class:`Forecast` it returns, and its file format.

A forecaster is fitted once on a panel's training part and then asked for forecasts at
*origins*: forecasting at origin ``o`` means predicting ``values[:, o:o + H]`` from
``values[:, :o]`` only. Asking for many origins at once lets models batch the work; the
backtest checks that nothing at or after an origin leaks into its forecast.

Saved models are ``.npz`` archives with no pickled objects: a JSON header (model name, config,
format version) under ``__meta__`` plus named float arrays (per-series scaling, weights).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from aesp.forecast.panel import FloatArray, IntArray, Panel

QUANTILE_LEVELS: tuple[float, ...] = (0.1, 0.5, 0.9)
"""Quantiles every forecaster returns (p10, p50, p90)."""

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Forecast:
    """Point and quantile forecasts for every series at every origin.

    Shapes:
        point: (S, O, H); quantiles: (S, O, Q, H) ordered like ``quantile_levels``;
        origins: (O,).

    Units:
        the panel's value unit.
    """

    point: FloatArray
    quantiles: FloatArray
    origins: IntArray
    quantile_levels: tuple[float, ...] = QUANTILE_LEVELS

    def __post_init__(self) -> None:
        n_series, n_origins, horizon = self.point.shape
        expected = (n_series, n_origins, len(self.quantile_levels), horizon)
        if self.quantiles.shape != expected:
            raise ValueError(f"quantiles shape {self.quantiles.shape} != {expected}")


@dataclass(frozen=True)
class ModelState:
    """Everything needed to rebuild a fitted forecaster: name, JSON config, named arrays."""

    name: str
    config: dict[str, Any]
    arrays: dict[str, npt.NDArray[Any]] = field(default_factory=dict)


@runtime_checkable
class Forecaster(Protocol):
    """What the backtest, the CLI and the scheduler need from a load forecaster."""

    name: str

    def fit(self, panel: Panel, horizon_steps: int) -> None:
        """Learn from every point of ``panel`` (already the training split)."""
        ...

    def predict(
        self, panel: Panel, horizon_steps: int, origins: IntArray | None = None
    ) -> Forecast:
        """Forecast ``horizon_steps`` ahead from each origin (default: the end of the panel)."""
        ...

    def to_state(self) -> ModelState:
        """The fitted model as a :class:`ModelState` (config, scaling, weights)."""
        ...


def resolve_origins(panel: Panel, horizon_steps: int, origins: IntArray | None) -> IntArray:
    """Validate origins (``1 <= o <= T``); ``None`` means one origin at the panel's end."""
    if horizon_steps < 1:
        raise ValueError(f"horizon_steps must be >= 1, got {horizon_steps}")
    if origins is None:
        return np.array([panel.n_steps], dtype=np.int64)
    resolved = np.asarray(origins, dtype=np.int64)
    if resolved.ndim != 1 or resolved.size == 0:
        raise ValueError("origins must be a non-empty 1-D array")
    if resolved.min() < 1 or resolved.max() > panel.n_steps:
        raise ValueError(f"origins must lie in [1, {panel.n_steps}]")
    return resolved


def save_state(state: ModelState, path: Path) -> None:
    """Write a :class:`ModelState` as an ``.npz`` archive (no pickle) at exactly ``path``."""
    meta = {"name": state.name, "config": state.config, "format_version": FORMAT_VERSION}
    arrays = {f"a_{key}": value for key, value in state.arrays.items()}
    with Path(path).open("wb") as handle:
        np.savez(handle, __meta__=np.array(json.dumps(meta)), **arrays)  # type: ignore[arg-type]


def read_state(path: Path) -> ModelState:
    """Read a file written by :func:`save_state`."""
    with np.load(Path(path), allow_pickle=False) as archive:
        meta = json.loads(str(archive["__meta__"]))
        arrays = {key[2:]: archive[key] for key in archive.files if key.startswith("a_")}
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{path}: unsupported model file version {meta.get('format_version')}")
    return ModelState(name=meta["name"], config=meta["config"], arrays=arrays)


def empirical_offsets(
    errors: FloatArray, levels: tuple[float, ...] = QUANTILE_LEVELS
) -> FloatArray:
    """Per-series, per-lead quantiles of past forecast errors (``actual - forecast``).

    Adding them to a point forecast gives a simple, distribution-free quantile forecast.
    Series with no usable errors get zero offsets.

    Shapes:
        errors: (S, N, H) with NaN for unusable points -> (S, Q, H).
    """
    out = np.zeros((errors.shape[0], len(levels), errors.shape[2]))
    usable = np.isfinite(errors).reshape(errors.shape[0], -1).any(axis=1)
    for s in np.flatnonzero(usable):
        out[s] = np.nan_to_num(np.nanquantile(errors[s], levels, axis=0))
    return out


def make_forecast(point: FloatArray, offsets: FloatArray, origins: IntArray) -> Forecast:
    """Forecast from a point forecast plus per-series quantile offsets.

    Shapes:
        point: (S, O, H); offsets: (S, Q, H) -> quantiles (S, O, Q, H).
    """
    quantiles = point[:, :, None, :] + offsets[:, None, :, :]
    return Forecast(point=point, quantiles=np.sort(quantiles, axis=2), origins=origins)
