//! The many-sources section of `BENCHMARKS.md`: its method, the graphs, a
//! table a graph, networkx beside `bfs centrality`, and the targets met or
//! missed; and the compact table a run prints at its end.

use std::fmt::Write as _;

use super::peers::Compared;
use super::{CLOSENESS_BUDGETS, Described, Kind, Row, SECTION, Validation};

/// What a run measured, as it goes.
pub struct Measured {
    /// The GPU, or why there is none.
    pub device: String,
    /// The command, as the bundle runs it.
    pub command: String,
    /// Threads of the CPU rows.
    pub threads: usize,
    /// A sampled row's budget, in seconds.
    pub row_seconds: f64,
    /// The graphs, in order.
    pub graphs: Vec<Described>,
    /// Their rows.
    pub rows: Vec<Row>,
    /// networkx beside `bfs` on small graphs.
    pub networkx: Vec<Compared>,
    /// Why networkx did not run, where it did not.
    pub networkx_note: Option<String>,
    /// An earlier build's section of the same run (`--before`), whose
    /// search times stand beside these.
    pub before: Option<String>,
}

impl Measured {
    /// Nothing measured yet.
    pub fn new(device: String, command: String, threads: usize, row_seconds: f64) -> Measured {
        Measured {
            device,
            command,
            threads,
            row_seconds,
            graphs: Vec::new(),
            rows: Vec::new(),
            networkx: Vec::new(),
            networkx_note: None,
            before: None,
        }
    }

    /// Rows and comparisons that failed their check or their run.
    pub fn failures(&self) -> usize {
        let failed = |validated: &Validation| matches!(validated, Validation::Failed(_));
        self.rows
            .iter()
            .filter(|row| failed(&row.validated))
            .count()
            + self
                .networkx
                .iter()
                .filter(|compared| failed(&compared.validated))
                .count()
    }

    /// The section.
    pub fn markdown(&self) -> String {
        let mut text = format!("{SECTION}\n\n");
        let _ = writeln!(
            text,
            "Written by `cargo xtask bench --many` (`{}`). Device: **{}**; CPU: {}, {} threads for the CPU \
             rows. One process: each graph is loaded once and the GPU opened once for every row. Sources: \
             random vertices with an edge, as `bfs --sources N` draws them, the same for every row of a \
             graph. Search time: the engine's host time for its batches after an untimed warm-up search \
             (the GPU's: from the sources' upload to the counts on the host, plus the copy of every \
             distance to the host where the row says so, after an untimed batch whose rows fill the device's \
             page-locked staging, which it allocates once); `auto` one at a time (`bfs --sources N --one-by-one`): \
             each search's device time, as `bfs --sources` reports it, its preparation built first and \
             not counted; closeness: the batches of `bfs centrality --measure closeness --sources all` \
             (not the ordering of the sources nor the arithmetic after). A row whose searches would take \
             longer than {} s (closeness: {} s) times the first sources it reaches in that time and is \
             scaled to them all: its sources say how many were timed. gapbs: one process, `bfs -f G.sg -n T \
             -v` (its own random sources, its own trial times, the first trial untimed, every trial checked \
             by gapbs's verifier, whose time is not counted). scipy: `csgraph.shortest_path(directed=True, \
             unweighted=True, indices=…)` in one call from the first sources, on the CSR as scipy keeps \
             it. × auto: `auto` one at a time's time a source over the row's. Validated: each source's \
             vertices by distance (or every vertex's distance, where the row keeps them) against the CPU \
             reference's searches from the first 16 sources, the engines' counts against each other for \
             every source, closeness against the reference's searches from 16 random vertices to 1e-12.\n",
            self.command,
            self.device,
            crate::cpu_name(),
            self.threads,
            self.row_seconds,
            CLOSENESS_BUDGETS * self.row_seconds,
        );
        if self.before.is_some() {
            let _ = writeln!(
                text,
                "*Before*: an earlier build's own `bench --many` with the same options (`--before`), \
                 run first in the same run; its search time beside each row of the same method.\n"
            );
        }
        let _ = writeln!(
            text,
            "| graph | vertices | CSR entries | levels from the first source |"
        );
        let _ = writeln!(text, "| --- | ---: | ---: | ---: |");
        for graph in &self.graphs {
            let _ = writeln!(
                text,
                "| {} | {} | {} | {} |",
                graph.name, graph.vertices, graph.csr_entries, graph.levels
            );
        }
        let (before_head, before_rule) = match &self.before {
            Some(_) => (" before |", " ---: |"),
            None => ("", ""),
        };
        for graph in &self.graphs {
            let _ = writeln!(
                text,
                "\n### {}\n\n| method | sources | search time |{before_head} per source | × auto | validated |\n\
                 | --- | ---: | ---: |{before_rule} ---: | ---: | --- |",
                graph.name
            );
            for row in self.rows.iter().filter(|row| row.graph == graph.name) {
                let before = match &self.before {
                    Some(section) => format!(
                        " {} |",
                        before_time(section, &graph.name, &row.method).unwrap_or("-".into())
                    ),
                    None => String::new(),
                };
                let _ = writeln!(
                    text,
                    "| {} | {} | {} |{before} {} | {} | {} |",
                    row.method,
                    sources_cell(row),
                    time(row.total()),
                    time(row.per_source()),
                    self.speed_up(row),
                    verdict_of(&row.validated),
                );
            }
        }
        self.networkx_markdown(&mut text);
        let _ = writeln!(
            text,
            "\n### Targets\n\n| target | measured | |\n| --- | --- | --- |"
        );
        for (target, measured, verdict) in self.targets() {
            let _ = writeln!(text, "| {target} | {measured} | {verdict} |");
        }
        text
    }

