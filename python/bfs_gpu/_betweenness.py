"""networkx's ``betweenness_centrality`` and ``edge_betweenness_centrality``
through the backend: the sums over ordered pairs from the GPU's batches
(``Graph.betweenness_sums``: Brandes's two sweeps, many sources at once),
then networkx's own rescaling, so that its ``normalized``, ``endpoints``
and sampling conventions (which changed between its versions) are the
installed networkx's. A sample of ``k`` sources is drawn as networkx draws
it (``seed.sample(list(G), k)``), so the values equal networkx's, not
only estimate the same thing.
"""

import inspect

import numpy as np
from networkx.algorithms.centrality import betweenness as _nx

#: The installed networkx's rescaling takes the sampled nodes (3.5 on)
#: rather than their count.
_RESCALE_TAKES_NODES = "sampled_nodes" in inspect.signature(_nx._rescale).parameters


def _sample(G, k, seed):
    """The sampled nodes as networkx draws them, or None for every node."""
    if k is None:
        return None
    return seed.sample(list(G.nodes), k)


def _sums(G, nodes, **wanted):
    """The native sums from ``nodes`` (every node where None)."""
    sources = None
    if nodes is not None:
        sources = np.fromiter((G.position(node) for node in nodes), dtype=np.int64)
    return G.native().betweenness_sums(sources, device=G.device, **wanted)


def _rescale(values, G, normalized, endpoints, nodes, edges=False):
    """networkx's rescaling of ``values`` (a dict), as the installed
    version does it."""
    if _RESCALE_TAKES_NODES:
        options = {"normalized": normalized, "directed": G.directed, "sampled_nodes": nodes}
        if not edges:
            options["endpoints"] = endpoints
        return _nx._rescale(values, G.n, **options)
    k = None if nodes is None else len(nodes)
    if edges:
        return _nx._rescale_e(values, G.n, normalized=normalized, directed=G.directed, k=k)
    return _nx._rescale(
        values, G.n, normalized=normalized, directed=G.directed, k=k, endpoints=endpoints
    )


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    if k == G.n:
        # As networkx: every node, the same result.
        k = None
    nodes = _sample(G, k, seed)
    if G.n == 0:
        return {}
    sums = _sums(G, nodes, vertices=True, endpoints=endpoints)
    betweenness = dict(zip(G.nodes, sums["vertices"].tolist()))
    return _rescale(betweenness, G, normalized, endpoints, nodes)


def _edges(G):
    """networkx's ``G.edges()`` of the converted graph, in its order, as
    position arrays: each undirected edge once, from the end that comes
    first in node order (a self loop too)."""
    indptr, indices = G.arrays(False)
    tails = np.repeat(np.arange(G.n, dtype=np.int64), np.diff(indptr))
    heads = np.asarray(indices, dtype=np.int64)
    if not G.directed:
        first = heads >= tails
        tails, heads = tails[first], heads[first]
    return tails, heads


def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    nodes = _sample(G, k, seed)
    tails, heads = _edges(G)
    if len(tails):
        native = G.native()
        arcs = _sums(G, nodes, vertices=False, arcs=True)["arcs"]
        values = native.arc_values(arcs, tails, heads).tolist()
    else:
        values = []
    betweenness = dict(zip(zip(G.labels(tails), G.labels(heads)), values))
    betweenness = _rescale(betweenness, G, normalized, True, nodes, edges=True)
    if G.multigraph:
        return _nx._add_edge_keys(G.to_networkx(), betweenness)
    return betweenness
