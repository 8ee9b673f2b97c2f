"""Loading the capability matrix from YAML."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from aesp.config.loader import ConfigError, read_yaml, validation_problem
from aesp.core.capability import CapabilityError, CapabilityMatrix

CAPABILITY_FILE = Path(__file__).resolve().parents[1] / "configs" / "capability.yaml"


class CapabilityConfig(BaseModel):
    """The YAML form of :class:`aesp.core.capability.CapabilityMatrix`."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    units: dict[str, float]
    reference_cpu: str = "x86_64"
    reference_gpu: str = "gpu_v100m32"
    exponent: dict[str, float] = Field(default_factory=dict)
    offload: dict[str, dict[str, float]] = Field(default_factory=dict)


def load_capability(path: str | Path | None = None) -> CapabilityMatrix:
    """The shipped matrix, or one from a YAML file.

    Raises:
        ConfigError: unreadable file, invalid fields or an inconsistent matrix.
    """
    p = Path(path) if path is not None else CAPABILITY_FILE
    if not p.is_file():
        raise ConfigError(f"capability matrix not found: {p}")
    try:
        cfg = CapabilityConfig.model_validate(read_yaml(p))
        exponent = cfg.exponent or None
        return CapabilityMatrix(
            units=cfg.units,
            reference_cpu=cfg.reference_cpu,
            reference_gpu=cfg.reference_gpu,
            **({"exponent": exponent} if exponent else {}),
            offload=cfg.offload,
        )
    except ValidationError as exc:
        raise ConfigError(f"{p}: {validation_problem(exc)}") from None
    except CapabilityError as exc:
        raise ConfigError(f"{p}: {exc}") from None
