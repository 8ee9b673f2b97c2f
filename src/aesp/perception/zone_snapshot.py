"""One zone's minute: the compressed summary a regional aggregator emits, and its wire format.

Compression is temporal and spatial. Temporal: every report a node sent in the minute collapses
to four statistics per metric (min, mean, max, p95), plus the last value and when it arrived.
Spatial: the whole zone travels as one message with node and metric names written once and the
statistics as column-major ``float32`` arrays, so similar nodes compress well under zlib; a
zone-wide summary (:meth:`ZoneSnapshot.zone_summary`) is derived from it.

Wire format, version 1: ``zlib( u32 header_length | header JSON | arrays )`` where the header
holds zone, start_s, end_s, bytes_in, node names, metric names and the array shapes and dtypes,
and the arrays follow in header order as raw little-endian bytes.
"""

from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass, field
from typing import Final

import numpy as np

from aesp.core.resources import BoolArray, FloatArray, IntArray
from aesp.perception.schema import METRIC_NAMES

FORMAT_VERSION: Final = 1
STATS: Final = ("min", "mean", "max", "p95")
_ARRAYS: Final = (
    ("stats", "<f4"),
    ("last", "<f4"),
    ("counts", "<i4"),
    ("last_report_s", "<f8"),
    ("changed", "|b1"),
    ("anomalous", "|b1"),
)


@dataclass(frozen=True, eq=False)
class ZoneSnapshot:
    """Per-node statistics of one zone over ``[start_s, end_s)``.

    Shapes:
        stats: ``(N, M, 4)`` min, mean, max, p95 (see :data:`STATS`); NaN without data.
        last: ``(N, M)`` the node's most recent values in the window; NaN without data.
        counts: ``(N,)`` reports received in the window.
        last_report_s: ``(N,)`` time of the node's most recent report ever; NaN if none.
        changed: ``(N, M)`` the change flag of each metric (see the aggregator).
        anomalous: ``(N, M)`` the anomaly flag of each metric's minute mean.
    Units:
        start_s, end_s, last_report_s: seconds. bytes_in: bytes of report JSON summarised.
    """

    zone: str
    start_s: float
    end_s: float
    nodes: tuple[str, ...]
    stats: FloatArray = field(repr=False)
    last: FloatArray = field(repr=False)
    counts: IntArray = field(repr=False)
    last_report_s: FloatArray = field(repr=False)
    changed: BoolArray = field(repr=False)
    anomalous: BoolArray = field(repr=False)
    bytes_in: int = 0
    metric_names: tuple[str, ...] = METRIC_NAMES

    def stat(self, node: str, metric: str, stat: str) -> float:
        """One statistic, e.g. ``stat("n1", "cpu_pct", "p95")``."""
        i = self.nodes.index(node)
        return float(self.stats[i, self.metric_names.index(metric), STATS.index(stat)])

    def zone_summary(self) -> FloatArray:
        """Zone-wide ``(M, 3)``: mean of node means, max of node maxima, p95 of node means."""
        means, maxima = self.stats[:, :, 1], self.stats[:, :, 2]
        out = np.full((len(self.metric_names), 3), np.nan)
        has = np.isfinite(means).any(axis=0)
        if has.any():
            out[has, 0] = np.nanmean(means[:, has], axis=0)
            out[has, 1] = np.nanmax(maxima[:, has], axis=0)
            out[has, 2] = np.nanpercentile(means[:, has], 95, axis=0)
        return out

    def to_bytes(self) -> bytes:
        """Encode to the compressed wire format (see the module doc)."""
        arrays = [np.ascontiguousarray(getattr(self, n), dtype=d) for n, d in _ARRAYS]
        header = {
            "version": FORMAT_VERSION,
            "zone": self.zone,
            "start_s": self.start_s,
            "end_s": self.end_s,
            "bytes_in": self.bytes_in,
            "nodes": list(self.nodes),
            "metrics": list(self.metric_names),
            "shapes": [list(a.shape) for a in arrays],
        }
        head = json.dumps(header, separators=(",", ":")).encode()
        body = b"".join(a.tobytes(order="F") for a in arrays)
        return zlib.compress(struct.pack("<I", len(head)) + head + body, level=6)

    @classmethod
    def from_bytes(cls, payload: bytes) -> ZoneSnapshot:
        """Decode :meth:`to_bytes`; float32 statistics come back as float64.

        Raises:
            ValueError: unknown format version or truncated payload.
        """
        raw = zlib.decompress(payload)
        (n_head,) = struct.unpack_from("<I", raw)
        header = json.loads(raw[4 : 4 + n_head])
        if header.get("version") != FORMAT_VERSION:
            raise ValueError(f"unknown zone snapshot format {header.get('version')!r}")
        offset, arrays = 4 + n_head, {}
        for (name, dtype), shape in zip(_ARRAYS, header["shapes"], strict=True):
            size = int(np.prod(shape)) * np.dtype(dtype).itemsize
            if offset + size > len(raw):
                raise ValueError("truncated zone snapshot")
            flat = np.frombuffer(raw, dtype, count=int(np.prod(shape)), offset=offset)
            arrays[name] = flat.reshape(shape, order="F").copy()
            offset += size
        return cls(
            zone=header["zone"],
            start_s=header["start_s"],
            end_s=header["end_s"],
            nodes=tuple(header["nodes"]),
            stats=arrays["stats"].astype(np.float64),
            last=arrays["last"].astype(np.float64),
            counts=arrays["counts"].astype(np.int64),
            last_report_s=arrays["last_report_s"],
            changed=arrays["changed"],
            anomalous=arrays["anomalous"],
            bytes_in=header["bytes_in"],
            metric_names=tuple(header["metrics"]),
        )
