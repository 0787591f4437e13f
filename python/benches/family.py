"""The "The BFS family" section of BENCHMARKS.md: betweenness and components.

Betweenness centrality and connected components by `bfs`, beside
networkit, networkx and gapbs, on the same graphs and the same machine,
in one run.

1. Betweenness from every vertex (`bfs centrality --measure betweenness
   --sources all`): the road networks given with --graph (normally
   luxembourg_osm.mtx) and Kronecker 16.
2. Betweenness from 1,024 sampled sources (`--sources 1024`): the road
   networks, Kronecker 20 and gen:road:360000.
3. Weakly connected components of Kronecker 20 and strongly connected
   components of the directed Kronecker 20 (`bfs components [--strong]`).
4. networkx's `betweenness_centrality(G, k=1000, seed=...)` through the
   bfs_gpu backend against networkx's own (scaled from the sources it
   finishes in --nx-seconds), on Kronecker 20 as a networkx graph; the
   conversion in its own column.

Each of `bfs`'s rows is its command run twice, the second timed: the
search time the command prints and the whole process's wall time. Every
row is checked (against networkit, scipy, networkx, gapbs, the CPU engine
and the BFS distance sums, as the section says), and a row that disagrees
fails the run after the section is written.

Usage: family.py [--bfs BFS] [--graph PATH]... [--markdown FILE]
                 [--device auto|gpu|cpu] [--gapbs DIR] [--peer-seconds S]
                 [--nx-seconds S] [--check-seconds S] [--seed S] [--sources N] [--nx-k K]
                 [--exact-graph SPEC]... [--sampled-graph SPEC]...
                 [--weak-graph SPEC] [--strong-graph SPEC] [--nx-graph SPEC]
                 [--check-graph SPEC]
Run by ``cargo xtask bench --family``; on a GPU machine from the bundle
(the wheel and networkit installed, gapbs's source carried):
``python3 bundle/python/family.py --bfs bundle/bfs --graph luxembourg_osm.mtx
--gapbs gapbs --markdown $OUT/family.md``.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from sections import command_line, cpu_name, short, write_section

HEADING = "## The BFS family"

#: The line of a section written while the run went on.
INCOMPLETE = (
    "**Incomplete:** written as the run went on, which had not finished: the rows "
    "below are those measured before it stopped."
)

#: Row kinds, in the order of the section's tables.
EXACT, SAMPLED, WEAK, STRONG, BACKEND = "exact", "sampled", "weak", "strong", "backend"

#: Targets on the search time a command prints, by row kind and graph.
TARGETS = {
    (EXACT, "luxembourg_osm.mtx"): 1.5,
    (EXACT, "gen:kron:16"): 1.5,
    (SAMPLED, "luxembourg_osm.mtx"): 0.020,
    (SAMPLED, "gen:kron:20"): 0.5,
    (SAMPLED, "gen:road:360000"): 0.5,
    (WEAK, "gen:kron:20"): 0.002,
    (STRONG, "gen:dkron:20"): 0.020,
}
#: What each kind of row measures, for the targets' table.
MEASURES = {
    EXACT: "betweenness from every vertex",
    SAMPLED: "betweenness from {sources:,} sampled sources",
    WEAK: "weakly connected components",
    STRONG: "strongly connected components",
}
#: Row 4's target: the backend over networkx's own.
SPEEDUP_TARGET = 1000

#: Betweenness values agree when within this of each other, relatively.
TOLERANCE = 1e-9
#: A peer showing its progress is judged by it after this many seconds.
PROBE_SECONDS = 2.0
#: networkit's graph building, before its run's clock starts.
BUILD_SECONDS = 600
#: The sources of the small graph's sampled checks.
CHECK_SOURCES = 64

SEARCH = re.compile(r"search ([0-9.]+) s")
COMPONENTS = re.compile(r"components: (\d+) (?:weakly|strongly) connected, the largest (\d+)")

METHOD = (
    "`bfs`: each command (listed below) run twice, the second timed: *search*, the time the "
    "command prints (`search X s`), and *wall*, the whole process (the graph loaded or "
    "generated, the plan, the values written to `.npy`). networkit: its algorithm's `run()` "
    "alone, `nk.setNumberOfThreads({threads})`, on the graph built from the same CSR (the "
    "building not counted). networkx: its own `betweenness_centrality`'s steps for each "
    "source (`_single_source_shortest_path_basic`, `_accumulate_basic`) timed source by "
    "source, from every vertex or from the sources it draws for `k` and the seed; "
    "`number_connected_components` and `number_strongly_connected_components`. gapbs: one "
    "process on the same CSR written as its `.sg`, `OMP_NUM_THREADS={threads}`: `bc -i "
    "SOURCES -n 1 -l` (as many of its own random sources, one trial, a line a source) and "
    "`cc -n 3 -a` (Afforest, three trials), its `Average Time`. A peer that would run longer "
    "than {limit} is stopped and shown `> {limit} (unfinished)`; one that shows its progress "
    "(networkx's and gapbs's sources) is judged by it after {probe:.0f} s, and its time is "
    "scaled to all its sources."
)
BETWEENNESS = (
    "networkx's normalized values (`normalized=True`, endpoints left out). Validated: from "
    "every vertex, against networkit's exact values to {tolerance:g} relative (networkit "
    "normalizes as networkx on undirected graphs) or, where networkit did not finish, the CPU "
    "engine's run of the same command; from a sample, against the CPU engine's run of the "
    "same command (the same sources) where the row ran on a GPU (a CPU run is waited for up to "
    "`--check-seconds`, and the row says where it was not); and every row's sum over the "
    "vertices against the BFS distance sums from the same sources (`Graph.sums`: a source's "
    "dependencies add up to Σ (d(s, t) − 1) over the targets it reaches)."
)
COMPONENTS_CHECKED = (
    "Validated: the labels (each vertex's component's least vertex) against the grouping of "
    "scipy's `csgraph.connected_components`, the count against networkit's, networkx's and "
    "gapbs's."
)
BACKEND_METHOD = (
    "`nx.betweenness_centrality(G, k={k}, seed={seed})` on an `nx.Graph` of the graph's edges. "
    "Backend: `backend='bfs_gpu'`, called twice, its time the second call's (the converted "
    "graph cached on G, the dict of values included); conversion: the first call's time over "
    "the second's. networkx's own: its steps for the same sources (those `seed={seed}` draws) "
    "timed for {seconds} and scaled to {k}. Its values are checked on the small graph below. "
    "Target: ≥ {target:,}×."
)
CHECKS = (
    "{graph} ({n} vertices, {entries} CSR entries) against networkx {version}'s values to "
    "{tolerance:g} relative; a sample's from networkx's own steps for the {count} sources "
    "`bfs --sources {count}` draws (seed {seed}), scaled as networkx scales a sample's (3.5 "
    "and later)."
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bfs", help="the bfs binary (default: bundle/bfs or target/release/bfs)")
    parser.add_argument(
        "--graph", action="append", default=[], help="a road network file: rows 1 and 2"
    )
    parser.add_argument("--markdown", help="BENCHMARKS.md to write the section into")
    parser.add_argument("--device", default="auto", choices=["auto", "gpu", "cpu"])
    parser.add_argument("--gapbs", help="gapbs's source folder (made where bc or cc is missing)")
    parser.add_argument(
        "--peer-seconds", type=float, default=120, help="a peer's run is stopped past this"
    )
    parser.add_argument(
        "--nx-seconds", type=float, default=60, help="row 4: networkx's own timed this long"
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="generated graphs' seed and the sources' draw"
    )
    parser.add_argument(
        "--check-seconds",
        type=float,
        default=300,
        help="the CPU engine's run that checks a row is stopped past this",
    )
    parser.add_argument("--sources", type=int, default=1024, help="row 2's sampled sources")
    parser.add_argument("--nx-k", type=int, default=1000, help="row 4's k")
    parser.add_argument("--exact-graph", action="append", help="row 1's (gen:kron:16)")
    parser.add_argument(
        "--sampled-graph", action="append", help="row 2's (gen:kron:20, gen:road:360000)"
    )
    parser.add_argument("--weak-graph", default="gen:kron:20", help="row 3's weak components")
    parser.add_argument("--strong-graph", default="gen:dkron:20", help="row 3's strong ones")
    parser.add_argument("--nx-graph", default="gen:kron:20", help="row 4's graph")
    parser.add_argument(
        "--check-graph", default="gen:kron:10", help="the small graph checked against networkx"
    )
    parser.add_argument("--networkit-worker", nargs=3, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.networkit_worker:
        networkit_worker(*arguments.networkit_worker)
        return
    bfs = arguments.bfs or default_bfs()
    require(bfs)
    generated = arguments.sampled_graph or ["gen:kron:20", "gen:road:360000"]
    tasks = [(path, EXACT) for path in arguments.graph]
    tasks += [(name, EXACT) for name in arguments.exact_graph or ["gen:kron:16"]]
    tasks += [(path, SAMPLED) for path in arguments.graph]
    tasks += [(name, SAMPLED) for name in generated]
    tasks += [(arguments.weak_graph, WEAK), (arguments.strong_graph, STRONG)]
    tasks += [(arguments.nx_graph, BACKEND)]
    bench = Bench(bfs, arguments)
    try:
        bench.measure(tasks)
    finally:
        bench.close()
    section = bench.section()
    print(section)
    if arguments.markdown:
        write_section(arguments.markdown, HEADING, section)
    for failure in bench.verdicts.failures:
        print(f"error: {failure}", file=sys.stderr)
    if bench.verdicts.failures:
        sys.exit(1)


def default_bfs():
    """The bundle's bfs or the release build's, here or beside the script."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (
        "bundle/bfs",
        "target/release/bfs",
        os.path.join(here, "..", "bfs"),
        os.path.join(here, "..", "..", "target", "release", "bfs"),
    ):
        if os.path.isfile(path):
            return path
    sys.exit("error: no bfs found (bundle/bfs, target/release/bfs): name it with --bfs")


