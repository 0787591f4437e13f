//! Breadth-first search kernels written in `no_std` Rust for `nvptx64-nvidia-cuda`.
//!
//! Compiled twice: for the GPU, where every technique module below becomes PTX
//! that the host loads with `cust`; and for the host, where only [`abi`] is
//! visible, so both sides share one definition of kernel names, launch shapes
//! and data encodings.
//!
//! Reading order: [`abi`] (what crosses the boundary), `gpu` (the device
//! primitives), then one file per technique, each opening with the algorithm
//! and its source.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        abi_ptx,
        asm_experimental_arch,
        core_intrinsics,
        stdarch_nvptx,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem
    )
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod abi;
#[cfg(target_arch = "nvptx64")]
pub mod gpu;
#[cfg(target_arch = "nvptx64")]
pub mod two_kernel;
