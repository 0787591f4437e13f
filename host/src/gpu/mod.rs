//! The GPU driver: the device, the embedded kernels, device-resident
//! graphs, and the BFS variants, one file each, in folders by their
//! kernels' families.
//!
//! A [`Search`] uploads a graph once and keeps every buffer of its variant
//! allocated, so many searches from different sources reuse them. Each
//! variant's driver implements [`GpuBfs`] and [`Driver`] and has one row in
//! the registry below; the tests loop over [`Variant::ALL`] (those the
//! device runs: [`Gpu::variants`]), so a new variant is tested by its row.

mod device;
pub mod kernel_code;
mod launch;
pub mod libcuda;
mod locked;
mod memory;
mod registry;
mod run;
mod search;
mod staging;
mod symmetry;

// The variants' drivers, one module each, grouped as their kernels are
// (`kernels/src/<family>/`); `auto` chooses among them.
pub mod auto;
pub mod device_loop;
pub mod direction;
pub mod roads;
pub mod textbook;

use device_loop::{persistent, persistent_direction_optimizing};
use direction::direction_optimizing;
pub(crate) use direction::hub_chunks;
use roads::{
    chain_contracted, ghost_zones, hierarchy_sweep, on_chip, partitioned, warp_specialized,
};
use textbook::{
    block_queue, global_queue, hierarchical_queue, hybrid_cpu, small_frontier, two_kernel,
    vertex_levels,
};

mod cluster;
mod queue;
mod row_offsets;

pub use device::{Gpu, GpuCount, Startup};
pub use kernel_code::{CLUSTER_KERNELS_PTX, KERNELS_PTX, KernelCode};
pub use locked::{Labels, LockedLabels, MOST_BYTES_A_RESULT, MOST_LOCKED_BYTES};
pub(crate) use locked::{LockedCopy, LockedDestination};
pub use memory::DeviceGraph;
pub(crate) use memory::{address, copy_to_host, filled_on_every_core, upload};
pub use registry::{Driver, GpuBfs};
pub use row_offsets::RowOffsets;
pub(crate) use row_offsets::{ByRowOffset, with_row_offsets};
pub use run::{
    Direction, Exchange, GpuRun, Request, Step, Work, exchange_time, median_exchange_per_level,
};
pub use search::Search;
pub use staging::STAGING_HALF_BYTES;

pub use auto::{
    CHAINS_KEPT_SHARE, HIERARCHY_PAYS_FROM_SEARCHES, HIERARCHY_SEARCHES_PER_ROOT_KEPT,
    LEVEL_BY_LEVEL_LEAST_EDGES, PREPARED_HIERARCHY_PAYS_FROM_SEARCHES,
    PREPARED_ZONES_PAY_FROM_SEARCHES, Plan, Strategy, Workload, ZONES_PAY_FROM_SEARCHES,
    build_preparation, hierarchy_pays_from_searches, plan, strategy, strategy_on,
};
pub use block_queue::BlockQueue;
pub use chain_contracted::ChainContracted;
pub use direction_optimizing::{DirectionOptimizing, LEVEL_BY_LEVEL};
pub use ghost_zones::{GhostZones, zone_capacity as ghost_zone_capacity};
pub use hierarchical_queue::HierarchicalQueue;
pub use hierarchy_sweep::{HierarchySweep, MOST_KEPT_VERTICES, Placement};
pub use hybrid_cpu::CPU_FRONTIER_THRESHOLD;
pub use partitioned::Partitioned;
pub use persistent_direction_optimizing::PersistentDirectionOptimizing;

use crate::{Csr, Result};
pub(crate) use launch::{Entry, Timer, blocks_for};
use memory::{download, reset_labels};

// The registry: one row a variant, `Name: module, "name", "description";`.
// Its driver is `module::Name` in `gpu/<family>/module.rs`, its kernels
// in `kernels/src/<family>/module.rs` and their contract in
// `kernels/src/abi/module.rs`.
registry::variants! {
    TwoKernel: two_kernel, "two-kernel",
        "Rodinia: one thread per vertex, expand and update kernels, the host looping on an `over` flag";
    VertexLevels: vertex_levels, "vertex-levels",
        "one thread per vertex per level, expanding the vertices at the current level";
    GlobalQueue: global_queue, "global-queue",
        "a frontier queue: an atomic on a visited bitmap claims a vertex, atomicAdd appends it (Kirk & Hwu Fig. 12.7)";
    BlockQueue: block_queue, "block-queue",
        "a block-private queue in shared memory, one global atomicAdd per block (Fig. 12.8)";
    HierarchicalQueue: hierarchical_queue, "hierarchical-queue",
        "warp queues, then a block queue, then the global queue (Fig. 12.11)";
    SmallFrontier: small_frontier, "small-frontier",
        "many levels per single-block launch while the frontier fits in shared memory";
    HybridCpu: hybrid_cpu, "hybrid-cpu",
        "levels with small frontiers on the CPU, large ones on the GPU";
    DirectionOptimizing: direction_optimizing, "direction-optimizing",
        "top-down from a queue, bottom-up over bitmaps, switched by Beamer's α/β rule, a launch a level";
    Persistent: persistent, "persistent",
        "every level in one cooperative launch, a grid barrier between levels";
    PersistentDirectionOptimizing: persistent_direction_optimizing, "persistent-direction-optimizing",
        "direction-optimizing with the level loop on the device, in one cooperative launch";
    ChainContracted: chain_contracted, "chain-contracted",
        "degree-2 chains contracted into weighted edges, the junctions searched by one block in rounds";
    HierarchySweep: hierarchy_sweep, "hierarchy-sweep",
        "chains contracted, then a contraction hierarchy over the junctions swept up and down (PHAST)";
    Partitioned: partitioned, "partitioned",
        "BFS-grown partitions, each searched in shared memory by one block, many levels at a time";
    GhostZones: ghost_zones, "ghost-zones",
        "partitions with every vertex within 16 hops (ghost zones), 16 levels per grid barrier (Meng & Skadron 2009)";
    WarpSpecialized: warp_specialized, "warp-specialized",
        "partitions in shared memory, a searcher and a messenger warp each, asynchronous, no barrier";
    OnChip: on_chip, "on-chip",
        "the whole graph in one thread-block cluster's distributed shared memory (sm_90)";
    Auto: auto, "auto",
        "the strategy the graph's shape calls for: road networks to hierarchy-sweep or ghost-zones, others to direction-optimizing";
}
