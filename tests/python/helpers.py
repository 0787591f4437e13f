"""What the Python tests share: a missing module's skip (a failure in CI),
the named test graphs and their relabelled copies, and the GPU's skip (a
failure where the bundle's runner requires a GPU)."""

import os
import random

import pytest


def required(module):
    """The module, or a skip (a failure in CI) saying it is missing."""
    try:
        return __import__(module)
    except ImportError:
        message = f"{module} is missing (python3 -m pip install {module})"
        if os.environ.get("CI"):
            pytest.fail(f"{message}, and CI requires it", pytrace=False)
        pytest.skip(message)


def require_gpu(bfs_gpu):
    """Skips where there is no GPU, unless BFS_REQUIRE_GPU is set (by the
    bundle's runner): there it fails, so a GPU run cannot pass by skipping."""
    try:
        return bfs_gpu.gpu()
    except bfs_gpu.BfsError as error:
        why = str(error)
    if os.environ.get("BFS_REQUIRE_GPU"):
        pytest.fail(f"the GPU is required but cannot be used: {why}", pytrace=False)
    pytest.skip(why)


def named_graphs(nx):
    """Named test graphs: random, directed, several components, isolated
    vertices, self loops; sizes no multiple of 32."""
    made = {}
    made["random"] = nx.gnp_random_graph(77, 0.06, seed=1)
    made["connected"] = nx.connected_watts_strogatz_graph(150, 4, 0.1, seed=2)
    apart = nx.disjoint_union(nx.gnp_random_graph(40, 0.1, seed=3), nx.path_graph(25))
    apart.add_nodes_from(range(65, 70))
    apart.add_edge(3, 3)
    made["components, isolated, self loop"] = apart
    made["directed"] = nx.gnp_random_graph(70, 0.05, seed=4, directed=True)
    strong = nx.DiGraph(nx.cycle_graph(45, create_using=nx.DiGraph))
    rng = random.Random(5)
    strong.add_edges_from((rng.randrange(45), rng.randrange(45)) for _ in range(40))
    strong.remove_edges_from(nx.selfloop_edges(strong))
    made["strongly connected"] = strong
    sink = nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3), (4, 3), (3, 5), (5, 5)])
    sink.add_node(6)
    made["directed, sink, unreachable"] = sink
    # Junctions joined by chains of 1 to 11 edges, a tail, and a ring
    # apart: what the contracted-chains engine counts in closed form.
    chains = nx.Graph()
    following = 5
    for index, (a, b) in enumerate([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 4)]):
        previous = a
        for _ in range(2 * index):
            chains.add_edge(previous, following)
            previous, following = following, following + 1
        chains.add_edge(previous, b)
    made["chains and a ring"] = nx.disjoint_union(chains, nx.cycle_graph(9))
    return made


def relabelled(graph, nx):
    """`graph` with string and tuple labels, its nodes in shuffled order."""
    rng = random.Random(11)
    labels = {node: (f"v{node}" if node % 2 else ("pair", node)) for node in graph}
    order = list(graph)
    rng.shuffle(order)
    shuffled = graph.__class__()
    shuffled.add_nodes_from(labels[node] for node in order)
    edges = list(graph.edges())
    rng.shuffle(edges)
    shuffled.add_edges_from((labels[u], labels[v]) for u, v in edges)
    return shuffled
