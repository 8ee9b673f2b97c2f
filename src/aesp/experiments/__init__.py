"""Experiments: compose a workload, schedulers and the simulator, and collect results.

This is orchestration only; every placement decision is made by the schedulers themselves.
"""

from aesp.experiments.runs import (
    Workload,
    build_schedulers,
    compare,
    fill_compare,
    fill_document,
    load_trace_workload,
    results_document,
    scenario_workload,
)

__all__ = [
    "Workload",
    "build_schedulers",
    "compare",
    "fill_compare",
    "fill_document",
    "load_trace_workload",
    "results_document",
    "scenario_workload",
]
