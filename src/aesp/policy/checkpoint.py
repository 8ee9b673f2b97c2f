"""Saved policies: weights plus the config, seed, package version and training curve.

A checkpoint is ``torch.save`` of a plain dict (tensors, strings, numbers, lists, dicts), so it
loads with ``torch.load(..., weights_only=True)`` and never unpickles code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

import aesp
from aesp.policy.networks import NodeScorer
from aesp.policy.observation import CONTEXT_DIM, NODE_DIM, NODE_FEATURES

FORMAT = "aesp-policy/1"
DEFAULT_POLICY = Path(__file__).resolve().parents[1] / "data" / "policy" / "default.pt"


class CheckpointError(ValueError):
    """A policy file is missing, unreadable, or does not fit this version's features."""


@dataclass
class PolicyCheckpoint:
    """A trained policy and how it was made."""

    model: NodeScorer
    config: dict[str, Any] = field(default_factory=dict)
    """Training and environment settings, as plain values."""
    seed: int = 0
    version: str = aesp.__version__
    curve: list[list[float]] = field(default_factory=list)
    """``[env_step, mean evaluation return]`` pairs, in training order."""
    wall_s: float = 0.0


def save_checkpoint(ckpt: PolicyCheckpoint, path: str | Path) -> None:
    """Write a checkpoint (parent folders are created)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    torch.save({
        "format": FORMAT,
        "state_dict": {k: v.detach().clone() for k, v in ckpt.model.state_dict().items()},
        "network": {"node_dim": ckpt.model.node_dim, "context_dim": ckpt.model.context_dim,
                    "hidden": ckpt.model.hidden, "node_features": list(NODE_FEATURES)},
        "config": ckpt.config, "seed": ckpt.seed, "version": ckpt.version,
        "curve": ckpt.curve, "wall_s": ckpt.wall_s,
    }, p)  # fmt: skip


def load_checkpoint(path: str | Path) -> PolicyCheckpoint:
    """Read a checkpoint written by :func:`save_checkpoint`.

    Raises:
        CheckpointError: missing or corrupt file, another format, or features of another shape.
    """
    p = Path(path)
    if not p.is_file():
        raise CheckpointError(f"policy file not found: {p}")
    try:
        raw = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a corrupt file
        raise CheckpointError(f"cannot read policy {p}: {exc}") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise CheckpointError(f"{p} is not an {FORMAT} checkpoint")
    net = raw["network"]
    if (net["node_dim"], net["context_dim"]) != (NODE_DIM, CONTEXT_DIM):
        raise CheckpointError(
            f"{p} was trained on {net['node_dim']}+{net['context_dim']} features; "
            f"this version has {NODE_DIM}+{CONTEXT_DIM}"
        )
    model = NodeScorer(net["node_dim"], net["context_dim"], net["hidden"])
    try:
        model.load_state_dict(raw["state_dict"])
    except RuntimeError as exc:
        raise CheckpointError(f"{p}: weights do not match the network: {exc}") from None
    model.eval()
    return PolicyCheckpoint(model, dict(raw["config"]), int(raw["seed"]), str(raw["version"]),
                            [list(map(float, c)) for c in raw["curve"]], float(raw["wall_s"]))
