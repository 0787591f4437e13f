//! Results back to the host, and graphs up to the device, at the bus's
//! speed: every large copy goes through page-locked staging that each
//! open device keeps and reuses, in two halves, so that the bus empties
//! or fills one while the host's cores fill or empty the other.
//!
//! The driver copies between the device and pageable memory by staging
//! it itself, a buffer at a time, on one thread, and a result's fresh
//! pages are faulted in by that thread as it writes them. Here the device
//! reads and writes locked pages, asynchronously on the search's stream,
//! and the cores copy each half in or out in parallel, each faulting in
//! its own part of a result; a large result's pages are asked for as
//! huge pages, one fault for 512 of the usual (NVIDIA, "CUDA C++ Best
//! Practices Guide", 9.1.1, pinned memory; 9.1.2, overlapping transfers
//! with computation; Linux's `madvise(2)`, `MADV_HUGEPAGE`).

use std::mem::{MaybeUninit, size_of, size_of_val};
use std::sync::{Mutex, MutexGuard, PoisonError};

use cust::error::CudaResult;
use cust::event::{Event, EventFlags};
use cust::memory::{AsyncCopyDestination, DeviceBuffer, DeviceCopy, DeviceSlice, LockedBuffer};
use cust::stream::Stream;
use rayon::prelude::*;

/// Most bytes of each half of the staging: large enough that a copy's
/// fixed costs (a launch of the copy engine, an event, waking the cores)
/// are a small share of it. A device's halves start as large as its
/// first copy needs and grow to this, so that a single small search does
/// not wait for the locking of pages it never uses.
pub const STAGING_HALF_BYTES: usize = 32 << 20;

/// The unit the halves grow by.
const STAGING_GRAIN_BYTES: usize = 64 << 10;

/// Bytes each core copies in or out of a half at a time: small enough
/// that every core has pieces of a half, whose fresh pages each faults in.
const PIECE_BYTES: usize = 256 << 10;

/// Bytes below which one thread copies a half: waking the cores costs
/// more than they save on a single search's levels.
const ONE_THREAD_BELOW_BYTES: usize = 4 << 20;

/// Results from this size on are asked for in huge pages.
const HUGE_PAGES_FROM_BYTES: usize = 16 << 20;

/// The size of a transparent huge page on x86-64. The advice is a hint:
/// where the kernel's size differs, it only changes which pages it covers.
const HUGE_PAGE_BYTES: usize = 2 << 20;

/// A device's page-locked staging, allocated on its first copy and kept.
#[derive(Default)]
pub struct Staging {
    halves: Mutex<Option<Halves>>,
}

/// The locked buffer, two halves of `half_bytes`, and an event a half
/// that says when the device's copy into or out of it is done.
struct Halves {
    buffer: LockedBuffer<u8>,
    half_bytes: usize,
    copied: [Event; 2],
}

impl Halves {
    /// The first `count` values of half `half`, as T.
    ///
    /// # Safety
    /// No other view of the half is in use, and no copy of the device's
    /// into or out of it is in flight.
    unsafe fn half<T: DeviceCopy>(&mut self, half: usize, count: usize) -> &mut [T] {
        assert!(
            count * size_of::<T>() <= self.half_bytes,
            "more than a half holds"
        );
        // SAFETY: the half lies in the locked buffer (2 halves of
        // `half_bytes`; `count` values of T fit one), which is
        // page-aligned, so aligned for T, and initialised (zeroed, or a
        // copy of values of T: `DeviceCopy`, plain data); the caller's
        // contract makes this its one view.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.buffer
                    .as_mut_ptr()
                    .add(half * self.half_bytes)
                    .cast::<T>(),
                count,
            )
        }
    }
}

