//! An open CUDA device: its context, the kernels' module (and, on devices
//! with thread-block clusters, the sm_90 one), the stream every search runs
//! on, and what opening it took.

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use cust::context::{Context, CurrentContext};
use cust::device::{Device, DeviceAttribute};
use cust::function::Function;
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};

use super::Variant;
use super::kernel_code::{self, KernelCode};
use super::locked::LockedPool;
use super::staging::Staging;
use crate::error::{CudaContext, describe_cuda};
use crate::{Error, Result};

/// An open CUDA device with the kernels loaded and a stream to run them on.
pub struct Gpu {
    module: Module,
    /// What `module` was loaded from.
    kernel_code: KernelCode,
    /// The sm_90 module, loaded when a cluster kernel is first asked for
    /// (on devices with thread-block clusters).
    cluster_module: OnceLock<std::result::Result<Module, String>>,
    compute_capability: (i32, i32),
    stream: Stream,
    name: String,
    multiprocessors: u32,
    cooperative_launch: bool,
    shared_memory_per_block: u32,
    /// How long opening the device took, step by step.
    startup: Startup,
    /// When the last search's timer stopped: what follows it in the
    /// search (copying the result back) is the download.
    pub(super) last_timer_stop: Mutex<Option<Instant>>,
    /// Page-locked staging for every copy back to the host.
    staging: Staging,
    /// Locked vectors for results, given back for the next ones.
    locked: LockedPool,
    // Dropped last: the module and stream belong to this context.
    context: Context,
}

/// How long opening a device took: the steps every CUDA program pays
/// before its first kernel, and the kernels' module.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Startup {
    /// `cuInit` and counting the devices, in seconds.
    pub cuda_init_seconds: f64,
    /// Creating the context (the device's primary one) and reading its
    /// attributes.
    pub context_seconds: f64,
    /// Loading the kernels' module (and, from PTX, the driver's JIT).
    pub module_load_seconds: f64,
}

impl Gpu {
    /// Opens the first CUDA device and loads the kernels: machine code for
    /// its architecture where it was built, else the PTX.
    ///
    /// Fails with [`Error::NoDevice`] when there is no driver or no GPU.
    pub fn open() -> Result<Gpu> {
        Self::on_device(0, None)
    }

    /// Opens CUDA device `ordinal` (of [`device_count`](Self::device_count))
    /// and loads the kernels, for one GPU of a multi-GPU search.
    pub fn open_device(ordinal: u32) -> Result<Gpu> {
        Self::on_device(ordinal, None)
    }

    /// CUDA devices the driver sees; [`Error::NoDevice`] without a driver.
    pub fn device_count() -> Result<u32> {
        super::libcuda::loaded()?;
        let no_device = |error: cust::error::CudaError| Error::NoDevice(describe_cuda(&error));
        cust::init(cust::CudaFlags::empty()).map_err(no_device)?;
        Device::num_devices().map_err(no_device)
    }

    /// As [`open`](Self::open), loading the kernels from `ptx` instead of the
    /// embedded PTX (kernels built apart, or a broken module in tests). It
    /// must define every entry point of [`bfs_kernels::abi::KERNEL_NAMES`] with
    /// the same parameters. The cluster kernels are the embedded ones.
    pub fn with_ptx(ptx: &str) -> Result<Gpu> {
        Self::on_device(0, Some(ptx))
    }

    /// Opens device `ordinal` and loads `ptx`, or the embedded kernels.
    fn on_device(ordinal: u32, ptx: Option<&str>) -> Result<Gpu> {
        let no_device = |error: cust::error::CudaError| Error::NoDevice(describe_cuda(&error));
        let started = Instant::now();
        let count = Self::device_count()?;
        let initialised = Instant::now();
        if count == 0 {
            return Err(Error::NoDevice("the driver reports no GPU".into()));
        }
        if ordinal >= count {
            return Err(Error::MultiGpu(format!(
                "GPU {ordinal} was asked for; the driver sees {count}"
            )));
        }
        let device = Device::get_device(ordinal).map_err(no_device)?;
        let context = Context::new(device).context(|| "creating a context".into())?;
        let name = device.name().context(|| "reading the device name".into())?;
        let attribute = |attribute, what: &str| {
            device
                .get_attribute(attribute)
                .context(|| format!("reading the device's {what}"))
        };
        let multiprocessors =
            attribute(DeviceAttribute::MultiprocessorCount, "multiprocessor count")? as u32;
        use cust::sys::CUdevice_attribute as Attribute;
        let cooperative_launch =
            raw_attribute(device, Attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH) > 0;
        let shared_memory_per_block = raw_attribute(
            device,
            Attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        )
        .max(0) as u32;
        let compute_capability = (
            attribute(
                DeviceAttribute::ComputeCapabilityMajor,
                "compute capability",
            )?,
            attribute(
                DeviceAttribute::ComputeCapabilityMinor,
                "compute capability",
            )?,
        );
        // A blocking stream: it waits for the driver's plain copies and
        // memsets (`DeviceBuffer::from_slice`, `zeroed`, `copy_from`), which
        // run on the legacy default stream, and they wait for it. A
        // non-blocking one would let a kernel start before a pageable
        // upload's bytes land, or before a memset, with nothing to say so.
        let stream =
            Stream::new(StreamFlags::DEFAULT, None).context(|| "creating a stream".into())?;
        let context_created = Instant::now();
        let (module, kernel_code) = match ptx {
            Some(ptx) => (kernel_code::load_ptx(ptx)?, KernelCode::Ptx),
            None => kernel_code::load(kernel_code::Kernels::All, compute_capability)?,
        };
        let seconds = |from: Instant, to: Instant| (to - from).as_secs_f64();
        Ok(Gpu {
            module,
            kernel_code,
            cluster_module: OnceLock::new(),
            compute_capability,
            stream,
            name,
            multiprocessors,
            cooperative_launch,
            shared_memory_per_block,
            startup: Startup {
                cuda_init_seconds: seconds(started, initialised),
                context_seconds: seconds(initialised, context_created),
                module_load_seconds: seconds(context_created, Instant::now()),
            },
            last_timer_stop: Mutex::new(None),
            staging: Staging::default(),
            locked: LockedPool::new(context.clone()),
            context,
        })
    }

