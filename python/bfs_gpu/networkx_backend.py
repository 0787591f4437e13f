"""The networkx backend ``bfs_gpu``: networkx's breadth-first searches,
unweighted shortest paths and their lengths, reachability, ego graphs,
distance measures, closeness, harmonic and betweenness centrality, and
connected components, on the GPU (the CPU engines without one).

networkx calls ``convert_from_nx`` once per graph and keeps the result on
the graph (``G.__networkx_cache__``), so the conversion, and the upload
to the GPU, are paid once while the graph is unchanged. ``can_run`` says
which calls the backend takes (unweighted, no callbacks); ``should_run``
leaves small graphs to networkx. The coverage table, and what each
function does on the GPU or on the CPU, are in docs/python.md.

Results follow networkx's: node labels, directed or undirected graphs,
the errors' types and messages. ``bfs_edges``, ``bfs_tree``,
``bfs_predecessors``, ``bfs_successors`` and ``bfs_layers`` give
networkx's edges in networkx's order, which depends on each adjacency
dict's order: a parallel search does not keep it, so these run a
one-thread search in Rust over rows kept in that order
(``_native.Rows``), and so do the paths of ``_paths``, which are those of
networkx's tree. Dicts of distances list vertices level by level, by
position in the graph within a level (networkx's in the order found).
"""

import atexit
import functools
import inspect
import math
import numbers
import os

import networkx as nx
import numpy as np

from ._betweenness import betweenness_centrality, edge_betweenness_centrality
from ._components import (
    connected_components,
    is_connected,
    is_strongly_connected,
    is_weakly_connected,
    node_connected_component,
    number_connected_components,
    number_strongly_connected_components,
    number_weakly_connected_components,
    strongly_connected_components,
    weakly_connected_components,
)
from ._converted import BfsGraph, levels_within
from ._native import level_dict
from ._paths import (
    all_pairs_shortest_path,
    ancestors,
    bidirectional_shortest_path,
    descendants,
    ego_graph,
    pair_distance,
    shortest_path,
    single_source_shortest_path,
    single_target_shortest_path,
)

#: Graphs with fewer nodes stay in networkx (``should_run``): below it
#: networkx's own search is as quick as a call here, before the conversion
#: (docs/decisions.md, "From Python").
SMALLEST_GRAPH = 10_000

#: Distance rows a batch of ``all_pairs_shortest_path_length`` holds at
#: most, in int32s (256 MB).
MOST_BATCH_ENTRIES = 1 << 26

__all__ = [
    "all_pairs_shortest_path",
    "all_pairs_shortest_path_length",
    "ancestors",
    "average_shortest_path_length",
    "betweenness_centrality",
    "bfs_edges",
    "bfs_layers",
    "bfs_predecessors",
    "bfs_successors",
    "bfs_tree",
    "bidirectional_shortest_path",
    "center",
    "closeness_centrality",
    "connected_components",
    "descendants",
    "descendants_at_distance",
    "diameter",
    "eccentricity",
    "edge_betweenness_centrality",
    "ego_graph",
    "harmonic_centrality",
    "has_path",
    "is_connected",
    "is_strongly_connected",
    "is_weakly_connected",
    "node_connected_component",
    "number_connected_components",
    "number_strongly_connected_components",
    "number_weakly_connected_components",
    "periphery",
    "radius",
    "shortest_path",
    "shortest_path_length",
    "single_source_shortest_path",
    "single_source_shortest_path_length",
    "single_target_shortest_path",
    "single_target_shortest_path_length",
    "strongly_connected_components",
    "weakly_connected_components",
]

# The backend interface.


def _device():
    config = getattr(nx.config.backends, "bfs_gpu", None)
    return getattr(config, "device", "auto") if config is not None else "auto"


def convert_from_nx(G, *args, **kwargs):
    """``G`` for this backend (edge and node attributes are not kept:
    every function here is unweighted)."""
    return BfsGraph(G, device=_device())


def convert_to_nx(result, *, name=None):
    """Results are networkx's types already; a converted graph gives back
    its networkx graph."""
    if isinstance(result, BfsGraph):
        return result.to_networkx()
    return result


_WEIGHTED = "weighted: a breadth-first search counts edges"
_CALLS_BACK = "sort_neighbors calls back into Python at every vertex"

