"""Nodes: the machines a scheduler places tasks on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AcceleratorKind = Literal["none", "gpu", "dpu", "npu"]
ACCELERATOR_KINDS: tuple[AcceleratorKind, ...] = ("none", "gpu", "dpu", "npu")
ARCHES: tuple[str, ...] = ("x86_64", "arm64")


@dataclass(frozen=True, slots=True)
class Node:
    """One machine.

    Units: cpu_milli millicores, mem_mib MiB, gpu_count whole GPUs, usd_per_hour US dollars per
    hour of the node's price.
    """

    name: str
    site: str
    cpu_milli: float
    mem_mib: float
    arch: str = "x86_64"
    gpu_count: int = 0
    gpu_model: str = ""
    """GPU model, e.g. ``V100M32`` or ``A100``; empty when the node has no GPU."""
    accel_kind: AcceleratorKind = "none"
    """Other accelerator on the node (DPU, NPU); a GPU node says ``gpu``."""
    accel_model: str = ""
    usd_per_hour: float = 0.0

    def __post_init__(self) -> None:
        if self.cpu_milli <= 0 or self.mem_mib <= 0:
            raise ValueError(f"node {self.name}: cpu_milli and mem_mib must be positive")
        if self.gpu_count < 0:
            raise ValueError(f"node {self.name}: gpu_count must be non-negative")
        if self.arch not in ARCHES:
            raise ValueError(f"node {self.name}: unknown arch {self.arch!r}; known: {ARCHES}")
        if self.accel_kind not in ACCELERATOR_KINDS:
            raise ValueError(f"node {self.name}: unknown accelerator kind {self.accel_kind!r}")
        if self.gpu_count > 0 and not self.gpu_model:
            raise ValueError(f"node {self.name}: a node with GPUs needs a gpu_model")
