//! Host driver of the `ghost-zones` variant: builds the partitions' ghost
//! zones once (`graph::ghost_zones`), keeps them on the device as images
//! (each zone's rows, ghosts' ids and neighbours laid out as a block's
//! shared memory holds them, [`bfs_kernels::abi::ghost_zones::GhostZoneImage`]), and runs
//! each search as one cooperative launch of `ghost_zone_search`, `hops`
//! levels per grid barrier. Levels and parents come back in the renumbered
//! ids and are mapped to the graph's own after the timer stops.
//!
//! The shape: the first of [`PARTITION_SIZES`] and [`HOPS`] whose zones
//! fit a block's shared memory and their budget in all
//! ([`ZoneLimits::budget`]), trying the depths for each size. A graph with
//! a vertex of more neighbours than a zone holds (a hub: its partition's
//! zone holds them all) is refused before any zone is grown, and one no
//! shape fits once every shape is tried.

use bfs_kernels::abi::{BLOCK_SIZE, ghost_zones, renumbering};
use cust::memory::{AsyncCopyDestination, CopyDestination, DeviceBuffer};

use super::partitioned::shared_limit;
use crate::error::CudaContext;
use crate::gpu::{
    DeviceGraph, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, Timer, Work, address, blocks_for,
    download, reset_labels, upload,
};
use crate::graph::ghost_zones::{
    self as zones, GrownPartitions, MOST_ZONE_VERTICES, ZONE_GROWTH, ZoneImages, ZoneLimits,
};
use crate::{Bfs, Csr, Error, Result};

/// Vertices per partition to try, in order: the first is what the grids
/// ran fastest with (docs/decisions.md, "Road networks and grids"); the
/// others, for graphs whose zones would not fit.
pub const PARTITION_SIZES: [u32; 4] = [2048, 512, 128, 32];

/// Levels a step searches, and so the depth of each zone, to try, in
/// order for each partition size: the first was the grids' fastest
/// (docs/decisions.md, "Road networks and grids"); zones 32 hops deep
/// pass the shared memory.
pub const HOPS: [u32; 3] = [16, 4, 1];

/// The zones and the search's arrays on the device.
pub struct GhostZones<'g> {
    gpu: &'g Gpu,
    kernel: Entry<'g, ghost_zones::Search>,
    gather: Entry<'g, renumbering::Gather>,
    zones: ZoneImages,
    zone_capacity: u32,
    image_capacity: u32,
    blocks: u32,
    device: DeviceZones,
    timer: Timer,
}

/// What `ghost_zone_search` reads and writes, besides the graph.
struct DeviceZones {
    zone_records: DeviceBuffer<u32>,
    images: DeviceBuffer<u32>,
    ghost_of_rows: DeviceBuffer<u32>,
    ghost_of: DeviceBuffer<u32>,
    interior_sizes: DeviceBuffer<u32>,
    levels: DeviceBuffer<u32>,
    parents: DeviceBuffer<u32>,
    unvisited: DeviceBuffer<u32>,
    queued_at: DeviceBuffer<u32>,
    zone_lists: DeviceBuffer<u32>,
    step_words: DeviceBuffer<u64>,
    next_entries: DeviceBuffer<u32>,
    counters: DeviceBuffer<u64>,
    /// The renumbering both ways, and the result in the graph's own ids.
    new_ids: DeviceBuffer<u32>,
    old_ids: DeviceBuffer<u32>,
    own_levels: DeviceBuffer<u32>,
    own_parents: DeviceBuffer<u32>,
}

