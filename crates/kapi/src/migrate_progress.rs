//! How `kapi migrate` shows progress: an indicatif bar (done / total, rate, ETA) on a
//! terminal; plain log lines, at most one a second, when stderr is not a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

const TEMPLATE: &str =
    "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} objects ({per_sec}, ETA {eta})";
/// Least time between two plain progress lines.
const LINE_EVERY: Duration = Duration::from_secs(1);

/// The progress display of one migration.
pub enum MigrationProgress {
    /// A live bar on a terminal.
    Bar(ProgressBar),
    /// Log lines on stderr.
    Lines {
        /// When the migration was started.
        started: Instant,
        /// When the last line was printed, and what it said.
        last: Option<(Instant, u64)>,
    },
}

impl MigrationProgress {
    /// A bar when stderr is a terminal, else log lines.
    pub fn for_stderr(total: u64) -> Self {
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(TEMPLATE) {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(200));
            MigrationProgress::Bar(bar)
        } else {
            MigrationProgress::Lines {
                started: Instant::now(),
                last: None,
            }
        }
    }

    /// Shows `done` of `total` objects rewritten.
    pub fn update(&mut self, done: u64, total: u64) {
        match self {
            MigrationProgress::Bar(bar) => {
                bar.set_length(total);
                bar.set_position(done);
            }
            MigrationProgress::Lines { started, last } => {
                let due =
                    last.is_none_or(|(at, shown)| at.elapsed() >= LINE_EVERY && shown != done);
                if due || (done == total && last.is_none_or(|(_, shown)| shown != done)) {
                    eprintln!("{}", progress_line(done, total, started.elapsed()));
                    *last = Some((Instant::now(), done));
                }
            }
        }
    }

    /// Ends the display with `message`.
    pub fn finish(&self, message: &str) {
        match self {
            MigrationProgress::Bar(bar) => bar.finish_with_message(message.to_owned()),
            MigrationProgress::Lines { .. } => {}
        }
        eprintln!("{message}");
    }
}

/// `migrated DONE/TOTAL (RATE objects/s, ETA Ns)`.
pub fn progress_line(done: u64, total: u64, elapsed: Duration) -> String {
    let rate = done as f64 / elapsed.as_secs_f64().max(1e-3);
    let eta = if done >= total {
        "0s".to_owned()
    } else if rate > 0.0 {
        format!("{:.0}s", (total - done) as f64 / rate)
    } else {
        "unknown".to_owned()
    };
    format!("migrated {done}/{total} ({rate:.0} objects/s, ETA {eta})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_line_shows_done_total_rate_and_eta() {
        let line = progress_line(500, 2000, Duration::from_secs(1));
        assert_eq!(line, "migrated 500/2000 (500 objects/s, ETA 3s)");
    }

    #[test]
    fn progress_line_without_progress_has_no_eta() {
        let line = progress_line(0, 10, Duration::from_secs(2));
        assert_eq!(line, "migrated 0/10 (0 objects/s, ETA unknown)");
    }
}
