"""Built-in plugins; importing this package registers them."""

from aesp.placement.plugins import (
    capability,
    filters,
    fragmentation,
    loadaware,
    network,
    noderesources,
    simple,
)

__all__ = [
    "capability",
    "filters",
    "fragmentation",
    "loadaware",
    "network",
    "noderesources",
    "simple",
]