impl<'g> GhostZones<'g> {
    /// The zones of the first shape of [`PARTITION_SIZES`] and [`HOPS`]
    /// whose zones hold at most `capacity` vertices each ([`capacity`] of
    /// a GPU) and keep to their budget in all, laid out as images. A
    /// vertex of more in-neighbours than `capacity` is refused at once.
    pub fn build(graph: &Csr, capacity: u32) -> Result<ZoneImages> {
        let (hub, neighbours) = zones::most_in_neighbours(graph);
        if neighbours > capacity {
            return Err(Error::Unsupported(format!(
                "ghost-zones: vertex {hub} has {neighbours} neighbours, all in the zone of its \
                 partition, and a zone holds at most {capacity} vertices (a block's shared memory)"
            )));
        }
        let limits = ZoneLimits::budget(graph, capacity);
        let zones = PARTITION_SIZES
            .iter()
            .find_map(|&size| {
                let partitions = GrownPartitions::new(graph, size);
                HOPS.iter().find_map(|&hops| partitions.zones(hops, limits))
            })
            .ok_or_else(|| {
                Error::Unsupported(format!(
                    "ghost-zones: no partitions of {PARTITION_SIZES:?} vertices have zones of at \
                     most {capacity} vertices each (a block's shared memory) and at most \
                     {ZONE_GROWTH} times the graph's vertices and edges in all"
                ))
            })?;
        images_of(zones)
    }

    /// As [`new`](Self::new), with partitions of `partition_size` vertices
    /// and zones `hops` deep.
    pub fn with_shape(gpu: &'g Gpu, graph: &Csr, partition_size: u32, hops: u32) -> Result<Self> {
        let capacity = zone_capacity(gpu);
        let limits = ZoneLimits::each(capacity);
        let zones = zones::GhostZones::build(graph, partition_size, hops.max(1), limits)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "ghost-zones: partitions of {partition_size} with zones {hops} hops deep \
                     pass the {capacity} vertices a block's shared memory holds"
                ))
            })?;
        Self::from_zones(gpu, images_of(zones)?)
    }

    /// This search with every zone's image read where it lies, in global
    /// memory, as that of a zone too large for shared memory is (no graph
    /// of the tests has one).
    pub fn reading_images_in_place(mut self) -> Self {
        self.image_capacity = 0;
        self
    }

    /// This search on at most `blocks` blocks (at least one), so that its
    /// steps list more zones than blocks, each block taking the next entry
    /// as it finishes one (the large grids' case, for the tests).
    pub fn limited_to_blocks(mut self, blocks: u32) -> Self {
        self.blocks = blocks.clamp(1, self.blocks);
        self
    }

    /// Uploads `zones` (built for a graph by [`build`](Self::build), or
    /// loaded from its prepared file); refuses zones of more vertices than
    /// `gpu`'s blocks hold.
    pub fn from_zones(gpu: &'g Gpu, zones: ZoneImages) -> Result<Self> {
        let capacity = zone_capacity(gpu);
        if zones.most_zone_vertices > capacity {
            return Err(Error::Unsupported(format!(
                "ghost-zones: a zone of {} vertices, more than the {capacity} that {}'s blocks hold",
                zones.most_zone_vertices,
                gpu.name()
            )));
        }
        // A multiple of 8, so that the image after the per-vertex arrays
        // starts on 16 bytes; the images that do not fit what is left are
        // read in global memory.
        let zone_capacity = zones.most_zone_vertices.max(1).next_multiple_of(8);
        let room = shared_limit(gpu) - ghost_zones::shared_bytes(zone_capacity, 0);
        let most_image_words = (0..zones.zone_count())
            .map(|zone| 4 * zones.record(zone).quads)
            .max()
            .unwrap_or(0);
        let image_capacity = most_image_words.min((room / 4) & !3);
        let shared_bytes = ghost_zones::shared_bytes(zone_capacity, image_capacity);
        let kernel = gpu.entry(ghost_zones::SEARCH)?;
        kernel.allow_shared_memory(shared_bytes)?;
        let resident = kernel.check_cooperative(gpu, ghost_zones::BLOCK_SIZE, shared_bytes)?;
        let vertex_count = zones.renumbering.old_ids.len();
        let zone_count = zones.zone_count() as usize;
        let allocation = || "allocating the ghost zones' search".to_string();
        let device = DeviceZones {
            zone_records: upload(&zones.records)?,
            images: upload(&zones.images)?,
            ghost_of_rows: upload(&zones.ghost_of_rows)?,
            ghost_of: upload(&zones.ghost_of)?,
            interior_sizes: upload(&zones.interior_sizes())?,
            levels: DeviceBuffer::zeroed(vertex_count.max(1)).context(allocation)?,
            parents: DeviceBuffer::zeroed(vertex_count.max(1)).context(allocation)?,
            unvisited: DeviceBuffer::zeroed(zone_count.max(1)).context(allocation)?,
            queued_at: DeviceBuffer::zeroed(zone_count.max(1)).context(allocation)?,
            zone_lists: DeviceBuffer::zeroed(2 * 4 * zone_count.max(1)).context(allocation)?,
            step_words: DeviceBuffer::zeroed(3).context(allocation)?,
            next_entries: DeviceBuffer::zeroed(3).context(allocation)?,
            counters: DeviceBuffer::zeroed(4).context(allocation)?,
            new_ids: upload(&zones.renumbering.new_ids)?,
            old_ids: upload(&zones.renumbering.old_ids)?,
            own_levels: DeviceBuffer::zeroed(vertex_count.max(1)).context(allocation)?,
            own_parents: DeviceBuffer::zeroed(vertex_count.max(1)).context(allocation)?,
        };
        Ok(GhostZones {
            gpu,
            kernel,
            gather: gpu.entry(renumbering::GATHER)?,
            blocks: resident * gpu.multiprocessors(),
            zones,
            zone_capacity,
            image_capacity,
            device,
            timer: Timer::new()?,
        })
    }

    /// Bytes of the zones and the search's arrays on the device.
    fn bytes(&self) -> u64 {
        let (zones, device) = (&self.zones, &self.device);
        let vertices = zones.renumbering.old_ids.len() as u64;
        4 * (device.zone_records.len() + device.images.len() + device.zone_lists.len()) as u64
            + 4 * (zones.ghost_of_rows.len() + zones.ghost_of.len()) as u64
            + 24 * vertices
            + 4 * 3 * zones.zone_count() as u64
            + 8 * 7
            + 4 * 3
    }
}

