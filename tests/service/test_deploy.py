"""deploy/kubernetes validated offline: YAML parses, objects match the Kubernetes client models'
attribute maps, and the scheduler config's extender points at routes the service has."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import kubernetes.client as k8s
import pytest
import yaml

from aesp.service.settings import ServiceSettings

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "kubernetes"
MODELS = {
    ("v1", "Namespace"): k8s.V1Namespace,
    ("v1", "ServiceAccount"): k8s.V1ServiceAccount,
    ("v1", "ConfigMap"): k8s.V1ConfigMap,
    ("v1", "Service"): k8s.V1Service,
    ("v1", "PersistentVolumeClaim"): k8s.V1PersistentVolumeClaim,
    ("apps/v1", "Deployment"): k8s.V1Deployment,
    ("apps/v1", "DaemonSet"): k8s.V1DaemonSet,
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): k8s.V1ClusterRole,
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): k8s.V1ClusterRoleBinding,
}
EXTENDER_FIELDS = {
    "urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight", "bindVerb",
    "enableHTTPS", "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources", "ignorable",
}


def documents() -> list[dict[str, Any]]:
    docs = []
    for path in sorted(DEPLOY.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


def model_type(type_name: str) -> Any:
    return getattr(k8s, type_name, None)


def check(obj: Any, type_name: str, where: str) -> list[str]:
    """Unknown fields and wrong shapes against the client's ``openapi_types``/``attribute_map``."""
    if type_name.lower().startswith("list["):
        if not isinstance(obj, list):
            return [f"{where}: expected a list"]
        return [e for i, x in enumerate(obj) for e in check(x, type_name[5:-1], f"{where}[{i}]")]
    if type_name.lower().startswith(("dict(", "dict[")):
        if not isinstance(obj, dict):
            return [f"{where}: expected a mapping"]
        inner = type_name[type_name.index(",") + 1:-1].strip()
        return [e for k, v in obj.items() for e in check(v, inner, f"{where}.{k}")]
    cls = model_type(type_name)
    if cls is None:
        return []  # scalars and free-form objects
    if not isinstance(obj, dict):
        return [f"{where}: expected an object of {type_name}"]
    by_json = {json: attr for attr, json in cls.attribute_map.items()}
    errors = [f"{where}.{k}: not a field of {type_name}" for k in obj if k not in by_json]
    for k, v in obj.items():
        if k in by_json:
            errors += check(v, cls.openapi_types[by_json[k]], f"{where}.{k}")
    return errors


def test_every_object_matches_the_kubernetes_models() -> None:
    docs = documents()
    kinds = {d["kind"] for d in docs}
    assert {"Deployment", "Service", "DaemonSet", "ServiceAccount", "ClusterRole",
            "ClusterRoleBinding", "KubeSchedulerConfiguration"} <= kinds
    for doc in docs:
        if doc["kind"] == "KubeSchedulerConfiguration":
            continue
        cls = MODELS[(doc["apiVersion"], doc["kind"])]
        assert doc["metadata"]["name"]
        assert check(doc, cls.__name__, doc["kind"]) == []


def test_the_checker_catches_mistakes() -> None:
    bad = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"},
           "spec": {"replica": 1, "template": {"spec": {"containers": [{"name": "c", "imag": "i"}]}}}}
    errors = check(bad, "V1Deployment", "Deployment")
    assert "Deployment.spec.replica: not a field of V1DeploymentSpec" in errors
    assert "Deployment.spec.template.spec.containers[0].imag: not a field of V1Container" in errors


def by_kind(kind: str) -> dict[str, Any]:
    return next(d for d in documents() if d["kind"] == kind)


def test_rbac_allows_binding_pods() -> None:
    rules = by_kind("ClusterRole")["rules"]
    assert any("pods/binding" in r["resources"] and "create" in r["verbs"] for r in rules)
    assert any("nodes" in r["resources"] and "list" in r["verbs"] for r in rules)


def test_scheduler_config_points_at_the_service_routes(client: Any) -> None:
    cfg = by_kind("KubeSchedulerConfiguration")
    assert cfg["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    (extender,) = cfg["extenders"]
    assert set(extender) <= EXTENDER_FIELDS
    assert extender["enableHTTPS"] is True and extender["ignorable"] is True
    assert extender["managedResources"] == [{"name": "nvidia.com/gpu", "ignoredByScheduler": False}]
    assert extender["weight"] >= 1
    url = urlsplit(extender["urlPrefix"])
    assert url.scheme == "https"
    # host and port: the Service, whose targetPort is the container port serve listens on
    service, deployment = by_kind("Service"), by_kind("Deployment")
    assert url.hostname == f"{service['metadata']['name']}.{service['metadata']['namespace']}.svc"
    (port,) = service["spec"]["ports"]
    assert url.port == port["port"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    (cport,) = container["ports"]
    assert port["targetPort"] == cport["name"] and str(cport["containerPort"]) in container["args"]
    # path: the configured url_prefix, and every verb is a route of the app
    cm = yaml.safe_load(by_kind("ConfigMap")["data"]["config.yaml"])
    served = ServiceSettings.model_validate(cm)
    assert url.path == served.extender.url_prefix
    paths = set(client.get("/openapi.json").json()["paths"])
    for verb in ("filterVerb", "prioritizeVerb", "bindVerb", "preemptVerb"):
        assert f"{url.path}/{extender[verb]}" in paths
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] in paths


@pytest.mark.parametrize("kind", ["Deployment", "DaemonSet"])
def test_workloads_select_their_pods(kind: str) -> None:
    spec = by_kind(kind)["spec"]
    assert spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()