def require(bfs):
    """Exits with one line where a peer or one of the family's interfaces
    is missing."""
    import importlib.util

    absent = [
        name
        for name in ("scipy", "networkx", "networkit")
        if importlib.util.find_spec(name) is None
    ]
    if absent:
        sys.exit(
            f"error: {', '.join(absent)} not installed: python3 -m pip install "
            f"{' '.join(absent)} (on a GPU machine without a network, from wheels carried there)"
        )
    import bfs_gpu
    from bfs_gpu import networkx_info

    def prints(*words):
        done = subprocess.run([bfs, *words], check=False, capture_output=True, text=True)
        return done.stdout + done.stderr if done.returncode == 0 else ""

    missing = []
    if "betweenness" not in prints("centrality", "--help"):
        missing.append("`bfs centrality --measure betweenness`")
    if not prints("components", "--help"):
        missing.append("`bfs components`")
    if "dkron" not in prints("--help"):
        missing.append("bfs's gen:dkron")
    missing += [
        f"bfs_gpu.Graph.{method}"
        for method in ("betweenness", "components")
        if not hasattr(bfs_gpu.Graph, method)
    ]
    if "betweenness_centrality" not in networkx_info.get_info()["functions"]:
        missing.append("the networkx backend's betweenness_centrality")
    if missing:
        sys.exit(
            f"error: {', '.join(missing)} missing (bfs: {bfs}; bfs_gpu: "
            f"{os.path.dirname(bfs_gpu.__file__)}): build both from a tree that has them"
        )


class Verdicts:
    """Each check's outcome, as a cell's text, and the failures."""

    def __init__(self):
        self.failures = []

    def check(self, row, passed, text):
        if not passed:
            self.failures.append(f"{row}: {text}")
        return ("yes: " if passed else "**NO**: ") + text


@dataclass
class Run:
    """A command of `bfs`, as run and timed."""

    words: list
    shown: str
    search: Optional[float] = None
    wall: Optional[float] = None
    line: str = ""
    device: str = ""
    output: Optional[np.ndarray] = None
    error: str = ""
    #: Stopped past the limit it was given.
    stopped: bool = False