impl Staging {
    /// The halves, grown where smaller than a copy of `bytes` wants.
    fn halves_for(&self, bytes: usize) -> CudaResult<MutexGuard<'_, Option<Halves>>> {
        let wanted = bytes
            .next_multiple_of(STAGING_GRAIN_BYTES)
            .clamp(STAGING_GRAIN_BYTES, STAGING_HALF_BYTES);
        let mut held = self.halves.lock().unwrap_or_else(PoisonError::into_inner);
        if held
            .as_ref()
            .is_none_or(|halves| halves.half_bytes < wanted)
        {
            *held = None;
            *held = Some(Halves {
                buffer: zeroed_locked::<u8>(2 * wanted)?,
                half_bytes: wanted,
                copied: [
                    Event::new(EventFlags::DISABLE_TIMING)?,
                    Event::new(EventFlags::DISABLE_TIMING)?,
                ],
            });
        }
        Ok(held)
    }

    /// Copies `device` into `host` (of the same length) on `stream`, after
    /// the work queued on it before; returns when `host` holds it all.
    pub fn copy<T: DeviceCopy + Send + Sync>(
        &self,
        stream: &Stream,
        device: &DeviceSlice<T>,
        host: &mut [MaybeUninit<T>],
    ) -> CudaResult<()> {
        assert_eq!(device.len(), host.len(), "a copy between unequal lengths");
        let mut held = self.halves_for(size_of_val(host))?;
        let halves = held.as_mut().expect("made by halves_for");
        advise_huge_pages(host);
        // Whole values a half holds; the chunks of `host` that fill one.
        let per_half = halves.half_bytes / size_of::<T>().max(1);
        let len = host.len();
        let chunks = len.div_ceil(per_half);
        let range = |chunk: usize| chunk * per_half..((chunk + 1) * per_half).min(len);
        let start = |halves: &mut Halves, chunk: usize| -> CudaResult<()> {
            let (half, range) = (chunk % 2, range(chunk));
            // SAFETY: an asynchronous copy into locked memory, ordered
            // after the work queued on `stream` before; the half is not
            // read until its event says this copy is done, and the copy
            // before into it was read out before this was queued.
            unsafe {
                let staged = halves.half(half, range.len());
                device.index(range).async_copy_to(staged, stream)?;
            }
            halves.copied[half].record(stream)
        };
        if chunks > 0 {
            start(halves, 0)?;
        }
        for chunk in 0..chunks {
            if chunk + 1 < chunks {
                start(halves, chunk + 1)?;
            }
            let half = chunk % 2;
            halves.copied[half].synchronize()?;
            let out = &mut host[range(chunk)];
            // SAFETY: the half's event is done: its values are the
            // device's, and the copy queued since writes the other half.
            let staged = unsafe { halves.half::<T>(half, out.len()) };
            copy_parallel(staged, out);
        }
        Ok(())
    }

    /// Copies `host` into `device` (of the same length) on `stream`;
    /// returns when the device holds it all.
    pub fn upload<T: DeviceCopy + Send + Sync>(
        &self,
        stream: &Stream,
        host: &[T],
        device: &mut DeviceSlice<T>,
    ) -> CudaResult<()> {
        assert_eq!(device.len(), host.len(), "a copy between unequal lengths");
        let mut held = self.halves_for(size_of_val(host))?;
        let halves = held.as_mut().expect("made by halves_for");
        let per_half = halves.half_bytes / size_of::<T>().max(1);
        for (chunk, values) in host.chunks(per_half).enumerate() {
            let (half, first) = (chunk % 2, chunk * per_half);
            if chunk >= 2 {
                // The device's copy out of this half, two chunks ago.
                halves.copied[half].synchronize()?;
            }
            // SAFETY: no copy out of the half is in flight (waited for
            // above, or none yet), and this is its one view.
            let staged = unsafe { halves.half::<T>(half, values.len()) };
            // SAFETY: a `[T]` read as `[MaybeUninit<T>]`, to be written
            // with values of T only.
            copy_parallel(values, unsafe {
                &mut *(std::ptr::from_mut(staged) as *mut [MaybeUninit<T>])
            });
            // SAFETY: an asynchronous copy out of locked memory, whose half
            // is not written again until its event says it is done.
            unsafe {
                device
                    .index(first..first + values.len())
                    .async_copy_from(&*staged, stream)?;
            }
            halves.copied[half].record(stream)?;
        }
        // The halves free for the next copy, and the device's values whole.
        stream.synchronize()
    }

    /// `host`'s values in a new device buffer, of at least one value:
    /// kernels take a valid pointer, and cust rejects zero-sized
    /// allocations.
    pub fn to_device<T: DeviceCopy + Default + Send + Sync>(
        &self,
        stream: &Stream,
        host: &[T],
    ) -> CudaResult<DeviceBuffer<T>> {
        let empty = [T::default()];
        let host = if host.is_empty() { &empty[..] } else { host };
        // SAFETY: every value is written by the upload before the buffer
        // is returned.
        let mut device = unsafe { DeviceBuffer::uninitialized(host.len())? };
        self.upload(stream, host, &mut device)?;
        Ok(device)
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

/// `len` zeroes of T in page-locked memory, written on every core (cust's
/// own fill is a loop on one thread).
pub(super) fn zeroed_locked<T: DeviceCopy + bytemuck::Zeroable>(
    len: usize,
) -> CudaResult<LockedBuffer<T>> {
    // SAFETY: every byte is zeroed below before the buffer is returned,
    // and zero bytes are a value of T (`Zeroable`).
    let mut buffer = unsafe { LockedBuffer::<T>::uninitialized(len)? };
    let (start, bytes) = (buffer.as_mut_ptr() as usize, len * size_of::<T>());
    (0..bytes.div_ceil(PIECE_BYTES))
        .into_par_iter()
        .for_each(|piece| {
            let first = piece * PIECE_BYTES;
            // SAFETY: each piece lies in the buffer and is written by this
            // task alone.
            unsafe {
                (start as *mut u8)
                    .add(first)
                    .write_bytes(0, PIECE_BYTES.min(bytes - first));
            }
        });
    Ok(buffer)
}

/// Copies `from` into `to`: on every core, a piece each, where it is
/// large enough to repay waking them ([`ONE_THREAD_BELOW_BYTES`]).
fn copy_parallel<T: Copy + Send + Sync>(from: &[T], to: &mut [MaybeUninit<T>]) {
    let per_piece = (PIECE_BYTES / size_of::<T>().max(1)).max(1);
    let copy = |(from, to): (&[T], &mut [MaybeUninit<T>])| {
        assert_eq!(from.len(), to.len(), "a piece's ends disagree");
        // SAFETY: both slices hold `from.len()` values and do not overlap
        // (one is the staging, the other the caller's).
        unsafe {
            std::ptr::copy_nonoverlapping(from.as_ptr(), to.as_mut_ptr().cast::<T>(), from.len());
        }
    };
    if size_of_val(from) < ONE_THREAD_BELOW_BYTES {
        copy((from, to));
    } else {
        from.par_chunks(per_piece)
            .zip(to.par_chunks_mut(per_piece))
            .for_each(copy);
    }
}

/// Asks the kernel for huge pages under the whole 2 MiB pages of `result`
/// where it is large ([`HUGE_PAGES_FROM_BYTES`]): its fresh pages are
/// then faulted in 512 at a time. A hint: where the kernel gives none (its
/// setting is `never`, or the memory is not anonymous), nothing changes.
fn advise_huge_pages<T>(result: &mut [MaybeUninit<T>]) {
    if size_of_val(result) < HUGE_PAGES_FROM_BYTES {
        return;
    }
    let (start, end) = (result.as_ptr() as usize, result.as_ptr_range().end as usize);
    let first = start.next_multiple_of(HUGE_PAGE_BYTES);
    let last = end / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    if first < last {
        // SAFETY: the range lies within `result`, which this call borrows
        // mutably; the advice changes how its pages are backed, not what
        // they hold. Its error (no huge pages here) is no error of ours.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}
