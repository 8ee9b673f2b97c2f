"""Agent ingest: auth, validation, size limits, idempotency, all-or-nothing batches."""

from __future__ import annotations

from typing import Any

from tests.service.conftest import AUTH_A, NOW, report, settings


def post(client: Any, reports: list[dict[str, Any]], headers: dict[str, str] = AUTH_A) -> Any:
    return client.post("/v1/reports", json={"schema_version": 1, "reports": reports}, headers=headers)


def stored(client: Any) -> list[dict[str, Any]]:
    return client.get("/v1/reports").json()


def test_batch_is_stored_and_retries_are_idempotent(client: Any) -> None:
    batch = [report("n-edge", 0), report("n-edge", 1, t=NOW + 5, cpu_pct=70.0)]
    assert post(client, batch).json() == {"accepted": 2, "duplicates": 0}
    assert post(client, batch).json() == {"accepted": 0, "duplicates": 2}
    assert [r["seq"] for r in stored(client)] == [0, 1]
    edge = next(n for n in client.get("/v1/nodes").json() if n["name"] == "n-edge")
    assert edge["usage"] == {"cpu_pct": 70.0} and edge["staleness_s"] == -5.0


def test_tokens_are_required_and_bound_to_their_agent(client: Any) -> None:
    assert post(client, [report("n-edge", 0)], headers={}).status_code == 401
    bad = post(client, [report("n-edge", 0)], headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401 and bad.json()["detail"] == "unknown agent token"
    foreign = post(client, [report("n-edge", 0, agent="agent-b")])
    assert foreign.status_code == 403 and "agent-b" in foreign.json()["detail"]
    assert stored(client) == []


def test_one_bad_report_rejects_the_whole_batch(client: Any) -> None:
    batch = [report("n-edge", 0), report("n-edge", 1, cpu_pct=250.0)]
    resp = post(client, batch)
    assert resp.status_code == 422
    assert "reports.1.metrics" in resp.json()["detail"] and "cpu_pct=250" in resp.json()["detail"]
    assert stored(client) == []


def test_wrong_schema_version_and_garbage_are_4xx(client: Any) -> None:
    resp = client.post("/v1/reports", json={"schema_version": 2, "reports": [report("n", 0)]},
                       headers=AUTH_A)
    assert resp.status_code == 422 and "schema_version" in resp.json()["detail"]
    resp = client.post("/v1/reports", content=b"\x00not json", headers=AUTH_A)
    assert resp.status_code == 422 and "invalid report batch" in resp.json()["detail"]


def test_oversized_payloads_and_batches_are_refused(make_client: Any) -> None:
    client = make_client(settings(max_body_bytes=2000, max_batch=3))
    big = post(client, [report("n-edge", i) for i in range(40)])
    assert big.status_code == 413 and "exceeds the limit of 2000 bytes" in big.json()["detail"]
    many = post(client, [report("n-edge", i) for i in range(4)])
    assert many.status_code == 413 and "max_batch=3" in many.json()["detail"]
    assert stored(client) == []


def test_agents_register_their_node(client: Any) -> None:
    body = {"node": {"name": "host-1", "site": "edge-9", "cpu_milli": 8000, "mem_mib": 16000}}
    assert client.post("/v1/nodes", json=body).status_code == 401
    assert client.post("/v1/nodes", json=body, headers=AUTH_A).json() == {
        "node": "host-1", "site": "edge-9"}
    names = {n["name"]: n for n in client.get("/v1/nodes").json()}
    assert names["host-1"]["source"] == "agent" and names["host-1"]["zone"] == "edge-9"
    assert "edge-9" in {s["name"] for s in client.get("/v1/sites").json()}


def test_store_uses_wal(tmp_path: Any, make_client: Any) -> None:
    import sqlite3

    make_client(settings(db_path=str(tmp_path / "cp.db")))
    with sqlite3.connect(tmp_path / "cp.db") as db:  # WAL is a property of the file
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