@dataclass
class Peer:
    """A peer's time in a row (measured, or estimated where it did not
    finish), its cell, and what it found (a count, values)."""

    text: str
    seconds: Optional[float] = None
    value: Optional[object] = None

    @staticmethod
    def done(seconds, value=None):
        return Peer(duration(seconds), seconds, value)

    @staticmethod
    def unfinished(limit, estimate=None, how="", value=None):
        about = f"; about {duration(estimate)}, {how}" if estimate is not None else ""
        return Peer(f"> {duration(limit)} (unfinished{about})", estimate, value)


@dataclass
class Subject:
    """A graph of the run as the library loads it (the CSR every peer
    gets), and what is made of it for the peers."""

    name: str
    seed: int
    scratch: str
    indptr: Optional[np.ndarray] = None
    indices: Optional[np.ndarray] = None
    directed: bool = False
    files: dict = field(default_factory=dict)
    graph: object = None
    cached: dict = field(default_factory=dict)

    def load(self):
        import bfs_gpu

        graph = bfs_gpu.Graph(self.name, device="cpu", seed=self.seed)
        self.indptr, self.indices = graph.csr()
        self.directed = graph.directed
        graph.close()
        return self

    @property
    def n(self):
        return len(self.indptr) - 1

    def edges(self):
        """Tails and heads: every arc, or each undirected edge once."""
        tails = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.indptr))
        heads = self.indices.astype(np.int64)
        if self.directed:
            return tails, heads
        keep = tails < heads
        return tails[keep], heads[keep]

    def matrix(self):
        import scipy.sparse

        data = np.ones(len(self.indices), dtype=np.int8)
        return scipy.sparse.csr_array((data, self.indices, self.indptr), shape=(self.n, self.n))

    def file(self, suffix):
        """The graph as a scratch file: `.npz` for the networkit worker,
        `.sg` for gapbs."""
        if suffix not in self.files:
            path = os.path.join(self.scratch, re.sub(r"\W", "_", short(self.name)) + suffix)
            if suffix == ".npz":
                np.savez(path, indptr=self.indptr, indices=self.indices, directed=self.directed)
            else:
                write_serialized(self, path)
            self.files[suffix] = path
        return self.files[suffix]

    def networkx(self):
        """The graph as networkx's (nodes 0 to n − 1), built once."""
        import networkx as nx

        if self.graph is None:
            self.graph = nx.DiGraph() if self.directed else nx.Graph()
            self.graph.add_nodes_from(range(self.n))
            tails, heads = self.edges()
            self.graph.add_edges_from(zip(tails.tolist(), heads.tolist()))
        return self.graph

    def release(self):
        for path in self.files.values():
            os.remove(path)
        self.files.clear()
        self.graph = self.indptr = self.indices = None
        self.cached.clear()


