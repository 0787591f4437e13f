//! The contract of `hierarchy_trees`: a batch of sources' distances on a
//! road network by PHAST's two sweeps of a contraction hierarchy, a
//! shortest-path tree per source carried by each sweep
//! (`kernels/src/many_sources/hierarchy_trees.rs`).
//!
//! A batch keeps a *label* per kept vertex and source: the source's
//! distance to it so far, [`UNREACHED`](super::UNREACHED) where none.
//! They are vertex-major: kept vertex `v`'s labels lie at
//! `v * width .. v * width + width`, one a column, the batch's source `i`
//! in column `i`, so a warp reads 32 sources' labels of one vertex in one
//! coalesced load. The hierarchy's arrays and each vertex's place are
//! `hierarchy_sweep`'s and `chain_contracted`'s.

use super::entry_points;
use super::many_sources::Kept;

entry_points! {
    /// `hierarchy_trees_seed`: labels each source's seeds.
    pub const SEED: Kernel<(Labels, *const u32)> = Kernel::new("hierarchy_trees_seed");
    /// `hierarchy_trees_sweep`: one level of a sweep, each of its vertices
    /// taking the least of its labels and its arcs' heads' plus the weights.
    pub const SWEEP: Kernel<(Labels, Arcs)> = Kernel::new("hierarchy_trees_sweep");
    /// `hierarchy_trees_core_round`: one Bellman–Ford round over the core,
    /// flagging whether it lowered a label.
    pub const CORE_ROUND: Kernel<(Labels, Arcs, *mut u32)> =
        Kernel::new("hierarchy_trees_core_round");
    /// `hierarchy_trees_farthest`: the largest label within the limit.
    pub const FARTHEST: Kernel<(Labels, u32, u32, *mut u32)> =
        Kernel::new("hierarchy_trees_farthest");
    /// `hierarchy_trees_count`: each source's vertices at each distance, the
    /// chains' inner vertices in closed form.
    pub const COUNT: Kernel<(Labels, Chains, Tally)> = Kernel::new("hierarchy_trees_count");
    /// `hierarchy_trees_totals`: adds every source's distance to each vertex
    /// into the per-vertex totals.
    pub const TOTALS: Kernel<(Labels, Chains, Kept)> = Kernel::new("hierarchy_trees_totals");
    /// `hierarchy_trees_distances`: writes every source's row of distances.
    pub const DISTANCES: Kernel<(Labels, Chains, Kept)> = Kernel::new("hierarchy_trees_distances");
}

/// Threads a block of every kernel but [`COUNT`].
pub const BLOCK_SIZE: u32 = 256;

/// Threads a block of [`COUNT`]: one block fills a multiprocessor, as
/// its histograms take most of the shared memory.
pub const COUNT_BLOCK_SIZE: u32 = 1024;

/// The most sources one block of [`COUNT`] counts: a warp's lanes, each
/// its own source's labels of one vertex.
pub const MOST_COUNTED_SOURCES: u32 = 32;

/// A batch's labels.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Labels {
    /// `kept_count * width` labels, vertex-major.
    pub labels: *mut u32,
    /// Columns a vertex: a multiple of 32, at least `count`.
    pub width: u32,
    /// Sources of the batch, columns `0..count`.
    pub count: u32,
}

const _: () = assert!(core::mem::size_of::<Labels>() == 16);

/// The arcs a sweep's level pulls along and the level's vertices: the
/// lower arcs going up, the higher ones going down (and within the core).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Arcs {
    /// `kept_count + 1` offsets into `arcs`.
    pub rows: *const u32,
    /// Each arc's head (a kept index) and weight (at least 1).
    pub arcs: *const u32,
    /// The level's first vertex and the one past its last.
    pub first: u32,
    pub end: u32,
}

const _: () = assert!(core::mem::size_of::<Arcs>() == 24);

/// Where every vertex lies, and what the batch's sources need of it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Chains {
    /// Each vertex's place, two words (`chain_contracted::IN_CHAIN`).
    pub places: *const u32,
    /// Each chain's ends and length, `chain_contracted::CHAIN_WORDS` words.
    pub chains: *const u32,
    /// Each source's own chain and position there, two words:
    /// `chain_contracted::NO_ENTRY` and 0 for a kept source.
    pub own: *const u32,
    pub vertex_count: u32,
    pub kept_count: u32,
    pub chain_count: u32,
    /// The largest distance labelled: a vertex further is unreached.
    pub limit: u32,
}

const _: () = assert!(core::mem::size_of::<Chains>() == 40);

/// Where [`COUNT`] counts: each source's vertices at each distance, as
/// differences in the block's shared memory (or `scratch`, where they do
/// not fit), then in `counts`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Tally {
    /// `count * bins` counts, a row a source: entry `d` is its vertices at
    /// distance `d`.
    pub counts: *mut u32,
    /// Null where the differences are in shared memory, else `blocks *
    /// group * stride` words.
    pub scratch: *mut u32,
    /// Distances counted: `0..bins`, more than the largest.
    pub bins: u32,
    /// Sources a block (a power of two, at most [`MOST_COUNTED_SOURCES`]).
    pub group: u32,
}

const _: () = assert!(core::mem::size_of::<Tally>() == 24);

/// Words between two sources' differences: `bins + 1` (the entry past the
/// largest distance), made odd, so that the lanes of a warp, each at
/// nearly the same distance of its own source, fall in different banks.
pub const fn difference_stride(bins: u32) -> u32 {
    (bins + 1) | 1
}

/// [`COUNT`]'s dynamic shared memory for `group` sources of `bins`
/// distances, in bytes.
pub const fn count_shared_bytes(group: u32, bins: u32) -> u64 {
    4 * group as u64 * difference_stride(bins) as u64
}
