//! The payload of a ghost-zones section: the zone images as the device
//! reads them, and read back with every index checked before it is trusted.

use rayon::prelude::*;

use super::codec::{Decoder, Encoder};
use crate::graph::ghost_zones::{MOST_ZONE_VERTICES, ZoneImages};
use crate::graph::reorder::Renumbering;

pub(super) fn encode_zones(zones: &ZoneImages, payload: &mut Encoder) {
    payload.word(zones.partition_size);
    payload.word(zones.hops);
    payload.word(zones.most_zone_vertices);
    payload.array(&zones.renumbering.old_ids);
    payload.array(&zones.records);
    payload.array(&zones.images);
    payload.array(&zones.ghost_of_rows);
    payload.array(&zones.ghost_of);
}

/// Decodes zone images for a graph of `vertex_count` vertices, checking
/// every index the kernel will follow: the renumbering is a permutation,
/// each record names its zone and an image within the images whose
/// layout its vertices, interior and edges give, each image's rows ascend
/// to its edges, its ghosts are vertices, its neighbours lie in the zone,
/// and each ghost list names zones.
pub(super) fn decode_zones(
    payload: &mut Decoder<'_>,
    vertex_count: u32,
) -> Result<ZoneImages, String> {
    let out_of_range = |what: &str| Err(format!("its {what} are out of range"));
    let partition_size = payload.word()?;
    let hops = payload.word()?;
    let most_zone_vertices = payload.word()?;
    let old_ids: Vec<u32> = payload.array()?;
    let records: Vec<u32> = payload.array()?;
    let images: Vec<u32> = payload.array()?;
    let ghost_of_rows: Vec<u32> = payload.array()?;
    let ghost_of: Vec<u32> = payload.array()?;
    if partition_size == 0
        || hops == 0
        || most_zone_vertices > MOST_ZONE_VERTICES
        || old_ids.len() != vertex_count as usize
    {
        return out_of_range("shape words");
    }
    let new_ids = inverse(&old_ids).ok_or("its renumbering is not a permutation")?;
    let zone_count = vertex_count.div_ceil(partition_size) as usize;
    if records.len() != 4 * zone_count || !images.len().is_multiple_of(4) {
        return out_of_range("zones' records");
    }
    let images_fit = records.par_chunks(4).enumerate().all(|(zone, record)| {
        let [index, first_quad, quads, vertices] = [record[0], record[1], record[2], record[3]];
        let first = zone as u32 * partition_size;
        let interior = partition_size.min(vertex_count - first);
        let (start, words) = (4 * first_quad as usize, 4 * quads as usize);
        if index != zone as u32
            || vertices < interior
            || vertices > most_zone_vertices
            || start + words > images.len()
        {
            return false;
        }
        let image = &images[start..start + words];
        let edges = image.get(vertices as usize).copied().unwrap_or(u32::MAX);
        let layout = bfs_kernels::abi::ghost_zones::GhostZoneImage::new(
            vertices,
            interior,
            edges.min(1 << 30),
        );
        layout.words() as usize == words
            && image[..=vertices as usize]
                .windows(2)
                .all(|pair| pair[0] <= pair[1])
            && image[0] == 0
            && image[layout.rows as usize..][..(vertices - interior) as usize]
                .iter()
                .all(|&ghost| ghost < vertex_count)
            && image[layout.columns_start() as usize..]
                .iter()
                .flat_map(|&pair| [pair & 0xffff, pair >> 16])
                .take(edges as usize)
                .all(|local| local < vertices)
    });
    if !images_fit {
        return out_of_range("zones' images");
    }
    let ascending = ghost_of_rows.first() == Some(&0)
        && ghost_of_rows.last().copied() == Some(ghost_of.len() as u32)
        && ghost_of_rows.par_windows(2).all(|pair| pair[0] <= pair[1]);
    if ghost_of_rows.len() != vertex_count as usize + 1
        || !ascending
        || ghost_of.par_iter().any(|&zone| zone as usize >= zone_count)
    {
        return out_of_range("ghosts' lists");
    }
    Ok(ZoneImages {
        renumbering: Renumbering { old_ids, new_ids },
        partition_size,
        hops,
        most_zone_vertices,
        records,
        images,
        ghost_of_rows,
        ghost_of,
    })
}

/// The inverse of `permutation` (on every core), or `None` if it is none.
fn inverse(permutation: &[u32]) -> Option<Vec<u32>> {
    use std::sync::atomic::{AtomicU32, Ordering};
    let inverse: Vec<AtomicU32> = (0..permutation.len())
        .into_par_iter()
        .map(|_| AtomicU32::new(u32::MAX))
        .collect();
    let unique = permutation.par_iter().enumerate().all(|(new, &old)| {
        inverse
            .get(old as usize)
            .is_some_and(|slot| slot.swap(new as u32, Ordering::Relaxed) == u32::MAX)
    });
    unique.then(|| inverse.into_par_iter().map(AtomicU32::into_inner).collect())
}
