//! Kernel entry point of the `hybrid-cpu` variant.

use super::entry_points;

entry_points! {
    /// Marks the vertices the CPU discovered on the device. Its parameters:
    /// the discoveries (triples), their count, and the visited bitmap, levels
    /// and parents.
    pub const MARK: Kernel<(*const u32, u32, *mut u32, *mut u32, *mut u32)> =
        Kernel::new("hybrid_cpu_mark");
}
