"""Shared fixtures for the control-plane tests: settings, an in-process client, free ports."""

from __future__ import annotations

import socket
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from aesp.service.app import create_app
from aesp.service.settings import ServiceSettings

with warnings.catch_warnings():
    # starlette warns at import that its TestClient will move to httpx2; not our code
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

TOKENS = {"agent-a": "token-a", "agent-b": "token-b"}
AUTH_A = {"Authorization": "Bearer token-a"}
NOW = 1_700_000_000.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def settings(**overrides: Any) -> ServiceSettings:
    base: dict[str, Any] = {
        "db_path": ":memory:",
        "agent_tokens": TOKENS,
        "sites": [
            {"name": "edge-1", "region": "eu", "zone": "eu-a", "tier": "edge", "jurisdiction": "EU"},
            {"name": "dc-1", "region": "us", "zone": "us-a", "jurisdiction": "US"},
        ],
        "links": [{"a": "edge-1", "b": "dc-1", "rtt_ms": 40, "bandwidth_mbps": 1000}],
        "nodes": [
            {"name": "n-edge", "site": "edge-1", "cpu_milli": 4000, "mem_mib": 8192, "arch": "arm64"},
            {"name": "n-dc", "site": "dc-1", "cpu_milli": 32000, "mem_mib": 131072,
             "gpu_count": 2, "gpu_model": "A100"},
        ],
    }
    base.update(overrides)
    return ServiceSettings.model_validate(base)


def report(node: str, seq: int, agent: str = "agent-a", t: float = NOW, **metrics: float) -> dict[str, Any]:
    return {"agent_id": agent, "node": node, "seq": seq, "time_s": t,
            "metrics": metrics or {"cpu_pct": 10.0}}


@pytest.fixture
def make_client() -> Iterator[Callable[..., TestClient]]:
    clients: list[TestClient] = []

    def make(s: ServiceSettings | None = None, **kw: Any) -> TestClient:
        kw.setdefault("clock", lambda: NOW)
        client = TestClient(create_app(s or settings(), **kw))
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for c in clients:
        c.__exit__(None, None, None)


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()
