//! The drivers of the level loop on the device (`kernels/src/device_loop/`):
//! every level of a search in one cooperative launch, the host waiting
//! once.

pub mod persistent;
pub mod persistent_direction_optimizing;