/// Most vertices a zone may have on `gpu`: [`capacity`] of its shared memory.
pub fn zone_capacity(gpu: &Gpu) -> u32 {
    capacity(shared_limit(gpu))
}

/// Shared memory a block may take, for zones prepared where there is no
/// GPU to ask: the largest of current data-centre GPUs.
pub const SHARED_BYTES_WITHOUT_GPU: u32 = 227 * 1024;

/// Most vertices a zone may have where a block may take `shared_bytes` of
/// shared memory: what that holds with their rows (the rest of a zone's
/// image may stay in global memory), and what 16-bit local indices name.
pub fn capacity(shared_bytes: u32) -> u32 {
    let vertex_bytes = ghost_zones::shared_bytes(1, 1) - ghost_zones::shared_bytes(0, 0);
    let room = shared_bytes.saturating_sub(ghost_zones::shared_bytes(0, 0));
    (room / vertex_bytes).min(MOST_ZONE_VERTICES) & !7
}

/// `zones` laid out as images, or the error of zones too large for them.
fn images_of(zones: zones::GhostZones) -> Result<ZoneImages> {
    ZoneImages::of(zones).ok_or_else(|| {
        Error::Unsupported("ghost-zones: the zones' images take more than 2^32 quads".to_string())
    })
}

impl<'g> Driver<'g> for GhostZones<'g> {
    /// A bound on the device bytes besides the graph, before the zones
    /// are built: the zones at their budget ([`ZoneLimits::budget`]: four
    /// times the graph's vertices and edges, at least
    /// [`zones::LEAST_ZONE_ENTRIES`]; on the grids they hold three times),
    /// and per vertex a level, a parent and its ghost lists, its ids both
    /// ways and its level and parent in its own ids.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        let limits = ZoneLimits::budget(graph, 0);
        8 * limits.vertices + 2 * limits.edges + 32 * graph.vertex_count() as u64
    }

    /// Builds the zones of the default shape for `graph` and uploads them.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        Self::from_zones(gpu, Self::build(graph, zone_capacity(gpu))?)
    }
}

