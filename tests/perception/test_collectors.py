"""Collectors: the real host and the array-fed simulator adapter."""

from __future__ import annotations

import socket
import sys

import numpy as np
import pytest

from aesp.perception.collectors import (
    Collector,
    FleetMetrics,
    HostCollector,
    RateMeter,
    tcp_connect_rtt_ms,
)
from aesp.perception.schema import METRIC_NAMES


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="HostCollector targets Linux")
def test_host_collector_reads_twelve_fields_with_none_only_where_unreadable() -> None:
    collector = HostCollector()
    assert isinstance(collector, Collector)
    sample = collector.collect(0.0)
    values = sample.model_dump()
    assert len(values) >= 12
    always = (
        "cpu_pct",
        "mem_pct",
        "disk_pct",
        "disk_io_bytes_per_s",
        "net_rx_bytes_per_s",
        "net_tx_bytes_per_s",
        "load_avg_1m",
    )
    for name in always:
        assert values[name] is not None, f"{name} should be readable on any Linux host"
    # No probe configured -> no latency; GPU fields only with NVML and a device.
    assert values["latency_to_aggregator_ms"] is None
    if not collector.gpus.available:
        assert values["gpu_pct"] is None and values["gpu_mem_pct"] is None


def test_host_collector_uses_injected_latency_probe() -> None:
    sample = HostCollector(latency_probe=lambda: 12.5).collect(0.0)
    assert sample.latency_to_aggregator_ms == 12.5


def test_rate_meter_worked_example() -> None:
    meter = RateMeter()
    assert meter.update(1000.0, 10.0) is None  # first reading: no interval yet
    assert meter.update(6000.0, 15.0) == 1000.0  # (6000 - 1000) B / 5 s
    assert meter.update(10.0, 20.0) is None  # counter reset: no honest rate
    assert meter.update(20.0, 20.0) is None  # no elapsed time


def test_tcp_rtt_probe_measures_a_local_listener_and_fails_cleanly() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        rtt = tcp_connect_rtt_ms("127.0.0.1", server.getsockname()[1])
    assert rtt is not None and rtt >= 0.0
    assert tcp_connect_rtt_ms("127.0.0.1", 1, timeout_s=0.2) is None


def test_fleet_metrics_from_usage() -> None:
    fleet = FleetMetrics(["a", "b"])
    usage = np.array([[2000.0, 1024.0, 0.0], [500.0, 0.0, 500.0]])
    capacity = np.array([[4000.0, 4096.0, 0.0], [1000.0, 1024.0, 1000.0]])
    fleet.set_usage(usage, capacity)
    fleet.set_metric("temperature_c", np.array([40.0, np.nan]))
    a = fleet.collector("a").collect(0.0)
    b = fleet.collector("b").collect(0.0)
    assert (a.cpu_pct, a.mem_pct, a.gpu_pct, a.temperature_c) == (50.0, 25.0, None, 40.0)
    assert (b.cpu_pct, b.mem_pct, b.gpu_pct, b.temperature_c) == (50.0, 0.0, 50.0, None)


def test_fleet_metrics_clips_overcommit_into_range() -> None:
    fleet = FleetMetrics(["a"])
    fleet.set_metric("cpu_pct", np.array([130.0]))
    assert fleet.collector("a").collect(0.0).cpu_pct == 100.0
    assert fleet.values.shape == (1, len(METRIC_NAMES))
