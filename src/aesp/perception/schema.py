"""The versioned report an agent sends, and the metrics it carries.

One :class:`MetricSample` holds the twelve per-node metrics of SPEC §1.1; an :class:`AgentReport`
wraps a sample with the agent's identity, a sequence number and the time it was collected. Both
are frozen pydantic models that reject NaN, infinities, out-of-range values and unknown fields, so
a malformed payload fails at the edge with a message naming the field.

A metric the collector could not read is ``None``, never a made-up value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from aesp.core.resources import FloatArray

SCHEMA_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """Range and change scale of one metric.

    Units: ``lo``, ``hi``, ``scale`` and ``log_floor`` are in the metric's own unit (see its
    name). ``scale`` is the change that counts as "the whole range" when deltas are normalised
    for change detection and change flags. For byte rates (``log_floor`` set) deltas are taken on
    ``log10(1 + x / log_floor)`` and ``scale`` is in decades: rates far below ``log_floor`` barely
    move, so the byte-level noise of an idle host does not read as change.
    """

    name: str
    lo: float
    hi: float
    scale: float
    log_floor: float | None = None


_PCT_SCALE: Final = 100.0
_RATE_HI: Final = 1e13  # 10 TB/s: far above any NIC or disk; rejects counter wrap-around garbage.
_RATE_FLOOR: Final = 1e6  # 1 MB/s

METRIC_SPECS: Final[tuple[MetricSpec, ...]] = (
    MetricSpec("cpu_pct", 0.0, 100.0, _PCT_SCALE),
    MetricSpec("mem_pct", 0.0, 100.0, _PCT_SCALE),
    MetricSpec("disk_pct", 0.0, 100.0, _PCT_SCALE),
    MetricSpec("disk_io_bytes_per_s", 0.0, _RATE_HI, 2.0, log_floor=_RATE_FLOOR),
    MetricSpec("net_rx_bytes_per_s", 0.0, _RATE_HI, 2.0, log_floor=_RATE_FLOOR),
    MetricSpec("net_tx_bytes_per_s", 0.0, _RATE_HI, 2.0, log_floor=_RATE_FLOOR),
    MetricSpec("latency_to_aggregator_ms", 0.0, 600_000.0, 100.0),
    MetricSpec("load_avg_1m", 0.0, 1e6, 8.0),
    MetricSpec("gpu_pct", 0.0, 100.0, _PCT_SCALE),
    MetricSpec("gpu_mem_pct", 0.0, 100.0, _PCT_SCALE),
    MetricSpec("temperature_c", -60.0, 200.0, 50.0),
    MetricSpec("power_watts", 0.0, 1e6, 500.0),
)
METRIC_NAMES: Final[tuple[str, ...]] = tuple(s.name for s in METRIC_SPECS)
N_METRICS: Final = len(METRIC_NAMES)


class MetricSample(BaseModel):
    """One reading of a node's metrics; ``None`` where the value could not be read."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    cpu_pct: float | None = None
    """CPU busy, % of all cores."""
    mem_pct: float | None = None
    """Memory in use, %."""
    disk_pct: float | None = None
    """Root filesystem used, %."""
    disk_io_bytes_per_s: float | None = None
    """Disk read + write, bytes/s."""
    net_rx_bytes_per_s: float | None = None
    net_tx_bytes_per_s: float | None = None
    latency_to_aggregator_ms: float | None = None
    """Round trip to the zone aggregator, ms."""
    load_avg_1m: float | None = None
    gpu_pct: float | None = None
    """GPU busy, mean over the node's GPUs, %."""
    gpu_mem_pct: float | None = None
    """GPU memory used over all GPUs, %."""
    temperature_c: float | None = None
    """Hottest readable sensor, °C."""
    power_watts: float | None = None
    """Node power draw, W."""

    @model_validator(mode="after")
    def _in_range(self) -> MetricSample:
        for spec in METRIC_SPECS:
            value = getattr(self, spec.name)
            if value is not None and not spec.lo <= value <= spec.hi:
                raise ValueError(f"{spec.name}={value} outside [{spec.lo:g}, {spec.hi:g}]")
        return self

    def vector(self) -> FloatArray:
        """The sample as a ``(M,)`` float array in :data:`METRIC_NAMES` order, NaN for ``None``."""
        return np.array(
            [np.nan if (v := getattr(self, n)) is None else v for n in METRIC_NAMES], np.float64
        )

    @classmethod
    def from_vector(cls, values: FloatArray) -> MetricSample:
        """Inverse of :meth:`vector`: NaN becomes ``None``; values are validated.

        Shapes:
            values: ``(M,)`` in :data:`METRIC_NAMES` order.
        """
        if values.shape != (N_METRICS,):
            raise ValueError(f"expected {N_METRICS} metric values, got shape {values.shape}")
        fields = {
            n: None if np.isnan(v) else float(v) for n, v in zip(METRIC_NAMES, values, strict=True)
        }
        return cls(**fields)


class AgentReport(BaseModel):
    """What an agent sends its aggregator: one sample plus identity and ordering.

    ``report_id`` (``agent_id:seq``) is unique per report and stable across retries, so a receiver
    can drop duplicates; ``seq`` increases by one per report an agent creates.

    Units: time_s seconds on the agent's injected clock (the simulator's clock in simulation,
    Unix time on a real host).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    schema_version: Literal[1] = SCHEMA_VERSION
    agent_id: str = Field(min_length=1, max_length=253)
    node: str = Field(min_length=1, max_length=253)
    seq: int = Field(ge=0)
    time_s: float = Field(ge=0.0)
    metrics: MetricSample

    @property
    def report_id(self) -> str:
        return f"{self.agent_id}:{self.seq}"

    def to_json_bytes(self) -> bytes:
        """Compact JSON, the wire format; its length is what compression ratios count."""
        return self.model_dump_json(exclude_none=True).encode()

    @classmethod
    def from_json_bytes(cls, payload: bytes | str) -> AgentReport:
        """Parse and validate a wire payload.

        Raises:
            pydantic.ValidationError: malformed payload, wrong schema version, NaN or
                out-of-range value; the message names the field.
        """
        return cls.model_validate_json(payload)


def change_coordinates(values: FloatArray) -> FloatArray:
    """Map metric values to coordinates where a step of 1.0 is one ``scale`` of change.

    ``c_m = log10(1 + x_m / floor_m) / scale_m`` for byte rates, ``x_m / scale_m`` otherwise;
    NaN stays NaN.

    Shapes:
        values: ``(..., M)`` in :data:`METRIC_NAMES` order; returns the same shape.
    """
    floor = np.array([s.log_floor or 1.0 for s in METRIC_SPECS])
    is_log = np.array([s.log_floor is not None for s in METRIC_SPECS])
    scale = np.array([s.scale for s in METRIC_SPECS])
    logged = np.log10(1.0 + np.maximum(values, 0.0) / floor)
    return np.asarray(np.where(is_log, logged, values) / scale, np.float64)
