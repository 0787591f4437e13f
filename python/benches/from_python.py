"""The "From Python" section of BENCHMARKS.md: what the bfs_gpu package
costs beside the command line, on a GPU; with ``--before``, an earlier
build measured by the same code in the same run.

1. Searches on a resident graph: ``Graph.bfs(source)`` (wall time, the
   result in numpy included), with and without parents, against the
   command line's per-search median (device time, ``bfs --sources 64
   --json``) from the same sources, after ``prepare()`` (the command line
   plans for its 64 searches, so both run the same variant).
2. ``Graph.closeness()`` on the resident graph: its first call, and the
   median of the three after.
3. A ``Graph`` from a canonical scipy CSR matrix of 2^25 entries (int32
   indices, rows sorted, no repeats): made resident on the GPU, and the
   host's part alone (``device='cpu'``).
4. ``nx.single_source_shortest_path_length`` on a 1000×1000 grid: networkx's
   own, through the backend (the converted graph cached on G), and the
   floor of any dict of that answer, ``dict(zip(nodes, lengths))`` from
   ready lists, in the same process; with the grid's (row, column) nodes
   and with integer ones.

Usage: from_python.py --bfs BFS [--graph PATH|gen:SPEC]... [--markdown FILE]
                [--before DIR] [--grid SIDE] [--entries N]
DIR holds an earlier build: its ``bfs`` and, in ``DIR/site``, its wheel
installed (``pip install --no-deps --target DIR/site``).
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

HEADING = "## From Python"
SEARCHES = 64
CLOSENESS_CALLS = 3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bfs", required=True, help="the bfs binary")
    parser.add_argument("--graph", action="append", default=[], help="graphs to search")
    parser.add_argument("--markdown", help="BENCHMARKS.md to write the section into")
    parser.add_argument("--before", help="an earlier build's folder: bfs, and site/ its wheel")
    parser.add_argument("--grid", type=int, default=1000, help="the networkx grid's side")
    parser.add_argument("--entries", type=int, default=1 << 25, help="the scipy matrix's entries")
    parser.add_argument("--measure-json", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    arguments.graph = arguments.graph or ["gen:kron:20"]
    if arguments.measure_json:
        with open(arguments.measure_json, "w", encoding="utf-8") as file:
            json.dump(measure(arguments), file)
        return
    before = None
    if arguments.before:
        before = measure_before(arguments)
    after = measure(arguments)
    section = markdown(arguments, after, before)
    print(section)
    if arguments.markdown:
        from sections import write_section

        write_section(arguments.markdown, HEADING, section)


def measure_before(arguments):
    """The same measurements by the earlier build, in a process of its own
    that imports its package."""
    folder = os.path.abspath(arguments.before)
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "before.json")
        command = [sys.executable, os.path.abspath(__file__), "--bfs", os.path.join(folder, "bfs")]
        for name in arguments.graph:
            command += ["--graph", name]
        command += ["--grid", str(arguments.grid), "--entries", str(arguments.entries)]
        command += ["--measure-json", out]
        environment = dict(os.environ, PYTHONPATH=os.path.join(folder, "site"))
        subprocess.run(command, check=True, env=environment)
        with open(out, encoding="utf-8") as file:
            return json.load(file)


def measure(arguments):
    """Every figure the section shows, in seconds, for the package imported."""
    import bfs_gpu

    try:
        device = bfs_gpu.gpu()
    except bfs_gpu.BfsError as error:
        device = f"none ({error}): the CPU engine, which checks the command, not the targets"
    return {
        "device": device,
        "numpy": np.__version__,
        "searches": [resident(arguments.bfs, name) for name in arguments.graph],
        "scipy": from_scipy(arguments.entries),
        "networkx": [lengths(arguments.grid, integers) for integers in (False, True)],
    }


def resident(bfs, name):
    """Table 1 and 2's figures for one graph."""
    import bfs_gpu

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
    graph = bfs_gpu.Graph(name)
    graph.prepare()
    graph.bfs(sources[0], parents=True)
    figures = {"graph": name, "cli_ms": run["statistics"]["median_ms"], "cli_plan": run["plan"]}
    for parents in (False, True):
        walls, device, download = [], [], []
        for source in sources:
            started = time.perf_counter()
            graph.bfs(source, parents=parents)
            walls.append(time.perf_counter() - started)
            device.append(graph.last_run["search_seconds"])
            download.append(graph.last_run["download_seconds"])
        key = "parents" if parents else "distances"
        figures[key] = {
            "wall": statistics.median(walls),
            "device": statistics.median(device),
            "download": statistics.median(download),
            "plan": graph.last_run["plan"],
        }
    started = time.perf_counter()
    values = graph.closeness()
    first = time.perf_counter() - started
    later = []
    for _ in range(CLOSENESS_CALLS):
        started = time.perf_counter()
        again = graph.closeness()
        later.append(time.perf_counter() - started)
    assert np.array_equal(values, again), "closeness differs between calls"
    figures["closeness"] = {"first": first, "later": statistics.median(later)}
    graph.close()
    return figures


