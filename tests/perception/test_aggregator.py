"""The zone aggregator: dedupe, out-of-order arrival, minute statistics, flags, compression."""

from __future__ import annotations

import numpy as np
import pytest

from aesp.perception.aggregator import ZoneAggregator, minute_stats
from aesp.perception.schema import METRIC_NAMES, AgentReport, MetricSample
from aesp.perception.zone_snapshot import ZoneSnapshot

CPU = METRIC_NAMES.index("cpu_pct")


def _report(node: str, seq: int, t: float, cpu: float, **more: float) -> AgentReport:
    return AgentReport(
        agent_id=f"agent-{node}",
        node=node,
        seq=seq,
        time_s=t,
        metrics=MetricSample(cpu_pct=cpu, **more),
    )


def test_minute_stats_worked_example() -> None:
    # cpu 10, 20, 30, 40: min 10, mean 25, max 40, p95 = 30 + 0.85 * (40 - 30) = 38.5
    values = np.full((4, len(METRIC_NAMES)), np.nan)
    values[:, CPU] = [10, 20, 30, 40]
    stats = minute_stats(values)
    assert stats[CPU].tolist() == [10.0, 25.0, 40.0, pytest.approx(38.5)]
    assert np.isnan(stats[CPU + 1]).all()


def test_dedupe_out_of_order_and_one_snapshot_per_minute() -> None:
    agg = ZoneAggregator("z1")
    reports = [_report("n1", i, 5.0 * i, cpu) for i, cpu in enumerate([40, 10, 30, 20])]
    for r in reversed(reports):  # out of order
        assert agg.ingest(r) == "accepted"
    assert agg.ingest(reports[2]) == "duplicate"
    agg.ingest(_report("n1", 4, 65.0, 90))  # next minute
    assert agg.flush(179.0) == []  # minute 0 still open: 60 + 120 s lateness
    (snap,) = agg.flush(180.0)
    assert (snap.start_s, snap.end_s, snap.nodes) == (0.0, 60.0, ("n1",))
    assert [snap.stat("n1", "cpu_pct", s) for s in ("min", "mean", "max")] == [10, 25, 40]
    assert snap.stat("n1", "cpu_pct", "p95") == pytest.approx(38.5)
    assert snap.counts.tolist() == [4]
    assert snap.last[0, CPU] == 20.0  # value of the latest report in the window (t = 15)
    assert agg.stats.duplicates == 1


def test_late_report_is_counted_not_summarised() -> None:
    agg = ZoneAggregator("z1", allowed_lateness_s=0.0)
    agg.ingest(_report("n1", 0, 10.0, 50))
    agg.flush(60.0)
    assert agg.ingest(_report("n1", 1, 20.0, 60)) == "late"
    assert agg.stats.late == 1
    assert agg.latest()["n1"][0] == 20.0


def test_silent_node_appears_with_zero_count() -> None:
    agg = ZoneAggregator("z1", allowed_lateness_s=0.0)
    agg.ingest(_report("a", 0, 0.0, 10))
    agg.ingest(_report("b", 0, 1.0, 10))
    agg.flush(60.0)
    agg.ingest(_report("a", 1, 70.0, 10))
    (snap,) = agg.flush(120.0)
    assert snap.counts.tolist() == [1, 0]
    assert np.isnan(snap.stats[1]).all()
    assert snap.last_report_s.tolist() == [70.0, 1.0]


def test_change_flags_on_mean_shift_and_range() -> None:
    agg = ZoneAggregator("z1", allowed_lateness_s=0.0, change_threshold=0.05)
    agg.ingest(_report("n1", 0, 0.0, 20))
    (first,) = agg.flush(60.0)
    assert not first.changed.any()
    agg.ingest(_report("n1", 1, 60.0, 24))  # +4 points < 5: not changed
    (second,) = agg.flush(120.0)
    assert not second.changed[0, CPU]
    agg.ingest(_report("n1", 2, 120.0, 30))  # +6 points from 24: changed
    (third,) = agg.flush(180.0)
    assert third.changed[0, CPU]
    agg.ingest(_report("n1", 3, 180.0, 25))
    agg.ingest(_report("n1", 4, 190.0, 36))  # mean 30.5 (no move) but range 11 >= 10
    (fourth,) = agg.flush(240.0)
    assert fourth.changed[0, CPU]


def test_anomaly_flag_on_a_spike_minute() -> None:
    agg = ZoneAggregator("z1", allowed_lateness_s=0.0)
    rng = np.random.default_rng(0)
    snaps = []
    for minute in range(31):
        cpu = 95.0 if minute == 30 else 30.0 + rng.normal(0, 1)
        agg.ingest(_report("n1", minute, minute * 60.0, cpu))
        snaps += agg.flush((minute + 1) * 60.0)
    assert not any(s.anomalous[0, CPU] for s in snaps[:30])
    assert snaps[30].anomalous[0, CPU]


def test_snapshot_round_trip_and_compression_ratio() -> None:
    agg = ZoneAggregator("z1", allowed_lateness_s=0.0)
    rng = np.random.default_rng(1)
    for n in range(20):
        for k in range(12):  # every 5 s
            agg.ingest(
                _report(
                    f"n{n:02d}",
                    k,
                    5.0 * k,
                    float(rng.uniform(0, 100)),
                    mem_pct=50.0,
                    net_rx_bytes_per_s=1e5,
                )
            )
    (snap,) = agg.flush(60.0)
    again = ZoneSnapshot.from_bytes(snap.to_bytes())
    assert again.nodes == snap.nodes and again.zone == "z1"
    np.testing.assert_allclose(again.stats, snap.stats.astype(np.float32), equal_nan=True)
    assert (again.counts == snap.counts).all() and (again.changed == snap.changed).all()
    # 240 JSON reports in, one compressed snapshot out.
    assert agg.stats.bytes_in == snap.bytes_in
    assert agg.stats.compression_ratio > 5
    summary = snap.zone_summary()
    assert summary[METRIC_NAMES.index("mem_pct")].tolist() == [50.0, 50.0, 50.0]


def test_snapshot_rejects_unknown_format() -> None:
    import struct
    import zlib

    with pytest.raises(ValueError, match="format"):
        ZoneSnapshot.from_bytes(zlib.compress(struct.pack("<I", 13) + b'{"version":9}'))
