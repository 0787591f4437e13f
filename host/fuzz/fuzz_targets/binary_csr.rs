//! The binary CSR reader on any bytes, and on files with a valid header and
//! checksum around arbitrary arrays (so the structure checks behind the
//! checksum are reached): an error or a valid CSR, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let path = std::env::temp_dir().join(format!("bfs-fuzz-{}.bcsr", std::process::id()));
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|word| u32::from_le_bytes(word.try_into().unwrap()))
        .collect();
    let vertex_count = words
        .first()
        .map_or(0, |&first| (first % 64) as usize)
        .min(words.len().saturating_sub(2));
    let (row_offsets, column_indices) =
        words[1.min(words.len())..].split_at(vertex_count + 1.min(words.len().saturating_sub(1)));
    let mut checksum = crc32fast::Hasher::new();
    checksum.update(bytemuck_bytes(row_offsets));
    checksum.update(bytemuck_bytes(column_indices));
    let mut file = b"BFSCSR\0\0".to_vec();
    file.extend_from_slice(&1u32.to_le_bytes());
    file.extend_from_slice(&0u32.to_le_bytes());
    file.extend_from_slice(&(row_offsets.len().saturating_sub(1) as u64).to_le_bytes());
    file.extend_from_slice(&(column_indices.len() as u64).to_le_bytes());
    file.extend_from_slice(&checksum.finalize().to_le_bytes());
    file.extend_from_slice(&0u32.to_le_bytes());
    file.extend_from_slice(bytemuck_bytes(row_offsets));
    file.extend_from_slice(bytemuck_bytes(column_indices));
    for candidate in [bytes, &file[..]] {
        std::fs::write(&path, candidate).expect("a temporary file");
        if let Ok(graph) = bfs::graph::binary::read(&path) {
            assert!(
                bfs::Csr::from_parts(
                    graph.row_offsets().to_vec(),
                    graph.column_indices().to_vec()
                )
                .is_ok()
            );
        }
    }
});

fn bytemuck_bytes(words: &[u32]) -> &[u8] {
    // SAFETY: u32 has no padding and any alignment of u8 is satisfied.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast(), std::mem::size_of_val(words)) }
}
