//! Which code of the kernels the driver gets: machine code (a cubin that
//! `ptxas` assembled at build time, `host/build.rs`) where one was built for
//! the GPU's architecture family, else the PTX, which the driver compiles
//! for the GPU when the module loads (its JIT, cached on disk between runs
//! where the cache is enabled and warm).

use std::io::Read;

use cust::module::Module;

use crate::error::CudaContext;
use crate::{Error, Result};

include!(concat!(env!("OUT_DIR"), "/kernel_images.rs"));

/// The kernels, built from the `bfs-kernels` crate to PTX by `build.rs`.
pub const KERNELS_PTX: &str = include_str!(env!("BFS_KERNELS_PTX"));

/// The kernels that need thread-block clusters, built for sm_90 by `build.rs`.
pub const CLUSTER_KERNELS_PTX: &str = include_str!(env!("BFS_KERNELS_SM90_PTX"));

/// The modules a device loads: every kernel, and the cluster kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernels {
    /// Every kernel but the cluster ones (targets sm_75).
    All,
    /// The kernels that need thread-block clusters (targets sm_90).
    Cluster,
}

impl Kernels {
    fn ptx(self) -> &'static str {
        match self {
            Kernels::All => KERNELS_PTX,
            Kernels::Cluster => CLUSTER_KERNELS_PTX,
        }
    }

    /// The architectures (`major * 10 + minor`) with embedded machine code.
    pub fn cubin_architectures(self) -> Vec<u32> {
        self.cubins()
            .iter()
            .map(|&(architecture, _)| architecture)
            .collect()
    }

    fn cubins(self) -> &'static [(u32, &'static [u8])] {
        match self {
            Kernels::All => KERNELS_CUBINS,
            Kernels::Cluster => CLUSTER_KERNELS_CUBINS,
        }
    }
}

/// What a module was loaded from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelCode {
    /// Machine code assembled at build time for `sm_{0}`.
    Cubin(u32),
    /// PTX, compiled by the driver for the device.
    Ptx,
}

impl std::fmt::Display for KernelCode {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KernelCode::Cubin(architecture) => write!(formatter, "sm_{architecture} machine code"),
            KernelCode::Ptx => formatter.write_str("PTX compiled by the driver"),
        }
    }
}

/// The embedded cubin that runs on a device of compute capability
/// `(major, minor)`: its own, else the newest of its major version no newer
/// than it (machine code runs on later minor versions of its major one).
pub fn cubin_for(kernels: Kernels, (major, minor): (i32, i32)) -> Option<(u32, &'static [u8])> {
    let device = (major * 10 + minor) as u32;
    kernels
        .cubins()
        .iter()
        .copied()
        .filter(|&(architecture, _)| architecture / 10 == device / 10 && architecture <= device)
        .max_by_key(|&(architecture, _)| architecture)
}

/// Loads `kernels` for a device of compute capability `capability`: its
/// cubin where there is one, else the PTX.
pub fn load(kernels: Kernels, capability: (i32, i32)) -> Result<(Module, KernelCode)> {
    match cubin_for(kernels, capability) {
        Some((architecture, gzipped)) => {
            let mut cubin = Vec::new();
            flate2::read::GzDecoder::new(gzipped)
                .read_to_end(&mut cubin)
                .map_err(|error| {
                    Error::Invalid(format!(
                        "unpacking the embedded sm_{architecture} kernels: {error}"
                    ))
                })?;
            let module = Module::from_cubin(&cubin, &[])
                .context(|| format!("loading the kernels' sm_{architecture} machine code"))?;
            Ok((module, KernelCode::Cubin(architecture)))
        }
        None => Ok((load_ptx(kernels.ptx())?, KernelCode::Ptx)),
    }
}

/// Loads a module from PTX (the driver compiles it for the device).
pub fn load_ptx(ptx: &str) -> Result<Module> {
    Module::from_ptx(ptx, &[]).context(|| "loading the kernels' PTX".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each GPU takes the cubin of its own architecture where there is
    /// one, else its major version's newest no newer than it, else the PTX;
    /// every cubin unpacks to an ELF image.
    #[test]
    fn each_architecture_takes_its_machine_code_or_the_ptx() {
        if KERNELS_CUBINS.is_empty() {
            eprintln!("skip: built without ptxas, so no cubins are embedded");
            return;
        }
        assert_eq!(
            Kernels::All.cubin_architectures(),
            [80, 86, 89, 90, 100, 120]
        );
        let picked =
            |capability| cubin_for(Kernels::All, capability).map(|(architecture, _)| architecture);
        for (capability, expected) in [
            ((8, 0), Some(80)),
            ((8, 6), Some(86)),
            ((8, 7), Some(86)),
            ((8, 9), Some(89)),
            ((9, 0), Some(90)),
            ((10, 3), Some(100)),
            ((12, 1), Some(120)),
            ((7, 5), None),
            ((11, 0), None),
        ] {
            assert_eq!(picked(capability), expected, "{capability:?}");
        }
        assert_eq!(cubin_for(Kernels::Cluster, (8, 9)), None);
        for kernels in [Kernels::All, Kernels::Cluster] {
            for &(architecture, gzipped) in kernels.cubins() {
                let mut cubin = Vec::new();
                flate2::read::GzDecoder::new(gzipped)
                    .read_to_end(&mut cubin)
                    .unwrap();
                assert_eq!(&cubin[..4], b"\x7fELF", "sm_{architecture}");
            }
        }
    }
}