    /// The small graphs' table.
    fn networkx_markdown(&self, text: &mut String) {
        let _ = writeln!(
            text,
            "\n### networkx's closeness on small real graphs\n\n\
             The graphs networkx ships (`nx.karate_club_graph()` and the others), written as Matrix Market \
             for `bfs`; networkx's `closeness_centrality` call and `bfs`'s search and closeness, each the \
             best of five runs.\n"
        );
        if let Some(note) = &self.networkx_note {
            let _ = writeln!(text, "networkx: {note}.");
            return;
        }
        let _ = writeln!(
            text,
            "| graph | vertices | edges | networkx | `bfs` | engine | validated |\n| --- | ---: | ---: | ---: | ---: | --- | --- |"
        );
        for compared in &self.networkx {
            let _ = writeln!(
                text,
                "| {} | {} | {} | {} | {} | {} | {} |",
                compared.graph,
                compared.vertices,
                compared.edges,
                time(compared.networkx_seconds),
                time(compared.ours_seconds),
                compared.engine,
                verdict_of(&compared.validated),
            );
        }
    }

    /// `auto` one at a time's time a source over `row`'s, on its graph.
    fn speed_up(&self, row: &Row) -> String {
        let baseline = self.rows.iter().find(|other| {
            other.graph == row.graph && other.kind == Kind::OneByOneAuto && other.timed > 0
        });
        match baseline {
            Some(baseline) if row.timed > 0 => {
                format!("{:.1}×", baseline.per_source() / row.per_source())
            }
            _ => "-".into(),
        }
    }

    /// The compact table a run prints at its end.
    pub fn summary(&self) -> String {
        let mut text = format!(
            "many sources: {}; CPU rows on {} threads\n",
            self.device, self.threads
        );
        let _ = writeln!(
            text,
            "{:<20} {:<24} {:>24} {:>11} {:>11} {:>8}  validated",
            "graph", "method", "sources", "time", "per source", "× auto"
        );
        for row in &self.rows {
            let _ = writeln!(
                text,
                "{:<20} {:<24} {:>24} {:>11} {:>11} {:>8}  {}",
                row.graph,
                short_name(row.kind),
                sources_cell(row),
                time(row.total()),
                time(row.per_source()),
                self.speed_up(row),
                match &row.validated {
                    Validation::Yes(_) => "yes",
                    Validation::Skipped(_) => "skipped",
                    Validation::Failed(_) => "FAILED",
                }
            );
        }
        for compared in &self.networkx {
            let _ = writeln!(
                text,
                "networkx {:<26} networkx {:>11}, bfs {:>11}: {}",
                compared.graph,
                time(compared.networkx_seconds),
                time(compared.ours_seconds),
                verdict_of(&compared.validated)
            );
        }
        for (target, measured, verdict) in self.targets() {
            let _ = writeln!(text, "target: {verdict}: {target}: {measured}");
        }
        text
    }

    /// The row of `kind` on the graph `graph` picks, where it ran.
    fn row(&self, graph: impl Fn(&str) -> bool, kind: Kind) -> Option<&Row> {
        self.rows
            .iter()
            .find(|row| graph(&row.graph) && row.kind == kind && row.timed > 0)
    }

