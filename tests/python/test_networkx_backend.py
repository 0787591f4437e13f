"""The bfs_gpu networkx backend against networkx itself: every function
it implements, called with backend="bfs_gpu", gives networkx's result (the
order of bfs_edges and bfs_layers included) on random, directed,
disconnected and relabelled graphs, on the CPU engine and on the GPU, and
raises networkx's errors; can_run declines what it does not implement;
the converted graph is cached on the networkx graph until it changes."""

import itertools
import math

from helpers import named_graphs, relabelled

FUNCTIONS = [
    "bfs_edges",
    "bfs_layers",
    "bfs_predecessors",
    "bfs_successors",
    "bfs_tree",
    "descendants_at_distance",
    "single_source_shortest_path_length",
    "shortest_path_length",
    "all_pairs_shortest_path_length",
    "has_path",
    "eccentricity",
    "diameter",
    "closeness_centrality",
    "harmonic_centrality",
]

#: The functions of test_backend_paths.py.
PATH_FUNCTIONS = [
    "single_source_shortest_path",
    "single_target_shortest_path",
    "single_target_shortest_path_length",
    "all_pairs_shortest_path",
    "bidirectional_shortest_path",
    "shortest_path",
    "ancestors",
    "descendants",
    "ego_graph",
    "radius",
    "center",
    "periphery",
    "average_shortest_path_length",
]

#: Betweenness and components (tests/python/test_family.py).
FAMILY_FUNCTIONS = [
    "betweenness_centrality",
    "edge_betweenness_centrality",
    "connected_components",
    "number_connected_components",
    "is_connected",
    "node_connected_component",
    "weakly_connected_components",
    "number_weakly_connected_components",
    "is_weakly_connected",
    "strongly_connected_components",
    "number_strongly_connected_components",
    "is_strongly_connected",
]


def backend_graphs(nx):
    made = named_graphs(nx)
    made["relabelled random"] = relabelled(made["random"], nx)
    made["relabelled directed"] = relabelled(made["directed"], nx)
    made["multigraph"] = nx.MultiGraph(list(made["random"].edges()) * 2)
    return made


def same(nx, name, *args, **kwargs):
    """networkx's result and the backend's, iterators drained; or both
    errors' types and messages."""
    results = []
    for backend in ("networkx", "bfs_gpu"):
        try:
            result = getattr(nx, name)(*args, backend=backend, **kwargs)
            if not isinstance(result, (dict, set, int, float, nx.Graph)):
                result = [(key, dict(value)) if name.startswith("all_pairs") else (key, value)
                          for key, value in result] if name.startswith("all_pairs") else list(result)
            results.append(result)
        except Exception as error:
            results.append((type(error), str(error)))
    return results


def assert_same(nx, name, *args, **kwargs):
    want, got = same(nx, name, *args, **kwargs)
    if isinstance(want, nx.Graph):
        assert set(want.nodes) == set(got.nodes) and set(want.edges) == set(got.edges)
    elif isinstance(want, dict) and any(isinstance(v, float) for v in want.values()):
        assert want.keys() == got.keys()
        for key in want:
            assert math.isclose(got[key], want[key], rel_tol=1e-12), (name, key)
    else:
        assert got == want, (name, args, kwargs)


