"""Temporal convolutional network forecaster (Bai, Kolter, Koltun 2018, "An Empirical Evaluation
of Generic Convolutional and Recurrent Networks for Sequence Modeling").

Residual blocks of two dilated causal 1-D convolutions (kernel 3, dilations 1, 2, 4, 8, 16, so
the receptive field, 1 + 2 * 2 * 31 = 125 steps, covers the default 96-step window), weight
normalisation replaced by plain convolutions plus dropout for speed on CPU.
"""

from __future__ import annotations

import torch
from torch import nn

from aesp.forecast.models.training import N_FEATURES, GlobalWindowModel, QuantileHead


class CausalBlock(nn.Module):
    """Two dilated causal convolutions with a residual connection."""

    def __init__(self, channels_in: int, channels: int, dilation: int, dropout: float) -> None:
        super().__init__()
        self.pad = 2 * dilation
        self.conv1 = nn.Conv1d(channels_in, channels, 3, dilation=dilation)
        self.conv2 = nn.Conv1d(channels, channels, 3, dilation=dilation)
        self.drop = nn.Dropout(dropout)
        self.skip = nn.Conv1d(channels_in, channels, 1) if channels_in != channels else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, C_in, L) -> (N, C, L)."""
        h = self.drop(torch.relu(self.conv1(nn.functional.pad(x, (self.pad, 0)))))
        h = self.drop(torch.relu(self.conv2(nn.functional.pad(h, (self.pad, 0)))))
        residual = x if self.skip is None else self.skip(x)
        return torch.relu(h + residual)


class TCNNet(nn.Module):
    """Stacked causal blocks; the last time step's features feed the quantile head."""

    def __init__(self, hidden: int, horizon: int, dropout: float) -> None:
        super().__init__()
        dilations = (1, 2, 4, 8, 16)
        widths = (N_FEATURES,) + (hidden,) * len(dilations)
        self.blocks = nn.Sequential(
            *(CausalBlock(widths[i], hidden, d, dropout) for i, d in enumerate(dilations))
        )
        self.head = QuantileHead(hidden, horizon)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, L, F) -> (N, H, Q)."""
        h = self.blocks(x.transpose(1, 2))
        out: torch.Tensor = self.head(h[:, :, -1])
        return out


class TCNForecaster(GlobalWindowModel):
    """Global TCN with quantile outputs."""

    name = "tcn"

    def build_net(self, horizon_steps: int) -> nn.Module:
        """A :class:`TCNNet`."""
        return TCNNet(self.config.hidden, horizon_steps, self.config.dropout)
