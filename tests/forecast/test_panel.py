"""Regularising irregular samples onto a grid."""

from __future__ import annotations

import numpy as np
import pytest

from aesp.forecast.panel import Panel, forward_fill, regularise, steps_for


def test_regularise_means_and_fills() -> None:
    # grid 0, 10, 20, 30 (step 10). Samples: t=1 -> 2, t=5 -> 4 (cell 0 mean 3); t=25 -> 8 (cell 2)
    # cell 1 empty -> forward-filled 3, cell 3 empty -> 8.
    dense, observed = regularise(
        np.array([1.0, 5.0, 25.0, 99.0]), np.array([2.0, 4.0, 8.0, 1.0]), 0, 10, 4
    )
    assert dense.tolist() == [3.0, 3.0, 8.0, 8.0]
    assert observed.tolist() == [True, False, True, False]


def test_forward_fill_back_fills_the_start() -> None:
    assert forward_fill(np.array([np.nan, 2.0, np.nan, 5.0])).tolist() == [2.0, 2.0, 2.0, 5.0]


@pytest.mark.parametrize(("step_s", "steps"), [(300, 3), (60, 15), (57, 16), (3600, 1)])
def test_steps_for_15_minutes(step_s: int, steps: int) -> None:
    # 900/300 = 3; 900/60 = 15; 900/57 = 15.8 -> 16; 900/3600 = 0.25 -> at least 1
    assert steps_for(900, step_s) == steps


def test_panel_rejects_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match="observed"):
        Panel(("a",), np.zeros((1, 3)), np.ones((1, 2), bool), 60, np.zeros(1, np.int64))
