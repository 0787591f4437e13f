//! Road networks and grids, thousands of levels: past a barrier a level.
//! Chains contracted, and a contraction hierarchy swept; partitions
//! searched in shared memory, with their ghost zones, or by a searcher
//! and a messenger warp; the whole graph in one cluster (sm_90 only).

#[cfg(not(bfs_sm90))]
pub mod chain_contracted;

#[cfg(not(bfs_sm90))]
pub mod hierarchy_sweep;

#[cfg(not(bfs_sm90))]
pub mod partitioned;

#[cfg(not(bfs_sm90))]
pub mod ghost_zones;

#[cfg(not(bfs_sm90))]
pub mod renumbering;

#[cfg(not(bfs_sm90))]
pub mod warp_specialized;

#[cfg(bfs_sm90)]
pub mod on_chip;