def test_every_function_gives_networkxs_result(nx, backend):
    for graph_name, G in backend_graphs(nx).items():
        nodes = list(G)
        some = nodes[:: max(1, len(nodes) // 4)]
        for source in some:
            for name in ("bfs_edges", "bfs_predecessors", "bfs_successors", "bfs_tree"):
                assert_same(nx, name, G, source)
                assert_same(nx, name, G, source, depth_limit=2)
            assert_same(nx, "bfs_edges", G, source, reverse=True)
            assert_same(nx, "bfs_layers", G, source)
            assert_same(nx, "bfs_layers", G, [source, nodes[-1], source])
            for distance in (0, 1, 3, -1):
                assert_same(nx, "descendants_at_distance", G, source, distance)
            for cutoff in (None, 0, 2, 2.5, -1):
                assert_same(nx, "single_source_shortest_path_length", G, source, cutoff=cutoff)
            assert_same(nx, "shortest_path_length", G, source)
            assert_same(nx, "shortest_path_length", G, target=source)
            for target in some:
                assert_same(nx, "shortest_path_length", G, source, target)
                assert_same(nx, "has_path", G, source, target)
            assert_same(nx, "closeness_centrality", G, u=source)
            assert_same(nx, "closeness_centrality", G, u=source, wf_improved=False)
        assert_same(nx, "all_pairs_shortest_path_length", G)
        assert_same(nx, "all_pairs_shortest_path_length", G, cutoff=1)
        assert_same(nx, "shortest_path_length", G)
        assert_same(nx, "closeness_centrality", G)
        assert_same(nx, "closeness_centrality", G, wf_improved=False)
        assert_same(nx, "harmonic_centrality", G)
        assert_same(nx, "harmonic_centrality", G, nbunch=some)
        assert_same(nx, "harmonic_centrality", G, sources=some)
        assert_same(nx, "harmonic_centrality", G, nbunch=some[:2], sources=nodes[:-3])
        assert_same(nx, "eccentricity", G)
        assert_same(nx, "eccentricity", G, v=some)
        assert_same(nx, "eccentricity", G, v=nodes[0])
        assert_same(nx, "diameter", G)
        assert_same(nx, "diameter", G, usebounds=True)


def test_connected_graphs_have_networkxs_eccentricity(nx, backend):
    for G in (nx.connected_watts_strogatz_graph(150, 4, 0.1, seed=2), nx.path_graph(40)):
        for H in (G, relabelled(G, nx)):
            assert_same(nx, "eccentricity", H)
            assert_same(nx, "diameter", H)
            assert_same(nx, "diameter", H, usebounds=True)
            assert_same(nx, "diameter", H, e=nx.eccentricity(H))


def test_missing_nodes_raise_networkxs_errors(nx, backend):
    G = nx.path_graph(5)
    D = nx.DiGraph(G)
    for graph in (G, D):
        for name, args in [
            ("bfs_edges", (graph, "x")),
            ("bfs_layers", (graph, ["x"])),
            ("bfs_layers", (graph, "abc")),
            ("descendants_at_distance", (graph, "x", 1)),
            ("single_source_shortest_path_length", (graph, "x")),
            ("shortest_path_length", (graph, "x")),
            ("shortest_path_length", (graph, None, "x")),
            ("shortest_path_length", (graph, 0, "x")),
            ("has_path", (graph, "x", 0)),
            ("closeness_centrality", (graph, "x")),
            ("eccentricity", (graph, 7.5)),
        ]:
            want, got = same(nx, name, *args)
            assert isinstance(want, tuple) and got == want, (name, want, got)
    apart = nx.Graph([(0, 1), (2, 3)])
    for name, kwargs in [("eccentricity", {}), ("diameter", {}), ("diameter", {"usebounds": True})]:
        want, got = same(nx, name, apart, **kwargs)
        assert isinstance(want, tuple) and got == want, (name, want, got)
    want, got = same(nx, "shortest_path_length", apart, 0, 3)
    assert got == want and want[0] is nx.NetworkXNoPath
    want, got = same(nx, "shortest_path_length", apart, 0, method="fastest")
    assert got == want and want[0] is ValueError


def test_can_run_declines_what_is_left_to_networkx(nx, backend):
    G = nx.path_graph(5)
    assert backend.can_run("bfs_edges", (G, 0), {}) is True
    declined = [
        ("bfs_edges", (G, 0), {"sort_neighbors": sorted}),
        ("shortest_path_length", (G, 0), {"weight": "weight"}),
        ("eccentricity", (G,), {"sp": {}}),
        ("closeness_centrality", (G,), {"distance": "weight"}),
        ("harmonic_centrality", (G,), {"distance": "weight"}),
        ("descendants_at_distance", (G, 0, 1.5), {}),
        ("dijkstra_path", (G, 0, 1), {}),
    ]
    for name, args, kwargs in declined:
        reason = backend.can_run(name, args, kwargs)
        assert isinstance(reason, str) and reason, name
    # Declined calls run in networkx, with the same answers.
    assert list(nx.bfs_edges(G, 0, sort_neighbors=sorted, backend="networkx")) == [
        (0, 1), (1, 2), (2, 3), (3, 4)
    ]
    assert backend.should_run("bfs_edges", (G, 0), {}) != True  # noqa: E712
    large = nx.path_graph(backend.SMALLEST_GRAPH)
    assert backend.should_run("bfs_edges", (large, 0), {}) is True


def test_the_converted_graph_is_cached_until_the_graph_changes(nx, backend):
    G = nx.path_graph(6)
    assert nx.single_source_shortest_path_length(G, 0, backend="bfs_gpu")[5] == 5
    cached = G.__networkx_cache__["backends"]["bfs_gpu"]
    converted = next(iter(cached.values()))
    nx.eccentricity(G, backend="bfs_gpu")
    assert next(iter(G.__networkx_cache__["backends"]["bfs_gpu"].values())) is converted
    G.add_edge(0, 5)
    assert "backends" not in G.__networkx_cache__ or not G.__networkx_cache__["backends"]
    assert nx.single_source_shortest_path_length(G, 0, backend="bfs_gpu")[5] == 1


def test_networkx_reads_the_backends_description(nx):
    info = nx.utils.backends.backend_info["bfs_gpu"]
    assert set(info["functions"]) == set(FUNCTIONS + PATH_FUNCTIONS + FAMILY_FUNCTIONS)
    from bfs_gpu import networkx_backend

    assert sorted(networkx_backend.__all__) == sorted(FUNCTIONS + PATH_FUNCTIONS + FAMILY_FUNCTIONS)
    assert all(callable(getattr(networkx_backend, name)) for name in networkx_backend.__all__)
    assert list(itertools.islice(nx.bfs_edges(nx.path_graph(3), 0, backend="bfs_gpu"), 1)) == [(0, 1)]
