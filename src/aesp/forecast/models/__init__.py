"""PyTorch forecasters (CPU). Importing this package imports torch."""

from aesp.forecast.models.hybrid import HybridForecaster
from aesp.forecast.models.spatial import SpatialForecaster
from aesp.forecast.models.tcn import TCNForecaster
from aesp.forecast.models.training import GlobalWindowModel, TrainConfig
from aesp.forecast.models.twostage import TwoStageForecaster

__all__ = [
    "GlobalWindowModel",
    "HybridForecaster",
    "SpatialForecaster",
    "TCNForecaster",
    "TrainConfig",
    "TwoStageForecaster",
]
