"""Unweighted shortest paths, reachability and ego graphs for the
``bfs_gpu`` networkx backend.

networkx's paths are those of its breadth-first tree, which depends on
each adjacency dict's order: they come from the one-thread search in Rust
over rows kept in that order (``_native.Rows``, as ``bfs_edges``), each
path its parent's with one node more. Between two nodes, networkx searches
from both ends, a level at a time from the end whose last level is
smaller, and returns the path through the first edge that joins them: the
GPU finds the distance, which says on which level they meet, and the
searches from both ends, that deep, give the levels and the edge.
Reachability, a set, is a search on the GPU.
"""

import contextlib
import gc

import networkx as nx
import numpy as np

from ._converted import levels_within

# Paths, in networkx's order.


@contextlib.contextmanager
def _collector_paused():
    """Python's cycle collector off meanwhile: each list made counts
    towards a collection, and each collection walks the paths made so far,
    many times the time the lists take. Lists of nodes make no cycles."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _paths(G, root, cutoff, *, reverse):
    """networkx's ``_single_shortest_path``: each node within ``cutoff`` of
    ``root``, in the order found, with its path from ``root`` (with
    ``reverse``, in the reverse graph, so its path to ``root``)."""
    parents, children, _ = G.rows(reverse).search([G.position(root)], levels_within(cutoff))
    paths = {root: [root]}
    found = zip(G.labels(parents), G.labels(children))
    with _collector_paused():
        if reverse:
            for parent, child in found:
                paths[child] = [child, *paths[parent]]
        else:
            for parent, child in found:
                paths[child] = [*paths[parent], child]
    return paths


def single_source_shortest_path(G, source, cutoff=None):
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    return _paths(G, source, cutoff, reverse=False)


def single_target_shortest_path(G, target, cutoff=None):
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} not in G")
    return _paths(G, target, cutoff, reverse=True)


def all_pairs_shortest_path(G, cutoff=None):
    for node in G.nodes:
        yield (node, _paths(G, node, cutoff, reverse=False))


def pair_distance(G, source, target):
    """The distance from ``source`` to ``target``, -1 where none; raising
    as networkx's ``bidirectional_shortest_path`` does for missing nodes."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    return int(G.distances(source)[G.position(target)])


def _tree(G, root, depth, *, reverse):
    """A search in networkx's order from ``root``, ``depth`` levels deep:
    each vertex's parent (-1 for the root and where unreached) and each
    level's vertices in the order found."""
    position = G.position(root)
    parents, children, ends = G.rows(reverse).search([position], depth)
    parent = np.full(G.n, -1, dtype=np.int64)
    parent[children] = parents
    bounds = [0, *ends.tolist()]
    levels = [np.array([position]), *(children[a:b] for a, b in zip(bounds, bounds[1:]))]
    return parent, levels


def _first_edge(arrays, tails, wanted):
    """The first edge, taking ``tails`` in order and each one's row in
    order, whose head is ``wanted`` (a mask over vertices): (tail, head)."""
    indptr, indices = arrays
    starts = indptr[tails]
    lengths = indptr[tails + 1] - starts
    ends = np.cumsum(lengths)
    # The tails' rows one after another, as positions in ``indices``.
    entries = np.arange(ends[-1]) + np.repeat(starts - (ends - lengths), lengths)
    hit = int(np.flatnonzero(wanted[indices[entries]])[0])
    return int(tails[np.searchsorted(ends, hit, side="right")]), int(indices[entries[hit]])


def _chain(parent, vertex):
    """``vertex`` and its ancestors in a search tree, up to the root."""
    chain = [vertex]
    while parent[chain[-1]] >= 0:
        chain.append(int(parent[chain[-1]]))
    return chain


def _members(n, levels):
    """A mask over the ``n`` vertices of ``levels``."""
    mask = np.zeros(n, dtype=bool)
    mask[np.concatenate(levels)] = True
    return mask


def bidirectional_shortest_path(G, source, target):
    if target == source and source in G:
        return [source]
    distance = pair_distance(G, source, target)
    if distance < 0:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    forward_parent, forward = _tree(G, source, distance - 1, reverse=False)
    backward_parent, backward = _tree(G, target, distance - 1, reverse=True)
    # networkx extends the side whose last level is smaller (forward on a
    # tie). With a levels searched from the source and b from the target,
    # an edge joins them first on the step where a + b + 1 is the
    # distance: networkx's path runs through the first such edge that step
    # takes.
    a = b = 0
    while a + b + 1 < distance:
        if len(forward[a]) <= len(backward[b]):
            a += 1
        else:
            b += 1
    if len(forward[a]) <= len(backward[b]):
        tail, head = _first_edge(G.arrays(False), forward[a], _members(G.n, backward[: b + 1]))
        path = _chain(forward_parent, tail)[::-1] + _chain(backward_parent, head)
    else:
        tail, head = _first_edge(G.arrays(True), backward[b], _members(G.n, forward[: a + 1]))
        path = _chain(forward_parent, head)[::-1] + _chain(backward_parent, tail)
    return G.labels(np.array(path))


def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    if source is None:
        if target is None:
            return all_pairs_shortest_path(G)
        # networkx searches the reverse graph from the target.
        if target not in G:
            raise nx.NodeNotFound(f"Source {target} not in G")
        return _paths(G, target, None, reverse=True)
    if target is None:
        return single_source_shortest_path(G, source)
    return bidirectional_shortest_path(G, source, target)


# Reachability, on the GPU.


def _reached(G, source, reverse):
    """The nodes a search from ``source`` reaches, ``source`` left out."""
    G.require(source)
    found = G.distances(source, reverse=reverse)
    return set(G.labels(np.flatnonzero(found > 0)))


def descendants(G, source):
    return _reached(G, source, reverse=False)


def ancestors(G, source):
    return _reached(G, source, reverse=True)


# Ego graphs, in networkx's order.


def ego_graph(G, n, radius=1, center=True, undirected=False, distance=None):
    if n not in G:
        raise nx.NodeNotFound(f"Source {n} is not in G")
    # The nodes in networkx's order: a small subgraph's nodes keep the
    # order of the set networkx makes of them.
    rows = G.rows_both_ways() if undirected else G.rows()
    _, children, _ = rows.search([G.position(n)], levels_within(radius))
    H = G.original().subgraph([n, *G.labels(children)]).copy()
    if not center:
        H.remove_node(n)
    return H
