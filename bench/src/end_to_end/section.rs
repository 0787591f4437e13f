//! The end-to-end section of `BENCHMARKS.md`: its method, the device, the
//! floor, and the tables of whole processes, phases, plans and
//! preparations.

use super::{
    CLOSENESS_PREPARED_OVER_FLOOR, CLOSENESS_TEXT_OVER_FLOOR, Described, EVERY_VERTEX,
    MANY_SEARCHES, PHASES_WITHIN, SECTION, Timed,
};

/// The section: method, device, floor, and the tables.
pub fn markdown(
    device: &str,
    command: &str,
    floor: Option<&Timed>,
    graphs: &[Described],
    rows: &[Timed],
) -> String {
    let mut text = format!("{SECTION}\n\n");
    text.push_str(&format!(
        "Written by `cargo xtask bench --end-to-end` (`{command}`). Device: **{device}**; CPU: {}. \
         Each figure is a whole process, from its start to its exit, as a shell waits for it: \
         the median of the timed runs after an untimed warm-up run (so the page cache is warm, and \
         the driver's JIT cache too where it is on: `cold` runs set `CUDA_CACHE_DISABLE=1`). \
         `cuda-floor` does only what every CUDA program does before its first kernel (the \
         process, `cuInit`, the context, and its exit). gapbs and scipy read the same files and \
         start from the same source (gapbs's 64 searches from its own random sources); a peer \
         slower than the limit on its warm-up is timed by that run alone. A program marked \
         `(before)` is an earlier build's, given with `--before`, timed in the same run.\n\n",
        crate::cpu_name()
    ));
    if let Some(floor) = floor {
        text.push_str(&format!(
            "Floor (`cuda-floor`): median {:.3} s (min {:.3}, max {:.3}, {} runs).\n\n",
            floor.median(),
            floor.extreme(f64::min),
            floor.extreme(f64::max),
            floor.seconds.len()
        ));
    }
    let floor_seconds = floor.map(Timed::median);
    text.push_str("| graph | vertices | CSR entries | text MB | .bcsr MB | prepared .bcsr MB |\n| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for graph in graphs {
        let [text_bytes, binary, prepared] = graph.file_bytes.map(|bytes| bytes as f64 / 1e6);
        text.push_str(&format!(
            "| {} | {} | {} | {text_bytes:.1} | {binary:.1} | {prepared:.1} |\n",
            graph.name, graph.vertices, graph.edges
        ));
    }
    for (title, searches) in [("One search", 1), ("64 searches", MANY_SEARCHES)] {
        text.push_str(&format!(
            "\n### {title}\n\n| graph | program | input | JIT cache | median s | min s | max s | runs | over the floor s |\n| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n"
        ));
        for row in rows.iter().filter(|row| row.searches == searches) {
            let over = match (
                floor_seconds,
                row.program.starts_with("bfs") && row.jit_cache != "-",
            ) {
                (Some(floor), true) => format!("{:+.3}", row.median() - floor),
                _ => "-".into(),
            };
            text.push_str(&format!(
                "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {} | {over} |\n",
                row.graph,
                row.program,
                row.input,
                row.jit_cache,
                row.median(),
                row.extreme(f64::min),
                row.extreme(f64::max),
                row.seconds.len()
            ));
        }
    }
    text.push_str(&closeness_table(rows, floor_seconds));
    text.push_str("\n### Where `bfs`'s time goes\n\nThe phases of one search's median run, in milliseconds, as `--json` reports them: they add up to the process's time but for its exit, in which the driver frees what the process held (the `measured` column is the process's whole time).\n\n");
    let phased: Vec<&Timed> = rows
        .iter()
        .filter(|row| !row.phases.is_empty() && row.searches != EVERY_VERTEX)
        .collect();
    let mut names: Vec<String> = Vec::new();
    for row in &phased {
        for (name, _) in &row.phases {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    text.push_str(&format!(
        "| graph | program | input | searches | JIT cache | {} | sum | measured |\n| --- | --- | --- | ---: | --- |{} ---: | ---: |\n",
        names.join(" | "),
        " ---: |".repeat(names.len())
    ));
    for row in &phased {
        let cells: Vec<String> = names
            .iter()
            .map(|name| {
                row.phases
                    .iter()
                    .find(|(phase, _)| phase == name)
                    .map_or("-".into(), |(_, seconds)| format!("{:.1}", seconds * 1e3))
            })
            .collect();
        let sum: f64 = row.phases.iter().map(|(_, seconds)| seconds).sum();
        text.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {:.1} | {:.1} |\n",
            row.graph,
            row.program,
            row.input,
            row.searches,
            row.jit_cache,
            cells.join(" | "),
            sum * 1e3,
            row.median() * 1e3
        ));
    }
    text.push_str("\n### What `auto` took\n\n| graph | input | searches | plan |\n| --- | --- | ---: | --- |\n");
    for row in rows
        .iter()
        .filter(|row| row.program == "bfs" && row.jit_cache == "warm")
    {
        if let Some(plan) = &row.plan {
            text.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                row.graph,
                row.input,
                row.searches,
                plan.replace('|', "\\|")
            ));
        }
    }
    text.push_str(
        "\n### Preparation\n\n| graph | `bfs prepare` median s | runs |\n| --- | ---: | ---: |\n",
    );
    for row in rows.iter().filter(|row| row.program == "bfs prepare") {
        text.push_str(&format!(
            "| {} | {:.3} | {} |\n",
            row.graph,
            row.median(),
            row.seconds.len()
        ));
    }
    text
}

