"""Sites and the network links between them.

A *site* is a place that hosts nodes: a cloud zone, a data-centre hall or an edge location. Sites
belong to a region and a jurisdiction (the legal area that data-residency rules name). Links are
symmetric; the RTT between two sites without a direct link is the shortest path over links.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from aesp.core.resources import FloatArray

Tier = Literal["cloud", "edge"]
TIERS: tuple[Tier, ...] = ("cloud", "edge")


@dataclass(frozen=True, slots=True)
class Site:
    """One place that hosts nodes."""

    name: str
    region: str
    zone: str
    tier: Tier = "cloud"
    jurisdiction: str = ""
    """Legal area for data residency, e.g. ``EU``, ``US``, ``CN``."""


@dataclass(frozen=True, slots=True)
class Link:
    """A symmetric network link between two sites.

    Units: rtt_ms milliseconds, bandwidth_mbps megabits per second, usd_per_gb US dollars per GB
    transferred.
    """

    a: str
    b: str
    rtt_ms: float
    bandwidth_mbps: float
    usd_per_gb: float = 0.0


@dataclass(frozen=True)
class Topology:
    """Sites plus all-pairs network matrices, computed once.

    Shapes:
        rtt_ms, bandwidth_mbps, usd_per_gb: ``(S, S)`` over :attr:`sites` in order. The diagonal
        holds ``intra_site_rtt_ms``, infinite bandwidth and zero cost.
    """

    sites: tuple[Site, ...]
    links: tuple[Link, ...]
    rtt_ms: FloatArray = field(repr=False)
    bandwidth_mbps: FloatArray = field(repr=False)
    usd_per_gb: FloatArray = field(repr=False)

    @classmethod
    def build(
        cls, sites: Sequence[Site], links: Sequence[Link], intra_site_rtt_ms: float = 0.5
    ) -> Topology:
        """Validate sites and links and compute shortest-RTT matrices (Floyd-Warshall).

        Bandwidth along a multi-hop path is the bottleneck link's; cost adds up per hop.

        Raises:
            ValueError: duplicate site names, links to unknown sites, negative values or a
                disconnected topology.
        """
        names = [s.name for s in sites]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate site names in {names}")
        index = {n: i for i, n in enumerate(names)}
        n = len(sites)
        rtt = np.full((n, n), np.inf)
        bw = np.zeros((n, n))
        cost = np.full((n, n), np.inf)
        np.fill_diagonal(rtt, intra_site_rtt_ms)
        np.fill_diagonal(bw, np.inf)
        np.fill_diagonal(cost, 0.0)
        for link in links:
            if link.a not in index or link.b not in index:
                raise ValueError(f"link {link.a}-{link.b} names an unknown site")
            if link.rtt_ms < 0 or link.bandwidth_mbps <= 0 or link.usd_per_gb < 0:
                raise ValueError(f"link {link.a}-{link.b} has a negative or zero value")
            i, j = index[link.a], index[link.b]
            for u, v in ((i, j), (j, i)):
                rtt[u, v], bw[u, v], cost[u, v] = link.rtt_ms, link.bandwidth_mbps, link.usd_per_gb
        for k in range(n):
            via = rtt[:, k : k + 1] + rtt[k : k + 1, :]
            better = via < rtt
            if better.any():
                rtt = np.where(better, via, rtt)
                bw = np.where(better, np.minimum(bw[:, k : k + 1], bw[k : k + 1, :]), bw)
                cost = np.where(better, cost[:, k : k + 1] + cost[k : k + 1, :], cost)
        if n and not np.isfinite(rtt).all():
            raise ValueError("topology is disconnected: some sites have no path between them")
        for m in (rtt, bw, cost):
            m.setflags(write=False)
        return cls(tuple(sites), tuple(links), rtt, bw, cost)

    @classmethod
    def single_site(cls, name: str = "default", region: str = "default") -> Topology:
        """A topology of one cloud site, for traces that carry no locations."""
        return cls.build([Site(name=name, region=region, zone=name)], [])

    def index(self, site: str) -> int:
        """Position of a site in the matrices.

        Raises:
            KeyError: unknown site, with the known ones in the message.
        """
        for i, s in enumerate(self.sites):
            if s.name == site:
                return i
        raise KeyError(f"unknown site {site!r}; known: {[s.name for s in self.sites]}")

    @property
    def site_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.sites)
