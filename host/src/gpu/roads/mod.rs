//! The drivers for road networks and grids (`kernels/src/roads/`):
//! chains contracted, a contraction hierarchy swept, partitions searched
//! in shared memory (on their own, with ghost zones, or by a searcher and
//! a messenger warp), and the whole graph in one cluster's shared memory.

pub mod chain_contracted;
pub mod ghost_zones;
pub mod hierarchy_sweep;
pub mod on_chip;
pub mod partitioned;
pub mod warp_specialized;