#: The argument that makes each function weighted, or that calls back into
#: Python: where it is given, networkx runs the call.
_DECLINED = {
    "betweenness_centrality": {"weight": _WEIGHTED},
    "edge_betweenness_centrality": {"weight": _WEIGHTED},
    "bfs_edges": {"sort_neighbors": _CALLS_BACK},
    "bfs_tree": {"sort_neighbors": _CALLS_BACK},
    "bfs_predecessors": {"sort_neighbors": _CALLS_BACK},
    "bfs_successors": {"sort_neighbors": _CALLS_BACK},
    "shortest_path": {"weight": _WEIGHTED},
    "shortest_path_length": {"weight": _WEIGHTED},
    "ego_graph": {"distance": _WEIGHTED},
    "eccentricity": {"weight": _WEIGHTED, "sp": "sp: path lengths given, networkx reads them"},
    "diameter": {"weight": _WEIGHTED},
    "radius": {"weight": _WEIGHTED},
    "center": {"weight": _WEIGHTED},
    "periphery": {"weight": _WEIGHTED},
    "average_shortest_path_length": {"weight": _WEIGHTED},
    "closeness_centrality": {"distance": _WEIGHTED},
    "harmonic_centrality": {"distance": _WEIGHTED},
}


@functools.lru_cache(maxsize=None)
def _signature(name):
    return inspect.signature(getattr(nx, name))


def _arguments(name, args, kwargs):
    """The call's arguments by name, defaults filled in."""
    bound = _signature(name).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


def can_run(name, args, kwargs):
    """True where the backend runs the call, else why not (networkx then
    runs it, where fallback is allowed)."""
    if name not in __all__:
        return f"{name} is not implemented by bfs_gpu"
    arguments = _arguments(name, args, kwargs)
    for argument, why in _DECLINED.get(name, {}).items():
        if arguments.get(argument) is not None:
            return _declined(name, why)
    if name == "descendants_at_distance" and not isinstance(
        arguments["distance"], numbers.Integral
    ):
        return _declined(name, "a distance that is not an integer")
    G = arguments["G"]
    if len(G) >= 2**32 - 1:
        return _declined(name, "more nodes than 32-bit vertex ids hold")
    return True


def _declined(name, why):
    """Notes a decline where ``BFS_GPU_DECLINES`` names a file, to list the
    networkx tests the backend leaves to networkx (written at exit, once a
    test, function and reason), and returns the reason."""
    if os.environ.get("BFS_GPU_DECLINES"):
        test = os.environ.get("PYTEST_CURRENT_TEST", "-").split(" ")[0]
        if not _DECLINES:
            atexit.register(_write_declines, os.environ["BFS_GPU_DECLINES"])
        _DECLINES.add((test, name, why))
    return why


#: The declines noted, where ``BFS_GPU_DECLINES`` asks for them.
_DECLINES = set()


def _write_declines(path):
    with open(path, "a", encoding="utf-8") as log:
        for test, name, why in sorted(_DECLINES):
            log.write(f"{test}\t{name}\t{why}\n")


def should_run(name, args, kwargs):
    """True where the backend is worth it: graphs of at least
    ``SMALLEST_GRAPH`` nodes."""
    G = _arguments(name, args, kwargs)["G"]
    if len(G) < SMALLEST_GRAPH:
        return f"a graph of {len(G)} nodes: networkx's own search is as quick"
    return True


# Breadth-first searches in networkx's order.


def _tree_edges(G, source, reverse, depth_limit):
    """networkx's ``generic_bfs_edges``: (parent, child) pairs in its order."""
    G.require(source)
    limit = G.n if depth_limit is None else depth_limit
    if isinstance(limit, numbers.Real) and not isinstance(limit, numbers.Integral):
        limit = math.ceil(limit)
    # No search has more levels than vertices.
    limit = min(limit, G.n)
    parents, children, _ = G.rows(reverse).search([G.position(source)], int(limit))
    yield from zip(G.labels(parents), G.labels(children))


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    yield from _tree_edges(G, source, reverse, depth_limit)


def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(_tree_edges(G, source, reverse, depth_limit))
    return T


def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    for parent, child in _tree_edges(G, source, False, depth_limit):
        yield (child, parent)


def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    parent, children = source, []
    for tail, head in _tree_edges(G, source, False, depth_limit):
        if tail != parent:
            yield (parent, children)
            parent, children = tail, []
        children.append(head)
    yield (parent, children)


def bfs_layers(G, sources):
    if sources in G:
        sources = [sources]
    first = list(set(sources))
    for source in first:
        if source not in G:
            raise nx.NetworkXError(f"The node {source} is not in the graph.")
    _, children, ends = G.rows().search([G.position(source) for source in first])
    if first:
        yield first
    start = 0
    for end in ends.tolist():
        if end == start:
            break
        yield G.labels(children[start:end])
        start = end


