"""``aesp bench``: speed benchmarks, each reported against a baseline run in the same command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from aesp.cli.tables import table_console

app = typer.Typer(no_args_is_help=True, help="Speed benchmarks.")

SERVICE_GOAL = "1,000 agents reporting every 5 s held with p99 < 100 ms"
EXTENDER_GOAL = "filter/prioritize p99 < 50 ms at 5,000 nodes"


def _emit(result: dict[str, Any], json_file: Path | None) -> None:
    text = json.dumps(result, indent=2)
    typer.echo(text)
    if json_file is not None:
        json_file.write_text(text + "\n")


@app.command("service")
def service(
    agents: Annotated[int, typer.Option(min=1, max=20_000, help="Simulated agents.")] = 1000,
    duration: Annotated[float, typer.Option(min=1, max=3600, help="Seconds of load.")] = 30.0,
    interval: Annotated[float, typer.Option(min=0.1, help="Seconds between an agent's reports.")] = 5.0,
    json_file: Annotated[Path | None, typer.Option("--json", help="Also write the JSON here.")] = None,
) -> None:
    """Agent ingest: `aesp serve` on 127.0.0.1 driven by N agents from a separate process."""
    from aesp.service.bench import service_bench

    result = service_bench(agents, duration, interval)
    result["goal"] = SERVICE_GOAL
    _emit(result, json_file)


@app.command("extender")
def extender(
    nodes: Annotated[int, typer.Option(min=1, max=100_000, help="Nodes in the NodeList.")] = 5000,
    pods: Annotated[int, typer.Option(min=1, help="Distinct pods (calls per verb and mode).")] = 20,
    repeats: Annotated[int, typer.Option(min=1, help="Times each pod is sent.")] = 1,
    json_file: Annotated[Path | None, typer.Option("--json", help="Also write the JSON here.")] = None,
) -> None:
    """Extender filter/prioritize latency in-process (ASGI), both nodeCacheCapable modes."""
    from aesp.service.bench import extender_bench

    result = extender_bench(nodes, pods, repeats)
    result["goal"] = EXTENDER_GOAL
    _emit(result, json_file)


@app.command("placement")
def placement(
    nodes: Annotated[int, typer.Option(min=1, help="Nodes in the synthetic cluster.")] = 5000,
    pods: Annotated[int, typer.Option(min=1, help="Pods to place.")] = 2000,
    profiles: Annotated[str, typer.Option(help="Comma-separated profiles.")] = "kube-default,aesp",
    seed: Annotated[int, typer.Option(help="Cluster and pod seed.")] = 0,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write results as JSON.")] = None,
) -> None:
    """Decision throughput (pods/s) and p99 decision latency, sequential against batch."""
    from rich.table import Table

    from aesp.experiments.bench import placement_bench

    names = [p.strip() for p in profiles.split(",") if p.strip()]
    doc = placement_bench(nodes, pods, names, seed)
    table = Table(title=f"placement: {nodes:,} nodes, {pods:,} pods")
    for col in ("profile", "pods/s", "p50 ms/call", "p99 ms/call", "placed", "calls"):
        table.add_column(col, justify="right")
    for name, r in doc["results"].items():
        table.add_row(name, f"{r['pods_per_s']:,.0f}", f"{r['p50_decision_ms']:.2f}",
                      f"{r['p99_decision_ms']:.2f}", f"{r['placed']:,}", f"{r['calls']:,}")
    table_console().print(table)
    if json_out is not None:
        json_out.write_text(json.dumps(doc, indent=2) + "\n")
