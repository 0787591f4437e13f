"""``Graph``: a graph held for breadth-first searches, resident on the GPU
between calls. What each constructor copies is said in docs/python.md."""

import operator
import os
from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import _native

#: numpy's index widths, which the extension reads as they are.
_WIDTHS = (np.int32, np.int64, np.uint32, np.uint64)

Distances = npt.NDArray[np.int32]
Source = Union[str, "os.PathLike[str]", tuple, Any]


class Graph:
    """A graph for breadth-first searches, resident on the GPU between calls.

    ``source`` is one of:

    - a scipy.sparse matrix or array, square: entry (i, j) is the edge
      i -> j. Every stored entry is an edge, an explicit zero included
      (as scipy.sparse.csgraph takes them; ``A.eliminate_zeros()`` drops
      them first). CSR is read as it is; other formats go through
      ``A.tocsr()``.
    - ``(indptr, indices)``: CSR arrays of integers (row i's neighbours are
      ``indices[indptr[i]:indptr[i + 1]]``), in any order, with repeats
      and self loops (dropped).
    - a path (str or os.PathLike) to a file in any format ``bfs --graph``
      reads (.mtx, .mtx.gz, SNAP .txt, DIMACS .gr, .bcsr), or ``gen:SPEC``,
      a generated graph (with ``seed``).

    The arrays are copied once into the library's CSR (in parallel, each
    value checked), then uploaded to the GPU, where the graph stays until
    ``close()`` or the object is collected. ``device`` is where it is made
    resident: ``auto`` (the GPU if there is one), ``gpu`` or ``cpu``.
    """

    def __init__(self, source: Source, *, device: str = "auto", seed: int = 1) -> None:
        if isinstance(source, (str, os.PathLike)):
            native = _native.Graph.load(os.fspath(source), seed=seed, device=device)
        elif isinstance(source, tuple) and len(source) == 2:
            indptr = _index_array(source[0], "indptr")
            indices = _index_array(source[1], "indices")
            native = _native.Graph.from_rows(indptr, indices, device=device)
        elif hasattr(source, "tocsr") and hasattr(source, "shape"):
            indptr, indices = _csr_arrays(source)
            native = _native.Graph.from_rows(indptr, indices, device=device, name="scipy")
        else:
            raise TypeError(
                "a Graph is made from a scipy.sparse matrix, (indptr, indices) arrays, "
                f"or a path or 'gen:SPEC', not {type(source).__name__}"
            )
        self._native = native

    @property
    def vertex_count(self) -> int:
        """Vertices, n."""
        return self._native.vertex_count

    @property
    def edge_count(self) -> int:
        """CSR entries: directed edges, each undirected edge counted twice."""
        return self._native.edge_count

    @property
    def directed(self) -> bool:
        """Whether some edge lacks its reverse (a pass over the edges, once)."""
        return not self._native.is_symmetric()

    @property
    def last_run(self) -> dict:
        """The last call's device, plan, device memory and times in seconds
        (``search_seconds``: device time on the GPU, by CUDA events)."""
        return self._native.last_run

    def csr(self) -> "tuple[np.ndarray, np.ndarray]":
        """Copies of the graph's CSR arrays as the library holds them (rows
        sorted, without repeats or self loops): ``(indptr, indices)``."""
        return self._native.csr()

    def to_scipy(self) -> Any:
        """The graph as a scipy.sparse CSR array of ones (int8)."""
        import scipy.sparse

        indptr, indices = self.csr()
        data = np.ones(len(indices), dtype=np.int8)
        n = self.vertex_count
        return scipy.sparse.csr_array((data, indices, indptr), shape=(n, n))

    def bfs(
        self,
        source: int,
        *,
        parents: bool = False,
        depth_limit: Optional[int] = None,
        variant: str = "auto",
        device: str = "auto",
    ) -> Union[Distances, "tuple[Distances, Distances]"]:
        """Distances from ``source``: int32, -1 where unreached; with
        ``parents``, also a BFS tree's parents (the source's is itself, -1
        where unreached). ``variant`` is a GPU variant's name
        (``bfs_gpu.variants()``), ignored on the CPU; past ``depth_limit``
        levels vertices count as unreached. From the GPU, the arrays mostly
        lie in page-locked memory the device copied them into (at most 64
        MiB a result and 1 GiB a device), which a later search reuses once
        numpy frees them."""
        return self._native.bfs(
            operator.index(source),
            parents=parents,
            depth_limit=depth_limit,
            variant=variant,
            device=device,
        )

    def bfs_many(
        self,
        sources: Union[Sequence[int], npt.ArrayLike],
        *,
        depth_limit: Optional[int] = None,
        device: str = "auto",
    ) -> Distances:
        """Distances from each source: a len(sources) × n int32 matrix, -1
        where unreached, searched in batches (up to 1,024 sources a pass
        over the graph on the GPU)."""
        return self._native.bfs_many(
            _sources(sources), depth_limit=depth_limit, device=device
        )

    def closeness(
        self,
        *,
        sources: Union[str, int] = "all",
        seed: int = 1,
        depth_limit: Optional[int] = None,
        device: str = "auto",
    ) -> npt.NDArray[np.float64]:
        """Closeness of every vertex, networkx's (Wasserman-Faust, distances
        to the vertex); from every vertex (``sources="all"``) or estimated
        from ``sources`` vertices sampled uniformly by ``seed``."""
        return self._measure("closeness", sources, seed, depth_limit, device)

    def harmonic(
        self,
        *,
        sources: Union[str, int] = "all",
        seed: int = 1,
        depth_limit: Optional[int] = None,
        device: str = "auto",
    ) -> npt.NDArray[np.float64]:
        """Harmonic centrality of every vertex (distances to it), exact or
        estimated from a sample as ``closeness``."""
        return self._measure("harmonic", sources, seed, depth_limit, device)

    def eccentricity(
        self,
        *,
        sources: Union[str, int] = "all",
        seed: int = 1,
        depth_limit: Optional[int] = None,
        device: str = "auto",
    ) -> Distances:
        """Eccentricity of every vertex: its greatest distance to a vertex
        it reaches (from a sample of an undirected graph, a lower bound)."""
        return self._measure("eccentricity", sources, seed, depth_limit, device)

    def betweenness(
        self,
        *,
        k: Optional[int] = None,
        normalized: bool = True,
        endpoints: bool = False,
        seed: int = 1,
        device: str = "auto",
    ) -> npt.NDArray[np.float64]:
        """Betweenness centrality of every vertex, networkx's values
        (``normalized``, ``endpoints``): exact, from every vertex, or
        estimated from ``k`` vertices sampled uniformly by ``seed``."""
        return self._native.betweenness(
            sample=_sample(k), seed=seed, normalized=normalized, endpoints=endpoints,
            device=device,
        )

    def edge_betweenness(
        self,
        *,
        k: Optional[int] = None,
        normalized: bool = True,
        seed: int = 1,
        device: str = "auto",
    ) -> npt.NDArray[np.float64]:
        """Edge betweenness centrality, networkx's values: one a CSR entry,
        in the order of ``csr()`` (both entries of an undirected edge hold
        the edge's value); exact, or from ``k`` sampled sources."""
        return self._native.betweenness(
            sample=_sample(k), seed=seed, normalized=normalized, edges=True, device=device
        )

    def betweenness_sums(
        self,
        sources: Optional[Union[Sequence[int], npt.ArrayLike]] = None,
        *,
        vertices: bool = True,
        arcs: bool = False,
        endpoints: bool = False,
        device: str = "auto",
    ) -> "dict[str, Optional[npt.NDArray[np.float64]]]":
        """Betweenness before networkx's rescaling, from ``sources`` (every
        vertex where None): each vertex's dependencies summed over them
        (``vertices``; with ``endpoints``, networkx's), and each CSR entry's
        (``arcs``, in the order of ``csr()``). The backend's building block."""
        chosen = None if sources is None else _sources(sources)
        return self._native.betweenness_sums(
            chosen, vertices=vertices, arcs=arcs, endpoints=endpoints, device=device
        )

    def arc_values(
        self,
        values: npt.ArrayLike,
        tails: Union[Sequence[int], npt.ArrayLike],
        heads: Union[Sequence[int], npt.ArrayLike],
    ) -> npt.NDArray[np.float64]:
        """The value of each edge ``(tails[i], heads[i])`` from a value a CSR
        entry (``values``, as ``betweenness_sums`` gives them): an undirected
        graph's edge sums its two entries; 0 where the graph lacks it."""
        values = np.ascontiguousarray(values, dtype=np.float64)
        return self._native.pair_values(values, _sources(tails), _sources(heads))

    def components(self, *, strong: bool = False, device: str = "auto") -> npt.NDArray[np.int64]:
        """Each vertex's weakly connected component (connected, on an
        undirected graph), or with ``strong`` its strongly connected one:
        int64 labels, each the least vertex of its component."""
        return self._native.components(strong=strong, device=device)

    def sums(
        self,
        sources: Optional[Union[Sequence[int], npt.ArrayLike]] = None,
        *,
        totals: bool = True,
        depth_limit: Optional[int] = None,
        device: str = "auto",
    ) -> "dict[str, npt.NDArray[Any]]":
        """What searches from ``sources`` (every vertex where None) reduce
        to, in batches: per source (in ``sources``' order), its
        ``eccentricity``, vertices ``reached``, ``distance_sum`` and
        ``reciprocal_sum``; with ``totals``, per vertex over every source,
        ``reached_by``, ``distance_sums``, ``reciprocal_sums`` (the vertex
        itself left out) and ``farthest``."""
        chosen = None if sources is None else _sources(sources)
        return self._native.sums(
            chosen, totals=totals, depth_limit=depth_limit, device=device
        )

    def prepare(self, *, device: str = "auto") -> str:
        """Builds what ``auto`` needs for many searches (what ``bfs prepare``
        stores: a contraction hierarchy or ghost zones) and keeps it; later
        searches plan with it. Returns what was done, in words."""
        return self._native.prepare(device=device)

    def close(self) -> None:
        """Frees the graph's host and device memory now."""
        self._native.close()

    def __enter__(self) -> "Graph":
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return repr(self._native)

    def _measure(self, measure, sources, seed, depth_limit, device):
        if isinstance(sources, str):
            if sources != "all":
                raise ValueError(f"sources is 'all' or a number of sources, not {sources!r}")
            sample = None
        else:
            sample = operator.index(sources)
        return self._native.measure(
            measure, sample=sample, seed=seed, depth_limit=depth_limit, device=device
        )


