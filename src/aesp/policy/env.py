"""A Gymnasium environment over the simulator's event machinery: one step places one task.

The environment re-runs the simulator's loop (:class:`aesp.sim.engine.EventQueue`,
:class:`aesp.sim.fleet.Fleet`, :class:`aesp.sim.recorder.Recorder`) but stops at every placement
decision instead of calling a scheduler: at each scheduling cycle, pending tasks are taken in
queue order (:func:`~aesp.placement.solvers.sequential.queue_order`); a task that no node can
take now waits for a later cycle; for the first task that fits somewhere, the agent picks the
node. The feasible set comes from the filters of a profile (``aesp`` by default) through
:meth:`Framework.feasible`, so an unmasked action is always a node the deterministic scheduler
would also accept.

Spaces (``M = max_nodes``; real nodes first, padding after):
    observation: ``Dict(nodes=Box(M, NODE_DIM), action_mask=Box(M), context=Box(CONTEXT_DIM))``.
    action: ``Discrete(M)``, the node for the task at the head of the queue;
    :meth:`SchedulingEnv.action_masks` is the boolean feasible mask (sb3-contrib's
    ``MaskablePPO`` protocol). An infeasible action is refused: reward
    ``-invalid_action_penalty``, nothing changes.

Reward of a placement of task ``j`` on node ``n`` (see :func:`step_reward`)::

    r = w1 * U  -  w2 * min(JCT_j(n) / 3600 s, 10)  +  w3 * (usd_max - usd_j(n)) / usd_max
        -  w4 * violated_j(n)

``U`` is the cluster's allocated share after the binding, averaged over the CPU and GPU columns
that have capacity; ``JCT_j(n) = wait_j + transfer_j(n) + work_j / speed_j(n)`` is the task's
expected completion time in seconds; ``usd_j(n)`` is its expected compute plus transfer charge
(:meth:`FeatureBuilder.placement_usd`) and ``usd_max`` the dearest feasible node's;
``violated_j(n)`` is 1 when the task has a latency SLO and the RTT between its data origin and
the node's site exceeds it (the simulator's SLA-violation rule, see
:meth:`aesp.sim.recorder.Recorder.sla_violation_rate`), else 0 (see :func:`slo_violated`).

Episodes are seeded slices: ``reset(seed=s)`` draws a workload seed from ``workload_seeds`` and
``slice_tasks`` consecutive arrivals from it (arrival gaps multiplied by ``arrival_scale``); the
episode ends when every task of the slice has been placed or dropped as unresolvable.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from aesp.config import ScenarioConfig, load_scenario
from aesp.config.capability import load_capability
from aesp.core import CPU, GPU, Binding, NodeTable, Task
from aesp.core.resources import BoolArray
from aesp.placement import CycleState, load_profile
from aesp.placement.framework.runtime import Framework
from aesp.placement.solvers.sequential import queue_order
from aesp.policy.observation import CLIP, CONTEXT_DIM, NODE_DIM, FeatureBuilder, Observation
from aesp.sim.engine import EventKind, EventQueue
from aesp.sim.fleet import Fleet
from aesp.sim.scenario import materialise
from aesp.sim.speed import CapabilitySpeed

REF_JCT_S = 3600.0
MAX_JCT_TERM = 10.0


@dataclass(frozen=True)
class RewardWeights:
    """``w1``, ``w2``, ``w3``, ``w4`` of the per-step reward (module docstring).

    ``slo`` (``w4``) defaults to 1.0, set a priori (not tuned on evaluation seeds): a violation
    costs as much as one hour of extra completion time or a full cluster's utilisation term,
    i.e. the same order as the other terms' typical magnitudes.
    """

    utilisation: float = 1.0
    completion: float = 1.0
    cost: float = 0.5
    slo: float = 1.0


def slo_violated(task: Task, table: NodeTable, node: int) -> bool:
    """True when ``task`` has a latency SLO and RTT(data origin, node's site) exceeds it.

    Mirrors the simulator: a task without a data origin has RTT 0 and never violates.
    """
    if task.latency_slo_ms is None or not task.data_origin:
        return False
    topo = table.topology
    rtt_ms = float(topo.rtt_ms[topo.index(task.data_origin), int(table.site[node])])
    return rtt_ms > task.latency_slo_ms


def step_reward(w: RewardWeights, util: float, jct_s: float, usd: float, usd_max: float,
                violated: bool = False) -> float:
    """The reward of one placement (formula in the module docstring).

    Units: jct_s seconds; usd and usd_max US dollars; ``violated`` whether the placement breaks
    the task's latency SLO (:func:`slo_violated`).
    """
    jct_term = min(jct_s / REF_JCT_S, MAX_JCT_TERM)
    saving = (usd_max - usd) / usd_max if usd_max > 0 else 0.0
    return (w.utilisation * util - w.completion * jct_term + w.cost * saving
            - w.slo * float(violated))


@dataclass(frozen=True)
class EnvConfig:
    """Environment settings."""

    scenario: str | ScenarioConfig = "seed-experiment"
    """Shipped scenario name, YAML path or a config object."""
    profile: str = "aesp"
    """Profile whose filters define feasibility."""
    max_nodes: int = 128
    """Padding size of the node axis; clusters may not be larger."""
    slice_tasks: int = 96
    """Tasks per episode."""
    arrival_scale: float = 1.0
    """Arrival gaps are multiplied by this (below 1 compresses time: more load)."""
    workload_seeds: tuple[int, ...] = tuple(range(1000, 1016))
    """Workload seeds episodes draw from (held-out evaluation seeds are elsewhere)."""
    weights: RewardWeights = field(default_factory=RewardWeights)
    invalid_action_penalty: float = 1.0
    max_steps_factor: int = 4
    """Episodes are truncated after ``max_steps_factor * slice_tasks`` steps."""


class SchedulingEnv(gym.Env[dict[str, np.ndarray], int]):  # type: ignore[type-arg]
    """Place the task at the head of the queue on one node (see module docstring)."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012

    def __init__(self, config: EnvConfig = EnvConfig()) -> None:
        self.config = config
        self.tasks: list[Task] = []
        self.by_id: dict[int, Task] = {}
        scenario = config.scenario
        self.scenario = load_scenario(scenario) if isinstance(scenario, str) else scenario
        self.framework = Framework.from_profile(load_profile(config.profile))
        base = materialise(self.scenario, config.workload_seeds[0])
        self.table: NodeTable = base.table
        if len(self.table) > config.max_nodes:
            raise ValueError(f"{len(self.table)} nodes exceed max_nodes={config.max_nodes}")
        self.features = FeatureBuilder(self.table, max_nodes=config.max_nodes)
        self.speed = CapabilitySpeed(self.table, load_capability())
        self._workloads: dict[int, tuple[Task, ...]] = {config.workload_seeds[0]: base.tasks}
        m = config.max_nodes
        self.observation_space = spaces.Dict({  # type: ignore[assignment]
            "nodes": spaces.Box(-CLIP, CLIP, (m, NODE_DIM), np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (m,), np.float32),
            "context": spaces.Box(-CLIP, CLIP, (CONTEXT_DIM,), np.float32),
        })  # fmt: skip
        self.action_space = spaces.Discrete(m)  # type: ignore[assignment]
        self._clear()

    # ----- Gymnasium API -------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:  # type: ignore[type-arg]
        super().reset(seed=seed)
        self._clear()
        self.tasks = self._slice()
        self.by_id = {t.id: t for t in self.tasks}
        for t in self.tasks:
            self.queue.push(t.arrival_s, EventKind.ARRIVAL, t.id)
        self._advance()
        return self._obs(), {}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:  # type: ignore[type-arg]
        self.steps += 1
        truncated = self.steps >= self.config.max_steps_factor * len(self.tasks)
        a = int(action)
        if self.task is None or not (0 <= a < len(self.table) and self.mask[a]):
            info = {"invalid_action": True}
            return self._obs(), -self.config.invalid_action_penalty, False, truncated, info
        reward = self._place(self.task, a)
        self._advance()
        terminated = self.task is None
        return self._obs(), reward, terminated, truncated and not terminated, {"invalid_action": False}

    def action_masks(self) -> BoolArray:
        """``(max_nodes,)`` True where the action is a feasible node for the current task."""
        out = np.zeros(self.config.max_nodes, np.bool_)
        if self.task is not None:
            out[: len(self.table)] = self.mask
        return out

    # ----- the event loop ------------------------------------------------------------------

    def _clear(self) -> None:
        self.fleet = Fleet(self.table)
        self.queue = EventQueue()
        self.pending: dict[int, Task] = {}
        self.bindings: dict[int, Binding] = {}
        self.cycle_scheduled = False
        self.cycle_tasks: list[Task] = []
        self.state: CycleState | None = None
        self.task: Task | None = None
        self.mask: BoolArray = np.zeros(len(self.table), np.bool_)
        self.steps = self.placed = self.dropped = 0
        self.tasks = []
        self.by_id = {}
        self.now_s = 0.0

    def _slice(self) -> list[Task]:
        cfg = self.config
        seed = cfg.workload_seeds[int(self.np_random.integers(len(cfg.workload_seeds)))]
        if seed not in self._workloads:
            self._workloads[seed] = materialise(self.scenario, seed).tasks
        tasks = self._workloads[seed]
        k = min(cfg.slice_tasks, len(tasks))
        start = int(self.np_random.integers(len(tasks) - k + 1))
        chunk = tasks[start : start + k]
        t0 = chunk[0].arrival_s
        return [replace(t, id=i, arrival_s=t0 + (t.arrival_s - t0) * cfg.arrival_scale)
                for i, t in enumerate(chunk)]

    def _advance(self) -> None:
        """Run events until a task with a feasible node heads the cycle, or nothing is left."""
        self.task = None
        while True:
            while self.cycle_tasks:
                task = self.cycle_tasks.pop(0)
                if self._consider(task):
                    return
            if not self._run_to_cycle():
                return

    def _consider(self, task: Task) -> bool:
        assert self.state is not None
        if task.id not in self.pending:
            return False
        if not self.framework.prefilter(self.state.snapshot, task).ok:
            del self.pending[task.id]
            self.dropped += 1
            return False
        mask, culprit = self.framework.feasible(self.state, task)
        if culprit:
            return False
        self.task, self.mask = task, mask
        return True

    def _run_to_cycle(self) -> bool:
        """Process events up to the next scheduling cycle; False when the episode is over."""
        while self.queue and self.placed + self.dropped < len(self.tasks):
            ev = self.queue.pop()
            self.now_s = ev.time_s
            if ev.kind == EventKind.ARRIVAL:
                self.pending[ev.task_id] = self.by_id[ev.task_id]
                self._request_cycle()
            elif ev.kind == EventKind.START:
                self._start(ev.task_id)
            elif ev.kind == EventKind.COMPLETE:
                self._complete(ev.task_id)
            elif ev.kind == EventKind.CYCLE:
                self.cycle_scheduled = False
                self.state = CycleState(self.fleet.snapshot(self.now_s), self.np_random)
                self.cycle_tasks = queue_order(list(self.pending.values()))
                return True
        return False

    def _request_cycle(self) -> None:
        if self.pending and not self.cycle_scheduled:
            self.cycle_scheduled = True
            self.queue.push(self.now_s + self.scenario.cycle_interval_s, EventKind.CYCLE)

    def _start(self, task_id: int) -> None:
        task, binding = self.by_id[task_id], self.bindings[task_id]
        runtime = task.work / max(self.speed.speed(task, binding.node), 1e-9)
        self.queue.push(self.now_s + runtime, EventKind.COMPLETE, task_id)

    def _complete(self, task_id: int) -> None:
        self.fleet.release(self.bindings.pop(task_id), self.by_id[task_id])
        self._request_cycle()

    def _transfer_s(self, task: Task, node: int) -> float:
        if not task.data_origin or task.data_size_gb <= 0:
            return 0.0
        topo = self.table.topology
        origin, site = topo.index(task.data_origin), int(self.table.site[node])
        return 0.0 if origin == site else task.data_size_gb * 8000.0 / float(topo.bandwidth_mbps[origin, site])

    def _place(self, task: Task, node: int) -> float:
        """Bind ``task`` on ``node`` in the cycle state and the fleet; returns the reward."""
        assert self.state is not None
        usd = self.features.placement_usd(task)
        usd_max = float(usd[self.mask].max())
        binding = Binding(task.id, node, self.state.assume(task, node))
        self.fleet.bind(binding, task)
        self.bindings[task.id] = binding
        del self.pending[task.id]
        self.placed += 1
        transfer_s = self._transfer_s(task, node)
        self.queue.push(self.now_s + transfer_s, EventKind.START, task.id)
        runtime_s = task.work / max(self.speed.speed(task, node), 1e-9)
        jct_s = (self.now_s - task.arrival_s) + transfer_s + runtime_s
        violated = slo_violated(task, self.table, node)
        return step_reward(self.config.weights, self.utilisation(), jct_s, float(usd[node]), usd_max,
                           violated)

    def utilisation(self) -> float:
        """Allocated share of the cluster, mean over the CPU and GPU columns with capacity."""
        total = self.table.capacity.sum(axis=0)
        cols = [c for c in (CPU, GPU) if total[c] > 0]
        return float(np.mean([self.fleet.allocated_total[c] / total[c] for c in cols]))

    def _obs(self) -> dict[str, np.ndarray]:  # type: ignore[type-arg]
        m, n = self.config.max_nodes, len(self.table)
        nodes = np.zeros((m, NODE_DIM), np.float32)
        context = np.zeros(CONTEXT_DIM, np.float32)
        if self.task is not None and self.state is not None:
            obs = self.current_observation()
            nodes[:n], context = obs.nodes, obs.context
        return {"nodes": nodes, "action_mask": self.action_masks().astype(np.float32), "context": context}

    def current_observation(self) -> Observation:
        """Unpadded features of the current decision (the policy's own input)."""
        assert self.task is not None and self.state is not None
        return self.features.observe(self.state, self.task, list(self.pending.values()),
                                     int(self.mask.sum()))


def framework_action(env: SchedulingEnv, framework: Framework | None = None) -> int:
    """The node the framework's weighted scores prefer for the current task (a teacher baseline).

    Uses the environment's own framework (the ``aesp`` profile by default); ties go to the
    lowest index.
    """
    fw = framework or env.framework
    assert env.task is not None and env.state is not None
    cand = np.flatnonzero(env.mask)
    scores = fw.score(env.state, env.task, cand)
    return int(cand[int(np.argmax(scores))])


__all__ = ["EnvConfig", "RewardWeights", "SchedulingEnv", "framework_action", "slo_violated",
           "step_reward"]
