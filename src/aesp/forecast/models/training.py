"""The global window model: training loop, prediction and state shared by the torch forecasters.

One network is trained across every series of a panel (a *global* model, as in DeepAR,
Salinas et al. 2020): windows of ``context_steps`` scaled values plus time-of-day features go
in, ``H x Q`` quantiles of the next ``H`` scaled values come out, as a residual on the last
observed value. Loss is the pinball (quantile) loss (Koenker & Bassett 1978) averaged over
observed targets. Training stops early when the validation loss (the last ``val_fraction`` of
the training split, chronological) has not improved for ``patience`` epochs, or when the time
budget ``max_train_s`` is spent; the best validation weights are kept.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace
from typing import Any, Self

import numpy as np
import torch
from torch import nn

from aesp.forecast.base import QUANTILE_LEVELS, Forecast, ModelState, resolve_origins
from aesp.forecast.panel import FloatArray, IntArray, Panel
from aesp.forecast.windows import SeriesScaler, context_features, split_origins, targets

N_FEATURES = 3
"""Scaled value, sin and cos of the time of day."""


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters and budgets shared by the torch forecasters."""

    context_steps: int = 96
    """Input window length (8 h at 5-min steps)."""
    hidden: int = 32
    """Width of the network's hidden layers."""
    max_epochs: int = 20
    steps_per_epoch: int = 50
    """Optimiser steps per epoch; windows are sampled at random from the training part."""
    batch_size: int = 128
    lr: float = 2e-3
    dropout: float = 0.1
    patience: int = 4
    """Epochs without validation improvement before stopping."""
    val_fraction: float = 0.15
    max_val_windows: int = 2048
    max_train_s: float = 60.0
    """Wall-clock budget for training."""
    seed: int = 0
    num_threads: int = 2
    """Torch intra-op threads (the project's reference machine has 2 cores)."""


