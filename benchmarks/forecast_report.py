"""Render ``aesp forecast eval --json`` files as the Markdown tables of docs/forecasting.md.

Usage: python benchmarks/forecast_report.py RESULT.json [RESULT.json ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

COLUMNS = ("mae", "rmse", "smape", "mape", "mase", "burst_mae", "fit_s", "predict_ms")


def render(doc: dict[str, object]) -> str:
    """One Markdown table with MAE and burst MAE relative to AutoARIMA."""
    models: dict[str, dict[str, float]] = doc["models"]  # type: ignore[assignment]
    arima = models.get("auto_arima", {})
    header = ["model", *COLUMNS, "MAE vs ARIMA", "burst vs ARIMA"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, values in models.items():
        cells = [f"{values[c]:.3f}" if c != "fit_s" else f"{values[c]:.1f}" for c in COLUMNS]
        rel = [
            f"{100 * (values[k] / arima[k] - 1):+.1f} %" if arima.get(k) else "n/a"
            for k in ("mae", "burst_mae")
        ]
        lines.append("| " + " | ".join([name, *cells, *rel]) + " |")
    title = (
        f"**{doc['dataset']}**: {doc['series']} series, horizon {doc['horizon_steps']} steps, "
        f"{doc.get('origins', '?')} origins per series"
    )
    return title + "\n\n" + "\n".join(lines) + "\n"


def main(paths: list[str]) -> None:
    """Print one table per file."""
    for path in paths:
        print(render(json.loads(Path(path).read_text())))


if __name__ == "__main__":
    main(sys.argv[1:])
