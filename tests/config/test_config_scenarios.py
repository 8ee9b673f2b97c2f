"""Scenario loading: one clear ConfigError line per problem; the shipped scenarios validate."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from aesp.config import (
    DEFAULT_SCENARIO,
    ConfigError,
    Dist,
    ScenarioConfig,
    available_scenarios,
    load_scenario,
)

MINIMAL: dict[str, Any] = {
    "name": "tiny",
    "seed": 3,
    "sites": [
        {"name": "s1", "region": "r1", "zone": "z1", "jurisdiction": "EU"},
        {"name": "s2", "region": "r2", "zone": "z2", "tier": "edge", "jurisdiction": "US"},
    ],
    "links": [{"a": "s1", "b": "s2", "rtt_ms": 40, "bandwidth_mbps": 1000, "usd_per_gb": 0.02}],
    "node_pools": [
        {"name": "cpu", "site": "s1", "count": 2, "cpu_milli": 8000, "mem_mib": 16384},
        {"name": "gpu", "site": "s2", "count": 1, "cpu_milli": 16000, "mem_mib": 65536,
         "gpu_count": 2, "gpu_model": "T4", "accel_kind": "gpu"},
    ],
    "workload": {
        "tasks": 20,
        "horizon_s": 3600,
        "classes": {
            "batch": {"share": 1, "cpu_milli": {"const": 1000}, "mem_mib": {"low": 512, "high": 2048},
                      "work_s": {"median": 60, "sigma": 0.5, "min": 1, "max": 600}},
            "training": {"share": 1, "cpu_milli": {"values": [1000, 2000], "weights": [3, 1]},
                         "mem_mib": {"const": 4096}, "gpu_probability": 1.0,
                         "work_s": {"const": 300}},
        },
    },
}


def write(tmp_path: Path, doc: Any, name: str = "scenario.yaml") -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else yaml.safe_dump(doc))
    return path


def variant(**changes: Any) -> dict[str, Any]:
    """MINIMAL with dotted-path changes: ``variant(**{"workload.tasks": 0})``."""
    doc = copy.deepcopy(MINIMAL)
    for dotted, value in changes.items():
        *path, last = dotted.split(".")
        node: Any = doc
        for key in path:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return doc


def test_minimal_scenario_loads(tmp_path: Path) -> None:
    cfg = load_scenario(str(write(tmp_path, MINIMAL)))
    assert isinstance(cfg, ScenarioConfig)
    assert cfg.name == "tiny" and cfg.seed == 3
    assert cfg.cycle_interval_s == 1.0 and cfg.max_wait_s is None  # defaults
    assert cfg.workload.classes["batch"].gpu_milli == Dist(const=1000)


def test_yml_suffix_is_accepted(tmp_path: Path) -> None:
    assert load_scenario(str(write(tmp_path, MINIMAL, "s.yml"))).name == "tiny"


def test_shipped_scenarios_validate() -> None:
    assert DEFAULT_SCENARIO == "seed-experiment"
    assert "seed-experiment" in available_scenarios()
    for name in available_scenarios():
        assert load_scenario(name).name == name
    seed = load_scenario()
    assert seed.name == "seed-experiment" and seed.workload.tasks == 1100


def test_shipped_seed_experiment_materialises_with_the_capability_matrix() -> None:
    from aesp.experiments.runs import scenario_workload

    w = scenario_workload("seed-experiment")
    assert len(w.tasks) == 1100 and len(w.table) > 0


def test_unknown_scenario_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown scenario 'no-such'; known: .*seed-experiment"):
        load_scenario("no-such")


def test_missing_scenario_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="scenario file not found"):
        load_scenario(str(tmp_path / "absent.yaml"))


@pytest.mark.parametrize(
    "text",
    [
        "name: [unclosed\n",
        "name: x\n  sites: - bad indentation\n",
        "a: 1\n\tb: 2\n",
    ],
)
def test_bad_yaml_is_one_line(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError, match=r"is not valid YAML: .*\(line \d+, column \d+\)") as info:
        load_scenario(str(write(tmp_path, text)))
    assert "\n" not in str(info.value)


# (changes to MINIMAL, the message: file, dotted location, reason)
INVALID = [
    ({"flavour": "x"}, r"flavour: Extra inputs are not permitted"),
    ({"workload.colour": 1}, r"workload\.colour: Extra inputs"),
    ({"node_pools.0.site": "mars"}, r"pool cpu is on unknown site 'mars'"),
    ({"links.0.b": "mars"}, r"link s1-mars names an unknown site"),
    ({"workload.classes.batch.cpu_milli": {"const": 1, "low": 1, "high": 2}},
     r"workload\.classes\.batch\.cpu_milli: .*exactly one of const, low/high, median/sigma, values"),
    ({"workload.classes.batch.cpu_milli": {}}, r"exactly one of"),
    ({"workload.classes.batch.cpu_milli": {"low": 5, "high": 1}}, r"low must not exceed high"),
    ({"workload.classes.batch.cpu_milli": {"values": [1, 2], "weights": [1]}},
     r"weights must match values"),
    ({"workload.classes.gaming": MINIMAL["workload"]["classes"]["batch"]}, r"unknown task classes \['gaming'\]"),
    ({"workload.tasks": 0}, r"workload\.tasks: Input should be greater than or equal to 1"),
    ({"node_pools.0.arch": "riscv"}, r"pool cpu: unknown arch 'riscv'"),
    ({"node_pools.0.accel_kind": "fpga"}, r"pool cpu: unknown accelerator kind 'fpga'"),
    ({"node_pools.1.gpu_model": ""}, r"pool gpu: gpu_count needs a gpu_model"),
    ({"sites.0.tier": "fog"}, r"sites\.0\.tier: Input should be 'cloud' or 'edge'"),
    ({"links.0.bandwidth_mbps": 0}, r"links\.0\.bandwidth_mbps: Input should be greater than 0"),
    ({"cycle_interval_s": 0}, r"cycle_interval_s: Input should be greater than 0"),
    ({"name": None}, r"name: Input should be a valid string"),
]


@pytest.mark.parametrize(("changes", "match"), INVALID)
def test_invalid_scenario_is_one_clear_line(
    tmp_path: Path, changes: dict[str, Any], match: str
) -> None:
    path = write(tmp_path, variant(**changes))
    with pytest.raises(ConfigError, match=match) as info:
        load_scenario(str(path))
    msg = str(info.value)
    assert msg.startswith(str(path))
    assert "\n" not in msg


def test_missing_required_field(tmp_path: Path) -> None:
    doc = copy.deepcopy(MINIMAL)
    del doc["node_pools"]
    with pytest.raises(ConfigError, match="node_pools: Field required"):
        load_scenario(str(write(tmp_path, doc)))


def test_top_level_not_a_mapping(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\(top level\)"):
        load_scenario(str(write(tmp_path, "- just\n- a list\n")))


def test_empty_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"scenario\.yaml: "):
        load_scenario(str(write(tmp_path, "")))


def test_dist_forms() -> None:
    assert Dist(const=3).const == 3
    assert Dist(low=1, high=2).high == 2
    assert Dist(median=5, sigma=1, min=1, max=10).median == 5
    assert Dist(values=(1, 2), weights=(0.5, 0.5)).values == (1, 2)
    for bad in ({"const": 1, "values": (1,)}, {"median": 1, "sigma": 1, "low": 0, "high": 1}, {"low": 1}):
        with pytest.raises(ValueError, match="exactly one of"):
            Dist(**bad)


def test_unknown_gpu_model_in_pool_names_the_node(tmp_path: Path) -> None:
    # The scenario schema accepts any GPU model; the capability matrix must then name the node
    # and the device it does not know.
    from aesp.core.capability import CapabilityError
    from aesp.experiments.runs import scenario_workload

    path = write(tmp_path, variant(**{"node_pools.1.gpu_model": "H100"}))
    cfg = load_scenario(str(path))
    with pytest.raises(CapabilityError, match=r"node gpu\S*: unknown device kind 'gpu_h100'"):
        scenario_workload(cfg)
