//! The driver of Beamer's direction-optimizing search, a launch a level
//! (`kernels/src/direction/`), and its hubs' lists dealt out to the grid
//! in chunks, which the search over several GPUs shares.

pub mod direction_optimizing;
pub(crate) mod hub_chunks;
