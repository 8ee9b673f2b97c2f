"""Built-in plugins; importing this package registers them."""

from aesp.placement.plugins import filters, loadaware, noderesources, simple

__all__ = ["filters", "loadaware", "noderesources", "simple"]
