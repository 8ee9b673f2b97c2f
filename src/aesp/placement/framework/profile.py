"""Profiles: which plugins a scheduler runs, with what weights and arguments (YAML data)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from aesp.config.loader import validation_problem, yaml_problem

PROFILES_DIR = Path(__file__).resolve().parents[2] / "configs" / "profiles"


class PluginRef(BaseModel):
    """A plugin in a profile."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    """Registered plugin name."""
    weight: float = Field(default=1.0, ge=0)
    """Multiplier of the plugin's ``[0, 100]`` score (scores only)."""
    args: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments for the plugin's constructor."""


class Profile(BaseModel):
    """A scheduler profile."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    description: str = ""
    solver: Literal["sequential", "hungarian"] = "sequential"
    percentage_of_nodes_to_score: int = Field(default=0, ge=0, le=100)
    """0 means kube-scheduler's adaptive default; 100 scores every feasible node."""
    filters: tuple[PluginRef, ...] = ()
    scores: tuple[PluginRef, ...] = ()
    solver_args: dict[str, Any] = Field(default_factory=dict)
    """Solver settings (batch window, top-k) for solvers that take them."""
    reservation: dict[str, float] | None = None
    """Starvation guard settings (``after_s``, ``max_held``); None disables it."""


class ProfileError(ValueError):
    """A profile file is missing or malformed."""


def available_profiles() -> tuple[str, ...]:
    """Names of the profiles shipped with the package."""
    return tuple(sorted(p.stem for p in PROFILES_DIR.glob("*.yaml")))


def load_profile(name_or_path: str) -> Profile:
    """Load a shipped profile by name, or a profile YAML file by path.

    Raises:
        ProfileError: unknown name, unreadable file or invalid content.
    """
    path = Path(name_or_path)
    if not path.suffix:
        path = PROFILES_DIR / f"{name_or_path}.yaml"
        if not path.exists():
            known = ", ".join(available_profiles())
            raise ProfileError(f"unknown scheduler {name_or_path!r}; known: {known}")
    try:
        raw = yaml.safe_load(path.read_text())
        return Profile.model_validate(_normalise(raw))
    except OSError as exc:
        raise ProfileError(f"cannot read profile {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise ProfileError(f"profile {path} is not valid YAML: {yaml_problem(exc)}") from None
    except ValidationError as exc:
        raise ProfileError(f"profile {path}: {validation_problem(exc)}") from None


def _normalise(raw: Any) -> Any:
    """Allow plain names in plugin lists: ``filters: [NodeUp]``."""
    if isinstance(raw, dict):
        for key in ("filters", "scores"):
            items = raw.get(key) or []
            raw[key] = [{"name": i} if isinstance(i, str) else i for i in items]
    return raw
