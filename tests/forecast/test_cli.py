"""``aesp forecast`` through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from aesp.cli.forecast import app
from aesp.forecast.registry import load_forecaster

RUNNER = CliRunner()


@pytest.fixture
def nab_folder(tmp_path: Path) -> Path:
    """Two small NAB-format files (600 five-minute points each)."""
    rng = np.random.default_rng(0)
    times = np.datetime64("2014-02-14T14:30") + np.arange(600) * np.timedelta64(5, "m")
    for name in ("a", "b"):
        values = 50 + 10 * np.sin(np.arange(600) / 20) + rng.normal(0, 1, 600)
        lines = [
            f"{str(t).replace('T', ' ')}:00,{v:.3f}" for t, v in zip(times, values, strict=True)
        ]
        (tmp_path / f"{name}.csv").write_text("timestamp,value\n" + "\n".join(lines) + "\n")
    return tmp_path


def _error_line(result: object) -> str:
    output: str = result.stderr  # type: ignore[attr-defined]
    return output.strip()


def test_eval_writes_json(nab_folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = RUNNER.invoke(
        app,
        [
            "eval",
            "--dataset",
            "nab",
            "--path",
            str(nab_folder),
            "--models",
            "seasonal_naive,ewma",
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["dataset"] == "nab" and doc["horizon_steps"] == 3 and doc["series"] == 2
    expected = {"mae", "rmse", "smape", "mape", "mase", "burst_mae", "fit_s", "predict_ms"}
    assert expected <= set(doc["models"]["ewma"])


def test_train_saves_a_loadable_model(nab_folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "ewma.model"
    args = ["train", "--dataset", "nab", "--path", str(nab_folder), "--model", "ewma"]
    result = RUNNER.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert load_forecaster(out).name == "ewma"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dataset", "imagenet"], "unknown dataset 'imagenet'"),
        (["--dataset", "nab", "--models", "prophet"], "unknown model(s) ['prophet']"),
        (["--dataset", "nab", "--horizon", "soon"], "invalid horizon 'soon'"),
    ],
)
def test_bad_input_is_one_line_exit_2(nab_folder: Path, args: list[str], message: str) -> None:
    result = RUNNER.invoke(app, ["eval", "--path", str(nab_folder), *args])
    assert result.exit_code == 2
    assert _error_line(result) == _error_line(result).splitlines()[0]
    assert message in _error_line(result)
    assert "Traceback" not in result.output


def test_missing_path(tmp_path: Path) -> None:
    result = RUNNER.invoke(app, ["eval", "--dataset", "nab", "--path", str(tmp_path / "no")])
    assert result.exit_code == 2
    assert "no such file or folder" in _error_line(result)


def test_malformed_file(tmp_path: Path) -> None:
    (tmp_path / "x.csv").write_text("timestamp,value\n2014-02-14 14:30:00,oops\n")
    result = RUNNER.invoke(app, ["eval", "--dataset", "nab", "--path", str(tmp_path)])
    assert result.exit_code == 2
    assert "x.csv:2: column 'value'" in _error_line(result)


def test_too_short_series_is_a_clean_error(tmp_path: Path) -> None:
    (tmp_path / "x.csv").write_text(
        "timestamp,value\n2014-02-14 14:30:00,1\n2014-02-14 14:35:00,2\n"
    )
    result = RUNNER.invoke(app, ["eval", "--dataset", "nab", "--path", str(tmp_path)])
    assert result.exit_code == 2
    assert "too few" in _error_line(result)
