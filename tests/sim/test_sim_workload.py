"""Workload generation for the shipped scenario: counts, shares, horizon, diurnal peaks."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from aesp.config import load_scenario
from aesp.experiments import scenario_workload
from aesp.sim.workload import DAY_S, diurnal_arrivals


def peak_hour_utc(arrivals_s: np.ndarray) -> float:  # type: ignore[type-arg]
    """Circular mean of arrival times over the day, in UTC hours (the peak of a sinusoid)."""
    angle = np.angle(np.exp(2j * np.pi * arrivals_s / DAY_S).mean())
    return float(angle / (2 * np.pi) * 24 % 24)


def hour_distance(a: float, b: float) -> float:
    d = abs(a - b) % 24
    return min(d, 24 - d)


def test_task_count_and_class_shares() -> None:
    tasks = scenario_workload("seed-experiment").tasks
    assert len(tasks) == 1100
    # shares .25 / .45 / .30 of 1100 = 275 / 495 / 330 exactly
    assert Counter(t.task_class for t in tasks) == {"training": 275, "analytics": 495, "transcode": 330}
    assert [t.id for t in tasks] == list(range(1100))
    assert [t.arrival_s for t in tasks] == sorted(t.arrival_s for t in tasks)


def test_arrivals_within_the_horizon_and_requests_sane() -> None:
    config = load_scenario("seed-experiment")
    tasks = scenario_workload(config).tasks
    arrivals = np.array([t.arrival_s for t in tasks])
    assert arrivals.min() >= 0 and arrivals.max() < config.workload.horizon_s
    training = [t for t in tasks if t.task_class == "training"]
    assert all(t.request.gpu_count >= 1 and t.request.gpu_milli == 1000 for t in training)
    assert all(t.request.gpu_count == 0 for t in tasks if t.task_class == "analytics")
    gpu_transcode = [t for t in tasks if t.task_class == "transcode" and t.request.gpu_count]
    assert gpu_transcode and all(t.request.gpu_milli in (250, 500) for t in gpu_transcode)


def test_diurnal_peaks_shift_with_the_utc_offset() -> None:
    # Peak at local noon: UTC+8 -> 04:00 UTC, UTC-5 -> 17:00 UTC, UTC+1 -> 11:00 UTC.
    config = load_scenario("seed-experiment")
    offset = {s.name: s.utc_offset_h for s in config.sites}
    tasks = scenario_workload(config).tasks
    by_offset = {
        o: np.array([t.arrival_s for t in tasks if offset[t.data_origin] == o]) for o in (8, -5, 1)
    }
    for o, expected in ((8, 4.0), (-5, 17.0), (1, 11.0)):
        assert hour_distance(peak_hour_utc(by_offset[o]), expected) < 1.5, o
    # Arrival-hour histograms: China-origin tasks crowd 00-08 UTC, US-origin tasks 12-20 UTC.
    hours = {o: (a // 3600).astype(int) for o, a in by_offset.items()}
    cn_early = np.mean((hours[8] >= 0) & (hours[8] < 8))
    us_early = np.mean((hours[-5] >= 0) & (hours[-5] < 8))
    assert cn_early > us_early + 0.15
    cn_late = np.mean((hours[8] >= 12) & (hours[8] < 20))
    us_late = np.mean((hours[-5] >= 12) & (hours[-5] < 20))
    assert us_late > cn_late + 0.15


@pytest.mark.parametrize(("offset_h", "peak_utc"), [(0.0, 12.0), (8.0, 4.0), (-5.0, 17.0)])
def test_diurnal_arrivals_peak_at_local_noon(offset_h: float, peak_utc: float) -> None:
    rng = np.random.default_rng(0)
    t = diurnal_arrivals(rng, 20000, DAY_S, 0.6, offset_h)
    assert (np.diff(t) >= 0).all() and t.min() >= 0 and t.max() < DAY_S
    assert hour_distance(peak_hour_utc(t), peak_utc) < 0.3


def test_flat_arrivals_without_amplitude() -> None:
    t = diurnal_arrivals(np.random.default_rng(1), 24000, DAY_S, 0.0, 8.0)
    per_hour = np.bincount((t // 3600).astype(int), minlength=24)
    # 1000 per hour expected; Poisson-ish noise ~ sqrt(1000) ~ 32
    assert per_hour.min() > 850 and per_hour.max() < 1150


def test_same_seed_same_workload_different_seed_different() -> None:
    a = scenario_workload("seed-experiment", seed=3).tasks
    b = scenario_workload("seed-experiment", seed=3).tasks
    c = scenario_workload("seed-experiment", seed=4).tasks
    assert a == b and a != c