class Bench:
    """One run: the rows, their peers and their checks, and the section."""

    def __init__(self, bfs, arguments):
        import bfs_gpu

        self.bfs = bfs
        self.arguments = arguments
        self.limit = arguments.peer_seconds
        self.threads = os.cpu_count()
        self.verdicts = Verdicts()
        self.folder = tempfile.mkdtemp(prefix="bfs-family-")
        self.rows = {kind: [] for kind in (EXACT, SAMPLED, WEAK, STRONG, BACKEND)}
        self.graphs, self.commands, self.checks, self.met = [], [], [], []
        self.speedup = None
        try:
            self.gpu, self.no_gpu = bfs_gpu.gpu(), None
        except bfs_gpu.BfsError as error:
            self.gpu, self.no_gpu = None, str(error)
        self.on_gpu = self.gpu is not None and arguments.device != "cpu"
        self.gapbs = Gapbs(arguments.gapbs, self.threads) if arguments.gapbs else None

    def close(self):
        shutil.rmtree(self.folder, ignore_errors=True)

    def measure(self, tasks):
        """The small graph's checks, then every task, a graph's together
        (each graph loaded once, and let go after)."""
        import networkx as nx

        # The backend runs where the commands do, and keeps its converted graphs.
        nx.config.backends.bfs_gpu.device = self.arguments.device
        nx.config.cache_converted_graphs = True
        nx.config.warnings_to_ignore.add("cache")
        self.check_small_graph(self.arguments.check_graph)
        rows = {
            EXACT: self.exact,
            SAMPLED: self.sampled,
            WEAK: self.components,
            STRONG: self.components,
            BACKEND: self.backend,
        }
        for name in dict.fromkeys(name for name, _ in tasks):
            subject = Subject(name, self.arguments.seed, self.folder).load()
            shape = "directed" if subject.directed else "undirected"
            self.graphs.append(
                f"| {short(name)} | {subject.n} | {len(subject.indices)} | {shape} |"
            )
            for kind in dict.fromkeys(kind for other, kind in tasks if other == name):
                log(f"{short(name)}: {kind}")
                rows[kind](subject, kind)
            subject.release()
            # A run cut off later keeps the rows measured so far.
            if self.arguments.markdown:
                write_section(self.arguments.markdown, HEADING, self.section(complete=False))

    def add_row(self, kind, line):
        """Adds a row of the section's tables, and logs it as it comes."""
        self.rows[kind].append(line)
        log(f"row: {line}")

    def section(self, complete=True):
        """The section; where not `complete`, marked as written while the
        run went on, with the rows measured so far."""
        import networkit as nk
        import networkx as nx
        import scipy

        if self.gpu is None:
            device = f"none ({self.no_gpu}): the CPU engine, which checks the commands, not "
            device += "the targets"
        else:
            device = f"**{self.gpu}**" + ("" if self.on_gpu else " (not used: `--device cpu`)")
        gapbs = f"gapbs made in `{self.arguments.gapbs}`" if self.gapbs else "gapbs not run"
        limit = duration(self.limit)
        return "\n".join(
            [
                HEADING,
                "",
                f"Written by `{command_line('family.py')}`. Device: {device}; CPU: {cpu_name()}, "
                f"{self.threads} hardware threads, every one given to the peers. Python "
                f"{sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
                f"networkx {nx.__version__}, networkit {nk.__version__}; {gapbs}.",
                "",
                METHOD.format(threads=self.threads, limit=limit, probe=PROBE_SECONDS),
                "",
                *([] if complete else [INCOMPLETE, ""]),
                "| graph | vertices | CSR entries | kind |",
                "| --- | ---: | ---: | --- |",
                *self.graphs,
                "",
                "### Betweenness centrality",
                "",
                BETWEENNESS.format(tolerance=TOLERANCE),
                "",
                "| graph | sources | bfs search | bfs wall | networkit | networkx | gapbs "
                "| validated | target |",
                "| --- | --- | ---: | ---: | --- | --- | --- | --- | --- |",
                *self.rows[EXACT],
                *self.rows[SAMPLED],
                "",
                "### Connected components",
                "",
                COMPONENTS_CHECKED,
                "",
                "| graph | components | largest | bfs search | bfs wall | networkit | networkx "
                "| gapbs | validated | target |",
                "| --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- | --- |",
                *self.rows[WEAK],
                *self.rows[STRONG],
                "",
                "### networkx through the backend",
                "",
                BACKEND_METHOD.format(
                    k=self.arguments.nx_k,
                    seed=self.arguments.seed,
                    seconds=duration(self.arguments.nx_seconds),
                    target=SPEEDUP_TARGET,
                ),
                "",
                "| graph | networkx (scaled) | backend | conversion (once) | speed-up "
                "| validated | target |",
                "| --- | --- | ---: | ---: | ---: | --- | --- |",
                *self.rows[BACKEND],
                "",
                "### Checks on a small graph",
                "",
                *self.checks,
                "",
                "### Commands",
                "",
                "```sh",
                *self.commands,
                "```",
                "",
                "### Targets",
                "",
                "| target | measured | |",
                "| --- | --- | --- |",
                *self.targets(),
                "",
            ]
        )

    # The rows.

    def exact(self, subject, kind):
        run = self.command(subject, ["centrality", "--measure", "betweenness", "--sources", "all"])
        reference = self.networkit(subject, EXACT)
        validated = self.validate_betweenness(subject, run, None, reference)
        own = self.networkx_betweenness(subject.networkx(), list(range(subject.n)))
        gapbs = self.gapbs_exact(subject)
        self.betweenness_row(subject, kind, "every vertex", run, reference, own, gapbs, validated)

    def sampled(self, subject, kind):
        count = self.arguments.sources
        words = ["centrality", "--measure", "betweenness", "--sources", str(count)]
        run = self.command(subject, words)
        sources = sample_vertices(subject.n, count, self.arguments.seed)
        validated = self.validate_betweenness(subject, run, sources, None)
        peer = self.networkit(subject, f"{SAMPLED}:{count}")
        # The sources networkx's own betweenness_centrality(G, k, seed) takes.
        drawn = random.Random(self.arguments.seed).sample(list(subject.networkx()), count)
        own = self.networkx_betweenness(subject.networkx(), drawn)
        gapbs = self.gapbs_sampled(subject, count) if self.gapbs else Peer("not run")
        sources = f"{count:,} sampled"
        self.betweenness_row(subject, kind, sources, run, peer, own, gapbs, validated)

    def betweenness_row(self, subject, kind, sources, run, networkit, own, gapbs, validated):
        self.add_row(
            kind,
            f"| {short(subject.name)} | {sources} | {seconds_cell(run.search)} | "
            f"{seconds_cell(run.wall)} | {networkit.text} | {own.text} | {gapbs.text} | "
            f"{validated} | {self.target(kind, subject.name, run.search)} |"
        )

    def components(self, subject, kind):
        import networkx as nx
        import scipy.sparse.csgraph

        run = self.command(subject, ["components"] + (["--strong"] if kind == STRONG else []))
        row = f"{short(subject.name)} ({kind} components)"
        found = COMPONENTS.search(run.line)
        count, largest = (int(found.group(1)), int(found.group(2))) if found else (None, None)
        checks = []
        if run.error or found is None:
            checks.append(self.verdicts.check(row, False, run.error or f"no count: `{run.line}`"))
        else:
            labels = run.output.astype(np.int64)
            checks.append(
                self.verdicts.check(
                    row, len(np.unique(labels)) == count, f"{count} labels in the output"
                )
            )
            strong = kind == STRONG
            scipy_count, grouping = scipy.sparse.csgraph.connected_components(
                subject.matrix(), directed=strong, connection="strong" if strong else "weak"
            )
            _, least = np.unique(grouping, return_index=True)
            checks.append(
                self.verdicts.check(
                    row,
                    np.array_equal(labels, least[grouping]),
                    f"the labels group the vertices as scipy's {scipy_count} components do",
                )
            )
        peer = self.networkit(subject, kind)
        graph = subject.networkx()
        counter = {
            WEAK: nx.number_connected_components,
            STRONG: nx.number_strongly_connected_components,
        }[kind]
        log(f"{short(subject.name)}: networkx's {counter.__name__}")
        own_count, seconds = within(self.limit, lambda: counter(graph))
        own = Peer.unfinished(self.limit) if own_count is None else Peer.done(seconds, own_count)
        if kind == WEAK:
            gapbs = self.gapbs.cc(subject, self.limit) if self.gapbs else Peer("not run")
        else:
            gapbs = Peer("no strongly connected components in gapbs")
        for name, other in (("networkit", peer), ("networkx", own), ("gapbs", gapbs)):
            if other.value is not None and count is not None:
                checks.append(
                    self.verdicts.check(row, other.value == count, f"{name} counts {other.value}")
                )
        self.add_row(
            kind,
            f"| {short(subject.name)} ({kind}) | {count if found else '-'} | "
            f"{largest if found else '-'} | {seconds_cell(run.search)} | "
            f"{seconds_cell(run.wall)} | {peer.text} | {own.text} | {gapbs.text} | "
            f"{'; '.join(checks)} | {self.target(kind, subject.name, run.search)} |"
        )

    def backend(self, subject, kind):
        import networkx as nx

        k, seed = self.arguments.nx_k, self.arguments.seed
        graph = subject.networkx()
        log(f"{short(subject.name)}: networkx's betweenness through the backend, k={k}")
        times, values = [], []
        for _ in range(2):
            started = time.perf_counter()
            values.append(nx.betweenness_centrality(graph, k=k, seed=seed, backend="bfs_gpu"))
            times.append(time.perf_counter() - started)
        first, second = ([found[v] for v in graph] for found in values)
        same = len(values[1]) == subject.n and not np.count_nonzero(~close(first, second))
        row = f"{short(subject.name)} (networkx through the backend)"
        validated = self.verdicts.check(row, same, "both calls' values equal")
        # networkx's `seed` is random.Random(seed) (py_random_state), whose
        # sample of the nodes is the sources betweenness_centrality takes.
        drawn = random.Random(seed).sample(list(graph), k)
        seconds = duration(self.arguments.nx_seconds)
        log(f"{short(subject.name)}: networkx's own, {seconds} of its {k} sources")
        own, done = brandes(graph, drawn, self.arguments.nx_seconds, early=False)
        estimate = own / done * k
        how = "all" if done == k else f"scaled from {sources_of(done)} in {duration(own)}"
        speedup = estimate / times[1]
        self.speedup = (short(subject.name), speedup)
        verdict = "met" if speedup >= SPEEDUP_TARGET else "missed"
        self.add_row(
            kind,
            f"| {short(subject.name)} | {duration(estimate)} ({how}) | {duration(times[1])} | "
            f"{duration(max(times[0] - times[1], 0.0))} | {speedup:,.0f}× | {validated} | "
            f"≥ {SPEEDUP_TARGET:,}×: {verdict} |"
        )

    # `bfs`.

    def command(self, subject, words, device=None, repeat=2, limit=None):
        """Runs `bfs WORDS --graph G`, writing its values to .npy, `repeat`
        times (listed in the section where more than once); the last run's
        times, line and values. Past `limit` seconds, where given, the run
        is stopped and its `error` says so."""
        device = device or self.arguments.device
        output = os.path.join(self.folder, "values.npy")
        full = [self.bfs, *words, "--graph", subject.name]
        if self.arguments.seed != 1:
            full += ["--seed", str(self.arguments.seed)]
        if device != "auto":
            full += ["--device", device]
        shown = " ".join(["bfs", *full[1:], "--output", "values.npy"])
        run = Run(full + ["--output", output], shown)
        for _ in range(repeat):
            started = time.perf_counter()
            try:
                done = subprocess.run(
                    run.words, check=False, capture_output=True, text=True, timeout=limit
                )
            except subprocess.TimeoutExpired:
                run.error = f"`{shown}` stopped past {duration(limit)}"
                run.stopped = True
                return run
            run.wall = time.perf_counter() - started
            if done.returncode != 0:
                last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()
                run.error = f"`{shown}` failed ({done.returncode}): {last[-1]}"
                run.wall = None
                return run
        lines = done.stdout.strip().splitlines()
        run.line = lines[-1] if lines else ""
        run.device = next(
            (line.split(":", 1)[1].strip() for line in lines if line.startswith("device:")), ""
        )
        found = SEARCH.search(run.line)
        if found:
            run.search = float(found.group(1))
            run.output = np.load(output)
        else:
            run.error = f"`{shown}`: no search time in its last line, `{run.line}`"
        os.remove(output)
        if repeat > 1:
            self.commands.append(shown + (f"  # {run.device}" if run.device else ""))
        return run

    def validate_betweenness(self, subject, run, sources, reference):
        """A betweenness row's checks: against `reference` (networkit's
        exact values) or else, on a GPU, the CPU engine's run of the same
        command; and against the BFS distance sums."""
        drawn = "every vertex" if sources is None else f"{len(sources):,} sources"
        row = f"{short(subject.name)} (betweenness from {drawn})"
        if run.error:
            return self.verdicts.check(row, False, run.error)
        checks = []
        if reference is not None and isinstance(reference.value, np.ndarray):
            checks.append(self.compare(row, run.output, reference.value, "networkit's"))
        elif self.on_gpu:
            log(f"{short(subject.name)}: the CPU engine's run, for the check")
            words = run.words[1 : run.words.index("--graph")]
            limit = self.arguments.check_seconds
            cpu = self.command(subject, words, device="cpu", repeat=1, limit=limit)
            if cpu.stopped:
                # Too long to wait for: the distance sums below still check
                # the values' total, and the sampled rows each vertex.
                checks.append(f"the CPU engine's run not waited for (> {duration(limit)})")
            elif cpu.error:
                checks.append(self.verdicts.check(row, False, cpu.error))
            else:
                checks.append(self.compare(row, run.output, cpu.output, "the CPU engine's"))
        checks.append(self.dependency_sums(row, subject, run.output, sources))
        return "; ".join(checks)

    def compare(self, row, found, expected, what):
        text, passed = agreement(found, expected, what)
        return self.verdicts.check(row, passed, f"{text} to {TOLERANCE:g}")

    def dependency_sums(self, row, subject, values, sources):
        """Σ over the vertices of the betweenness unscaled (networkx's
        normalization undone: from every vertex, 1 / ((n − 1)(n − 2)); from
        k sources, 1 / ((k − 1)(n − 2)) for a source, 1 / (k (n − 2)) for
        the others) against Σ (d − 1) over the pairs the sources reach."""
        import bfs_gpu

        n = subject.n
        if sources is None:
            unscaled = values * ((n - 1.0) * (n - 2.0))
        else:
            k = len(sources)
            factor = np.full(n, k * (n - 2.0))
            factor[sources] = (k - 1) * (n - 2.0)
            unscaled = values * factor
        device = self.arguments.device if self.on_gpu else "cpu"
        graph = bfs_gpu.Graph((subject.indptr, subject.indices), device=device)
        sums = graph.sums(sources, totals=False, device=device)
        graph.close()
        expected = float(np.sum(sums["distance_sum"].astype(np.float64) - (sums["reached"] - 1)))
        found = float(np.sum(unscaled))
        agrees = abs(found - expected) <= TOLERANCE * max(abs(expected), 1.0)
        text = f"Σ = the distance sums' {expected:.6g}"
        if not agrees:
            text = f"Σ {found:.12g}, not the distance sums' {expected:.12g}"
        return self.verdicts.check(row, agrees, text)

    # The peers.

    def networkit(self, subject, task):
        """networkit's `task` in a process of its own, stopped past the limit."""
        output = os.path.join(self.folder, "networkit.json")
        log(f"{short(subject.name)}: networkit {task}")
        worker = [sys.executable, os.path.abspath(__file__), "--networkit-worker", task]
        ended = run_peer([*worker, subject.file(".npz"), output], self.limit, ready="ready")
        if not ended.finished:
            return Peer.unfinished(self.limit)
        if ended.returncode != 0 or not os.path.exists(output):
            return Peer(f"failed: {ended.last()}")
        with open(output, encoding="utf-8") as file:
            result = json.load(file)
        os.remove(output)
        value = result.get("components")
        if task == EXACT:
            value = np.load(output + ".npy")
            os.remove(output + ".npy")
        return Peer.done(result["seconds"], value)

    def networkx_betweenness(self, graph, sources):
        log(f"networkx's own betweenness, {len(sources):,} sources")
        seconds, done = brandes(graph, sources, self.limit, early=True)
        if done == len(sources):
            return Peer.done(seconds)
        estimate = seconds / done * len(sources)
        return Peer.unfinished(self.limit, estimate, f"scaled from {sources_of(done)}")

    def gapbs_sampled(self, subject, count):
        """gapbs's `bc -i count`, once a graph (the exact row scales it)."""
        if count not in subject.cached:
            subject.cached[count] = self.gapbs.bc(subject, count, self.limit)
        return subject.cached[count]

    def gapbs_exact(self, subject):
        """gapbs has no exact betweenness: its time a source, from its run
        from the sampled rows' count of its own random sources, times n."""
        if not self.gapbs:
            return Peer("not run")
        count = min(self.arguments.sources, subject.n)
        sampled = self.gapbs_sampled(subject, count)
        if sampled.value is None:
            return Peer(f"no exact mode; `-i {count}`: {sampled.text}")
        each, timed = sampled.value
        return Peer(
            f"no exact mode: about {duration(each * subject.n)}, scaled from "
            f"{sources_of(timed)} of its own (`-i {count}`: {sampled.text})"
        )

    # The small graph's checks, and the targets.

    def check_small_graph(self, name):
        """The family on a graph small enough for networkx's own: exact
        and sampled betweenness (the command, `Graph.betweenness` and the
        backend) against networkx's values, components against scipy's."""
        import bfs_gpu
        import networkx as nx
        import scipy.sparse.csgraph

        log(f"{short(name)}: the checks against networkx")
        subject = Subject(name, self.arguments.seed, self.folder).load()
        graph = subject.networkx()
        count, seed = min(CHECK_SOURCES, subject.n), self.arguments.seed
        nodes = list(range(subject.n))
        exact = nx.betweenness_centrality(graph)
        exact = np.array([exact[v] for v in nodes])
        sources = sample_vertices(subject.n, count, seed)
        sampled, _ = brandes(graph, sources.tolist(), float("inf"), early=False, values=True)
        sampled = rescale_sampled(sampled, subject.n, sources)
        drawn = nx.betweenness_centrality(graph, k=count, seed=seed)
        drawn = np.array([drawn[v] for v in nodes])
        _, grouping = scipy.sparse.csgraph.connected_components(subject.matrix(), directed=False)
        _, least = np.unique(grouping, return_index=True)
        self.checks = [
            CHECKS.format(
                graph=short(name),
                n=subject.n,
                entries=len(subject.indices),
                version=nx.__version__,
                tolerance=TOLERANCE,
                count=count,
                seed=seed,
            ),
            "",
            "| call | validated |",
            "| --- | --- |",
        ]
        device = self.arguments.device if self.on_gpu else "cpu"
        resident = bfs_gpu.Graph(name, seed=seed, device=device)

        def betweenness(words):
            words = ["centrality", "--measure", "betweenness", *words]
            run = self.command(subject, words, repeat=1)
            if run.error:
                raise RuntimeError(run.error)
            return run.output

        calls = (
            (
                f"`bfs centrality --measure betweenness --sources all --graph {short(name)}`",
                lambda: betweenness(["--sources", "all"]),
                exact,
                "networkx's exact values",
            ),
            (
                f"`bfs centrality --measure betweenness --sources {count} --graph {short(name)}`",
                lambda: betweenness(["--sources", str(count)]),
                sampled,
                "networkx's from the same sources",
            ),
            (
                "`Graph.betweenness()`",
                lambda: resident.betweenness(device=device),
                exact,
                "networkx's exact values",
            ),
            (
                f"`Graph.betweenness(k={count}, seed={seed})`",
                lambda: resident.betweenness(k=count, seed=seed, device=device),
                sampled,
                "networkx's from the same sources",
            ),
            (
                f"`nx.betweenness_centrality(G, k={count}, seed={seed}, backend='bfs_gpu')`",
                lambda: backend_values(graph, count, seed, nodes),
                drawn,
                f"networkx's own `betweenness_centrality(G, k={count}, seed={seed})`",
            ),
            (
                "`Graph.components()`",
                lambda: resident.components(device=device),
                least[grouping],
                "scipy's grouping",
            ),
        )
        for call, values, expected, what in calls:
            try:
                text, passed = agreement(values(), expected, what)
            except Exception as error:  # noqa: BLE001 — a call that fails is a check that fails
                passed, text = False, f"{type(error).__name__}: {error}"
            verdict = self.verdicts.check(f"{short(name)}: {call}", passed, text)
            self.checks.append(f"| {call} | {verdict} |")
        resident.close()
        subject.release()

    def target(self, kind, name, seconds):
        """The target's cell, where the row has one (noted for the targets' table)."""
        limit = TARGETS.get((kind, short(name)))
        if limit is None:
            return ""
        verdict = "met" if seconds is not None and seconds <= limit else "missed"
        self.met.append((kind, short(name), limit, seconds, verdict))
        return f"≤ {duration(limit)}: {verdict}"

    def targets(self):
        rows = [
            f"| {name}: {MEASURES[kind].format(sources=self.arguments.sources)}, ≤ "
            f"{duration(limit)} of search | {seconds_cell(seconds)} | {verdict} |"
            for kind, name, limit, seconds, verdict in self.met
        ]
        if self.speedup is not None:
            name, speedup = self.speedup
            verdict = "met" if speedup >= SPEEDUP_TARGET else "missed"
            rows.append(
                f"| {name}: `nx.betweenness_centrality(k={self.arguments.nx_k})` through the "
                f"backend ≥ {SPEEDUP_TARGET:,}× networkx's own | {speedup:,.0f}× | {verdict} |"
            )
        return rows


