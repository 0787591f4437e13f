//! The kernel↔host contract: kernel names with their parameters' types
//! ([`Kernel`]; the parameter blocks several kernels take, `#[repr(C)]` and
//! passed by value, such as [`frontier::FrontierLevel`]), launch shapes,
//! queue capacities and data encodings.
//!
//! Both the kernels (built for `nvptx64`) and the host driver (built for the
//! CPU) compile this module, so a name or constant changes in one place.

pub mod betweenness;
pub mod betweenness_blocks;
pub mod block_queue;
pub mod chain_contracted;
pub mod components;
pub mod direction_optimizing;
pub mod distributed;
pub mod frontier;
pub mod ghost_zones;
pub mod global_queue;
pub mod hierarchical_queue;
pub mod hierarchy_sweep;
pub mod hierarchy_trees;
pub mod hub_chunks;
pub mod hybrid_cpu;
mod kernel;
pub mod many_sources;
pub mod on_chip;
pub mod partitioned;
pub mod persistent;
pub mod persistent_direction_optimizing;
pub mod renumbering;
mod rows;
pub mod small_frontier;
pub mod two_kernel;
pub mod vertex_levels;
pub mod warp_specialized;

pub use kernel::{Kernel, Parameters};
pub use rows::Rows;

/// Distance (and parent) of a vertex the search has not reached (yet, or at all).
pub const UNREACHED: u32 = u32::MAX;

/// A position in a CSR's edge array (its row offsets, edge counts and
/// cursors into it): 64 bits, so one GPU holds graphs past 2^32 CSR entries
/// (Kronecker scale 28 has 8.6 billion). Vertex ids stay `u32`.
pub type EdgeOffset = u64;

/// Threads per block for the one-thread-per-vertex and per-frontier-entry kernels.
pub const BLOCK_SIZE: u32 = 256;

/// The kernels whose PTX `host/build.rs` gives a `.maxntid` directive,
/// with the most threads a block they are launched with: CUDA C's
/// `__launch_bounds__(threads)`, which Rust cannot spell. ptxas, offline or
/// in the driver, then fits their registers to that many threads (64 each
/// at 1,024), spilling if it must; without it, it may take more and the
/// launch fails for want of registers.
pub const LAUNCH_BOUNDS: [(&str, u32); 2] = [
    (ghost_zones::SEARCH, ghost_zones::BLOCK_SIZE),
    (
        hierarchy_sweep::GRID_SEARCH,
        hierarchy_sweep::GRID_BLOCK_SIZE,
    ),
];

/// Every kernel entry point of the sm_90 module (thread-block clusters),
/// loaded only on devices of compute capability 9.0 or newer.
pub const SM90_KERNEL_NAMES: &[&str] = &[on_chip::SEARCH];

/// Every kernel entry point of the main module, so a build check can find each one in the PTX.
pub const KERNEL_NAMES: &[&str] = &[
    two_kernel::EXPAND.name(),
    two_kernel::UPDATE.name(),
    vertex_levels::STEP.name(),
    global_queue::EXPAND.name(),
    block_queue::EXPAND.name(),
    block_queue::EXPAND_PLAIN_LOADS.name(),
    hierarchical_queue::EXPAND.name(),
    small_frontier::LEVELS.name(),
    hybrid_cpu::MARK.name(),
    direction_optimizing::TOP_DOWN.name(),
    direction_optimizing::BOTTOM_UP,
    direction_optimizing::BOTTOM_UP_NARROW,
    direction_optimizing::QUEUE_TO_BITMAP,
    direction_optimizing::BITMAP_TO_QUEUE,
    distributed::TOP_DOWN.name(),
    distributed::EXPAND_HUB_CHUNKS.name(),
    distributed::APPLY_CLAIMS.name(),
    distributed::BOTTOM_UP,
    distributed::BOTTOM_UP_NARROW,
    distributed::MEET_PEERS,
    distributed::READ_PEER_FRONTIERS,
    distributed::READ_PEER_QUEUES,
    distributed::NOTE_DELEGATES.name(),
    many_sources::START.name(),
    many_sources::QUEUE.name(),
    many_sources::TOP_DOWN.name(),
    many_sources::SETTLE.name(),
    many_sources::BOTTOM_UP.name(),
    many_sources::BOTTOM_UP_HEAVY.name(),
    distributed::LIST_DELEGATES,
    distributed::EXPAND_DELEGATES.name(),
    hub_chunks::SPLIT,
    hub_chunks::EXPAND.name(),
    persistent::LEVELS,
    persistent_direction_optimizing::SEARCH,
    persistent_direction_optimizing::SEARCH_NARROW,
    partitioned::SEARCH,
    ghost_zones::SEARCH,
    renumbering::GATHER,
    warp_specialized::SEARCH,
    chain_contracted::SEARCH,
    chain_contracted::LEVELS,
    chain_contracted::PARENTS,
    hierarchy_sweep::SEARCH,
    hierarchy_sweep::GRID_SEARCH,
    hierarchy_trees::SEED.name(),
    hierarchy_trees::SWEEP.name(),
    hierarchy_trees::CORE_ROUND.name(),
    hierarchy_trees::FARTHEST.name(),
    hierarchy_trees::COUNT.name(),
    hierarchy_trees::TOTALS.name(),
    hierarchy_trees::DISTANCES.name(),
    betweenness::START.name(),
    betweenness::FORWARD.name(),
    betweenness::BACKWARD.name(),
    betweenness::REACHED.name(),
    betweenness_blocks::SEARCH.name(),
    betweenness_blocks::TOTALS.name(),
    components::START.name(),
    components::HOOK.name(),
    components::HOOK_HEAVY.name(),
    components::FLATTEN.name(),
    components::STRONG_START.name(),
    components::STRONG_PROPAGATE.name(),
    components::STRONG_SPLIT.name(),
    components::STRONG_LEAST.name(),
    components::STRONG_LABEL.name(),
];
