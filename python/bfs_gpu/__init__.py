"""Breadth-first search on NVIDIA GPUs, kernels written in Rust.

``Graph`` holds a graph resident on the GPU between calls (on the CPU
engines where there is no GPU): ``bfs`` from one source, ``bfs_many`` from
many in batches, ``closeness``, ``harmonic`` and ``eccentricity``. The
networkx backend is ``bfs_gpu.networkx_backend`` (``backend="bfs_gpu"``).

Importing this package loads nothing else: the extension module (and
numpy) load on first use, so that networkx, which reads every backend's
description when it is imported, stays light.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._graph import Graph
    from ._native import BfsError, gpu, variants

__all__ = ["BfsError", "Graph", "gpu", "variants"]


def __getattr__(name: str) -> Any:
    if name == "Graph":
        from ._graph import Graph

        return Graph
    if name in ("BfsError", "gpu", "variants"):
        from . import _native

        return getattr(_native, name)
    if name == "__version__":
        from importlib.metadata import version

        return version("bfs-gpu")
    raise AttributeError(f"module 'bfs_gpu' has no attribute {name!r}")