    /// Each target, what was measured for it, and met or missed.
    fn targets(&self) -> Vec<(String, String, String)> {
        let mut targets = Vec::new();
        let seconds_at_most = |row: Option<&Row>, most: f64, per_source: bool| match row {
            None => ("not measured".to_string(), "not measured".to_string()),
            Some(row) => {
                let (value, shown) = match per_source {
                    true => (
                        row.per_source(),
                        format!("{} a source", time(row.per_source())),
                    ),
                    false => (row.total(), time(row.total())),
                };
                let scaled = if row.scaled() { " (scaled)" } else { "" };
                (format!("{shown}{scaled}"), verdict(row, value <= most))
            }
        };
        let closeness = |graph: fn(&str) -> bool, most: f64, text: &str, targets: &mut Vec<_>| {
            let (measured, met) = seconds_at_most(self.row(graph, Kind::Closeness), most, false);
            targets.push((text.to_string(), measured, met));
        };
        closeness(
            is_luxembourg,
            0.25,
            "Luxembourg: exact closeness, every vertex a source, ≤ 0.25 s of search",
            &mut targets,
        );
        let (measured, met) =
            seconds_at_most(self.row(is_kronecker_20, Kind::Batched), 0.020, false);
        targets.push((
            "Kronecker 20: 1,024 random sources ≤ 20 ms".into(),
            measured,
            met,
        ));
        closeness(
            is_kronecker_20,
            15.0,
            "Kronecker 20: exact closeness, every vertex a source, ≤ 15 s",
            &mut targets,
        );
        let (measured, met) =
            seconds_at_most(self.row(is_road_360000, Kind::Batched), 0.05e-3, true);
        targets.push((
            "gen:road:360000: 1,024 sources ≤ 0.05 ms a source".into(),
            measured,
            met,
        ));
        targets.push(self.small_batch_target());
        for (graph, most, text) in [
            (
                is_luxembourg as fn(&str) -> bool,
                0.050,
                "Luxembourg: every distance of 1,024 sources to the host ≤ 50 ms (≥ 10 GB/s)",
            ),
            (
                is_road_360000,
                2.0,
                "gen:road:360000: every distance of 1,024 sources to the host ≤ 2 s (≥ 10 GB/s)",
            ),
        ] {
            let row = self.row(graph, Kind::Distances);
            let (mut measured, met) = seconds_at_most(row, most, false);
            if let (Some(row), Some(described)) = (
                row,
                row.and_then(|row| self.graphs.iter().find(|graph| graph.name == row.graph)),
            ) {
                let bytes = 4.0 * described.vertices as f64 * row.sources as f64;
                let _ = write!(measured, ", {:.1} GB/s", bytes / row.total() / 1e9);
            }
            targets.push((text.into(), measured, met));
        }
        closeness(
            is_few_chains_road,
            1.5,
            "a road network of few chains (gen:road:120000:0:0, 183,244 vertices, the San \
             Francisco network's stand-in): exact closeness, every vertex a source, ≤ 1.5 s",
            &mut targets,
        );
        let text = "two GPUs ≥ 1.9× one GPU, every vertex a source, Kronecker 20".to_string();
        let one = self.row(is_kronecker_20, Kind::Closeness);
        let two = self.row(is_kronecker_20, Kind::TwoGpus);
        targets.push(match (one, two) {
            (Some(one), Some(two)) => {
                let ratio = one.per_source() / two.per_source();
                (text, format!("{ratio:.2}×"), verdict(two, ratio >= 1.9))
            }
            _ => (
                text,
                "not measured (one GPU, or no GPU)".into(),
                "not measured".into(),
            ),
        });
        let batched = self.row(is_kronecker_20, Kind::CpuBatched);
        let single = self.row(is_kronecker_20, Kind::CpuOneByOne);
        let text = format!(
            "CPU engine, bit-parallel ≥ 5× its own one at a time, Kronecker 20 ({} threads; the target's: 16)",
            self.threads
        );
        targets.push(match (batched, single) {
            (Some(batched), Some(single)) => {
                let ratio = single.per_source() / batched.per_source();
                (text, format!("{ratio:.1}×"), verdict(batched, ratio >= 5.0))
            }
            _ => (text, "not measured".into(), "not measured".into()),
        });
        targets
    }

