"""The "From Python" section of BENCHMARKS.md: what the bfs_gpu package
costs beside the command line, on a GPU.

1. Second and later searches on a resident graph: ``Graph.bfs`` (wall
   time, the result in numpy included) against the command line's
   per-search median (device time, ``bfs --sources 64 --json``), from the
   same sources, after ``prepare()`` (the command line plans for its 64
   searches).
2. A ``Graph`` from a scipy CSR matrix of 2^25 entries: with the graph
   made resident on the GPU, and the host's part alone (``device='cpu'``).
3. ``nx.single_source_shortest_path_length`` through the backend against
   networkx's own, on a graph of a million vertices (Kronecker 20); the
   conversion, paid once and cached by networkx, in its own column.

Usage: from_python.py --bfs BFS [--graph PATH|gen:SPEC]... [--markdown FILE]
                [--nx-graph gen:SPEC] [--no-networkx]
Run by ``cargo xtask bench --from-python``; on a GPU machine from the bundle
(the wheel installed): ``python3 bundle/python/from_python.py --bfs bundle/bfs ...``.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import bfs_gpu

from sections import command_line, cpu_name, short, write_section

HEADING = "## From Python"
SEARCHES = 64


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bfs", required=True, help="the bfs binary")
    parser.add_argument("--graph", action="append", default=[], help="graphs to search")
    parser.add_argument("--markdown", help="BENCHMARKS.md to write the section into")
    parser.add_argument("--nx-graph", default="gen:kron:20", help="the networkx comparison's graph")
    parser.add_argument("--no-networkx", action="store_true", help="leave out the networkx table")
    parser.add_argument("--entries", type=int, default=1 << 25, help="the scipy matrix's entries")
    arguments = parser.parse_args()
    graphs = arguments.graph or ["gen:kron:20"]
    try:
        device = bfs_gpu.gpu()
    except bfs_gpu.BfsError as error:
        device = f"none ({error}): the CPU engine, which checks the command, not the targets"
    lines = [
        HEADING,
        "",
        f"Written by `{command_line('from_python.py')}`. Device: **{device}**; CPU: {cpu_name()}, "
        f"{os.cpu_count()} hardware threads. Python {sys.version.split()[0]}, numpy "
        f"{np.__version__}.",
        "",
    ]
    lines += searches_table(arguments.bfs, graphs)
    lines += construction_table(arguments.entries)
    if not arguments.no_networkx:
        lines += networkx_table(arguments.nx_graph)
    section = "\n".join(lines) + "\n"
    print(section)
    if arguments.markdown:
        write_section(arguments.markdown, HEADING, section)






def median_ms(seconds):
    return 1e3 * statistics.median(seconds)


def searches_table(bfs, graphs):
    """Table 1: a resident graph's searches against the command line's."""
    rows = [
        "### Searches on a resident graph",
        "",
        f"{SEARCHES} searches from the sources `bfs --sources {SEARCHES}` draws, after a warm-up "
        "search. `bfs`: its per-search median device time (CUDA events), the command line's "
        "figure. Python: the median wall time of `Graph.bfs(source)`, the distances in numpy "
        "included, and of that the device's time and the copy back of the distances and "
        "parents (`Graph.last_run`). Target: within 20% or 50 µs, whichever is larger, of "
        "`bfs`'s median.",
        "",
        "| graph | bfs plan | bfs median ms | Python plan | Graph.bfs median ms | of which device ms "
        "| copy back ms | over bfs µs | target |",
        "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for name in graphs:
        with tempfile.TemporaryDirectory() as folder:
            report = os.path.join(folder, "run.json")
            subprocess.run(
                [bfs, "--graph", name, "--sources", str(SEARCHES), "--json", report],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            with open(report, encoding="utf-8") as file:
                run = json.load(file)
        sources = [search["source"] for search in run["searches"]]
        cli = run["statistics"]["median_ms"]
        graph = bfs_gpu.Graph(name)
        graph.prepare()
        graph.bfs(sources[0])
        walls, device, download = [], [], []
        for source in sources:
            started = time.perf_counter()
            graph.bfs(source)
            walls.append(time.perf_counter() - started)
            device.append(graph.last_run["search_seconds"])
            download.append(graph.last_run["download_seconds"])
        plan = graph.last_run["plan"]
        graph.close()
        wall = median_ms(walls)
        over = 1e3 * (wall - cli)
        allowed = max(0.2 * cli, 0.05)
        verdict = "met" if wall - cli <= allowed else "missed"
        rows.append(
            f"| {short(name)} | {strategy(run['plan'])} | {cli:.3f} | {strategy(plan)} | "
            f"{wall:.3f} | {median_ms(device):.3f} | {median_ms(download):.3f} | {over:+.0f} | "
            f"≤ {cli + allowed:.3f} ms: "
            f"{verdict} |"
        )
    return rows + [""]


def construction_table(entries):
    """Table 2: a Graph from a scipy CSR matrix."""
    import scipy.sparse

    n = 1 << 21
    rng = np.random.default_rng(1)
    tails = rng.integers(0, n, entries // 2, dtype=np.int32)
    heads = rng.integers(0, n, entries // 2, dtype=np.int32)
    heads = np.where(heads == tails, (heads + 1) % n, heads).astype(np.int32)
    rows = np.concatenate([tails, heads])
    columns = np.concatenate([heads, tails])
    matrix = scipy.sparse.csr_array(
        (np.ones(len(rows), dtype=np.float32), (rows, columns)), shape=(n, n)
    )
    matrix.sum_duplicates()
    resident, host = [], []
    for _ in range(3):
        started = time.perf_counter()
        graph = bfs_gpu.Graph(matrix)
        resident.append(time.perf_counter() - started)
        graph.close()
        started = time.perf_counter()
        graph = bfs_gpu.Graph(matrix, device="cpu")
        host.append(time.perf_counter() - started)
        graph.close()
    best = statistics.median(resident)
    return [
        "### A Graph from scipy",
        "",
        f"`bfs_gpu.Graph(A)` for a scipy CSR array of {matrix.nnz} entries (float32, "
        f"{n} vertices, undirected, rows sorted: a uniform random graph), the device "
        "opened before; median of 3. Resident: the copy into the library's CSR, its "
        "checks, `auto`'s plan and the upload. Host: `device='cpu'`, the copy and "
        "checks alone. Target: ≤ 0.2 s, resident.",
        "",
        "| entries | resident s | host s | target |",
        "| ---: | ---: | ---: | --- |",
        f"| {matrix.nnz} | {best:.3f} | {statistics.median(host):.3f} | ≤ 0.2 s: "
        f"{'met' if best <= 0.2 else 'missed'} |",
        "",
    ]


def networkx_table(name):
    """Table 3: networkx's single-source lengths, its own and the backend's."""
    import networkx as nx
    import scipy.sparse

    from bfs_gpu import networkx_backend

    nx.config.warnings_to_ignore.add("cache")
    graph = bfs_gpu.Graph(name)
    indptr, indices = graph.csr()
    graph.close()
    n = len(indptr) - 1
    matrix = scipy.sparse.csr_array(
        (np.ones(len(indices), dtype=np.int8), indices, indptr), shape=(n, n)
    )
    G = nx.from_scipy_sparse_array(matrix)
    degrees = np.diff(indptr)
    source = int(np.argmax(degrees))
    started = time.perf_counter()
    converted = networkx_backend.convert_from_nx(G)
    converted.native()
    conversion = time.perf_counter() - started
    own, backend = [], []
    for _ in range(3):
        started = time.perf_counter()
        expected = nx.single_source_shortest_path_length(G, source)
        own.append(time.perf_counter() - started)
    # The first call converts the graph and caches it on G; time the rest.
    found = nx.single_source_shortest_path_length(G, source, backend="bfs_gpu")
    for _ in range(5):
        started = time.perf_counter()
        found = nx.single_source_shortest_path_length(G, source, backend="bfs_gpu")
        backend.append(time.perf_counter() - started)
    assert found == expected, "the backend's lengths differ from networkx's"
    speedup = statistics.median(own) / statistics.median(backend)
    return [
        "### networkx through the backend",
        "",
        f"`nx.single_source_shortest_path_length(G, source)` on {short(name)} ({n} vertices, "
        f"{G.number_of_edges()} edges, from its vertex of largest degree, {len(found)} "
        "reached): networkx's own (median of 3) and through `backend='bfs_gpu'` with the "
        "converted graph cached on G (median of 5), the dict of lengths included; the "
        "conversion (`convert_from_nx` and the upload) once, apart. Target: ≥ 100×.",
        "",
        "| graph | networkx s | backend s | speed-up | conversion s (once) | target |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
        f"| {short(name)} | {statistics.median(own):.3f} | {statistics.median(backend):.4f} | "
        f"{speedup:.0f}× | {conversion:.2f} | ≥ 100×: {'met' if speedup >= 100 else 'missed'} |",
        "",
    ]




def strategy(plan):
    """The strategy a plan line names: what follows "took", or the variant."""
    if plan.startswith(("CPU", "no CUDA device")):
        return "CPU"
    for marker in ("auto took ", "variant "):
        if marker in plan:
            return plan.split(marker, 1)[1].split(":")[0].split(" (")[0].split(";")[0]
    return plan.split(";")[0]




if __name__ == "__main__":
    main()
