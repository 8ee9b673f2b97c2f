"""Spatio-temporal forecaster: a GRU temporal encoder per series, then a graph convolutional
network over a graph of related series.

The graph links each series to its ``k`` most correlated neighbours (Pearson correlation of
first differences on the history, symmetrised), with self-loops and the symmetric
normalisation ``D^-1/2 (A + I) D^-1/2`` of Kipf & Welling (ICLR 2017). Each training batch takes
windows of *all* series at a few origins, so a node's forecast can use its neighbours' recent
load, in the spirit of STGCN (Yu, Yin & Zhu, IJCAI 2018). With one series the graph is a
self-loop and the model reduces to the GRU.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from aesp.forecast.base import ModelState
from aesp.forecast.models.training import N_FEATURES, GlobalWindowModel, QuantileHead
from aesp.forecast.panel import FloatArray, IntArray, Panel

NEIGHBOURS = 4
"""k of the correlation k-NN graph."""


def correlation_graph(values: FloatArray, k: int = NEIGHBOURS) -> FloatArray:
    """Normalised adjacency of the correlation k-NN graph.

    Shapes:
        values: (S, T) -> (S, S).
    """
    n = values.shape[0]
    adjacency = np.eye(n)
    if n > 1 and values.shape[1] > 2:
        diffs = np.diff(values, axis=1)
        diffs = diffs + 1e-12 * np.random.default_rng(0).standard_normal(diffs.shape)
        corr: FloatArray = np.nan_to_num(np.asarray(np.corrcoef(diffs), dtype=np.float64))
        np.fill_diagonal(corr, -np.inf)
        nearest = np.argsort(-corr, axis=1)[:, : min(k, n - 1)]
        rows = np.repeat(np.arange(n), nearest.shape[1])
        adjacency[rows, nearest.ravel()] = 1.0
        adjacency = np.maximum(adjacency, adjacency.T)
    inv_sqrt = 1.0 / np.sqrt(adjacency.sum(axis=1))
    normalised: FloatArray = adjacency * inv_sqrt[:, None] * inv_sqrt[None, :]
    return normalised


class SpatialNet(nn.Module):
    """GRU encoder -> two residual graph convolutions -> quantile head.

    Rows of the input come origin-major: ``N = O * S`` with the ``S`` series of one origin
    contiguous, matching the adjacency set by :meth:`set_graph`.
    """

    def __init__(self, hidden: int, horizon: int) -> None:
        super().__init__()
        self.encoder = nn.GRU(N_FEATURES, hidden, batch_first=True)
        self.graph_layers = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(2))
        self.head = QuantileHead(hidden, horizon)
        self.register_buffer("adjacency", torch.eye(1), persistent=False)

    def set_graph(self, adjacency: FloatArray) -> None:
        """Use this (S, S) normalised adjacency."""
        self.adjacency = torch.from_numpy(adjacency).float()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(O*S, L, F) -> (O*S, H, Q)."""
        _, last = self.encoder(x)
        n_series = self.adjacency.shape[0]
        h = last[-1].view(-1, n_series, last.shape[-1])
        for layer in self.graph_layers:
            h = h + torch.relu(layer(torch.matmul(self.adjacency, h)))
        out: torch.Tensor = self.head(h.reshape(-1, h.shape[-1]))
        return out


class SpatialForecaster(GlobalWindowModel):
    """GRU + GCN over the correlation graph of the panel's series."""

    name = "spatial_gnn"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.graph_ids: tuple[str, ...] = ()
        self.graph = np.eye(1)

    def build_net(self, horizon_steps: int) -> nn.Module:
        """A :class:`SpatialNet` using the current graph."""
        net = SpatialNet(self.config.hidden, horizon_steps)
        net.set_graph(self.graph)
        return net

    def _prepare(self, panel: Panel) -> None:
        self.graph_ids = panel.series_ids
        self.graph = correlation_graph(panel.values)

    def _pairs(self, rng: np.random.Generator, pool: IntArray, n_series: int) -> np.ndarray:
        """All series at ``batch_size / S`` random origins (at least one)."""
        n_origins = max(1, self.config.batch_size // n_series)
        origins = rng.choice(pool, n_origins)
        return np.stack([np.tile(np.arange(n_series), n_origins), np.repeat(origins, n_series)], 1)

    def _series_for_net(self, panel: Panel, before: int) -> FloatArray:
        """Rebuild the graph (from history before ``before``) for a panel of other series."""
        if self.net is not None and panel.series_ids != self.graph_ids:
            self.net.set_graph(correlation_graph(panel.values[:, :before]))  # type: ignore[operator]
        elif self.net is not None:
            self.net.set_graph(self.graph)  # type: ignore[operator]
        return panel.values

    def _extra_arrays(self) -> dict[str, np.ndarray]:
        return {"graph": self.graph, "graph_ids": np.array(self.graph_ids)}

    def _load_extra(self, state: ModelState) -> None:
        self.graph = np.asarray(state.arrays["graph"], dtype=np.float64)
        self.graph_ids = tuple(str(s) for s in state.arrays["graph_ids"])
