"""AESP perception: node agents, adaptive reporting, zone aggregation, the global view, storage.

Data flow: a :class:`Collector` feeds an :class:`Agent`, whose :class:`ReportingPolicy` decides
when it sends an :class:`AgentReport`; a :class:`ZoneAggregator` per zone turns reports into one
:class:`ZoneSnapshot` a minute; a :class:`GlobalView` fuses snapshots (or reports) into a topology
graph and builds the :class:`aesp.core.ClusterSnapshot` a scheduler decides on; a
:class:`MetricStore` keeps reports and snapshots. See ``docs/perception.md``.
"""

from aesp.perception.adaptive import (
    Adaptive,
    EntropyChangeDetector,
    FixedInterval,
    ReportingPolicy,
    window_change_entropy,
)
from aesp.perception.agent import Agent, AgentStats, ReportBuffer, Transport
from aesp.perception.aggregator import AggregatorStats, ZoneAggregator
from aesp.perception.anomaly import AnomalyDetector, EwmaChart, RobustZScore
from aesp.perception.collectors import (
    Collector,
    FleetMetrics,
    HostCollector,
    SimulatedCollector,
    tcp_connect_rtt_ms,
)
from aesp.perception.global_view import GlobalView, Hotspot
from aesp.perception.schema import (
    METRIC_NAMES,
    SCHEMA_VERSION,
    AgentReport,
    MetricSample,
)
from aesp.perception.store import MetricStore
from aesp.perception.zone_snapshot import ZoneSnapshot

__all__ = [
    "METRIC_NAMES",
    "SCHEMA_VERSION",
    "Adaptive",
    "Agent",
    "AgentReport",
    "AgentStats",
    "AggregatorStats",
    "AnomalyDetector",
    "Collector",
    "EntropyChangeDetector",
    "EwmaChart",
    "FixedInterval",
    "FleetMetrics",
    "GlobalView",
    "HostCollector",
    "Hotspot",
    "MetricSample",
    "MetricStore",
    "ReportBuffer",
    "ReportingPolicy",
    "RobustZScore",
    "SimulatedCollector",
    "Transport",
    "ZoneAggregator",
    "ZoneSnapshot",
    "tcp_connect_rtt_ms",
    "window_change_entropy",
]
