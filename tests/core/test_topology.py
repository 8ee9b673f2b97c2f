"""Topology: shortest RTT paths, bottleneck bandwidth, summed cost, validation."""

from __future__ import annotations

import numpy as np
import pytest

from aesp.core import Link, Topology
from aesp.testing import make_site


def line_topology() -> Topology:
    # a --10 ms, 1000 Mbps, $0.01-- b --20 ms, 500 Mbps, $0.02-- c     d --5 ms-- c
    # plus a slow direct a-c link (100 ms) that the two-hop path beats (10 + 20 = 30 ms).
    sites = [make_site(n) for n in "abcd"]
    links = [
        Link("a", "b", 10.0, 1000.0, 0.01),
        Link("b", "c", 20.0, 500.0, 0.02),
        Link("a", "c", 100.0, 10000.0, 0.5),
        Link("c", "d", 5.0, 2000.0, 0.03),
    ]
    return Topology.build(sites, links, intra_site_rtt_ms=0.5)


def test_multi_hop_rtt_is_the_shortest_sum() -> None:
    topo = line_topology()
    a, b, c, d = (topo.index(s) for s in "abcd")
    assert topo.rtt_ms[a, c] == 30.0  # a-b-c: 10 + 20 < direct 100
    assert topo.rtt_ms[a, d] == 35.0  # a-b-c-d: 10 + 20 + 5
    assert topo.rtt_ms[d, a] == 35.0  # symmetric
    assert topo.rtt_ms[b, b] == 0.5  # intra-site


def test_bandwidth_is_the_bottleneck_and_cost_adds_up() -> None:
    topo = line_topology()
    a, c, d = topo.index("a"), topo.index("c"), topo.index("d")
    assert topo.bandwidth_mbps[a, c] == 500.0  # min(1000, 500) along a-b-c, not the direct 10000
    assert topo.bandwidth_mbps[a, d] == 500.0  # min(1000, 500, 2000)
    assert topo.usd_per_gb[a, c] == pytest.approx(0.03)  # 0.01 + 0.02
    assert topo.usd_per_gb[a, d] == pytest.approx(0.06)  # 0.01 + 0.02 + 0.03
    assert np.isinf(topo.bandwidth_mbps[a, a]) and topo.usd_per_gb[a, a] == 0.0


def test_matrices_are_symmetric_and_read_only() -> None:
    topo = line_topology()
    for m in (topo.rtt_ms, topo.bandwidth_mbps, topo.usd_per_gb):
        np.testing.assert_array_equal(m, m.T)
        assert not m.flags.writeable


@pytest.mark.parametrize(
    ("sites", "links", "message"),
    [
        ("ab", [], "disconnected"),
        ("abc", [Link("a", "b", 1, 1)], "disconnected"),
        ("aa", [], "duplicate site names"),
        ("ab", [Link("a", "z", 1, 1)], "unknown site"),
        ("ab", [Link("a", "b", -1, 1)], "negative or zero"),
        ("ab", [Link("a", "b", 1, 0)], "negative or zero"),
        ("ab", [Link("a", "b", 1, 1, -0.1)], "negative or zero"),
    ],
)
def test_topology_rejects(sites: str, links: list[Link], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Topology.build([make_site(s) for s in sites], links)


def test_index_and_single_site() -> None:
    topo = Topology.single_site("only")
    assert topo.site_names == ("only",) and topo.index("only") == 0
    with pytest.raises(KeyError, match="unknown site 'x'"):
        topo.index("x")