impl GpuBfs for GhostZones<'_> {
    fn run(&mut self, _graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
        let renumbered_source = self.zones.renumbering.new_ids[source as usize];
        let stream = self.gpu.stream();
        let device = &mut self.device;
        self.timer.start(self.gpu)?;
        reset_labels(
            self.gpu,
            &mut device.levels,
            &mut device.parents,
            renumbered_source,
        )?;
        let context = || "initialising the search".to_string();
        // SAFETY: a copy and memsets ordered on the one stream before the
        // kernel that reads these buffers; the host does not touch them
        // meanwhile.
        unsafe {
            device
                .unvisited
                .async_copy_from(&device.interior_sizes, stream)
                .context(context)?;
            device.queued_at.set_zero_async(stream).context(context)?;
            device.step_words.set_zero_async(stream).context(context)?;
            device
                .next_entries
                .set_zero_async(stream)
                .context(context)?;
            device.counters.set_zero_async(stream).context(context)?;
        }
        // SAFETY: `ghost_zone_search`'s contract: the zones as `zones::GhostZones::build` made them (at most `zone_capacity`
        // vertices each) and their images as `zone_images` laid them out
        // (a device allocation, on 256 bytes; each image on a quad,
        // `image_capacity` a multiple of 4), the labels reset from the
        // renumbered source, the unvisited counts copied from the
        // partitions' sizes, the rest zeroed above; `with_zones` checked
        // the launch shape with this shared memory and `blocks` is within
        // its occupancy.
        unsafe {
            self.kernel.launch_cooperative(
                self.gpu,
                (
                    self.blocks,
                    ghost_zones::BLOCK_SIZE,
                    ghost_zones::shared_bytes(self.zone_capacity, self.image_capacity),
                ),
                (
                    address(&device.zone_records).cast_const(),
                    address(&device.images).cast_const(),
                    address(&device.ghost_of_rows).cast_const(),
                    address(&device.ghost_of).cast_const(),
                    self.zones.renumbering.old_ids.len() as u32,
                    self.zones.partition_size,
                    self.zones.zone_count(),
                    self.zones.hops,
                    self.zone_capacity,
                    self.image_capacity,
                    renumbered_source,
                    address(&device.levels),
                    address(&device.parents),
                    address(&device.unvisited),
                    address(&device.queued_at),
                    address(&device.zone_lists),
                    address(&device.step_words),
                    address(&device.next_entries),
                    address(&device.counters),
                ),
            )?;
        }
        let elapsed = self.timer.stop(self.gpu)?;
        let result = self.result(request)?;
        GpuRun::one_launch(request, result, elapsed, |_| {
            let mut counters = [0u64; 4];
            self.device
                .counters
                .copy_to(&mut counters[..])
                .context(|| "reading the search's work counters".into())?;
            Ok(Some(Work {
                barriers: counters[3] as u32 + 1,
                partition_searches: counters[0],
                edges_examined: counters[1],
                levels_searched: counters[2],
            }))
        })
    }

    fn device_bytes(&self) -> Option<u64> {
        Some(self.bytes())
    }
}