    /// Makes this device's context current on the calling thread (a
    /// device opened on another thread, while the graph loaded).
    pub fn make_current(&self) -> Result<()> {
        CurrentContext::set_current(&self.context)
            .context(|| "making the device's context current".into())
    }

    /// The page-locked staging that copies back to the host go through.
    pub(crate) fn staging(&self) -> &Staging {
        &self.staging
    }

    /// Locked vectors for results (`locked.rs`).
    pub(super) fn locked(&self) -> &LockedPool {
        &self.locked
    }

    /// What the kernels' module was loaded from.
    pub fn kernel_code(&self) -> &KernelCode {
        &self.kernel_code
    }

    /// How long opening the device took.
    pub fn startup(&self) -> Startup {
        self.startup
    }

    /// When the last search's device timer stopped (see [`Search::run`]).
    pub(crate) fn last_timer_stop(&self) -> Option<Instant> {
        *self
            .last_timer_stop
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The device's name, as the driver reports it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Device memory the driver reports free, in bytes.
    pub fn free_memory(&self) -> Result<u64> {
        let (free, _total) =
            cust::memory::mem_get_info().context(|| "querying free device memory".into())?;
        Ok(free as u64)
    }

    /// Streaming multiprocessors on the device.
    pub(crate) fn multiprocessors(&self) -> u32 {
        self.multiprocessors
    }

    /// Whether the device runs cooperative launches (all blocks resident at once).
    pub fn cooperative_launch(&self) -> bool {
        self.cooperative_launch
    }

    /// The most shared memory a block may use, in bytes, once a kernel opts in.
    pub(crate) fn shared_memory_per_block(&self) -> u32 {
        self.shared_memory_per_block
    }

    /// The stream every variant runs on.
    pub(crate) fn stream(&self) -> &Stream {
        &self.stream
    }

    /// A kernel of the loaded module, by its entry name in
    /// [`bfs_kernels::abi`]; only [`Gpu::entry`] asks, so every launch
    /// goes through a typed [`Entry`](super::Entry).
    pub(super) fn kernel(&self, name: &str) -> Result<Function<'_>> {
        self.module
            .get_function(name)
            .context(|| format!("finding kernel {name}"))
    }

    /// A kernel of the sm_90 module, for `variant`; an error on a device
    /// without thread-block clusters.
    pub(super) fn cluster_kernel(&self, name: &str, variant: &str) -> Result<Function<'_>> {
        if !self.has_clusters() {
            let (major, minor) = self.compute_capability;
            return Err(Error::Unsupported(format!(
                "{variant} needs thread-block clusters (compute capability 9.0 or newer); {} has {major}.{minor}",
                self.name
            )));
        }
        let module = self
            .cluster_module
            .get_or_init(|| {
                kernel_code::load(kernel_code::Kernels::Cluster, self.compute_capability)
                    .map(|(module, _)| module)
                    .map_err(|error| format!("loading the cluster kernels: {error}"))
            })
            .as_ref()
            .map_err(|error| Error::Invalid(error.clone()))?;
        module
            .get_function(name)
            .context(|| format!("finding kernel {name}"))
    }

    /// Whether the device has thread-block clusters (compute capability 9.0 or newer).
    pub(crate) fn has_clusters(&self) -> bool {
        self.compute_capability.0 >= 9
    }

    /// Whether this device runs `variant` at all: every variant but
    /// `on-chip` runs everywhere; that one needs thread-block clusters.
    pub fn runs(&self, variant: Variant) -> bool {
        variant != Variant::OnChip || self.has_clusters()
    }

    /// Every variant this device runs, in [`Variant::ALL`]'s order.
    pub fn variants(&self) -> Vec<Variant> {
        Variant::ALL
            .iter()
            .copied()
            .filter(|&variant| self.runs(variant))
            .collect()
    }
}

/// A device attribute that cust's list predates; 0 if the driver cannot tell.
fn raw_attribute(device: Device, attribute: cust::sys::CUdevice_attribute) -> i32 {
    let mut value = 0;
    // SAFETY: writes one int for a valid device handle.
    let result = unsafe { cust::sys::cuDeviceGetAttribute(&mut value, attribute, device.as_raw()) };
    if result == cust::sys::CUresult::CUDA_SUCCESS {
        value
    } else {
        0
    }
}

/// How many GPUs a run asks for (`--gpus`): a count, or every GPU the
/// driver sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuCount {
    /// This many.
    Count(u32),
    /// Every GPU of the host.
    All,
}

impl GpuCount {
    /// Parses `--gpus`: a positive count, or `all`.
    pub fn parse(text: &str) -> std::result::Result<GpuCount, String> {
        match text {
            "all" => Ok(GpuCount::All),
            _ => match text.parse::<u32>() {
                Ok(count) if count > 0 => Ok(GpuCount::Count(count)),
                _ => Err(format!(
                    "'{text}' is not a positive number of GPUs or `all`"
                )),
            },
        }
    }

    /// The number of GPUs: `all` is every GPU the driver sees.
    pub fn resolve(self) -> Result<u32> {
        match self {
            GpuCount::Count(count) => Ok(count),
            GpuCount::All => Gpu::device_count(),
        }
    }
}
