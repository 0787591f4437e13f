//! Results back to the host at the bus's speed: every copy from the device
//! goes through page-locked staging that each open device keeps and
//! reuses, in two halves, so that the bus fills one while the host's cores
//! empty the other into the result.
//!
//! The driver copies from the device into pageable memory by staging it
//! itself, a buffer at a time, on one thread, and a result's fresh pages
//! are faulted in by that thread as it writes them. Here the device writes
//! straight into locked pages, asynchronously on the search's stream, and
//! the cores copy each half out in parallel, each faulting in its own part
//! of the result (NVIDIA, "CUDA C++ Best Practices Guide", 9.1.1, pinned
//! memory; 9.1.2, overlapping transfers with computation).

use std::mem::{MaybeUninit, size_of};
use std::sync::{Mutex, PoisonError};

use cust::error::CudaResult;
use cust::event::{Event, EventFlags};
use cust::memory::{AsyncCopyDestination, DeviceCopy, DeviceSlice, LockedBuffer};
use cust::stream::Stream;
use rayon::prelude::*;

/// Most bytes of each half of the staging: large enough that a copy's
/// fixed costs (a launch of the copy engine, an event) are a small share
/// of it. A device's halves start as large as its first copy needs and
/// grow to this, so that a single small search does not wait for the
/// locking of pages it never uses.
pub const STAGING_HALF_BYTES: usize = 8 << 20;

/// The unit the halves grow by.
const STAGING_GRAIN_BYTES: usize = 64 << 10;

/// Bytes each core copies out of a half at a time.
const PIECE_BYTES: usize = 1 << 20;

/// Bytes below which one thread copies a half out: waking the cores
/// costs more than they save on a single search's levels.
const ONE_THREAD_BELOW_BYTES: usize = 4 << 20;

/// A device's page-locked staging, allocated on its first copy and kept.
#[derive(Default)]
pub struct Staging {
    halves: Mutex<Option<Halves>>,
}

/// The locked buffer, two halves of `half_bytes`, and an event a half
/// that says when the device's copy into it is done.
struct Halves {
    buffer: LockedBuffer<u8>,
    half_bytes: usize,
    filled: [Event; 2],
}

impl Staging {
    /// Copies `device` into `host` (of the same length) on `stream`, after
    /// the work queued on it before; returns when `host` holds it all.
    pub fn copy<T: DeviceCopy + Send + Sync>(
        &self,
        stream: &Stream,
        device: &DeviceSlice<T>,
        host: &mut [MaybeUninit<T>],
    ) -> CudaResult<()> {
        assert_eq!(device.len(), host.len(), "a copy between unequal lengths");
        let wanted = (host.len() * size_of::<T>())
            .next_multiple_of(STAGING_GRAIN_BYTES)
            .clamp(STAGING_GRAIN_BYTES, STAGING_HALF_BYTES);
        let mut held = self.halves.lock().unwrap_or_else(PoisonError::into_inner);
        if held
            .as_ref()
            .is_none_or(|halves| halves.half_bytes < wanted)
        {
            *held = None;
            *held = Some(Halves {
                buffer: LockedBuffer::new(&0, 2 * wanted)?,
                half_bytes: wanted,
                filled: [
                    Event::new(EventFlags::DISABLE_TIMING)?,
                    Event::new(EventFlags::DISABLE_TIMING)?,
                ],
            });
        }
        let halves = held.as_mut().expect("made above");
        let half_bytes = halves.half_bytes;
        // Whole values a half holds; the chunks of `host` that fill one.
        let per_half = half_bytes / size_of::<T>().max(1);
        let chunks = host.len().div_ceil(per_half);
        let len = host.len();
        let staging = halves.buffer.as_mut_ptr();
        // The first `count` values of a half, as T.
        let half_of = |half: usize, count: usize| {
            // SAFETY: the half lies in the locked buffer (2 halves of
            // `half_bytes`; `count` values of T fit one), which is
            // page-aligned, so aligned for T, and initialised (zeroed, or
            // a copy of values of T: `DeviceCopy`, plain data); it is read
            // or written only through the one view in use.
            unsafe {
                std::slice::from_raw_parts_mut(staging.add(half * half_bytes).cast::<T>(), count)
            }
        };
        let start = |chunk: usize| -> CudaResult<()> {
            let (first, count) = (chunk * per_half, per_half.min(len - chunk * per_half));
            let half = chunk % 2;
            // SAFETY: an asynchronous copy into locked memory, ordered
            // after the work queued on `stream` before; the half is not
            // read until its event says this copy is done, and the copy
            // before into it was read out before this was queued.
            unsafe {
                device
                    .index(first..first + count)
                    .async_copy_to(half_of(half, count), stream)?;
            }
            halves.filled[half].record(stream)
        };
        if chunks > 0 {
            start(0)?;
        }
        for chunk in 0..chunks {
            if chunk + 1 < chunks {
                start(chunk + 1)?;
            }
            let half = chunk % 2;
            halves.filled[half].synchronize()?;
            let first = chunk * per_half;
            let out = &mut host[first..(first + per_half).min(len)];
            // The half's event is done: its values are the device's.
            let staged = half_of(half, out.len());
            copy_out(staged, out);
        }
        Ok(())
    }

    /// `device`'s values in a new vector.
    pub fn to_vec<T: DeviceCopy + Send + Sync>(
        &self,
        stream: &Stream,
        device: &DeviceSlice<T>,
    ) -> CudaResult<Vec<T>> {
        let mut values = Vec::with_capacity(device.len());
        self.copy(
            stream,
            device,
            &mut values.spare_capacity_mut()[..device.len()],
        )?;
        // SAFETY: `copy` wrote every one of the first `device.len()` values.
        unsafe { values.set_len(device.len()) };
        Ok(values)
    }

    /// [`copy`](Self::copy) into initialised values.
    pub fn copy_into<T: DeviceCopy + Send + Sync>(
        &self,
        stream: &Stream,
        device: &DeviceSlice<T>,
        host: &mut [T],
    ) -> CudaResult<()> {
        // SAFETY: `copy` writes only whole values of T into the slice, so
        // it stays initialised.
        let host = unsafe { &mut *(std::ptr::from_mut(host) as *mut [MaybeUninit<T>]) };
        self.copy(stream, device, host)
    }
}

/// Copies `staged` into `out`: on every core, a piece each, where it is
/// large enough to repay waking them ([`ONE_THREAD_BELOW_BYTES`]).
fn copy_out<T: Copy + Send + Sync>(staged: &[T], out: &mut [MaybeUninit<T>]) {
    let per_piece = (PIECE_BYTES / size_of::<T>().max(1)).max(1);
    let copy = |(from, to): (&[T], &mut [MaybeUninit<T>])| {
        assert_eq!(from.len(), to.len(), "a piece's ends disagree");
        // SAFETY: both slices hold `from.len()` values and do not overlap
        // (one is the staging, the other the result).
        unsafe {
            std::ptr::copy_nonoverlapping(from.as_ptr(), to.as_mut_ptr().cast::<T>(), from.len());
        }
    };
    if size_of_val(staged) < ONE_THREAD_BELOW_BYTES {
        copy((staged, out));
    } else {
        staged
            .par_chunks(per_piece)
            .zip(out.par_chunks_mut(per_piece))
            .for_each(copy);
    }
}
