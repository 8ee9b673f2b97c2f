"""Ordering the tasks a trace reader returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from aesp.core import Task


def in_arrival_order(tasks: Sequence[Task]) -> list[Task]:
    """Tasks sorted by arrival (ties keep their order), re-timed and re-numbered.

    The earliest arrival becomes time 0 and ids become positions ``0 .. n-1``.
    """
    ordered = sorted(tasks, key=lambda t: t.arrival_s)
    t0 = ordered[0].arrival_s if ordered else 0.0
    return [replace(t, id=i, arrival_s=t.arrival_s - t0) for i, t in enumerate(ordered)]
