"""The control plane's own records in SQLite: registered nodes and sites, bindings, decisions.

Agent reports live in :class:`aesp.perception.store.MetricStore`; this module holds what the
service itself decides or is told: which nodes exist (from the config file, agent registration or
the Kubernetes node objects the extender sees), which tasks it bound where, and a log of recent
decisions for the dashboard. WAL mode, one transaction per write call.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from aesp.core import Node, Request, Site

_SCHEMA = """
CREATE TABLE IF NOT EXISTS nodes (
    name TEXT PRIMARY KEY, spec TEXT NOT NULL, ready INTEGER NOT NULL,
    source TEXT NOT NULL, updated_s REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sites (name TEXT PRIMARY KEY, spec TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bindings (
    task_key TEXT PRIMARY KEY, node TEXT NOT NULL, cpu_milli REAL NOT NULL,
    mem_mib REAL NOT NULL, gpu_count INTEGER NOT NULL, gpu_milli INTEGER NOT NULL,
    gpus TEXT NOT NULL, time_s REAL NOT NULL, source TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS bindings_node ON bindings (node);
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT, time_s REAL NOT NULL, source TEXT NOT NULL,
    task TEXT NOT NULL, node TEXT, outcome TEXT NOT NULL, reason TEXT NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class RegisteredNode:
    """A node the control plane knows, and whether it accepts new work."""

    node: Node
    ready: bool
    source: str
    updated_s: float


@dataclass(frozen=True, slots=True)
class BindingRecord:
    """A task the control plane bound. Units as in :class:`aesp.core.Request`."""

    task_key: str
    node: str
    request: Request
    gpus: tuple[int, ...]
    time_s: float
    source: str


@dataclass(frozen=True, slots=True)
class DecisionRecord:
    """One line of the decision log; ``node`` is None when the task was not placed."""

    time_s: float
    source: str
    task: str
    node: str | None
    outcome: str
    reason: str


class Registry:
    """Nodes, sites, bindings and decisions in one SQLite database (see module doc)."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self._db = sqlite3.connect(str(path))
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._nodes: dict[str, RegisteredNode] | None = None
        self._sites: dict[str, Site] | None = None
        self.version = 0
        """Incremented by every node or site write; the caches below are per version."""

    def close(self) -> None:
        self._db.close()

    def upsert_nodes(self, nodes: Iterable[RegisteredNode], sites: Iterable[Site]) -> None:
        """Insert or replace nodes and the sites they are on, in one transaction."""
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO sites VALUES (?, ?)",
                [(s.name, json.dumps(asdict(s))) for s in sites],
            )
            self._db.executemany(
                "INSERT OR REPLACE INTO nodes VALUES (?, ?, ?, ?, ?)",
                [
                    (r.node.name, json.dumps(asdict(r.node)), int(r.ready), r.source, r.updated_s)
                    for r in nodes
                ],
            )
        self._nodes = self._sites = None
        self.version += 1

    def nodes(self) -> dict[str, RegisteredNode]:
        """Registered nodes by name (sorted); decoded once per write, a fresh dict per call."""
        if self._nodes is None:
            rows = self._db.execute("SELECT spec, ready, source, updated_s FROM nodes ORDER BY name")
            out = {}
            for spec, ready, source, updated in rows:
                node = Node(**json.loads(spec))
                out[node.name] = RegisteredNode(node, bool(ready), str(source), float(updated))
            self._nodes = out
        return dict(self._nodes)

    def sites(self) -> dict[str, Site]:
        """Sites by name (sorted); decoded once per write, a fresh dict per call."""
        if self._sites is None:
            rows = self._db.execute("SELECT spec FROM sites ORDER BY name").fetchall()
            self._sites = {s.name: s for s in (Site(**json.loads(spec)) for (spec,) in rows)}
        return dict(self._sites)

    def add_bindings(
        self, bindings: Sequence[BindingRecord], decisions: Sequence[DecisionRecord]
    ) -> None:
        """Record bindings and their decision-log lines in one transaction.

        Raises:
            sqlite3.IntegrityError: a task key is already bound (nothing is written).
        """
        with self._db:
            self._db.executemany(
                "INSERT INTO bindings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (b.task_key, b.node, b.request.cpu_milli, b.request.mem_mib,
                     b.request.gpu_count, b.request.gpu_milli, json.dumps(b.gpus), b.time_s,
                     b.source)
                    for b in bindings
                ],
            )
            self._log(decisions)

    def log_decisions(self, decisions: Sequence[DecisionRecord]) -> None:
        with self._db:
            self._log(decisions)

    def _log(self, decisions: Sequence[DecisionRecord]) -> None:
        self._db.executemany(
            "INSERT INTO decisions (time_s, source, task, node, outcome, reason) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(d.time_s, d.source, d.task, d.node, d.outcome, d.reason) for d in decisions],
        )

    def release(self, task_key: str) -> bool:
        """Forget a binding (the task finished or was deleted); False when there was none."""
        with self._db:
            cur = self._db.execute("DELETE FROM bindings WHERE task_key = ?", (task_key,))
        return cur.rowcount > 0

    def bindings(self) -> list[BindingRecord]:
        rows = self._db.execute(
            "SELECT task_key, node, cpu_milli, mem_mib, gpu_count, gpu_milli, gpus, time_s, "
            "source FROM bindings ORDER BY time_s, task_key"
        ).fetchall()
        return [
            BindingRecord(
                str(k), str(n), Request(float(c), float(m), int(gc), int(gm)),
                tuple(json.loads(g)), float(t), str(s),
            )
            for k, n, c, m, gc, gm, g, t, s in rows
        ]

    def recent_decisions(self, limit: int) -> list[DecisionRecord]:
        rows = self._db.execute(
            "SELECT time_s, source, task, node, outcome, reason FROM decisions "
            "ORDER BY id DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [DecisionRecord(float(t), str(s), str(k), n, str(o), str(r)) for t, s, k, n, o, r in rows]

    def prune_decisions(self, keep: int) -> None:
        with self._db:
            self._db.execute(
                "DELETE FROM decisions WHERE id <= (SELECT MAX(id) FROM decisions) - ?", (keep,)
            )
