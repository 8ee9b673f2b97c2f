"""The decision core: the scheduling framework, its plugins, solvers and profiles."""

from aesp.placement.framework.interfaces import MAX_NODE_SCORE, CycleState
from aesp.placement.framework.profile import Profile, ProfileError, available_profiles, load_profile
from aesp.placement.framework.registry import UnknownPluginError, registered
from aesp.placement.scheduler import FrameworkScheduler, build_scheduler

__all__ = [
    "MAX_NODE_SCORE",
    "CycleState",
    "FrameworkScheduler",
    "Profile",
    "ProfileError",
    "UnknownPluginError",
    "available_profiles",
    "build_scheduler",
    "load_profile",
    "registered",
]
