//! `--plot`: the frontier size per level as an SVG chart (plotters' SVG
//! backend: no system libraries), log scale, the CPU's levels of
//! `hybrid-cpu` marked, because a shape reads faster than a table.

use std::path::Path;

use plotters::prelude::*;

use crate::report::Report;
use crate::{Error, Result};

/// Draws `report`'s trace to `path` (written as every output is, see
/// [`output::write_with`](crate::output::write_with)).
pub fn frontier_sizes(report: &Report, path: &Path) -> Result<()> {
    let mut svg = String::new();
    let draw =
        |svg: &mut String| -> std::result::Result<(), Box<dyn std::error::Error>> {
            let root = SVGBackend::with_string(svg, (960, 480)).into_drawing_area();
            root.fill(&WHITE)?;
            let levels = report.trace.len().max(1) as u32;
            let widest = report
                .trace
                .iter()
                .map(|level| level.frontier)
                .max()
                .unwrap_or(1)
                .max(1);
            let caption = format!(
                "{}: frontier per level from {} ({}{})",
                report.graph,
                report.source,
                report.device,
                report
                    .variant
                    .as_ref()
                    .map(|variant| format!(", {variant}"))
                    .unwrap_or_default()
            );
            let mut chart = ChartBuilder::on(&root)
                .caption(caption, ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(70)
                .build_cartesian_2d(0..levels, (1..widest * 2).log_scale())?;
            chart
                .configure_mesh()
                .x_desc("level")
                .y_desc("vertices in the frontier")
                .draw()?;
            let points = report
                .trace
                .iter()
                .map(|level| (level.level, level.frontier.max(1)));
            chart
                .draw_series(LineSeries::new(points, &BLUE))?
                .label("frontier")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLUE));
            let on_cpu = report
                .trace
                .iter()
                .filter(|level| level.on_cpu == Some(true));
            chart
                .draw_series(on_cpu.map(|level| {
                    Circle::new((level.level, level.frontier.max(1)), 2, RED.filled())
                }))?
                .label("level run on the CPU")
                .legend(|(x, y)| Circle::new((x + 8, y), 3, RED.filled()));
            chart
                .configure_series_labels()
                .border_style(BLACK)
                .background_style(WHITE)
                .draw()?;
            root.present()?;
            Ok(())
        };
    draw(&mut svg).map_err(|error| Error::Io {
        path: path.into(),
        error: std::io::Error::other(error.to_string()),
    })?;
    crate::output::write_text(path, &svg)
}
