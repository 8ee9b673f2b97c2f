"""Whether a request fits a node, and which GPUs it takes there.

GPU sharing follows the OpenB trace's model: a task asks for ``gpu_count`` GPUs with a share of
``gpu_milli`` of each. A fractional task (one GPU, share below 1000) can share a GPU with others;
a multi-GPU task takes whole GPUs. These functions are the single definition of "fits" used by
the scheduler's filter and by the simulator when it checks a binding.
"""

from __future__ import annotations

import numpy as np

from aesp.core.resources import CPU, MEM, BoolArray, FloatArray, Request

_EPS = 1e-9


def gpu_fit(gpu_free_milli: FloatArray, request: Request) -> BoolArray:
    """Nodes with enough GPUs that each have the requested free share.

    Shapes: gpu_free_milli ``(N, G)`` -> ``(N,)``.
    """
    if request.gpu_count == 0:
        return np.ones(gpu_free_milli.shape[0], np.bool_)
    usable = (gpu_free_milli >= request.gpu_milli - _EPS).sum(axis=1)
    return usable >= request.gpu_count  # type: ignore[no-any-return]


def resource_fit(free: FloatArray, gpu_free_milli: FloatArray, request: Request) -> BoolArray:
    """Nodes whose free CPU, memory and GPU shares all cover the request.

    Shapes: free ``(N, R)``, gpu_free_milli ``(N, G)`` -> ``(N,)``.
    """
    ok = (free[:, CPU] >= request.cpu_milli - _EPS) & (free[:, MEM] >= request.mem_mib - _EPS)
    return ok & gpu_fit(gpu_free_milli, request)  # type: ignore[no-any-return]


def pick_gpus(gpu_free_row: FloatArray, request: Request) -> tuple[int, ...]:
    """GPU indices on one node for a request, packing shares tightly.

    A fractional request takes the GPU with the least free share that still fits (best fit, so
    whole GPUs stay whole for multi-GPU tasks); whole-GPU requests take the first fully free GPUs.

    Raises:
        ValueError: the request does not fit this node.
    """
    if request.gpu_count == 0:
        return ()
    candidates = np.flatnonzero(gpu_free_row >= request.gpu_milli - _EPS)
    if candidates.size < request.gpu_count:
        raise ValueError("request does not fit the node's GPUs")
    if request.gpu_count == 1:
        best = candidates[np.argmin(gpu_free_row[candidates])]
        return (int(best),)
    return tuple(int(i) for i in candidates[: request.gpu_count])


def binding_fits(
    free_row: FloatArray, gpu_free_row: FloatArray, request: Request, gpus: tuple[int, ...]
) -> str:
    """Why a concrete binding would over-commit the node; empty string when it fits."""
    if free_row[CPU] < request.cpu_milli - _EPS:
        return "cpu over-committed"
    if free_row[MEM] < request.mem_mib - _EPS:
        return "memory over-committed"
    if len(gpus) != request.gpu_count or len(set(gpus)) != len(gpus):
        return f"binding names {len(gpus)} GPUs for a request of {request.gpu_count}"
    for g in gpus:
        if not 0 <= g < gpu_free_row.shape[0] or gpu_free_row[g] < request.gpu_milli - _EPS:
            return f"GPU {g} over-committed or absent"
    return ""
