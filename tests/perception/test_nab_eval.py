"""The NAB evaluation: scoring arithmetic, and a run on the real labelled series."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aesp.perception.nab_eval import detection_indices, evaluate, main, score_file


def test_detections_are_run_onsets_with_cooldown_after_probation() -> None:
    flags = np.array([1, 1, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1], bool)
    # onsets at 0, 3, 8, 11; start = 1 drops 0; cooldown 5 keeps 3, drops nothing else at 8 (5
    # after 3) and drops 11 (3 after 8).
    assert detection_indices(flags, cooldown_points=5, start=1) == [3, 8]


def test_score_counts_detections_and_windows_once() -> None:
    times = pd.DatetimeIndex(pd.date_range("2014-01-01", periods=10, freq="5min"))
    windows = [("2014-01-01 00:10:00", "2014-01-01 00:20:00")]  # points 2..4
    counts = score_file(times, [2, 3, 8], windows)
    s = counts.scores()
    # 2 of 3 detections inside; the one window found once -> P = 2/3, R = 1, F1 = 0.8.
    assert (s["precision"], s["recall"]) == (pytest.approx(2 / 3), 1.0)
    assert s["f1"] == pytest.approx(0.8)
    assert s["chance_precision"] == pytest.approx(0.3)


def test_nab_evaluation_on_real_data(nab_dir: Path, tmp_path: Path) -> None:
    result = evaluate(nab_dir)
    for name in ("robust_z", "ewma"):
        block = result["detectors"][name]["all"]
        assert 0.0 <= block["precision"] <= 1.0 and 0.0 <= block["recall"] <= 1.0
        assert block["windows"] == 12  # 8 EC2 CPU files; one has no window
    out = tmp_path / "nab.json"
    assert main(["--path", str(nab_dir), "--json", str(out)]) == 0
    assert out.exists()


def test_nab_evaluation_reports_missing_data(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="combined_windows"):
        evaluate(tmp_path)
    assert main(["--path", str(tmp_path)]) == 2
