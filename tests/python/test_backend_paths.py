"""The bfs_gpu networkx backend's paths, reachability, ego graphs and
distance measures against networkx itself, on the CPU engine and on the
GPU: from and to every vertex of the named graphs and of relabelled
copies built in shuffled order, the paths and their dicts' orders are
networkx's (those of its breadth-first tree, and for a pair the one its
search from both ends meets on), ego graphs are the original graph's
subgraphs with their nodes in networkx's order, and the errors' types and
messages are networkx's."""

import pytest
from helpers import named_graphs, relabelled


def path_graphs(nx):
    made = named_graphs(nx)
    made["relabelled random"] = relabelled(made["random"], nx)
    made["relabelled directed"] = relabelled(made["directed"], nx)
    made["relabelled strongly connected"] = relabelled(made["strongly connected"], nx)
    made["multigraph"] = nx.MultiDiGraph(list(made["directed"].edges()) * 2)
    return made


def outcome(nx, name, *args, backend, **kwargs):
    """What the call gives, in a form that compares orders too: dicts and
    graphs as lists, iterators drained; or the error's type and message.
    Dicts of lengths compare as dicts (the backend lists them level by
    level, networkx in the order found)."""
    try:
        result = getattr(nx, name)(*args, backend=backend, **kwargs)
    except Exception as error:
        return type(error), str(error)
    if isinstance(result, nx.Graph):
        return (
            type(result),
            result.graph,
            list(result.nodes(data=True)),
            list(result.edges(data=True)),
        )
    if isinstance(result, dict) and not name.endswith("_length"):
        return list(result.items())
    if not isinstance(result, (dict, list, set, int, float)):
        return [(node, list(paths.items())) for node, paths in result]
    return result


def assert_same(nx, name, *args, **kwargs):
    want = outcome(nx, name, *args, backend="networkx", **kwargs)
    got = outcome(nx, name, *args, backend="bfs_gpu", **kwargs)
    assert type(got) is type(want) and got == want, (name, args[1:], kwargs)
    return want


def test_paths_are_networkxs_from_and_to_every_vertex(nx, backend):
    for G in path_graphs(nx).values():
        for node in G:
            for cutoff in (None, 0, 1, 2.5, -1):
                assert_same(nx, "single_source_shortest_path", G, node, cutoff=cutoff)
                assert_same(nx, "single_target_shortest_path", G, node, cutoff=cutoff)
                assert_same(nx, "single_target_shortest_path_length", G, node, cutoff=cutoff)
            assert_same(nx, "shortest_path", G, node)
            assert_same(nx, "shortest_path", G, target=node)
            assert_same(nx, "shortest_path", G, target=node, method="bellman-ford")
        assert_same(nx, "all_pairs_shortest_path", G)
        assert_same(nx, "all_pairs_shortest_path", G, cutoff=2)
        assert_same(nx, "shortest_path", G)


def test_a_pairs_path_is_the_one_networkxs_search_from_both_ends_meets_on(nx, backend):
    meets_elsewhere = 0
    for G in path_graphs(nx).values():
        nodes = list(G)
        for source in nodes:
            tree = nx.single_source_shortest_path(G, source, backend="networkx")
            for target in nodes:
                path = assert_same(nx, "bidirectional_shortest_path", G, source, target)
                meets_elsewhere += isinstance(path, list) and path != tree[target]
            for target in nodes[::5]:
                assert_same(nx, "shortest_path", G, source, target)
    # The pairs whose path is not the breadth-first tree's from the source.
    assert meets_elsewhere > 1000


def test_reachability_and_ego_graphs_are_networkxs(nx, backend):
    for G in path_graphs(nx).values():
        G.graph["name"] = "original"
        for index, node in enumerate(G):
            G.nodes[node]["index"] = index
        for edge in list(G.edges(keys=True) if G.is_multigraph() else G.edges())[::3]:
            G.edges[edge]["kept"] = True
        for node in G:
            assert_same(nx, "descendants", G, node)
            assert_same(nx, "ancestors", G, node)
            for radius in (0, 1, 2, 1.5):
                assert_same(nx, "ego_graph", G, node, radius=radius)
                assert_same(nx, "ego_graph", G, node, radius=radius, undirected=True)
            assert_same(nx, "ego_graph", G, node, center=False)
            assert_same(nx, "ego_graph", G, node, radius=3, center=False, undirected=True)


def test_distance_measures_are_networkxs(nx, backend):
    graphs = path_graphs(nx)
    graphs["path"] = nx.path_graph(30)
    graphs["tree"] = relabelled(nx.random_labeled_tree(40, seed=6), nx)
    for G in graphs.values():
        for name in ("radius", "center", "periphery", "diameter"):
            assert_same(nx, name, G)
            assert_same(nx, name, G, usebounds=True)
        assert_same(nx, "average_shortest_path_length", G)
        assert_same(nx, "average_shortest_path_length", G, method="floyd-warshall")
    for G in (graphs[name] for name in ("connected", "strongly connected", "path", "tree")):
        e = nx.eccentricity(G)
        for name in ("radius", "center", "periphery"):
            assert_same(nx, name, G, e=e)
            assert_same(nx, name, G, e={node: e[node] for node in list(G)[::2]})


