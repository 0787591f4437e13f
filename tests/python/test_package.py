"""The bfs_gpu package against scipy.sparse.csgraph and networkx: distances
and BFS trees from one source and from many, closeness, harmonic
centrality and eccentricity, on random, directed and disconnected graphs,
on the CPU engine and on the GPU (where there is one); every way a Graph
is made; and bad input, which must raise one line, never crash.

Run by `cargo xtask test` (the package's wheel installed first), and on a
GPU machine by the bundle's run-python-tests.sh (the GPU required)."""

import gc
import os
import subprocess
import sys
import threading
import time

import pytest
from helpers import named_graphs, require_gpu

RELATIVE = 1e-12


def matrix_of(graph, nx, scipy):
    """A networkx graph (nodes 0..n-1) as a scipy CSR array."""
    nodes = sorted(graph)
    return scipy.sparse.csr_array(nx.to_scipy_sparse_array(graph, nodelist=nodes, format="csr"))


def csgraph_distances(matrix, sources, np, scipy):
    """scipy's unweighted distances from `sources`, -1 where unreached."""
    found = scipy.sparse.csgraph.shortest_path(
        matrix, directed=True, unweighted=True, indices=sources
    )
    return np.where(np.isinf(found), -1, found).astype(np.int32)


@pytest.fixture(scope="module")
def graphs(nx, scipy, bfs_gpu):
    """The named test graphs as scipy matrices, plus a larger random one."""
    made = {name: matrix_of(graph, nx, scipy) for name, graph in named_graphs(nx).items()}
    made["random, 3000 vertices"] = scipy.sparse.random_array(
        (3000, 3000), density=0.001, format="csr", random_state=7
    )
    return made


def check_tree(matrix, source, distances, parents, np):
    """Graph500's rules: the source is its own parent, each reached
    vertex's parent one level nearer along an edge of the graph, and no
    parent where unreached."""
    assert parents[source] == source
    reached = np.flatnonzero(distances >= 0)
    assert np.all(parents[distances < 0] == -1)
    others = reached[reached != source]
    assert np.all(distances[parents[others]] == distances[others] - 1)
    rows = matrix.tocsr()
    for vertex in others:
        parent = parents[vertex]
        assert vertex in rows.indices[rows.indptr[parent] : rows.indptr[parent + 1]]


