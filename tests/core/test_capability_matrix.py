"""The capability matrix: worked speed examples, clear errors, the YAML loader, the simulator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aesp.config.capability import CAPABILITY_FILE, load_capability
from aesp.config.loader import ConfigError
from aesp.core import NodeTable
from aesp.core.capability import CapabilityError, CapabilityMatrix
from aesp.placement import build_scheduler
from aesp.sim.driver import SimConfig, Simulation
from aesp.sim.speed import CapabilitySpeed
from aesp.testing import cluster, make_node, make_task


@pytest.fixture(scope="module")
def shipped() -> CapabilityMatrix:
    return load_capability()


@pytest.fixture(scope="module")
def zoo() -> NodeTable:
    """One node of each interesting kind, in this order."""
    return cluster([
        make_node("x86"),  # 0: the CPU reference
        make_node("arm").arch("arm64"),  # 1
        make_node("a100").gpus(1, "A100"),  # 2
        make_node("v100").gpus(1, "V100M32"),  # 3: the GPU reference
        make_node("t4").gpus(2, "T4"),  # 4
        make_node("dpu").accel("dpu", "B1"),  # 5
        make_node("npu").arch("arm64").accel("npu", "Ascend310"),  # 6
    ])


# (task class, GPU task?, node index, expected speed) with the arithmetic.
SPEEDS = [
    ("training", False, 0, 1.0),  # 1.2 / 1.2 = 1
    ("training", False, 1, 0.8 / 1.2),  # arm64: 0.8 / 1.2 = 0.667, exponent 1
    ("batch", False, 1, 0.8 / 1.2),  # exponent 1 too
    ("analytics", False, 1, (0.8 / 1.2) ** 0.7),  # 0.667 ** 0.7 = 0.753
    ("inference", False, 1, (0.8 / 1.2) ** 0.5),  # 0.667 ** 0.5 = 0.816
    ("training", True, 2, 15.3 / 6.13),  # A100 / V100: 2.496
    ("training", True, 3, 1.0),  # the reference GPU
    ("inference", True, 4, (3.19 / 6.13) ** 0.5),  # T4: 0.520 ** 0.5 = 0.721
    ("training", True, 0, 0.0),  # a GPU task on a node without GPUs
    ("analytics", False, 5, 1.25),  # x86 (1.0) ** 0.7 * DPU offload 1.25
    ("transcode", False, 5, 1.1),  # 1.0 * DPU offload 1.1
    ("training", False, 5, 1.0),  # the DPU does not help training
    ("analytics", False, 6, (0.8 / 1.2) ** 0.7 * 1.5),  # arm64 0.753 * NPU 1.5 = 1.129
    ("inference", False, 6, (0.8 / 1.2) ** 0.5 * 2.0),  # arm64 0.816 * NPU 2.0 = 1.633
]


@pytest.mark.parametrize(("cls", "gpu", "node", "want"), SPEEDS)
def test_speed_worked_examples(
    shipped: CapabilityMatrix, zoo: NodeTable, cls: str, gpu: bool, node: int, want: float
) -> None:
    b = make_task(0).kind(cls)  # type: ignore[arg-type]
    task = (b.gpu(1, 1000) if gpu else b).build()
    speeds = shipped.speed_table(zoo).for_task(task)
    assert speeds.shape == (len(zoo),)
    assert speeds[node] == pytest.approx(want, rel=1e-9)


def test_headline_numbers(shipped: CapabilityMatrix, zoo: NodeTable) -> None:
    table = shipped.speed_table(zoo)
    arm_training = table.for_task(make_task(0).kind("training").build())[1]
    a100_training = table.for_task(make_task(0).kind("training").gpu(1).build())[2]
    arm_analytics = table.for_task(make_task(0).kind("analytics").build())[1]
    assert round(arm_training, 3) == 0.667
    assert round(a100_training, 3) == 2.496
    assert round(arm_analytics, 3) == 0.753


def test_speed_table_shapes(shipped: CapabilityMatrix, zoo: NodeTable) -> None:
    from aesp.core import TASK_CLASSES

    table = shipped.speed_table(zoo)
    assert table.cpu.shape == table.gpu.shape == (len(TASK_CLASSES), len(zoo))
    assert (table.gpu[:, [0, 1, 5, 6]] == 0).all()  # nodes without GPUs
    assert (table.cpu > 0).all()


def small_matrix(**kw: object) -> CapabilityMatrix:
    units = {"x86_64": 1.0, "gpu_v100m32": 1.0}
    return CapabilityMatrix(units=kw.pop("units", units), **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("node", "device"),
    [
        (make_node("armbox").arch("arm64"), "'arm64'"),
        (make_node("gpubox").gpus(1, "H100"), "'gpu_h100'"),
        (make_node("dpubox").accel("dpu", "Bluefield9"), "'dpu_bluefield9'"),
        (make_node("npubox").accel("npu", "Mystery"), "'npu_mystery'"),
    ],
)
def test_unknown_device_names_node_and_device(node: object, device: str) -> None:
    table = cluster([make_node("fine"), node])  # type: ignore[list-item]
    name = table.nodes[1].name
    with pytest.raises(CapabilityError, match=f"node {name}: unknown device kind {device}"):
        small_matrix().speed_table(table)
    with pytest.raises(CapabilityError, match=name):
        CapabilitySpeed(table, small_matrix())


def test_unknown_gpu_in_shipped_matrix(shipped: CapabilityMatrix) -> None:
    table = cluster([make_node("big-iron").gpus(8, "H100")])
    with pytest.raises(CapabilityError, match=r"big-iron.*gpu_h100"):
        shipped.validate(table)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"units": {"x86_64": 1.0}}, "reference device 'gpu_v100m32'"),
        ({"reference_cpu": "riscv"}, "reference device 'riscv'"),
        ({"units": {"x86_64": 1.0, "gpu_v100m32": 0.0}}, "must be positive"),
        ({"units": {"x86_64": -1.0, "gpu_v100m32": 1.0}}, "must be positive"),
        ({"exponent": {"gaming": 1.0}}, "unknown task classes"),
    ],
)
def test_inconsistent_matrix(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(CapabilityError, match=match):
        small_matrix(**kwargs)


def test_capability_error_is_a_value_error() -> None:
    assert issubclass(CapabilityError, ValueError)
    assert issubclass(ConfigError, ValueError)


# --- the YAML loader ---------------------------------------------------------------------------


def test_shipped_matrix_loads_with_its_exponents(shipped: CapabilityMatrix) -> None:
    assert CAPABILITY_FILE.is_file()
    assert shipped.units["gpu_a100"] == 15.3
    assert shipped.exponent["analytics"] == 0.7
    assert shipped.offload["dpu_b1"]["analytics"] == 1.25


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "cap.yaml"
    p.write_text(text)
    return p


def test_loader_defaults_exponents_to_one(tmp_path: Path) -> None:
    m = load_capability(write(tmp_path, "units: {x86_64: 2.0, arm64: 1.0, gpu_v100m32: 1.0}\n"))
    table = cluster([make_node("a").arch("arm64")])
    # No exponent block: every class follows the ratio fully, 1.0 / 2.0 = 0.5.
    for cls in ("analytics", "inference", "training"):
        assert m.speed_table(table).for_task(make_task(0).kind(cls).build())[0] == 0.5  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("units: {x86_64: 1, gpu_v100m32: 1}\nflavour: 3\n", r"cap\.yaml: flavour: Extra inputs"),
        ("units: {x86_64: fast, gpu_v100m32: 1}\n", r"cap\.yaml: units\.x86_64:"),
        ("reference_cpu: x86_64\n", r"cap\.yaml: units: Field required"),
        ("units: {x86_64: 1}\n", r"cap\.yaml: reference device 'gpu_v100m32'"),
        ("units: {x86_64: 1, gpu_v100m32: 1}\nexponent: {gaming: 2}\n", "unknown task classes"),
        ("units: [x86_64\n", r"not valid YAML"),
    ],
)
def test_loader_errors_are_config_errors(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match) as info:
        load_capability(write(tmp_path, text))
    assert "\n" not in str(info.value)


def test_loader_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError, match=f"capability matrix not found: {missing}"):
        load_capability(missing)


# --- the simulator applies speed ---------------------------------------------------------------


def test_simulation_applies_speed() -> None:
    # arm64 has 2.0 units against the x86_64 reference's 1.0: a batch task runs at speed 2.
    matrix = CapabilityMatrix(units={"x86_64": 1.0, "arm64": 2.0, "gpu_v100m32": 1.0})
    table = cluster([make_node("fast").arch("arm64")])
    task = make_task(0).kind("batch").work(100).arrival(0).build()
    speed = CapabilitySpeed(table, matrix)
    assert speed.speed(task, 0) == 2.0
    sim = Simulation(
        table, [task], build_scheduler("kube-default"),
        SimConfig(cycle_interval_s=1.0, record_fragmentation=False), speed=speed,
    )
    metrics = sim.run()
    # Arrives at 0, decided at 1 (one cycle interval), runs 100 / 2 = 50 s: done at 51.
    assert sim.recorder.start_s[0] == 1.0
    assert sim.recorder.end_s[0] == pytest.approx(51.0)
    assert metrics.completed == 1


def test_simulation_slow_node_takes_longer() -> None:
    # The shipped matrix: a training task on arm64 runs at 0.8 / 1.2, so work 100 takes 150 s.
    table = cluster([make_node("arm").arch("arm64")])
    task = make_task(0).kind("training").work(100).build()
    sim = Simulation(
        table, [task], build_scheduler("kube-default"),
        SimConfig(record_fragmentation=False), speed=CapabilitySpeed(table, load_capability()),
    )
    sim.run()
    assert sim.recorder.end_s[0] - sim.recorder.start_s[0] == pytest.approx(150.0)
    assert np.isfinite(sim.recorder.end_s).all()
