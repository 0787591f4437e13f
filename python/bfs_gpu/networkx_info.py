"""What networkx reads of the ``bfs_gpu`` backend when it is imported:
its name, its functions and its configuration. Imports nothing."""

_FUNCTIONS = {
    "all_pairs_shortest_path": "As single_source_shortest_path, from each node.",
    "all_pairs_shortest_path_length": "On the GPU, in batches of sources.",
    "ancestors": "On the GPU.",
    "average_shortest_path_length": "On the GPU, in batches of every source; unweighted only.",
    "betweenness_centrality": "On the GPU, Brandes's sweeps for batches of sources; unweighted only.",
    "bfs_edges": "networkx's order, by a one-thread search in Rust; not with sort_neighbors.",
    "bfs_layers": "networkx's order, by a one-thread search in Rust.",
    "bfs_predecessors": "As bfs_edges.",
    "bfs_successors": "As bfs_edges.",
    "bfs_tree": "As bfs_edges.",
    "bidirectional_shortest_path": "networkx's path: GPU distance, meeting found in Rust.",
    "center": "On the GPU, in batches of every source; unweighted only.",
    "closeness_centrality": "On the GPU, in batches of every source; unweighted only.",
    "connected_components": "Union-find on the GPU.",
    "descendants": "On the GPU.",
    "descendants_at_distance": "On the GPU.",
    "diameter": "On the GPU, in batches of every source; unweighted only.",
    "eccentricity": "On the GPU, in batches of sources; unweighted, without sp.",
    "edge_betweenness_centrality": "On the GPU, Brandes's sweeps for batches of sources; unweighted only.",
    "ego_graph": "networkx's nodes, by a one-thread search in Rust; not with distance.",
    "harmonic_centrality": "On the GPU, in batches of sources; unweighted only.",
    "has_path": "On the GPU.",
    "is_connected": "Union-find on the GPU.",
    "is_strongly_connected": "Reachability signatures on the GPU.",
    "is_weakly_connected": "Union-find on the GPU.",
    "node_connected_component": "Union-find on the GPU.",
    "number_connected_components": "Union-find on the GPU.",
    "number_strongly_connected_components": "Reachability signatures on the GPU.",
    "number_weakly_connected_components": "Union-find on the GPU.",
    "periphery": "On the GPU, in batches of every source; unweighted only.",
    "radius": "On the GPU, in batches of every source; unweighted only.",
    "shortest_path": "As single_source_shortest_path or bidirectional_shortest_path; unweighted.",
    "shortest_path_length": "On the GPU; unweighted only.",
    "single_source_shortest_path": "networkx's paths, by a one-thread search in Rust.",
    "single_source_shortest_path_length": "On the GPU.",
    "single_target_shortest_path": "As single_source_shortest_path, over predecessors.",
    "single_target_shortest_path_length": "On the GPU.",
    "strongly_connected_components": "networkx's order, by Tarjan's search in Rust over its rows.",
    "weakly_connected_components": "Union-find on the GPU.",
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
