//! Kernel entry point of the `global-queue` variant.

use super::entry_points;
use super::frontier::FrontierLevel;

entry_points! {
    /// Expands the frontier queue into the next one.
    pub const EXPAND: Kernel<(FrontierLevel,)> = Kernel::new("global_queue_expand");
}
