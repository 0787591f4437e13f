//! Breadth-first search kernels written in `no_std` Rust for `nvptx64-nvidia-cuda`.
//!
//! Compiled twice: for the GPU, where every technique module below becomes PTX
//! that the host loads with `cust`; and for the host, where only [`abi`] is
//! visible, so both sides share one definition of kernel names, launch shapes
//! and data encodings.
//!
//! Reading order: [`abi`] (what crosses the boundary), `gpu` (the device
//! primitives), `visit` (claiming a vertex), then one file per technique, in
//! the textbook's order, each opening with the algorithm and its source:
//! `two_kernel`, `vertex_levels`, `global_queue`, `block_queue`,
//! `hierarchical_queue`, `small_frontier`, `hybrid_cpu`; then beyond the
//! textbook: `direction_optimizing`, `persistent`; past one round trip per
//! level: `persistent_direction_optimizing`; and past one barrier per
//! level: `partitioned`, and its partitions split between a searcher and
//! a messenger warp: `warp_specialized`, and partitions searched with
//! their ghost zones, many levels per grid barrier: `ghost_zones` (its
//! result mapped back to the graph's ids by `renumbering`); and a
//! road network's chains contracted into weighted edges, searched in
//! rounds of their junctions: `chain_contracted`; and the junctions'
//! contraction hierarchy, swept level by level: `hierarchy_sweep`. Across
//! GPUs, the steps of a 1D-partitioned search besides its
//! direction-optimizing levels: `distributed`, and its hubs' lists walked
//! by every GPU: `distributed::delegates`.
//!
//! Built a second time, for sm_90 with `--cfg bfs_sm90`, the crate holds
//! only the kernels that need Hopper's thread-block clusters: `cluster`
//! (their primitives: ranks, the cluster barrier, another block's shared
//! memory) and `on_chip` (the graph in one cluster's shared memory). The
//! host loads that module only on devices that have clusters.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_ptx,
        asm_experimental_arch,
        core_intrinsics,
        stdarch_nvptx,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

pub mod abi;
#[cfg(target_arch = "nvptx64")]
pub mod gpu;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod visit;

#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod block_queue;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod chain_contracted;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod direction_optimizing;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod distributed;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod ghost_zones;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod global_queue;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod hierarchical_queue;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod hierarchy_sweep;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod hub_chunks;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod hybrid_cpu;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod partitioned;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod persistent;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod persistent_direction_optimizing;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod renumbering;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod small_frontier;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod two_kernel;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod vertex_levels;
#[cfg(all(target_arch = "nvptx64", not(bfs_sm90)))]
pub mod warp_specialized;

#[cfg(all(target_arch = "nvptx64", bfs_sm90))]
pub mod cluster;
#[cfg(all(target_arch = "nvptx64", bfs_sm90))]
pub mod on_chip;
