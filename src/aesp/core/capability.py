"""The heterogeneous capability matrix: devices normalised into comparable compute units.

Each device kind (a CPU architecture, a GPU model, a DPU or NPU model) has a number of *compute
units*; a task's speed on a node is the ratio of the units of the device it runs on to a
reference device, raised to a per-class exponent that says how much that class gains from raw
throughput (1 for throughput-bound training, lower for latency-bound inference). Offload
accelerators (DPU, NPU) multiply the speed of the classes they serve.

    speed(task, node) = (units[device] / units[reference]) ** exponent[class] * offload[class]

where the device is the node's GPU model for a GPU task and its CPU architecture otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from aesp.core.resources import FloatArray
from aesp.core.snapshot import NodeTable
from aesp.core.workload import TASK_CLASSES, Task


def cpu_key(arch: str) -> str:
    return arch


def gpu_key(model: str) -> str:
    return f"gpu_{model.lower()}"


def accel_key(kind: str, model: str) -> str:
    return f"{kind}_{model.lower()}"


class CapabilityError(ValueError):
    """A node uses a device the matrix does not know, or the matrix is inconsistent."""


@dataclass(frozen=True)
class CapabilityMatrix:
    """Compute units per device kind and how each task class turns them into speed.

    Attributes:
        units: compute units per device key (``x86_64``, ``arm64``, ``gpu_a100``, ``dpu_b1``).
        reference_cpu, reference_gpu: device keys whose speed is 1.0.
        exponent: per task class, how strongly speed follows the unit ratio.
        offload: per accelerator key, per task class, a speed multiplier for CPU tasks.
    """

    units: Mapping[str, float]
    reference_cpu: str = "x86_64"
    reference_gpu: str = "gpu_v100m32"
    exponent: Mapping[str, float] = field(default_factory=lambda: dict.fromkeys(TASK_CLASSES, 1.0))
    offload: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for key in (self.reference_cpu, self.reference_gpu):
            if key not in self.units:
                raise CapabilityError(f"reference device {key!r} is not in the matrix")
        bad = [k for k, v in self.units.items() if not v > 0]
        if bad:
            raise CapabilityError(f"compute units must be positive: {bad}")
        unknown = set(self.exponent) - set(TASK_CLASSES)
        if unknown:
            raise CapabilityError(f"unknown task classes in exponents: {sorted(unknown)}")

    def _units(self, key: str, node: str) -> float:
        try:
            return self.units[key]
        except KeyError:
            known = ", ".join(sorted(self.units))
            raise CapabilityError(
                f"node {node}: unknown device kind {key!r}; known: {known}"
            ) from None

    def validate(self, table: NodeTable) -> None:
        """Every device of every node must be in the matrix.

        Raises:
            CapabilityError: naming the first node with an unknown device.
        """
        for n in table.nodes:
            self._units(cpu_key(n.arch), n.name)
            if n.gpu_count:
                self._units(gpu_key(n.gpu_model), n.name)
            if n.accel_kind in ("dpu", "npu"):
                self._units(accel_key(n.accel_kind, n.accel_model), n.name)

    def speed_table(self, table: NodeTable) -> SpeedTable:
        """Per-class speeds of every node, for CPU tasks and for GPU tasks."""
        self.validate(table)
        classes = TASK_CLASSES
        cpu_ref, gpu_ref = self.units[self.reference_cpu], self.units[self.reference_gpu]
        cpu_ratio = np.array([self.units[cpu_key(n.arch)] / cpu_ref for n in table.nodes])
        gpu_ratio = np.array(
            [
                self.units[gpu_key(n.gpu_model)] / gpu_ref if n.gpu_count else 0.0
                for n in table.nodes
            ]
        )
        exp = np.array([self.exponent.get(c, 1.0) for c in classes])[:, None]
        offload = np.ones((len(classes), len(table)))
        for j, n in enumerate(table.nodes):
            gains = self.offload.get(accel_key(n.accel_kind, n.accel_model), {})
            for i, c in enumerate(classes):
                offload[i, j] = gains.get(c, 1.0)
        return SpeedTable(cpu=cpu_ratio[None, :] ** exp * offload, gpu=gpu_ratio[None, :] ** exp)


@dataclass(frozen=True)
class SpeedTable:
    """Shapes: cpu, gpu ``(C, N)`` over :data:`TASK_CLASSES` and nodes; gpu is 0 without GPUs."""

    cpu: FloatArray
    gpu: FloatArray

    def for_task(self, task: Task) -> FloatArray:
        """``(N,)`` speed of ``task`` on every node."""
        row = TASK_CLASSES.index(task.task_class)
        speeds: FloatArray = self.gpu[row] if task.request.gpu_count else self.cpu[row]
        return speeds
