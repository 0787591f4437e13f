//! Beamer's direction-optimizing search, a launch a level: top-down from
//! a queue, bottom-up over bitmaps, and the hubs' lists dealt out to the
//! grid in chunks (shared with the level loop on the device and the search
//! over GPUs).

pub mod direction_optimizing;

pub mod hub_chunks;
