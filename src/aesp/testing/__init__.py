"""Test helpers: fluent builders of nodes, tasks, clusters and snapshots."""

from aesp.testing.builders import (
    DEFAULT_SITE,
    NodeBuilder,
    TaskBuilder,
    chain_topology,
    cluster,
    make_node,
    make_site,
    make_task,
    snapshot,
)

__all__ = [
    "DEFAULT_SITE",
    "NodeBuilder",
    "TaskBuilder",
    "chain_topology",
    "cluster",
    "make_node",
    "make_site",
    "make_task",
    "snapshot",
]
