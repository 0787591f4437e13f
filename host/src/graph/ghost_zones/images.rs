//! Ghost zones laid out as `ghost-zones`' kernel reads them: a record and
//! an image of each zone, as a block's shared memory holds it.

use bfs_kernels::abi::ghost_zones;
use rayon::prelude::*;

use super::{GhostZones, interior_size};
use crate::graph::pieces_mut;
use crate::graph::reorder::Renumbering;

/// Ghost zones as `ghost-zones`' kernel reads them: each zone's record and
/// its *image* (its rows, its ghosts' ids and its neighbours, laid out as a
/// block's shared memory holds them: [`ghost_zones::GhostZoneImage`]), and for each
/// vertex the zones that hold it as a ghost. What the device holds, and
/// what `bfs prepare` stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneImages {
    /// The renumbering into partitions; every id below is a new id.
    pub renumbering: Renumbering,
    /// Vertices per partition (the last may have fewer).
    pub partition_size: u32,
    /// Hops from its partition a zone reaches.
    pub hops: u32,
    /// Vertices of the largest zone.
    pub most_zone_vertices: u32,
    /// Each zone's record, four words ([`ghost_zones::GhostZoneRecord::words`]).
    pub records: Vec<u32>,
    /// The images, one after the other, each on a quad (4 words).
    pub images: Vec<u32>,
    /// Where each vertex's list in `ghost_of` starts, and its end.
    pub ghost_of_rows: Vec<u32>,
    /// For each vertex, the zones that hold it as a ghost.
    pub ghost_of: Vec<u32>,
}

impl ZoneImages {
    /// The images of `zones`, laid out on every core; `None` if they take
    /// more than 2^32 quads.
    pub fn of(zones: GhostZones) -> Option<ZoneImages> {
        let interior_sizes = zones.interior_sizes();
        let layouts: Vec<(ghost_zones::GhostZoneImage, u32, u32)> = zones
            .zone_starts
            .par_windows(2)
            .zip(&interior_sizes)
            .map(|(pair, &interior)| {
                let (start, end) = (pair[0] as usize, pair[1] as usize);
                let edges = zones.local_rows[end] - zones.local_rows[start];
                let vertices = (end - start) as u32;
                (
                    ghost_zones::GhostZoneImage::new(vertices, interior, edges),
                    vertices,
                    interior,
                )
            })
            .collect();
        let mut records = Vec::with_capacity(4 * layouts.len());
        let mut quads: u64 = 0;
        for (zone, (layout, vertices, _)) in layouts.iter().enumerate() {
            let record = ghost_zones::GhostZoneRecord {
                zone: zone as u32,
                first_quad: u32::try_from(quads).ok()?,
                quads: layout.words() / 4,
                vertices: *vertices,
            };
            records.extend(record.words());
            quads += u64::from(layout.words() / 4);
        }
        let words = usize::try_from(4 * quads)
            .ok()
            .filter(|_| quads <= u32::MAX as u64)?;
        let mut images = vec![0u32; words];
        let lengths = layouts.iter().map(|(layout, _, _)| layout.words() as usize);
        pieces_mut(&mut images, lengths)
            .into_par_iter()
            .zip(zones.zone_starts.par_windows(2))
            .zip(&layouts)
            .for_each(|((image, pair), (layout, _, interior))| {
                let (start, end) = (pair[0] as usize, pair[1] as usize);
                let first_edge = zones.local_rows[start];
                let rows = &zones.local_rows[start..=end];
                for (word, row) in image.iter_mut().zip(rows) {
                    *word = row - first_edge;
                }
                let ghosts = &zones.local_ids[start + *interior as usize..end];
                image[layout.rows as usize..][..ghosts.len()].copy_from_slice(ghosts);
                let columns =
                    &zones.local_columns[first_edge as usize..zones.local_rows[end] as usize];
                for (word, pair) in image[layout.columns_start() as usize..]
                    .iter_mut()
                    .zip(columns.chunks(2))
                {
                    *word = pair[0] as u32 | (pair.get(1).copied().unwrap_or(0) as u32) << 16;
                }
            });
        Some(ZoneImages {
            most_zone_vertices: zones.most_zone_vertices(),
            renumbering: zones.renumbering,
            partition_size: zones.partition_size,
            hops: zones.hops,
            records,
            images,
            ghost_of_rows: zones.ghost_of_rows,
            ghost_of: zones.ghost_of,
        })
    }

    /// How many zones (partitions) there are.
    pub fn zone_count(&self) -> u32 {
        (self.records.len() / 4) as u32
    }

    /// Vertices of the graph.
    pub fn vertex_count(&self) -> u32 {
        self.renumbering.old_ids.len() as u32
    }

    /// Zone `zone`'s record.
    pub fn record(&self, zone: u32) -> ghost_zones::GhostZoneRecord {
        let at = 4 * zone as usize;
        ghost_zones::GhostZoneRecord::from_words(
            self.records[at..at + 4].try_into().expect("4 words"),
        )
    }

    /// Each partition's own vertices, which a search's first step counts
    /// as unvisited.
    pub fn interior_sizes(&self) -> Vec<u32> {
        let vertex_count = self.vertex_count();
        (0..self.zone_count())
            .map(|zone| interior_size(zone, self.partition_size, vertex_count))
            .collect()
    }
}
