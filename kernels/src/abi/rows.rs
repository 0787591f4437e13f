//! A graph's out-rows as the kernels of one direction read them: `n + 1`
//! offsets into the columns, each row's heads.

use super::{EdgeOffset, in_global};

/// The graph's out-rows: `n + 1` offsets and their columns.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Rows {
    pub offsets: *const EdgeOffset,
    pub columns: *const u32,
}

const _: () = assert!(core::mem::size_of::<Rows>() == 16);

in_global!(Rows { offsets, columns });
