"""An embedded time-series store for agent reports and zone snapshots (SQLite, WAL mode).

Reports go in one row each, keyed by ``report_id`` (so re-inserting a retried report is a no-op),
with one column per metric for range queries by node and time. Zone snapshots are stored as
their compressed wire format (:meth:`ZoneSnapshot.to_bytes`), keyed by zone and start time.
Retention deletes rows older than a horizon. A file path gives a durable store; ``":memory:"``
a throwaway one for tests and simulations.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from aesp.core.resources import FloatArray
from aesp.perception.schema import METRIC_NAMES, AgentReport, MetricSample
from aesp.perception.zone_snapshot import ZoneSnapshot

_METRIC_COLUMNS = ", ".join(f"{m} REAL" for m in METRIC_NAMES)
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS reports (
    report_id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    node TEXT NOT NULL,
    seq INTEGER NOT NULL,
    time_s REAL NOT NULL,
    schema_version INTEGER NOT NULL,
    {_METRIC_COLUMNS}
);
CREATE INDEX IF NOT EXISTS reports_node_time ON reports (node, time_s);
CREATE INDEX IF NOT EXISTS reports_time ON reports (time_s);
CREATE TABLE IF NOT EXISTS zone_snapshots (
    zone TEXT NOT NULL,
    start_s REAL NOT NULL,
    end_s REAL NOT NULL,
    payload BLOB NOT NULL,
    PRIMARY KEY (zone, start_s)
);
"""
_REPORT_FIELDS = ("report_id", "agent_id", "node", "seq", "time_s", "schema_version", *METRIC_NAMES)
_INSERT_REPORT = (
    f"INSERT OR IGNORE INTO reports ({', '.join(_REPORT_FIELDS)}) "
    f"VALUES ({', '.join('?' * len(_REPORT_FIELDS))})"
)


class MetricStore:
    """Reports and zone snapshots in one SQLite database. Units: seconds for every ``*_s``."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self._db = sqlite3.connect(str(path))
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> MetricStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def journal_mode(self) -> str:
        return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    def insert_reports(self, reports: Iterable[AgentReport]) -> int:
        """Insert in one transaction; reports already stored (same id) are skipped.

        Returns:
            How many rows were new.
        """
        rows = [_report_row(r) for r in reports]
        with self._db:
            before = self._db.total_changes
            self._db.executemany(_INSERT_REPORT, rows)
            return self._db.total_changes - before

    def query_reports(
        self, start_s: float, end_s: float, node: str | None = None
    ) -> list[AgentReport]:
        """Reports with ``start_s <= time_s < end_s``, optionally one node's, by time then id."""
        sql = f"SELECT {', '.join(_REPORT_FIELDS)} FROM reports WHERE time_s >= ? AND time_s < ?"
        args: list[object] = [start_s, end_s]
        if node is not None:
            sql += " AND node = ?"
            args.append(node)
        rows = self._db.execute(sql + " ORDER BY time_s, report_id", args).fetchall()
        return [_row_report(row) for row in rows]

    def query_series(
        self, node: str, metric: str, start_s: float, end_s: float
    ) -> tuple[FloatArray, FloatArray]:
        """One metric of one node over ``[start_s, end_s)`` as ``(times_s, values)``, NaN = None.

        Shapes: both ``(K,)``, ordered by time.
        """
        if metric not in METRIC_NAMES:
            raise KeyError(f"unknown metric {metric!r}; known: {METRIC_NAMES}")
        rows = self._db.execute(
            f"SELECT time_s, {metric} FROM reports WHERE node = ? AND time_s >= ? AND time_s < ? "
            "ORDER BY time_s",
            (node, start_s, end_s),
        ).fetchall()
        data = np.array([(t, np.nan if v is None else v) for t, v in rows], np.float64)
        data = data.reshape(-1, 2)
        return data[:, 0], data[:, 1]

    def insert_snapshots(self, snapshots: Iterable[ZoneSnapshot]) -> int:
        """Insert or replace zone snapshots in one transaction; returns how many were written."""
        rows = [(s.zone, s.start_s, s.end_s, s.to_bytes()) for s in snapshots]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO zone_snapshots VALUES (?, ?, ?, ?)", rows)
        return len(rows)

    def query_snapshots(self, zone: str, start_s: float, end_s: float) -> list[ZoneSnapshot]:
        """A zone's snapshots whose start lies in ``[start_s, end_s)``, by start time."""
        rows = self._db.execute(
            "SELECT payload FROM zone_snapshots WHERE zone = ? AND start_s >= ? AND start_s < ? "
            "ORDER BY start_s",
            (zone, start_s, end_s),
        ).fetchall()
        return [ZoneSnapshot.from_bytes(bytes(p)) for (p,) in rows]

    def retain(self, now_s: float, keep_s: float) -> int:
        """Delete reports and snapshots older than ``now_s - keep_s``; returns rows deleted."""
        cutoff = now_s - keep_s
        with self._db:
            a = self._db.execute("DELETE FROM reports WHERE time_s < ?", (cutoff,)).rowcount
            b = self._db.execute("DELETE FROM zone_snapshots WHERE end_s <= ?", (cutoff,)).rowcount
        return int(a + b)

    def count_reports(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM reports").fetchone()[0])


def _report_row(report: AgentReport) -> tuple[object, ...]:
    m = report.metrics
    head = (report.report_id, report.agent_id, report.node, report.seq, report.time_s)
    return (*head, report.schema_version, *(getattr(m, name) for name in METRIC_NAMES))


def _row_report(row: tuple[object, ...]) -> AgentReport:
    _, agent_id, node, seq, time_s, version, *values = row
    metrics = MetricSample(**dict(zip(METRIC_NAMES, values, strict=True)))  # type: ignore[arg-type]
    return AgentReport.model_validate(
        {
            "schema_version": version,
            "agent_id": agent_id,
            "node": node,
            "seq": seq,
            "time_s": time_s,
            "metrics": metrics,
        }
    )
