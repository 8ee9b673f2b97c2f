"""Request and response bodies of the control plane's own API (``/v1``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from aesp.core import MILLI_PER_GPU, TASK_CLASSES, Request, Task
from aesp.perception.schema import SCHEMA_VERSION, AgentReport
from aesp.service.settings import NodeSettings, SiteSettings


class ReportBatch(BaseModel):
    """What an agent posts: one or more reports, all from the agent its token names."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    schema_version: Literal[1] = SCHEMA_VERSION
    reports: list[AgentReport] = Field(min_length=1)


class IngestResult(BaseModel):
    accepted: int
    """Reports stored by this request."""
    duplicates: int
    """Reports already stored (same ``agent_id:seq``), ignored."""


class NodeRegistration(BaseModel):
    """An agent announcing the node it runs on (and optionally its site)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    node: NodeSettings
    site: SiteSettings | None = None


class TaskIn(BaseModel):
    """A pending task. Units: cpu_milli millicores, mem_mib MiB, gpu_milli per-GPU share."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str = Field(min_length=1, max_length=253)
    task_class: Literal["training", "inference", "analytics", "transcode", "batch", "function"] = (
        "batch"
    )
    cpu_milli: float = Field(ge=0)
    mem_mib: float = Field(ge=0)
    gpu_count: int = Field(default=0, ge=0)
    gpu_milli: int | None = Field(default=None, ge=0, le=MILLI_PER_GPU)
    """Share of each GPU; defaults to a whole GPU when GPUs are requested."""
    gpu_models: tuple[str, ...] = ()
    arches: tuple[str, ...] = ()
    allowed_jurisdictions: tuple[str, ...] = ()
    priority: int = 0
    latency_slo_ms: float | None = Field(default=None, gt=0)
    data_origin: str = ""
    data_size_gb: float = Field(default=0.0, ge=0)

    def to_task(self, task_id: int) -> Task:
        """The core task. Raises ValueError for an inconsistent GPU request."""
        gpu_milli = self.gpu_milli if self.gpu_milli is not None else (
            MILLI_PER_GPU if self.gpu_count else 0
        )
        assert self.task_class in TASK_CLASSES
        return Task(
            id=task_id, name=self.name, task_class=self.task_class,
            request=Request(self.cpu_milli, self.mem_mib, self.gpu_count, gpu_milli),
            arrival_s=0.0, work=0.0, gpu_models=self.gpu_models, arches=self.arches,
            latency_slo_ms=self.latency_slo_ms, data_origin=self.data_origin,
            data_size_gb=self.data_size_gb, allowed_jurisdictions=self.allowed_jurisdictions,
            priority=self.priority,
        )


class ScheduleRequest(BaseModel):
    """Pending tasks to place now."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    tasks: list[TaskIn] = Field(min_length=1, max_length=10_000)
    profile: str | None = None
    """Scheduler profile name; the service's default when absent."""
    dry_run: bool = False
    """Decide without recording the bindings."""


class BindingOut(BaseModel):
    task: str
    node: str
    gpus: list[int]


class UnscheduledOut(BaseModel):
    task: str
    code: str
    plugin: str
    reasons: list[str]


class ScheduleResponse(BaseModel):
    profile: str
    solver: str
    time_s: float
    bindings: list[BindingOut]
    unscheduled: list[UnscheduledOut]
