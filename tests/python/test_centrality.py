"""`bfs centrality` against networkx: closeness (wf_improved=True),
harmonic centrality, eccentricity and the distance histogram, on random,
directed and disconnected graphs, to 1e-12 relative; and `bfs --sources`'
distance matrix (.npy) against networkx's distances.

Run by `cargo xtask test` (which builds `bfs` and sets BFS_BINARY). Without
networkx or numpy the tests skip with a visible reason, except where the
environment variable CI is set: there they fail.
"""

import collections
import os
import pathlib
import re
import subprocess

import pytest
from helpers import named_graphs

REPO = pathlib.Path(__file__).resolve().parents[2]
RELATIVE = 1e-12


def bfs_binary():
    binary = os.environ.get("BFS_BINARY") or str(REPO / "target" / "debug" / "bfs")
    assert os.path.exists(binary), f"{binary} is missing: build it (cargo build --bin bfs)"
    return binary


def run_bfs(*arguments):
    """Runs bfs with `arguments`; returns its standard output."""
    done = subprocess.run(
        [bfs_binary(), *map(str, arguments)], capture_output=True, text=True
    )
    assert done.returncode == 0, f"bfs {' '.join(map(str, arguments))}: {done.stderr}"
    return done.stdout


def write_mtx(graph, path, nx):
    """`graph` (vertices 0..n-1) as Matrix Market: symmetric where undirected."""
    n = graph.number_of_nodes()
    directed = graph.is_directed()
    edges = [(u, v) for u, v in graph.edges() if directed or u >= v]
    if not directed:
        edges = [(max(u, v), min(u, v)) for u, v in graph.edges()]
    symmetry = "general" if directed else "symmetric"
    lines = [f"%%MatrixMarket matrix coordinate pattern {symmetry}", f"{n} {n} {len(edges)}"]
    lines += [f"{u + 1} {v + 1}" for u, v in edges]
    path.write_text("\n".join(lines) + "\n")


def close(got, want):
    return abs(got - want) <= RELATIVE * abs(want) if want else got == 0


def centrality(graph_file, measure, *options):
    """The per-vertex values `bfs centrality` writes, and what it printed."""
    output = graph_file.with_suffix(f".{measure}.txt")
    printed = run_bfs(
        "centrality", "--measure", measure, "--graph", graph_file,
        "--device", "cpu", "--output", output, *options,
    )
    return [line for line in output.read_text().split("\n") if line], printed


@pytest.fixture(scope="module")
def graph_files(nx, tmp_path_factory):
    folder = tmp_path_factory.mktemp("centrality")
    files = {}
    for index, (name, graph) in enumerate(named_graphs(nx).items()):
        path = folder / f"graph{index}.mtx"
        write_mtx(graph, path, nx)
        files[name] = (graph, path)
    return files


@pytest.mark.parametrize(
    "options",
    [
        (),
        ("--batch-width", "64"),
        ("--threads", "3"),
        ("--method", "source-parallel"),
        ("--method", "chains"),
        ("--method", "one-by-one"),
    ],
)
def test_closeness_is_networkxs_wasserman_faust_form(nx, graph_files, options):
    for name, (graph, path) in graph_files.items():
        want = nx.closeness_centrality(graph, wf_improved=True)
        got, _ = centrality(path, "closeness", *options)
        assert len(got) == graph.number_of_nodes(), name
        for vertex, value in enumerate(got):
            assert close(float(value), want[vertex]), (name, vertex, value, want[vertex])


def test_harmonic_centrality_is_networkxs(nx, graph_files):
    for name, (graph, path) in graph_files.items():
        want = nx.harmonic_centrality(graph)
        for method in ("bit-parallel", "source-parallel", "chains"):
            got, _ = centrality(path, "harmonic", "--batch-width", "64", "--method", method)
            for vertex, value in enumerate(got):
                assert close(float(value), want[vertex]), (name, vertex, value, want[vertex])


