"""Fuzzing: hypothesis-generated JSON against every POST endpoint; no answer may be a 5xx.

Payloads are arbitrary JSON, and valid payloads with one value replaced by arbitrary JSON (so
the fuzzing also reaches past the first validation layer). The default run is bounded (about
10 s); ``-m slow`` runs the long variant.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.service.conftest import AUTH_A, NOW, report
from tests.service.conftest import settings as service_settings
from tests.service.kubeobjects import kube_node, kube_pod

from aesp.service.app import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


class NoBinder:
    def bind(self, namespace: str, name: str, uid: str, node: str) -> None:
        if name.startswith("fail"):
            raise RuntimeError("refused")


NODES = [kube_node("k1", gpus=2, gpu_product="A100"), kube_node("k2", arch="arm64")]
VALID: dict[str, Any] = {
    "/v1/reports": {"schema_version": 1, "reports": [report("n-edge", 1)]},
    "/v1/nodes": {"node": {"name": "fz", "site": "edge-1", "cpu_milli": 1000, "mem_mib": 512},
                  "site": {"name": "edge-1"}},
    "/v1/schedule": {"tasks": [{"name": "t", "cpu_milli": 100, "mem_mib": 64, "gpu_count": 1}],
                     "dry_run": True},
    "/scheduler/filter": {"Pod": kube_pod(containers=[{"cpu": "1", "nvidia.com/gpu": "1"}]),
                          "Nodes": {"items": NODES}, "NodeNames": None},
    "/scheduler/prioritize": {"Pod": kube_pod(), "NodeNames": ["n-edge", "n-dc", "k1"]},
    "/scheduler/bind": {"PodName": "p", "PodNamespace": "ns", "PodUID": "u", "Node": "k1"},
    "/scheduler/preempt": {"Pod": kube_pod(), "NodeNameToVictims": {
        "k1": {"Pods": [kube_pod(uid="v1")], "NumPDBViolations": 0}},
        "NodeNameToMetaVictims": None},
}
ENDPOINTS = sorted(VALID)

scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20)
           | st.sampled_from(["1", "500m", "1e3", "-1", "1Ki", "99999999999999Ei", "0.1", "",
                              "True", "Always", "amd64", "n-dc", "edge-1", "nan"]))
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                max_size=4),
    max_leaves=12,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return copy


@st.composite
def payloads(draw: st.DrawFn) -> tuple[str, bytes]:
    endpoint = draw(st.sampled_from(ENDPOINTS))
    kind = draw(st.sampled_from(["mutated", "mutated", "mutated", "arbitrary", "bytes"]))
    if kind == "bytes":
        return endpoint, draw(st.binary(max_size=64))
    if kind == "arbitrary":
        return endpoint, json.dumps(draw(json_values)).encode()
    valid = VALID[endpoint]
    path = draw(st.sampled_from(list(_paths(valid))))
    return endpoint, json.dumps(_replace(valid, path, draw(json_values))).encode()


@pytest.fixture(scope="module")
def fuzz_client() -> Iterator[TestClient]:
    app = create_app(service_settings(), clock=lambda: NOW, binder=NoBinder())
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def _check(client: TestClient, endpoint: str, body: bytes) -> None:
    headers = {**AUTH_A, "Content-Type": "application/json"}
    resp = client.post(endpoint, content=body, headers=headers)
    assert resp.status_code < 500, (endpoint, body[:2000], resp.status_code, resp.text[:500])


def test_valid_payloads_are_accepted(fuzz_client: TestClient) -> None:
    for endpoint in ENDPOINTS:
        resp = fuzz_client.post(endpoint, json=VALID[endpoint], headers=AUTH_A)
        assert resp.status_code == 200, (endpoint, resp.text)


@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(payloads())
def test_no_5xx_on_fuzzed_posts(fuzz_client: TestClient, case: tuple[str, bytes]) -> None:
    _check(fuzz_client, *case)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(payloads())
def test_no_5xx_on_fuzzed_posts_long(fuzz_client: TestClient, case: tuple[str, bytes]) -> None:
    _check(fuzz_client, *case)
