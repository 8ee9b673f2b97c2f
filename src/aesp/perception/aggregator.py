"""The regional aggregator: one per zone, it turns agent reports into one snapshot per minute.

Ingest: a report is dropped as a duplicate when its ``report_id`` was seen within
``dedupe_horizon_s``; it is filed under the minute its ``time_s`` falls in, so reports may arrive
in any order while that minute is open. A minute ``[s, s + period_s)`` closes when ``flush(now_s)``
is called with ``now_s >= s + period_s + allowed_lateness_s``; a report for a closed minute is
counted as late and only refreshes the node's latest state (the caller may still store it raw).

Change flags: metric ``m`` of a node is flagged changed when, in change coordinates
(:func:`aesp.perception.schema.change_coordinates`), its minute mean moved by at least
``change_threshold`` since the node's previous minute with data, or its range within the minute
(max - min) is at least twice that. Anomaly flags: a robust z-score
(:class:`aesp.perception.anomaly.RobustZScore`) per node over its recent minute means.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from aesp.core.resources import BoolArray, FloatArray, IntArray
from aesp.perception.anomaly import AnomalyDetector, RobustZScore
from aesp.perception.schema import N_METRICS, AgentReport, change_coordinates
from aesp.perception.zone_snapshot import ZoneSnapshot

IngestResult = Literal["accepted", "duplicate", "late"]


@dataclass
class AggregatorStats:
    """Counters over the aggregator's life. Units: bytes."""

    accepted: int = 0
    duplicates: int = 0
    late: int = 0
    snapshots: int = 0
    bytes_in: int = 0
    bytes_out: int = 0

    @property
    def compression_ratio(self) -> float:
        """Report JSON bytes in per snapshot byte out; 0 before the first snapshot."""
        return self.bytes_in / self.bytes_out if self.bytes_out else 0.0


