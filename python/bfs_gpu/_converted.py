"""A networkx graph as the ``bfs_gpu`` backend holds it: its nodes in
networkx's order, its rows in networkx's neighbour order (for the searches
whose output networkx orders), and, made on first need, the ``Graph``
resident on the GPU. networkx keeps the converted graph on the original
(``G.__networkx_cache__``) and drops it when the graph changes."""

import itertools
import math
import weakref

import networkx as nx
import numpy as np

from . import _native
from ._graph import Graph


def _rows(adjacency, nodes, index):
    """CSR arrays of ``adjacency`` (a networkx graph's ``_adj``, ``_succ``
    or ``_pred``), each row in the dict's order; ``index`` maps a node to
    its position (``None``: nodes are 0 to n - 1 in order)."""
    n = len(nodes)
    rows = [adjacency[node] for node in nodes]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, rows), dtype=np.int64, count=n), out=indptr[1:])
    neighbours = itertools.chain.from_iterable(rows)
    if index is not None:
        neighbours = map(index.__getitem__, neighbours)
    indices = np.fromiter(neighbours, dtype=np.int64, count=int(indptr[-1]))
    return indptr, indices


def _both_ways(indptr, indices):
    """CSR arrays of the graph with each edge both ways, each row in the
    order networkx's ``to_undirected`` gives it: that adds the edges row by
    row, each putting its head in its tail's row and its tail in its
    head's, and a neighbour added again keeps its first place."""
    n = len(indptr) - 1
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    rows = np.concatenate([tails, indices])
    neighbours = np.concatenate([indices, tails])
    added = np.tile(np.arange(len(indices), dtype=np.int64), 2)
    # Each (row, neighbour) pair kept where first added; each row then in
    # the order its entries were added.
    order = np.lexsort((added, neighbours, rows))
    first = np.ones(len(order), dtype=bool)
    first[1:] = (np.diff(rows[order]) != 0) | (np.diff(neighbours[order]) != 0)
    kept = order[first]
    kept = kept[np.lexsort((added[kept], rows[kept]))]
    both = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[kept], minlength=n), out=both[1:])
    return both, neighbours[kept]


