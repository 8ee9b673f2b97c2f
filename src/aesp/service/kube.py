"""Kubernetes objects (as the JSON kube-scheduler sends) mapped to the core model.

Struct fields are read case-insensitively, as Go's ``encoding/json`` decodes them (the extender
API's own compatibility test lowercases whole payloads); map keys (labels, resource names,
annotations) are exact, as Go maps are.

Pod requests follow kube's ``PodRequests``: the sum over app containers plus restartable
(sidecar) init containers, or the largest regular init container together with the sidecars
started before it if that is more, plus the pod's overhead. A container without a request for a
resource falls back to its limit (the API server's defaulting does the same).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from aesp.core import MILLI_PER_GPU, TASK_CLASSES, Node, Request, Site, Task, Tier
from aesp.service import quantity

ARCH_LABEL = "kubernetes.io/arch"
REGION_LABEL = "topology.kubernetes.io/region"
ZONE_LABEL = "topology.kubernetes.io/zone"
JURISDICTION_LABEL = "aesp.io/jurisdiction"
TIER_LABEL = "aesp.io/tier"
TASK_CLASS_ANNOTATION = "aesp.io/task-class"
JURISDICTIONS_ANNOTATION = "aesp.io/jurisdictions"
GPU_MODELS_ANNOTATION = "aesp.io/gpu-models"
KUBE_ARCH = {"amd64": "x86_64", "x86_64": "x86_64", "arm64": "arm64", "aarch64": "arm64"}


class KubeObjectError(ValueError):
    """A pod or node object the mapping cannot use; the message names the field."""


def field(obj: Any, name: str, default: Any = None) -> Any:
    """A struct field by case-insensitive name (Go's JSON decoding rule)."""
    if type(obj) is not dict and not isinstance(obj, Mapping):  # dict first: the common case
        return default
    if name in obj:
        return obj[name]
    lower = name.lower()
    for key, value in obj.items():
        if isinstance(key, str) and key.lower() == lower:
            return value
    return default


def path(obj: Any, *names: str) -> Any:
    """Nested struct fields, None when any is missing."""
    for name in names:
        obj = field(obj, name)
        if obj is None:
            return None
    return obj


def _str_map(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, Mapping) else {}


def name_of(obj: Any) -> str:
    return str(path(obj, "metadata", "name") or "")


@dataclass(frozen=True)
class KubeMapping:
    """Which resource and labels carry what AESP needs (configurable per cluster)."""

    gpu_resource: str = "nvidia.com/gpu"
    gpu_model_label: str = "nvidia.com/gpu.product"
    default_site: str = "default"


# --------------------------------------------------------------------------- pods

ResourceSums = dict[str, Decimal]


def _container_requests(container: Any) -> ResourceSums:
    resources = field(container, "resources") or {}
    requests = dict(field(resources, "requests") or {})
    for key, value in (field(resources, "limits") or {}).items():
        requests.setdefault(key, value)
    try:
        return {str(k): quantity.parse_quantity(v) for k, v in requests.items()}
    except quantity.QuantityError as exc:
        raise KubeObjectError(f"container {field(container, 'name')!r}: {exc}") from None


def _add(a: ResourceSums, b: ResourceSums) -> ResourceSums:
    return {k: a.get(k, Decimal(0)) + b.get(k, Decimal(0)) for k in a.keys() | b.keys()}


def _max(a: ResourceSums, b: ResourceSums) -> ResourceSums:
    return {k: max(a.get(k, Decimal(0)), b.get(k, Decimal(0))) for k in a.keys() | b.keys()}


def pod_requests(pod: Any) -> ResourceSums:
    """Effective requests of a pod by resource name, in base units (see module doc)."""
    spec = field(pod, "spec") or {}
    total: ResourceSums = {}
    for c in field(spec, "containers") or []:
        total = _add(total, _container_requests(c))
    sidecars: ResourceSums = {}
    init_peak: ResourceSums = {}
    for c in field(spec, "initContainers") or []:
        req = _container_requests(c)
        if field(c, "restartPolicy") == "Always":
            sidecars = _add(sidecars, req)
            init_peak = _max(init_peak, sidecars)
        else:
            init_peak = _max(init_peak, _add(req, sidecars))
    total = _max(_add(total, sidecars), init_peak)
    overhead = field(spec, "overhead") or {}
    return _add(total, {str(k): quantity.parse_quantity(v) for k, v in overhead.items()})


def task_id_for(key: str) -> int:
    """A stable non-negative task id from a pod's UID or namespace/name."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=6).digest(), "big")


def _csv(value: str | None) -> tuple[str, ...]:
    return tuple(v.strip() for v in (value or "").split(",") if v.strip())


def pod_to_task(pod: Any, mapping: KubeMapping) -> Task:
    """The core task a pod asks to be scheduled as.

    Raises:
        KubeObjectError: unparsable quantities or a fractional GPU request.
    """
    meta = field(pod, "metadata") or {}
    spec = field(pod, "spec") or {}
    name = f"{field(meta, 'namespace') or 'default'}/{field(meta, 'name') or ''}"
    req = pod_requests(pod)
    try:
        gpus = quantity.count(req.get(mapping.gpu_resource, Decimal(0)))
    except quantity.QuantityError as exc:
        raise KubeObjectError(f"pod {name}: {exc}") from None
    request = Request(
        cpu_milli=float(quantity.cpu_milli(req.get("cpu", Decimal(0)))),
        mem_mib=quantity.mem_mib(req.get("memory", Decimal(0))),
        gpu_count=gpus,
        gpu_milli=MILLI_PER_GPU if gpus else 0,
    )
    annotations = _str_map(field(meta, "annotations"))
    selector = _str_map(field(spec, "nodeSelector"))
    task_class = annotations.get(TASK_CLASS_ANNOTATION, "batch")
    if task_class not in TASK_CLASSES:
        raise KubeObjectError(f"pod {name}: unknown {TASK_CLASS_ANNOTATION} {task_class!r}")
    arch = KUBE_ARCH.get(selector.get(ARCH_LABEL, ""), "")
    gpu_models = _csv(annotations.get(GPU_MODELS_ANNOTATION) or selector.get(mapping.gpu_model_label))
    return Task(
        id=task_id_for(str(field(meta, "uid") or name)),
        name=name,
        task_class=task_class,  # type: ignore[arg-type]
        request=request,
        arrival_s=0.0,
        work=0.0,
        gpu_models=gpu_models,
        arches=(arch,) if arch else (),
        allowed_jurisdictions=_csv(annotations.get(JURISDICTIONS_ANNOTATION)),
        priority=int(field(spec, "priority") or 0),
    )


# --------------------------------------------------------------------------- nodes


@dataclass(frozen=True)
class KubeNode:
    """A node object mapped to the core model, with its site and readiness."""

    node: Node
    site: Site
    ready: bool


def _ready(node: Any) -> bool:
    if field(field(node, "spec"), "unschedulable"):
        return False
    for cond in path(node, "status", "conditions") or []:
        if field(cond, "type") == "Ready":
            return bool(field(cond, "status") == "True")
    return True  # no conditions reported: trust kube-scheduler, which already filtered


def node_from_kube(obj: Any, mapping: KubeMapping) -> KubeNode:
    """Map a ``v1.Node``: allocatable (else capacity) resources, arch, topology, GPU model.

    Raises:
        KubeObjectError: no name, no CPU or memory, an unknown architecture or bad quantities.
    """
    name = name_of(obj)
    if not name:
        raise KubeObjectError("node without metadata.name")
    labels = _str_map(path(obj, "metadata", "labels"))
    status = field(obj, "status") or {}
    resources = {**(field(status, "capacity") or {}), **(field(status, "allocatable") or {})}
    raw_arch = labels.get(ARCH_LABEL) or path(status, "nodeInfo", "architecture") or "amd64"
    arch = KUBE_ARCH.get(str(raw_arch))
    if arch is None:
        raise KubeObjectError(f"node {name}: unsupported architecture {raw_arch!r}")
    try:
        cpu = quantity.cpu_milli(resources.get("cpu", 0))
        mem = quantity.mem_mib(resources.get("memory", 0))
        gpus = quantity.count(resources.get(mapping.gpu_resource, 0))
    except quantity.QuantityError as exc:
        raise KubeObjectError(f"node {name}: {exc}") from None
    if cpu <= 0 or mem <= 0:
        raise KubeObjectError(f"node {name}: no allocatable cpu or memory")
    region = labels.get(REGION_LABEL, "")
    zone = labels.get(ZONE_LABEL, "") or region or mapping.default_site
    tier: Tier = "edge" if labels.get(TIER_LABEL) == "edge" else "cloud"
    site = Site(
        name=zone, region=region or zone, zone=zone, tier=tier,
        jurisdiction=labels.get(JURISDICTION_LABEL, ""),
    )
    node = Node(
        name=name, site=site.name, cpu_milli=cpu, mem_mib=mem, arch=arch, gpu_count=gpus,
        gpu_model=(labels.get(mapping.gpu_model_label) or "unknown") if gpus else "",
        accel_kind="gpu" if gpus else "none",
    )
    return KubeNode(node=node, site=site, ready=_ready(obj))
