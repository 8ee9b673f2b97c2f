"""Resource dimensions and request vectors.

Every resource quantity carries its unit in its name. Vectors that cover all dimensions use the
column order of :data:`RESOURCE_NAMES`: CPU in millicores, memory in MiB and GPU in milli-GPUs
(one whole GPU is 1000), so a node with 8 GPUs has a GPU capacity of 8000.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

RESOURCE_NAMES: Final = ("cpu_milli", "mem_mib", "gpu_milli")
CPU: Final = 0
MEM: Final = 1
GPU: Final = 2
N_RESOURCES: Final = len(RESOURCE_NAMES)
MILLI_PER_GPU: Final = 1000

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class Request:
    """What one task asks of one node.

    Units:
        cpu_milli: millicores. mem_mib: MiB.
        gpu_count: number of GPUs the task needs.
        gpu_milli: share of *each* of those GPUs in milli-GPUs (1000 = a whole GPU; below 1000
            only with ``gpu_count == 1``, a fractional GPU shared with other tasks).
    """

    cpu_milli: float
    mem_mib: float
    gpu_count: int = 0
    gpu_milli: int = 0

    def __post_init__(self) -> None:
        if self.cpu_milli < 0 or self.mem_mib < 0 or self.gpu_count < 0 or self.gpu_milli < 0:
            raise ValueError(f"resource requests must be non-negative: {self}")
        if self.gpu_count > 0 and not 0 < self.gpu_milli <= MILLI_PER_GPU:
            raise ValueError(f"gpu_milli must be in (0, 1000] when GPUs are requested: {self}")
        if self.gpu_count > 1 and self.gpu_milli != MILLI_PER_GPU:
            raise ValueError(f"multi-GPU requests must take whole GPUs: {self}")
        if self.gpu_count == 0 and self.gpu_milli != 0:
            raise ValueError(f"gpu_milli without gpu_count: {self}")

    @property
    def gpu_total_milli(self) -> int:
        """Total GPU demand in milli-GPUs (count x share)."""
        return self.gpu_count * self.gpu_milli

    def vector(self) -> FloatArray:
        """The request as a ``(R,)`` vector in :data:`RESOURCE_NAMES` order."""
        return np.array([self.cpu_milli, self.mem_mib, self.gpu_total_milli], dtype=np.float64)
