"""A minimal discrete-event core: a time-ordered queue of typed events.

No module state and no wall clock: a simulation owns its queue and its seeded generator, so any
number of simulations can run side by side in one process.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from enum import IntEnum


class EventKind(IntEnum):
    """Event kinds; at equal times lower values run first (releases before new demand)."""

    COMPLETE = 0
    START = 1
    ARRIVAL = 2
    DEPART = 3
    CYCLE = 4


@dataclass(order=True, slots=True)
class Event:
    time_s: float
    kind: EventKind
    seq: int
    task_id: int = field(default=-1, compare=False)


class EventQueue:
    """A heap of events with FIFO order among equal (time, kind)."""

    def __init__(self) -> None:
        self._heap: list[Event] = []
        self._seq = 0
        self.processed = 0

    def push(self, time_s: float, kind: EventKind, task_id: int = -1) -> None:
        self._seq += 1
        heapq.heappush(self._heap, Event(time_s, kind, self._seq, task_id))

    def pop(self) -> Event:
        self.processed += 1
        return heapq.heappop(self._heap)

    def __len__(self) -> int:
        return len(self._heap)
