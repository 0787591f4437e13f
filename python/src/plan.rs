//! The GPU search a resident graph gets: the variant asked for, or
//! `auto`'s plan, with the preparation it needs where one is at hand.
//!
//! A resident graph is searched many times, but a search should not stall
//! on building a contraction hierarchy or ghost zones that nobody asked
//! for: `auto` plans as the command line does for many searches where
//! what that plan needs is at hand (built by `Graph.prepare()`, or stored
//! in the graph's `.bcsr` file by `bfs prepare`), and as it does for one
//! search otherwise.

use bfs::gpu::{self, Gpu, Search, Strategy, Variant, Workload};
use bfs::graph::prepared::{Preparation, PreparationKind, Preparations};
use bfs::{Csr, Result};

/// What a graph has prepared: its file's sections, and what was built or
/// loaded from them (kept, so a search made again need not redo it).
pub struct Prepared {
    /// The sections of the graph's `.bcsr` file, if it was one.
    file: Preparations,
    /// Built by `prepare()`, or loaded from the file once.
    held: Vec<Preparation>,
}

impl Prepared {
    /// Nothing built yet; `file` lists what the graph's file holds.
    pub fn new(file: Preparations) -> Prepared {
        Prepared {
            file,
            held: Vec::new(),
        }
    }

    /// Builds what `auto`'s plan for many searches needs on `gpu` (its
    /// ghost zones sized for the GPU's blocks), unless it is at hand;
    /// returns what that is, in words.
    pub fn prepare(&mut self, gpu: Option<&Gpu>, graph: &Csr) -> Result<String> {
        let cooperative = gpu.is_none_or(Gpu::cooperative_launch);
        let plan = gpu::plan(graph, cooperative, Workload::many());
        let Some(kind) = plan.strategy.needs() else {
            return Ok(format!(
                "nothing to prepare: auto takes {} ({})",
                plan.strategy.name(),
                plan.reason
            ));
        };
        if self.take(kind, gpu, graph).is_some() {
            return Ok(format!("its {} was prepared already", kind.name()));
        }
        let capacity = match gpu {
            Some(gpu) => gpu::ghost_zone_capacity(gpu),
            None => {
                gpu::roads::ghost_zones::capacity(gpu::roads::ghost_zones::SHARED_BYTES_WITHOUT_GPU)
            }
        };
        let started = std::time::Instant::now();
        self.held
            .push(gpu::build_preparation(graph, kind, capacity)?);
        Ok(format!(
            "its {} built in {:.3} s",
            kind.name(),
            started.elapsed().as_secs_f64()
        ))
    }

    /// A copy of `kind`'s preparation where one is held or the file holds
    /// a usable one (zones that fit `gpu`'s blocks).
    fn take(
        &mut self,
        kind: PreparationKind,
        gpu: Option<&Gpu>,
        graph: &Csr,
    ) -> Option<Preparation> {
        if let Some(held) = self.held.iter().find(|held| held.kind() == kind) {
            return Some(held.clone());
        }
        let loaded = self.file.load(kind, graph.vertex_count())?.ok()?;
        if let (Preparation::GhostZones(zones), Some(gpu)) = (&loaded, gpu)
            && zones.most_zone_vertices > gpu::ghost_zone_capacity(gpu)
        {
            return None;
        }
        self.held.push(loaded.clone());
        Some(loaded)
    }
}

/// `variant`'s search of `graph` on `gpu`, and the plan in one line.
pub fn gpu_search<'g>(
    gpu: &'g Gpu,
    graph: &'g Csr,
    variant: Variant,
    prepared: &mut Prepared,
) -> Result<(Search<'g>, String)> {
    let kind = match variant {
        Variant::HierarchySweep => Some(PreparationKind::Hierarchy),
        Variant::GhostZones => Some(PreparationKind::GhostZones),
        Variant::Auto => return auto_search(gpu, graph, prepared),
        _ => None,
    };
    let preparation = kind.and_then(|kind| prepared.take(kind, Some(gpu), graph));
    let how = match (&preparation, kind) {
        (Some(_), Some(kind)) => format!("; its {} prepared", kind.name()),
        (None, Some(kind)) => format!("; its {} built for it", kind.name()),
        _ => String::new(),
    };
    let search = Search::prepared(gpu, graph, variant, None, preparation)?;
    Ok((search, format!("variant {variant} (asked for){how}")))
}

/// `auto`'s search (see the module's header).
fn auto_search<'g>(
    gpu: &'g Gpu,
    graph: &'g Csr,
    prepared: &mut Prepared,
) -> Result<(Search<'g>, String)> {
    let cooperative = gpu.cooperative_launch();
    let many = gpu::plan(graph, cooperative, Workload::many());
    let at_hand = many
        .strategy
        .needs()
        .map(|kind| (kind, prepared.take(kind, Some(gpu), graph)));
    let (strategy, preparation, line): (Strategy, Option<Preparation>, String) = match at_hand {
        None => (many.strategy, None, many.reason),
        Some((kind, Some(preparation))) => (
            many.strategy,
            Some(preparation),
            format!("{}; its {} prepared", shape(&many.reason), kind.name()),
        ),
        Some((_, None)) => {
            let none = Preparations::none();
            let one = gpu::plan(
                graph,
                cooperative,
                Workload {
                    searches: 1,
                    prepared: &none,
                },
            );
            let reason = format!("{}; Graph.prepare() builds it", one.reason);
            (one.strategy, None, reason)
        }
    };
    let search = Search::prepared(gpu, graph, Variant::Auto, Some(strategy), preparation)?;
    Ok((search, format!("auto took {}: {line}", strategy.name())))
}

/// The graph's shape, the first clause of a plan's reason.
fn shape(reason: &str) -> &str {
    reason.split("; ").next().unwrap_or(reason)
}
