"""What a scheduler returns, and the protocol every scheduler satisfies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Protocol, runtime_checkable

from aesp.core.snapshot import ClusterSnapshot
from aesp.core.workload import Task


class Code(IntEnum):
    """Outcome codes, as in the kube-scheduler framework."""

    SUCCESS = 0
    UNSCHEDULABLE = 1
    """No node fits now; may fit later (retry when the cluster changes)."""
    UNRESOLVABLE = 2
    """No node can ever fit (larger than any node, no allowed jurisdiction): do not retry."""
    WAIT = 3
    """Deliberately held back (batch window, capacity reserved for a better task)."""
    SKIP = 4
    """The plugin has nothing to say (missing or stale input); others decide."""
    ERROR = 5


@dataclass(frozen=True, slots=True)
class Status:
    """An expected outcome, returned rather than raised."""

    code: Code
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    @property
    def ok(self) -> bool:
        return self.code == Code.SUCCESS


@dataclass(frozen=True, slots=True)
class Binding:
    """Place task ``task_id`` on node index ``node``, using GPU indices ``gpus`` there."""

    task_id: int
    node: int
    gpus: tuple[int, ...] = ()


@dataclass(frozen=True)
class Decision:
    """One scheduling cycle's answer.

    ``statuses`` explains every pending task that was not bound. ``counters`` carries solver
    telemetry such as fallbacks taken or candidates pruned.
    """

    bindings: tuple[Binding, ...] = ()
    statuses: Mapping[int, Status] = field(default_factory=dict)
    solver: str = ""
    counters: Mapping[str, float] = field(default_factory=dict)


@runtime_checkable
class Scheduler(Protocol):
    """Anything that places pending tasks on a snapshot."""

    @property
    def name(self) -> str: ...

    def decide(self, snapshot: ClusterSnapshot, pending: Sequence[Task]) -> Decision: ...
