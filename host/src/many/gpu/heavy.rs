//! A batch's heavy in-lists on the device: every in-list longer than a
//! chunk (`abi::many_sources::heavy_chunk_edges` for the batch's words)
//! is cut into chunks, listed once for the engine, which groups all over
//! the grid gather at the start of each bottom-up level (iBFS's answer to
//! the hubs that every source's search reaches: the work of one vertex
//! spread as a top-down level spreads a frontier's lists).

use bfs_kernels::abi::EdgeOffset;
use bfs_kernels::abi::many_sources::{Heavy, heavy_chunk_edges};
use cust::memory::DeviceBuffer;

use crate::Result;
use crate::error::CudaContext;
use crate::gpu::upload;

/// The chunks of the heavy in-lists, each heavy vertex's ordinal, and the
/// words its chunks gather into.
pub(super) struct HeavyLists {
    chunks: DeviceBuffer<u32>,
    ordinals: DeviceBuffer<u32>,
    gathered: DeviceBuffer<u32>,
    chunk_count: u32,
    chunk_edges: u32,
}

/// The heavy vertices of in-rows `in_offsets` for `words` words a vertex:
/// their chunks' triples (vertex, ordinal, chunk index), each vertex's
/// ordinal (`u32::MAX` where light), and how many are heavy.
fn heavy_chunks(in_offsets: &[EdgeOffset], words: u32) -> (Vec<u32>, Vec<u32>, u32) {
    let chunk_edges = EdgeOffset::from(heavy_chunk_edges(words));
    let mut chunks = Vec::new();
    let mut ordinals = vec![u32::MAX; in_offsets.len().saturating_sub(1)];
    let mut heavy = 0;
    for (vertex, row) in in_offsets.windows(2).enumerate() {
        let degree = row[1] - row[0];
        if degree > chunk_edges {
            ordinals[vertex] = heavy;
            for chunk in 0..degree.div_ceil(chunk_edges) {
                chunks.extend([vertex as u32, heavy, chunk as u32]);
            }
            heavy += 1;
        }
    }
    (chunks, ordinals, heavy)
}

impl HeavyLists {
    /// Device bytes of the lists for in-rows `in_offsets` and `words`, an
    /// upper bound: a chunk for each `heavy_chunk_edges` edges and one
    /// more a vertex, and gathered words for every vertex.
    pub(super) fn device_bytes(vertices: u64, edges: u64, words: u32) -> u64 {
        let chunks = edges / u64::from(heavy_chunk_edges(words)) + vertices;
        12 * chunks + 4 * vertices + 4 * vertices * u64::from(words)
    }

    /// The lists of in-rows `in_offsets` for `words` words a vertex,
    /// uploaded.
    pub(super) fn new(in_offsets: &[EdgeOffset], words: u32) -> Result<HeavyLists> {
        let (chunks, ordinals, heavy) = heavy_chunks(in_offsets, words);
        let gathered = (heavy as usize * words as usize).max(1);
        Ok(HeavyLists {
            chunk_count: (chunks.len() / 3) as u32,
            chunks: upload(&chunks)?,
            ordinals: upload(&ordinals)?,
            gathered: DeviceBuffer::zeroed(gathered)
                .context(|| "allocating the heavy lists' words".into())?,
            chunk_edges: heavy_chunk_edges(words),
        })
    }

    /// Chunks in all: none on a graph without a heavy in-list.
    pub(super) fn chunk_count(&self) -> u32 {
        self.chunk_count
    }

    /// The lists as the kernels take them.
    pub(super) fn block(&self) -> Heavy {
        Heavy {
            chunks: self.chunks.as_device_ptr().as_raw() as *const u32,
            ordinals: self.ordinals.as_device_ptr().as_raw() as *const u32,
            gathered: self.gathered.as_device_ptr().as_raw() as *mut u32,
            chunk_count: self.chunk_count,
            chunk_edges: self.chunk_edges,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_list_is_cut_into_chunks_and_a_short_one_is_not() {
        // Words 1: chunks of `heavy_chunk_edges(1)` edges. Vertex 0 has
        // 2.5 chunks of edges, vertex 1 one chunk exactly, vertex 2 one
        // edge more than a chunk.
        let edges = EdgeOffset::from(heavy_chunk_edges(1));
        let offsets = [0, 5 * edges / 2, 7 * edges / 2, 9 * edges / 2 + 1];
        let (chunks, ordinals, heavy) = heavy_chunks(&offsets, 1);
        assert_eq!(heavy, 2);
        assert_eq!(ordinals, vec![0, u32::MAX, 1]);
        assert_eq!(chunks, vec![0, 0, 0, 0, 0, 1, 0, 0, 2, 2, 1, 0, 2, 1, 1]);
    }
}
