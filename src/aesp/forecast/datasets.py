"""Readers that turn the public load traces into one :class:`~aesp.forecast.panel.Panel`.

Each reader accepts a folder or a single file, plain or gzipped (detected by the gzip magic
bytes, not the name). Irregular samples are averaged into grid cells of ``step_s`` seconds and
empty cells are forward-filled and marked unobserved (see :func:`~aesp.forecast.panel.regularise`).
Series with fewer than ``min_coverage`` observed cells over the common grid are dropped and listed
in ``Panel.dropped``. A file that cannot be parsed raises :class:`DatasetError` naming the file and
the line.

Sources (all public; the copies in ``shared/data`` are samples/subsets):
    bitbrains: GWA-T-12 Bitbrains "Rnd", Shen, van Beek, Iosup, CCGrid 2015.
    alibaba2018: Alibaba cluster-trace-v2018 ``machine_usage`` (a 16-machine sample).
    nab: Numenta Anomaly Benchmark ``realAWSCloudwatch`` EC2 CPU series.
    helios: SenseTime Helios "Earth" cluster sequences (Hu et al., SC'21).
    genai-gpu: Alibaba cluster-trace-v2026-GenAI per-container GPU duty cycle.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from aesp.forecast.panel import FloatArray, Panel, forward_fill, regularise

DEFAULT_MIN_COVERAGE = 0.8
"""Fraction of grid cells a series must observe to be kept."""


class DatasetError(ValueError):
    """A trace file is missing or malformed; the message names the file and, if known, the line."""


def list_files(path: Path, patterns: Sequence[str]) -> list[Path]:
    """The files to read: ``path`` itself, or the files in folder ``path`` matching a pattern."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise DatasetError(f"{path}: no such file or folder")
    found = sorted({f for pattern in patterns for f in path.glob(pattern)}, key=_natural_key)
    if not found:
        raise DatasetError(f"{path}: no files matching {', '.join(patterns)}")
    return found


def _natural_key(path: Path) -> tuple[int, str]:
    match = re.match(r"(\d+)", path.name)
    return (int(match.group(1)) if match else -1, path.name)


def _compression(path: Path) -> str | None:
    with path.open("rb") as handle:
        return "gzip" if handle.read(2) == b"\x1f\x8b" else None


def read_table(path: Path, **kwargs: object) -> pd.DataFrame:
    """``pandas.read_csv`` with any parse failure turned into a :class:`DatasetError`."""
    try:
        frame = pd.read_csv(path, compression=_compression(path), **kwargs)  # type: ignore[call-overload]
    except (pd.errors.ParserError, UnicodeDecodeError, EOFError, OSError, ValueError) as exc:
        raise DatasetError(f"{path}: {exc}".replace("\n", " ")) from exc
    if not isinstance(frame, pd.DataFrame) or frame.empty:
        raise DatasetError(f"{path}: no data rows")
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


def numeric_column(frame: pd.DataFrame, column: str, path: Path, header_lines: int) -> FloatArray:
    """A column as float64; raises naming the first line whose value is not a number.

    Empty cells become NaN (treated as gaps); text that is not a number is an error.
    """
    if column not in frame.columns:
        raise DatasetError(f"{path}: missing column {column!r} (found {list(frame.columns)})")
    raw = frame[column]
    parsed = pd.to_numeric(raw, errors="coerce")
    bad = parsed.isna() & raw.notna() & (raw.astype(str).str.strip() != "")
    if bad.any():
        row = int(np.argmax(bad.to_numpy()))
        line = row + header_lines + 1
        raise DatasetError(
            f"{path}:{line}: column {column!r}: not a number: {str(raw.iloc[row]).strip()!r}"
        )
    out: FloatArray = parsed.to_numpy(dtype=np.float64)
    return out