class Gapbs:
    """gapbs's `bc` and `cc`, made in its source folder where missing."""

    def __init__(self, folder, threads):
        self.folder = folder
        self.environment = dict(os.environ, OMP_NUM_THREADS=str(threads))
        if not all(os.path.isfile(os.path.join(folder, name)) for name in ("bc", "cc")):
            log(f"gapbs: make -C {folder} bc cc")
            subprocess.run(
                ["make", "-C", folder, "bc", "cc"], check=True, stdout=subprocess.DEVNULL
            )
        # gapbs prints with printf: line-buffered, its per-source lines come as it goes.
        self.buffering = ["stdbuf", "-oL"] if shutil.which("stdbuf") else []

    def bc(self, subject, count, limit):
        """`bc -i count`: its time, and as its value the seconds a source and
        the sources timed (all of them, or those done when it was stopped)."""
        log(f"{short(subject.name)}: gapbs bc -i {count}")
        words = [*self.buffering, os.path.join(self.folder, "bc"), "-f", subject.file(".sg")]
        words += ["-i", str(count), "-n", "1", "-l"]

        def done(lines):
            # `-l` prints a source's back-propagation step as "    p   SECONDS".
            return sum(1 for line in lines if line.startswith("    p"))

        def progress(lines, elapsed):
            return elapsed / done(lines) * count if done(lines) else None

        ended = run_peer(words, limit, environment=self.environment, progress=progress)
        if not ended.finished:
            timed = done(ended.lines)
            if not timed:
                return Peer.unfinished(limit)
            each = ended.elapsed / timed
            how = f"scaled from {sources_of(timed)}"
            return Peer.unfinished(limit, each * count, how, value=(each, timed))
        average = ended.number(r"Average Time:\s+([0-9.]+)")
        if ended.returncode != 0 or average is None:
            return Peer(f"failed: {ended.last()}")
        return Peer.done(average, value=(average / count, count))

    def cc(self, subject, limit):
        """`cc -n 3 -a`: its average time, and as its value its count of components."""
        log(f"{short(subject.name)}: gapbs cc")
        words = [os.path.join(self.folder, "cc"), "-f", subject.file(".sg"), "-n", "3", "-a"]
        ended = run_peer(words, limit, environment=self.environment)
        if not ended.finished:
            return Peer.unfinished(limit)
        average = ended.number(r"Average Time:\s+([0-9.]+)")
        count = ended.number(r"There are (\d+) components")
        if ended.returncode != 0 or average is None:
            return Peer(f"failed: {ended.last()}")
        return Peer.done(average, value=None if count is None else int(count))


