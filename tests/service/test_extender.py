"""The extender verbs over HTTP, with the framework's filters and scores deciding."""

from __future__ import annotations

from typing import Any

import pytest
from tests.service.conftest import settings
from tests.service.kubeobjects import kube_node, kube_pod


def args(pod: dict[str, Any], nodes: list[dict[str, Any]]) -> dict[str, Any]:
    return {"Pod": pod, "Nodes": {"metadata": {}, "items": nodes}, "NodeNames": None}


NODES = [
    kube_node("small", cpu="1", memory="2Gi"),
    kube_node("big", cpu="16", memory="64Gi"),
    kube_node("arm", cpu="16", memory="64Gi", arch="arm64"),
    kube_node("gpu", cpu="16", memory="64Gi", gpus=2, gpu_product="A100"),
]


def test_filter_reports_the_failing_plugin_per_node(client: Any) -> None:
    pod = kube_pod(containers=[{"cpu": "2", "memory": "1Gi"}],
                   node_selector={"kubernetes.io/arch": "amd64"})
    out = client.post("/scheduler/filter", json=args(pod, NODES)).json()
    assert [n["metadata"]["name"] for n in out["Nodes"]["items"]] == ["big", "gpu"]
    assert out["FailedNodes"] == {"small": "AESP NodeResourcesFit", "arm": "AESP NodeArch"}
    assert out["FailedAndUnresolvableNodes"] == {} and out["Error"] == ""
    assert out["NodeNames"] is None


def test_unresolvable_pod_fails_every_node_for_good(client: Any) -> None:
    pod = kube_pod(containers=[{"cpu": "64"}])  # larger than any node
    out = client.post("/scheduler/filter", json=args(pod, NODES[:2])).json()
    assert out["Nodes"]["items"] == []
    assert set(out["FailedAndUnresolvableNodes"]) == {"small", "big"}
    assert "larger than any node" in out["FailedAndUnresolvableNodes"]["big"]


def test_node_cache_capable_mode_resolves_names(client: Any) -> None:
    client.post("/scheduler/filter", json=args(kube_pod(), NODES))  # fills the node cache
    pod = kube_pod(containers=[{"cpu": "2"}])
    out = client.post("/scheduler/filter",
                      json={"pod": pod, "nodenames": ["small", "big", "n-dc", "ghost"]}).json()
    assert out["NodeNames"] == ["big", "n-dc"] and out["Nodes"] is None
    assert out["FailedNodes"] == {"small": "AESP NodeResourcesFit",
                                  "ghost": "node unknown to the AESP node cache"}


def test_prioritize_scores_in_0_to_10_and_zero_for_infeasible(client: Any) -> None:
    pod = kube_pod(containers=[{"cpu": "1500m", "memory": "1Gi"}])
    out = client.post("/scheduler/prioritize", json=args(pod, NODES)).json()
    assert [h["Host"] for h in out] == ["small", "big", "arm", "gpu"]
    scores = {h["Host"]: h["Score"] for h in out}
    assert all(0 <= s <= 10 for s in scores.values())
    assert scores["small"] == 0             # does not fit: 1.5 cores on a 1-core node
    assert scores["big"] >= 8               # LeastAllocated + Balanced on a nearly empty node


def test_malformed_payloads_get_a_clear_error(client: Any) -> None:
    assert client.post("/scheduler/filter", content=b"{nope").status_code == 400
    out = client.post("/scheduler/filter", json={"Nodes": {"items": []}}).json()
    assert out["Error"] == "ExtenderArgs.Pod is missing or not an object"
    resp = client.post("/scheduler/prioritize", json={"Pod": {}})
    assert resp.status_code == 400 and "Nodes or NodeNames" in resp.json()["detail"]


class FakeCoreV1:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[str, Any, dict[str, Any]]] = []
        self.fail = fail

    def create_namespaced_binding(self, namespace: str, body: Any, **kw: Any) -> None:
        if self.fail:
            raise RuntimeError("pods \"p\" not found")
        self.calls.append((namespace, body, kw))


class FakeBinder:
    def __init__(self, api: FakeCoreV1) -> None:
        self.api = api

    def bind(self, namespace: str, name: str, uid: str, node: str) -> None:
        from aesp.service.extender import KubeBinder

        KubeBinder.bind_with(self.api, namespace, name, uid, node)


def test_bind_creates_a_v1_binding_and_records_it(make_client: Any) -> None:
    api = FakeCoreV1()
    client = make_client(settings(), binder=FakeBinder(api))
    pod = kube_pod(containers=[{"cpu": "2", "memory": "1Gi"}])
    client.post("/scheduler/filter", json=args(pod, NODES))
    out = client.post("/scheduler/bind", json={"PodName": "p", "PodNamespace": "ns",
                                               "PodUID": "uid-p", "Node": "big"}).json()
    assert out == {"Error": ""}
    namespace, body, kw = api.calls[0]
    assert namespace == "ns" and kw == {"_preload_content": False}
    assert (body.metadata.name, body.metadata.uid) == ("p", "uid-p")
    assert (body.target.kind, body.target.name, body.target.api_version) == ("Node", "big", "v1")
    bindings = client.get("/v1/bindings").json()
    assert bindings[0]["task"] == "ns/p" and bindings[0]["cpu_milli"] == 2000
    big = next(n for n in client.get("/v1/nodes").json() if n["name"] == "big")
    assert big["allocated"]["cpu_milli"] == 2000    # the next snapshot counts the bound pod
    assert client.get("/v1/decisions").json()[0]["outcome"] == "bound"


def test_bind_failure_is_returned_as_error(make_client: Any) -> None:
    client = make_client(settings(), binder=FakeBinder(FakeCoreV1(fail=True)))
    out = client.post("/scheduler/bind", json={"podname": "p", "node": "big"}).json()
    assert "not found" in out["Error"]
    assert client.get("/v1/bindings").json() == []


@pytest.mark.parametrize("prefix", ["/aesp/v1/extender"])
def test_url_prefix_is_configurable(make_client: Any, prefix: str) -> None:
    s = settings(extender={"url_prefix": prefix})
    client = make_client(s)
    assert client.post(f"{prefix}/filter", json=args(kube_pod(), NODES[:1])).status_code == 200
    assert client.post("/scheduler/filter", json={}).status_code == 404