def test_eccentricity_radius_and_diameter_are_networkxs(nx, graph_files):
    for name, (graph, path) in graph_files.items():
        got, printed = centrality(path, "eccentricity")
        got = [int(value) for value in got]
        connected = (
            nx.is_strongly_connected(graph) if graph.is_directed() else nx.is_connected(graph)
        )
        if connected:
            want = nx.eccentricity(graph)
        else:
            # Where networkx refuses: the greatest distance to a vertex reached.
            want = {
                vertex: max(nx.single_source_shortest_path_length(graph, vertex).values())
                for vertex in graph
            }
        assert got == [want[vertex] for vertex in range(len(got))], name
        radius = int(re.search(r"radius:\s+(\d+)", printed).group(1))
        diameter, start, end = map(
            int, re.search(r"diameter:\s+(\d+) \(from vertex (\d+) to vertex (\d+)\)", printed).groups()
        )
        assert radius == min(want.values()) and diameter == max(want.values()), name
        assert nx.shortest_path_length(graph, start, end) == diameter, name
        if connected:
            assert (radius, diameter) == (nx.radius(graph), nx.diameter(graph)), name
        assert ("connected: no" in printed) == (not connected), name


def test_the_histogram_counts_networkxs_ordered_pairs(nx, graph_files):
    for name, (graph, path) in graph_files.items():
        want = collections.Counter(
            distance
            for _, lengths in nx.all_pairs_shortest_path_length(graph)
            for distance in lengths.values()
        )
        got, _ = centrality(path, "histogram", "--batch-width", "64")
        got = dict(tuple(map(int, line.split())) for line in got)
        assert got == dict(want), name


def test_a_depth_limit_makes_farther_vertices_unreachable(nx, graph_files):
    graph, path = graph_files["connected"]
    for limit in (0, 2, 5):
        lengths = {
            v: nx.single_source_shortest_path_length(graph, v, cutoff=limit) for v in graph
        }
        n = graph.number_of_nodes()
        got, _ = centrality(path, "closeness", "--depth-limit", limit)
        for vertex, value in enumerate(got):
            reached, total = len(lengths[vertex]) - 1, sum(lengths[vertex].values())
            want = (reached / total) * (reached / (n - 1)) if total else 0.0
            assert close(float(value), want), (limit, vertex, value, want)


def test_a_sample_of_every_vertex_gives_the_exact_values(nx, graph_files):
    for name, (graph, path) in graph_files.items():
        n = graph.number_of_nodes()
        for measure in ("closeness", "harmonic"):
            exact, _ = centrality(path, measure)
            sampled, printed = centrality(path, measure, "--sources", n, "--seed", 9)
            assert "estimates" in printed
            for vertex, (a, b) in enumerate(zip(exact, sampled)):
                assert close(float(b), float(a)), (name, measure, vertex, a, b)


def test_npy_values_and_the_distance_matrix_load_in_numpy(nx, np, graph_files):
    graph, path = graph_files["components, isolated, self loop"]
    values = path.with_suffix(".npy")
    run_bfs("centrality", "--measure", "closeness", "--graph", path, "--device", "cpu",
            "--output", values)
    got = np.load(values)
    want = nx.closeness_centrality(graph, wf_improved=True)
    assert got.dtype == np.float64 and got.shape == (graph.number_of_nodes(),)
    assert all(close(got[v], want[v]) for v in graph)
    sources = [0, 3, 41, 66, 12, 3]
    matrix = path.with_suffix(".matrix.npy")
    run_bfs("--graph", path, "--device", "cpu", "--sources", ",".join(map(str, sources)),
            "--output", matrix, "--verify")
    distances = np.load(matrix)
    assert distances.dtype == np.int32
    assert distances.shape == (len(sources), graph.number_of_nodes())
    for row, source in zip(distances, sources):
        lengths = nx.single_source_shortest_path_length(graph, source)
        assert list(row) == [lengths.get(v, -1) for v in range(graph.number_of_nodes())]
