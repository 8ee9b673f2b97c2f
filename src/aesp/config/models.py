"""Typed scenario configuration: the cluster, its network and the workload to generate.

Scenarios are YAML data validated by these frozen models; every default lives here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from aesp.core import ACCELERATOR_KINDS, ARCHES, TASK_CLASSES, TIERS


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SiteConfig(_Frozen):
    """A site that hosts nodes."""

    name: str
    region: str
    zone: str
    tier: Literal["cloud", "edge"] = "cloud"
    jurisdiction: str = ""
    utc_offset_h: float = 0.0
    """Local time offset; shifts the diurnal arrival curve of tasks originating here."""
    origin_weight: float = Field(default=1.0, ge=0)
    """Relative share of tasks whose data originates at this site."""


class LinkConfig(_Frozen):
    """A symmetric link. Units: ms, Mbps, USD per GB."""

    a: str
    b: str
    rtt_ms: float = Field(ge=0)
    bandwidth_mbps: float = Field(gt=0)
    usd_per_gb: float = Field(default=0.0, ge=0)


class NodePoolConfig(_Frozen):
    """``count`` identical nodes on one site."""

    name: str
    site: str
    count: int = Field(ge=1)
    arch: str = "x86_64"
    cpu_milli: float = Field(gt=0)
    mem_mib: float = Field(gt=0)
    gpu_count: int = Field(default=0, ge=0)
    gpu_model: str = ""
    accel_kind: str = "none"
    accel_model: str = ""
    usd_per_hour: float = Field(default=0.0, ge=0)

    @model_validator(mode="after")
    def _known_kinds(self) -> NodePoolConfig:
        if self.arch not in ARCHES:
            raise ValueError(f"pool {self.name}: unknown arch {self.arch!r}; known: {ARCHES}")
        if self.accel_kind not in ACCELERATOR_KINDS:
            raise ValueError(f"pool {self.name}: unknown accelerator kind {self.accel_kind!r}")
        if self.gpu_count and not self.gpu_model:
            raise ValueError(f"pool {self.name}: gpu_count needs a gpu_model")
        return self


class Dist(_Frozen):
    """A distribution to sample from; exactly one form is given.

    Forms: ``const``; ``low``/``high`` (uniform); ``median``/``sigma`` (log-normal, clipped to
    ``min``/``max``); ``values`` with optional ``weights`` (a discrete choice).
    """

    const: float | None = None
    low: float | None = None
    high: float | None = None
    median: float | None = None
    sigma: float | None = None
    min: float | None = None
    max: float | None = None
    values: tuple[float, ...] | None = None
    weights: tuple[float, ...] | None = None

    @model_validator(mode="after")
    def _one_form(self) -> Dist:
        forms = [
            self.const is not None,
            self.low is not None and self.high is not None,
            self.median is not None and self.sigma is not None,
            self.values is not None,
        ]
        if sum(forms) != 1:
            raise ValueError("give exactly one of const, low/high, median/sigma, values")
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError("low must not exceed high")
        if (
            self.values is not None
            and self.weights is not None
            and len(self.weights) != len(self.values)
        ):
            raise ValueError("weights must match values")
        return self


def const(value: float) -> Dist:
    return Dist(const=value)


class TaskClassConfig(_Frozen):
    """How to generate the tasks of one class."""

    share: float = Field(gt=0)
    """Relative share of the workload's tasks."""
    cpu_milli: Dist
    mem_mib: Dist
    gpu_probability: float = Field(default=0.0, ge=0, le=1)
    """Chance that a task of this class asks for GPUs."""
    gpu_count: Dist = const(1)
    gpu_milli: Dist = const(1000)
    gpu_models: tuple[str, ...] = ()
    work_s: Dist
    """Run time at reference speed, seconds."""
    latency_slo_ms: Dist | None = None
    data_size_gb: Dist = const(0)
    origin_tier: Literal["cloud", "edge", "any"] = "any"
    residency_probability: float = Field(default=0.0, ge=0, le=1)
    """Chance that a task may only run in its data origin's jurisdiction."""
    arches: tuple[str, ...] = ()
    cpu_usage_ratio: Dist = const(1.0)
    mem_usage_ratio: Dist = const(1.0)
    priority: int = 0


class WorkloadConfig(_Frozen):
    """A generated workload with a diurnal arrival pattern per origin site."""

    tasks: int = Field(ge=1)
    horizon_s: float = Field(default=86400.0, gt=0)
    """Arrivals fall in ``[0, horizon_s)``."""
    diurnal_amplitude: float = Field(default=0.5, ge=0, lt=1)
    """Arrival rate ~ ``1 + A * sin(2 pi (t + offset) / 1 day - pi / 2)``: lowest at local midnight."""
    classes: dict[str, TaskClassConfig]

    @model_validator(mode="after")
    def _known_classes(self) -> WorkloadConfig:
        unknown = set(self.classes) - set(TASK_CLASSES)
        if unknown:
            raise ValueError(f"unknown task classes {sorted(unknown)}; known: {TASK_CLASSES}")
        return self


class ScenarioConfig(_Frozen):
    """A complete scenario."""

    name: str
    description: str = ""
    seed: int = 0
    cycle_interval_s: float = Field(default=1.0, gt=0)
    max_wait_s: float | None = Field(default=None, gt=0)
    sites: tuple[SiteConfig, ...]
    links: tuple[LinkConfig, ...] = ()
    node_pools: tuple[NodePoolConfig, ...]
    workload: WorkloadConfig

    @model_validator(mode="after")
    def _sites_exist(self) -> ScenarioConfig:
        names = {s.name for s in self.sites}
        for s in self.sites:
            if s.tier not in TIERS:
                raise ValueError(f"site {s.name}: unknown tier {s.tier}")
        for pool in self.node_pools:
            if pool.site not in names:
                raise ValueError(f"pool {pool.name} is on unknown site {pool.site!r}")
        for link in self.links:
            if link.a not in names or link.b not in names:
                raise ValueError(f"link {link.a}-{link.b} names an unknown site")
        return self