def test_missing_nodes_and_no_paths_raise_networkxs_errors(nx, backend):
    apart = nx.Graph([(0, 1), (2, 3)])
    for G in (nx.path_graph(5), nx.DiGraph(nx.path_graph(5)), apart):
        for name, args in [
            ("single_source_shortest_path", ("x",)),
            ("single_target_shortest_path", ("x",)),
            ("single_target_shortest_path_length", ("x",)),
            ("bidirectional_shortest_path", ("x", 0)),
            ("bidirectional_shortest_path", (0, "x")),
            ("bidirectional_shortest_path", ("x", "x")),
            ("shortest_path", ("x",)),
            ("shortest_path", (None, "x")),
            ("shortest_path", ("x", 0)),
            ("shortest_path", (0, "x")),
            ("descendants", ("x",)),
            ("ancestors", ("x",)),
            ("ego_graph", ("x",)),
            ("ego_graph", ("x", 1, True, True)),
        ]:
            want = assert_same(nx, name, G, *args)
            assert isinstance(want, tuple) and issubclass(want[0], nx.NetworkXException), name
    for G in (apart, nx.DiGraph([(0, 1), (1, 2)])):
        want = assert_same(nx, "bidirectional_shortest_path", G, 2, 0)
        assert want[0] is nx.NetworkXNoPath
        assert_same(nx, "shortest_path", G, 2, 0)
        for name in ("radius", "center", "periphery"):
            assert assert_same(nx, name, G)[0] is nx.NetworkXError
            assert assert_same(nx, name, G, usebounds=True)[0] is nx.NetworkXError
        assert assert_same(nx, "average_shortest_path_length", G)[0] is nx.NetworkXError
    for G in (nx.Graph(), nx.DiGraph(), nx.empty_graph(1)):
        for name in ("radius", "center", "periphery", "diameter"):
            assert_same(nx, name, G)
            assert_same(nx, name, G, usebounds=True)
        assert_same(nx, "average_shortest_path_length", G)
    want = assert_same(nx, "shortest_path", apart, 0, 1, method="fastest")
    assert want[0] is ValueError
    want = assert_same(nx, "average_shortest_path_length", apart, method="fastest")
    assert want[0] is ValueError


def test_can_run_declines_only_weights(nx, backend):
    G = nx.path_graph(5)
    taken = [
        ("shortest_path", (G, 0, 4), {"method": "bellman-ford"}),
        ("ego_graph", (G, 0), {"radius": 2, "undirected": True}),
        ("radius", (G,), {"usebounds": True}),
        ("center", (G,), {"e": {0: 1}}),
        ("average_shortest_path_length", (G,), {"method": "floyd-warshall"}),
        ("bidirectional_shortest_path", (G, 0, 4), {}),
        ("ancestors", (G, 0), {}),
    ]
    for name, args, kwargs in taken:
        assert backend.can_run(name, args, kwargs) is True, name
    declined = [
        ("shortest_path", (G, 0, 4), {"weight": "weight"}),
        ("ego_graph", (G, 0), {"distance": "weight"}),
        ("radius", (G,), {"weight": "weight"}),
        ("center", (G,), {"weight": lambda u, v, d: 1}),
        ("periphery", (G,), {"weight": "weight"}),
        ("average_shortest_path_length", (G,), {"weight": "weight"}),
    ]
    for name, args, kwargs in declined:
        reason = backend.can_run(name, args, kwargs)
        assert isinstance(reason, str) and "weighted" in reason, name


def test_ego_graph_is_a_copy_of_the_original(nx, backend):
    G = nx.MultiGraph(name="roads")
    G.add_edge("a", "b", length=3)
    G.add_edge("a", "b", length=4)
    G.add_edge("b", "c")
    G.nodes["a"]["colour"] = "red"
    H = nx.ego_graph(G, "a", backend="bfs_gpu")
    assert type(H) is nx.MultiGraph and H.graph == {"name": "roads"}
    assert dict(H.nodes(data=True)) == {"a": {"colour": "red"}, "b": {}}
    assert sorted(d["length"] for _, _, d in H.edges(data=True)) == [3, 4]
    H.nodes["a"]["colour"] = "blue"
    assert G.nodes["a"]["colour"] == "red"


@pytest.mark.parametrize("directed", [False, True])
def test_average_shortest_path_length_sums_every_pair(nx, backend, directed):
    G = nx.cycle_graph(7, create_using=nx.DiGraph if directed else nx.Graph)
    # From each node of a cycle of 7: 1 + 2 + ... + 6 one way, 1 + 1 + 2 + 2 + 3 + 3 both.
    assert nx.average_shortest_path_length(G, backend="bfs_gpu") == (3.5 if directed else 2.0)


def test_level_dicts_are_filled_level_by_level(np, bfs_gpu):
    """`_native.level_dict`, which fills the backend's dicts of lengths:
    every reached node once with its distance, the levels in order and
    each level's nodes in the graph's order; none where nothing is
    reached; a clear error where the nodes do not match."""
    from bfs_gpu._native import level_dict

    distances = np.array([2, -1, 0, 1, 2, 5, -1, 1], dtype=np.int32)
    nodes = ["a", ("b",), 3, "d", "e", "f", "g", "h"]
    found = level_dict(distances, nodes)
    assert list(found.items()) == [
        (3, 0),
        ("d", 1),
        ("h", 1),
        ("a", 2),
        ("e", 2),
        ("f", 5),
    ]
    assert list(level_dict(distances).items()) == [
        (2, 0),
        (3, 1),
        (7, 1),
        (0, 2),
        (4, 2),
        (5, 5),
    ]
    assert level_dict(np.array([-1, -1], dtype=np.int32)) == {}
    assert level_dict(np.array([], dtype=np.int32), []) == {}
    with pytest.raises(ValueError, match="3 distances for 2 nodes"):
        level_dict(distances[:3], ["a", "b"])
    with pytest.raises(ValueError, match="a distance of 2147483647 among 2 nodes"):
        level_dict(np.array([0, 2**31 - 1], dtype=np.int32))