def pinball_loss(pred: torch.Tensor, target: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean pinball loss over observed targets.

    Shapes:
        pred: (N, H, Q); target, mask: (N, H).
    """
    levels = torch.tensor(QUANTILE_LEVELS, dtype=pred.dtype)
    diff = target[:, :, None] - pred
    loss = torch.maximum(levels * diff, (levels - 1.0) * diff)
    weight = mask[:, :, None].to(pred.dtype)
    return (loss * weight).sum() / (weight.sum() * len(QUANTILE_LEVELS)).clamp(min=1.0)


class QuantileHead(nn.Module):
    """Linear map from a feature vector to ``H x Q`` quantiles."""

    def __init__(self, hidden: int, horizon: int) -> None:
        super().__init__()
        self.horizon = horizon
        self.linear = nn.Linear(hidden, horizon * len(QUANTILE_LEVELS))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """(N, hidden) -> (N, H, Q)."""
        out: torch.Tensor = self.linear(features)
        return out.view(-1, self.horizon, len(QUANTILE_LEVELS))


class GlobalWindowModel:
    """Base class; subclasses set ``name`` and implement :meth:`build_net`.

    ``build_net`` returns a module mapping ``(N, L, 3)`` inputs to ``(N, H, Q)`` corrections
    that are added to the last scaled input value. Hooks :meth:`_series_for_net` and
    :meth:`_restore` let a subclass learn on a transformed series (the two-stage model).
    """

    name = "global"

    def __init__(self, config: TrainConfig | None = None, **overrides: Any) -> None:
        self.config = replace(config or TrainConfig(), **overrides)
        self.horizon_steps = 0
        self.net: nn.Module | None = None
        self.scalers: dict[str, tuple[float, float]] = {}
        self.history: list[tuple[float, float]] = []

    def build_net(self, horizon_steps: int) -> nn.Module:
        """The network for this model."""
        raise NotImplementedError

    # --- hooks -------------------------------------------------------------------------
    def _prepare(self, panel: Panel) -> None:
        """Learn anything data-dependent besides the scaling (called once in ``fit``)."""

    def _series_for_net(self, panel: Panel, before: int) -> FloatArray:
        """The (S, T) series the network models; may only use columns ``< before``."""
        return panel.values

    def _restore(self, pred: FloatArray, panel: Panel, origins: IntArray) -> FloatArray:
        """Map (S, O, Q, H) network-space forecasts back to the panel's values."""
        return pred

    def _pairs(self, rng: np.random.Generator, pool: IntArray, n_series: int) -> np.ndarray:
        """A training batch of (series, origin) pairs."""
        n = self.config.batch_size
        return np.stack([rng.integers(0, n_series, n), rng.choice(pool, n)], axis=1)

    def _val_pairs(self, pool: IntArray, n_series: int) -> np.ndarray:
        """Fixed validation (series, origin) pairs, origin-major."""
        n_origins = max(1, self.config.max_val_windows // n_series)
        origins = pool[np.linspace(0, pool.size - 1, min(n_origins, pool.size)).astype(np.int64)]
        return _origin_major(origins, n_series)

    # --- fitting -----------------------------------------------------------------------
    def fit(self, panel: Panel, horizon_steps: int) -> None:
        """Train on ``panel`` (the training split); see the module docstring."""
        torch.manual_seed(self.config.seed)
        torch.set_num_threads(self.config.num_threads)
        rng = np.random.default_rng(self.config.seed)
        self.horizon_steps = horizon_steps
        self._prepare(panel)
        series = self._series_for_net(panel, panel.n_steps)
        scaler = SeriesScaler.fit(series, panel.observed)
        self.scalers = {
            sid: (float(scaler.loc[i]), float(scaler.scale[i]))
            for i, sid in enumerate(panel.series_ids)
        }
        scaled = scaler.transform(series)
        train_pool, val_pool = split_origins(
            panel.n_steps, self.config.context_steps, horizon_steps, self.config.val_fraction
        )
        self.net = self.build_net(horizon_steps)
        self._train(panel, scaled, rng, train_pool, self._val_pairs(val_pool, panel.n_series))

    def _train(
        self,
        panel: Panel,
        scaled: FloatArray,
        rng: np.random.Generator,
        train_pool: IntArray,
        val_pairs: np.ndarray,
    ) -> None:
        assert self.net is not None
        optimiser = torch.optim.AdamW(self.net.parameters(), lr=self.config.lr)
        best = (float("inf"), _copy_state(self.net))
        stale, started = 0, time.perf_counter()
        for _epoch in range(self.config.max_epochs):
            self.net.train()
            for _ in range(self.config.steps_per_epoch):
                loss = self._loss(panel, scaled, self._pairs(rng, train_pool, panel.n_series))
                optimiser.zero_grad()
                loss.backward()  # type: ignore[no-untyped-call]
                nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)
                optimiser.step()
            val = self._validate(panel, scaled, val_pairs)
            self.history.append((float(loss.item()), val))
            best, stale = ((val, _copy_state(self.net)), 0) if val < best[0] else (best, stale + 1)
            if (
                stale >= self.config.patience
                or time.perf_counter() - started > self.config.max_train_s
            ):
                break
        self.net.load_state_dict(best[1])
        self.net.eval()

    def _loss(self, panel: Panel, scaled: FloatArray, pairs: np.ndarray) -> torch.Tensor:
        assert self.net is not None
        x = context_features(scaled, panel, pairs[:, 0], pairs[:, 1], self.config.context_steps)
        y, mask = targets(scaled, panel.observed, pairs[:, 0], pairs[:, 1], self.horizon_steps)
        pred = self._net_forward(torch.from_numpy(x).float())
        return pinball_loss(pred, torch.from_numpy(y).float(), torch.from_numpy(mask))

    def _validate(self, panel: Panel, scaled: FloatArray, pairs: np.ndarray) -> float:
        with torch.no_grad():
            self.net.eval() if self.net is not None else None
            return float(self._loss(panel, scaled, pairs).item())

    def _net_forward(self, x: torch.Tensor) -> torch.Tensor:
        """Residual on the last scaled value. Shapes: (N, L, F) -> (N, H, Q)."""
        assert self.net is not None
        out: torch.Tensor = self.net(x)
        return out + x[:, -1:, 0:1]

    # --- prediction --------------------------------------------------------------------
    def _scaler_for(self, panel: Panel, series: FloatArray, before: int) -> SeriesScaler:
        """Stored scaling for known series; unknown ones are scaled on their history."""
        fresh = SeriesScaler.fit(series[:, :before], panel.observed[:, :before])
        loc = [
            self.scalers.get(sid, (fresh.loc[i], 0.0))[0] for i, sid in enumerate(panel.series_ids)
        ]
        scale = [
            self.scalers.get(sid, (0.0, fresh.scale[i]))[1]
            for i, sid in enumerate(panel.series_ids)
        ]
        return SeriesScaler(np.asarray(loc, dtype=np.float64), np.asarray(scale, dtype=np.float64))

    def predict(
        self, panel: Panel, horizon_steps: int, origins: IntArray | None = None
    ) -> Forecast:
        """Batched forecasts at every origin; quantiles sorted, point = p50."""
        if self.net is None:
            raise RuntimeError(f"{self.name}: call fit() before predict()")
        if horizon_steps > self.horizon_steps:
            raise ValueError(f"{self.name} was trained for {self.horizon_steps} steps ahead")
        resolved = resolve_origins(panel, horizon_steps, origins)
        first = int(resolved.min())
        series = self._series_for_net(panel, first)
        scaler = self._scaler_for(panel, series, first)
        scaled = scaler.transform(series)
        chunks = [self._predict_chunk(panel, scaled, part) for part in _chunks(resolved, panel)]
        pred = np.concatenate(chunks, axis=1)[..., :horizon_steps]
        pred = self._restore(scaler.inverse(pred), panel, resolved)
        pred = np.sort(pred, axis=2)
        return Forecast(point=pred[:, :, 1].copy(), quantiles=pred, origins=resolved)

    def _predict_chunk(self, panel: Panel, scaled: FloatArray, origins: IntArray) -> FloatArray:
        pairs = _origin_major(origins, panel.n_series)
        x = context_features(scaled, panel, pairs[:, 0], pairs[:, 1], self.config.context_steps)
        with torch.no_grad():
            out = self._net_forward(torch.from_numpy(x).float()).double().numpy()
        # (O*S, H, Q) origin-major -> (S, O, Q, H)
        out = out.reshape(origins.size, panel.n_series, self.horizon_steps, -1)
        return np.transpose(out, (1, 0, 3, 2))

    # --- state -------------------------------------------------------------------------
    def _extra_arrays(self) -> dict[str, np.ndarray]:
        return {}

    def _load_extra(self, state: ModelState) -> None:
        """Restore what :meth:`_extra_arrays` saved."""

    def to_state(self) -> ModelState:
        """Config, horizon, per-series scaling and weights."""
        if self.net is None:
            raise RuntimeError(f"{self.name}: nothing to save before fit()")
        arrays = {f"w.{k}": v.detach().numpy().copy() for k, v in self.net.state_dict().items()}
        arrays.update(self._extra_arrays())
        config = {
            "train": asdict(self.config),
            "horizon_steps": self.horizon_steps,
            "scalers": self.scalers,
        }
        return ModelState(self.name, config, arrays)

    @classmethod
    def from_state(cls, state: ModelState) -> Self:
        """Rebuild a fitted model from :meth:`to_state`."""
        model = cls(TrainConfig(**state.config["train"]))
        model.horizon_steps = int(state.config["horizon_steps"])
        model.scalers = {k: (float(v[0]), float(v[1])) for k, v in state.config["scalers"].items()}
        model._load_extra(state)
        model.net = model.build_net(model.horizon_steps)
        weights = {
            k[2:]: torch.from_numpy(v) for k, v in state.arrays.items() if k.startswith("w.")
        }
        model.net.load_state_dict(weights)
        model.net.eval()
        return model


def _origin_major(origins: IntArray, n_series: int) -> np.ndarray:
    """(series, origin) pairs ordered origin by origin. Shapes: (O,) -> (O*S, 2)."""
    series = np.tile(np.arange(n_series), origins.size)
    return np.stack([series, np.repeat(origins, n_series)], axis=1)


def _chunks(origins: IntArray, panel: Panel, max_rows: int = 4096) -> list[IntArray]:
    per_chunk = max(1, max_rows // panel.n_series)
    return [origins[i : i + per_chunk] for i in range(0, origins.size, per_chunk)]


def _copy_state(net: nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in net.state_dict().items()}
