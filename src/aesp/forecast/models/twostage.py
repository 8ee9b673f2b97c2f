"""Two-stage forecaster: a daily seasonal profile for periodicity, a Transformer for the rest.

Stage 1 decomposes each training series with MSTL (Bandara, Hyndman & Bergmeir 2021; the
``statsforecast`` implementation) at a one-day period and keeps the seasonal component's mean
over the last :data:`PROFILE_DAYS` days as a time-of-day profile. Stage 2 trains a small
Transformer encoder (Vaswani et al. 2017) on the deseasonalised series (trend + remainder),
where the bursts live. The forecast is the Transformer's forecast plus the profile at the target
times of day. The profile is fixed at fit time, so forecasting never looks past an origin.
Series with under two days of training data get a zero profile (stage 2 alone).
"""

from __future__ import annotations

import warnings

import numpy as np
import torch
from torch import nn

from aesp.forecast.base import ModelState
from aesp.forecast.models.training import N_FEATURES, GlobalWindowModel, QuantileHead
from aesp.forecast.panel import FloatArray, IntArray, Panel

PROFILE_DAYS = 7
"""Days of the MSTL seasonal component averaged into the profile (and fed to MSTL)."""


def seasonal_profile(values: FloatArray, period: int) -> FloatArray:
    """Time-of-day profile of one series aligned so index 0 is column 0's phase.

    Shapes:
        values: (T,) -> (period,); zeros when ``T < 2 * period``.
    """
    if values.size < 2 * period:
        return np.zeros(period)
    from statsforecast.mstl import mstl

    cycles = min(PROFILE_DAYS, values.size // period)
    tail = values[-cycles * period :]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seasonal = mstl(tail, period=period)["seasonal"].to_numpy(dtype=np.float64)
    profile = seasonal.reshape(cycles, period).mean(axis=0)
    return np.roll(profile, (values.size - tail.size) % period)


class TransformerNet(nn.Module):
    """Linear embedding + learned positions -> 2 Transformer encoder layers -> head."""

    def __init__(self, hidden: int, horizon: int, context: int, dropout: float) -> None:
        super().__init__()
        self.embed = nn.Linear(N_FEATURES, hidden)
        self.position = nn.Parameter(torch.zeros(1, context, hidden))
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(
                hidden, nhead=4, dim_feedforward=2 * hidden, dropout=dropout, batch_first=True
            )
            for _ in range(2)
        )
        self.head = QuantileHead(hidden, horizon)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, L, F) -> (N, H, Q)."""
        h = self.embed(x) + self.position
        for layer in self.layers:
            h = layer(h)
        out: torch.Tensor = self.head(h[:, -1])
        return out


class TwoStageForecaster(GlobalWindowModel):
    """MSTL daily profile + Transformer on the residual."""

    name = "two_stage"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.profiles: dict[str, FloatArray] = {}
        self.period = 1

    def build_net(self, horizon_steps: int) -> nn.Module:
        """A :class:`TransformerNet`."""
        return TransformerNet(
            self.config.hidden, horizon_steps, self.config.context_steps, self.config.dropout
        )

    def _prepare(self, panel: Panel) -> None:
        """Fit the daily profiles, indexed by step of the day."""
        self.period = max(1, round(86_400 / panel.step_s))
        for s, sid in enumerate(panel.series_ids):
            profile = seasonal_profile(panel.values[s], self.period)
            # Re-index from "phase of column 0" to "step of the day".
            self.profiles[sid] = np.roll(profile, self._phase(panel, s, 0))

    def _phase(self, panel: Panel, row: int, column: int) -> int:
        return int(((panel.start_s[row] + column * panel.step_s) % 86_400) // panel.step_s)

    def _profile_at(self, panel: Panel, columns: IntArray) -> FloatArray:
        """Profile values at given columns. Shapes: columns (...) -> (S, ...)."""
        out = np.zeros((panel.n_series, *columns.shape))
        for s, sid in enumerate(panel.series_ids):
            profile = self.profiles.get(sid)
            if profile is not None:
                steps_of_day = (panel.start_s[s] + columns * panel.step_s) % 86_400 // panel.step_s
                out[s] = profile[np.minimum(steps_of_day, profile.size - 1)]
        return out

    def _series_for_net(self, panel: Panel, before: int) -> FloatArray:
        return panel.values - self._profile_at(panel, np.arange(panel.n_steps))

    def _restore(self, pred: FloatArray, panel: Panel, origins: IntArray) -> FloatArray:
        columns = origins[:, None] + np.arange(pred.shape[-1])[None, :]
        return pred + self._profile_at(panel, columns)[:, :, None, :]

    def _extra_arrays(self) -> dict[str, np.ndarray]:
        return {f"profile.{sid}": p for sid, p in self.profiles.items()}

    def _load_extra(self, state: ModelState) -> None:
        self.profiles = {
            k.removeprefix("profile."): np.asarray(v, dtype=np.float64)
            for k, v in state.arrays.items()
            if k.startswith("profile.")
        }
