//! A graph's out-rows as the kernels of one direction read them: `n + 1`
//! offsets into the columns, each row's heads.

use super::EdgeOffset;

/// The graph's out-rows: `n + 1` offsets and their columns.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Rows {
    pub offsets: *const EdgeOffset,
    pub columns: *const u32,
}

const _: () = assert!(core::mem::size_of::<Rows>() == 16);

#[cfg(target_arch = "nvptx64")]
impl Rows {
    /// The block with each address marked as global memory
    /// ([`gpu::global`](crate::gpu::global)), as a kernel's pointer
    /// parameters are.
    #[inline(always)]
    pub fn in_global(self) -> Rows {
        use crate::gpu::global;
        Rows {
            offsets: global(self.offsets.cast_mut()).cast_const(),
            columns: global(self.columns.cast_mut()).cast_const(),
        }
    }
}