/// The closeness command's rows: whole process against the floor and its
/// target, and its `phases:` line against the whole.
fn closeness_table(rows: &[Timed], floor: Option<f64>) -> String {
    let mut text = format!(
        "\n### Closeness from every vertex, the whole command\n\n`bfs centrality --measure \
         closeness --output values.npy` from the text file and from the prepared `.bcsr` (its \
         sources' order and contraction hierarchy stored by `bfs prepare`). Targets: at most the \
         floor + {CLOSENESS_PREPARED_OVER_FLOOR} s from the prepared file, + \
         {CLOSENESS_TEXT_OVER_FLOOR} s from the text; the phases it reports (`--json`, the \
         `phases:` line) within {:.0}% of the whole process's time, its exit included.\n\n\
         | graph | program | input | median s | over the floor s | target | phases (median run), s | phases' sum s | of the whole |\n\
         | --- | --- | --- | ---: | ---: | --- | --- | ---: | ---: |\n",
        100.0 * PHASES_WITHIN
    );
    for row in rows.iter().filter(|row| row.searches == EVERY_VERTEX) {
        let median = row.median();
        let allowed = match row.input {
            ".mtx" => CLOSENESS_TEXT_OVER_FLOOR,
            _ => CLOSENESS_PREPARED_OVER_FLOOR,
        };
        let (over, target) = match floor {
            Some(floor) => {
                let verdict = match median - floor <= allowed {
                    true => "met",
                    false => "missed",
                };
                let target = match row.program.ends_with("(before)") {
                    true => format!("≤ floor + {allowed} s: {verdict} (before)"),
                    false => format!("≤ floor + {allowed} s: {verdict}"),
                };
                (format!("{:+.3}", median - floor), target)
            }
            None => ("-".into(), "no floor".into()),
        };
        let sum: f64 = row.phases.iter().map(|(_, seconds)| seconds).sum();
        let phases: Vec<String> = (row.phases.iter())
            .map(|(name, seconds)| format!("{name} {seconds:.3}"))
            .collect();
        let share = match row.phases.is_empty() {
            true => "-".into(),
            false => {
                let verdict = match (sum - median).abs() <= PHASES_WITHIN * median {
                    true => "within",
                    false => "outside",
                };
                format!(
                    "{:.1}% ({verdict} {:.0}%)",
                    100.0 * sum / median,
                    100.0 * PHASES_WITHIN
                )
            }
        };
        text.push_str(&format!(
            "| {} | {} | {} | {median:.3} | {over} | {target} | {} | {sum:.3} | {share} |\n",
            row.graph,
            row.program,
            row.input,
            phases.join(", "),
        ));
    }
    text
}
