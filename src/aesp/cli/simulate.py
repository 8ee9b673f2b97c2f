"""``aesp simulate``: schedulers side by side on a scenario or a trace replay."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from aesp.cli.tables import fill_table, results_table, table_console
from aesp.config import DEFAULT_SCENARIO
from aesp.core import Scheduler
from aesp.experiments import (
    Workload,
    build_schedulers,
    compare,
    fill_compare,
    fill_document,
    load_trace_workload,
    results_document,
    scenario_workload,
)
from aesp.experiments.runs import DEFAULT_REPORT_INTERVAL_S

DEFAULT_SCHEDULERS = "kube-default,load-aware,best-fit"


class Mode(StrEnum):
    replay = "replay"
    fill = "fill"


def run_fill(
    workload: Workload, schedulers: dict[str, Scheduler], patience: int, json_out: Path | None
) -> None:
    """The fill experiment: allocation at saturation per scheduler."""
    results = fill_compare(workload, schedulers, patience)
    table_console().print(fill_table(workload.name, workload.seed, results))
    if json_out is not None:
        json_out.write_text(json.dumps(fill_document(workload, results), indent=2) + "\n")
        Console(stderr=True).print(f"results written to {json_out}")


@contextmanager
def progress_bars(console: Console) -> Iterator[Callable[[str], Callable[[int, int], None]]]:
    """A progress factory: one bar per scheduler, advanced by the simulator's callback."""
    with Progress(
        TextColumn("{task.description:<14}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bars:

        def factory(name: str) -> Callable[[int, int], None]:
            bar = bars.add_task(name, total=None)
            return lambda done, total: bars.update(bar, completed=done, total=total)

        yield factory


def simulate(
    scenario: Annotated[
        str, typer.Option(help="Shipped scenario name or YAML file.")
    ] = DEFAULT_SCENARIO,
    scheduler: Annotated[
        str, typer.Option(help="Comma-separated scheduler profiles.")
    ] = DEFAULT_SCHEDULERS,
    seed: Annotated[int | None, typer.Option(help="Workload and tie-break seed.")] = None,
    pods: Annotated[
        Path | None, typer.Option(help="OpenB pod list to replay (needs --nodes).")
    ] = None,
    nodes: Annotated[Path | None, typer.Option(help="OpenB node list to replay on.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write results as JSON.")] = None,
    quiet: Annotated[bool, typer.Option(help="No progress bars.")] = False,
    mode: Annotated[
        Mode,
        typer.Option(
            help="replay: run the workload in time; fill: pack sampled pods until saturation."
        ),
    ] = Mode.replay,
    patience: Annotated[
        int, typer.Option(min=1, help="fill: consecutive failures that end the fill.")
    ] = 200,
    oracle: Annotated[
        bool, typer.Option(help="Decide on ground truth instead of what agents reported.")
    ] = False,
    report_interval: Annotated[
        float, typer.Option(min=0.1, help="Agents' reporting interval (s) when not --oracle.")
    ] = DEFAULT_REPORT_INTERVAL_S,
) -> None:
    """Run schedulers on the same workload and compare them."""
    from aesp.cli.errors import fail

    names = [s.strip() for s in scheduler.split(",") if s.strip()]
    if not names:
        raise fail("--scheduler needs at least one name")
    if (pods is None) != (nodes is None):
        raise fail("--pods and --nodes go together")
    if pods is not None and nodes is not None:
        workload = load_trace_workload(pods, nodes, seed or 0)
    else:
        workload = scenario_workload(scenario, seed)
    schedulers = build_schedulers(names, workload.seed)
    if mode is Mode.fill:
        run_fill(workload, schedulers, patience, json_out)
        return
    console = Console(stderr=True)
    perception = "oracle" if oracle else f"reported-{report_interval:g}s"
    if quiet:
        results = compare(workload, schedulers, None, oracle, report_interval)
    else:
        with progress_bars(console) as factory:
            results = compare(workload, schedulers, factory, oracle, report_interval)
    table_console().print(results_table(f"{workload.name}, {perception}", workload.seed, results))
    if json_out is not None:
        doc = results_document(workload, results, perception)
        json_out.write_text(json.dumps(doc, indent=2) + "\n")
        console.print(f"results written to {json_out}")
