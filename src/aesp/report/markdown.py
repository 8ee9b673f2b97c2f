"""Markdown tables from ``aesp simulate --json`` result files, for the docs.

    python -m aesp.report.markdown out/seed-101.json out/seed-102.json ...

prints, per metric, schedulers as rows and seeds as columns plus their mean.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

METRICS = (
    ("mean_wait_s", "mean wait (s)", 1.0, 1),
    ("p95_wait_s", "p95 wait (s)", 1.0, 1),
    ("mean_jct_s", "mean JCT (s)", 1.0, 0),
    ("util.gpu", "GPU allocation (%)", 100.0, 1),
    ("sla_violation_rate", "latency-SLO violations (%)", 100.0, 1),
    ("gpu_fragmentation", "GPU fragmentation (%)", 100.0, 1),
    ("transfer_usd", "WAN transfer cost (USD)", 1.0, 0),
    ("compliance_usd", "compliance cost (USD)", 1.0, 0),
    ("compute_usd", "compute cost (USD)", 1.0, 0),
    ("mean_decision_ms", "decision time (ms/cycle)", 1.0, 2),
)


def _get(result: dict[str, Any], key: str) -> float | None:
    value: Any = result
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return float(value) if isinstance(value, int | float) else None


def tables(documents: Sequence[dict[str, Any]]) -> str:
    """One markdown table per metric over the given result documents."""
    seeds = [d["seed"] for d in documents]
    names = list(dict.fromkeys(n for d in documents for n in d["results"]))
    out = []
    for key, label, scale, digits in METRICS:
        head = f"| {label} | " + " | ".join(f"seed {s}" for s in seeds) + " | mean |"
        rows = [head, "|---|" + "---:|" * (len(seeds) + 1)]
        for name in names:
            values = [_get(d["results"].get(name, {}), key) for d in documents]
            known = [v * scale for v in values if v is not None]
            cells = [f"{v * scale:,.{digits}f}" if v is not None else "-" for v in values]
            mean = f"{sum(known) / len(known):,.{digits}f}" if known else "-"
            rows.append(f"| {name} | " + " | ".join(cells) + f" | {mean} |")
        out.append("\n".join(rows))
    return "\n\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    paths = list(argv if argv is not None else sys.argv[1:])
    if not paths:
        print("usage: python -m aesp.report.markdown RESULT.json [...]", file=sys.stderr)
        return 2
    try:
        docs = [json.loads(Path(p).read_text()) for p in paths]
    except (OSError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(tables(docs), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
