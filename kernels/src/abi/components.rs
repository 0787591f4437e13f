//! The contract of `components`: connected components by union–find, and
//! strongly connected components by reachability signatures
//! (`kernels/src/components.rs`).
//!
//! Both end with each vertex's *label*: the least vertex id of its
//! component, so that labels from any engine compare.

use super::{Rows, entry_points, in_global};

entry_points! {
    /// `components_start`: every vertex the root of its own tree.
    pub const START: Kernel<(Forest,)> = Kernel::new("components_start");
    /// `components_hook`: every arc of a light row unites its ends' trees.
    pub const HOOK: Kernel<(Rows, Forest)> = Kernel::new("components_hook");
    /// `components_hook_heavy`: as [`HOOK`], for the heavy rows.
    pub const HOOK_HEAVY: Kernel<(Rows, Forest)> = Kernel::new("components_hook_heavy");
    /// `components_flatten`: every vertex points at its root.
    pub const FLATTEN: Kernel<(Forest,)> = Kernel::new("components_flatten");
    /// `strong_start`: each unsettled vertex's signature is its own id twice.
    pub const STRONG_START: Kernel<(Signatures,)> = Kernel::new("strong_start");
    /// `strong_propagate`: one sweep of the signatures along the kept arcs;
    /// sets the flag where one grew.
    pub const STRONG_PROPAGATE: Kernel<(Rows, Signatures, *mut u32)> =
        Kernel::new("strong_propagate");
    /// `strong_split`: drops the arcs whose ends' signatures differ, settles
    /// the vertices whose two halves agree, and counts those left.
    pub const STRONG_SPLIT: Kernel<(Rows, Signatures, *mut u32)> = Kernel::new("strong_split");
    /// `strong_least`: each component's least vertex, by its signature.
    pub const STRONG_LEAST: Kernel<(Signatures,)> = Kernel::new("strong_least");
    /// `strong_label`: each vertex labelled by its component's least vertex.
    pub const STRONG_LABEL: Kernel<(Signatures,)> = Kernel::new("strong_label");
}

/// Threads a block of every kernel.
pub const BLOCK_SIZE: u32 = 256;

/// The union–find forest over the vertices.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Forest {
    /// Each vertex's parent, never above the vertex itself (`n`): a
    /// larger root is hung under a smaller one, so a tree's root is its
    /// least vertex.
    pub parents: *mut u32,
    pub vertex_count: u32,
    /// Non-zero where every arc has its reverse: each edge is then united
    /// once, from its larger end.
    pub symmetric: u32,
}

const _: () = assert!(core::mem::size_of::<Forest>() == 16);

/// The strong components' rounds: each unsettled vertex's signature, the
/// largest id that reaches it and the largest it reaches over the kept
/// arcs (Alabandi, Sands, Biros & Burtscher's ECL-SCC).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Signatures {
    /// The largest id that reaches each vertex (`n`); after the rounds,
    /// each signature's least vertex.
    pub reached_by: *mut u32,
    /// The largest id each vertex reaches (`n`).
    pub reaches: *mut u32,
    /// Each vertex's label: `u32::MAX` while unsettled, its component's
    /// signature once settled, its least vertex at the end (`n`).
    pub labels: *mut u32,
    /// A byte an arc, in CSR order, non-zero once dropped (`m`).
    pub dropped: *mut u8,
    pub vertex_count: u32,
    /// Padding, zero.
    pub unused: u32,
}

const _: () = assert!(core::mem::size_of::<Signatures>() == 40);

in_global!(Signatures {
    reached_by,
    reaches,
    labels,
    dropped
});
