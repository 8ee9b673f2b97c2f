"""Wire compatibility with k8s.io/kube-scheduler/extender/v1.

The JSON strings below are the fixtures of that package's ``TestCompatibility`` (types_test.go):
what Go's ``json.Marshal`` produces for each type, which must also decode when lowercased.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from aesp.service.extender import (
    ExtenderArgs,
    binding_args,
    extender_priority,
    filter_result,
    host_priority,
)
from aesp.service.kube import field, name_of

NODE_JSON = (
    '{"metadata":{"name":"nodename","creationTimestamp":null},"spec":{},"status":{"daemonEndpoints":'
    '{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"machineID":"","systemUUID":"","bootID":"",'
    '"kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"",'
    '"kubeProxyVersion":"","operatingSystem":"","architecture":""}}}'
)
POD_JSON = '{"metadata":{"name":"podname","creationTimestamp":null},"spec":{"containers":null},"status":{}}'
EXTENDER_ARGS = f'{{"Pod":{POD_JSON},"Nodes":{{"metadata":{{}},"items":[{NODE_JSON}]}},"NodeNames":["node1"]}}'
FILTER_RESULT = (
    f'{{"Nodes":{{"metadata":{{}},"items":[{NODE_JSON}]}},"NodeNames":["node1"],'
    '"FailedNodes":{"foo":"bar"},"FailedAndUnresolvableNodes":{"baz":"qux"},"Error":"myerror"}'
)
BINDING_ARGS = '{"PodName":"mypodname","PodNamespace":"mypodnamespace","PodUID":"mypoduid","Node":"mynode"}'
BINDING_RESULT = '{"Error":"myerror"}'
HOST_PRIORITY = '{"Host":"myhost","Score":1}'
PREEMPTION_RESULT = '{"NodeNameToMetaVictims":{"foo":{"Pods":[{"UID":"myuid"}],"NumPDBViolations":1}}}'
PREEMPTION_ARGS = (
    f'{{"Pod":{POD_JSON},"NodeNameToVictims":{{"foo":{{"Pods":[{POD_JSON}],"NumPDBViolations":1}}}},'
    '"NodeNameToMetaVictims":{"foo":{"Pods":[{"UID":"myuid"}],"NumPDBViolations":1}}}'
)


def go_json(obj: Any) -> str:
    """Encode as Go's encoding/json does: no spaces, insertion order."""
    return json.dumps(obj, separators=(",", ":"))


@pytest.mark.parametrize("text", [EXTENDER_ARGS, EXTENDER_ARGS.lower()])
def test_extender_args_decode_in_any_case(text: str) -> None:
    args = ExtenderArgs.parse(json.loads(text))
    assert name_of(args.pod) == "podname"
    assert args.nodes is not None and [name_of(n) for n in args.nodes] == ["nodename"]
    assert args.node_names == ["node1"]


def test_filter_result_encodes_like_go() -> None:
    nodes = {"metadata": {}, "items": [json.loads(NODE_JSON)]}
    out = filter_result(nodes=nodes, node_names=["node1"], failed={"foo": "bar"},
                        unresolvable={"baz": "qux"}, error="myerror")
    assert go_json(out) == FILTER_RESULT


def test_filter_result_nil_fields_are_null() -> None:
    assert go_json(filter_result(node_names=["a"])) == (
        '{"Nodes":null,"NodeNames":["a"],"FailedNodes":null,'
        '"FailedAndUnresolvableNodes":null,"Error":""}'
    )


def test_host_priority_and_binding_result_encode_like_go() -> None:
    assert go_json(host_priority("myhost", 1)) == HOST_PRIORITY
    assert go_json({"Error": "myerror"}) == BINDING_RESULT


@pytest.mark.parametrize("text", [BINDING_ARGS, BINDING_ARGS.lower()])
def test_binding_args_decode_in_any_case(text: str) -> None:
    args = binding_args(json.loads(text))
    assert not isinstance(args, str)
    # lowercasing the fixture lowercases the values too; they are all lowercase already
    assert (args.pod, args.namespace, args.uid, args.node) == (
        "mypodname", "mypodnamespace", "mypoduid", "mynode")


def test_binding_args_without_node_is_an_error() -> None:
    assert binding_args({"PodName": "p"}) == "ExtenderBindingArgs needs PodName and Node"


@pytest.mark.parametrize("text", [FILTER_RESULT, FILTER_RESULT.lower()])
def test_filter_result_fixture_decodes_case_insensitively(text: str) -> None:
    obj = json.loads(text)
    assert field(obj, "FailedNodes") == {"foo": "bar"}
    assert field(obj, "FailedAndUnresolvableNodes") == {"baz": "qux"}
    assert field(obj, "Error") == "myerror"


def test_preempt_returns_meta_victims(client: Any) -> None:
    out = client.post("/scheduler/preempt", content=PREEMPTION_ARGS).json()
    assert go_json(out) == PREEMPTION_RESULT
    victims_only = json.loads(PREEMPTION_ARGS)
    del victims_only["NodeNameToMetaVictims"]
    victims_only["NodeNameToVictims"]["foo"]["Pods"][0]["metadata"]["uid"] = "myuid"
    assert go_json(client.post("/scheduler/preempt", json=victims_only).json()) == PREEMPTION_RESULT


@pytest.mark.parametrize(
    ("weighted", "total", "expected"),
    [
        ([140.0, 0.0, 200.0], 2.0, [7, 0, 10]),  # 140/2 = 70 -> 7; 200/2 = 100 -> 10
        ([45.0], 1.0, [4]),                       # 45 -> 4.5 rounds half to even -> 4
        ([55.0], 1.0, [6]),                       # 55 -> 5.5 -> 6
        ([80.0], 0.0, [0]),                       # no weights: no opinion
    ],
)
def test_extender_priority_scales_0_to_10(weighted: list[float], total: float, expected: list[int]) -> None:
    import numpy as np

    assert extender_priority(np.array(weighted), total).tolist() == expected