def test_distances_and_trees_are_scipys(graphs, device, np, scipy, bfs_gpu):
    for name, matrix in graphs.items():
        graph = bfs_gpu.Graph(matrix, device=device)
        n = matrix.shape[0]
        for source in sorted({0, n // 2, n - 1}):
            want = csgraph_distances(matrix, source, np, scipy)
            distances, parents = graph.bfs(source, parents=True, device=device)
            assert distances.dtype == np.int32 and parents.dtype == np.int32
            assert np.array_equal(distances, want), (name, source)
            check_tree(matrix, source, distances, parents, np)
            assert np.array_equal(graph.bfs(source, device=device), want)
        graph.close()


def test_a_depth_limit_leaves_farther_vertices_unreached(graphs, device, np, scipy, bfs_gpu):
    matrix = graphs["connected"]
    graph = bfs_gpu.Graph(matrix, device=device)
    full = csgraph_distances(matrix, 3, np, scipy)
    for limit in (0, 1, 4):
        want = np.where(full <= limit, full, -1)
        distances, parents = graph.bfs(3, parents=True, depth_limit=limit, device=device)
        assert np.array_equal(distances, want)
        check_tree(matrix, 3, distances, parents, np)


def test_many_sources_are_scipys_matrix(graphs, device, np, scipy, bfs_gpu):
    for name, matrix in graphs.items():
        n = matrix.shape[0]
        sources = [0, n - 1, 0, n // 3]
        graph = bfs_gpu.Graph(matrix, device=device)
        found = graph.bfs_many(sources, device=device)
        assert found.shape == (len(sources), n) and found.dtype == np.int32
        assert np.array_equal(found, csgraph_distances(matrix, sources, np, scipy)), name
        limited = graph.bfs_many(np.array(sources), depth_limit=2, device=device)
        assert np.array_equal(limited, np.where(found <= 2, found, -1))
        assert graph.bfs_many([], device=device).shape == (0, n)


def close(got, want):
    return abs(got - want) <= RELATIVE * abs(want) if want else got == 0


def test_centrality_and_eccentricity_are_networkxs(nx, np, scipy, bfs_gpu, device):
    for name, graph in named_graphs(nx).items():
        n = graph.number_of_nodes()
        matrix = nx.to_scipy_sparse_array(graph, nodelist=range(n), format="csr")
        native = bfs_gpu.Graph(matrix, device=device)
        closeness = native.closeness(device=device)
        want = nx.closeness_centrality(graph)
        assert all(close(closeness[v], want[v]) for v in range(n)), name
        harmonic = native.harmonic(device=device)
        want = nx.harmonic_centrality(graph)
        assert all(close(harmonic[v], want[v]) for v in range(n)), name
        # The greatest distance to a vertex each reaches (networkx refuses
        # graphs that are not strongly connected).
        lengths = dict(nx.all_pairs_shortest_path_length(graph))
        want = [max(lengths[v].values()) for v in range(n)]
        assert native.eccentricity(device=device).tolist() == want, name
        # A sample of every vertex is every vertex: the estimate is exact.
        sampled = native.closeness(sources=n, device=device)
        assert all(close(sampled[v], closeness[v]) for v in range(n)), name


def test_sums_per_source_and_per_vertex(graphs, device, np, scipy, bfs_gpu):
    matrix = graphs["directed"]
    graph = bfs_gpu.Graph(matrix, device=device)
    sources = [5, 1, 5, 60]
    found = csgraph_distances(matrix, sources, np, scipy)
    sums = graph.sums(sources, device=device)
    assert sums["sources"].tolist() == sources
    assert sums["reached"].tolist() == (found >= 0).sum(axis=1).tolist()
    assert sums["distance_sum"].tolist() == np.where(found >= 0, found, 0).sum(axis=1).tolist()
    assert sums["eccentricity"].tolist() == found.max(axis=1).tolist()
    assert sums["reached_by"].tolist() == (found >= 0).sum(axis=0).tolist()
    inverse = np.where(found > 0, 1.0 / np.maximum(found, 1), 0.0).sum(axis=0)
    assert np.allclose(sums["reciprocal_sums"], inverse, rtol=RELATIVE, atol=0)
    every = graph.sums(totals=False, device=device)
    assert sorted(every["sources"].tolist()) == list(range(matrix.shape[0]))
    assert "reached_by" not in every


def test_every_input_makes_the_same_graph(tmp_path, np, scipy, bfs_gpu):
    matrix = scipy.sparse.random_array((500, 500), density=0.01, format="csr", random_state=3)
    want = csgraph_distances(matrix, 0, np, scipy)
    rows = matrix.tocsr()
    # Rows unsorted, a repeat and a self loop in each: the same graph.
    indptr, indices = rows.indptr, rows.indices
    messy_rows = []
    for vertex in range(500):
        row = list(indices[indptr[vertex] : indptr[vertex + 1]])[::-1]
        messy_rows.append(row + row[:1] + [vertex])
    messy_indptr = np.cumsum([0] + [len(row) for row in messy_rows])
    messy_indices = np.concatenate([np.array(row, dtype=np.int64) for row in messy_rows])
    import scipy.io

    path = tmp_path / "graph.mtx"
    scipy.io.mmwrite(str(path), scipy.sparse.coo_matrix(matrix))
    inputs = {
        "csr": matrix,
        "csc": matrix.tocsc(),
        "coo": matrix.tocoo(),
        "csr_matrix": scipy.sparse.csr_matrix(matrix),
        "int32 arrays": (indptr.astype(np.int32), indices.astype(np.int32)),
        "int64 arrays": (indptr.astype(np.int64), indices.astype(np.int64)),
        "uint32 lists": (indptr.astype(np.uint32), list(indices)),
        "messy rows": (messy_indptr, messy_indices),
        "file": path,
        "file name": str(path),
    }
    for name, source in inputs.items():
        graph = bfs_gpu.Graph(source, device="cpu")
        assert np.array_equal(graph.bfs(0), want), name
        back_indptr, back_indices = graph.csr()
        assert np.array_equal(back_indptr, rows.indptr) and np.array_equal(
            back_indices, rows.indices
        ), name
    assert (bfs_gpu.Graph(matrix).to_scipy() != (matrix != 0)).nnz == 0


def test_explicit_zeros_are_edges_as_scipy_takes_them(np, scipy, bfs_gpu):
    values = np.array([0.0, 2.5, 0.0])
    matrix = scipy.sparse.csr_array(
        (values, np.array([1, 2, 3]), np.array([0, 1, 2, 3, 3])), shape=(4, 4)
    )
    assert np.array_equal(bfs_gpu.Graph(matrix).bfs(0), csgraph_distances(matrix, 0, np, scipy))
    assert bfs_gpu.Graph(matrix).bfs(0).tolist() == [0, 1, 2, 3]
    matrix.eliminate_zeros()
    assert bfs_gpu.Graph(matrix).bfs(0).tolist() == [0, -1, -1, -1]


def test_generated_graphs_follow_their_seed(np, bfs_gpu):
    first = bfs_gpu.Graph("gen:kron:10", seed=4).csr()
    again = bfs_gpu.Graph("gen:kron:10", seed=4).csr()
    other = bfs_gpu.Graph("gen:kron:10", seed=5).csr()
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[1], other[1])
    graph = bfs_gpu.Graph("gen:grid:30x30:0")
    assert (graph.vertex_count, graph.edge_count, graph.directed) == (900, 3480, False)


def one_line(error):
    text = str(error.value)
    assert text and "\n" not in text, repr(text)
    return text


def test_bad_input_raises_one_line(tmp_path, np, scipy, bfs_gpu):
    graph = bfs_gpu.Graph((np.array([0, 1, 2, 2]), np.array([1, 2])))
    for source in (3, -1, 2**40):
        with pytest.raises(ValueError) as error:
            graph.bfs(source)
        assert one_line(error).startswith(f"source {source} is out of range")
    with pytest.raises(ValueError) as error:
        graph.bfs_many([0, 7])
    assert "source 7 is out of range: the graph has 3 vertices" in one_line(error)
    with pytest.raises(TypeError):
        graph.bfs(1.5)
    cases = {
        "non-square": lambda: bfs_gpu.Graph(scipy.sparse.csr_array((3, 4))),
        "negative index": lambda: bfs_gpu.Graph((np.array([0, 1, 2]), np.array([1, -1]))),
        "index past n": lambda: bfs_gpu.Graph((np.array([0, 1, 2]), np.array([1, 2]))),
        "offsets past the indices": lambda: bfs_gpu.Graph((np.array([0, 1, 3]), np.array([1]))),
        "decreasing offsets": lambda: bfs_gpu.Graph((np.array([0, 2, 1, 2]), np.array([1, 2]))),
        "float indices": lambda: bfs_gpu.Graph((np.array([0, 1]), np.array([0.5]))),
        "two-dimensional": lambda: bfs_gpu.Graph((np.zeros((2, 2), dtype=int), np.array([0]))),
        "bad variant": lambda: graph.bfs(0, variant="fastest"),
        "bad device": lambda: graph.bfs(0, device="tpu"),
        "negative depth limit": lambda: graph.bfs(0, depth_limit=-1),
        "no parents": lambda: graph.bfs(0, parents=True, variant="two-kernel"),
        "bad generator": lambda: bfs_gpu.Graph("gen:kron:x"),
        "bad sample": lambda: graph.closeness(sources=0),
        "bad sources": lambda: graph.harmonic(sources="some"),
    }
    for name, make in cases.items():
        with pytest.raises(ValueError) as error:
            make()
        one_line(error)
    malformed = tmp_path / "bad.mtx"
    malformed.write_text("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 9\n")
    with pytest.raises(ValueError) as error:
        bfs_gpu.Graph(malformed)
    assert str(malformed) in one_line(error)
    with pytest.raises(FileNotFoundError) as error:
        bfs_gpu.Graph(tmp_path / "missing.mtx")
    one_line(error)
    with pytest.raises(TypeError):
        bfs_gpu.Graph(42)
    graph.close()
    with pytest.raises(bfs_gpu.BfsError) as error:
        graph.bfs(0)
    assert one_line(error) == "the graph is closed"


def test_what_does_not_fit_host_memory_is_a_memory_error(monkeypatch, np, bfs_gpu):
    graph = bfs_gpu.Graph("gen:path:1000")
    monkeypatch.setenv("BFS_HOST_MEMORY", "1000")
    with pytest.raises(MemoryError) as error:
        graph.bfs_many(np.arange(1000))
    assert "the distance matrix needs" in one_line(error)
    with pytest.raises(MemoryError) as error:
        bfs_gpu.Graph("gen:kron:12")
    assert one_line(error).startswith("graph too large")


def run_python(code, **environment):
    """Runs `code` in a fresh interpreter; returns its standard output."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **environment},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_importing_loads_nothing_heavy_nor_cuda(bfs_gpu):
    printed = run_python(
        "import sys, bfs_gpu, bfs_gpu.networkx_info as info\n"
        "info.get_info()\n"
        "print(sorted(m for m in ('numpy', 'networkx', 'bfs_gpu._native') if m in sys.modules))"
    )
    assert printed.strip() == "[]"
    # Without the driver (or with no GPU) it searches on the CPU, and says
    # why where the GPU is asked for.
    printed = run_python(
        "import bfs_gpu\n"
        "graph = bfs_gpu.Graph('gen:kron:8')\n"
        "print(graph.bfs(0)[:3].tolist(), graph.last_run['device'].split(' ')[0])\n"
        "try:\n"
        "    bfs_gpu.Graph('gen:kron:8', device='gpu')\n"
        "except bfs_gpu.BfsError as error:\n"
        "    print(error)\n",
        BFS_CUDA_LIBRARY="/nonexistent/libcuda.so.1",
    )
    searched, refused = printed.strip().split("\n")
    assert searched.endswith("CPU") and refused.startswith("no CUDA device")


def test_searches_release_the_gil(np, bfs_gpu):
    graph = bfs_gpu.Graph("gen:kron:15", device="cpu")
    started = threading.Event()
    done = threading.Event()

    def search():
        started.set()
        graph.bfs_many(np.arange(512), device="cpu")
        done.set()

    interval = sys.getswitchinterval()
    # The GIL now passes only where a thread lets it go.
    sys.setswitchinterval(1000)
    try:
        thread = threading.Thread(target=search)
        thread.start()
        started.wait()
        turns = 0
        while not done.is_set():
            turns += 1
            time.sleep(0)
        thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert turns > 0


def test_gpu_variants_equal_the_cpu_engine(graphs, np, scipy, bfs_gpu):
    require_gpu(bfs_gpu)
    names = [name for name, _ in bfs_gpu.variants()]
    for name in ("random", "components, isolated, self loop", "directed", "random, 3000 vertices"):
        matrix = graphs[name]
        graph = bfs_gpu.Graph(matrix, device="gpu")
        want = csgraph_distances(matrix, 1, np, scipy)
        for variant in names:
            parents = variant != "two-kernel"
            try:
                found = graph.bfs(1, parents=parents, variant=variant, device="gpu")
            except bfs_gpu.BfsError as error:
                # on-chip, on a GPU without thread-block clusters.
                assert "thread-block clusters" in str(error), (variant, error)
                continue
            distances = found[0] if parents else found
            assert np.array_equal(distances, want), (name, variant)
            if parents:
                check_tree(matrix, 1, distances, found[1], np)
            assert graph.last_run["device"] == bfs_gpu.gpu().split(" (")[0], variant
        graph.close()


def test_arrays_held_keep_their_values_while_freed_ones_are_reused(graphs, np, scipy, bfs_gpu):
    """A search's arrays borrow the locked vectors the GPU copied them into,
    which go back to it as numpy frees them, for later searches to copy
    into: an array still held is never written again, a freed one's memory
    serves the next search."""
    require_gpu(bfs_gpu)
    matrix = graphs["random, 3000 vertices"]
    graph = bfs_gpu.Graph(matrix, device="gpu")
    n = matrix.shape[0]
    held, freed = [], set()
    # No other test's array freed by the collector in the loop.
    gc.disable()
    try:
        for turn in range(40):
            source = (turn * 577) % n
            distances, parents = graph.bfs(source, parents=True, device="gpu")
            assert np.array_equal(distances, csgraph_distances(matrix, source, np, scipy)), source
            check_tree(matrix, source, distances, parents, np)
            # The last array freed came back for this search.
            assert not freed or distances.ctypes.data in freed, source
            only = graph.bfs(source, device="gpu")
            assert np.array_equal(only, distances), source
            freed = {only.ctypes.data}
            if turn % 7 == 0:
                held.append((source, distances, parents))
            else:
                freed |= {distances.ctypes.data, parents.ctypes.data}
            del distances, parents, only
    finally:
        gc.enable()
    for source, distances, parents in held:
        assert np.array_equal(distances, csgraph_distances(matrix, source, np, scipy)), source
        check_tree(matrix, source, distances, parents, np)
    graph.close()
    # Freed after the graph: the vectors go back to the device all the same.
    del held


def test_prepared_road_graphs_search_alike(np, bfs_gpu, device):
    graph = bfs_gpu.Graph("gen:road:3000", device=device)
    before = graph.bfs_many([0, 17, 999], device=device)
    done = graph.prepare(device=device)
    assert "contraction hierarchy" in done or "ghost zones" in done, done
    after = np.stack([graph.bfs(s, device=device) for s in (0, 17, 999)])
    assert np.array_equal(before, after)
    if device == "gpu":
        assert "prepared" in graph.last_run["plan"], graph.last_run


def test_a_graph_too_large_for_the_gpu_is_a_memory_error(np, bfs_gpu):
    require_gpu(bfs_gpu)
    import ctypes

    cuda = ctypes.CDLL(os.environ.get("BFS_CUDA_LIBRARY", "libcuda.so.1"))
    context, device, pointer = ctypes.c_void_p(), ctypes.c_int(), ctypes.c_uint64()
    free, total = ctypes.c_size_t(), ctypes.c_size_t()
    assert cuda.cuInit(0) == 0 and cuda.cuDeviceGet(ctypes.byref(device), 0) == 0
    assert cuda.cuCtxCreate_v2(ctypes.byref(context), 0, device) == 0
    try:
        assert cuda.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total)) == 0
        # Leave 16 MiB free: less than the graph's CSR alone.
        assert cuda.cuMemAlloc_v2(ctypes.byref(pointer), ctypes.c_size_t(free.value - (16 << 20))) == 0
        with pytest.raises(MemoryError) as error:
            bfs_gpu.Graph("gen:uniform:1000000:2000000", device="gpu")
        assert one_line(error).startswith("graph too large for the GPU")
        cuda.cuMemFree_v2(pointer)
    finally:
        cuda.cuCtxDestroy_v2(context)