@dataclass
class Ended:
    """How a peer's process ended: its output lines, its seconds since its
    clock started, whether it finished, and its exit status."""

    lines: list
    elapsed: float
    finished: bool
    returncode: Optional[int] = None

    def number(self, pattern):
        for line in reversed(self.lines):
            found = re.search(pattern, line)
            if found:
                return float(found.group(1))
        return None

    def last(self):
        return self.lines[-1].strip() if self.lines else f"exit status {self.returncode}"


def run_peer(words, limit, *, environment=None, ready=None, progress=None):
    """Runs a peer's process, stopping it past `limit` seconds, or once
    `progress(lines, elapsed)` (its estimate of its whole run) exceeds the
    limit after PROBE_SECONDS. With `ready`, the clock starts at the line
    `ready` (what comes before is building, allowed BUILD_SECONDS)."""
    process = subprocess.Popen(
        words, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment
    )
    lines = []

    def read():
        for line in process.stdout:
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    spawned = time.perf_counter()
    started = None if ready else spawned
    finished = True
    while process.poll() is None:
        time.sleep(0.02)
        now = time.perf_counter()
        if started is None:
            if any(line.strip() == ready for line in list(lines)):
                started = now
            elif now - spawned > BUILD_SECONDS:
                finished = False
                break
            continue
        elapsed = now - started
        estimate = progress(list(lines), elapsed) if progress else None
        if elapsed > limit or (
            elapsed >= PROBE_SECONDS and estimate is not None and estimate > limit
        ):
            finished = False
            break
    if not finished:
        process.kill()
    process.wait()
    reader.join()
    elapsed = time.perf_counter() - (started or spawned)
    return Ended(lines, elapsed, finished, process.returncode)


