//! A run's end, once its device is released: `--trace`'s table of phases
//! and the `--json` report, with the phases as its last fields.

use anyhow::Context;
use bfs::output;
use bfs::phases::{PhaseTime, Phases};

use crate::SearchArgs;

/// Ends a run once its device is released: `--trace`'s phases, and the
/// JSON report (written during the output phase) with them as its last
/// fields.
pub(super) fn finish(
    arguments: &SearchArgs,
    report: Option<String>,
    phases: &Phases,
) -> anyhow::Result<()> {
    let (times, wall_seconds) = (phases.times(), phases.wall().as_secs_f64());
    if arguments.trace {
        print_phases(&times, wall_seconds);
    }
    if let (Some(path), Some(report)) = (&arguments.json, report) {
        let body = report
            .strip_suffix('}')
            .context("a JSON report is an object")?
            .trim_end();
        let phases = serde_json::to_string(&times)?;
        let json =
            format!("{body},\n  \"wall_seconds\": {wall_seconds},\n  \"phases\": {phases}\n}}\n");
        output::write_text(path, &json).context("writing --json")?;
    }
    Ok(())
}

/// `--trace`'s table of the run's phases.
fn print_phases(phases: &[PhaseTime], wall_seconds: f64) {
    println!("{:>14} {:>10}", "phase", "ms");
    for time in phases {
        println!("{:>14} {:>10.2}", time.phase.name(), time.seconds * 1e3);
    }
    println!("{:>14} {:>10.2}", "wall", wall_seconds * 1e3);
}
