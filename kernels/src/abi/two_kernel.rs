//! Kernel entry points of the `two-kernel` variant (Rodinia's BFS).

use super::{EdgeOffset, entry_points};

entry_points! {
    /// Expands every vertex whose frontier mask is set. Its parameters: the
    /// rows and columns, the frontier, updating and visited masks, the
    /// levels, and `n`.
    pub const EXPAND: Kernel<Expand> = Kernel::new("two_kernel_expand");
    /// Moves the vertices discovered by `EXPAND` into the next frontier.
    /// Its parameters: the frontier, updating and visited masks, the `over`
    /// flag, and `n`.
    pub const UPDATE: Kernel<Update> = Kernel::new("two_kernel_update");
}

/// The parameters of [`EXPAND`].
pub type Expand = (
    *const EdgeOffset,
    *const u32,
    *mut u8,
    *mut u8,
    *const u8,
    *mut u32,
    u32,
);

/// The parameters of [`UPDATE`].
pub type Update = (*mut u8, *mut u8, *mut u8, *mut u32, u32);
