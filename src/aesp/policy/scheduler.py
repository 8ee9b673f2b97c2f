"""The ``rl`` scheduler: a learned node scorer inside the framework, over a deterministic fallback.

Per cycle, tasks are taken in queue order (priority, then arrival). For each, the ``aesp``
profile's prefilters and filters decide feasibility exactly as they do for the deterministic
scheduler; the policy's logits choose the highest-scoring feasible node (argmax, so decisions
are deterministic for a given policy), and :meth:`CycleState.assume` applies the binding before
the next task is looked at.

The policy is a plugin over a correct baseline: when it is missing, fails to load, raises, or
the cycle runs past ``budget_ms`` of wall time, the ``aesp`` profile
(:func:`aesp.placement.build_scheduler`) decides the whole cycle instead. Each such cycle is
counted in ``Decision.counters["fallbacks"]`` (plus ``fallback_<reason>``), and in
:attr:`RLScheduler.stats` over the scheduler's lifetime.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from aesp.core import Binding, ClusterSnapshot, Code, Decision, Status, Task
from aesp.core.capability import CapabilityError
from aesp.core.resources import BoolArray
from aesp.placement import CycleState, FrameworkScheduler, build_scheduler
from aesp.placement.solvers.sequential import queue_order
from aesp.policy.checkpoint import (
    DEFAULT_POLICY,
    CheckpointError,
    PolicyCheckpoint,
    load_checkpoint,
)
from aesp.policy.observation import FeatureBuilder, Observation


class OverBudget(Exception):
    """The policy used up its per-cycle decision time."""


@dataclass(frozen=True)
class RLSettings:
    """Settings of the ``rl`` scheduler."""

    budget_ms: float = 250.0
    """Wall-time budget of one cycle's policy decisions; over it, the fallback decides."""
    profile: str = "aesp"
    """Profile providing the filters and the fallback scheduler."""
    threads: int | None = 1
    """``torch.set_num_threads`` for inference (None leaves torch's setting alone); batches of
    one decision are tiny and extra threads only add contention."""


class RLScheduler:
    """A :class:`aesp.core.Scheduler` choosing nodes with a trained policy (module docstring)."""

    def __init__(self, policy: str | Path | None = None, seed: int = 0,
                 settings: RLSettings = RLSettings()) -> None:
        self.settings = settings
        self.fallback: FrameworkScheduler = build_scheduler(settings.profile, seed)
        self.framework = self.fallback.framework
        self.rng = np.random.default_rng(seed)
        self.policy_path = Path(policy) if policy is not None else DEFAULT_POLICY
        self.checkpoint: PolicyCheckpoint | None = None
        self.load_error = ""
        try:
            self.checkpoint = load_checkpoint(self.policy_path)
        except CheckpointError as exc:
            self.load_error = str(exc)
        self._features: FeatureBuilder | None = None
        self.stats: dict[str, float] = {"cycles": 0.0, "fallbacks": 0.0}
        if settings.threads is not None:
            torch.set_num_threads(settings.threads)

    @property
    def name(self) -> str:
        return "rl"

    def decide(self, snapshot: ClusterSnapshot, pending: Sequence[Task]) -> Decision:
        self.stats["cycles"] += 1
        if self.checkpoint is None:
            return self._fall_back(snapshot, pending, "missing")
        deadline = time.perf_counter() + self.settings.budget_ms / 1000.0
        try:
            return self._decide(snapshot, pending, self.checkpoint, deadline)
        except OverBudget:
            return self._fall_back(snapshot, pending, "budget")
        except (RuntimeError, ValueError, CapabilityError):
            return self._fall_back(snapshot, pending, "error")

    def _fall_back(self, snapshot: ClusterSnapshot, pending: Sequence[Task], reason: str) -> Decision:
        self.stats["fallbacks"] += 1
        key = f"fallback_{reason}"
        self.stats[key] = self.stats.get(key, 0.0) + 1
        d = self.fallback.decide(snapshot, pending)
        return Decision(d.bindings, d.statuses, d.solver, {**d.counters, "fallbacks": 1.0, key: 1.0})

    def _builder(self, snapshot: ClusterSnapshot) -> FeatureBuilder:
        if self._features is None or self._features.table is not snapshot.table:
            self._features = FeatureBuilder(snapshot.table)
        return self._features

    def _decide(self, snapshot: ClusterSnapshot, pending: Sequence[Task],
                ckpt: PolicyCheckpoint, deadline: float) -> Decision:
        fw, features = self.framework, self._builder(snapshot)
        state = CycleState(snapshot, self.rng)
        bindings: list[Binding] = []
        statuses: dict[int, Status] = {}
        waiting = queue_order(pending)
        left = list(waiting)
        for task in waiting:
            if time.perf_counter() >= deadline:
                raise OverBudget
            status = fw.prefilter(snapshot, task)
            if not status.ok:
                statuses[task.id] = status
                left.remove(task)
                continue
            mask, culprit = fw.feasible(state, task)
            if culprit:
                statuses[task.id] = Status(Code.UNSCHEDULABLE, ("no feasible node",), culprit)
                continue
            node = self._choose(ckpt, features.observe(state, task, left, int(mask.sum())), mask)
            bindings.append(Binding(task.id, node, state.assume(task, node)))
            left.remove(task)
        return Decision(tuple(bindings), statuses, solver="rl", counters={"fallbacks": 0.0})

    @staticmethod
    def _choose(ckpt: PolicyCheckpoint, obs: Observation, mask: BoolArray) -> int:
        with torch.no_grad():
            logits = ckpt.model.logits(torch.as_tensor(obs.nodes).unsqueeze(0),
                                       torch.as_tensor(obs.context).unsqueeze(0),
                                       torch.as_tensor(mask).unsqueeze(0))
        return int(logits[0].argmax())
