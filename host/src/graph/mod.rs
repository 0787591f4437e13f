//! Graphs in compressed sparse row (CSR) form, loaded or generated.
//!
//! Vertex ids are 0-based `u32`; row offsets are [`EdgeOffset`]s (64 bits),
//! so a graph may have more than 2^32 CSR entries. Each vertex's neighbours
//! are sorted, with duplicates and self loops removed. An undirected graph
//! stores each edge in both directions.
//!
//! The graph itself is [`Csr`] (`csr.rs`), built from edge tuples by
//! `build.rs` within the host memory `host_memory.rs` allows; `load.rs`
//! reads and writes it in each file format, with `progress.rs`'s bar. The
//! public modules are the formats, the generators, and what strategies
//! prepare from a graph (renumberings, chains, hierarchies, ghost zones).

mod batched;
mod build;
mod csr;
mod host_memory;
mod load;
mod progress;

pub mod binary;
pub mod binned;
pub mod chains;
pub mod dimacs;
pub mod edge_list;
pub mod generate;
pub mod ghost_zones;
pub mod hierarchy;
pub mod matrix_market;
pub mod prepared;
pub mod reorder;
pub mod snap;

pub use bfs_kernels::abi::EdgeOffset;
pub use build::Visitor;
use build::sort_and_deduplicate;
pub(crate) use build::{pieces_mut, prefer_huge_pages};
pub use csr::Csr;
use host_memory::fits_in_host_memory;
pub use host_memory::{HOST_MEMORY_VARIABLE, check_host_memory};
pub use load::{Format, GraphSource, Reader, load, load_prepared, load_with, save, save_ordered};
pub(crate) use progress::Progress;
