"""The policy network: one shared MLP scores every node, so one policy fits any cluster size.

``logit_i = f([node_i, context])``; the action distribution is the softmax of the logits over
feasible nodes (infeasible ones get a large negative logit). The value baseline is
``V = g([mean of node features over feasible nodes, context])``.

Initialisation follows "The 37 Implementation Details of PPO" (Huang et al., ICLR blog track
2022), detail 2: orthogonal weights with gain ``sqrt(2)`` in hidden layers, ``0.01`` on the
policy head and ``1`` on the value head, zero biases.
"""

from __future__ import annotations

import math

import torch
from torch import nn

MASKED_LOGIT = -1e8


def _layer(n_in: int, n_out: int, gain: float) -> nn.Linear:
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


def _mlp(n_in: int, hidden: int, head_gain: float) -> nn.Sequential:
    g = math.sqrt(2.0)
    return nn.Sequential(
        _layer(n_in, hidden, g), nn.Tanh(), _layer(hidden, hidden, g), nn.Tanh(),
        _layer(hidden, 1, head_gain),
    )  # fmt: skip


class NodeScorer(nn.Module):
    """Actor (per-node logits) and critic (state value) over node features plus context.

    Shapes:
        nodes ``(B, N, node_dim)``, context ``(B, context_dim)``, mask ``(B, N)`` bool;
        logits ``(B, N)``, value ``(B,)``.
    """

    def __init__(self, node_dim: int, context_dim: int, hidden: int = 64) -> None:
        super().__init__()
        self.node_dim, self.context_dim, self.hidden = node_dim, context_dim, hidden
        self.actor = _mlp(node_dim + context_dim, hidden, 0.01)
        self.critic = _mlp(node_dim + context_dim, hidden, 1.0)

    def logits(self, nodes: torch.Tensor, context: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        ctx = context.unsqueeze(1).expand(-1, nodes.shape[1], -1)
        raw = self.actor(torch.cat([nodes, ctx], dim=-1)).squeeze(-1)
        return torch.where(mask, raw, torch.full_like(raw, MASKED_LOGIT))

    def value(self, nodes: torch.Tensor, context: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        w = mask.to(nodes.dtype).unsqueeze(-1)
        pooled = (nodes * w).sum(dim=1) / w.sum(dim=1).clamp(min=1.0)
        return self.critic(torch.cat([pooled, context], dim=-1)).squeeze(-1)  # type: ignore[no-any-return]