def brandes(graph, sources, limit, *, early, values=False):
    """networkx's own steps of betweenness (`_single_source_shortest_path_basic`
    and `_accumulate_basic`, what `betweenness_centrality` runs for each
    source) from `sources` in turn: the seconds taken and the sources done,
    stopped past `limit` or, with `early`, once the time so far scaled to
    every source exceeds it (judged after PROBE_SECONDS). With `values`,
    the sums unscaled instead of the count done."""
    from networkx.algorithms.centrality.betweenness import (
        _accumulate_basic,
        _single_source_shortest_path_basic,
    )

    betweenness = dict.fromkeys(graph, 0.0)
    started = time.perf_counter()
    done = 0
    for source in sources:
        S, P, sigma = _single_source_shortest_path_basic(graph, source)[:3]
        accumulated = _accumulate_basic(betweenness, S, P, sigma, source)
        betweenness = accumulated[0] if isinstance(accumulated, tuple) else accumulated
        done += 1
        elapsed = time.perf_counter() - started
        projected = elapsed / done * len(sources)
        if elapsed > limit or (early and elapsed >= PROBE_SECONDS and projected > limit):
            break
    elapsed = time.perf_counter() - started
    if values:
        return np.array([betweenness[v] for v in range(len(betweenness))]), elapsed
    return elapsed, done


