"""Kubernetes resource quantities (``500m``, ``2Gi``, ``1.5``, ``1e3``, ``129M``) as exact decimals.

The grammar is apimachinery's ``resource.Quantity``: a signed decimal number followed by an
optional suffix, either a binary SI suffix (``Ki Mi Gi Ti Pi Ei``, powers of 1024), a decimal SI
suffix (``n u m k M G T P E``, powers of 1000) or a decimal exponent (``e3``, ``E-2``).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Final

_BINARY: Final = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL: Final = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_QUANTITY = re.compile(
    r"^(?P<num>[+-]?(?:\d+\.?\d*|\.\d+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$"
)
MIB: Final = 2**20


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


def parse_quantity(value: str | int | float | Decimal) -> Decimal:
    """The exact value of a quantity in base units (cores, bytes, devices).

    Raises:
        QuantityError: not a quantity; the message quotes the input.
    """
    if isinstance(value, bool):
        raise QuantityError(f"not a quantity: {value!r}")
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QuantityError(f"not a quantity: {value!r}")
        return Decimal(repr(value))
    if not isinstance(value, str):
        raise QuantityError(f"not a quantity: {value!r}")
    match = _QUANTITY.match(value.strip())
    if match is None:
        raise QuantityError(f"not a quantity: {value!r}")
    try:
        number = Decimal(match["num"])
    except InvalidOperation:  # pragma: no cover - the regex admits only decimals
        raise QuantityError(f"not a quantity: {value!r}") from None
    suffix = match["suffix"] or ""
    if suffix in _BINARY:
        return number * (Decimal(1024) ** _BINARY[suffix])
    if suffix in _DECIMAL:
        return number.scaleb(_DECIMAL[suffix])
    return number.scaleb(int(suffix[1:]))


def cpu_milli(value: str | int | float | Decimal) -> float:
    """CPU quantity in millicores, rounded up as kube's ``MilliValue`` does (``0.1m`` -> 1)."""
    return float(math.ceil(parse_quantity(value) * 1000))


def mem_mib(value: str | int | float | Decimal) -> float:
    """Memory quantity in MiB (``128974848`` bytes -> 123.0)."""
    return float(parse_quantity(value) / MIB)


def count(value: str | int | float | Decimal) -> int:
    """An extended resource such as ``nvidia.com/gpu``: a whole number of devices.

    Raises:
        QuantityError: fractional or negative device counts.
    """
    q = parse_quantity(value)
    if q < 0 or q != q.to_integral_value():
        raise QuantityError(f"device count must be a whole non-negative number: {value!r}")
    return int(q)