def datetime_column(frame: pd.DataFrame, column: str, path: Path) -> FloatArray:
    """A ``YYYY-MM-DD HH:MM:SS`` column as Unix seconds; raises naming the first bad line."""
    if column not in frame.columns:
        raise DatasetError(f"{path}: missing column {column!r} (found {list(frame.columns)})")
    parsed = pd.to_datetime(frame[column], format="%Y-%m-%d %H:%M:%S", errors="coerce", utc=True)
    if parsed.isna().any():
        row = int(np.argmax(parsed.isna().to_numpy()))
        raise DatasetError(
            f"{path}:{row + 2}: column {column!r}: not a timestamp: {frame[column].iloc[row]!r}"
        )
    seconds: FloatArray = (parsed.astype("int64") // 10**9).to_numpy(dtype=np.float64)
    return seconds


def infer_step_s(times_s: FloatArray) -> int:
    """The typical sampling interval: median gap between distinct timestamps (rounded)."""
    gaps = np.diff(np.unique(times_s))
    if gaps.size == 0:
        raise DatasetError("cannot infer a sampling step from fewer than two timestamps")
    return max(1, round(float(np.median(gaps))))


def build_panel(
    series: dict[str, tuple[FloatArray, FloatArray]],
    step_s: int,
    unit: str,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
) -> Panel:
    """Put many ``(times_s, values)`` series on one shared grid spanning all of them.

    Series observing fewer than ``min_coverage`` of the grid cells are dropped.
    """
    if not series:
        raise DatasetError("no series found")
    first_s = min(float(np.nanmin(t)) for t, _ in series.values())
    last_s = max(float(np.nanmax(t)) for t, _ in series.values())
    grid_start_s = int(first_s // step_s * step_s)
    n_steps = int((last_s - grid_start_s) // step_s) + 1
    kept: list[str] = []
    rows: list[tuple[FloatArray, np.ndarray]] = []
    dropped: list[str] = []
    for sid, (times_s, values) in series.items():
        dense, observed = regularise(times_s, values, grid_start_s, step_s, n_steps)
        if observed.mean() < min_coverage:
            dropped.append(sid)
            continue
        kept.append(sid)
        rows.append((dense, observed))
    if not kept:
        raise DatasetError(f"every series observes < {min_coverage:.0%} of the grid: {dropped}")
    return Panel(
        series_ids=tuple(kept),
        values=np.stack([r[0] for r in rows]),
        observed=np.stack([r[1] for r in rows]),
        step_s=step_s,
        start_s=np.full(len(kept), grid_start_s, dtype=np.int64),
        unit=unit,
        dropped=tuple(dropped),
    )


BITBRAINS_COLUMNS = {"cpu": "CPU usage [%]", "mem": "Memory usage [KB]"}


def read_bitbrains(path: Path, metric: str = "cpu") -> Panel:
    """Bitbrains Rnd: one ``;``-separated file per VM, 300 s samples.

    The ``Timestamp [ms]`` column actually holds Unix seconds. Series ids are ``vm-<file stem>``.
    """
    column = BITBRAINS_COLUMNS[metric]
    series: dict[str, tuple[FloatArray, FloatArray]] = {}
    for file in list_files(path, ["*.csv.gz", "*.csv"]):
        frame = read_table(file, sep=";", skipinitialspace=True)
        times_s = numeric_column(frame, "Timestamp [ms]", file, header_lines=1)
        series["vm-" + file.name.split(".")[0]] = (times_s, numeric_column(frame, column, file, 1))
    return build_panel(series, 300, "percent" if metric == "cpu" else "KB")


ALIBABA2018_COLUMNS = (
    "machine_id",
    "time_stamp",
    "cpu_util_percent",
    "mem_util_percent",
    "mem_gps",
    "mkpi",
    "net_in",
    "net_out",
    "disk_io_percent",
)


def read_alibaba2018(path: Path, metric: str = "cpu", step_s: int = 300) -> Panel:
    """Alibaba 2018 ``machine_usage`` (no header), irregular 10-100 s samples averaged per cell."""
    column = {"cpu": "cpu_util_percent", "mem": "mem_util_percent"}[metric]
    series: dict[str, tuple[FloatArray, FloatArray]] = {}
    for file in list_files(path, ["machine_usage*.csv.gz", "machine_usage*.csv"]):
        frame = read_table(file, header=None, dtype=str, keep_default_na=False)
        if frame.shape[1] != len(ALIBABA2018_COLUMNS):
            raise DatasetError(
                f"{file}:1: expected {len(ALIBABA2018_COLUMNS)} columns, found {frame.shape[1]}"
            )
        frame.columns = list(ALIBABA2018_COLUMNS)
        times_s = numeric_column(frame, "time_stamp", file, header_lines=0)
        values = numeric_column(frame, column, file, header_lines=0)
        for machine, rows in frame.groupby("machine_id").indices.items():
            series[str(machine)] = (times_s[rows], values[rows])
    return build_panel(dict(sorted(series.items())), step_s, "percent")


def read_nab(path: Path) -> Panel:
    """NAB AWS CloudWatch CPU series (``timestamp,value``, 5 min).

    The series come from different weeks, so each keeps its own clock (``start_s``) and the
    panel aligns them by index, keeping the last common-length stretch of each.
    """
    rows: dict[str, tuple[FloatArray, np.ndarray, int]] = {}
    for file in list_files(path, ["*.csv"]):
        frame = read_table(file)
        times_s = datetime_column(frame, "timestamp", file)
        values = numeric_column(frame, "value", file, header_lines=1)
        step_s = infer_step_s(times_s)
        n_steps = int((times_s.max() - times_s.min()) // step_s) + 1
        dense, observed = regularise(times_s, values, int(times_s.min()), step_s, n_steps)
        rows[file.name.removesuffix(".csv")] = (dense, observed, step_s)
    steps = {step for _, _, step in rows.values()}
    if len(steps) != 1:
        raise DatasetError(f"{path}: NAB files have different sampling steps {sorted(steps)}")
    length = min(r[0].size for r in rows.values())
    return Panel(
        series_ids=tuple(rows),
        values=np.stack([r[0][-length:] for r in rows.values()]),
        observed=np.stack([r[1][-length:] for r in rows.values()]),
        step_s=steps.pop(),
        start_s=np.zeros(len(rows), dtype=np.int64),
        unit="percent",
    )


def read_helios(path: Path, column: str = "gpu_utilization") -> Panel:
    """Helios Earth virtual-cluster sequences: one row a minute; ``gpu_utilization`` is the
    fraction of the cluster's GPUs allocated to running jobs (0-1)."""
    series: dict[str, tuple[FloatArray, FloatArray]] = {}
    for file in list_files(path, ["*_cluster_sequence.csv.gz", "*_cluster_sequence.csv"]):
        frame = read_table(file)
        times_s = datetime_column(frame, "time", file)
        name = file.name.split("_cluster_sequence")[0]
        series[name] = (times_s, numeric_column(frame, column, file, header_lines=1))
    return build_panel(series, 60, "fraction")


def read_genai_gpu(path: Path, min_coverage: float = DEFAULT_MIN_COVERAGE) -> Panel:
    """Alibaba GenAI per-container GPU duty cycle (``value,timestamp_anon,container_ip``).

    Samples every 57 s; the grid step is inferred from the timestamps. Many containers live for
    only part of the day and are dropped by ``min_coverage``.
    """
    series: dict[str, tuple[FloatArray, FloatArray]] = {}
    all_times: list[FloatArray] = []
    for file in list_files(path, ["pod_gpu_duty_cycle*.csv.gz", "pod_gpu_duty_cycle*.csv"]):
        frame = read_table(file, dtype={"container_ip": str})
        times_s = numeric_column(frame, "timestamp_anon", file, header_lines=1)
        values = numeric_column(frame, "value", file, header_lines=1)
        if "container_ip" not in frame.columns:
            raise DatasetError(f"{file}: missing column 'container_ip'")
        for container, rows in frame.groupby("container_ip").indices.items():
            series[str(container)[:12]] = (times_s[rows], values[rows])
        all_times.append(times_s)
    step_s = infer_step_s(np.concatenate(all_times))
    return build_panel(dict(sorted(series.items())), step_s, "percent", min_coverage)


READERS: dict[str, Callable[[Path], Panel]] = {
    "bitbrains": read_bitbrains,
    "alibaba2018": read_alibaba2018,
    "nab": read_nab,
    "helios": read_helios,
    "genai-gpu": read_genai_gpu,
}
"""Dataset name (as on the command line) -> reader."""


def load_dataset(name: str, path: Path, max_series: int | None = None) -> Panel:
    """Read dataset ``name`` from ``path``; keep the first ``max_series`` series if given."""
    if name not in READERS:
        raise DatasetError(f"unknown dataset {name!r}; choose one of {', '.join(READERS)}")
    panel = READERS[name](Path(path))
    if max_series is not None and max_series < panel.n_series:
        panel = panel.select(np.arange(max_series))
    return panel


__all__ = [
    "READERS",
    "DatasetError",
    "build_panel",
    "forward_fill",
    "load_dataset",
    "read_alibaba2018",
    "read_bitbrains",
    "read_genai_gpu",
    "read_helios",
    "read_nab",
]