@dataclass
class _Minute:
    rows: dict[str, list[tuple[float, FloatArray]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    bytes_in: int = 0


def minute_stats(values: FloatArray) -> FloatArray:
    """min, mean, max and p95 (linear interpolation) of each metric, ignoring NaN.

    Shapes:
        values: ``(K, M)`` reports by metrics; returns ``(M, 4)``, NaN for all-NaN metrics.
    """
    out = np.full((values.shape[1], 4), np.nan)
    has = np.isfinite(values).any(axis=0)
    v = values[:, has]
    out[has] = np.stack(
        [np.nanmin(v, 0), np.nanmean(v, 0), np.nanmax(v, 0), np.nanpercentile(v, 95, 0)], axis=1
    )
    return out


@dataclass
class ZoneAggregator:
    """Collects one zone's reports and emits a :class:`ZoneSnapshot` per closed period.

    Units: seconds for every ``*_s``; ``change_threshold`` in change coordinates (0.05 = five
    percentage points for a percentage metric).
    """

    zone: str
    period_s: float = 60.0
    allowed_lateness_s: float = 120.0
    """How long a minute stays open for late reports (e.g. a short disconnect's backlog)."""
    dedupe_horizon_s: float = 6 * 3600.0
    change_threshold: float = 0.05
    detector_factory: Callable[[], AnomalyDetector] = field(
        default=lambda: RobustZScore(window=60, threshold=3.5, min_periods=10)
    )
    stats: AggregatorStats = field(default_factory=AggregatorStats, init=False)
    _open: dict[int, _Minute] = field(default_factory=dict, init=False, repr=False)
    _seen: dict[str, float] = field(default_factory=dict, init=False, repr=False)
    _latest: dict[str, tuple[float, FloatArray]] = field(
        default_factory=dict, init=False, repr=False
    )
    _prev_mean: dict[str, FloatArray] = field(default_factory=dict, init=False, repr=False)
    _detectors: dict[str, AnomalyDetector] = field(default_factory=dict, init=False, repr=False)
    _closed_before: int = field(default=-(2**62), init=False, repr=False)

    def ingest(self, report: AgentReport) -> IngestResult:
        """File one report; see the module doc for duplicates and late reports."""
        if report.report_id in self._seen:
            self.stats.duplicates += 1
            return "duplicate"
        self._seen[report.report_id] = report.time_s
        values = report.metrics.vector()
        self._remember_latest(report.node, report.time_s, values)
        bucket = int(report.time_s // self.period_s)
        if bucket < self._closed_before:
            self.stats.late += 1
            return "late"
        minute = self._open.setdefault(bucket, _Minute())
        minute.rows[report.node].append((report.time_s, values))
        size = len(report.to_json_bytes())
        minute.bytes_in += size
        self.stats.bytes_in += size
        self.stats.accepted += 1
        return "accepted"

    def flush(self, now_s: float) -> list[ZoneSnapshot]:
        """Close every minute that ended at least ``allowed_lateness_s`` before ``now_s``."""
        ready = sorted(
            b for b in self._open if (b + 1) * self.period_s + self.allowed_lateness_s <= now_s
        )
        snapshots = [self._close(b) for b in ready]
        self._forget_old_ids(now_s)
        return snapshots

    def latest(self) -> dict[str, tuple[float, FloatArray]]:
        """Most recent report time and values per node, including late reports."""
        return dict(self._latest)

    def _remember_latest(self, node: str, time_s: float, values: FloatArray) -> None:
        known = self._latest.get(node)
        if known is None or time_s >= known[0]:
            self._latest[node] = (time_s, values)

    def _close(self, bucket: int) -> ZoneSnapshot:
        minute = self._open.pop(bucket)
        self._closed_before = max(self._closed_before, bucket + 1)
        nodes = tuple(sorted(self._latest))
        n = len(nodes)
        stats = np.full((n, N_METRICS, 4), np.nan)
        last = np.full((n, N_METRICS), np.nan)
        counts = np.zeros(n, np.int64)
        for i, node in enumerate(nodes):
            rows = sorted(minute.rows.get(node, []), key=lambda r: r[0])
            if rows:
                stats[i] = minute_stats(np.stack([v for _, v in rows]))
                last[i], counts[i] = rows[-1][1], len(rows)
        snapshot = ZoneSnapshot(
            zone=self.zone,
            start_s=bucket * self.period_s,
            end_s=(bucket + 1) * self.period_s,
            nodes=nodes,
            stats=stats,
            last=last,
            counts=counts,
            last_report_s=np.array([self._latest[x][0] for x in nodes]),
            changed=self._change_flags(nodes, stats),
            anomalous=self._anomaly_flags(nodes, stats[:, :, 1], counts),
            bytes_in=minute.bytes_in,
        )
        self.stats.snapshots += 1
        self.stats.bytes_out += len(snapshot.to_bytes())
        return snapshot

    def _change_flags(self, nodes: tuple[str, ...], stats: FloatArray) -> BoolArray:
        coords = change_coordinates(np.moveaxis(stats, 2, 1))  # (N, 4, M)
        flags = np.zeros((len(nodes), N_METRICS), np.bool_)
        for i, node in enumerate(nodes):
            mean, spread = coords[i, 1], coords[i, 2] - coords[i, 0]
            prev = self._prev_mean.get(node)
            moved = (
                np.zeros(N_METRICS, np.bool_)
                if prev is None
                else np.abs(mean - prev) >= self.change_threshold
            )
            flags[i] = np.nan_to_num(spread) >= 2 * self.change_threshold
            flags[i] |= np.asarray(moved) & np.isfinite(mean)
            if np.isfinite(mean).any():
                self._prev_mean[node] = np.where(
                    np.isfinite(mean), mean, prev if prev is not None else np.nan
                )
        return flags

    def _anomaly_flags(
        self, nodes: tuple[str, ...], means: FloatArray, counts: IntArray
    ) -> BoolArray:
        flags = np.zeros((len(nodes), N_METRICS), np.bool_)
        for i, node in enumerate(nodes):
            if counts[i]:
                detector = self._detectors.setdefault(node, self.detector_factory())
                flags[i] = detector.update(means[i])
        return flags

    def _forget_old_ids(self, now_s: float) -> None:
        horizon = now_s - self.dedupe_horizon_s
        if self._seen and min(self._seen.values()) < horizon:
            self._seen = {k: t for k, t in self._seen.items() if t >= horizon}