    /// "64 sources never slower than 64 single searches of `auto`", on
    /// every graph measured.
    fn small_batch_target(&self) -> (String, String, String) {
        let mut shown = Vec::new();
        let mut met = None;
        for graph in &self.graphs {
            let kind = |kind| self.row(|name| name == graph.name, kind);
            let (Some(batch), Some(single)) = (kind(Kind::SmallBatch), kind(Kind::OneByOneAuto))
            else {
                continue;
            };
            let Some(singles) = single.first_small_batch else {
                continue;
            };
            let ok = batch.seconds <= singles && !matches!(batch.validated, Validation::Failed(_));
            met = Some(met.unwrap_or(true) && ok);
            shown.push(format!(
                "{}: {} vs {}",
                graph.name,
                time(batch.seconds),
                time(singles)
            ));
        }
        let verdict = match met {
            None => "not measured",
            Some(true) => "met",
            Some(false) => "missed",
        };
        let measured = if shown.is_empty() {
            "not measured".into()
        } else {
            shown.join("; ")
        };
        (
            "64 sources in a batch never slower than 64 single searches of `auto`".into(),
            measured,
            verdict.into(),
        )
    }
}

/// Met or missed, where the row was checked.
fn verdict(row: &Row, met: bool) -> String {
    match (&row.validated, met) {
        (Validation::Failed(_), _) => "missed (not validated)".into(),
        (_, true) => "met".into(),
        (_, false) => "missed".into(),
    }
}

/// A comparison's check, for a cell.
fn verdict_of(validated: &Validation) -> String {
    match validated {
        Validation::Yes(how) => format!("yes: {how}"),
        Validation::Skipped(why) => format!("skipped: {why}"),
        Validation::Failed(why) => format!("**FAILED**: {why}"),
    }
}

fn is_luxembourg(graph: &str) -> bool {
    graph.starts_with("luxembourg")
}

fn is_kronecker_20(graph: &str) -> bool {
    matches!(graph, "gen:kron:20" | "gen:kron:20:16")
}

fn is_road_360000(graph: &str) -> bool {
    graph == "gen:road:360000"
}

/// The stand-in for the San Francisco road network (174,956 vertices,
/// few degree-2 vertices): 183,244 vertices whose junctions mostly have
/// degree 3 or more.
pub const FEW_CHAINS_ROAD: &str = "gen:road:120000:0:0";

fn is_few_chains_road(graph: &str) -> bool {
    graph == FEW_CHAINS_ROAD
}

/// A row's sources, and how many were timed where it is scaled.
fn sources_cell(row: &Row) -> String {
    match row.scaled() {
        true => format!("{} ({} timed, scaled)", row.sources, row.timed),
        false => row.sources.to_string(),
    }
}

/// Seconds in the unit that reads best; `-` where not measured.
fn time(seconds: f64) -> String {
    match seconds {
        seconds if !seconds.is_finite() => "-".into(),
        seconds if seconds >= 1.0 => format!("{seconds:.2} s"),
        seconds if seconds >= 1e-3 => format!("{:.2} ms", seconds * 1e3),
        seconds => format!("{:.2} µs", seconds * 1e6),
    }
}

/// A row's kind in a few words, for the compact table.
fn short_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Batched => "GPU batches",
        Kind::Distances => "GPU batches + distances",
        Kind::SmallBatch => "GPU batch of 64",
        Kind::OneByOneAuto => "GPU auto one at a time",
        Kind::Closeness => "GPU closeness, all",
        Kind::TwoGpus => "2 GPUs closeness, all",
        Kind::CpuBatched => "CPU engine, batches",
        Kind::CpuOneByOne => "CPU one at a time",
        Kind::Gapbs => "gapbs",
        Kind::Scipy => "scipy",
    }
}

/// A row as the run's progress shows it.
pub(super) fn progress_line(row: &Row) -> String {
    format!(
        "{}: {}: {} ({} a source, {} sources timed): {}",
        row.graph,
        short_name(row.kind),
        time(row.total()),
        time(row.per_source()),
        row.timed,
        verdict_of(&row.validated)
    )
}

/// The search time an earlier build's `section` gives the row of `method`
/// on `graph`: its method the same but for its figures (the time a
/// hierarchy took to build, say).
fn before_time(section: &str, graph: &str, method: &str) -> Option<String> {
    let heading = format!("### {graph}");
    let table = section.split("\n### ").find_map(|part| {
        let part = format!("### {part}");
        (part.lines().next() == Some(heading.as_str())).then_some(part)
    })?;
    let wanted = without_figures(method);
    table.lines().find_map(|line| {
        let cells: Vec<&str> = line.split(" | ").collect();
        let first = cells.first()?.trim_start_matches("| ");
        (cells.len() > 2 && without_figures(first) == wanted).then(|| cells[2].to_string())
    })
}

/// `text` with every run of digits and points made one `#`.
fn without_figures(text: &str) -> String {
    let mut kept = String::new();
    for character in text.chars() {
        match character {
            '0'..='9' | '.' => {
                if !kept.ends_with('#') {
                    kept.push('#');
                }
            }
            _ => kept.push(character),
        }
    }
    kept
}
