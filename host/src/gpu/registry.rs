//! The variant registry: one row per variant in [`variants!`] (invoked in
//! `gpu/mod.rs`) gives its `--variant` name, its one-line description and
//! its driver. Every list of variants (the enum, [`Variant::ALL`], the
//! names, the descriptions, building a driver and sizing its buffers)
//! comes from those rows.

use std::fmt;
use std::str::FromStr;

use super::{DeviceGraph, Gpu, GpuRun, Request, Variant};
use crate::{Csr, Result};

/// One BFS strategy on the GPU, with its buffers allocated for a graph size.
pub trait GpuBfs {
    /// Runs one search from `source` (already checked to be a vertex).
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun>;

    /// Device bytes allocated besides the graph, where the variant's
    /// `workspace_bytes` could only bound them before building.
    fn device_bytes(&self) -> Option<u64> {
        None
    }
}

/// What the registry needs of a variant's host driver besides searching:
/// its device memory before it is built, and building it.
pub trait Driver<'g>: GpuBfs + Sized + 'g {
    /// Device bytes the driver allocates for `graph` on `gpu` besides the
    /// graph itself (a bound, where only building tells).
    fn workspace_bytes(gpu: &Gpu, graph: &Csr) -> u64;

    /// Loads the driver's kernels and allocates its buffers for `graph`.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self>;
}

/// Builds [`Variant`] from rows of `Name: module, "name", "description";`,
/// where `module::Name` is the driver (a [`Driver`]) in `gpu/module.rs`,
/// declared with a plain `mod` line in `gpu/mod.rs` (rustfmt does not read
/// modules declared inside a macro).
macro_rules! variants {
    ($($variant:ident: $module:ident, $name:literal, $description:literal;)+) => {
        /// The BFS variants: a kernel file in `kernels/src`, a driver file in
        /// `host/src/gpu`, and a row of the registry each.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Variant {
            $(#[doc = $description] $variant,)+
        }

        impl Variant {
            /// Every variant, in the order the textbook introduces them.
            pub const ALL: &[Variant] = &[$(Variant::$variant),+];

            /// The name used by `--variant`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Variant::$variant => $name,)+
                }
            }

            /// One line on what the variant does (`--list-variants`, and the
            /// README's table).
            pub fn description(self) -> &'static str {
                match self {
                    $(Variant::$variant => $description,)+
                }
            }

            /// Device bytes the variant allocates besides the graph, for
            /// `graph` on `gpu`.
            pub(crate) fn workspace_bytes(self, gpu: &Gpu, graph: &Csr) -> u64 {
                match self {
                    $(Variant::$variant => {
                        <$module::$variant as Driver>::workspace_bytes(gpu, graph)
                    })+
                }
            }

            /// The variant's driver, its buffers allocated for `graph`.
            pub(crate) fn create<'g>(
                self,
                gpu: &'g Gpu,
                graph: &'g Csr,
            ) -> Result<Box<dyn GpuBfs + 'g>> {
                Ok(match self {
                    $(Variant::$variant => {
                        Box::new(<$module::$variant as Driver>::new(gpu, graph)?)
                    })+
                })
            }
        }
    };
}
pub(crate) use variants;

impl Variant {
    /// Whether the variant records a BFS parent per vertex (all but Rodinia's).
    pub fn records_parents(self) -> bool {
        self != Variant::TwoKernel
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = String;

    fn from_str(name: &str) -> std::result::Result<Variant, String> {
        Variant::ALL
            .iter()
            .copied()
            .find(|variant| variant.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Variant::ALL.iter().map(|variant| variant.name()).collect();
                format!("unknown variant '{name}' (one of: {})", names.join(", "))
            })
    }
}
