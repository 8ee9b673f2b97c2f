"""The placement benchmark: same pods, same cluster, every profile accounted for."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from aesp.cli.bench import app
from aesp.experiments.bench import placement_bench, synthetic_cluster, synthetic_pods


def test_synthetic_cluster_is_heterogeneous_and_seeded() -> None:
    a, b = synthetic_cluster(300, seed=3), synthetic_cluster(300, seed=3)
    assert a.names == b.names
    assert (a.capacity == b.capacity).all()
    assert len(set(a.arch.tolist())) == 2 and len(a.gpu_models) > 2
    pods = synthetic_pods(50, a, seed=3)
    assert len({p.request.gpu_count for p in pods}) > 1


def test_bench_document_shape_and_accounting() -> None:
    doc = placement_bench(200, 120, ["kube-default", "aesp"], seed=1)
    assert doc["nodes"] == 200 and doc["pods"] == 120
    for name in ("kube-default", "aesp"):
        r = doc["results"][name]
        assert 0 < r["placed"] <= 120
        assert r["pods_per_s"] > 0 and r["p99_decision_ms"] >= r["p50_decision_ms"] > 0
    assert doc["results"]["kube-default"]["calls"] == 120  # one pod per call
    assert doc["results"]["aesp"]["calls"] == 1  # one batch of up to 256


def test_cli_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    result = CliRunner().invoke(app, ["placement", "--nodes", "150", "--pods", "60", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert set(json.loads(out.read_text())["results"]) == {"kube-default", "aesp"}
