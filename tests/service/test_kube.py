from decimal import Decimal

import pytest
from tests.service.kubeobjects import kube_node, kube_pod

from aesp.service.kube import (
    KubeMapping,
    KubeObjectError,
    node_from_kube,
    pod_requests,
    pod_to_task,
)

MAPPING = KubeMapping()


def test_pod_requests_sum_containers_and_take_init_max() -> None:
    pod = kube_pod(
        containers=[{"cpu": "500m", "memory": "1Gi"}, {"cpu": "1", "memory": "512Mi"}],
        init=[{"cpu": "2", "memory": "128Mi"}, {"cpu": "100m", "memory": "4Gi"}],
    )
    req = pod_requests(pod)
    assert req["cpu"] == Decimal(2)               # max(0.5 + 1, init 2, init 0.1) = 2
    assert req["memory"] == Decimal(4 * 2**30)    # max(1.5 GiB, 128 MiB, 4 GiB) = 4 GiB


def test_sidecar_init_containers_add_to_the_sum() -> None:
    pod = kube_pod(containers=[{"cpu": "1"}], init=[{"cpu": "250m"}])
    pod["spec"]["initContainers"][0]["restartPolicy"] = "Always"
    assert pod_requests(pod)["cpu"] == Decimal("1.25")   # 1 + sidecar 0.25


def test_limits_stand_in_for_missing_requests_and_overhead_adds() -> None:
    pod = kube_pod(containers=[{}])
    pod["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "2", "memory": "1Gi"}}
    pod["spec"]["overhead"] = {"cpu": "100m"}
    req = pod_requests(pod)
    assert req["cpu"] == Decimal("2.1") and req["memory"] == Decimal(2**30)


def test_pod_to_task_maps_gpus_arch_and_annotations() -> None:
    pod = kube_pod(
        containers=[{"cpu": "1500m", "memory": "123Mi", "nvidia.com/gpu": "2"}],
        node_selector={"kubernetes.io/arch": "arm64"},
        annotations={"aesp.io/task-class": "training", "aesp.io/jurisdictions": "EU, US",
                     "aesp.io/gpu-models": "A100"},
    )
    task = pod_to_task(pod, MAPPING)
    assert task.name == "ns/p"
    assert (task.request.cpu_milli, task.request.mem_mib) == (1500, 123)
    assert (task.request.gpu_count, task.request.gpu_milli) == (2, 1000)
    assert task.arches == ("arm64",) and task.gpu_models == ("A100",)
    assert task.allowed_jurisdictions == ("EU", "US") and task.task_class == "training"


def test_pod_with_bad_quantity_names_the_container() -> None:
    with pytest.raises(KubeObjectError, match="c0"):
        pod_to_task(kube_pod(containers=[{"cpu": "lots"}]), MAPPING)


@pytest.mark.parametrize(("kube_arch", "arch"), [("amd64", "x86_64"), ("arm64", "arm64")])
def test_node_labels_map_to_core(kube_arch: str, arch: str) -> None:
    kn = node_from_kube(
        kube_node("n", cpu="3500m", memory="16Gi", arch=kube_arch, zone="eu-b", region="eu",
                  gpus=4, gpu_product="NVIDIA-A100-SXM4-40GB", **{"aesp.io/tier": "edge"}),
        MAPPING,
    )
    assert kn.node.arch == arch
    assert (kn.node.cpu_milli, kn.node.mem_mib, kn.node.gpu_count) == (3500, 16384, 4)
    assert kn.node.gpu_model == "NVIDIA-A100-SXM4-40GB"
    assert (kn.site.name, kn.site.region, kn.site.zone, kn.site.tier) == ("eu-b", "eu", "eu-b", "edge")
    assert kn.ready


def test_gpu_model_label_is_configurable() -> None:
    node = kube_node("n", gpus=1, **{"example.com/gpu-model": "L4"})
    assert node_from_kube(node, KubeMapping(gpu_model_label="example.com/gpu-model")).node.gpu_model == "L4"


def test_unsupported_arch_and_not_ready() -> None:
    with pytest.raises(KubeObjectError, match="s390x"):
        node_from_kube(kube_node("n", arch="s390x"), MAPPING)
    assert not node_from_kube(kube_node("n", ready="False"), MAPPING).ready
