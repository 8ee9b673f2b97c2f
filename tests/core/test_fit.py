"""The one definition of "fits": resource_fit, gpu_fit, pick_gpus, binding_fits."""

from __future__ import annotations

import numpy as np
import pytest

from aesp.core import Request, binding_fits, gpu_fit, pick_gpus, resource_fit


@pytest.mark.parametrize(
    ("row", "request_", "gpus"),
    [
        # Fractional: best fit takes the GPU with the least free share that still fits.
        # free [1000, 300, 600, 250], ask 250 -> candidates all four, least free = GPU 3 (250).
        ([1000, 300, 600, 250], Request(1, 1, 1, 250), (3,)),
        # ask 500 -> candidates GPU 0 (1000) and GPU 2 (600): GPU 2 is tighter.
        ([1000, 300, 600, 250], Request(1, 1, 1, 500), (2,)),
        # ask 1000 -> only GPU 0 is whole.
        ([1000, 300, 600, 250], Request(1, 1, 1, 1000), (0,)),
        # Whole GPUs: the first fully free ones, in index order.
        ([500, 1000, 1000, 1000], Request(1, 1, 2, 1000), (1, 2)),
        ([1000, 0, 1000, 1000], Request(1, 1, 3, 1000), (0, 2, 3)),
        # No GPU asked: no GPU taken.
        ([0, 0], Request(1, 1), ()),
    ],
)
def test_pick_gpus(row: list[float], request_: Request, gpus: tuple[int, ...]) -> None:
    assert pick_gpus(np.array(row, np.float64), request_) == gpus


@pytest.mark.parametrize(
    ("row", "request_"),
    [
        ([200, 100], Request(1, 1, 1, 250)),
        ([1000, 999], Request(1, 1, 2, 1000)),
    ],
)
def test_pick_gpus_raises_when_nothing_fits(row: list[float], request_: Request) -> None:
    with pytest.raises(ValueError, match="does not fit"):
        pick_gpus(np.array(row, np.float64), request_)


def test_resource_fit_table() -> None:
    # node: free cpu, mem, gpu_milli (unused) ; per-GPU free shares
    free = np.array([[1000, 2048, 0], [500, 4096, 0], [4000, 8192, 0], [4000, 8192, 0]], np.float64)
    gpu_free = np.array([[0, 0], [0, 0], [500, 0], [1000, 1000]], np.float64)
    cases = [
        (Request(1000, 2048), [True, False, True, True]),  # node 1: 500 < 1000 CPU
        (Request(500, 4096), [False, True, True, True]),  # node 0: 2048 < 4096 MiB
        (Request(100, 100, 1, 500), [False, False, True, True]),  # node 2: one GPU with 500 free
        (Request(100, 100, 1, 600), [False, False, False, True]),  # node 2: 500 < 600
        (Request(100, 100, 2, 1000), [False, False, False, True]),  # needs two whole GPUs
        (Request(5000, 1), [False, False, False, False]),
    ]
    for request_, expected in cases:
        np.testing.assert_array_equal(resource_fit(free, gpu_free, request_), expected, err_msg=str(request_))


def test_gpu_fit_counts_gpus_with_the_share_free() -> None:
    gpu_free = np.array([[0, 0], [500, 0], [1000, 1000]], np.float64)
    np.testing.assert_array_equal(gpu_fit(gpu_free, Request(1, 1)), [True, True, True])
    np.testing.assert_array_equal(gpu_fit(gpu_free, Request(1, 1, 1, 500)), [False, True, True])
    np.testing.assert_array_equal(gpu_fit(gpu_free, Request(1, 1, 2, 1000)), [False, False, True])


def test_resource_fit_is_exact_at_the_boundary() -> None:
    free = np.array([[1000.0, 1024.0, 0.0]])
    gpu = np.array([[250.0]])
    assert resource_fit(free, gpu, Request(1000, 1024, 1, 250)).all()
    assert not resource_fit(free, gpu, Request(1000.001, 1024)).any()


@pytest.mark.parametrize(
    ("request_", "gpus", "reason"),
    [
        (Request(1000, 1000, 1, 500), (1,), ""),
        (Request(2001, 1000), (), "cpu over-committed"),
        (Request(1000, 4097), (), "memory over-committed"),
        (Request(1000, 1000, 1, 500), (), "names 0 GPUs for a request of 1"),
        (Request(1000, 1000, 2, 1000), (1, 1), "names 2 GPUs"),
        (Request(1000, 1000, 1, 500), (0,), "GPU 0 over-committed"),  # GPU 0 has 300 free
        (Request(1000, 1000, 1, 500), (7,), "GPU 7 over-committed or absent"),
        (Request(1000, 1000, 1, 500), (-1,), "GPU -1 over-committed or absent"),
    ],
)
def test_binding_fits(request_: Request, gpus: tuple[int, ...], reason: str) -> None:
    free_row = np.array([2000.0, 4096.0, 1300.0])
    gpu_row = np.array([300.0, 1000.0])
    got = binding_fits(free_row, gpu_row, request_, gpus)
    assert (got == "") if not reason else reason in got
