"""Task speed on a node from the capability matrix."""

from __future__ import annotations

from aesp.core import NodeTable, Task
from aesp.core.capability import CapabilityMatrix


class CapabilitySpeed:
    """Tasks run faster or slower by the capability that matters to their class."""

    def __init__(self, table: NodeTable, matrix: CapabilityMatrix) -> None:
        self.table = matrix.speed_table(table)

    def speed(self, task: Task, node: int) -> float:
        return float(self.table.for_task(task)[node])
