//! Which thread this is: its index in the block and the grid, its lane,
//! the block's and the grid's sizes (CUDA's built-in variables).

use core::arch::nvptx;

/// Lanes in a warp.
pub const WARP_SIZE: u32 = 32;

/// `threadIdx.x`.
#[inline(always)]
pub fn thread_index() -> u32 {
    // SAFETY: reads the special register %tid.x, always defined in a kernel.
    unsafe { nvptx::_thread_idx_x() as u32 }
}

/// `blockIdx.x`.
#[inline(always)]
pub fn block_index() -> u32 {
    // SAFETY: reads the special register %ctaid.x, always defined in a kernel.
    unsafe { nvptx::_block_idx_x() as u32 }
}

/// `blockIdx.y`.
#[inline(always)]
pub fn block_index_y() -> u32 {
    // SAFETY: reads the special register %ctaid.y, always defined in a kernel.
    unsafe { nvptx::_block_idx_y() as u32 }
}

/// `blockDim.x`.
#[inline(always)]
pub fn block_size() -> u32 {
    // SAFETY: reads the special register %ntid.x, always defined in a kernel.
    unsafe { nvptx::_block_dim_x() as u32 }
}

/// `gridDim.x`.
#[inline(always)]
pub fn grid_size() -> u32 {
    // SAFETY: reads the special register %nctaid.x, always defined in a kernel.
    unsafe { nvptx::_grid_dim_x() as u32 }
}

/// `blockIdx.x * blockDim.x + threadIdx.x`: this thread's index in a 1D grid.
#[inline(always)]
pub fn global_thread_index() -> u32 {
    block_index() * block_size() + thread_index()
}

/// This thread's lane within its warp.
#[inline(always)]
pub fn lane_index() -> u32 {
    thread_index() % WARP_SIZE
}

/// The threads of the grid: `gridDim.x * blockDim.x`.
#[inline(always)]
pub fn grid_threads() -> u32 {
    grid_size() * block_size()
}

/// This thread's warp in the grid and the grid's warps: a grid-striding
/// loop over items a warp each starts at the first and steps by the second.
#[inline(always)]
pub fn grid_warps() -> (u32, u32) {
    (
        global_thread_index() / WARP_SIZE,
        grid_threads() / WARP_SIZE,
    )
}