def rescale_sampled(unscaled, n, sources):
    """networkx's normalized values from a sample of `sources`, endpoints
    left out (its `_rescale` since 3.5): a source's sums are over the other
    sources, 1 / ((k − 1)(n − 2)); the others', 1 / (k (n − 2))."""
    k = len(sources)
    factor = np.full(n, 1.0 / (k * (n - 2.0)))
    factor[sources] = 1.0 / ((k - 1) * (n - 2.0))
    return unscaled * factor


def backend_values(graph, count, seed, nodes):
    import networkx as nx

    found = nx.betweenness_centrality(graph, k=count, seed=seed, backend="bfs_gpu")
    return [found[v] for v in nodes]


def sample_vertices(n, count, seed):
    """The sources `bfs --sources N --seed S` draws: host/src/graph/generate.rs's
    `sample_vertices`, the first `count` of SplitMix64's Fisher–Yates
    permutation of the vertices, sorted."""
    z = np.uint64(seed) + np.arange(1, n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    # Draw i swaps position n − 1 − i with one below n − i (Lemire's multiply-shift).
    picks = ((z >> np.uint64(32)) * np.arange(n, 1, -1, dtype=np.uint64)) >> np.uint64(32)
    order = list(range(n))
    for index, pick in zip(range(n - 1, 0, -1), picks.tolist()):
        order[index], order[pick] = order[pick], order[index]
    return np.sort(np.array(order[: min(count, n)], dtype=np.int64))


def agreement(found, expected, what):
    """ "= what" where every value agrees, else how many differ; and whether all do."""
    agree = close(found, expected)
    if agree.all():
        return f"= {what}", True
    return f"≠ {what}: {np.count_nonzero(~agree)} of {agree.size} values differ", False


def close(found, expected):
    """Which values agree to TOLERANCE relative (near zero, to a millionth
    of that of the largest value)."""
    found = np.asarray(found, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if found.shape != expected.shape:
        return np.zeros(max(found.size, expected.size), dtype=bool)
    largest = np.max(np.abs(expected)) if expected.size else 0.0
    scale = np.maximum(np.abs(found), np.abs(expected))
    return np.abs(found - expected) <= TOLERANCE * scale + TOLERANCE * 1e-6 * largest


class Expired(Exception):
    """A call ran past its time."""


def within(seconds, call):
    """`call()`'s value and its seconds; None for the value where it ran
    past `seconds` (an alarm interrupts Python code, as networkx's is)."""

    def expire(signum, frame):
        raise Expired()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    started = time.perf_counter()
    try:
        value = call()
    except Expired:
        value = None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return value, time.perf_counter() - started


def networkit_worker(task, npz, output):
    """The networkit peer's process: builds the graph, says `ready`, then
    runs `task` (exact, sampled:N, weak, strong) on every core and writes
    its seconds, and its count of components or its exact values, to
    `output`."""
    import networkit as nk

    data = np.load(npz)
    indptr, indices, directed = data["indptr"], data["indices"], bool(data["directed"])
    subject = Subject(npz, seed=0, scratch="", indptr=indptr, indices=indices, directed=directed)
    nk.setNumberOfThreads(os.cpu_count())
    # Undirected: each edge once, networkit adds each pair both ways itself.
    tails, heads = (ends.astype(np.uint64) for ends in subject.edges())
    graph = nk.GraphFromCoo((tails, heads), n=subject.n, directed=subject.directed)
    name, _, count = task.partition(":")
    algorithm = {
        EXACT: lambda: nk.centrality.Betweenness(graph, normalized=True),
        SAMPLED: lambda: nk.centrality.EstimateBetweenness(graph, int(count or 0), True, True),
        WEAK: lambda: nk.components.ConnectedComponents(graph),
        STRONG: lambda: nk.components.StronglyConnectedComponents(graph),
    }[name]()
    print("ready", flush=True)
    started = time.perf_counter()
    algorithm.run()
    result = {"seconds": time.perf_counter() - started}
    if name in (WEAK, STRONG):
        result["components"] = algorithm.numberOfComponents()
    if name == EXACT:
        np.save(output + ".npy", np.asarray(algorithm.scores(), dtype=np.float64))
    with open(output, "w", encoding="utf-8") as file:
        json.dump(result, file)


def write_serialized(subject, path):
    """The graph as gapbs's `.sg` (its `WriteSerializedGraph`, as
    bench/src/gapbs.rs writes it): directed (a byte), CSR entries and
    vertices (int64), row offsets (int64) and columns (int32), and a
    directed graph's in-edges the same way."""
    import scipy.sparse

    with open(path, "wb") as file:
        file.write(np.uint8(subject.directed).tobytes())
        file.write(np.array([len(subject.indices), subject.n], dtype="<i8").tobytes())
        file.write(subject.indptr.astype("<i8").tobytes())
        file.write(subject.indices.astype("<i4").tobytes())
        if subject.directed:
            reverse = scipy.sparse.csr_array(subject.matrix().T)
            reverse.sort_indices()
            file.write(reverse.indptr.astype("<i8").tobytes())
            file.write(reverse.indices.astype("<i4").tobytes())


STARTED = time.perf_counter()


def log(message):
    """A line of progress, with the seconds since the run began."""
    elapsed = time.perf_counter() - STARTED
    print(f"family: {elapsed:7.1f} s  {message}", file=sys.stderr, flush=True)


def duration(seconds):
    if seconds >= 7200:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 100:
        return f"{seconds:.0f} s"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def seconds_cell(seconds):
    return "-" if seconds is None else duration(seconds)


def sources_of(count):
    return f"{count:,} source" + ("" if count == 1 else "s")


if __name__ == "__main__":
    main()
