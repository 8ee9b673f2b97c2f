"""Readers for the Alibaba OpenB GPU cluster trace (cluster-trace-gpu-v2023).

Source: github.com/alibaba/clusterdata, ``cluster-trace-gpu-v2023/csv/``; cite Weng et al.,
"Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent",
USENIX ATC'23. A node list has the header ``sn,cpu_milli,memory_mib,gpu,model``; a pod list
``name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,
deletion_time,scheduled_time``, or only its first five columns (``openb_pod_list_multigpu50``).

Units: cpu_milli millicores, memory_mib MiB, times seconds. ``gpu_milli`` is the share of *each*
requested GPU (below 1000 only for single-GPU pods), which is exactly :class:`aesp.core.Request`'s
meaning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from aesp.core import MILLI_PER_GPU, Node, Request, Task
from aesp.sim.traces.rows import Header, Row, TracePath, read_rows
from aesp.sim.traces.tasks import in_arrival_order

NODE_COLUMNS: Final[Header] = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
POD_COLUMNS: Final[Header] = (
    "name",
    "cpu_milli",
    "memory_mib",
    "num_gpu",
    "gpu_milli",
    "gpu_spec",
    "qos",
    "pod_phase",
    "creation_time",
    "deletion_time",
    "scheduled_time",
)
POD_COLUMNS_UNTIMED: Final[Header] = POD_COLUMNS[:5]
"""The ``multigpu50`` variant: resources only, no QoS and no times."""

QOS_PRIORITY: Final[Mapping[str, int]] = {"LS": 1, "Guaranteed": 1, "Burstable": 0, "BE": 0}
"""Task priority per Kubernetes/Alibaba QoS class: latency-sensitive pods go first."""

MIN_WORK_S: Final = 1.0
"""Shortest run time given to a pod, so that a pod deleted as it started still does work."""


def read_openb_nodes(path: TracePath, site: str = "openb") -> list[Node]:
    """Read an OpenB node list into nodes on one site.

    Every node is ``x86_64``; a node with GPUs gets ``gpu_model`` from ``model`` and
    ``accel_kind="gpu"``. A ``model`` on a node without GPUs is ignored.

    Args:
        path: ``openb_node_list_*.csv``, plain or gzip.
        site: the site every node is on.

    Raises:
        TraceError: a malformed file, a bad value or a duplicate node name (file and line named).
    """
    nodes: list[Node] = []
    seen: set[str] = set()
    for row in read_rows(path, (NODE_COLUMNS,), "an OpenB node list"):
        node = _node(row, site)
        if node.name in seen:
            raise row.error(f"duplicate node name {node.name!r}")
        seen.add(node.name)
        nodes.append(node)
    return nodes


def _node(row: Row, site: str) -> Node:
    name, gpus = _name(row, "sn"), row.whole("gpu")
    cpu_milli, mem_mib = row.number("cpu_milli"), row.number("memory_mib")
    model = row.text("model") if gpus else ""
    try:
        return Node(
            name=name,
            site=site,
            cpu_milli=cpu_milli,
            mem_mib=mem_mib,
            gpu_count=gpus,
            gpu_model=model,
            accel_kind="gpu" if gpus else "none",
        )
    except ValueError as e:
        raise row.error(str(e)) from None


def read_openb_pods(path: TracePath, default_work_s: float = 3600.0) -> list[Task]:
    """Read an OpenB pod list into tasks, in arrival order.

    A pod arrives at its ``creation_time`` less the file's earliest one. Its work (run time at
    reference speed) is ``deletion_time - scheduled_time``, or ``deletion_time - creation_time``
    for a pod never scheduled, and at least :data:`MIN_WORK_S`. Pods with GPUs are ``training``
    tasks, the others ``batch``; priority comes from :data:`QOS_PRIORITY`; ``gpu_spec`` (models
    separated by ``|``) becomes ``gpu_models``; ``qos`` and ``pod_phase`` are kept as labels.
    Ids number the tasks in arrival order; names are the pod names.

    Args:
        path: ``openb_pod_list_*.csv``, plain or gzip.
        default_work_s: arrival 0 and this work for every pod of a file without times
            (``openb_pod_list_multigpu50.csv``).

    Raises:
        TraceError: a malformed file or a bad value (file and line named).
        ValueError: ``default_work_s`` is not positive.
    """
    if not default_work_s > 0:
        raise ValueError(f"default_work_s must be positive, got {default_work_s}")
    rows = read_rows(path, (POD_COLUMNS, POD_COLUMNS_UNTIMED), "an OpenB pod list")
    return in_arrival_order([_pod(row, default_work_s) for row in rows])


def _pod(row: Row, default_work_s: float) -> Task:
    request = _pod_request(row)
    timed = row.has("creation_time")
    arrival_s, work = _pod_times(row) if timed else (0.0, default_work_s)
    qos = row.text("qos") if timed else ""
    return Task(
        id=0,
        name=_name(row, "name"),
        task_class="training" if request.gpu_count else "batch",
        request=request,
        arrival_s=arrival_s,
        work=work,
        gpu_models=_gpu_models(row),
        priority=_priority(row, qos) if timed else 0,
        labels=(("qos", qos), ("pod_phase", row.text("pod_phase"))) if timed else (),
    )


def _pod_request(row: Row) -> Request:
    cpu_milli, mem_mib = row.number("cpu_milli"), row.number("memory_mib")
    num_gpu, gpu_milli = row.whole("num_gpu"), row.whole("gpu_milli")
    if num_gpu == 0 and gpu_milli != 0:
        raise row.error(f"gpu_milli {gpu_milli} without GPUs (num_gpu is 0)")
    if num_gpu > 0 and not 0 < gpu_milli <= MILLI_PER_GPU:
        raise row.error(f"gpu_milli {gpu_milli} is outside 1..{MILLI_PER_GPU} for a GPU pod")
    if num_gpu > 1 and gpu_milli != MILLI_PER_GPU:
        raise row.error(
            f"gpu_milli {gpu_milli} with num_gpu {num_gpu}: multi-GPU pods take whole GPUs"
        )
    return Request(cpu_milli=cpu_milli, mem_mib=mem_mib, gpu_count=num_gpu, gpu_milli=gpu_milli)


def _pod_times(row: Row) -> tuple[float, float]:
    """``(creation_time, work)`` of a pod."""
    created, deleted = row.number("creation_time"), row.number("deletion_time")
    scheduled = row.optional_number("scheduled_time")
    if deleted < created:
        raise row.error(
            f"deletion_time {row.text('deletion_time')} is before "
            f"creation_time {row.text('creation_time')}"
        )
    if scheduled is not None and not created <= scheduled <= deleted:
        raise row.error(
            f"scheduled_time {row.text('scheduled_time')} is outside creation_time.."
            f"deletion_time ({row.text('creation_time')}..{row.text('deletion_time')})"
        )
    start = created if scheduled is None else scheduled
    return created, max(MIN_WORK_S, deleted - start)


def _gpu_models(row: Row) -> tuple[str, ...]:
    if not row.has("gpu_spec"):
        return ()
    return tuple(m.strip() for m in row.text("gpu_spec").split("|") if m.strip())


def _priority(row: Row, qos: str) -> int:
    if qos not in QOS_PRIORITY:
        raise row.error(f"unknown qos {qos!r}; known: {', '.join(QOS_PRIORITY)}")
    return QOS_PRIORITY[qos]


def _name(row: Row, column: str) -> str:
    name = row.text(column)
    if not name:
        raise row.error(f"{column} is empty")
    return name


__all__ = [
    "NODE_COLUMNS",
    "POD_COLUMNS",
    "POD_COLUMNS_UNTIMED",
    "QOS_PRIORITY",
    "read_openb_nodes",
    "read_openb_pods",
]
