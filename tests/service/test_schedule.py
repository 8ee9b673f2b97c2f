"""POST /v1/schedule runs the decision core on the service's snapshot; ops endpoints."""

from __future__ import annotations

from typing import Any

from tests.service.conftest import settings


def test_schedule_binds_and_later_snapshots_see_the_allocation(client: Any) -> None:
    tasks = [
        {"name": "train", "task_class": "training", "cpu_milli": 8000, "mem_mib": 4096,
         "gpu_count": 1},
        {"name": "edge-only", "cpu_milli": 1000, "mem_mib": 512, "arches": ["arm64"]},
        {"name": "eu-data", "cpu_milli": 500, "mem_mib": 256, "allowed_jurisdictions": ["EU"]},
        {"name": "huge", "cpu_milli": 1e6, "mem_mib": 1},
    ]
    out = client.post("/v1/schedule", json={"tasks": tasks}).json()
    placed = {b["task"]: (b["node"], b["gpus"]) for b in out["bindings"]}
    assert placed == {"train": ("n-dc", [0]), "edge-only": ("n-edge", []), "eu-data": ("n-edge", [])}
    assert out["unscheduled"] == [{"task": "huge", "code": "UNRESOLVABLE",
                                   "plugin": "NodeResourcesFit", "reasons": ["larger than any node"]}]
    assert out["profile"] == "kube-default" and out["solver"] == "sequential"
    dc = next(n for n in client.get("/v1/nodes").json() if n["name"] == "n-dc")
    assert dc["allocated"] == {"cpu_milli": 8000, "mem_mib": 4096, "gpu_milli": 1000}
    again = client.post("/v1/schedule", json={"tasks": tasks[:1]})
    assert again.status_code == 409 and "already bound" in again.json()["detail"]
    assert client.delete("/v1/bindings/train").json() == {"released": "train"}
    assert {d["task"] for d in client.get("/v1/decisions").json()} >= {"train", "huge"}


def test_dry_run_records_nothing_and_profiles_are_selectable(client: Any) -> None:
    body = {"tasks": [{"name": "a", "cpu_milli": 100, "mem_mib": 10}], "dry_run": True,
            "profile": "best-fit"}
    out = client.post("/v1/schedule", json=body).json()
    assert out["profile"] == "best-fit" and len(out["bindings"]) == 1
    assert client.get("/v1/bindings").json() == []
    bad = client.post("/v1/schedule", json={**body, "profile": "nope"})
    assert bad.status_code == 400 and "unknown scheduler" in bad.json()["detail"]


def test_schedule_validates_input(make_client: Any) -> None:
    client = make_client(settings(nodes=[]))
    task = {"name": "a", "cpu_milli": 1, "mem_mib": 1}
    assert client.post("/v1/schedule", json={"tasks": [task]}).json() == {"detail": "no nodes registered"}
    dup = client.post("/v1/schedule", json={"tasks": [task, task]})
    assert dup.status_code == 422 and "duplicate" in dup.json()["detail"]
    frac = client.post("/v1/schedule", json={"tasks": [{**task, "gpu_count": 2, "gpu_milli": 500}]})
    assert frac.status_code == 422 and "whole GPUs" in frac.json()["detail"]


def test_ops_endpoints(client: Any) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ready", "nodes": 2}
    client.post("/v1/schedule", json={"tasks": [{"name": "a", "cpu_milli": 1, "mem_mib": 1}]})
    text = client.get("/metrics").text
    assert 'aesp_schedule_tasks_total{outcome="bound"} 1.0' in text
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/v1/reports", "/v1/schedule", "/v1/nodes", "/v1/sites", "/scheduler/filter",
            "/scheduler/prioritize", "/scheduler/bind", "/scheduler/preempt"} <= set(paths)
    schema = paths["/v1/reports"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert "reports" in schema["properties"]
    assert "AESP control plane" in client.get("/").text
    assert client.get("/static/dashboard.js").headers["content-type"].startswith("text/javascript")
