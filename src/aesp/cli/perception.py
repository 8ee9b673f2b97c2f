"""``aesp perception eval``: reporting policies compared on the same seeded faulty run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from aesp.cli.errors import USER_ERRORS, describe, fail
from aesp.cli.tables import table_console
from aesp.experiments import scenario_workload
from aesp.experiments.perception import (
    POLICY_NAMES,
    PerceptionConfig,
    PolicyResult,
    perception_compare,
    perception_document,
)

DEFAULT_SCENARIO = "perception-faults"

app = typer.Typer(
    help="Perceived state: reporting policies under failures, disconnects and jitter.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def perception() -> None:
    """Perceived state: reporting policies under failures, disconnects and jitter."""


def policy_table(title: str, results: dict[str, PolicyResult]) -> Table:
    """Policies as rows, the experiment's metrics as columns."""
    table = Table(title=title)
    table.add_column("policy", no_wrap=True, min_width=9)
    for col in ("mis-schedule", "(down)", "mean stale (s)", "p95 stale (s)", "reports", "bytes",
                "mean wait (s)", "mean JCT (s)", "failed"):
        table.add_column(col, justify="right")
    for name, r in results.items():
        d = r.to_json()
        table.add_row(
            name, f"{100 * d['misschedule_rate']:.2f} %", f"{d['misschedules_down']:,}",
            f"{d['mean_staleness_s']:.1f}", f"{d['p95_staleness_s']:.1f}", f"{d['reports']:,}",
            f"{d['bytes']:,}", _fmt(d["mean_wait_s"], 1), _fmt(d["mean_jct_s"], 0),
            f"{d['failed']:,}",
        )
    return table


def _fmt(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


@app.command("eval")
def evaluate(
    scenario: Annotated[str, typer.Option(help="Shipped scenario name or YAML file.")] = DEFAULT_SCENARIO,
    scheduler: Annotated[str, typer.Option(help="Scheduler profile that decides.")] = "load-aware",
    policy: Annotated[
        str, typer.Option(help=f"Comma-separated reporting policies ({', '.join(POLICY_NAMES)}).")
    ] = ",".join(POLICY_NAMES),
    seed: Annotated[int | None, typer.Option(help="Workload and fault seed.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write results as JSON.")] = None,
) -> None:
    """Compare reporting policies (and the ground-truth oracle) on one seeded faulty run."""
    names = [p.strip() for p in policy.split(",") if p.strip()]
    if not names:
        raise fail("--policy needs at least one name")
    config = PerceptionConfig()
    try:
        workload = scenario_workload(scenario, seed)
        results = perception_compare(workload, scheduler, names, config)
    except USER_ERRORS as exc:
        raise fail(describe(exc)) from None
    title = f"{workload.name} (seed {workload.seed}, {scheduler})"
    table_console().print(policy_table(title, results))
    if json_out is not None:
        doc = perception_document(workload, scheduler, config, results)
        try:
            json_out.write_text(json.dumps(doc, indent=2) + "\n")
        except OSError as exc:
            raise fail(describe(exc)) from None
        Console(stderr=True).print(f"results written to {json_out}")


__all__ = ["app", "evaluate", "policy_table"]
