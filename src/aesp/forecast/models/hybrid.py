"""LSTM + Transformer hybrid forecaster.

An LSTM (Hochreiter & Schmidhuber 1997) encodes the window step by step (local dynamics); one
Transformer encoder layer (Vaswani et al. 2017) then lets every step attend to every other
(long-range patterns in the window); the last position feeds the quantile head. The LSTM's
ordered states stand in for positional encodings.
"""

from __future__ import annotations

import torch
from torch import nn

from aesp.forecast.models.training import N_FEATURES, GlobalWindowModel, QuantileHead


class HybridNet(nn.Module):
    """LSTM -> self-attention layer -> quantile head."""

    def __init__(self, hidden: int, horizon: int, dropout: float) -> None:
        super().__init__()
        self.lstm = nn.LSTM(N_FEATURES, hidden, batch_first=True)
        self.attention = nn.TransformerEncoderLayer(
            hidden, nhead=4, dim_feedforward=2 * hidden, dropout=dropout, batch_first=True
        )
        self.head = QuantileHead(hidden, horizon)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, L, F) -> (N, H, Q)."""
        states, _ = self.lstm(x)
        h = self.attention(states)
        out: torch.Tensor = self.head(h[:, -1])
        return out


class HybridForecaster(GlobalWindowModel):
    """Global LSTM + Transformer hybrid with quantile outputs."""

    name = "lstm_transformer"

    def build_net(self, horizon_steps: int) -> nn.Module:
        """A :class:`HybridNet`."""
        return HybridNet(self.config.hidden, horizon_steps, self.config.dropout)
