"""Readers that turn public cluster traces into :mod:`aesp.core` nodes and tasks.

Formats: the Alibaba OpenB GPU trace (node and pod lists, :mod:`aesp.sim.traces.openb`) and the
Alibaba v2017 batch jobs (:mod:`aesp.sim.traces.alibaba2017`). Every reader takes plain or gzip
files and raises :class:`TraceError` naming the file and line of a malformed input.
"""

from __future__ import annotations

from typing import Any

from aesp.core import Node, Task
from aesp.sim.traces.alibaba2017 import read_alibaba2017_jobs
from aesp.sim.traces.errors import TraceError
from aesp.sim.traces.openb import read_openb_nodes, read_openb_pods
from aesp.sim.traces.rows import TracePath
from aesp.sim.traces.sniff import TraceFormat, sniff


def load_trace(path: TracePath, **kw: Any) -> list[Node] | list[Task]:
    """Read any known trace, choosing the reader by :func:`sniff`.

    Args:
        path: the trace file, plain or gzip.
        **kw: keyword arguments for the chosen reader (e.g. ``site`` for a node list).

    Raises:
        TraceError: an unknown header or a malformed file.
        TypeError: an argument the chosen reader does not take.
    """
    fmt = sniff(path)
    if fmt == "openb-nodes":
        return read_openb_nodes(path, **kw)
    if fmt == "openb-pods":
        return read_openb_pods(path, **kw)
    return read_alibaba2017_jobs(path, **kw)


__all__ = [
    "TraceError",
    "TraceFormat",
    "TracePath",
    "load_trace",
    "read_alibaba2017_jobs",
    "read_openb_nodes",
    "read_openb_pods",
    "sniff",
]
