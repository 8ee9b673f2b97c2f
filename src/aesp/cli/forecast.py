"""``aesp forecast``: backtest and train load forecasters on the public traces."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from aesp.cli.tables import table_console
from aesp.forecast.backtest import METRIC_NAMES, BacktestConfig, BacktestReport, run_backtest
from aesp.forecast.datasets import READERS, DatasetError, load_dataset
from aesp.forecast.panel import Panel, steps_for
from aesp.forecast.registry import ALL_MODELS, DEEP_MODELS, create, factory, save_forecaster

app = typer.Typer(help="Load forecasting: backtest and train forecasters.", no_args_is_help=True)
_stderr = Console(stderr=True)

DEFAULT_MODELS = ",".join(ALL_MODELS)
DatasetOpt = Annotated[str, typer.Option("--dataset", help=f"One of: {', '.join(READERS)}.")]
PathOpt = Annotated[Path, typer.Option("--path", help="Folder or file (plain or gzipped).")]
HorizonOpt = Annotated[str, typer.Option("--horizon", help="Horizon, e.g. 15m, 900s, 1h.")]


class UsageError(Exception):
    """Bad input: reported as one line on stderr with exit code 2."""


def parse_duration_s(text: str) -> int:
    """``15m`` -> 900, ``900s`` or ``900`` -> 900, ``1h`` -> 3600."""
    match = re.fullmatch(r"\s*(\d+)\s*([smh]?)\s*", text)
    if not match or int(match.group(1)) <= 0:
        raise UsageError(f"invalid horizon {text!r}; use e.g. 15m, 900s or 1h")
    return int(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]


def parse_models(text: str) -> list[str]:
    """Comma-separated model names, validated."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in ALL_MODELS]
    if unknown or not names:
        raise UsageError(f"unknown model(s) {unknown or text!r}; choose from {DEFAULT_MODELS}")
    return names


def _load(dataset: str, path: Path, max_series: int | None) -> Panel:
    if dataset not in READERS:
        raise UsageError(f"unknown dataset {dataset!r}; choose one of {', '.join(READERS)}")
    if not path.exists():
        raise UsageError(f"{path}: no such file or folder")
    if max_series is not None and max_series < 1:
        raise UsageError("--max-series must be at least 1")
    return load_dataset(dataset, path, max_series)


def _fail(message: str) -> typer.Exit:
    _stderr.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


def report_json(dataset: str, report: BacktestReport) -> dict[str, Any]:
    """The ``--json`` document."""
    return {
        "dataset": dataset,
        "horizon_steps": report.horizon_steps,
        "series": report.n_series,
        "origins": report.n_origins,
        "models": {
            name: {key: values[key] for key in (*METRIC_NAMES, "burst_share")}
            for name, values in report.models.items()
        },
    }


def _table(dataset: str, panel: Panel, report: BacktestReport) -> Table:
    table = Table(
        title=f"{dataset}: {report.n_series} series, step {panel.step_s} s, "
        f"horizon {report.horizon_steps} steps, {report.n_origins} origins"
    )
    table.add_column("model")
    for key in METRIC_NAMES:
        table.add_column(key, justify="right")
    for name, values in report.models.items():
        table.add_row(name, *(f"{values[key]:.3f}" for key in METRIC_NAMES))
    return table


@app.command("eval")
def eval_command(
    dataset: DatasetOpt,
    path: PathOpt,
    horizon: HorizonOpt = "15m",
    models: Annotated[str, typer.Option(help="Comma-separated model names.")] = DEFAULT_MODELS,
    max_series: Annotated[int | None, typer.Option(help="Use only the first N series.")] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write results here.")] = None,
    max_train_s: Annotated[float, typer.Option(help="Training budget per deep model.")] = 60.0,
) -> None:
    """Rolling-origin backtest of the chosen models on one dataset."""
    try:
        names = parse_models(models)
        config = BacktestConfig(horizon_s=parse_duration_s(horizon))
        panel = _load(dataset, path, max_series)
        makers = {
            n: factory(n, max_train_s=max_train_s) if n in DEEP_MODELS else factory(n)
            for n in names
        }
        report = run_backtest(panel, makers, config)
    except (UsageError, DatasetError) as exc:
        raise _fail(str(exc)) from None
    except ValueError as exc:
        raise _fail(f"{dataset}: {exc}") from None
    table_console().print(_table(dataset, panel, report))
    if json_path is not None:
        json_path.write_text(json.dumps(report_json(dataset, report), indent=2) + "\n")


@app.command("train")
def train_command(
    dataset: DatasetOpt,
    path: PathOpt,
    model: Annotated[str, typer.Option("--model", help="Model name.")],
    out: Annotated[Path, typer.Option("--out", help="Where to save the fitted model.")],
    horizon: HorizonOpt = "15m",
    max_series: Annotated[int | None, typer.Option(help="Use only the first N series.")] = None,
    max_train_s: Annotated[float, typer.Option(help="Training budget for deep models.")] = 60.0,
) -> None:
    """Fit one model on all of a dataset and save it."""
    try:
        name = parse_models(model)[0]
        horizon_s = parse_duration_s(horizon)
        panel = _load(dataset, path, max_series)
        forecaster = create(name, max_train_s=max_train_s) if name in DEEP_MODELS else create(name)
        forecaster.fit(panel, steps_for(horizon_s, panel.step_s))
        save_forecaster(forecaster, out)
    except (UsageError, DatasetError) as exc:
        raise _fail(str(exc)) from None
    except (ValueError, OSError) as exc:
        raise _fail(f"{dataset}: {exc}") from None
    Console().print(f"saved {name} ({panel.n_series} series, step {panel.step_s} s) to {out}")


if __name__ == "__main__":  # python -m aesp.cli.forecast, until mounted as `aesp forecast`
    app()