class BfsGraph:
    """A networkx graph converted for the ``bfs_gpu`` backend."""

    __networkx_backend__ = "bfs_gpu"

    def __init__(self, G, device="auto"):
        self.nodes = list(G)
        self.n = len(self.nodes)
        self.directed = G.is_directed()
        self.multigraph = G.is_multigraph()
        self.graph = dict(G.graph)
        self.device = device
        # Nodes 0 to n - 1 in order need no mapping either way.
        self.identity = all(type(node) is int for node in self.nodes) and self.nodes == list(
            range(self.n)
        )
        self._index = None
        self._source = weakref.ref(G)
        self._arrays = {"out": _rows(G._adj, self.nodes, self.index)}
        self._rows = {}
        self._native = {}

    # Nodes.

    def _lookup(self):
        """Each node's position, as a dict (made on first need)."""
        if self._index is None:
            self._index = {node: at for at, node in enumerate(self.nodes)}
        return self._index

    @property
    def index(self):
        """Each node's position; ``None`` where nodes are 0 to n - 1 in order."""
        return None if self.identity else self._lookup()

    def __len__(self):
        return self.n

    def __contains__(self, node):
        if self.identity and type(node) is int:
            return 0 <= node < self.n
        try:
            return node in self._lookup()
        except TypeError:
            return False

    def position(self, node):
        """``node``'s position (it must be a node)."""
        if self.identity and type(node) is int:
            return node
        return self._lookup()[node]

    def labels(self, positions):
        """The nodes at ``positions`` (an integer array), as a list."""
        positions = positions.tolist()
        if self.identity:
            return positions
        return list(map(self.nodes.__getitem__, positions))

    def require(self, node):
        """Raises as networkx's ``G.neighbors(node)`` does where ``node`` is
        not a node."""
        if node not in self:
            kind = "digraph" if self.directed else "graph"
            raise nx.NetworkXError(f"The node {node} is not in the {kind}.")

    def nbunch_iter(self, nbunch=None):
        """The nodes of ``nbunch`` that are in the graph, as networkx's
        ``Graph.nbunch_iter`` gives them (and raising as it raises)."""
        if nbunch is None:
            return iter(self.nodes)
        if nbunch in self:
            return iter([nbunch])
        return self._members(nbunch)

    def _members(self, nbunch):
        try:
            for node in nbunch:
                if node in self._lookup():
                    yield node
        except TypeError as error:
            message = error.args[0] if error.args else ""
            if "object is not iterable" in message:
                raise nx.NetworkXError(f"Node {nbunch} is not in the graph.") from error
            if "iter" in message:
                raise nx.NetworkXError("nbunch is not a node or a sequence of nodes.") from error
            if "hashable" in message:
                raise nx.NetworkXError(
                    f"Node {node} in sequence nbunch is not a valid node."
                ) from error
            raise

    # What searches it.

    def arrays(self, reverse):
        """CSR arrays in networkx's neighbour order: out-neighbours, or
        with ``reverse`` (directed graphs) in-neighbours."""
        key = "in" if reverse and self.directed else "out"
        if key not in self._arrays:
            self._arrays[key] = _rows(self.original()._pred, self.nodes, self.index)
        return self._arrays[key]

    def rows(self, reverse=False):
        """The rows in networkx's order (``_native.Rows``), for searches
        whose output networkx orders."""
        key = "in" if reverse and self.directed else "out"
        if key not in self._rows:
            self._rows[key] = _native.Rows(*self.arrays(reverse))
        return self._rows[key]

    def rows_both_ways(self):
        """The rows of ``G.to_undirected()``, in its order: every edge both
        ways (``ego_graph``'s ``undirected``)."""
        if "both" not in self._rows:
            self._rows["both"] = _native.Rows(*_both_ways(*self._arrays["out"]))
        return self._rows["both"]

    def native(self, reverse=False):
        """The ``Graph`` resident on the GPU (with ``reverse``, of the
        reverse graph, for a directed one)."""
        key = "in" if reverse and self.directed else "out"
        if key not in self._native:
            self._native[key] = Graph(self.arrays(reverse), device=self.device)
        return self._native[key]

    def distances(self, source, *, reverse=False, limit=None):
        """Distances from the node ``source`` (to it, with ``reverse``),
        -1 where unreached, within ``limit`` levels."""
        graph = self.native(reverse)
        return graph.bfs(self.position(source), depth_limit=limit, device=self.device)

    def original(self):
        """The networkx graph this was converted from."""
        G = self._source()
        if G is None:
            raise nx.NetworkXError("the graph this backend graph was converted from is gone")
        return G

    def to_networkx(self):
        """A networkx graph of the same nodes and edges (no attributes)."""
        G = self._source()
        if G is not None:
            return G
        kind = {
            (False, False): nx.Graph,
            (True, False): nx.DiGraph,
            (False, True): nx.MultiGraph,
            (True, True): nx.MultiDiGraph,
        }[(self.directed, self.multigraph)]
        H = kind()
        H.graph.update(self.graph)
        H.add_nodes_from(self.nodes)
        indptr, indices = self._arrays["out"]
        tails = np.repeat(np.arange(self.n), np.diff(indptr))
        H.add_edges_from(zip(self.labels(tails), self.labels(indices)))
        return H


def levels_within(cutoff):
    """The levels a search takes for networkx's ``cutoff`` (a level L is
    searched where L - 1 < cutoff; the source's always): ``None`` for all."""
    if cutoff is None or cutoff >= 2**32:
        # No search has more levels than the backend takes vertices.
        return None
    return max(0, math.ceil(cutoff))
