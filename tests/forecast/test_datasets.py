"""Dataset readers on the real traces (skipped when absent) and on malformed files."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from aesp.forecast.datasets import DatasetError, load_dataset

REAL = [
    # (name, folder, min series, step_s)
    ("bitbrains", "bitbrains-rnd/2013-7", 30, 300),
    ("alibaba2018", "alibaba-2018", 10, 300),
    ("nab", "nab-aws", 8, 300),
    ("helios", "helios", 2, 60),
    ("genai-gpu", "alibaba-genai-2026", 50, 57),
]


@pytest.mark.parametrize(("name", "folder", "min_series", "step_s"), REAL)
def test_real_dataset(data_dir: Path, name: str, folder: str, min_series: int, step_s: int) -> None:
    panel = load_dataset(name, data_dir / folder)
    assert panel.n_series >= min_series
    assert panel.step_s == step_s
    assert np.isfinite(panel.values).all()
    assert panel.observed.mean() > 0.8


def test_bitbrains_single_file_and_units(data_dir: Path) -> None:
    panel = load_dataset("bitbrains", data_dir / "bitbrains-rnd/2013-7/1.csv.gz")
    assert panel.series_ids == ("vm-1",)
    # the "[ms]" column holds Unix seconds: July 2013
    assert 1_372_600_000 < panel.start_s[0] < 1_372_700_000
    assert panel.values.min() >= 0.0 and panel.values.max() <= 100.0


def test_max_series(data_dir: Path) -> None:
    assert load_dataset("nab", data_dir / "nab-aws", max_series=2).n_series == 2


BITBRAINS_HEADER = (
    "Timestamp [ms];\tCPU cores;\tCPU capacity provisioned [MHZ];\tCPU usage [MHZ];\t"
    "CPU usage [%];\tMemory capacity provisioned [KB];\tMemory usage [KB]\n"
)


def _bitbrains_rows(n: int) -> str:
    return "".join(
        f"{1_372_629_804 + 300 * i};\t2;\t5851.9;\t87.7;\t{i % 7}.5;\t8218624;\t1000\n"
        for i in range(n)
    )


def test_bitbrains_gzipped_without_gz_name(tmp_path: Path) -> None:
    # gzip is detected from the content, not the name
    file = tmp_path / "3.csv"
    file.write_bytes(gzip.compress((BITBRAINS_HEADER + _bitbrains_rows(20)).encode()))
    panel = load_dataset("bitbrains", file)
    assert panel.values.shape == (1, 20)
    assert panel.values[0, :3].tolist() == [0.5, 1.5, 2.5]


def test_bad_number_names_file_and_line(tmp_path: Path) -> None:
    rows = _bitbrains_rows(5).splitlines(keepends=True)
    rows[2] = rows[2].replace("2.5", "abc")
    file = tmp_path / "1.csv"
    file.write_text(BITBRAINS_HEADER + "".join(rows))
    # header is line 1, so the third data row is line 4
    with pytest.raises(DatasetError, match=r"1\.csv:4: column 'CPU usage \[%\]'.*'abc'"):
        load_dataset("bitbrains", tmp_path)


def test_missing_column(tmp_path: Path) -> None:
    (tmp_path / "1.csv").write_text("Timestamp [ms];x\n1;2\n")
    with pytest.raises(DatasetError, match="missing column 'CPU usage"):
        load_dataset("bitbrains", tmp_path)


def test_alibaba_wrong_column_count(tmp_path: Path) -> None:
    file = tmp_path / "machine_usage.csv"
    file.write_text("m_1,10,40,90\nm_1,20,41,90\n")
    with pytest.raises(DatasetError, match="expected 9 columns, found 4"):
        load_dataset("alibaba2018", file)


def test_alibaba_ragged_row_names_line(tmp_path: Path) -> None:
    file = tmp_path / "machine_usage.csv"
    file.write_text("m_1,10,40,90,,,1,1,5\nm_1,20,41,90,,,1,1,5,7,8\n")
    with pytest.raises(DatasetError, match=r"machine_usage\.csv.*line 2"):
        load_dataset("alibaba2018", file)


def test_alibaba_irregular_samples_are_averaged(tmp_path: Path) -> None:
    # cell 0 = [0, 300): samples 40 and 60 -> 50; cell 1 empty -> 50 (imputed); then 30, 20, 10.
    # 4 of 5 cells observed = 80 % coverage, just enough to keep the machine.
    rows = ["m_1,0,40", "m_1,200,60", "m_1,600,30", "m_1,900,20", "m_1,1200,10"]
    file = tmp_path / "machine_usage.csv.gz"
    file.write_bytes(gzip.compress("".join(r + ",1,,,1,1,5\n" for r in rows).encode()))
    panel = load_dataset("alibaba2018", tmp_path)
    assert panel.values.tolist() == [[50.0, 50.0, 30.0, 20.0, 10.0]]
    assert panel.observed.tolist() == [[True, False, True, True, True]]


def test_nab_bad_timestamp(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("timestamp,value\n2014-02-14 14:30:00,1\nyesterday,2\n")
    with pytest.raises(DatasetError, match=r"a\.csv:3: column 'timestamp'"):
        load_dataset("nab", tmp_path)


def test_empty_file(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("")
    with pytest.raises(DatasetError, match=r"a\.csv"):
        load_dataset("nab", tmp_path)


def test_missing_path_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such file or folder"):
        load_dataset("helios", tmp_path / "nope")
    with pytest.raises(DatasetError, match="no files matching"):
        load_dataset("helios", tmp_path)


def test_unknown_dataset(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="unknown dataset"):
        load_dataset("imagenet", tmp_path)