def from_scipy(entries):
    """Table 3's figures: a canonical CSR of `entries` entries."""
    import scipy.sparse

    import bfs_gpu

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
    matrix.indices = matrix.indices.astype(np.int32)
    matrix.indptr = matrix.indptr.astype(np.int32)
    bfs_gpu.Graph(matrix).close()
    resident_seconds, host_seconds = [], []
    for _ in range(3):
        started = time.perf_counter()
        graph = bfs_gpu.Graph(matrix)
        resident_seconds.append(time.perf_counter() - started)
        graph.close()
        started = time.perf_counter()
        graph = bfs_gpu.Graph(matrix, device="cpu")
        host_seconds.append(time.perf_counter() - started)
        graph.close()
    return {
        "entries": int(matrix.nnz),
        "vertices": n,
        "resident": statistics.median(resident_seconds),
        "host": statistics.median(host_seconds),
    }


def lengths(side, integers):
    """Table 4's figures: networkx's own, the backend's and the dict floor
    on a side × side grid."""
    import networkx as nx

    nx.config.warnings_to_ignore.add("cache")
    G = nx.grid_2d_graph(side, side)
    source = (side // 2, side // 2)
    if integers:
        # Relabelled in the grid's node order, row by row.
        G = nx.convert_node_labels_to_integers(G)
        source = source[0] * side + source[1]
    own = []
    for _ in range(2):
        started = time.perf_counter()
        expected = nx.single_source_shortest_path_length(G, source)
        own.append(time.perf_counter() - started)
    started = time.perf_counter()
    found = nx.single_source_shortest_path_length(G, source, backend="bfs_gpu")
    first = time.perf_counter() - started
    assert found == expected, "the backend's lengths differ from networkx's"
    backend = []
    for _ in range(5):
        started = time.perf_counter()
        nx.single_source_shortest_path_length(G, source, backend="bfs_gpu")
        backend.append(time.perf_counter() - started)

    def floor(answer):
        nodes, values = list(answer), list(answer.values())
        seconds = []
        for _ in range(5):
            started = time.perf_counter()
            dict(zip(nodes, values))
            seconds.append(time.perf_counter() - started)
        return statistics.median(seconds)

    return {
        "nodes": "integers" if integers else "(row, column) tuples",
        "vertices": G.number_of_nodes(),
        "own": statistics.median(own),
        "backend": statistics.median(backend),
        "first": first,
        "floor": floor(expected),
        # The same from the backend's answer: its order and its keys.
        "level_floor": floor(found),
    }


def markdown(arguments, after, before):
    from sections import command_line, cpu_name, short

    def earlier(path, show):
        """The earlier build's figure at `path` (keys), shown by `show`."""
        value = before
        for key in path:
            if value is None:
                return "-"
            value = value[key] if isinstance(key, int) else value.get(key)
        return "-" if value is None else show(value)

    ms = lambda seconds: f"{1e3 * seconds:.3f}"  # noqa: E731
    s = lambda seconds: f"{seconds:.3f}"  # noqa: E731
    lines = [
        HEADING,
        "",
        f"Written by `{command_line('from_python.py')}`. Device: **{after['device']}**; CPU: "
        f"{cpu_name()}, {os.cpu_count()} hardware threads. Python {sys.version.split()[0]}, "
        f"numpy {after['numpy']}."
        + (
            " *Before*: the earlier build given with `--before`, measured by this script in a "
            "process of its own in the same run."
            if before
            else ""
        ),
        "",
        "### Searches on a resident graph",
        "",
        f"{SEARCHES} searches from the sources `bfs --sources {SEARCHES}` draws, after "
        "`prepare()` and a warm-up search. `bfs`: its per-search median device time (CUDA "
        "events), the command line's figure. Python: the median wall time of "
        "`Graph.bfs(source)` and of `Graph.bfs(source, parents=True)`, the arrays in numpy "
        "included, and of that the copy back (`Graph.last_run`). Targets: within 20% or 50 µs "
        "of `bfs`'s median, whichever is larger; with parents, 20% or 80 µs.",
        "",
        "| graph | plan | bfs median ms | asked for | Graph.bfs ms | before ms "
        "| of which copy back ms | before ms | over bfs µs | target |",
        "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for index, figures in enumerate(after["searches"]):
        cli = figures["cli_ms"] / 1e3
        for key, slack in (("distances", 50e-6), ("parents", 80e-6)):
            run = figures[key]
            allowed = max(0.2 * cli, slack)
            over = run["wall"] - cli
            verdict = "met" if over <= allowed else "missed"
            lines.append(
                f"| {short(figures['graph'])} | {strategy(run['plan'])} | {ms(cli)} | {key} | "
                f"{ms(run['wall'])} | {earlier(('searches', index, key, 'wall'), ms)} | "
                f"{ms(run['download'])} | {earlier(('searches', index, key, 'download'), ms)} | "
                f"{1e6 * over:+.0f} | ≤ {ms(cli + allowed)} ms: {verdict} |"
            )
    lines += [
        "",
        "### Closeness on a resident graph",
        "",
        "`Graph.closeness()` from every vertex, on the graph above (prepared): its first call, "
        f"and the median of the {CLOSENESS_CALLS} after. Target: ≤ 0.2 s (judged on the later "
        "calls: the graph resident, its engine made).",
        "",
        "| graph | first call s | before s | later calls s | before s | target |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for index, figures in enumerate(after["searches"]):
        closeness = figures["closeness"]
        verdict = "met" if closeness["later"] <= 0.2 else "missed"
        lines.append(
            f"| {short(figures['graph'])} | {s(closeness['first'])} | "
            f"{earlier(('searches', index, 'closeness', 'first'), s)} | {s(closeness['later'])} | "
            f"{earlier(('searches', index, 'closeness', 'later'), s)} | ≤ 0.2 s: {verdict} |"
        )
    scipy = after["scipy"]
    verdict = "met" if scipy["resident"] <= 0.1 else "missed"
    lines += [
        "",
        "### A Graph from scipy",
        "",
        f"`bfs_gpu.Graph(A)` for a canonical scipy CSR array of {scipy['entries']} entries "
        f"(int32 indices, rows sorted, no repeats; {scipy['vertices']} vertices, undirected: a "
        "uniform random graph), the device opened before; median of 3. Resident: the checks, "
        "the library's CSR, `auto`'s plan and the upload. Host: `device='cpu'`, the checks and "
        "the CSR alone. Target: ≤ 0.1 s, resident.",
        "",
        "| entries | resident s | before s | host s | before s | target |",
        "| ---: | ---: | ---: | ---: | ---: | --- |",
        f"| {scipy['entries']} | {s(scipy['resident'])} | {earlier(('scipy', 'resident'), s)} | "
        f"{s(scipy['host'])} | {earlier(('scipy', 'host'), s)} | ≤ 0.1 s: {verdict} |",
        "",
        "### networkx through the backend",
        "",
        f"`nx.single_source_shortest_path_length(G, source)` on `nx.grid_2d_graph({arguments.grid}, "
        f"{arguments.grid})` from its middle, with its (row, column) nodes and relabelled by "
        "`convert_node_labels_to_integers`: networkx's own (median of 2), through "
        "`backend='bfs_gpu'` with the converted graph cached on G (median of 5; the first call, "
        "which converts, apart) and the floor of any dict of the answer, "
        "`dict(zip(nodes, lengths))` from ready lists of networkx's answer (median of 5), in one "
        "process; and the same from the backend's answer, in its order (level by level) and with "
        "its keys. networkx's own time over the faster of the two is the most any dict of the "
        "answer could reach, with no search at all. Targets: the backend within 1.5× of the "
        "floor, and ≥ 12× networkx's own.",
        "",
        "| nodes | networkx s | backend s | before s | dict floor s | in level order s | "
        "× floor | × networkx | a ready dict × networkx | first call s | target |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for index, figures in enumerate(after["networkx"]):
        over_floor = figures["backend"] / figures["floor"]
        speedup = figures["own"] / figures["backend"]
        ceiling = figures["own"] / min(figures["floor"], figures["level_floor"])
        verdicts = [
            "≤ 1.5× floor: " + ("met" if over_floor <= 1.5 else "missed"),
            "≥ 12×: "
            + ("met" if speedup >= 12 else "missed")
            + (", beyond a ready dict" if ceiling < 12 else ""),
        ]
        lines.append(
            f"| {figures['nodes']} | {s(figures['own'])} | {s(figures['backend'])} | "
            f"{earlier(('networkx', index, 'backend'), s)} | {s(figures['floor'])} | "
            f"{s(figures['level_floor'])} | {over_floor:.2f}× | {speedup:.1f}× | "
            f"{ceiling:.1f}× | {s(figures['first'])} | {'; '.join(verdicts)} |"
        )
    return "\n".join(lines) + "\n"


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
