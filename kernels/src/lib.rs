//! Breadth-first search kernels written in `no_std` Rust for `nvptx64-nvidia-cuda`.
//!
//! Compiled twice: for the GPU, where every technique module below becomes PTX
//! that the host loads with `cust`; and for the host, where only [`abi`] is
//! visible, so both sides share one definition of kernel names, launch shapes
//! and data encodings.
//!
//! Reading order, the same as docs/kernels.md's, each file opening with
//! its technique and source:
//!
//! 1. [`abi`]: what crosses the boundary.
//! 2. `gpu`: the device primitives (ids, memory, atomics, warp, barriers,
//!    queue slots; `gpu::cluster`'s for sm_90).
//! 3. `visit`: walking a vertex's list and claiming a vertex.
//! 4. `textbook`, the textbook's queues: `two_kernel`, `vertex_levels`,
//!    `global_queue`, `block_queue`, `hierarchical_queue`,
//!    `small_frontier`, `hybrid_cpu`.
//! 5. `direction`, Beamer's direction-optimizing search, a launch a level:
//!    `direction_optimizing`, and its hubs' lists in chunks, `hub_chunks`.
//! 6. `device_loop`, the level loop on the device: `persistent`,
//!    `persistent_direction_optimizing`.
//! 7. `roads`, past a barrier a level on road networks and grids:
//!    `chain_contracted`, `hierarchy_sweep`, `partitioned`, `ghost_zones`
//!    (its result mapped back by `renumbering`), `warp_specialized`,
//!    `on_chip`.
//! 8. `distributed`, several GPUs: a 1D-partitioned search's steps besides
//!    its direction-optimizing levels, and its hubs' lists walked by every
//!    GPU, `distributed::delegates`.
//! 9. `many_sources`, many searches at once: a batch of sources, a bit
//!    each in every vertex's words (MS-BFS); a contraction hierarchy's
//!    trees (`hierarchy_trees`); Brandes's betweenness, a lane a source
//!    (`betweenness`) or, for deep graphs, a block a source
//!    (`betweenness_blocks`).
//! 10. `components`: connected components by union–find, strongly
//!     connected ones by reachability signatures.
//! 11. `symmetry`: whether every arc's reverse is an arc, the check the
//!     host makes of a graph given as rows.
//!
//! Built a second time, for sm_90 with `--cfg bfs_sm90`, the crate holds
//! only the kernels that need Hopper's thread-block clusters:
//! `roads::on_chip` (the graph in one cluster's shared memory), with its
//! primitives in `gpu::cluster` (ranks, the cluster barrier, another
//! block's shared memory). The host loads that module only on devices that
//! have clusters.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_ptx,
        asm_experimental_arch,
        core_intrinsics,
        stdarch_nvptx,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem,
        link_llvm_intrinsics
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

pub mod abi;
#[cfg(target_arch = "nvptx64")]
pub mod gpu;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod visit;

#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod textbook;

#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod direction;

#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod device_loop;

#[cfg(target_arch = "nvptx64")]
pub mod roads;

#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod distributed;

#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod many_sources;

#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod components;

#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod symmetry;
