"""Placement fixtures: a working CycleState over a snapshot, with a seeded generator."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from aesp.core import ClusterSnapshot
from aesp.placement import CycleState

MakeState = Callable[..., CycleState]


@pytest.fixture
def make_state() -> MakeState:
    """``make_state(snapshot, seed=0)``: a fresh cycle state on the snapshot."""

    def make(snap: ClusterSnapshot, seed: int = 0) -> CycleState:
        return CycleState(snap, np.random.default_rng(seed))

    return make
