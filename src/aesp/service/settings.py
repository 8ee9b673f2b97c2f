"""The control plane's configuration file (YAML), as frozen pydantic models.

Only ``cli/`` and this package read environment variables; everything else receives a
:class:`ServiceSettings`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from aesp.config.loader import validation_problem, yaml_problem

CONFIG_ENV = "AESP_CONFIG"


class SiteSettings(BaseModel):
    """A site nodes can be on (see :class:`aesp.core.Site`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    region: str = ""
    zone: str = ""
    tier: Literal["cloud", "edge"] = "cloud"
    jurisdiction: str = ""


class LinkSettings(BaseModel):
    """A network link between two sites. Units: ms, Mbit/s, USD per GB."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    a: str
    b: str
    rtt_ms: float = Field(ge=0)
    bandwidth_mbps: float = Field(gt=0)
    usd_per_gb: float = Field(default=0.0, ge=0)


class NodeSettings(BaseModel):
    """A statically registered node (agents can also register their node at start)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str = Field(min_length=1, max_length=253)
    site: str = "default"
    cpu_milli: float = Field(gt=0)
    mem_mib: float = Field(gt=0)
    arch: Literal["x86_64", "arm64"] = "x86_64"
    gpu_count: int = Field(default=0, ge=0)
    gpu_model: str = ""
    usd_per_hour: float = Field(default=0.0, ge=0)


class ExtenderSettings(BaseModel):
    """The kube-scheduler extender."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    url_prefix: str = "/scheduler"
    """Path prefix of the verbs; the scheduler config's ``urlPrefix`` ends with it."""
    profile: str = ""
    """Scheduler profile for filter/prioritize; empty means the service's ``profile``."""
    gpu_resource: str = "nvidia.com/gpu"
    gpu_model_label: str = "nvidia.com/gpu.product"
    in_cluster: bool = True
    """Load the Kubernetes client config in-cluster, else from ``kubeconfig``."""
    kubeconfig: str | None = None


class TlsSettings(BaseModel):
    """HTTPS for the server (kube-scheduler reaches the extender with ``enableHTTPS``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    certfile: str
    keyfile: str
    client_ca: str | None = None
    """When set, clients must present a certificate signed by this CA (mTLS)."""


class ServiceSettings(BaseModel):
    """Everything ``aesp serve`` needs. Units: seconds for ``*_s``, bytes for ``*_bytes``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    db_path: str = "aesp-control-plane.db"
    """SQLite file (WAL mode); ``:memory:`` for a throwaway store."""
    profile: str = "kube-default"
    """Scheduler profile ``POST /v1/schedule`` uses unless the request names one."""
    seed: int = 0
    agent_tokens: dict[str, str] = Field(default_factory=dict)
    """Bearer token per agent id; an agent may only post reports under its own id."""
    sites: tuple[SiteSettings, ...] = ()
    links: tuple[LinkSettings, ...] = ()
    default_link_rtt_ms: float = Field(default=50.0, ge=0)
    """RTT assumed between sites that no configured path connects."""
    default_link_bandwidth_mbps: float = Field(default=1000.0, gt=0)
    nodes: tuple[NodeSettings, ...] = ()
    stale_after_s: float = Field(default=90.0, gt=0)
    """A node whose latest report is older than this is down (3 missed steady reports)."""
    unreported_nodes_up: bool = True
    """Whether a node never heard from is schedulable (extender mode without agents)."""
    max_body_bytes: int = Field(default=1_048_576, gt=0)
    max_batch: int = Field(default=1000, gt=0)
    recent_decisions: int = Field(default=200, gt=0)
    metrics_source: Literal["reports", "prometheus"] = "reports"
    """Where node usage comes from: agent reports in the store, or PromQL."""
    prometheus_url: str = "http://127.0.0.1:9090"
    extender: ExtenderSettings = Field(default_factory=ExtenderSettings)
    tls: TlsSettings | None = None


class SettingsError(ValueError):
    """The configuration file is missing or invalid."""


def load_settings(path: str | Path | None = None) -> ServiceSettings:
    """Settings from a YAML file, from ``$AESP_CONFIG`` when no path is given, else defaults.

    Raises:
        SettingsError: unreadable file, invalid YAML or an invalid field (named in the message).
    """
    path = path or os.environ.get(CONFIG_ENV)
    if not path:
        return ServiceSettings()
    try:
        raw = yaml.safe_load(Path(path).read_text()) or {}
        return ServiceSettings.model_validate(raw)
    except OSError as exc:
        raise SettingsError(f"cannot read config {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise SettingsError(f"config {path} is not valid YAML: {yaml_problem(exc)}") from None
    except ValidationError as exc:
        raise SettingsError(f"config {path}: {validation_problem(exc)}") from None
