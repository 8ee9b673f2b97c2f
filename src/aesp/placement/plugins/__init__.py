"""Built-in plugins; importing this package registers them."""

from aesp.placement.plugins import (
    capability,
    filters,
    forecast,
    fragmentation,
    loadaware,
    network,
    noderesources,
    simple,
)

__all__ = [
    "capability",
    "filters",
    "forecast",
    "fragmentation",
    "loadaware",
    "network",
    "noderesources",
    "simple",
]
