"""Worked examples for the robust z-score and the EWMA chart."""

from __future__ import annotations

import numpy as np
import pytest

from aesp.perception.anomaly import (
    EwmaChart,
    RobustZScore,
    ewma_alarms,
    robust_centre_scale,
    robust_zscores,
)


def test_robust_centre_and_scale_worked_example() -> None:
    # window 1..5 and 100: median 3.5; |dev| = 2.5 1.5 .5 .5 1.5 96.5 -> MAD 1.5 -> 2.2239;
    # MeanAD = 103/6 = 17.17 -> x1.2533 = 21.51: the larger estimate wins.
    centre, scale = robust_centre_scale(np.array([1.0, 2, 3, 4, 5, 100]), min_scale=1e-6)
    assert centre == 3.5
    assert scale == pytest.approx(1.2533 * 103 / 6)


def test_flat_window_uses_min_scale() -> None:
    centre, scale = robust_centre_scale(np.zeros(10), min_scale=0.5)
    assert (centre, scale) == (0.0, 0.5)


def test_streaming_z_flags_a_spike_not_noise() -> None:
    det = RobustZScore(window=20, threshold=3.5, min_periods=10)
    rng = np.random.default_rng(0)
    flags = [bool(det.update(np.array(50 + rng.normal(0, 1)))) for _ in range(30)]
    assert not any(flags)
    assert bool(det.update(np.array(80.0)))
    assert float(det.last_z) > 10


def test_streaming_z_is_elementwise_and_nan_safe() -> None:
    det = RobustZScore(window=10, min_periods=3)
    for v in (1.0, 2.0, 1.0, 2.0):
        det.update(np.array([v, v, np.nan]))
    flags = det.update(np.array([1.5, 50.0, np.nan]))
    assert flags.tolist() == [False, True, False]


def test_batch_z_matches_streaming() -> None:
    series = np.random.default_rng(1).normal(10, 2, 200)
    series[150] = 40
    batch = robust_zscores(series, window=30, min_scale=1e-6)
    det = RobustZScore(window=30, min_periods=30)
    for x in series[:150]:
        det.update(np.array(x))
    det.update(np.array(series[150]))
    assert float(det.last_z) == pytest.approx(batch[150])
    assert np.isnan(batch[:30]).all()


def test_ewma_catches_a_small_sustained_shift() -> None:
    # A 1.5-sigma level shift: too small for |z| >= 3.5 on single points, but the EWMA
    # accumulates it: limit = 3 * 1 * sqrt(0.2 / 1.8) = 1.0.
    rng = np.random.default_rng(2)
    series = np.concatenate([rng.normal(0, 1, 100), rng.normal(1.5, 1, 30)])
    alarms = ewma_alarms(series, window=50, min_scale=1e-6)
    assert alarms[100:].sum() > 5
    assert alarms[50:100].sum() <= 2


def test_streaming_ewma_matches_batch() -> None:
    series = np.random.default_rng(3).normal(5, 1, 120)
    series[90:] += 3
    batch = ewma_alarms(series, window=40, min_scale=1e-6)
    chart = EwmaChart(window=40, min_periods=40)
    stream = [bool(chart.update(np.array(x))) for x in series]
    assert stream == batch.tolist()
