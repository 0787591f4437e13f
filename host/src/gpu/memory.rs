//! Device memory of a search: the graph in CSR form, uploads, the labels'
//! reset before a search and their copy back to the host.

use cust::error::CudaResult;
use cust::memory::{AsyncCopyDestination, DeviceBuffer, DeviceCopy, DeviceSlice};
use rayon::prelude::*;

use super::{Gpu, LockedCopy, Request};
use crate::error::CudaContext;
use crate::graph::EdgeOffset;
use crate::{Bfs, Csr, Result, UNREACHED};

/// A graph resident in device memory, in CSR form.
pub struct DeviceGraph {
    pub(super) row_offsets: DeviceBuffer<EdgeOffset>,
    pub(super) column_indices: DeviceBuffer<u32>,
    pub(super) vertex_count: u32,
}

impl DeviceGraph {
    /// Bytes the CSR occupies on the device: `8 (n + 1) + 4 m`.
    pub fn bytes(graph: &Csr) -> u64 {
        Csr::bytes_of(graph.vertex_count(), graph.edge_count())
    }

    /// `graph` copied to `gpu` through its staging.
    pub(super) fn upload(gpu: &Gpu, graph: &Csr) -> Result<DeviceGraph> {
        Ok(DeviceGraph {
            row_offsets: upload_staged(gpu, graph.row_offsets())?,
            column_indices: upload_staged(gpu, graph.column_indices())?,
            vertex_count: graph.vertex_count(),
        })
    }
}

/// `buffer`'s device address, as a kernel's parameter block takes it.
pub(crate) fn address<T: DeviceCopy>(buffer: &DeviceSlice<T>) -> *mut T {
    buffer.as_device_ptr().as_raw() as *mut T
}

/// Copies `values` to a new device buffer. An empty array still gets a
/// 1-element buffer: kernels take a valid pointer, and cust rejects
/// zero-sized allocations.
pub(crate) fn upload<T: DeviceCopy + Default>(values: &[T]) -> Result<DeviceBuffer<T>> {
    let empty = [T::default()];
    let values = if values.is_empty() {
        &empty[..]
    } else {
        values
    };
    DeviceBuffer::from_slice(values).context(|| "uploading the graph".into())
}

/// [`upload`] through `gpu`'s page-locked staging, for a graph's arrays:
/// several times faster than the driver's copy from pageable memory, once
/// the staging is allocated.
pub(crate) fn upload_staged<T: DeviceCopy + Default + Send + Sync>(
    gpu: &Gpu,
    values: &[T],
) -> Result<DeviceBuffer<T>> {
    (gpu.staging())
        .to_device(gpu.stream(), values)
        .context(|| "uploading the graph".into())
}

/// Queues the reset of a search's labels from `source` on `gpu`'s stream:
/// every vertex unreached, except the source, at level 0 and its own parent.
pub(super) fn reset_labels(
    gpu: &Gpu,
    levels: &mut DeviceBuffer<u32>,
    parents: &mut DeviceBuffer<u32>,
    source: u32,
) -> Result<()> {
    let (stream, at) = (gpu.stream(), source as usize..=source as usize);
    let context = || "initialising the search".to_string();
    // SAFETY: memsets ordered on the one stream before any kernel that reads
    // these buffers; the host does not touch them meanwhile.
    unsafe {
        levels.set_32_async(UNREACHED, stream).context(context)?;
        parents.set_32_async(UNREACHED, stream).context(context)?;
        levels
            .index(at.clone())
            .set_32_async(0, stream)
            .context(context)?;
        parents
            .index(at)
            .set_32_async(source, stream)
            .context(context)
    }
}

/// Copies a finished search's levels back to the host, and its parents
/// (where the variant records them) where `request` asks for them: into
/// locked vectors where the request asks for those and the device has
/// them (`locked.rs`; the result's vectors are then empty), else into new
/// vectors through the staging.
pub(super) fn download(
    gpu: &Gpu,
    request: Request,
    levels: &DeviceBuffer<u32>,
    parents: Option<&DeviceBuffer<u32>>,
) -> Result<Bfs> {
    let context = || "copying the result back".to_string();
    let parents = parents.filter(|_| request.parents);
    if let Some(destination) = request.locked
        && let Some(copy) = copy_locked(gpu, levels, parents).context(context)?
    {
        destination.fill(copy);
        return Ok(Bfs {
            source: request.source,
            levels: Vec::new(),
            parents: None,
        });
    }
    let copy = |buffer: &DeviceBuffer<u32>| copy_to_host(gpu, buffer).context(context);
    Ok(Bfs {
        source: request.source,
        levels: copy(levels)?,
        parents: parents.map(copy).transpose()?,
    })
}

/// `levels` and `parents` copied straight into locked vectors, both on the
/// stream before the host waits once; `None` where the device has no
/// locked vectors for them. On an error the vectors go back to the device
/// (their stale values are no harm to one copied into anew).
fn copy_locked(
    gpu: &Gpu,
    levels: &DeviceBuffer<u32>,
    parents: Option<&DeviceBuffer<u32>>,
) -> CudaResult<Option<LockedCopy>> {
    let pool = gpu.locked();
    let Some(mut levels_to) = pool.take(levels.len())? else {
        return Ok(None);
    };
    let mut parents_to = match parents {
        Some(parents) => match pool.take(parents.len())? {
            Some(to) => Some((parents, to)),
            None => return Ok(None),
        },
        None => None,
    };
    // SAFETY: asynchronous copies into locked memory, ordered after the
    // search on the stream; the host reads neither vector before the
    // stream's synchronize below says both copies are done.
    unsafe {
        levels.async_copy_to(&mut levels_to[..], gpu.stream())?;
        if let Some((parents, to)) = parents_to.as_mut() {
            parents.async_copy_to(&mut to[..], gpu.stream())?;
        }
    }
    gpu.stream().synchronize()?;
    Ok(Some(LockedCopy {
        levels: levels_to,
        parents: parents_to.map(|(_, to)| to),
    }))
}

/// `buffer`'s values in a new vector, once the work queued on `gpu`'s
/// stream is done, through its page-locked staging.
pub(crate) fn copy_to_host<T: DeviceCopy + Send + Sync>(
    gpu: &Gpu,
    buffer: &DeviceSlice<T>,
) -> CudaResult<Vec<T>> {
    gpu.staging().to_vec(gpu.stream(), buffer)
}

/// `len` copies of `value`, written on every core, so that their pages
/// are faulted in by all of them: the driver's copy into untouched memory
/// faults them in on its one thread, as a fill on one thread would,
/// several times slower for a large graph's labels (docs/decisions.md,
/// "Several GPUs").
pub(crate) fn filled_on_every_core<T: Copy + Send + Sync>(len: usize, value: T) -> Vec<T> {
    (0..len).into_par_iter().map(|_| value).collect()
}