impl GhostZones<'_> {
    /// Levels and parents in the graph's own ids: gathered from the
    /// renumbered ones on the device, then copied back (the parents where
    /// asked).
    fn result(&self, request: Request) -> Result<Bfs> {
        let vertex_count = self.zones.vertex_count();
        if vertex_count == 0 {
            return Ok(Bfs {
                source: request.source,
                levels: Vec::new(),
                parents: request.parents.then(Vec::new),
            });
        }
        let device = &self.device;
        let (gather, stream) = (&self.gather, self.gpu.stream());
        // SAFETY: `new_ids` and `old_ids` are the renumbering's inverse
        // permutations of `vertex_count` ids, uploaded once; the search
        // that wrote the renumbered levels and parents (parents unreached
        // or vertices) ran before on this stream; the own-id outputs are
        // their own allocations of `vertex_count` entries.
        unsafe {
            gather
                .launch(
                    stream,
                    (blocks_for(vertex_count, BLOCK_SIZE), BLOCK_SIZE, 0),
                    (
                        address(&device.new_ids).cast_const(),
                        address(&device.old_ids).cast_const(),
                        address(&device.levels).cast_const(),
                        address(&device.parents).cast_const(),
                        vertex_count,
                        address(&device.own_levels),
                        address(&device.own_parents),
                    ),
                )
                .context(|| format!("launching {}", gather.name()))?;
        }
        download(
            self.gpu,
            request,
            &device.own_levels,
            Some(&device.own_parents),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::generate::Spec;

    /// Each zone's record names it, its vertices and its image, the images
    /// one after the other, and each image holds, where `ghost_zones::GhostZoneImage`
    /// says, its zone's rows from 0, its ghosts' ids and its neighbours.
    #[test]
    fn images_hold_each_zone_where_the_layout_says() {
        for (spec, partition_size, hops) in [("grid:40x40:0.1", 50, 3), ("kron:9:8", 32, 1)] {
            let graph = spec.parse::<Spec>().unwrap().generate().unwrap();
            let limits = ZoneLimits::each(MOST_ZONE_VERTICES);
            let zones = zones::GhostZones::build(&graph, partition_size, hops, limits).unwrap();
            let laid_out = ZoneImages::of(zones.clone()).unwrap();
            let records: Vec<ghost_zones::GhostZoneRecord> = (0..laid_out.zone_count())
                .map(|zone| laid_out.record(zone))
                .collect();
            let images = &laid_out.images;
            assert_eq!(records.len() + 1, zones.zone_starts.len());
            for (zone, interior) in zones.interior_sizes().into_iter().enumerate() {
                let (start, end) = (
                    zones.zone_starts[zone] as usize,
                    zones.zone_starts[zone + 1] as usize,
                );
                let rows = &zones.local_rows[start..=end];
                let columns = &zones.local_columns[rows[0] as usize..rows[end - start] as usize];
                let layout = ghost_zones::GhostZoneImage::new(
                    (end - start) as u32,
                    interior,
                    columns.len() as u32,
                );
                let record = records[zone];
                assert_eq!(
                    (record.zone, record.vertices, record.quads),
                    (zone as u32, (end - start) as u32, layout.words() / 4),
                    "{spec}: zone {zone}"
                );
                let image_start = 4 * record.first_quad as usize;
                let image = &images[image_start..image_start + layout.words() as usize];
                let next_quad = records
                    .get(zone + 1)
                    .map_or(images.len() / 4, |next| next.first_quad as usize);
                assert_eq!(
                    next_quad,
                    (image_start + image.len()) / 4,
                    "{spec}: zone {zone}"
                );
                let part =
                    |start: u32, words: u32| &image[start as usize..(start + words) as usize];
                let image_rows = part(0, layout.rows);
                let image_ghosts = part(layout.rows, layout.ghost_ids);
                let image_columns = part(layout.columns_start(), layout.columns);
                assert_eq!(layout.columns_start() + layout.columns, layout.words());
                let relative: Vec<u32> = rows.iter().map(|row| row - rows[0]).collect();
                assert_eq!(
                    &image_rows[..relative.len()],
                    relative,
                    "{spec}: zone {zone}"
                );
                assert_eq!(
                    &image_ghosts[..end - start - interior as usize],
                    &zones.local_ids[start + interior as usize..end],
                    "{spec}: zone {zone}"
                );
                let unpacked: Vec<u16> = image_columns
                    .iter()
                    .flat_map(|pair| [*pair as u16, (pair >> 16) as u16])
                    .take(columns.len())
                    .collect();
                assert_eq!(unpacked, columns, "{spec}: zone {zone}");
            }
        }
    }
}
