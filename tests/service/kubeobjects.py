"""Builders of Kubernetes Node and Pod JSON as kube-scheduler sends them."""

from __future__ import annotations

from typing import Any


def kube_node(
    name: str, cpu: str = "4", memory: str = "8Gi", arch: str = "amd64", zone: str = "eu-a",
    region: str = "eu", gpus: int = 0, gpu_product: str = "", ready: str = "True",
    **labels: str,
) -> dict[str, Any]:
    all_labels = {"kubernetes.io/arch": arch, "topology.kubernetes.io/zone": zone,
                  "topology.kubernetes.io/region": region, **labels}
    if gpu_product:
        all_labels["nvidia.com/gpu.product"] = gpu_product
    allocatable = {"cpu": cpu, "memory": memory, "pods": "110"}
    if gpus:
        allocatable["nvidia.com/gpu"] = str(gpus)
    return {
        "metadata": {"name": name, "labels": all_labels},
        "spec": {},
        "status": {"allocatable": allocatable, "capacity": allocatable,
                   "conditions": [{"type": "Ready", "status": ready}]},
    }


def kube_pod(
    name: str = "p", uid: str = "uid-p", containers: list[dict[str, str]] | None = None,
    init: list[dict[str, str]] | None = None, node_selector: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    def container(i: int, req: dict[str, str]) -> dict[str, Any]:
        return {"name": f"c{i}", "resources": {"requests": req}}

    return {
        "metadata": {"name": name, "namespace": "ns", "uid": uid, "annotations": annotations or {}},
        "spec": {
            "containers": [container(i, r) for i, r in enumerate(containers or [{"cpu": "500m"}])],
            "initContainers": [container(i, r) for i, r in enumerate(init or [])],
            "nodeSelector": node_selector or {},
        },
        "status": {},
    }
