"""The framework runtime: a profile's plugins instantiated and run for one task at a time."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from aesp.core import ClusterSnapshot, Code, Status, Task
from aesp.core.resources import BoolArray, FloatArray, IntArray
from aesp.placement.framework.interfaces import (
    CycleState,
    FilterPlugin,
    PreFilterPlugin,
    ScorePlugin,
)
from aesp.placement.framework.profile import Profile
from aesp.placement.framework.registry import create

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
BASE_PERCENTAGE_OF_NODES_TO_SCORE = 50


def num_feasible_nodes_to_find(percentage: int, num_all_nodes: int) -> int:
    """kube-scheduler's ``numFeasibleNodesToFind``.

    With ``percentage == 0`` the adaptive default applies: ``50 - N / 125`` percent, at least
    5 %, and never fewer than 100 nodes. Clusters under 100 nodes, or 100 %, score every node.
    """
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND or percentage >= 100:
        return num_all_nodes
    pct = percentage
    if pct <= 0:
        pct = max(
            BASE_PERCENTAGE_OF_NODES_TO_SCORE - num_all_nodes // 125,
            MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND,
        )
    return max(num_all_nodes * pct // 100, MIN_FEASIBLE_NODES_TO_FIND)


class NodeSampler:
    """kube-scheduler's feasible-node sampling: the first ``numFeasibleNodesToFind`` feasible
    nodes from a start index that rotates between calls, so successive tasks see different
    nodes on large clusters."""

    def __init__(self, percentage_of_nodes_to_score: int) -> None:
        self.percentage = percentage_of_nodes_to_score
        self.next_start_node_index = 0

    def candidates(self, mask: BoolArray) -> IntArray:
        """The feasible nodes to score (sorted), advancing the start index past them."""
        n = len(mask)
        k = num_feasible_nodes_to_find(self.percentage, n)
        order = np.roll(np.arange(n), -self.next_start_node_index)
        feasible = order[mask[order]]
        if len(feasible) <= k:
            self.next_start_node_index = self.next_start_node_index % n
            return np.sort(feasible)
        last = int(np.flatnonzero(order == feasible[k - 1])[0])
        self.next_start_node_index = (self.next_start_node_index + last + 1) % n
        return np.sort(feasible[:k])


@dataclass
class Framework:
    """A profile's plugin instances."""

    profile: Profile
    prefilters: tuple[PreFilterPlugin, ...]
    filters: tuple[FilterPlugin, ...]
    scores: tuple[ScorePlugin, ...]
    weights: FloatArray

    @classmethod
    def from_profile(cls, profile: Profile) -> Framework:
        """Instantiate every plugin a profile names.

        Raises:
            UnknownPluginError, ValueError: unknown plugin, bad arguments, or a plugin listed
                under the wrong extension point.
        """
        filters = tuple(create(p.name, p.args) for p in profile.filters)
        scores = tuple(create(p.name, p.args) for p in profile.scores)
        for f in filters:
            if not isinstance(f, FilterPlugin):
                raise ValueError(f"{f.NAME} is not a filter plugin")
        for s in scores:
            if not isinstance(s, ScorePlugin):
                raise ValueError(f"{s.NAME} is not a score plugin")
        prefilters = tuple(f for f in filters if isinstance(f, PreFilterPlugin))
        weights = np.array([p.weight for p in profile.scores], np.float64)
        return cls(profile, prefilters, filters, scores, weights)

    def prefilter(self, snapshot: ClusterSnapshot, task: Task) -> Status:
        """The first non-success prefilter status, or success."""
        for plugin in self.prefilters:
            status = plugin.prefilter(snapshot, task)
            if not status.ok:
                return status
        return Status(Code.SUCCESS)

    def feasible(self, state: CycleState, task: Task) -> tuple[BoolArray, str]:
        """Nodes passing every filter, and the filter that removed the last node (if any)."""
        mask = ~state.held_for_others(task) if state.reserved else np.ones(len(state), np.bool_)
        if not mask.any():
            return mask, "Reservation"
        for plugin in self.filters:
            mask &= plugin.filter(state, task)
            if not mask.any():
                return mask, plugin.NAME
        return mask, ""

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        """Weighted sum of score plugins over candidates. Shapes: ``(K,)`` -> ``(K,)``."""
        total = np.zeros(len(candidates))
        for weight, plugin in zip(self.weights, self.scores, strict=True):
            if weight:
                total += weight * plugin.score(state, task, candidates)
        return total
