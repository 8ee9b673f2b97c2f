"""Tasks: the containerised work a scheduler places."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from aesp.core.resources import Request

TaskClass = Literal["training", "inference", "analytics", "transcode", "batch", "function"]
TASK_CLASSES: tuple[TaskClass, ...] = (
    "training",
    "inference",
    "analytics",
    "transcode",
    "batch",
    "function",
)


@dataclass(frozen=True, slots=True)
class Task:
    """One containerised task.

    Units:
        arrival_s: seconds since the start of the workload.
        work: reference compute-unit seconds, i.e. the run time on a node of capability 1.0.
        latency_slo_ms: the end-to-end latency bound for latency-sensitive tasks (data origin to
            the node and back plus service time); ``None`` when the task has none.
        data_size_gb: data read from ``data_origin`` (a site name) when the task starts.
        cpu_usage_ratio / mem_usage_ratio: the fraction of the request the task actually uses,
            which agents measure and load-aware plugins see.
    """

    id: int
    name: str
    task_class: TaskClass
    request: Request
    arrival_s: float
    work: float
    gpu_models: tuple[str, ...] = ()
    """Acceptable GPU models; empty means any."""
    arches: tuple[str, ...] = ()
    """Acceptable CPU architectures; empty means any (multi-arch image)."""
    latency_slo_ms: float | None = None
    data_origin: str = ""
    data_size_gb: float = 0.0
    allowed_jurisdictions: tuple[str, ...] = ()
    """Where the task may run under data-residency rules; empty means anywhere."""
    priority: int = 0
    cpu_usage_ratio: float = 1.0
    mem_usage_ratio: float = 1.0
    labels: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        if self.task_class not in TASK_CLASSES:
            raise ValueError(f"task {self.name}: unknown class {self.task_class!r}")
        if self.work < 0 or self.arrival_s < 0:
            raise ValueError(f"task {self.name}: work and arrival_s must be non-negative")
        if not 0 <= self.cpu_usage_ratio <= 4 or not 0 <= self.mem_usage_ratio <= 4:
            raise ValueError(f"task {self.name}: usage ratios must be in [0, 4]")
