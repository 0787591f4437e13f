//! The level loop on the device: every level of a search in one
//! cooperative launch, a grid barrier between levels, for road networks
//! and for the direction-optimizing search.

pub mod persistent;

pub mod persistent_direction_optimizing;
