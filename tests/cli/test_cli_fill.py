"""``aesp simulate --mode fill``: on OpenB-format files, and on a scenario."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

NODES = """sn,cpu_milli,memory_mib,gpu,model
n0,16000,65536,2,T4
n1,16000,65536,4,V100M32
n2,8000,32768,0,
"""
PODS = """name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
p0,1000,2048,1,500,,LS,Running,0,100,0
p1,2000,4096,1,1000,,BE,Running,10,200,10
p2,4000,8192,2,1000,,Burstable,Running,20,300,20
p3,500,1024,0,0,,BE,Succeeded,30,90,30
p4,1000,1024,1,250,T4,LS,Running,40,400,40
"""

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def trace(tmp_path: Path) -> tuple[Path, Path]:
    pods, nodes = tmp_path / "pods.csv", tmp_path / "nodes.csv"
    pods.write_text(PODS)
    nodes.write_text(NODES)
    return pods, nodes


def strict_json(text: str) -> dict:  # type: ignore[type-arg]
    def refuse(name: str) -> None:
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)  # type: ignore[no-any-return]


def test_fill_on_openb_files(aesp: Run, trace: tuple[Path, Path], tmp_path: Path) -> None:
    pods, nodes = trace
    out = tmp_path / "out.json"
    r = aesp(
        "--mode", "fill", "--pods", str(pods), "--nodes", str(nodes),
        "--scheduler", "kube-default,best-fit", "--patience", "20", "--json", str(out),
    )
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    assert doc["mode"] == "fill"
    assert doc["scenario"] == "openb:pods.csv"
    assert doc["seed"] == 0
    assert set(doc["results"]) == {"kube-default", "best-fit"}
    for res in doc["results"].values():
        assert 0 < res["gpu_allocated_fraction"] <= 1
        assert res["gpu_allocated_fraction"] + res["unallocated_gpu_fraction"] == pytest.approx(1.0)
        assert res["pods_submitted"] - res["pods_placed"] >= 20
    assert "kube-default" in r.stdout and "best-fit" in r.stdout


def test_fill_json_is_strict(aesp: Run, trace: tuple[Path, Path], tmp_path: Path) -> None:
    pods, nodes = trace
    out = tmp_path / "out.json"
    r = aesp("--mode", "fill", "--pods", str(pods), "--nodes", str(nodes),
             "--scheduler", "kube-default", "--patience", "20", "--json", str(out))
    assert r.returncode == 0
    strict_json(out.read_text())  # GPU demand reaches capacity here: no NaN


def test_fill_json_is_strict_when_demand_stays_below_capacity(
    aesp: Run, tmp_path: Path
) -> None:
    # One node with 8 GPUs but 2000m CPU; pods take 1000m and 100m of one GPU: 2 placed, then
    # patience 20 failures add 20 * 100 = 2000m GPU demand < 8000 capacity.
    pods, nodes, out = tmp_path / "pods.csv", tmp_path / "nodes.csv", tmp_path / "o.json"
    nodes.write_text("sn,cpu_milli,memory_mib,gpu,model\nn0,2000,65536,8,T4\n")
    pods.write_text(PODS.splitlines()[0] + "\np0,1000,1024,1,100,,LS,Running,0,100,0\n")
    r = aesp("--mode", "fill", "--pods", str(pods), "--nodes", str(nodes),
             "--scheduler", "kube-default", "--patience", "20", "--json", str(out))
    assert r.returncode == 0
    strict_json(out.read_text())


def test_fill_without_pods_uses_the_scenario(aesp: Run, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    r = aesp("--mode", "fill", "--scheduler", "best-fit", "--patience", "20", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    assert (doc["scenario"], doc["mode"]) == ("seed-experiment", "fill")
    res = doc["results"]["best-fit"]
    assert 0 < res["gpu_allocated_fraction"] <= 1
    assert res["gpu_allocated_fraction"] + res["unallocated_gpu_fraction"] == pytest.approx(1.0)


def test_fill_pods_without_nodes_is_one_error_line(aesp: Run, trace: tuple[Path, Path]) -> None:
    pods, _ = trace
    r = aesp("--mode", "fill", "--pods", str(pods))
    assert r.returncode == 2
    assert "--pods and --nodes go together" in r.stderr
    assert "Traceback" not in r.stderr


def test_fill_swapped_files_is_an_error(aesp: Run, trace: tuple[Path, Path]) -> None:
    pods, nodes = trace
    r = aesp("--mode", "fill", "--pods", str(nodes), "--nodes", str(pods), "--scheduler", "kube-default")
    assert r.returncode == 2
    assert "expected an openb-pods file" in r.stderr
    assert "Traceback" not in r.stderr


def test_fill_patience_must_be_positive(aesp: Run, trace: tuple[Path, Path]) -> None:
    pods, nodes = trace
    r = aesp("--mode", "fill", "--pods", str(pods), "--nodes", str(nodes), "--patience", "0")
    assert r.returncode == 2


def test_unknown_gpu_model_is_one_error_line_for_capability_aware_profiles(
    aesp: Run, tmp_path: Path
) -> None:
    # A trace replays at recorded speed, so kube-default needs no capability matrix and accepts
    # any GPU model; `aesp` scores by capability and must name the unknown device.
    nodes, pods = tmp_path / "nodes.csv", tmp_path / "pods.csv"
    nodes.write_text("sn,cpu_milli,memory_mib,gpu,model\nbig-iron,64000,262144,8,H100\n")
    pods.write_text(PODS)
    args = ("--mode", "fill", "--pods", str(pods), "--nodes", str(nodes), "--patience", "3")
    assert aesp(*args, "--scheduler", "kube-default").returncode == 0
    r = aesp(*args, "--scheduler", "aesp")
    assert r.returncode == 2
    assert "node big-iron: unknown device kind 'gpu_h100'" in r.stderr
    assert "Traceback" not in r.stderr
