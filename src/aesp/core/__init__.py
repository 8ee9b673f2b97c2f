"""The core model: resources, nodes, tasks, topology, snapshots and decisions (numpy only)."""

from aesp.core.cluster import ACCELERATOR_KINDS, ARCHES, AcceleratorKind, Node
from aesp.core.decision import Binding, Code, Decision, Scheduler, Status
from aesp.core.fit import binding_fits, gpu_fit, pick_gpus, resource_fit
from aesp.core.resources import (
    CPU,
    GPU,
    MEM,
    MILLI_PER_GPU,
    N_RESOURCES,
    RESOURCE_NAMES,
    Request,
)
from aesp.core.snapshot import ClusterSnapshot, NodeTable
from aesp.core.topology import TIERS, Link, Site, Tier, Topology
from aesp.core.workload import TASK_CLASSES, Task, TaskClass

__all__ = [
    "ACCELERATOR_KINDS",
    "ARCHES",
    "CPU",
    "GPU",
    "MEM",
    "MILLI_PER_GPU",
    "N_RESOURCES",
    "RESOURCE_NAMES",
    "TASK_CLASSES",
    "TIERS",
    "AcceleratorKind",
    "Binding",
    "ClusterSnapshot",
    "Code",
    "Decision",
    "Link",
    "Node",
    "NodeTable",
    "Request",
    "Scheduler",
    "Site",
    "Status",
    "Task",
    "TaskClass",
    "Tier",
    "Topology",
    "binding_fits",
    "gpu_fit",
    "pick_gpus",
    "resource_fit",
]
