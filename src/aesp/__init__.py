"""AESP: a closed-loop scheduler for cloud-edge fleets.

Perceive (node agents, regional aggregators, a topology graph), predict (load forecasts),
decide (batch assignment and a learned policy over one scheduling framework) and act. The
decision core in :mod:`aesp.placement` serves both the simulator in :mod:`aesp.sim` and the
control plane in :mod:`aesp.service`.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
