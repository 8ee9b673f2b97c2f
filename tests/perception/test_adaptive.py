"""Worked examples for the entropy change score and the reporting policies."""

from __future__ import annotations

import math

import numpy as np
import pytest

from aesp.perception.adaptive import (
    Adaptive,
    EntropyChangeDetector,
    FixedInterval,
    window_change_entropy,
)
from aesp.perception.schema import N_METRICS, MetricSample


def _window(cpu_deltas: list[float]) -> np.ndarray:
    deltas = np.full((len(cpu_deltas), N_METRICS), np.nan)
    deltas[:, 0] = cpu_deltas
    return deltas


def test_constant_window_scores_zero() -> None:
    assert window_change_entropy(_window([0.0] * 6), bin_width=0.1) == 0.0


def test_small_noise_stays_in_the_zero_bin() -> None:
    # |d| < 0.05 rounds to bin 0 with bin width 0.1: noise of ±4 percentage points is steady.
    assert window_change_entropy(_window([0.04, -0.03, 0.01, -0.04, 0.02, 0.0]), 0.1) == 0.0


def test_single_step_scores_entropy_of_one_in_seven() -> None:
    # bins {0: 5 + 1 pseudo-count, 6: 1} -> H = -(6/7 log2 6/7 + 1/7 log2 1/7) = 0.5917 bits,
    # normalised by log2(7) = 2.807 -> 0.2108.
    expected = -(6 / 7 * math.log2(6 / 7) + 1 / 7 * math.log2(1 / 7)) / math.log2(7)
    score = window_change_entropy(_window([0, 0, 0, 0, 0, 0.6]), 0.1)
    assert score == pytest.approx(expected) == pytest.approx(0.2108, abs=1e-4)


def test_bursty_window_scores_near_one() -> None:
    # six distinct non-zero bins plus the pseudo-count: 7 equiprobable bins -> H = log2(7) -> 1.0.
    score = window_change_entropy(_window([0.3, -0.5, 0.2, -0.1, 0.6, -0.4]), 0.1)
    assert score == pytest.approx(1.0)


def test_steady_ramp_is_not_steady() -> None:
    # all six deltas in bin 2 plus the zero pseudo-count: same as one step, 0.2108.
    assert window_change_entropy(_window([0.2] * 6), 0.1) == pytest.approx(0.2108, abs=1e-4)


def test_score_is_max_over_metrics_and_ignores_unknown() -> None:
    deltas = _window([0.0] * 6)
    deltas[:, 1] = [0.3, -0.5, 0.2, -0.1, 0.6, -0.4]
    assert window_change_entropy(deltas, 0.1) == pytest.approx(1.0)


def test_detector_streams_deltas_from_raw_values() -> None:
    det = EntropyChangeDetector(window=6, bin_width=0.1)
    scores = [det.update(MetricSample(cpu_pct=c).vector()) for c in [20, 20, 20, 80]]
    assert scores[:3] == [0.0, 0.0, 0.0]
    assert scores[3] > 0.2


def test_hysteresis_switches_30_5_30_at_the_right_ticks() -> None:
    # Ticks every 5 s. CPU steps 20 -> 80 at tick 5. Window W = 6 deltas, calm_ticks = 3.
    # tick 5: the step enters the window (score 0.25 >= t_hi) -> fast.
    # ticks 6..10: the step is still in the window (score 0.21 >= t_lo) -> stay fast.
    # tick 11: the step has left the window, score 0 -> calm 1; tick 12 -> calm 2;
    # tick 13 -> calm 3 -> steady.
    policy = Adaptive()
    intervals = []
    for tick in range(16):
        policy.observe(tick * 5.0, MetricSample(cpu_pct=20.0 if tick < 5 else 80.0))
        intervals.append(policy.interval_s)
    assert intervals == [30.0] * 5 + [5.0] * 8 + [30.0] * 3
    assert policy.switches == 2


def test_mid_band_score_resets_calm_count() -> None:
    policy = Adaptive(calm_ticks=2)
    policy._step(1.0)
    policy._step(0.0)
    policy._step(0.1)  # between t_lo and t_hi: not calm, not a new trigger
    policy._step(0.0)
    assert policy.mode == "fast"
    policy._step(0.0)
    assert policy.mode == "steady"


def test_reconnect_forces_fast_mode() -> None:
    policy = Adaptive()
    policy.on_reconnect(0.0)
    assert policy.interval_s == 5.0


def test_fixed_interval_never_changes() -> None:
    policy = FixedInterval(30.0)
    for tick, cpu in enumerate([0, 100, 0, 100]):
        policy.observe(tick * 5.0, MetricSample(cpu_pct=cpu))
    assert policy.interval_s == 30.0


def test_bad_parameters_rejected() -> None:
    with pytest.raises(ValueError):
        Adaptive(fast_s=60.0, steady_s=30.0)
    with pytest.raises(ValueError):
        Adaptive(t_lo=0.5, t_hi=0.2)
    with pytest.raises(ValueError):
        FixedInterval(0.0)
