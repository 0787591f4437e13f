"""Betweenness centrality and components against networkx: the package's
``Graph.betweenness``, ``edge_betweenness`` and ``components`` on the CPU
engine and on the GPU (where there is one), the backend's functions called
with ``backend="bfs_gpu"``, and ``bfs centrality --measure
betweenness|edge-betweenness`` and ``bfs components``, on random, directed,
disconnected and multi-edge graphs, to 1e-9 relative.

Run by `cargo xtask test` (the package's wheel installed first, BFS_BINARY
set), and on a GPU machine by the bundle's run-python-tests.sh (the GPU
required)."""

import random

import pytest
from helpers import named_graphs
from test_centrality import graph_files, run_bfs  # noqa: F401 (a fixture)

RELATIVE = 1e-9


def assert_close(got, want, what):
    """Every value of the dict ``got`` equals ``want``'s to 1e-9 relative
    (of the largest)."""
    assert set(got) == set(want), f"{what}: keys differ"
    scale = max([1.0] + [abs(value) for value in want.values() if value == value])
    for key, value in want.items():
        if value != value:
            assert got[key] != got[key], f"{what}: {key}: {got[key]} is no NaN, as networkx's"
            continue
        assert abs(got[key] - value) <= RELATIVE * scale, f"{what}: {key}: {got[key]} != {value}"


def as_graph(graph, bfs_gpu, device):
    """``graph`` (nodes 0..n-1) as a package Graph on ``device``."""
    import numpy as np

    n = graph.number_of_nodes()
    rows = [sorted(graph.adj[v]) for v in range(n)]
    indptr = np.cumsum([0] + [len(row) for row in rows])
    indices = np.array([w for row in rows for w in row], dtype=np.int64)
    return bfs_gpu.Graph((indptr, indices), device=device)


@pytest.fixture(scope="module")
def graphs(nx):
    # The backend's calls reuse each graph's conversion, as networkx says.
    nx.config.warnings_to_ignore.add("cache")
    made = dict(named_graphs(nx))
    multi = nx.MultiGraph(nx.gnp_random_graph(60, 0.08, seed=9))
    multi.add_edges_from([(0, 1), (0, 1), (5, 5), (2, 7)])
    made["multigraph"] = multi
    return made


@pytest.mark.parametrize("options", [{}, {"normalized": False}, {"endpoints": True}])
def test_graph_betweenness_is_networkx_s(graphs, nx, bfs_gpu, device, options):
    for name, graph in graphs.items():
        if graph.is_multigraph():
            continue
        g = as_graph(graph, bfs_gpu, device)
        got = g.betweenness(device=device, **options)
        want = nx.betweenness_centrality(graph, **options)
        assert_close(dict(enumerate(got.tolist())), want, f"{name} {options}")


def test_graph_edge_betweenness_is_networkx_s(graphs, nx, np, bfs_gpu, device):
    for name, graph in graphs.items():
        if graph.is_multigraph():
            continue
        g = as_graph(graph, bfs_gpu, device)
        values = g.edge_betweenness(device=device)
        indptr, indices = g.csr()
        tails = np.repeat(np.arange(g.vertex_count), np.diff(indptr))
        got = {}
        for tail, head, value in zip(tails.tolist(), indices.tolist(), values.tolist()):
            if graph.is_directed() or tail <= head:
                got[(tail, head)] = value
        want = {}
        for (u, v), value in nx.edge_betweenness_centrality(graph).items():
            if u != v:
                want[(u, v) if graph.is_directed() else (min(u, v), max(u, v))] = value
        assert_close(got, want, name)


