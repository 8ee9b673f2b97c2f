"""Where an agent's samples come from: a real Linux host, or arrays the simulator writes.

Both satisfy :class:`Collector`, so the same :class:`aesp.perception.agent.Agent` logic runs in
the simulator and on a node. A value the host does not expose (no GPU, no temperature sensor, no
readable power meter, no latency probe configured) is ``None``; nothing is estimated or invented.
"""

from __future__ import annotations

import contextlib
import glob
import importlib
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

import numpy as np
import psutil

from aesp.core.resources import CPU, GPU, MEM, FloatArray
from aesp.perception.schema import METRIC_NAMES, METRIC_SPECS, N_METRICS, MetricSample


@runtime_checkable
class Collector(Protocol):
    """Returns one sample of a node's metrics."""

    def collect(self, now_s: float) -> MetricSample:
        """Read the metrics. ``now_s`` is the caller's clock, used only to label the sample."""
        ...


# --------------------------------------------------------------------------- simulated nodes


class FleetMetrics:
    """The current metric values of every simulated node, written by the simulator.

    Shapes:
        values: ``(N, M)`` in :data:`aesp.perception.schema.METRIC_NAMES` order; NaN = unknown.
    """

    def __init__(self, node_names: Sequence[str]) -> None:
        self.node_names = tuple(node_names)
        self._index = {n: i for i, n in enumerate(self.node_names)}
        self.values: FloatArray = np.full((len(self.node_names), N_METRICS), np.nan)

    def set_metric(self, name: str, values: FloatArray) -> None:
        """Set one metric for all nodes, clipped to its valid range (NaN stays NaN).

        Shapes:
            values: ``(N,)``.
        """
        m = METRIC_NAMES.index(name)
        spec = METRIC_SPECS[m]
        self.values[:, m] = np.clip(values, spec.lo, spec.hi)

    def set_usage(self, usage: FloatArray, capacity: FloatArray) -> None:
        """Derive cpu_pct, mem_pct and gpu_pct from resource usage; NaN where capacity is 0.

        Shapes:
            usage, capacity: ``(N, R)`` in :data:`aesp.core.resources.RESOURCE_NAMES` order.
        """
        with np.errstate(divide="ignore", invalid="ignore"):
            pct = np.where(capacity > 0, 100.0 * usage / capacity, np.nan)
        for name, r in (("cpu_pct", CPU), ("mem_pct", MEM), ("gpu_pct", GPU)):
            self.set_metric(name, pct[:, r])

    def collector(self, node: str) -> SimulatedCollector:
        """A collector reading one node's row."""
        return SimulatedCollector(self, self._index[node])


@dataclass(frozen=True)
class SimulatedCollector:
    """Reads one row of a :class:`FleetMetrics`."""

    source: FleetMetrics
    index: int

    def collect(self, now_s: float) -> MetricSample:
        del now_s
        return MetricSample.from_vector(self.source.values[self.index])


# --------------------------------------------------------------------------- real hosts


@dataclass
class RateMeter:
    """Turns a monotonically increasing counter into a rate per second.

    Units: the counter's unit per second of the injected clock.
    """

    last_value: float | None = None
    last_time_s: float | None = None

    def update(self, value: float | None, time_s: float) -> float | None:
        """Rate since the previous update; None on the first call, a reset or no elapsed time."""
        prev_v, prev_t = self.last_value, self.last_time_s
        self.last_value, self.last_time_s = value, time_s
        if value is None or prev_v is None or prev_t is None or time_s <= prev_t:
            return None
        if value < prev_v:  # counter reset or wrap: no honest rate for this interval
            return None
        return (value - prev_v) / (time_s - prev_t)


def tcp_connect_rtt_ms(host: str, port: int, timeout_s: float = 1.0) -> float | None:
    """Time to open a TCP connection to ``host:port``, ms; None when it fails or times out."""
    start = time.perf_counter()
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return (time.perf_counter() - start) * 1000.0
    except OSError:
        return None


def _max_temperature_c() -> float | None:
    """Hottest sensor that psutil sees (hwmon / thermal zones); None when there is none."""
    sensors = getattr(psutil, "sensors_temperatures", None)
    if sensors is None:
        return None
    try:
        readings = [t.current for group in sensors().values() for t in group]
    except (OSError, RuntimeError):
        return None
    finite = [r for r in readings if r is not None and np.isfinite(r)]
    return max(finite) if finite else None


def _read_rapl_energy_j() -> float | None:
    """Total CPU package energy from Intel RAPL, joules; None when absent or not readable."""
    paths = glob.glob("/sys/class/powercap/intel-rapl:[0-9]*/energy_uj")
    total = 0.0
    for path in paths:
        try:
            with open(path) as f:
                total += int(f.read().strip()) / 1e6
        except (OSError, ValueError):
            return None
    return total if paths else None


