"""A :class:`aesp.core.Scheduler` built from a profile: the decision core's entry point."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import aesp.placement.plugins  # noqa: F401  (registers the built-in plugins)
from aesp.core import ClusterSnapshot, Decision, Task
from aesp.placement.framework.interfaces import CycleState
from aesp.placement.framework.profile import Profile, load_profile
from aesp.placement.framework.runtime import Framework
from aesp.placement.solvers.hungarian import HungarianSolver
from aesp.placement.solvers.sequential import SequentialSolver


class FrameworkScheduler:
    """Filter + score over a profile's plugins, solved by the profile's solver.

    The scheduler owns a seeded generator for tie-breaking and random scores, so two
    schedulers built with the same seed decide identically on the same inputs.
    """

    def __init__(self, profile: Profile, seed: int = 0) -> None:
        self.profile = profile
        self.framework = Framework.from_profile(profile)
        self.rng = np.random.default_rng(seed)
        self.solver = self._make_solver()

    def _make_solver(self) -> SequentialSolver | HungarianSolver:
        if self.profile.solver == "hungarian":
            return HungarianSolver(self.framework)
        return SequentialSolver(self.framework)

    @property
    def name(self) -> str:
        return self.profile.name

    def decide(self, snapshot: ClusterSnapshot, pending: Sequence[Task]) -> Decision:
        return self.solver.solve(CycleState(snapshot, self.rng), pending)


def build_scheduler(name_or_path: str, seed: int = 0) -> FrameworkScheduler:
    """A scheduler from a shipped profile name or a profile YAML path.

    Raises:
        ProfileError: unknown or malformed profile. UnknownPluginError / ValueError: bad plugins.
    """
    return FrameworkScheduler(load_profile(name_or_path), seed)
