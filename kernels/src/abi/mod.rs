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
pub mod symmetry;
pub mod two_kernel;
pub mod vertex_levels;
pub mod warp_specialized;

pub use kernel::{Kernel, Parameters};
use kernel::{entry_points, in_global};
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
    (ghost_zones::SEARCH.name(), ghost_zones::BLOCK_SIZE),
    (
        hierarchy_sweep::GRID_SEARCH.name(),
        hierarchy_sweep::GRID_BLOCK_SIZE,
    ),
];

/// Every kernel entry point of the sm_90 module (thread-block clusters),
/// loaded only on devices of compute capability 9.0 or newer.
pub const SM90_KERNEL_NAMES: &[&str] = on_chip::KERNELS;

/// The modules whose entry points the main module holds.
const MAIN_MODULES: &[&[&str]] = &[
    betweenness::KERNELS,
    betweenness_blocks::KERNELS,
    block_queue::KERNELS,
    chain_contracted::KERNELS,
    components::KERNELS,
    direction_optimizing::KERNELS,
    distributed::KERNELS,
    ghost_zones::KERNELS,
    global_queue::KERNELS,
    hierarchical_queue::KERNELS,
    hierarchy_sweep::KERNELS,
    hierarchy_trees::KERNELS,
    hub_chunks::KERNELS,
    hybrid_cpu::KERNELS,
    many_sources::KERNELS,
    partitioned::KERNELS,
    persistent::KERNELS,
    persistent_direction_optimizing::KERNELS,
    renumbering::KERNELS,
    small_frontier::KERNELS,
    symmetry::KERNELS,
    two_kernel::KERNELS,
    vertex_levels::KERNELS,
    warp_specialized::KERNELS,
];

/// Every kernel entry point of the main module, gathered from each
/// module's `entry_points!` declarations, so a build check can find each
/// one in the PTX (and a test, that the PTX holds no other).
pub const KERNEL_NAMES: &[&str] = &gathered::<{ total(MAIN_MODULES) }>(MAIN_MODULES);

/// The names in `modules`.
const fn total(modules: &[&[&str]]) -> usize {
    let (mut count, mut module) = (0, 0);
    while module < modules.len() {
        count += modules[module].len();
        module += 1;
    }
    count
}

/// The names of `modules`, one after another (`N` their [`total`]).
const fn gathered<const N: usize>(modules: &[&[&'static str]]) -> [&'static str; N] {
    let mut names = [""; N];
    let (mut next, mut module) = (0, 0);
    while module < modules.len() {
        let mut entry = 0;
        while entry < modules[module].len() {
            names[next] = modules[module][entry];
            next += 1;
            entry += 1;
        }
        module += 1;
    }
    names
}
