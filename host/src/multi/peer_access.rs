//! Access from each GPU of this process to the others' memory (CUDA peer
//! access, over NVLink where the GPUs have it). Where every pair of GPUs
//! of a search has it, the ranks, threads of this process, read a small
//! top-down level's claims, and a bottom-up level's frontier words or
//! queues, where the other GPUs wrote them instead of sending them
//! (`kernels/src/distributed.rs`: `distributed_meet_peers`,
//! `distributed_apply_claims`, `distributed_read_peer_frontiers`,
//! `distributed_read_peer_queues`).

use cust::sys::{CUcontext, CUdevice, CUresult};

use crate::Result;
use crate::error::driver_result;

/// The most peers a GPU's context can open to its own: CUDA allows eight.
const MOST_PEERS: u32 = 8;

/// Whether every pair of GPUs `0..count` can reach each other's memory
/// (none can, past eight others each: `MOST_PEERS`).
pub fn between_all(count: u32) -> Result<bool> {
    if count > MOST_PEERS + 1 {
        return Ok(false);
    }
    for own in 0..count {
        for peer in (0..count).filter(|&peer| peer != own) {
            let what = || format!("asking whether GPU {own} can reach GPU {peer}'s memory");
            let (own_device, peer_device) = (device(own)?, device(peer)?);
            let mut can_access = 0;
            // SAFETY: writes one int; both devices are the driver's.
            let result = unsafe {
                cust::sys::cuDeviceCanAccessPeer(&mut can_access, own_device, peer_device)
            };
            driver_result(result, what)?;
            if can_access == 0 {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Access from the GPU whose context is current on this thread to every
/// other GPU of `0..count`, whose primary contexts it holds while it lasts.
pub struct PeerAccess {
    retained: Vec<CUdevice>,
}

impl PeerAccess {
    /// Enables access from GPU `own` (its primary context current on this
    /// thread) to each other GPU of `0..count`, which [`between_all`] found
    /// possible.
    pub fn enable(own: u32, count: u32) -> Result<PeerAccess> {
        let mut access = PeerAccess {
            retained: Vec::new(),
        };
        for peer in (0..count).filter(|&peer| peer != own) {
            let what = || format!("opening GPU {peer}'s memory to GPU {own}");
            let handle = device(peer)?;
            let mut context: CUcontext = std::ptr::null_mut();
            // SAFETY: writes one context handle; the device is the driver's.
            let result = unsafe { cust::sys::cuDevicePrimaryCtxRetain(&mut context, handle) };
            driver_result(result, what)?;
            access.retained.push(handle);
            // SAFETY: `context` is another device's, retained above; this
            // thread's current context is GPU `own`'s.
            let result = unsafe { cust::sys::cuCtxEnablePeerAccess(context, 0) };
            if result != CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
                driver_result(result, what)?;
            }
        }
        Ok(access)
    }
}

impl Drop for PeerAccess {
    fn drop(&mut self) {
        for &handle in &self.retained {
            // SAFETY: releases one retain of `enable`, once.
            unsafe { cust::sys::cuDevicePrimaryCtxRelease_v2(handle) };
        }
    }
}

/// The driver's handle of GPU `ordinal`.
fn device(ordinal: u32) -> Result<CUdevice> {
    let mut handle: CUdevice = 0;
    // SAFETY: writes one device handle.
    let result = unsafe { cust::sys::cuDeviceGet(&mut handle, ordinal as i32) };
    driver_result(result, || format!("opening GPU {ordinal}"))?;
    Ok(handle)
}
