"""Recognising a trace's format from its header line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

from aesp.sim.traces.alibaba2017 import JOB_COLUMNS
from aesp.sim.traces.errors import TraceError
from aesp.sim.traces.openb import NODE_COLUMNS, POD_COLUMNS, POD_COLUMNS_UNTIMED
from aesp.sim.traces.rows import Header, TracePath, read_header

TraceFormat = Literal["openb-nodes", "openb-pods", "alibaba2017-jobs"]

HEADERS: Final[Mapping[Header, TraceFormat]] = {
    NODE_COLUMNS: "openb-nodes",
    POD_COLUMNS: "openb-pods",
    POD_COLUMNS_UNTIMED: "openb-pods",
    JOB_COLUMNS: "alibaba2017-jobs",
}


def sniff(path: TracePath) -> TraceFormat:
    """The format of a trace file, told by its header (plain or gzip).

    Raises:
        TraceError: an empty file or a header of no known format.
        FileNotFoundError: the file does not exist.
    """
    header = read_header(path)
    if header not in HEADERS:
        known = "; ".join(f"{fmt}: {','.join(h)!r}" for h, fmt in HEADERS.items())
        raise TraceError(path, 1, f"unknown header {','.join(header)!r}; known: {known}")
    return HEADERS[header]
