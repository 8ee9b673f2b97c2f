"""Generating a scenario's workload: task classes, sizes and diurnal arrivals.

Arrival times for tasks from origin site ``s`` follow the density
``f(t) ~ 1 + A sin(2 pi (t / 86400 + offset_s / 24) - pi / 2)`` on ``[0, horizon)``, i.e. lowest
at the origin's local midnight and highest at local noon; sites in different time zones peak at
different hours. Times are drawn by inverse transform on a one-minute grid.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from aesp.config import Dist, ScenarioConfig, SiteConfig, TaskClassConfig, WorkloadConfig
from aesp.core import Request, Task
from aesp.core.resources import FloatArray

DAY_S = 86400.0


def sample(dist: Dist, rng: np.random.Generator, size: int) -> FloatArray:
    """Draw ``size`` values from a configured distribution."""
    if dist.const is not None:
        return np.full(size, dist.const)
    if dist.low is not None and dist.high is not None:
        return rng.uniform(dist.low, dist.high, size)
    if dist.median is not None and dist.sigma is not None:
        x = rng.lognormal(math.log(dist.median), dist.sigma, size)
        return np.clip(
            x,
            dist.min if dist.min is not None else 0.0,
            dist.max if dist.max is not None else np.inf,
        )
    assert dist.values is not None
    p = None
    if dist.weights is not None:
        p = np.asarray(dist.weights, np.float64) / sum(dist.weights)
    return rng.choice(np.asarray(dist.values, np.float64), size=size, p=p)


def diurnal_arrivals(
    rng: np.random.Generator, n: int, horizon_s: float, amplitude: float, utc_offset_h: float
) -> FloatArray:
    """``n`` sorted arrival times from the diurnal density (see module docstring)."""
    grid = np.arange(0.0, horizon_s + 60.0, 60.0)
    phase = 2 * np.pi * (grid / DAY_S + utc_offset_h / 24.0) - np.pi / 2
    rate = 1.0 + amplitude * np.sin(phase)
    cdf = np.concatenate([[0.0], np.cumsum((rate[1:] + rate[:-1]) / 2)])
    cdf /= cdf[-1]
    times = np.interp(rng.uniform(0, 1, n), cdf, grid)
    return np.sort(np.minimum(times, np.nextafter(horizon_s, 0)))


def _class_counts(workload: WorkloadConfig) -> dict[str, int]:
    """Split the task total by share, largest remainders first, so counts add up exactly."""
    names = list(workload.classes)
    shares = np.array([workload.classes[c].share for c in names])
    raw = shares / shares.sum() * workload.tasks
    counts = np.floor(raw).astype(int)
    for i in np.argsort(-(raw - counts))[: workload.tasks - counts.sum()]:
        counts[i] += 1
    return dict(zip(names, (int(c) for c in counts), strict=True))


def _origins(spec: TaskClassConfig, sites: tuple[SiteConfig, ...]) -> list[SiteConfig]:
    eligible = [s for s in sites if spec.origin_tier in ("any", s.tier) and s.origin_weight > 0]
    if not eligible:
        raise ValueError(f"no site of tier {spec.origin_tier!r} can originate tasks")
    return eligible


def generate_class(
    name: str,
    spec: TaskClassConfig,
    count: int,
    scenario: ScenarioConfig,
    rng: np.random.Generator,
    first_id: int,
) -> list[Task]:
    """The tasks of one class, with arrivals per origin site."""
    wl = scenario.workload
    origins = _origins(spec, scenario.sites)
    weights = np.array([s.origin_weight for s in origins])
    origin_idx = rng.choice(len(origins), size=count, p=weights / weights.sum())
    arrival = np.empty(count)
    for i, site in enumerate(origins):
        chosen = origin_idx == i
        arrival[chosen] = diurnal_arrivals(
            rng, int(chosen.sum()), wl.horizon_s, wl.diurnal_amplitude, site.utc_offset_h
        )
    cpu, mem = sample(spec.cpu_milli, rng, count), sample(spec.mem_mib, rng, count)
    uses_gpu = rng.uniform(size=count) < spec.gpu_probability
    gpu_count = sample(spec.gpu_count, rng, count).astype(int)
    gpu_milli = sample(spec.gpu_milli, rng, count).astype(int)
    work = sample(spec.work_s, rng, count)
    slo = sample(spec.latency_slo_ms, rng, count) if spec.latency_slo_ms else None
    data = sample(spec.data_size_gb, rng, count)
    resident = rng.uniform(size=count) < spec.residency_probability
    cpu_ratio, mem_ratio = (
        sample(spec.cpu_usage_ratio, rng, count),
        sample(spec.mem_usage_ratio, rng, count),
    )
    tasks = []
    for k in range(count):
        site = origins[origin_idx[k]]
        g = int(gpu_count[k]) if uses_gpu[k] else 0
        share = (1000 if g > 1 else int(gpu_milli[k])) if g else 0
        tasks.append(
            Task(
                id=first_id + k,
                name=f"{name}-{k:04d}",
                task_class=name,  # type: ignore[arg-type]
                request=Request(float(round(cpu[k])), float(round(mem[k])), g, share),
                arrival_s=float(arrival[k]),
                work=float(work[k]),
                gpu_models=spec.gpu_models if g else (),
                arches=spec.arches,
                latency_slo_ms=float(slo[k]) if slo is not None else None,
                data_origin=site.name,
                data_size_gb=float(data[k]),
                allowed_jurisdictions=(site.jurisdiction,)
                if resident[k] and site.jurisdiction
                else (),
                priority=spec.priority,
                cpu_usage_ratio=float(cpu_ratio[k]),
                mem_usage_ratio=float(mem_ratio[k]),
            )
        )
    return tasks


def generate_workload(scenario: ScenarioConfig, rng: np.random.Generator) -> list[Task]:
    """All tasks of a scenario, ordered by arrival, with ids 0..n-1 in that order."""
    tasks: list[Task] = []
    for name, count in _class_counts(scenario.workload).items():
        tasks += generate_class(
            name, scenario.workload.classes[name], count, scenario, rng, len(tasks)
        )
    tasks.sort(key=lambda t: (t.arrival_s, t.id))
    return [replace(t, id=i) for i, t in enumerate(tasks)]