def test_a_sample_s_betweenness_is_networkx_s(graphs, nx, np, bfs_gpu, device):
    graph = graphs["connected"]
    n = graph.number_of_nodes()
    g = as_graph(graph, bfs_gpu, device)
    # A sample of every vertex is every vertex, as networkx takes it.
    exact = nx.betweenness_centrality(graph)
    assert_close(dict(enumerate(g.betweenness(k=n, device=device).tolist())), exact, "k=n")
    for k in (1, 7, 64):
        estimate = g.betweenness(k=k, seed=3, device=device)
        assert estimate.shape == (n,) and not np.any(np.isinf(estimate))
        nx.config.backends.bfs_gpu.device = device
        # networkx's own draw of the sample, through the backend.
        got = nx.betweenness_centrality(graph, k=k, seed=random.Random(5), backend="bfs_gpu")
        want = nx.betweenness_centrality(graph, k=k, seed=random.Random(5))
        assert_close(got, want, f"k={k}")
        got = nx.edge_betweenness_centrality(graph, k=k, seed=5, backend="bfs_gpu")
        assert_close(got, nx.edge_betweenness_centrality(graph, k=k, seed=5), f"edges k={k}")
    nx.config.backends.bfs_gpu.device = "auto"


@pytest.mark.parametrize("strong", [False, True])
def test_graph_components_are_networkx_s(graphs, nx, np, bfs_gpu, device, strong):
    for name, graph in graphs.items():
        if graph.is_multigraph():
            continue
        if strong and not graph.is_directed():
            continue
        g = as_graph(graph, bfs_gpu, device)
        labels = g.components(strong=strong, device=device)
        if strong:
            want = nx.strongly_connected_components(graph)
        elif graph.is_directed():
            want = nx.weakly_connected_components(graph)
        else:
            want = nx.connected_components(graph)
        expected = np.empty(graph.number_of_nodes(), dtype=np.int64)
        for component in want:
            expected[list(component)] = min(component)
        assert labels.tolist() == expected.tolist(), name


def test_backend_betweenness_equals_networkx(graphs, nx):
    nx.config.backends.bfs_gpu.device = "auto"
    for name, graph in graphs.items():
        for k in (None, 5):
            got = nx.betweenness_centrality(graph, k=k, seed=1, backend="bfs_gpu")
            want = nx.betweenness_centrality(graph, k=k, seed=1)
            assert_close(got, want, f"{name} k={k}")
        got = nx.edge_betweenness_centrality(graph, backend="bfs_gpu")
        want = nx.edge_betweenness_centrality(graph)
        assert list(got) == list(want), f"{name}: networkx's edge keys, in its order"
        assert_close(got, want, name)


def test_backend_components_equal_networkx(graphs, nx):
    for name, graph in graphs.items():
        if graph.is_directed():
            pairs = [
                (nx.weakly_connected_components, nx.number_weakly_connected_components),
                (nx.strongly_connected_components, nx.number_strongly_connected_components),
            ]
            for components, number in pairs:
                got = [frozenset(c) for c in components(graph, backend="bfs_gpu")]
                want = [frozenset(c) for c in components(graph)]
                assert got == want, f"{name}: networkx's components in its order"
                assert number(graph, backend="bfs_gpu") == number(graph)
            for test in (nx.is_weakly_connected, nx.is_strongly_connected):
                assert test(graph, backend="bfs_gpu") == test(graph)
        else:
            got = [frozenset(c) for c in nx.connected_components(graph, backend="bfs_gpu")]
            assert got == [frozenset(c) for c in nx.connected_components(graph)], name
            assert nx.number_connected_components(
                graph, backend="bfs_gpu"
            ) == nx.number_connected_components(graph)
            assert nx.is_connected(graph, backend="bfs_gpu") == nx.is_connected(graph)
            node = next(iter(graph))
            assert nx.node_connected_component(
                graph, node, backend="bfs_gpu"
            ) == nx.node_connected_component(graph, node)


def test_the_command_line_s_betweenness_is_networkx_s(graph_files, nx, np, tmp_path):  # noqa: F811
    for name, (graph, path) in graph_files.items():
        for options, want in [
            ((), nx.betweenness_centrality(graph)),
            (("--raw",), nx.betweenness_centrality(graph, normalized=False)),
            (("--endpoints",), nx.betweenness_centrality(graph, endpoints=True)),
        ]:
            output = tmp_path / "betweenness.npy"
            printed = run_bfs(
                "centrality", "--measure", "betweenness", "--graph", path, "--output", output,
                *options,
            )
            got = np.load(output)
            assert_close(dict(enumerate(got.tolist())), want, f"{name} {options}")
            assert "betweenness:" in printed.splitlines()[-1]
        output = tmp_path / "edges.txt"
        run_bfs("centrality", "--measure", "edge-betweenness", "--graph", path, "--output", output)
        got = {}
        for line in output.read_text().splitlines():
            tail, head, value = line.split()
            got[(int(tail), int(head))] = float(value)
        want = {}
        for (u, v), value in nx.edge_betweenness_centrality(graph).items():
            if u != v:
                want[(u, v) if graph.is_directed() else (min(u, v), max(u, v))] = value
        assert_close(got, want, f"{name} edges")


