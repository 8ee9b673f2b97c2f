"""Reader for the batch tasks of the Alibaba cluster trace v2017.

Source: github.com/xlcbingo1999/CloudSimPy, ``playground/DAG/jobs_files/jobs.csv``, derived from
Alibaba cluster-trace-v2017 (``batch_task``). Header: ``,submit_time,duration,cpu,memory,job_id,
task_id,instances_num,disk``; the unnamed first column is a row index and is ignored, as is
``disk`` (always 0 and not a resource :class:`aesp.core.Request` models).

Each row is one task of a job, run as ``instances_num`` identical instances. Units: submit_time
and duration seconds, cpu cores per instance, memory a *fraction* of a machine's memory.

Assumption: the trace normalises memory to a machine's memory without publishing that size; the
reader multiplies by ``machine_mem_mib`` (default 96 GiB = 98,304 MiB, a typical v2017 machine).
Pass the memory of the nodes you replay on to keep the ratio right.

The trace has no node list: a replay must be given its nodes (``--nodes``, e.g. an OpenB node
list or a generated fleet).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from itertools import islice
from typing import Final

from aesp.core import Request, Task
from aesp.sim.traces.rows import Header, Row, TracePath, read_rows
from aesp.sim.traces.tasks import in_arrival_order

JOB_COLUMNS: Final[Header] = (
    "",
    "submit_time",
    "duration",
    "cpu",
    "memory",
    "job_id",
    "task_id",
    "instances_num",
    "disk",
)
DEFAULT_MACHINE_MEM_MIB: Final = 96 * 1024.0
MILLI_PER_CORE: Final = 1000.0


def read_alibaba2017_jobs(
    path: TracePath,
    *,
    machine_mem_mib: float = DEFAULT_MACHINE_MEM_MIB,
    expand_instances: bool = False,
    max_tasks: int | None = None,
) -> list[Task]:
    """Read v2017 batch tasks into ``batch`` tasks, in arrival order.

    A task arrives at its ``submit_time`` less the earliest one returned, and its work is its
    ``duration``. Its request is one instance's: ``cpu`` x 1000 millicores and ``memory`` x
    ``machine_mem_mib`` MiB. Names are ``j<job_id>-t<task_id>``; ``job_id``, ``task_id`` and
    ``instances_num`` are kept as labels. Ids number the tasks in arrival order.

    Args:
        path: ``jobs.csv`` or ``jobs.csv.gz``.
        machine_mem_mib: the memory that a ``memory`` of 1.0 stands for (see the module note).
        expand_instances: one task per instance (named ``...-i<k>``, label ``instance``) instead
            of one per row standing for a single instance.
        max_tasks: keep only the earliest this many tasks (after expansion); ``None`` keeps all.

    Raises:
        TraceError: a malformed file or a bad value (file and line named).
        ValueError: ``machine_mem_mib`` not positive or ``max_tasks`` below 1.
    """
    if not machine_mem_mib > 0:
        raise ValueError(f"machine_mem_mib must be positive, got {machine_mem_mib}")
    if max_tasks is not None and max_tasks < 1:
        raise ValueError(f"max_tasks must be at least 1 or None, got {max_tasks}")
    rows = read_rows(path, (JOB_COLUMNS,), "an Alibaba v2017 jobs file")
    jobs = sorted((_job(row, machine_mem_mib) for row in rows), key=lambda j: j[0].arrival_s)
    tasks = _instances(jobs) if expand_instances else (task for task, _ in jobs)
    return in_arrival_order(list(islice(tasks, max_tasks)))


def _job(row: Row, machine_mem_mib: float) -> tuple[Task, int]:
    """One row as a single-instance task, and its number of instances."""
    memory = row.number("memory")
    if memory > 1:
        raise row.error(f"memory {row.text('memory')} is above 1 (a fraction of a machine's)")
    instances = row.whole("instances_num")
    if instances < 1:
        raise row.error("instances_num is 0: a task needs at least one instance")
    job_id, task_id = row.text("job_id"), row.text("task_id")
    task = Task(
        id=0,
        name=f"j{job_id}-t{task_id}",
        task_class="batch",
        request=Request(
            cpu_milli=row.number("cpu") * MILLI_PER_CORE, mem_mib=memory * machine_mem_mib
        ),
        arrival_s=row.number("submit_time"),
        work=row.number("duration"),
        labels=(("job_id", job_id), ("task_id", task_id), ("instances_num", str(instances))),
    )
    return task, instances


def _instances(jobs: Sequence[tuple[Task, int]]) -> Iterator[Task]:
    for task, count in jobs:
        for k in range(count):
            yield replace(
                task, name=f"{task.name}-i{k}", labels=(*task.labels, ("instance", str(k)))
            )


__all__ = ["DEFAULT_MACHINE_MEM_MIB", "JOB_COLUMNS", "read_alibaba2017_jobs"]
