"""``aesp bench service`` / ``aesp bench extender`` on small sizes, and the caches the extender
benchmark motivated (registry nodes, NodeTables, node conversion by resourceVersion)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.service.conftest import settings
from tests.service.kubeobjects import kube_node, kube_pod
from typer.testing import CliRunner

from aesp.cli.main import app
from aesp.service.bench import extender_bench, kube_node_list, kube_pods, service_bench
from aesp.service.extender import Extender
from aesp.service.state import ControlPlane


def test_service_bench_drives_a_real_server_and_counts_every_report() -> None:
    out = service_bench(agents=20, duration_s=2.0, interval_s=0.5)
    assert set(out) >= {"agents", "duration_s", "accepted", "accepted_per_s", "p50_ms", "p99_ms",
                        "errors"}
    assert out["errors"] == 0
    assert out["accepted"] == out["stored"] == 20 * 4
    assert 0 < out["p50_ms"] <= out["p99_ms"]


def test_extender_bench_reports_both_modes(tmp_path: Path) -> None:
    target = tmp_path / "ext.json"
    result = CliRunner().invoke(app, ["bench", "extender", "--nodes", "200", "--pods", "3",
                                      "--json", str(target)])
    assert result.exit_code == 0, result.output
    out = json.loads(target.read_text())
    assert out["nodes"] == 200 and out["calls"] == 3
    for mode in ("nodeCacheCapable=false", "nodeCacheCapable=true"):
        assert set(out["results_by_mode"][mode]) == {"filter", "prioritize"}
    assert out["results"]["filter"]["p50_ms"] > 0


def test_bench_nodes_and_pods_map_to_core_objects() -> None:
    s = settings(nodes=[])
    plane = ControlPlane(s)
    e = Extender(plane, s.extender)
    nodes = kube_node_list(50)
    for pod in kube_pods(6):
        out = e.filter({"Pod": pod, "Nodes": {"items": nodes}})
        assert out["Error"] == "" and not set(out["FailedNodes"]) & {"?"}
    assert len(plane.registry.nodes()) == 50
    assert extender_bench(30, pods=2)["calls"] == 2


def _args(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    return {"Pod": kube_pod(containers=[{"cpu": "2"}]), "Nodes": {"items": nodes}}


def test_node_conversion_is_reused_only_for_an_unchanged_resource_version() -> None:
    s = settings(nodes=[])
    plane = ControlPlane(s)
    e = Extender(plane, s.extender)
    node, big = kube_node("a", cpu="4"), kube_node("big", cpu="16")
    node["metadata"]["resourceVersion"] = "1"
    assert e.filter(_args([node, big]))["FailedNodes"] == {}
    smaller = json.loads(json.dumps(node))
    smaller["status"]["allocatable"]["cpu"] = "1"    # same version: treated as unchanged
    assert e.filter(_args([smaller, big]))["FailedNodes"] == {}
    smaller["metadata"]["resourceVersion"] = "2"     # a new version is converted again
    assert e.filter(_args([smaller, big]))["FailedNodes"] == {"a": "AESP NodeResourcesFit"}
    assert plane.registry.nodes()["a"].node.cpu_milli == 1000


def test_registry_and_node_table_caches_follow_writes() -> None:
    s = settings(nodes=[])
    plane = ControlPlane(s)
    e = Extender(plane, s.extender)
    e.filter(_args([kube_node("a"), kube_node("b")]))
    first = plane.snapshot(["a", "b"]).table
    assert plane.snapshot(["a", "b"]).table is first          # unchanged registry: reused
    e.filter(_args([kube_node("a"), kube_node("b", cpu="8")]))
    again = plane.snapshot(["a", "b"]).table
    assert again is not first and again.capacity[1, 0] == 8000
    names = plane.registry.nodes()
    names.pop("a")                                            # callers get a copy
    assert set(plane.registry.nodes()) == {"a", "b"}
