"""End to end, as the simulator will wire it: fleet arrays -> agents -> aggregator -> store and
global view -> ClusterSnapshot, through a disconnect."""

from __future__ import annotations

import numpy as np

from aesp.core import Node, NodeTable, Topology
from aesp.perception.adaptive import Adaptive
from aesp.perception.agent import Agent
from aesp.perception.aggregator import ZoneAggregator
from aesp.perception.collectors import FleetMetrics
from aesp.perception.global_view import GlobalView
from aesp.perception.schema import AgentReport
from aesp.perception.store import MetricStore


def test_disconnect_loses_nothing_and_view_goes_stale_then_recovers() -> None:
    table = NodeTable.build(
        [Node(f"n{i}", "s1", cpu_milli=4000, mem_mib=8192) for i in range(3)],
        Topology.single_site("s1"),
    )
    fleet = FleetMetrics(table.names)
    agg, store, view = ZoneAggregator("s1"), MetricStore(), GlobalView(table, stale_after_s=90)
    link_up = {name: True for name in table.names}

    def transport_for(node: str):
        def send(report: AgentReport) -> bool:
            if not link_up[node]:
                return False
            agg.ingest(report)
            store.insert_reports([report])
            view.ingest_report(report)
            return True

        return send

    agents = [Agent(n, n, fleet.collector(n), Adaptive(), transport_for(n)) for n in table.names]
    usage = np.zeros((3, 3))
    allocated, gpu_free = np.zeros((3, 3)), np.zeros(table.gpu_present.shape)
    for tick in range(121):  # 10 minutes of 5 s ticks
        now = tick * 5.0
        usage[:, 0] = 1000.0 + (2000.0 if 40 <= tick < 60 else 0.0)
        fleet.set_usage(usage, table.capacity)
        link_up["n2"] = not 20 <= tick < 50  # n2 is cut off for 150 s
        for agent in agents:
            agent.tick(now)
        store.insert_snapshots(agg.flush(now))
        if tick == 49:
            snap = view.cluster_snapshot(now, allocated, gpu_free)
            assert snap.up.tolist() == [True, True, False]
    n2 = agents[2]
    assert n2.stats.dropped == 0 and n2.stats.reconnects == 1
    assert n2.stats.delivered == n2.stats.created
    seqs = [r.seq for r in store.query_reports(0.0, 1e9, node="n2")]
    assert seqs == list(range(n2.stats.created))  # every report, in order
    final = view.cluster_snapshot(600.0, allocated, gpu_free)
    assert final.up.all() and final.usage[:, 0].tolist() == [1000.0] * 3
    assert agg.stats.duplicates == 0 and agg.stats.compression_ratio > 1
    # the burst (ticks 40-59) switched every agent to 5 s reports for a while
    assert all(a.policy.switches >= 2 for a in agents)