# Distances, on the GPU.


def descendants_at_distance(G, source, distance):
    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if distance < 0:
        return set()
    found = G.distances(source, limit=distance)
    return set(G.labels(np.flatnonzero(found == distance)))


def _lengths(G, distances):
    """A dict of each reached node's distance, level by level (filled in
    Rust: ``_native.level_dict``)."""
    distances = np.ascontiguousarray(distances, dtype=np.int32)
    return level_dict(distances, None if G.identity else G.nodes)


def single_source_shortest_path_length(G, source, cutoff=None):
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    return _lengths(G, G.distances(source, limit=levels_within(cutoff)))


def single_target_shortest_path_length(G, target, cutoff=None):
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    return _lengths(G, G.distances(target, reverse=True, limit=levels_within(cutoff)))


def all_pairs_shortest_path_length(G, cutoff=None):
    if G.n == 0:
        return
    limit = levels_within(cutoff)
    per_batch = max(1, min(1024, MOST_BATCH_ENTRIES // max(G.n, 1)))
    graph = G.native()
    for first in range(0, G.n, per_batch):
        positions = np.arange(first, min(first + per_batch, G.n))
        rows = graph.bfs_many(positions, depth_limit=limit, device=G.device)
        for node, row in zip(G.labels(positions), rows):
            yield (node, _lengths(G, row))


def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    if source is None and target is None:
        return all_pairs_shortest_path_length(G)
    if source is None:
        if target not in G:
            raise nx.NodeNotFound(f"Source {target} is not in G")
        return _lengths(G, G.distances(target, reverse=True))
    if target is None:
        return single_source_shortest_path_length(G, source)
    distance = pair_distance(G, source, target)
    if distance < 0:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return distance


def has_path(G, source, target):
    return pair_distance(G, source, target) >= 0


# Distance measures and centrality, in batches of many sources.


def _per_source(G, nodes):
    """Eccentricity and vertices reached from each of ``nodes``, as arrays
    in their order."""
    graph = G.native()
    if len(nodes) == G.n and G.n > 0:
        sums = graph.sums(totals=False, device=G.device)
        order = np.empty(G.n, dtype=np.int64)
        order[sums["sources"]] = np.arange(G.n)
        positions = np.array([G.position(node) for node in nodes], dtype=np.int64)
        picked = order[positions]
        return sums["eccentricity"][picked], sums["reached"][picked]
    positions = [G.position(node) for node in nodes]
    sums = graph.sums(positions, totals=False, device=G.device)
    return sums["eccentricity"], sums["reached"]


def _not_connected(G):
    kind = "digraph is not strongly connected" if G.directed else "graph is not connected"
    return nx.NetworkXError(f"Found infinite path length because the {kind}")


def eccentricity(G, v=None, sp=None, weight=None):
    nodes = list(G.nbunch_iter(v))
    e = {}
    if nodes:
        values, reached = _per_source(G, nodes)
        if np.any(reached != G.n):
            raise _not_connected(G)
        e = dict(zip(nodes, values.tolist()))
    if v in G:
        return e[v]
    return e


def _eccentricities(G, usebounds):
    """Every node's eccentricity, in node order, for the measures networkx
    derives from them where ``e`` is not given; raising where a node does
    not reach every other as networkx does: with ``usebounds`` on an
    undirected graph, as its bounding does, else as ``eccentricity``."""
    bounding = usebounds is True and not G.directed
    if G.n == 0:
        if bounding:
            # The bounding starts from the node of highest degree: max() of none.
            max(G.nodes)
        return np.zeros(0, dtype=np.int64)
    values, reached = _per_source(G, G.nodes)
    if np.any(reached != G.n):
        if bounding:
            raise nx.NetworkXError("Cannot compute metric because graph is not connected.")
        raise _not_connected(G)
    return values


def diameter(G, e=None, usebounds=False, weight=None):
    if e is None:
        return max(_eccentricities(G, usebounds).tolist())
    return max(e.values())


def radius(G, e=None, usebounds=False, weight=None):
    if e is None:
        return min(_eccentricities(G, usebounds).tolist())
    return min(e.values())


def periphery(G, e=None, usebounds=False, weight=None):
    if e is None:
        values = _eccentricities(G, usebounds)
        return G.labels(np.flatnonzero(values == max(values.tolist())))
    diameter = max(e.values())
    return [v for v in e if e[v] == diameter]


def center(G, e=None, usebounds=False, weight=None):
    if e is None:
        if G.n == 0 and usebounds is not True and not G.directed:
            # networkx first asks nx.is_tree (a tree's center, found by
            # peeling leaves, is the same nodes in the same order).
            raise nx.NetworkXPointlessConcept("G has no nodes.")
        values = _eccentricities(G, usebounds)
        return G.labels(np.flatnonzero(values == min(values.tolist())))
    radius = min(e.values())
    return [v for v in e if e[v] == radius]


#: ``average_shortest_path_length``'s methods; without a weight each
#: counts edges, as a breadth-first search does.
_AVERAGE_METHODS = (
    "unweighted",
    "dijkstra",
    "bellman-ford",
    "floyd-warshall",
    "floyd-warshall-numpy",
)


def average_shortest_path_length(G, weight=None, method=None):
    if method is None:
        method = "unweighted"
    if method not in _AVERAGE_METHODS:
        raise ValueError(f"method not supported: {method}")
    if G.n == 0:
        raise nx.NetworkXPointlessConcept(
            "the null graph has no paths, thus there is no average shortest path length"
        )
    if G.n == 1:
        return 0
    kind = "strongly connected" if G.directed else "connected"
    not_connected = nx.NetworkXError(f"Graph is not {kind}.")
    # One search finds most graphs that are not, before the batches.
    if np.any(G.distances(G.nodes[0]) < 0):
        raise not_connected
    sums = G.native().sums(totals=False, device=G.device)
    if np.any(sums["reached"] != G.n):
        raise not_connected
    return int(sums["distance_sum"].sum()) / (G.n * (G.n - 1))


def _closeness(reached, sums, n, wf_improved):
    """networkx's closeness from the vertices reaching each (itself left
    out) and their summed distances, in networkx's operations' order."""
    reached = np.asarray(reached, dtype=np.float64)
    sums = np.asarray(sums, dtype=np.float64)
    values = np.zeros(len(sums))
    some = (sums > 0) & (n > 1)
    values[some] = reached[some] / sums[some]
    if wf_improved:
        values[some] *= reached[some] / (n - 1)
    return values


def closeness_centrality(G, u=None, distance=None, wf_improved=True):
    if u is not None:
        if u not in G:
            raise nx.NodeNotFound(f"Source {u} is not in G")
        found = G.distances(u, reverse=True)
        found = found[found >= 0]
        value = _closeness([len(found) - 1], [int(found.sum())], G.n, wf_improved)
        return float(value[0])
    if G.n == 0:
        return {}
    graph = G.native()
    if G.directed:
        # Distances to each vertex: the totals over every source.
        sums = graph.sums(device=G.device)
        values = _closeness(sums["reached_by"] - 1, sums["distance_sums"], G.n, wf_improved)
        return dict(zip(G.nodes, values.tolist()))
    sums = graph.sums(totals=False, device=G.device)
    values = np.empty(G.n)
    values[sums["sources"]] = _closeness(
        sums["reached"] - 1, sums["distance_sum"], G.n, wf_improved
    )
    return dict(zip(G.nodes, values.tolist()))


def harmonic_centrality(G, nbunch=None, distance=None, sources=None):
    targets = set(G.nbunch_iter(nbunch) if nbunch is not None else G.nodes)
    chosen = set(G.nbunch_iter(sources) if sources is not None else G.nodes)
    centrality = dict.fromkeys(targets, 0)
    if not targets or not chosen:
        return centrality
    source_positions = np.array([G.position(node) for node in chosen], dtype=np.int64)
    if len(targets) < len(chosen):
        # As networkx: from the fewer nodes, over the reverse graph.
        graph = G.native(reverse=True)
        targets = list(targets)
        per_batch = max(1, min(1024, MOST_BATCH_ENTRIES // max(G.n, 1)))
        for first in range(0, len(targets), per_batch):
            batch = targets[first : first + per_batch]
            positions = np.array([G.position(node) for node in batch], dtype=np.int64)
            rows = graph.bfs_many(positions, device=G.device)[:, source_positions]
            inverse = np.where(rows > 0, 1.0 / np.maximum(rows, 1), 0.0)
            for node, value in zip(batch, inverse.sum(axis=1).tolist()):
                if value:
                    centrality[node] = value
        return centrality
    sums = G.native().sums(source_positions, device=G.device)
    totals = sums["reciprocal_sums"].tolist()
    for node in targets:
        value = totals[G.position(node)]
        if value:
            centrality[node] = value
    return centrality