def test_the_command_line_s_components_are_networkx_s(graph_files, nx, np, tmp_path):  # noqa: F811
    for name, (graph, path) in graph_files.items():
        for strong in (False, True):
            output = tmp_path / "labels.npy"
            arguments = ["components", "--graph", path, "--output", output]
            printed = run_bfs(*arguments, *(["--strong"] if strong else []))
            if strong and graph.is_directed():
                want = list(nx.strongly_connected_components(graph))
            elif graph.is_directed():
                want = list(nx.weakly_connected_components(graph))
            else:
                want = list(nx.connected_components(graph))
            labels = np.load(output)
            expected = np.empty(graph.number_of_nodes(), dtype=np.int64)
            for component in want:
                expected[list(component)] = min(component)
            assert labels.tolist() == expected.tolist(), f"{name} strong={strong}"
            assert f"components: {len(want)} " in printed, printed


def test_bad_input_gets_one_line(graph_files, tmp_path):  # noqa: F811
    import subprocess

    from test_centrality import bfs_binary

    _, path = graph_files["random"]
    for arguments, said in [
        (["centrality", "--measure", "betweenness", "--depth-limit", "3"], "--depth-limit"),
        (["centrality", "--measure", "betweenness", "--sources", "100000"], "more sources"),
        (["centrality", "--measure", "edge-betweenness", "--endpoints"], "--endpoints"),
        (["centrality", "--measure", "closeness", "--raw"], "--raw"),
        (["components", "--graph", str(tmp_path / "missing.mtx")], "missing.mtx"),
    ]:
        if "--graph" not in arguments:
            arguments += ["--graph", str(path)]
        done = subprocess.run([bfs_binary(), *arguments], capture_output=True, text=True)
        assert done.returncode != 0, arguments
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:") and said in lines[0], lines


def test_the_family_benchmark_writes_a_validated_section(tmp_path):
    """`python/benches/family.py` (BENCHMARKS.md's "The BFS family") on
    small graphs with the CPU engine: it runs to the end, writes its
    section with every row and every check passed, and leaves no
    incomplete mark. Its timings are not looked at."""
    import subprocess
    import sys

    from helpers import required
    from test_centrality import REPO, bfs_binary

    required("networkit")
    markdown = tmp_path / "family.md"
    small = ["--exact-graph", "gen:kron:8", "--sampled-graph", "gen:kron:9"]
    small += ["--weak-graph", "gen:kron:9", "--strong-graph", "gen:dkron:9"]
    small += ["--nx-graph", "gen:kron:9", "--check-graph", "gen:kron:7"]
    small += ["--sources", "64", "--nx-k", "50", "--peer-seconds", "10", "--nx-seconds", "1"]
    done = subprocess.run(
        [sys.executable, str(REPO / "python" / "benches" / "family.py"), "--bfs", bfs_binary()]
        + ["--device", "cpu", *small, "--markdown", str(markdown)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    section = markdown.read_text()
    assert section.startswith("## The BFS family")
    assert "Incomplete" not in section
    rows = [line for line in section.splitlines() if line.startswith("| gen:")]
    for graph in ("gen:kron:8 | every vertex", "gen:kron:9 | 64 sampled", "gen:kron:9 (weak)"):
        assert any(row.startswith(f"| {graph}") for row in rows), f"no row for {graph}"
    assert any(row.startswith("| gen:dkron:9 (strong)") for row in rows)
    checked = [row for row in rows if "yes:" in row]
    assert len(checked) >= 4, section
    assert "**NO**" not in section, section
