"""One registry of plugins by name; profiles refer to plugins only through it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

_PLUGINS: dict[str, Callable[..., Any]] = {}
T = TypeVar("T")


class UnknownPluginError(KeyError):
    """A profile names a plugin that is not registered."""

    def __str__(self) -> str:
        return str(self.args[0])


def register(cls: type[T]) -> type[T]:
    """Class decorator: register a plugin under its ``NAME``; duplicates are an error."""
    name = getattr(cls, "NAME", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"{cls.__name__} needs a non-empty NAME to be registered")
    if name in _PLUGINS:
        raise ValueError(f"plugin {name!r} is already registered")
    _PLUGINS[name] = cls
    return cls


def create(name: str, args: Mapping[str, Any] | None = None) -> Any:
    """Instantiate a registered plugin with its profile arguments.

    Raises:
        UnknownPluginError: no plugin of that name.
        ValueError: the arguments do not match the plugin's parameters.
    """
    try:
        factory = _PLUGINS[name]
    except KeyError:
        raise UnknownPluginError(
            f"unknown plugin {name!r}; registered: {', '.join(sorted(_PLUGINS))}"
        ) from None
    try:
        return factory(**dict(args or {}))
    except TypeError as exc:
        raise ValueError(f"bad arguments for plugin {name!r}: {exc}") from None


def registered() -> tuple[str, ...]:
    """Names of all registered plugins, sorted."""
    return tuple(sorted(_PLUGINS))
