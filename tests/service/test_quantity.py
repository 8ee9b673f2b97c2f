from decimal import Decimal

import pytest

from aesp.service.quantity import QuantityError, count, cpu_milli, mem_mib, parse_quantity


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("500m", Decimal("0.5")),          # milli: 500 / 1000 cores
        ("2Gi", Decimal(2 * 1024**3)),     # binary SI: 2 x 1024^3 bytes
        ("1.5", Decimal("1.5")),
        ("1e3", Decimal(1000)),            # decimal exponent: 1 x 10^3
        ("1E-2", Decimal("0.01")),
        ("128974848", Decimal(128974848)),
        ("129M", Decimal(129_000_000)),    # decimal SI: 129 x 10^6
        ("123Mi", Decimal(123 * 2**20)),   # 123 x 2^20 = 128974848 bytes
        ("1k", Decimal(1000)),
        ("100n", Decimal("1E-7")),
        ("5u", Decimal("0.000005")),
        ("+3Ki", Decimal(3072)),
        (".5", Decimal("0.5")),
        ("2", Decimal(2)),
        ("1Ei", Decimal(2**60)),
    ],
)
def test_parse_quantity(text: str, expected: Decimal) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize("bad", ["", "abc", "1.2.3", "5Q", "Mi", "1 Gi", "1e", "--1"])
def test_parse_quantity_rejects(bad: str) -> None:
    with pytest.raises(QuantityError, match="not a quantity"):
        parse_quantity(bad)


def test_numbers_pass_through() -> None:
    assert parse_quantity(3) == 3
    assert parse_quantity(0.25) == Decimal("0.25")
    with pytest.raises(QuantityError):
        parse_quantity(float("nan"))


@pytest.mark.parametrize(
    ("text", "milli"),
    [("500m", 500), ("1.5", 1500), ("2", 2000), ("0.1m", 1), ("100u", 1)],  # rounds up like MilliValue
)
def test_cpu_milli(text: str, milli: float) -> None:
    assert cpu_milli(text) == milli


def test_mem_mib_and_counts() -> None:
    assert mem_mib("128974848") == 123.0   # 128974848 / 2^20
    assert mem_mib("123Mi") == 123.0
    assert mem_mib("1Gi") == 1024.0
    assert count("4") == 4
    with pytest.raises(QuantityError, match="whole"):
        count("500m")
