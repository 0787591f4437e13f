"""Type hints of the extension module (Rust, PyO3): what ``Graph`` wraps."""

from typing import Optional, Union

import numpy as np
import numpy.typing as npt

class BfsError(RuntimeError):
    """A search that could not run: no GPU where one was asked for, a CUDA
    failure, a variant this device or graph cannot run."""

def gpu() -> str:
    """The GPU this process searches on, in words; raises BfsError where none."""

def variants() -> list[tuple[str, str]]:
    """Each GPU variant's name and one-line description."""

class Graph:
    @staticmethod
    def from_rows(
        indptr: npt.NDArray[np.integer],
        indices: npt.NDArray[np.integer],
        *,
        device: str = "auto",
        name: str = "arrays",
    ) -> Graph: ...
    @staticmethod
    def load(path: str, *, seed: int = 1, device: str = "auto") -> Graph: ...
    @property
    def vertex_count(self) -> int: ...
    @property
    def edge_count(self) -> int: ...
    def is_symmetric(self) -> bool: ...
    def csr(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.integer]]: ...
    def bfs(
        self,
        source: int,
        *,
        parents: bool = False,
        depth_limit: Optional[int] = None,
        variant: str = "auto",
        device: str = "auto",
    ) -> Union[npt.NDArray[np.int32], tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]]: ...
    def bfs_many(
        self,
        sources: npt.NDArray[np.int64],
        *,
        depth_limit: Optional[int] = None,
        device: str = "auto",
    ) -> npt.NDArray[np.int32]: ...
    def measure(
        self,
        measure: str,
        *,
        sample: Optional[int] = None,
        seed: int = 1,
        depth_limit: Optional[int] = None,
        device: str = "auto",
    ) -> Union[npt.NDArray[np.float64], npt.NDArray[np.int32]]: ...
    def sums(
        self,
        sources: Optional[npt.NDArray[np.int64]] = None,
        *,
        totals: bool = True,
        depth_limit: Optional[int] = None,
        device: str = "auto",
    ) -> dict[str, npt.NDArray[np.generic]]: ...
    def betweenness_sums(
        self,
        sources: Optional[npt.NDArray[np.int64]] = None,
        *,
        vertices: bool = True,
        arcs: bool = False,
        endpoints: bool = False,
        device: str = "auto",
    ) -> dict[str, Optional[npt.NDArray[np.float64]]]: ...
    def betweenness(
        self,
        *,
        sample: Optional[int] = None,
        seed: int = 1,
        normalized: bool = True,
        endpoints: bool = False,
        edges: bool = False,
        device: str = "auto",
    ) -> npt.NDArray[np.float64]: ...
    def pair_values(
        self,
        arcs: npt.NDArray[np.float64],
        tails: npt.NDArray[np.int64],
        heads: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.float64]: ...
    def components(self, *, strong: bool = False, device: str = "auto") -> npt.NDArray[np.int64]: ...
    def prepare(self, *, device: str = "auto") -> str: ...
    @property
    def last_run(self) -> dict[str, object]: ...
    def close(self) -> None: ...

class Rows:
    def __init__(
        self, indptr: npt.NDArray[np.integer], indices: npt.NDArray[np.integer]
    ) -> None: ...
    def search(
        self, sources: list[int], depth_limit: Optional[int] = None
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
    def strong_components(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
