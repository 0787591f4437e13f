//! The kernel↔host contract: kernel names, launch shapes and data encodings.
//!
//! Both the kernels (built for `nvptx64`) and the host driver (built for the
//! CPU) compile this module, so a name or constant changes in one place.

/// Distance of a vertex the search has not reached (yet, or at all).
pub const UNREACHED: u32 = u32::MAX;

/// Threads per block for the one-thread-per-vertex kernels.
pub const BLOCK_SIZE: u32 = 256;

/// Kernel entry points of the `two-kernel` variant ([Rodinia]'s BFS).
///
/// [Rodinia]: https://rodinia.cs.virginia.edu/
pub mod two_kernel {
    /// Expands every vertex whose frontier mask is set.
    pub const EXPAND: &str = "two_kernel_expand";
    /// Moves the vertices discovered by `EXPAND` into the next frontier.
    pub const UPDATE: &str = "two_kernel_update";
}

/// Every kernel entry point, so a build check can find each one in the PTX.
pub const KERNEL_NAMES: &[&str] = &[two_kernel::EXPAND, two_kernel::UPDATE];
