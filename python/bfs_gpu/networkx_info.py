"""What networkx reads of the ``bfs_gpu`` backend when it is imported:
its name, its functions and its configuration. Imports nothing."""

_FUNCTIONS = {
    "all_pairs_shortest_path_length": "On the GPU, in batches of sources.",
    "bfs_edges": "networkx's order, by a one-thread search in Rust; not with sort_neighbors.",
    "bfs_layers": "networkx's order, by a one-thread search in Rust.",
    "bfs_predecessors": "As bfs_edges.",
    "bfs_successors": "As bfs_edges.",
    "bfs_tree": "As bfs_edges.",
    "closeness_centrality": "On the GPU, in batches of every source; unweighted only.",
    "descendants_at_distance": "On the GPU.",
    "diameter": "On the GPU, in batches of every source; unweighted only.",
    "eccentricity": "On the GPU, in batches of sources; unweighted, without sp.",
    "harmonic_centrality": "On the GPU, in batches of sources; unweighted only.",
    "has_path": "On the GPU.",
    "shortest_path_length": "On the GPU; unweighted only.",
    "single_source_shortest_path_length": "On the GPU.",
}


def get_info():
    """The backend's description for networkx."""
    return {
        "backend_name": "bfs_gpu",
        "project": "bfs-gpu",
        "package": "bfs_gpu",
        "short_summary": "Breadth-first search on NVIDIA GPUs (the CPU engine without one).",
        "functions": {name: {"additional_docs": docs} for name, docs in _FUNCTIONS.items()},
        "default_config": {"device": "auto"},
    }
