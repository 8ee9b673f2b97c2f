"""The SQLite metric store: round trip, idempotence, range queries, retention."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from aesp.perception.aggregator import ZoneAggregator
from aesp.perception.schema import AgentReport, MetricSample
from aesp.perception.store import MetricStore


def _reports(node: str, times: list[float]) -> list[AgentReport]:
    return [
        AgentReport(
            agent_id=node,
            node=node,
            seq=i,
            time_s=t,
            metrics=MetricSample(cpu_pct=float(i), gpu_pct=None),
        )
        for i, t in enumerate(times)
    ]


def test_round_trip_is_idempotent_and_uses_wal(tmp_path: Path) -> None:
    with MetricStore(tmp_path / "m.db") as store:
        assert store.journal_mode == "wal"
        reports = _reports("n1", [0.0, 5.0, 10.0])
        assert store.insert_reports(reports) == 3
        assert store.insert_reports(reports) == 0  # retried delivery: no new rows
        assert store.query_reports(0.0, 100.0) == reports


def test_query_by_node_and_time_range() -> None:
    store = MetricStore()
    store.insert_reports(_reports("a", [0.0, 30.0, 60.0]) + _reports("b", [15.0, 45.0]))
    got = store.query_reports(10.0, 60.0, node="a")
    assert [(r.node, r.time_s) for r in got] == [("a", 30.0)]
    times, cpu = store.query_series("a", "cpu_pct", 0.0, 100.0)
    assert times.tolist() == [0.0, 30.0, 60.0] and cpu.tolist() == [0.0, 1.0, 2.0]
    _, gpu = store.query_series("a", "gpu_pct", 0.0, 100.0)
    assert np.isnan(gpu).all()


def test_retention_deletes_old_reports_and_snapshots() -> None:
    store = MetricStore()
    store.insert_reports(_reports("a", [0.0, 100.0, 200.0]))
    agg = ZoneAggregator("z", allowed_lateness_s=0.0)
    for r in store.query_reports(0.0, 1e9):
        agg.ingest(r)
    assert store.insert_snapshots(agg.flush(300.0)) == 3
    # keep the last 150 s at t = 300: reports at 0 and 100 go; snapshots ending <= 150 go.
    deleted = store.retain(now_s=300.0, keep_s=150.0)
    assert deleted == 2 + 2
    assert [r.time_s for r in store.query_reports(0.0, 1e9)] == [200.0]
    (snap,) = store.query_snapshots("z", 0.0, 1e9)
    assert snap.start_s == 180.0 and snap.stat("a", "cpu_pct", "mean") == 2.0
