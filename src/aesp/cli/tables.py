"""Rich tables of run results."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from aesp.sim.fill import FillResult
from aesp.sim.recorder import RunMetrics


def _fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:,.{digits}f}"


def _pct(value: float) -> str:
    return "-" if math.isnan(value) else f"{100 * value:.1f} %"


ROWS: tuple[tuple[str, Callable[[RunMetrics], str]], ...] = (
    ("tasks", lambda m: f"{m.tasks:,}"),
    ("completed", lambda m: f"{m.completed:,}"),
    ("failed", lambda m: f"{m.failed:,}"),
    ("unscheduled", lambda m: f"{m.unscheduled:,}"),
    ("mean wait (s)", lambda m: _fmt(m.mean_wait_s)),
    ("p95 wait (s)", lambda m: _fmt(m.p95_wait_s)),
    ("mean JCT (s)", lambda m: _fmt(m.mean_jct_s, 0)),
    ("makespan (s)", lambda m: _fmt(m.makespan_s, 0)),
    ("CPU alloc", lambda m: _pct(m.util["cpu"])),
    ("memory alloc", lambda m: _pct(m.util["mem"])),
    ("GPU alloc", lambda m: _pct(m.util["gpu"])),
    ("SLA violations", lambda m: _pct(m.sla_violation_rate)),
    ("GPU fragmentation", lambda m: _pct(m.gpu_fragmentation)),
    ("transfer cost (USD)", lambda m: _fmt(m.transfer_usd, 0)),
    ("compute cost (USD)", lambda m: _fmt(m.compute_usd, 0)),
    ("compliance cost (USD)", lambda m: _fmt(m.compliance_usd, 0)),
    ("decision (ms/cycle)", lambda m: _fmt(m.mean_decision_ms, 2)),
    ("sim wall (s)", lambda m: _fmt(m.sim_wall_s, 2)),
)


def results_table(workload: str, seed: int, results: dict[str, RunMetrics]) -> Table:
    """Schedulers as columns, metrics as rows."""
    table = Table(title=f"{workload} (seed {seed})")
    table.add_column("metric")
    for name in results:
        table.add_column(name, justify="right")
    for label, cell in ROWS:
        table.add_row(label, *(cell(m) for m in results.values()))
    return table


def fill_table(workload: str, seed: int, results: dict[str, FillResult]) -> Table:
    """Allocation at saturation, schedulers as columns."""
    table = Table(title=f"fill: {workload} (seed {seed})")
    table.add_column("metric")
    for name in results:
        table.add_column(name, justify="right")
    rows: tuple[tuple[str, Callable[[FillResult], str]], ...] = (
        ("pods submitted", lambda r: f"{r.pods_submitted:,}"),
        ("pods placed", lambda r: f"{r.pods_placed:,}"),
        ("GPU allocated", lambda r: _pct(r.gpu_allocated_fraction)),
        ("GPU unallocated", lambda r: _pct(r.unallocated_gpu_fraction)),
        ("GPU alloc at 100 % demand", lambda r: _pct(r.gpu_allocated_at_full_demand)),
        ("CPU allocated", lambda r: _pct(r.cpu_allocated_fraction)),
        ("memory allocated", lambda r: _pct(r.mem_allocated_fraction)),
        ("sim wall (s)", lambda r: _fmt(r.sim_wall_s, 2)),
    )
    for label, cell in rows:
        table.add_row(label, *(cell(r) for r in results.values()))
    return table


def table_console() -> Console:
    """Standard output for result tables; wide enough not to fold columns when piped."""
    return Console(width=None if sys.stdout.isatty() else 160)