def _index_array(values: Any, name: str) -> np.ndarray:
    """``values`` as a contiguous one-dimensional array of one of numpy's
    index widths (copied only where it is not one already)."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {array.shape}")
    if array.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integers, not {array.dtype}")
    if array.dtype.type not in _WIDTHS:
        array = array.astype(np.int64)
    return np.ascontiguousarray(array)


def _csr_arrays(matrix: Any) -> "tuple[np.ndarray, np.ndarray]":
    """A scipy.sparse matrix's CSR arrays (it must be square)."""
    shape = matrix.shape
    if len(shape) != 2 or shape[0] != shape[1]:
        dims = " × ".join(map(str, shape))
        raise ValueError(f"a graph's adjacency matrix is square; this one is {dims}")
    if getattr(matrix, "format", None) != "csr":
        matrix = matrix.tocsr()
    return _index_array(matrix.indptr, "indptr"), _index_array(matrix.indices, "indices")


def _sample(k: Optional[int]) -> Optional[int]:
    """``k`` as a count of sources (``None``: every vertex)."""
    return None if k is None else operator.index(k)


def _sources(sources: Any) -> np.ndarray:
    """Sources as a contiguous int64 array."""
    array = np.atleast_1d(np.asarray(sources))
    if array.ndim != 1:
        raise ValueError(f"sources must be one-dimensional, not of shape {array.shape}")
    if array.size and array.dtype.kind not in "iu":
        raise ValueError(f"sources must be integers, not {array.dtype}")
    return np.ascontiguousarray(array, dtype=np.int64)
