"""Read models of the cluster for the API and the dashboard: nodes with usage, and sites."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np

from aesp.core import CPU, GPU, MEM
from aesp.service.state import ControlPlane


def _pct(part: float, whole: float) -> float | None:
    return round(100.0 * part / whole, 2) if whole > 0 else None


def node_views(plane: ControlPlane) -> list[dict[str, Any]]:
    """Every registered node with capacity, the service's allocation and the latest usage."""
    registered = plane.registry.nodes()
    if not registered:
        return []
    snap = plane.snapshot()
    sites = plane.registry.sites()
    latest = plane.latest_metrics()
    out = []
    for i, name in enumerate(snap.table.names):
        reg, site = registered[name], sites[registered[name].node.site]
        cap, alloc = snap.capacity[i], snap.allocated[i]
        reading = latest.get(name)
        stale = float(snap.staleness_s[i])
        out.append({
            "name": name, "site": site.name, "region": site.region, "zone": site.zone,
            "tier": site.tier, "arch": reg.node.arch, "gpu_model": reg.node.gpu_model,
            "source": reg.source, "ready": reg.ready, "up": bool(snap.up[i]),
            "capacity": {"cpu_milli": cap[CPU], "mem_mib": cap[MEM], "gpu_milli": cap[GPU]},
            "allocated": {"cpu_milli": alloc[CPU], "mem_mib": alloc[MEM], "gpu_milli": alloc[GPU]},
            "allocated_pct": {
                "cpu": _pct(alloc[CPU], cap[CPU]), "mem": _pct(alloc[MEM], cap[MEM]),
                "gpu": _pct(alloc[GPU], cap[GPU]),
            },
            "usage": reading[1].model_dump(exclude_none=True) if reading else None,
            "last_report_s": reading[0] if reading else None,
            "staleness_s": stale if math.isfinite(stale) else None,
        })
    return out


def site_views(plane: ControlPlane, nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sites with node counts, nodes up, mean reported CPU % and allocated CPU %."""
    by_site: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for n in nodes:
        by_site[n["site"]].append(n)
    out = []
    for name, site in plane.registry.sites().items():
        members = by_site.get(name, [])
        cpu = [n["usage"]["cpu_pct"] for n in members if n["usage"] and "cpu_pct" in n["usage"]]
        cap = sum(n["capacity"]["cpu_milli"] for n in members)
        alloc = sum(n["allocated"]["cpu_milli"] for n in members)
        out.append({
            "name": name, "region": site.region, "zone": site.zone, "tier": site.tier,
            "jurisdiction": site.jurisdiction, "nodes": len(members),
            "nodes_up": sum(1 for n in members if n["up"]),
            "cpu_pct_mean": round(float(np.mean(cpu)), 2) if cpu else None,
            "allocated_cpu_pct": _pct(alloc, cap),
        })
    return out
