"""Load history for forecasting, read from the metric store the agents' reports land in.

The control plane persists every agent report in :class:`aesp.perception.MetricStore`; this
module turns a time range of it into the :class:`aesp.forecast.panel.Panel` the forecasters
train and predict on, one series per node, on a regular grid (mean per cell, gaps filled
forward and marked unobserved, as for the public traces).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from aesp.forecast.panel import Panel, regularise
from aesp.perception.store import MetricStore


def panel_from_store(
    store: MetricStore,
    nodes: Sequence[str],
    metric: str = "cpu_pct",
    start_s: float = 0.0,
    end_s: float = float("inf"),
    step_s: int = 60,
    min_observed: float = 0.5,
) -> Panel:
    """One series per node of ``metric`` over ``[start_s, end_s)``, on a ``step_s`` grid.

    Nodes with fewer than ``min_observed`` of their grid cells observed are dropped (listed in
    ``Panel.dropped``).

    Raises:
        KeyError: an unknown metric. ValueError: no node has enough history.
    """
    series = {n: store.query_series(n, metric, start_s, end_s) for n in nodes}
    times = [t for t, _ in series.values() if t.size]
    if not times:
        raise ValueError(f"no {metric} history in the store for {len(nodes)} nodes")
    first = int(np.floor(min(float(t[0]) for t in times) / step_s) * step_s)
    last = max(float(t[-1]) for t in times)
    n_steps = int((last - first) // step_s) + 1
    rows, observed, kept, dropped = [], [], [], []
    for node, (t, v) in series.items():
        dense, seen = regularise(t, v, first, step_s, n_steps)
        if seen.mean() < min_observed:
            dropped.append(node)
            continue
        rows.append(dense)
        observed.append(seen)
        kept.append(node)
    if not kept:
        raise ValueError(f"no node has {min_observed:.0%} of its {metric} history observed")
    return Panel(
        series_ids=tuple(kept),
        values=np.stack(rows),
        observed=np.stack(observed),
        step_s=step_s,
        start_s=np.full(len(kept), first, np.int64),
        unit="percent" if metric.endswith("_pct") else "",
        dropped=tuple(dropped),
    )
