//! Kernel entry point of the `global-queue` variant.

use super::Kernel;
use super::frontier::FrontierLevel;

/// Expands the frontier queue into the next one.
pub const EXPAND: Kernel<(FrontierLevel,)> = Kernel::new("global_queue_expand");
