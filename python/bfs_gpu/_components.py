"""networkx's connected, weakly and strongly connected components through
the backend: each vertex's label (its component's least position in the
graph's node order) from the GPU (``Graph.components``), turned into
networkx's sets.

networkx yields connected and weakly connected components in the order of
their first node in the graph's node order, which is the order of their
labels. It yields strongly connected components in the order its Tarjan
search finishes them, which a parallel search cannot give: that
generator runs Tarjan's search in Rust over the rows in networkx's
neighbour order (one thread, linear time); the counts and tests of
strong connectivity take the GPU's labels.
"""

import networkx as nx
import numpy as np


def _labels(G, strong=False):
    """Each node's label, from the GPU (or the CPU engine without one)."""
    return G.native().components(strong=strong, device=G.device)


def _groups(G, labels, order=None):
    """The nodes of each label as sets, in ``order`` (labels), else by label."""
    by_label = np.argsort(labels, kind="stable")
    sorted_labels = labels[by_label]
    starts = np.flatnonzero(np.r_[True, sorted_labels[1:] != sorted_labels[:-1]])
    ends = np.r_[starts[1:], len(labels)]
    if order is None:
        spans = zip(starts.tolist(), ends.tolist())
    else:
        where = dict(zip(sorted_labels[starts].tolist(), zip(starts.tolist(), ends.tolist())))
        spans = (where[label] for label in order.tolist())
    for start, end in spans:
        yield set(G.labels(by_label[start:end]))


def _null_graph():
    return nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")


def connected_components(G):
    if G.n == 0:
        return
    yield from _groups(G, _labels(G))


def number_connected_components(G):
    if G.n == 0:
        return 0
    return int(np.count_nonzero(_labels(G) == np.arange(G.n)))


def is_connected(G):
    if G.n == 0:
        raise _null_graph()
    return bool(np.all(_labels(G) == 0))


def node_connected_component(G, n):
    if n not in G:
        raise KeyError(n)
    labels = _labels(G)
    return set(G.labels(np.flatnonzero(labels == labels[G.position(n)])))


def weakly_connected_components(G):
    yield from connected_components(G)


def number_weakly_connected_components(G):
    return number_connected_components(G)


def is_weakly_connected(G):
    return is_connected(G)


def strongly_connected_components(G):
    if G.n == 0:
        return
    labels, order = G.rows().strong_components()
    yield from _groups(G, labels, order)


def number_strongly_connected_components(G):
    if G.n == 0:
        return 0
    return int(np.count_nonzero(_labels(G, strong=True) == np.arange(G.n)))


def is_strongly_connected(G):
    if G.n == 0:
        raise _null_graph()
    return bool(np.all(_labels(G, strong=True) == 0))
