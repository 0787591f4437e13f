//! Kernel entry point that maps a renumbered search's levels and parents
//! back to the graph's own ids.

/// A thread per vertex gathers its level and parent from its new id.
pub const GATHER: &str = "renumbering_gather";
