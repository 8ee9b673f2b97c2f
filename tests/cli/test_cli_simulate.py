"""``aesp simulate``: results for every scheduler, and one clear error line for bad input.

Exit codes are checked through ``aesp.cli.main.main`` (what the console script runs), because
``main()`` is what maps user errors to exit code 2: in process for the error matrix (fast), and
through the installed console script once for success and once for an error.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aesp.cli.main import app
from aesp.config.loader import SCENARIOS_DIR

AESP = Path(sys.executable).parent / "aesp"
SCHEDULERS = ("kube-default", "load-aware", "best-fit")
METRIC_TYPES: dict[str, type | tuple[type, ...]] = {
    "tasks": int, "completed": int, "failed": int, "unscheduled": int,
    "mean_wait_s": (float, int, type(None)), "p95_wait_s": (float, int, type(None)),
    "mean_jct_s": (float, int, type(None)), "makespan_s": (float, int),
    "util": dict, "sla_violation_rate": (float, int),
    "gpu_fragmentation": (float, int, type(None)), "sim_wall_s": (float, int),
}


def aesp_script(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed console script."""
    if not AESP.exists():
        pytest.skip(f"console script not installed at {AESP}")
    return subprocess.run(
        [str(AESP), "simulate", *args], capture_output=True, text=True, timeout=120
    )


Aesp = Callable[..., subprocess.CompletedProcess[str]]


def test_simulate_json_accounts_for_every_task(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = CliRunner().invoke(
        app, ["simulate", "--scheduler", ",".join(SCHEDULERS), "--json", str(out), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert isinstance(doc["scenario"], str) and doc["scenario"] == "seed-experiment"
    assert isinstance(doc["seed"], int) and doc["seed"] == 7
    assert list(doc["results"]) == list(SCHEDULERS)
    for name, metrics in doc["results"].items():
        for key, kind in METRIC_TYPES.items():
            assert key in metrics, f"{name}: missing {key}"
            assert isinstance(metrics[key], kind), f"{name}.{key} = {metrics[key]!r}"
        assert set(metrics["util"]) == {"cpu", "mem", "gpu"}
        assert all(isinstance(v, float) for v in metrics["util"].values())
        assert metrics["tasks"] == 1100
        assert metrics["completed"] + metrics["failed"] + metrics["unscheduled"] == 1100
    assert "seed-experiment" in result.stdout


def test_simulate_succeeds_through_the_console_script(tmp_path: Path) -> None:
    result = aesp_script("--scheduler", "first-fit", "--quiet", "--json", str(tmp_path / "r.json"))
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "r.json").read_text())["results"]["first-fit"]["tasks"] == 1100


def assert_one_error_line(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got {lines!r}"
    assert lines[0].startswith("error: ")
    for needle in needles:
        assert needle in lines[0]


@pytest.fixture
def bad_files(tmp_path: Path) -> Path:
    (tmp_path / "garbage.csv").write_text("a,b,c\n1,2,3\n")
    (tmp_path / "pods.csv").write_text(
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1024,1,not-a-number\n"
    )
    (tmp_path / "nodes.csv").write_text("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,T4\n")
    shipped = SCENARIOS_DIR / "seed-experiment.yaml"
    (tmp_path / "bad-field.yaml").write_text(shipped.read_text() + "bogus: 1\n")
    return tmp_path


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--scheduler", "kube-default,nope"], ["unknown scheduler 'nope'", "kube-default"]),
        (["--scenario", "nope"], ["unknown scenario 'nope'", "seed-experiment"]),
        (["--pods", "{d}/absent.csv", "--nodes", "{d}/nodes.csv"], ["absent.csv"]),
        (["--pods", "{d}/garbage.csv", "--nodes", "{d}/nodes.csv"], ["garbage.csv"]),
        (["--pods", "{d}/pods.csv", "--nodes", "{d}/nodes.csv"], ["pods.csv"]),
        (["--pods", "{d}/nodes.csv", "--nodes", "{d}/nodes.csv"], ["expected an openb-pods file"]),
        (["--scenario", "{d}/bad-field.yaml"], ["bad-field.yaml", "bogus: Extra inputs"]),
        (["--scenario", "{d}/absent.yaml"], ["absent.yaml"]),
    ],
    ids=[
        "unknown-scheduler", "unknown-scenario", "missing-pods", "garbage-pods", "malformed-pods",
        "wrong-format", "bad-scenario-field", "missing-scenario",
    ],
)
def test_user_errors_are_one_line_and_exit_2(
    aesp: Aesp, bad_files: Path, args: list[str], needles: list[str]
) -> None:
    result = aesp(*(a.format(d=bad_files) for a in args), "--quiet")
    assert_one_error_line(result, *needles)


def test_pods_without_nodes_exits_2(aesp: Aesp, bad_files: Path) -> None:
    result = aesp("--pods", str(bad_files / "pods.csv"), "--quiet")
    assert_one_error_line(result, "--pods and --nodes go together")


def test_malformed_scenario_yaml_is_one_line(aesp: Aesp, tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("name: x\nsites: [\n")
    assert_one_error_line(aesp("--scenario", str(path), "--quiet"), "broken.yaml", "not valid YAML")


def test_malformed_scenario_yaml_exits_2_without_traceback(aesp: Aesp, tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("name: x\nsites: [\n")
    result = aesp("--scenario", str(path), "--quiet")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: ") and "not valid YAML" in result.stderr


def test_unknown_scheduler_with_progress_bars_is_one_line() -> None:
    # Through the console script: the blank line comes from the live progress display.
    assert_one_error_line(aesp_script("--scheduler", "nope"), "unknown scheduler 'nope'")


def test_unknown_scheduler_with_progress_bars_exits_2(aesp: Aesp) -> None:
    result = aesp("--scheduler", "nope")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().startswith("error: unknown scheduler 'nope'")


def test_cli_runner_maps_fail_to_exit_2(bad_files: Path) -> None:
    # Through click's standalone mode (not main()) the same error does exit 2.
    result = CliRunner().invoke(app, ["simulate", "--pods", str(bad_files / "pods.csv"), "--quiet"])
    assert result.exit_code == 2
    assert "--pods and --nodes go together" in result.stderr