class NvmlGpus:
    """GPU utilisation, memory, temperature and power via NVML, when ``pynvml`` is importable."""

    def __init__(self) -> None:
        self._nvml: ModuleType | None = None
        self._handles: list[Any] = []
        with contextlib.suppress(Exception):  # no module, no driver, no device: no GPU metrics
            nvml = importlib.import_module("pynvml")
            nvml.nvmlInit()
            count = nvml.nvmlDeviceGetCount()
            self._handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
            self._nvml = nvml

    @property
    def available(self) -> bool:
        return self._nvml is not None and bool(self._handles)

    def read(self) -> dict[str, float | None]:
        """gpu_pct (mean), gpu_mem_pct (over all), max temperature_c, summed power_watts."""
        out: dict[str, float | None] = dict.fromkeys(("gpu_pct", "gpu_mem_pct", "temp", "watts"))
        if not self.available:
            return out
        with contextlib.suppress(Exception):
            out.update(self._read_all())
        return out

    def _read_all(self) -> dict[str, float | None]:
        nvml = self._nvml
        assert nvml is not None
        util = [nvml.nvmlDeviceGetUtilizationRates(h).gpu for h in self._handles]
        mem = [nvml.nvmlDeviceGetMemoryInfo(h) for h in self._handles]
        temp = [nvml.nvmlDeviceGetTemperature(h, nvml.NVML_TEMPERATURE_GPU) for h in self._handles]
        watts = [nvml.nvmlDeviceGetPowerUsage(h) / 1000.0 for h in self._handles]
        return {
            "gpu_pct": float(np.mean(util)),
            "gpu_mem_pct": 100.0 * sum(m.used for m in mem) / sum(m.total for m in mem),
            "temp": float(max(temp)),
            "watts": float(sum(watts)),
        }


_SKIPPED_NICS = ("lo", "ifb")  # loopback; ifb mirrors another NIC's traffic for shaping


@dataclass
class HostCollector:
    """Metrics of the Linux host this process runs on (psutil, /proc, /sys, NVML).

    Rates (disk I/O, network) are counter deltas over the interval since the previous call,
    timed by ``monotonic``; the constructor reads the counters once so the first ``collect``
    already has an interval. ``power_watts`` is the sum of what is readable (RAPL CPU packages
    plus NVML GPUs) and None when neither is; it is not whole-node power at the wall.
    """

    disk_path: str = "/"
    latency_probe: Callable[[], float | None] | None = None
    """Returns the RTT to the aggregator in ms (e.g. a partial of :func:`tcp_connect_rtt_ms`)."""
    monotonic: Callable[[], float] = time.monotonic
    gpus: NvmlGpus = field(default_factory=NvmlGpus)
    _disk: RateMeter = field(default_factory=RateMeter, init=False, repr=False)
    _rx: RateMeter = field(default_factory=RateMeter, init=False, repr=False)
    _tx: RateMeter = field(default_factory=RateMeter, init=False, repr=False)
    _energy: RateMeter = field(default_factory=RateMeter, init=False, repr=False)

    def __post_init__(self) -> None:
        psutil.cpu_percent(interval=None)  # primes psutil's CPU-times baseline
        self._read_rates()

    def collect(self, now_s: float) -> MetricSample:
        del now_s
        disk_io, rx, tx, cpu_watts = self._read_rates()
        gpu = self.gpus.read()
        temps = [t for t in (_max_temperature_c(), gpu["temp"]) if t is not None]
        watts = [w for w in (cpu_watts, gpu["watts"]) if w is not None]
        return MetricSample(
            cpu_pct=psutil.cpu_percent(interval=None),
            mem_pct=psutil.virtual_memory().percent,
            disk_pct=self._disk_pct(),
            disk_io_bytes_per_s=disk_io,
            net_rx_bytes_per_s=rx,
            net_tx_bytes_per_s=tx,
            latency_to_aggregator_ms=self.latency_probe() if self.latency_probe else None,
            load_avg_1m=psutil.getloadavg()[0],
            gpu_pct=gpu["gpu_pct"],
            gpu_mem_pct=gpu["gpu_mem_pct"],
            temperature_c=max(temps) if temps else None,
            power_watts=sum(watts) if watts else None,
        )

    def _disk_pct(self) -> float | None:
        try:
            return float(psutil.disk_usage(self.disk_path).percent)
        except OSError:
            return None

    def _read_rates(self) -> tuple[float | None, ...]:
        t = self.monotonic()
        disk = psutil.disk_io_counters(perdisk=False)
        disk_bytes = None if disk is None else float(disk.read_bytes + disk.write_bytes)
        nics = psutil.net_io_counters(pernic=True)
        real = [c for name, c in nics.items() if not name.startswith(_SKIPPED_NICS)]
        rx = float(sum(c.bytes_recv for c in real)) if real else None
        tx = float(sum(c.bytes_sent for c in real)) if real else None
        return (
            self._disk.update(disk_bytes, t),
            self._rx.update(rx, t),
            self._tx.update(tx, t),
            self._energy.update(_read_rapl_energy_j(), t),
        )
