"""Seeded golden run: ``seed-experiment`` with ``kube-default`` must reproduce stored metrics.

The expected values live in ``tests/sim/golden/seed_experiment_kube_default.json``. When a change
is *meant* to move them (a new workload model, a scheduling fix), regenerate and review the diff:

    AESP_REGOLD=1 .venv/bin/python -m pytest tests/sim/test_golden.py

Only :data:`KEY_METRICS` are stored and compared; wall-clock fields (``sim_wall_s``,
``events_per_s``, ``mean_decision_ms``) never are.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from aesp.experiments import compare, scenario_workload

GOLDEN = Path(__file__).parent / "golden" / "seed_experiment_kube_default.json"
KEY_METRICS = (
    "tasks", "completed", "failed", "unscheduled", "mean_wait_s", "p95_wait_s", "mean_jct_s",
    "makespan_s", "util", "sla_violation_rate", "gpu_fragmentation", "events", "cycles",
    "invalid_bindings", "transfer_usd", "compute_usd",
)
"""Compared metrics; wall-clock ones are left out, and metrics added later do not break this."""
REL = 1e-9


def flatten(doc: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if isinstance(value, dict):
            out |= flatten(value, f"{prefix}{key}.")
        else:
            out[f"{prefix}{key}"] = value
    return out


def current() -> dict[str, Any]:
    workload = scenario_workload("seed-experiment")
    metrics = compare(workload, ["kube-default"])["kube-default"].to_json()
    kept = {k: metrics[k] for k in KEY_METRICS}
    return {"scenario": workload.name, "seed": workload.seed, "scheduler": "kube-default", "metrics": kept}


def test_seed_experiment_kube_default_matches_golden() -> None:
    got = current()
    if os.environ.get("AESP_REGOLD") == "1":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(got, indent=2, sort_keys=True) + "\n")
        pytest.skip(f"golden file rewritten: {GOLDEN}")
    want = json.loads(GOLDEN.read_text())
    assert (got["scenario"], got["seed"]) == (want["scenario"], want["seed"])
    flat_got, flat_want = flatten(got["metrics"]), flatten(want["metrics"])
    assert flat_got.keys() == flat_want.keys(), "KEY_METRICS changed: regenerate the golden file"
    mismatches = []
    for key, expected in flat_want.items():
        value = flat_got[key]
        if isinstance(expected, float) and isinstance(value, float):
            ok = math.isclose(value, expected, rel_tol=REL, abs_tol=1e-12)
        else:
            ok = value == expected
        if not ok:
            mismatches.append(f"{key}: got {value!r}, golden {expected!r}")
    assert not mismatches, "golden metrics changed (AESP_REGOLD=1 to accept):\n" + "\n".join(mismatches)
