"""A deliberately bad scheduler: every invalid binding is rejected, counted, never applied."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from aesp.core import Binding, ClusterSnapshot, Decision, Scheduler, Task
from aesp.sim.driver import Simulation
from aesp.sim.fleet import Fleet
from aesp.testing import cluster, make_node, make_task


class GreedyLiar:
    """Binds everything to node 0 and adds bindings that are wrong in every way."""

    name = "greedy-liar"

    def decide(self, snapshot: ClusterSnapshot, pending: Sequence[Task]) -> Decision:
        first = pending[0].id
        bad = [Binding(first, 7), Binding(first, 0, gpus=(3,))]  # no node 7; no GPU 3 asked
        mine = [Binding(t.id, 0) for t in pending]
        return Decision(tuple([*bad, *mine, Binding(999, 0)]))  # 999: no such task


class CheckingObserver:
    """The oracle view, asserting the fleet is within capacity whenever it is observed."""

    def __init__(self) -> None:
        self.checks = 0

    def observe(self, fleet: Fleet, now_s: float) -> ClusterSnapshot:
        self.checks += 1
        assert (fleet.allocated <= fleet.table.capacity + 1e-9).all()
        assert (fleet.gpu_free_milli >= -1e-9).all()
        return fleet.snapshot(now_s)


def test_invalid_bindings_are_rejected_and_counted() -> None:
    # Node 0 (4000m) takes one 3000m task at a time; each task runs 10 s.
    # Cycle at 1, pending t0 t1 t2: bad x2, t0 ok, t1 t2 over-commit, 999 -> 5 invalid.
    # t0 ends at 11 -> cycle at 12, pending t1 t2: bad x2, t1 ok, t2, 999 -> 4 invalid.
    # t1 ends at 22 -> cycle at 23, pending t2: bad x2, t2 ok, 999 -> 3 invalid. Total 12.
    table = cluster([make_node("a").cpu(4000), make_node("b").cpu(4000)])
    tasks = [make_task(i).cpu(3000).work(10).build() for i in range(3)]
    liar = GreedyLiar()
    assert isinstance(liar, Scheduler)
    observer = CheckingObserver()
    sim = Simulation(table, tasks, liar, observer=observer)
    m = sim.run()
    assert m.invalid_bindings == 12
    assert (m.completed, m.failed, m.unscheduled) == (3, 0, 0)
    np.testing.assert_array_equal(sim.recorder.node, [0, 0, 0])
    np.testing.assert_array_equal(sim.recorder.bind_s, [1, 12, 23])
    assert observer.checks == 3
    # Nothing is left allocated after everything completed.
    np.testing.assert_array_equal(sim.fleet.allocated, np.zeros((2, 3)))
