"""The global view: graph, shortest-RTT paths, hotspots and the scheduler's ClusterSnapshot."""

from __future__ import annotations

import numpy as np
import pytest

from aesp.core import CPU, GPU, MEM, Link, Node, NodeTable, Site, Topology
from aesp.perception.aggregator import ZoneAggregator
from aesp.perception.global_view import GlobalView
from aesp.perception.schema import AgentReport, MetricSample


def _table() -> NodeTable:
    sites = [
        Site("us-a", region="us", zone="us-1"),
        Site("us-b", region="us", zone="us-2"),
        Site("edge", region="us", zone="edge-1", tier="edge"),
    ]
    links = [
        Link("us-a", "us-b", rtt_ms=2.0, bandwidth_mbps=10_000),
        Link("us-b", "edge", rtt_ms=10.0, bandwidth_mbps=1_000),
        Link("us-a", "edge", rtt_ms=30.0, bandwidth_mbps=100),
    ]
    nodes = [
        Node("n1", "us-a", cpu_milli=8000, mem_mib=32768, gpu_count=2, gpu_model="A100"),
        Node("n2", "us-b", cpu_milli=4000, mem_mib=16384),
        Node("n3", "edge", cpu_milli=2000, mem_mib=4096, arch="arm64"),
    ]
    return NodeTable.build(nodes, Topology.build(sites, links))


def _report(node: str, t: float, **metrics: float) -> AgentReport:
    return AgentReport(
        agent_id=node, node=node, seq=int(t), time_s=t, metrics=MetricSample(**metrics)
    )


def test_graph_has_regions_zones_sites_and_links() -> None:
    view = GlobalView(_table())
    kinds = {k for _, k in view.graph.nodes(data="kind")}
    assert kinds == {"region", "zone", "site"}
    assert view.graph.edges["site:us-a", "site:edge"]["rtt_ms"] == 30.0


def test_shortest_rtt_path_goes_around_the_slow_link() -> None:
    view = GlobalView(_table())
    # direct us-a - edge is 30 ms; via us-b it is 2 + 10 = 12 ms.
    assert view.shortest_rtt_path("us-a", "edge") == (["us-a", "us-b", "edge"], 12.0)
    assert view.shortest_rtt_path("edge", "edge") == (["edge"], 0.0)
    with pytest.raises(KeyError):
        view.shortest_rtt_path("us-a", "mars")


def test_cluster_snapshot_usage_staleness_and_down_nodes() -> None:
    table = _table()
    view = GlobalView(table, stale_after_s=90.0)
    view.ingest_report(
        _report("n1", 100.0, cpu_pct=50.0, mem_pct=25.0, gpu_pct=10.0, temperature_c=61.0)
    )
    view.ingest_report(_report("n2", 20.0, cpu_pct=100.0))
    view.ingest_report(_report("n1", 90.0, cpu_pct=99.0))  # older: ignored
    allocated = np.zeros((3, 3))
    allocated[0, CPU] = 1000.0
    gpu_free = np.where(table.gpu_present, 1000.0, 0.0)
    snap = view.cluster_snapshot(120.0, allocated, gpu_free)
    # n1: 50 % of 8000 m = 4000 m; 25 % of 32768 MiB = 8192; 10 % of 2000 milli-GPU = 200.
    assert snap.usage[0].tolist() == [4000.0, 8192.0, 200.0]
    assert snap.usage[1, CPU] == 4000.0 and snap.usage[1, MEM] == 0.0
    assert snap.staleness_s.tolist() == [20.0, 100.0, np.inf]
    assert snap.up.tolist() == [True, False, False]  # n2 100 s > 90 s old; n3 never reported
    assert snap.temperature_c[0] == 61.0 and np.isnan(snap.temperature_c[1])
    assert snap.allocated[0, CPU] == 1000.0 and snap.usage[0, GPU] == 200.0
    assert not snap.usage.flags.writeable


def test_snapshot_feed_updates_nodes_zone_load_and_hotspots() -> None:
    view = GlobalView(_table(), hot_cpu_pct=80.0, rising_pct_per_min=10.0)
    agg = ZoneAggregator("us-1", allowed_lateness_s=0.0)
    for minute, cpu in enumerate([40.0, 55.0, 70.0]):  # rising 15 points a minute
        agg.ingest(_report("n1", minute * 60.0 + 30.0, cpu_pct=cpu))
        for snap in agg.flush((minute + 1) * 60.0):
            view.ingest_snapshot(snap)
    assert view.last_report_s[0] == 150.0
    assert view.graph.nodes["zone:us-1"]["cpu_pct"] == 70.0
    (hot,) = view.hotspots()
    assert hot.zone == "us-1" and hot.reasons == ("rising",)
    assert hot.rise_pct_per_min == pytest.approx(15.0)
