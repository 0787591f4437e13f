//! The engine that searches a run's many sources: the GPU's where there
//! is a GPU, else the CPU's, by the method `auto` takes for the graph
//! (GPU: a contraction hierarchy's trees, or bit-parallel batches; CPU:
//! bit-parallel batches, a source a thread, or over the contracted
//! chains), or one source at a time to compare.

use anyhow::bail;
use bfs::gpu::Gpu;
use bfs::gpu::HierarchySweep;
use bfs::graph::hierarchy::ContractionHierarchy;
use bfs::graph::prepared::Preparations;
use bfs::many::{CpuMethod, GpuMethod, ManySources, OneByOne};
use bfs::phases::{Phase, Phases};
use bfs::{Csr, cpu, many};
use clap::ValueEnum;

use crate::DeviceChoice;

/// `--method`: how many sources are searched.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Method {
    /// By the graph. On a GPU: a contraction hierarchy's trees on road
    /// networks, else bit-parallel batches. On the CPU: bit-parallel
    /// batches where a search has few levels, else a source a thread
    /// (over the contracted chains where most vertices lie in them).
    Auto,
    /// Bit-parallel batches (MS-BFS), each level on every core (GPU or
    /// CPU).
    BitParallel,
    /// Whole searches, a source a thread.
    SourceParallel,
    /// A source a thread over the graph's degree-2 chains contracted, each
    /// chain's inner vertices counted in closed form (undirected graphs).
    Chains,
    /// On a GPU: a tree a source in the two sweeps of a contraction
    /// hierarchy (PHAST), each level a launch for the whole batch
    /// (undirected graphs).
    Hierarchy,
    /// One source at a time by the direction-optimizing engine, on every
    /// core (to compare).
    OneByOne,
}

/// How a run asks its sources to be searched.
#[derive(Clone, Copy)]
pub(crate) struct BatchOptions {
    /// `--device`.
    pub(crate) device: DeviceChoice,
    /// `--threads`, where given.
    pub(crate) threads: Option<u32>,
    /// Sources a bit-parallel batch takes, where asked for (a multiple of
    /// 64; it asks for bit-parallel batches).
    pub(crate) width: Option<usize>,
    /// The most words a vertex a CPU batch may take, where its rows must
    /// fit in host memory.
    pub(crate) most_words: Option<usize>,
    /// `--method`.
    pub(crate) method: Method,
}

/// What a run's graph file held beside the graph, by the file's name.
pub(crate) struct Prepared<'a> {
    /// The graph's name, for notes.
    pub(crate) name: &'a str,
    /// The file's sections (none for a generated graph or a plain file).
    pub(crate) sections: &'a Preparations,
}

impl Prepared<'_> {
    /// The contraction hierarchy the file holds for `graph`, where it has
    /// a usable one; an unusable one is named in a note and built anew.
    pub(crate) fn hierarchy(&self, graph: &Csr) -> Option<ContractionHierarchy> {
        match many::prepared_hierarchy(self.sections, graph) {
            Ok(hierarchy) => hierarchy,
            Err(why) => {
                eprintln!(
                    "note: {}'s prepared hierarchy is unusable ({why}); building it anew",
                    self.name
                );
                None
            }
        }
    }
}

/// The engine for `sources` sources of `graph` that `options` ask for,
/// and why it runs where it does: on `gpu` where one was opened (by
/// `auto`'s GPU method or the one asked for; the trees over `prepared`'s
/// hierarchy where the file has one), else on the CPU by `options`'
/// method (`no_gpu` says why, where `--device` did not ask for the CPU).
/// The run's `phases` end with the method's choice (plan), the
/// hierarchy's load or build (preparation) and the engine's buffers and
/// upload (upload).
pub(crate) fn batch_engine<'g>(
    options: BatchOptions,
    (graph, prepared): (&'g Csr, &Prepared<'_>),
    (gpu, no_gpu): (Option<&'g Gpu>, Option<String>),
    sources: usize,
    phases: &mut Phases,
) -> anyhow::Result<(Box<dyn ManySources + 'g>, String)> {
    if let Some(gpu) = gpu {
        let why = format!("--device {}", crate::spelled(options.device));
        let (method, mut why) = match options.method {
            Method::Auto => {
                let (method, reason) = many::gpu_method(graph, sources);
                (method, format!("{why}; auto: {reason}"))
            }
            Method::Hierarchy => (GpuMethod::HierarchyTrees, why),
            _ => (GpuMethod::BitParallel, why),
        };
        phases.end(Phase::Plan);
        let hierarchy = match method {
            GpuMethod::HierarchyTrees => match prepared.hierarchy(graph) {
                Some(hierarchy) => {
                    why = format!("{why}; its hierarchy from the prepared file");
                    Some(hierarchy)
                }
                None => Some(HierarchySweep::build(graph)?),
            },
            GpuMethod::BitParallel => None,
        };
        phases.end(Phase::Preparation);
        let engine = method.engine_from(gpu, graph, sources, hierarchy)?;
        phases.end(Phase::Upload);
        return Ok((engine, why));
    }
    if options.method == Method::Hierarchy {
        bail!("--method hierarchy searches on a GPU; this run is on the CPU");
    }
    let why = match (no_gpu, options.device) {
        (Some(why), _) => why,
        (None, DeviceChoice::CpuReference) => {
            let engine = OneByOne::new(graph, None)?;
            phases.end(Phase::Upload);
            return Ok((Box::new(engine), "--device cpu-reference".into()));
        }
        (None, device) => format!("--device {}", crate::spelled(device)),
    };
    let found = cpu_engine(options, graph, sources, why);
    phases.end(Phase::Upload);
    found
}

/// The CPU engine for `sources` sources of `graph` by `options`' method,
/// and why (`why`, with the method's reason where `auto` chose it).
fn cpu_engine<'g>(
    options: BatchOptions,
    graph: &'g Csr,
    sources: usize,
    why: String,
) -> anyhow::Result<(Box<dyn ManySources + 'g>, String)> {
    let (method, why) = match options.method {
        Method::Auto if options.width.is_none() => {
            let (method, reason) = many::cpu_method(graph);
            (Some(method), format!("{why}; auto: {reason}"))
        }
        Method::Auto | Method::BitParallel => (Some(CpuMethod::BitParallel), why),
        Method::SourceParallel => (Some(CpuMethod::SourceParallel), why),
        Method::Chains => (Some(CpuMethod::Chains), why),
        Method::OneByOne | Method::Hierarchy => (None, why),
    };
    let engine: Box<dyn ManySources + 'g> = match method {
        Some(method) => {
            let words = options.width.map_or_else(
                || many::words_for(sources).min(options.most_words.unwrap_or(usize::MAX)),
                |width| width / 64,
            );
            method.engine(
                graph,
                words,
                options.threads.map(|threads| threads as usize),
            )?
        }
        None => {
            let threads = options
                .threads
                .map_or_else(|| cpu::threads_for(graph), |threads| threads as usize);
            Box::new(OneByOne::new(graph, Some(threads))?)
        }
    };
    Ok((engine, why))
}
