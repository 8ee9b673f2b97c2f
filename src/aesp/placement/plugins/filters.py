"""Filter plugins: hard constraints a node must meet to take a task."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from aesp.core import (
    ARCHES,
    ClusterSnapshot,
    Code,
    NodeTable,
    Request,
    Status,
    Task,
    gpu_fit,
    resource_fit,
)
from aesp.core.resources import CPU, MEM, BoolArray
from aesp.placement.framework.interfaces import CycleState
from aesp.placement.framework.registry import register


@register
class NodeUp:
    """Only nodes believed up and schedulable."""

    NAME: ClassVar[str] = "NodeUp"

    def filter(self, state: CycleState, task: Task) -> BoolArray:
        return state.snapshot.up.copy()


@register
class NodeResourcesFit:
    """Free CPU, memory and per-GPU shares cover the request (kube's NodeResourcesFit).

    As a prefilter, a task larger than every empty node is unresolvable.
    """

    NAME: ClassVar[str] = "NodeResourcesFit"

    def filter(self, state: CycleState, task: Task) -> BoolArray:
        return resource_fit(state.free, state.gpu_free_milli, task.request)

    def __init__(self) -> None:
        self._table: NodeTable | None = None
        self._fits_empty: dict[Request, bool] = {}
        """Per request shape, whether some empty node holds it (capacities never change)."""

    def prefilter(self, snapshot: ClusterSnapshot, task: Task) -> Status:
        table, req = snapshot.table, task.request
        if self._table is not table:
            self._table, self._fits_empty = table, {}
        if req not in self._fits_empty:
            empty_gpus = np.where(table.gpu_present, 1000.0, 0.0)
            fits = (
                (table.capacity[:, CPU] >= req.cpu_milli)
                & (table.capacity[:, MEM] >= req.mem_mib)
                & gpu_fit(empty_gpus, req)
            )
            self._fits_empty[req] = bool(fits.any())
        if self._fits_empty[req]:
            return Status(Code.SUCCESS)
        return Status(Code.UNRESOLVABLE, ("larger than any node",), self.NAME)


def allowed_codes(allowed: tuple[str, ...], vocab: tuple[str, ...]) -> list[int]:
    """Codes of the allowed names that appear in a vocabulary."""
    return [vocab.index(a) for a in allowed if a in vocab]


@register
class GpuModel:
    """GPU tasks run only on the GPU models they accept (OpenB's ``gpu_spec``)."""

    NAME: ClassVar[str] = "GpuModel"

    def filter(self, state: CycleState, task: Task) -> BoolArray:
        table = state.snapshot.table
        if task.request.gpu_count == 0 or not task.gpu_models:
            return np.ones(len(table), np.bool_)
        return np.isin(table.gpu_model, allowed_codes(task.gpu_models, table.gpu_models))


@register
class NodeArch:
    """Tasks with a single-arch image run only on that CPU architecture."""

    NAME: ClassVar[str] = "NodeArch"

    def filter(self, state: CycleState, task: Task) -> BoolArray:
        table = state.snapshot.table
        if not task.arches:
            return np.ones(len(table), np.bool_)
        return np.isin(table.arch, allowed_codes(task.arches, ARCHES))


@register
class Jurisdiction:
    """Data-residency rules: a task runs only on sites in its allowed jurisdictions.

    As a prefilter, a task whose jurisdictions host no node at all is unresolvable.
    """

    NAME: ClassVar[str] = "Jurisdiction"

    def _mask(self, snapshot: ClusterSnapshot, task: Task) -> BoolArray:
        sites = snapshot.topology.sites
        ok_site = np.array([s.jurisdiction in task.allowed_jurisdictions for s in sites])
        return ok_site[snapshot.table.site]  # type: ignore[no-any-return]

    def filter(self, state: CycleState, task: Task) -> BoolArray:
        if not task.allowed_jurisdictions:
            return np.ones(len(state), np.bool_)
        return self._mask(state.snapshot, task)

    def prefilter(self, snapshot: ClusterSnapshot, task: Task) -> Status:
        if not task.allowed_jurisdictions or self._mask(snapshot, task).any():
            return Status(Code.SUCCESS)
        reason = f"no node in jurisdictions {list(task.allowed_jurisdictions)}"
        return Status(Code.UNRESOLVABLE, (reason,), self.NAME)
