//! A progress bar for long loads, generations and searches of many sources.

use std::io::IsTerminal;
use std::path::Path;

/// A progress bar for long loads, generations and searches: drawn only on a
/// terminal, and only once the work has taken a second.
pub(crate) struct Progress {
    bar: indicatif::ProgressBar,
    started: std::time::Instant,
}

impl Progress {
    /// A bar over the `bytes` of the file at `path`.
    pub(super) fn bytes(path: &Path, bytes: u64) -> Progress {
        Self::new(
            format!("loading {}", path.display()),
            bytes,
            "{msg} {bar:40} {bytes}/{total_bytes} ({bytes_per_sec})",
        )
    }

    /// A bar over `edges` edges, with `message` before it.
    pub(crate) fn edges(message: &str, edges: u64) -> Progress {
        Self::new(
            message.to_string(),
            edges,
            "{msg} {bar:40} {human_pos}/{human_len} edges ({per_sec})",
        )
    }

    /// A bar over `sources` searches' sources, with `message` before it.
    pub(crate) fn sources(message: &str, sources: u64) -> Progress {
        Self::new(
            message.to_string(),
            sources,
            "{msg} {bar:40} {human_pos}/{human_len} sources ({per_sec}, {eta} left)",
        )
    }

    fn new(message: String, total: u64, template: &str) -> Progress {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::hidden(),
        );
        let style = indicatif::ProgressStyle::with_template(template).expect("a valid template");
        bar.set_style(style);
        bar.set_message(message);
        Progress {
            bar,
            started: std::time::Instant::now(),
        }
    }

    /// Adds `done` to the bar's count.
    pub(crate) fn advance(&self, done: u64) {
        if self.bar.is_hidden()
            && self.started.elapsed().as_secs_f64() > 1.0
            && std::io::stderr().is_terminal()
        {
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        self.bar.inc(done);
    }

    /// Clears the bar.
    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
