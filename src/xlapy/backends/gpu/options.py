"""What a GPU compile can be asked for (the ``backend_options`` of ``CompileOptions``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import InvalidArgumentError

PLATFORM = "gpu"
# The architecture PTX is made for when no device says which: Hopper, the machines the
# project is measured on. PTX for sm_80 runs on sm_90 too (the driver compiles it up).
DEFAULT_ARCH = "sm_90"
_ARCH = re.compile(r"sm_(\d)(\d)a?")


@dataclass
class GpuOptions:
    num_replicas: int = 1
    num_partitions: int = 1
    # "sm_80", "sm_90"...; None: the device's, else DEFAULT_ARCH (compiling needs no GPU).
    gpu_arch: str | None = None
    debug: bool = False  # verify the module after every pass
    dump_dir: str | None = None  # the module after every pass, the LLVM IR and the PTX
    # Pass names left out of the pipeline (XLA's --xla_disable_hlo_passes).
    disabled_passes: frozenset[str] = frozenset()
    device_ordinal: int = 0

    def __post_init__(self) -> None:
        if self.num_replicas != 1 or self.num_partitions != 1:
            raise InvalidArgumentError(
                f"the GPU back-end runs one device per executable for now; got "
                f"num_replicas={self.num_replicas}, num_partitions={self.num_partitions}"
            )
        if self.gpu_arch is not None and not _ARCH.fullmatch(self.gpu_arch):
            raise InvalidArgumentError(
                f"gpu_arch must name an NVIDIA architecture such as 'sm_80' or 'sm_90', "
                f"got {self.gpu_arch!r}"
            )
        if isinstance(self.disabled_passes, str):
            self.disabled_passes = frozenset([self.disabled_passes])
        self.disabled_passes = frozenset(self.disabled_passes)
