"""``aesp train``: train the placement policy, measure the curriculum, evaluate ``rl``."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

app = typer.Typer(help="Train and evaluate the learned placement policy.", no_args_is_help=True)
_err = Console(stderr=True, highlight=False, width=160)


@app.command("policy")
def policy(
    out: Annotated[Path, typer.Option("--out", help="Where to write the policy file (.pt).")],
    scenario: Annotated[str, typer.Option(help="Shipped scenario name or YAML file.")] = "seed-experiment",
    steps: Annotated[int, typer.Option(help="Environment steps (placements) to train for.")] = 40_000,
    seed: Annotated[int, typer.Option(help="Training seed.")] = 0,
    curriculum: Annotated[bool, typer.Option(help="Small-to-large curriculum stages.")] = False,
    eval_every: Annotated[int, typer.Option(help="Steps between evaluations.")] = 4096,
) -> None:
    """Train a PPO placement policy on CPU and save it with its config, seed and curve."""
    from aesp.policy.ppo import PPOConfig, UpdateStats
    from aesp.policy.training import TrainSettings, train_policy

    if steps <= 0:
        raise typer.BadParameter("--steps must be positive")
    settings = TrainSettings(scenario=scenario, steps=steps, seed=seed, curriculum=curriculum,
                             ppo=replace(PPOConfig(), eval_every=eval_every))

    def report(s: UpdateStats) -> None:
        ev = f"  eval {s.eval_return:8.2f}" if s.eval_return is not None else ""
        _err.print(f"step {s.step:>7}/{s.total_steps}  episodes {s.episodes:>4}  "
                   f"return {s.mean_episode_return:8.2f}  entropy {s.entropy:5.2f}  "
                   f"kl {s.approx_kl:.4f}{ev}  {s.wall_s:6.0f}s")

    t0 = time.perf_counter()
    ckpt = train_policy(settings, out, report)
    _err.print(f"saved {out} ({out.stat().st_size / 1024:.0f} KiB) after "
               f"{time.perf_counter() - t0:.0f}s; final eval return {ckpt.curve[-1][1]:.2f}")


@app.command("evaluate")
def evaluate(
    scenario: Annotated[str, typer.Option(help="Shipped scenario name or YAML file.")] = "seed-experiment",
    seeds: Annotated[str, typer.Option(help="Comma-separated held-out workload seeds.")] = "1,2,3,4,5",
    scheduler: Annotated[str, typer.Option(help="Comma-separated schedulers.")] = "rl,kube-default,load-aware,aesp",
    json_out: Annotated[Path | None, typer.Option("--json", help="Write results as JSON.")] = None,
) -> None:
    """Compare ``rl`` with the deterministic profiles on held-out seeds (means over seeds)."""
    from aesp.experiments.schedulers import evaluate as run_eval

    names = [s.strip() for s in scheduler.split(",") if s.strip()]
    results = run_eval(scenario, [int(s) for s in seeds.split(",")], names)
    cols = ("gpu_util", "mean_wait_s", "p95_wait_s", "mean_jct_s", "usd", "decision_ms",
            "sla_violation_rate", "fallbacks")
    print("| scheduler | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for name, r in results.items():
        print(f"| {name} | " + " | ".join(f"{r[c]:.3f}" if c in ("gpu_util", "sla_violation_rate")
                                         else f"{r[c]:.1f}" for c in cols) + " |")
    if json_out is not None:
        json_out.write_text(json.dumps(results, indent=2))


@app.command("curriculum")
def curriculum(
    steps: Annotated[int, typer.Option(help="Step budget per run.")] = 24_000,
    seeds: Annotated[str, typer.Option(help="Comma-separated training seeds.")] = "0,1,2",
    threshold: Annotated[float, typer.Option(help="Normalised score counted as converged.")] = 1.0,
    eval_every: Annotated[int, typer.Option(help="Steps between evaluations.")] = 1024,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write runs as JSON.")] = None,
) -> None:
    """Steps to reach a score threshold with and without the curriculum (same budget, seeds)."""
    from dataclasses import asdict

    from aesp.config import load_scenario
    from aesp.policy.curriculum import compare_convergence
    from aesp.policy.env import EnvConfig
    from aesp.policy.ppo import PPOConfig
    from aesp.policy.training import EVAL_WORKLOAD_SEEDS

    base = EnvConfig(scenario=load_scenario("seed-experiment"))
    runs = compare_convergence(steps, [int(s) for s in seeds.split(",")], base,
                               EVAL_WORKLOAD_SEEDS, replace(PPOConfig(), eval_every=eval_every),
                               threshold, log=_err.print)
    if json_out is not None:
        json_out.write_text(json.dumps([asdict(r) for r in runs], indent=2))


if __name__ == "__main__":
    app()
