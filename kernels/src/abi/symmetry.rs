//! The contract of `symmetry`: whether every arc's reverse is an arc
//! (`kernels/src/symmetry.rs`).

use super::{Rows, entry_points};

entry_points! {
    /// `symmetry_check`: clears the flag where an arc's reverse is missing.
    pub const CHECK: Kernel<(Rows, u32, u64, *mut u32)> = Kernel::new("symmetry_check");
}

/// Threads a block.
pub const BLOCK_SIZE: u32 = 256;

/// Consecutive arcs a warp takes at a time: its lanes take every 32nd.
pub const ARCS_A_WARP: u64 = 32 * 32;
