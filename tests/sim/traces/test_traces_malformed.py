"""Malformed trace files: every problem is a TraceError naming the file and the line."""

from __future__ import annotations

import gzip
import pickle
from collections.abc import Callable
from pathlib import Path

import pytest

from aesp.sim.traces import (
    TraceError,
    load_trace,
    read_alibaba2017_jobs,
    read_openb_nodes,
    read_openb_pods,
    sniff,
)

WriteTrace = Callable[..., Path]
"""The ``write_trace`` fixture: ``write(name, *lines, gz=False) -> Path``."""

POD_HEADER = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
    "creation_time,deletion_time,scheduled_time"
)
GOOD_POD = "ok,1000,1024,1,500,,LS,Running,0,100,10"
NODE_HEADER = "sn,cpu_milli,memory_mib,gpu,model"
JOB_HEADER = ",submit_time,duration,cpu,memory,job_id,task_id,instances_num,disk"

Reader = Callable[[Path], object]

# (reader, lines after the header, line of the error, words in the message)
CASES: list[tuple[Reader, tuple[str, ...], int, str]] = [
    (
        read_openb_pods,
        (GOOD_POD, "p,abc,1,0,0,,LS,Running,0,1,0"),
        3,
        "cpu_milli 'abc' is not a number",
    ),
    (read_openb_pods, ("p,1,1,0,0,,LS,Running,0,1",), 2, "expected 11 columns, found 10"),
    (read_openb_pods, ("p,1,-5,0,0,,LS,Running,0,1,0",), 2, "memory_mib '-5' is negative"),
    (read_openb_pods, ("p,nan,1,0,0,,LS,Running,0,1,0",), 2, "cpu_milli 'nan' is not a finite"),
    (read_openb_pods, ("p,1,1,0,500,,LS,Running,0,1,0",), 2, "gpu_milli 500 without GPUs"),
    (read_openb_pods, ("p,1,1,2,500,,LS,Running,0,1,0",), 2, "multi-GPU pods take whole GPUs"),
    (read_openb_pods, ("p,1,1,1,0,,LS,Running,0,1,0",), 2, "gpu_milli 0 is outside 1..1000"),
    (read_openb_pods, ("p,1,1,1.5,1000,,LS,Running,0,1,0",), 2, "num_gpu '1.5' is not a whole"),
    (
        read_openb_pods,
        ("p,1,1,0,0,,LS,Running,50,10,",),
        2,
        "deletion_time 10 is before creation_time 50",
    ),
    (read_openb_pods, ("p,1,1,0,0,,LS,Running,0,10,20",), 2, "scheduled_time 20 is outside"),
    (read_openb_pods, ("p,1,1,0,0,,Gold,Running,0,10,0",), 2, "unknown qos 'Gold'"),
    (read_openb_pods, ("p,1,1,0,0,,LS,Running,0,,0",), 2, "deletion_time is empty"),
    (read_openb_pods, (",1,1,0,0,,LS,Running,0,1,0",), 2, "name is empty"),
    (read_openb_nodes, ("n,32000,1024,2,",), 2, "needs a gpu_model"),
    (read_openb_nodes, ("n,0,1024,0,",), 2, "must be positive"),
    (read_openb_nodes, ("n,1,1,0,", "n,1,1,0,"), 3, "duplicate node name 'n'"),
    (read_alibaba2017_jobs, ("0,1,1,0.5,1.5,1,1,1,0",), 2, "memory 1.5 is above 1"),
    (read_alibaba2017_jobs, ("0,1,1,0.5,0.1,1,1,0,0",), 2, "instances_num is 0"),
    (read_alibaba2017_jobs, ("0,x,1,0.5,0.1,1,1,1,0",), 2, "submit_time 'x' is not a number"),
]
HEADERS = {read_openb_pods: POD_HEADER, read_openb_nodes: NODE_HEADER}


@pytest.mark.parametrize(("reader", "lines", "line", "words"), CASES)
@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_bad_row(
    write_trace: WriteTrace, reader: Reader, lines: tuple[str, ...], line: int, words: str, gz: bool
) -> None:
    path = write_trace("trace.csv", HEADERS.get(reader, JOB_HEADER), *lines, gz=gz)
    with pytest.raises(TraceError, match=rf"^trace\.csv:{line}: ") as caught:
        reader(path)
    assert words in str(caught.value)
    assert (caught.value.path, caught.value.line) == (path, line)


def test_line_numbers_count_blank_lines(write_trace: WriteTrace) -> None:
    path = write_trace("pods.csv", POD_HEADER, GOOD_POD, "", "p,1,1,0,0,,LS,Running,0,1")
    with pytest.raises(TraceError, match=r"^pods.csv:4: expected 11 columns"):
        read_openb_pods(path)


def test_unknown_header(write_trace: WriteTrace) -> None:
    path = write_trace("mystery.csv", "a,b,c", "1,2,3")
    with pytest.raises(TraceError, match=r"^mystery.csv:1: unknown header 'a,b,c'"):
        sniff(path)
    with pytest.raises(TraceError, match=r"^mystery.csv:1: unknown header"):
        load_trace(path)
    with pytest.raises(TraceError, match=r"^mystery.csv:1: header 'a,b,c' is not an OpenB pod"):
        read_openb_pods(path)


def test_wrong_reader_for_format(write_trace: WriteTrace) -> None:
    path = write_trace("nodes.csv", NODE_HEADER, "n,1,1,0,")
    with pytest.raises(TraceError, match=r"^nodes.csv:1: header .* is not an Alibaba v2017"):
        read_alibaba2017_jobs(path)


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_empty_file(write_trace: WriteTrace, gz: bool) -> None:
    path = write_trace("empty.csv", gz=gz)
    with pytest.raises(TraceError, match=r"^empty.csv:1: empty file"):
        sniff(path)
    with pytest.raises(TraceError, match=r"^empty.csv:1: empty file"):
        read_openb_nodes(path)


def test_header_without_rows(write_trace: WriteTrace) -> None:
    path = write_trace("nodes.csv", NODE_HEADER)
    with pytest.raises(TraceError, match=r"^nodes.csv:2: no data rows"):
        read_openb_nodes(path)


def test_truncated_gzip(tmp_path: Path) -> None:
    data = gzip.compress(f"{POD_HEADER}\n{GOOD_POD}\n".encode() * 200)
    path = tmp_path / "cut.csv.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(TraceError, match=r"^cut.csv.gz:\d+: unreadable"):
        read_openb_pods(path)


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"absent\.csv"):
        load_trace(tmp_path / "absent.csv")


def test_error_is_a_value_error_and_pickles(tmp_path: Path) -> None:
    error = TraceError(tmp_path / "x.csv", 17, "cpu_milli 'abc' is not a number")
    assert isinstance(error, ValueError)
    assert str(error) == "x.csv:17: cpu_milli 'abc' is not a number"
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.line, copy.reason) == (str(error), 17, error.reason)
