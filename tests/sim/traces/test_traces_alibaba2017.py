"""Alibaba v2017 batch jobs: worked examples and the real file's counts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from aesp.sim.traces import load_trace, read_alibaba2017_jobs, sniff

WriteTrace = Callable[..., Path]
"""The ``write_trace`` fixture: ``write(name, *lines, gz=False) -> Path``."""

HEADER = ",submit_time,duration,cpu,memory,job_id,task_id,instances_num,disk"


def jobs_file(write_trace: WriteTrace, gz: bool = False) -> Path:
    return write_trace(
        "jobs.csv.gz" if gz else "jobs.csv",
        HEADER,
        "0,700,30.5,0.5,0.25,9,23,3,0",
        "1,500,12.0,1.0,0.5,1,1,2,0",
    )


def test_worked_example(write_trace: WriteTrace) -> None:
    first, second = read_alibaba2017_jobs(jobs_file(write_trace), machine_mem_mib=1000)
    # earliest submit 500 is time 0; the row submitted at 700 arrives at 200
    assert (first.name, first.arrival_s, first.work) == ("j1-t1", 0, 12.0)
    assert (second.name, second.arrival_s, second.work) == ("j9-t23", 200, 30.5)
    # 0.5 cores = 500 millicores; memory 0.25 of a 1000 MiB machine = 250 MiB
    assert (second.request.cpu_milli, second.request.mem_mib) == (500, 250)
    assert second.task_class == "batch" and ("instances_num", "3") in second.labels


def test_expand_instances_with_cap(write_trace: WriteTrace) -> None:
    path = jobs_file(write_trace)
    expanded = read_alibaba2017_jobs(path, expand_instances=True)
    # 2 + 3 instances, earliest row first
    assert [t.name for t in expanded] == [
        "j1-t1-i0",
        "j1-t1-i1",
        "j9-t23-i0",
        "j9-t23-i1",
        "j9-t23-i2",
    ]
    assert [t.id for t in expanded] == [0, 1, 2, 3, 4]
    capped = read_alibaba2017_jobs(path, expand_instances=True, max_tasks=3)
    assert [t.name for t in capped] == ["j1-t1-i0", "j1-t1-i1", "j9-t23-i0"]


def test_default_machine_memory(write_trace: WriteTrace) -> None:
    first, _ = read_alibaba2017_jobs(jobs_file(write_trace))
    assert first.request.mem_mib == 0.5 * 98304


def test_bad_arguments(write_trace: WriteTrace) -> None:
    path = jobs_file(write_trace)
    with pytest.raises(ValueError, match="max_tasks"):
        read_alibaba2017_jobs(path, max_tasks=0)
    with pytest.raises(ValueError, match="machine_mem_mib"):
        read_alibaba2017_jobs(path, machine_mem_mib=0)


def test_gzip_round_trip(write_trace: WriteTrace) -> None:
    plain, packed = jobs_file(write_trace), jobs_file(write_trace, gz=True)
    assert sniff(packed) == "alibaba2017-jobs"
    assert read_alibaba2017_jobs(packed) == read_alibaba2017_jobs(plain)


def test_real_jobs(data_dir: Path) -> None:
    path = data_dir / "alibaba-2017-batch" / "jobs.csv.gz"
    tasks = read_alibaba2017_jobs(path)
    # rows indexed 0..31755 (the data README's 31,755 is one short)
    assert len(tasks) == 31_756
    assert tasks[-1].arrival_s == 59_829  # 16.6 h
    assert sum(int(dict(t.labels)["instances_num"]) for t in tasks) == 2_551_075
    assert len(load_trace(path, expand_instances=True, max_tasks=1000)) == 1000
