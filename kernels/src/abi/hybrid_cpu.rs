//! Kernel entry point of the `hybrid-cpu` variant.

/// Marks the vertices the CPU discovered on the device.
pub const MARK: &str = "hybrid_cpu_mark";
