"""Evaluate the anomaly detectors on the labelled NAB AWS CloudWatch series.

Data: ``DIR/*.csv`` (``timestamp,value``, 5-minute EC2 CPU %) and ``DIR/combined_windows.json``
(NAB labels, keyed ``realAWSCloudwatch/<file>.csv``), from github.com/numenta/NAB (MIT). A file
without a key in the labels is skipped; a key with no windows counts (its detections are all
false positives).

Scoring (point detections against labelled windows, not the NAB weighted score):

1. Each detector flags points (``|z| >= threshold`` or an EWMA alarm).
2. A *detection* is the first flagged point of a run of flagged points, and only if at least
   ``cooldown_points`` points passed since the previous detection (one alarm per episode).
3. As in NAB, the first 15 % of each file is a probationary period: detections there are ignored
   (the detectors need a full window of history anyway).
4. A detection whose timestamp lies inside a labelled window (bounds inclusive) is a true
   positive; every other detection is a false positive. Several detections in one window are
   all true positives for precision.
5. Recall counts windows: a window with at least one detection inside it is found; each window
   counts once.
6. precision = TP detections / all detections, recall = windows found / all windows,
   F1 = 2PR / (P + R); all micro-averaged over files (0 where undefined).

Parameters are fixed a priori (:class:`NabParams` defaults: a one-day window, the 3.5 cut-off of
Iglewicz and Hoaglin, EWMA ``lam = 0.2, L = 3``), not tuned on these files. The result also
reports the two halves of the sorted file list separately, so a reader can see the spread.

Run: ``python -m aesp.perception.nab_eval --path ../shared/data/nab-aws [--json FILE]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aesp.core.resources import BoolArray, FloatArray
from aesp.perception.anomaly import ewma_alarms, robust_zscores

LABEL_PREFIX = "realAWSCloudwatch/"


@dataclass(frozen=True)
class NabParams:
    """Detector and scoring settings. Units: points are 5-minute samples."""

    window_points: int = 288
    """History each point is judged against: one day."""
    z_threshold: float = 3.5
    ewma_lam: float = 0.2
    ewma_limit_sigmas: float = 3.0
    min_scale: float = 0.01
    """Floor on the robust scale, CPU percentage points (about 5x the data's 0.002 resolution)."""
    cooldown_points: int = 12
    """At most one detection per hour of alarms."""
    probation_fraction: float = 0.15


@dataclass
class Counts:
    """Detection tallies for one file or a set of files."""

    detections: int = 0
    true_detections: int = 0
    windows: int = 0
    windows_found: int = 0
    scored_points: int = 0
    """Points after the probationary period."""
    points_in_windows: int = 0

    def add(self, other: Counts) -> None:
        for name in asdict(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def scores(self) -> dict[str, float | int]:
        p = self.true_detections / self.detections if self.detections else 0.0
        r = self.windows_found / self.windows if self.windows else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        chance = self.points_in_windows / self.scored_points if self.scored_points else 0.0
        return {"precision": p, "recall": r, "f1": f1, "chance_precision": chance, **asdict(self)}


Flagger = Callable[[FloatArray, NabParams], BoolArray]


def flag_robust_z(values: FloatArray, params: NabParams) -> BoolArray:
    z = robust_zscores(values, params.window_points, params.min_scale)
    return np.asarray(np.abs(np.nan_to_num(z)) >= params.z_threshold)


def flag_ewma(values: FloatArray, params: NabParams) -> BoolArray:
    return ewma_alarms(
        values, params.window_points, params.min_scale, params.ewma_lam, params.ewma_limit_sigmas
    )


DETECTORS: dict[str, Flagger] = {"robust_z": flag_robust_z, "ewma": flag_ewma}


def detection_indices(flags: BoolArray, cooldown_points: int, start: int = 0) -> list[int]:
    """Onsets of flagged runs, at least ``cooldown_points`` after the previous detection.

    Shapes:
        flags: ``(T,)``. Indices before ``start`` are ignored.
    """
    out: list[int] = []
    for t in np.flatnonzero(flags):
        if t < start or (t > 0 and flags[t - 1]):
            continue
        if out and t - out[-1] < cooldown_points:
            continue
        out.append(int(t))
    return out


def score_file(
    times: pd.DatetimeIndex,
    detections: Sequence[int],
    windows: Sequence[tuple[str, str]],
    start: int = 0,
) -> Counts:
    """Count true detections and found windows for one file (see module doc).

    ``chance_precision`` in the scores is the share of scored points inside windows: the expected
    precision of detections placed at random.
    """
    bounds = [(pd.Timestamp(a), pd.Timestamp(b)) for a, b in windows]
    scored = times[start:]
    inside = np.zeros(len(scored), np.bool_)
    for a, b in bounds:
        inside |= (scored >= a) & (scored <= b)
    found = [False] * len(bounds)
    true = 0
    for i in detections:
        hits = [k for k, (a, b) in enumerate(bounds) if a <= times[i] <= b]
        true += bool(hits)
        for k in hits:
            found[k] = True
    return Counts(len(detections), true, len(bounds), sum(found), len(scored), int(inside.sum()))


def load_series(csv: Path) -> tuple[pd.DatetimeIndex, FloatArray]:
    frame = pd.read_csv(csv, parse_dates=["timestamp"])
    return pd.DatetimeIndex(frame["timestamp"]), frame["value"].to_numpy(np.float64)


def evaluate(path: Path | str, params: NabParams | None = None) -> dict[str, Any]:
    """Run every detector on every labelled file in ``path``; see the module doc for scoring.

    Returns:
        ``{"params", "files", "detectors": {name: {"all", "half_a", "half_b", "per_file"}}}``
        where each score block has precision, recall, f1 and the raw counts.

    Raises:
        FileNotFoundError: no ``combined_windows.json`` or no labelled CSV in ``path``.
    """
    params = params or NabParams()
    path = Path(path)
    labels_file = path / "combined_windows.json"
    if not labels_file.exists():
        raise FileNotFoundError(f"{labels_file} not found (NAB labels, github.com/numenta/NAB)")
    labels = json.loads(labels_file.read_text())
    files = sorted(p for p in path.glob("*.csv") if LABEL_PREFIX + p.name in labels)
    if not files:
        raise FileNotFoundError(f"no labelled NAB CSV files in {path}")
    half_a = {f.name for f in files[: (len(files) + 1) // 2]}
    result: dict[str, Any] = {"params": asdict(params), "files": [f.name for f in files]}
    result["detectors"] = {
        name: _evaluate_detector(flagger, files, labels, half_a, params)
        for name, flagger in DETECTORS.items()
    }
    return result


def _evaluate_detector(
    flagger: Flagger,
    files: Sequence[Path],
    labels: dict[str, list[tuple[str, str]]],
    half_a: set[str],
    params: NabParams,
) -> dict[str, Any]:
    totals = {"all": Counts(), "half_a": Counts(), "half_b": Counts()}
    per_file: dict[str, dict[str, float | int]] = {}
    for csv in files:
        times, values = load_series(csv)
        start = int(params.probation_fraction * len(values))
        found = detection_indices(flagger(values, params), params.cooldown_points, start)
        counts = score_file(times, found, labels[LABEL_PREFIX + csv.name], start)
        per_file[csv.name] = counts.scores()
        totals["all"].add(counts)
        totals["half_a" if csv.name in half_a else "half_b"].add(counts)
    return {**{k: c.scores() for k, c in totals.items()}, "per_file": per_file}


def format_table(result: dict[str, Any]) -> str:
    """A plain-text summary: one row per detector and file set."""
    rows = [
        f"{'detector':<10} {'files':<7} {'precision':>9} {'recall':>7} {'f1':>6} "
        f"{'det':>5} {'tp':>4} {'win':>4} {'found':>5} {'chance_p':>8}"
    ]
    for name, block in result["detectors"].items():
        for part in ("all", "half_a", "half_b"):
            s = block[part]
            rows.append(
                f"{name:<10} {part:<7} {s['precision']:>9.3f} {s['recall']:>7.3f} {s['f1']:>6.3f} "
                f"{s['detections']:>5} {s['true_detections']:>4} {s['windows']:>4} "
                f"{s['windows_found']:>5} {s['chance_precision']:>8.3f}"
            )
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--path", required=True, type=Path, help="folder with NAB AWS CSVs + labels"
    )
    parser.add_argument("--json", type=Path, help="also write the full result here")
    args = parser.parse_args(argv)
    try:
        result = evaluate(args.path)
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(format_table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
