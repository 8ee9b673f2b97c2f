"""The registry, profile loading and the runtime's numFeasibleNodesToFind."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from aesp.placement import (
    ProfileError,
    UnknownPluginError,
    available_profiles,
    build_scheduler,
    load_profile,
    registered,
)
from aesp.placement.framework import registry
from aesp.placement.framework.runtime import num_feasible_nodes_to_find

SHIPPED = ("best-fit", "first-fit", "kube-default", "load-aware", "random")


@pytest.mark.parametrize(
    ("percentage", "nodes", "expected"),
    [
        # Fewer than 100 nodes: all of them.
        (0, 50, 50),
        (0, 99, 99),
        (10, 50, 50),
        # Adaptive (percentage 0): 50 - N // 125 percent, at least 5 %, at least 100 nodes.
        (0, 100, 100),  # 50 - 0 = 50 % -> 50, raised to the 100-node floor
        (0, 200, 100),  # 50 - 1 = 49 % -> 98 -> 100
        (0, 1000, 420),  # 50 - 8 = 42 % -> 420
        (0, 1523, 578),  # 50 - 12 = 38 % -> 1523 * 38 // 100 = 57874 // 100 = 578
        (0, 5000, 500),  # 50 - 40 = 10 % -> 500
        (0, 6000, 300),  # 50 - 48 = 2 % -> the 5 % floor -> 300
        (0, 100000, 5000),  # 50 - 800 < 5 -> 5 % -> 5000
        # Explicit percentage.
        (100, 5000, 5000),
        (30, 1000, 300),
        (10, 500, 100),  # 10 % = 50, raised to the 100-node floor
    ],
)
def test_num_feasible_nodes_to_find(percentage: int, nodes: int, expected: int) -> None:
    assert num_feasible_nodes_to_find(percentage, nodes) == expected


def test_builtin_plugins_are_registered() -> None:
    names = set(registered())
    builtin = {
        "NodeUp", "NodeResourcesFit", "GpuModel", "NodeArch", "Jurisdiction", "LeastAllocated",
        "MostAllocated", "BalancedAllocation", "BestFit", "LoadAwareFilter", "LoadAware",
        "FirstFit", "RandomScore",
    }
    assert builtin <= names
    assert list(registered()) == sorted(names)


def test_registry_rejects_duplicates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_PLUGINS", dict(registry._PLUGINS))

    class Again:
        NAME: ClassVar[str] = "NodeUp"

    with pytest.raises(ValueError, match="'NodeUp' is already registered"):
        registry.register(Again)


def test_registry_needs_a_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_PLUGINS", dict(registry._PLUGINS))

    class Nameless:
        pass

    with pytest.raises(TypeError, match="needs a non-empty NAME"):
        registry.register(Nameless)


def test_registry_registers_a_new_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_PLUGINS", dict(registry._PLUGINS))

    class Fresh:
        NAME: ClassVar[str] = "TestOnlyFresh"

        def __init__(self, k: int = 1) -> None:
            self.k = k

    assert registry.register(Fresh) is Fresh
    assert "TestOnlyFresh" in registry.registered()
    assert registry.create("TestOnlyFresh", {"k": 3}).k == 3


def test_create_unknown_plugin() -> None:
    with pytest.raises(UnknownPluginError) as info:
        registry.create("NoSuchPlugin")
    message = str(info.value)
    assert message.startswith("unknown plugin 'NoSuchPlugin'; registered: ")
    assert "NodeUp" in message and not message.startswith('"')


def test_create_with_bad_arguments() -> None:
    with pytest.raises(ValueError, match="bad arguments for plugin 'NodeUp'"):
        registry.create("NodeUp", {"nonsense": 1})


def test_every_shipped_profile_loads_and_builds() -> None:
    assert set(SHIPPED) <= set(available_profiles())
    for name in available_profiles():
        profile = load_profile(name)
        assert profile.name == name
        scheduler = build_scheduler(name, seed=1)
        assert scheduler.name == name


def test_plain_plugin_names_are_normalised() -> None:
    profile = load_profile("kube-default")
    assert [p.name for p in profile.filters][:2] == ["NodeUp", "NodeResourcesFit"]
    assert [(p.name, p.weight) for p in profile.scores] == [
        ("LeastAllocated", 1.0), ("BalancedAllocation", 1.0)
    ]
    assert profile.percentage_of_nodes_to_score == 0


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: x\nfilters: [NodeUp\n", "is not valid YAML"),
        ("name: x\nbogus: 1\n", "bogus: Extra inputs are not permitted"),
        ("name: x\npercentage_of_nodes_to_score: 101\n", "percentage_of_nodes_to_score"),
        ("name: x\nsolver: annealing\n", "solver"),
        ("name: x\nscores: [{name: BestFit, weight: -1}]\n", "scores.0.weight"),
        ("description: no name\n", "name: Field required"),
    ],
)
def test_profile_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ProfileError, match=message) as info:
        load_profile(path)
    assert path in str(info.value)


def test_unknown_profile_name_lists_the_known_ones() -> None:
    with pytest.raises(ProfileError, match=r"unknown scheduler 'nope'; known: .*kube-default"):
        load_profile("nope")


def test_missing_profile_file(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="cannot read profile"):
        load_profile(str(tmp_path / "absent.yaml"))


def test_profile_naming_an_unknown_plugin(tmp_path: Path) -> None:
    path = write(tmp_path, "name: x\nfilters: [NodeUp, Teleport]\nscores: [BestFit]\n")
    with pytest.raises(UnknownPluginError, match="unknown plugin 'Teleport'"):
        build_scheduler(path)


def test_plugin_at_the_wrong_extension_point(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="BestFit is not a filter plugin"):
        build_scheduler(write(tmp_path, "name: x\nfilters: [BestFit]\n"))
    with pytest.raises(ValueError, match="NodeUp is not a score plugin"):
        build_scheduler(write(tmp_path, "name: x\nscores: [NodeUp]\n"))


def test_bad_plugin_arguments_in_a_profile(tmp_path: Path) -> None:
    path = write(tmp_path, "name: x\nscores: [{name: LeastAllocated, args: {resources: {disk: 1}}}]\n")
    with pytest.raises(ValueError, match="unknown resources"):
        build_scheduler(path)
