//! The live console: the engine runs on a driver thread and publishes
//! snapshots; the UI turns keys into requests (model / message / update /
//! view) and draws the latest snapshot, pane by pane.

pub mod app;
pub mod driver;
pub mod format;
pub mod inject_form;
pub mod keymap;
pub mod panes;
pub mod picker;
pub mod session;
pub mod snapshot;
pub mod ui;

#[cfg(test)]
pub(crate) mod fixtures;

pub use app::{App, Effect, Msg};
pub use driver::Driver;
pub use session::{Request, Session};
pub use snapshot::{Snapshot, Speed};

use crate::scenario::Scenario;
use anyhow::Context;
use std::path::PathBuf;
use std::sync::Arc;

/// Whether colour is wanted: `NO_COLOR` set to anything but empty turns it
/// off.
pub fn color_wanted() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Where the console writes its log: `SCHEDSCOPE_LOG_DIR`, else the
/// system's temporary folder.
pub fn log_dir() -> PathBuf {
    std::env::var_os("SCHEDSCOPE_LOG_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("schedscope"))
}

/// Opens the console on `scenario` seeded with `seed` (a generated workload
/// never runs out) and returns when the operator quits. The terminal is
/// restored on every way out, panics included. With `paused`, time stands
/// still until the operator runs or steps it. With a `twin`, compare mode:
/// the twin scenario runs beside it on the same seed and simulated time.
pub fn run(
    scenario: Scenario,
    seed: u64,
    paused: bool,
    twin: Option<Scenario>,
) -> anyhow::Result<()> {
    let mut session = Session::new(scenario, seed, true)?;
    if let Some(twin) = twin {
        session = session.with_twin(Session::new(twin, seed, true)?);
    }
    session.paused = paused;
    run_session(session)
}

/// Opens the console on a session made by the caller (one with a policy
/// of its own, say) and returns when the operator quits.
pub fn run_session(mut session: Session) -> anyhow::Result<()> {
    let dir = log_dir();
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create the log folder {}", dir.display()))?;
    let appender = tracing_appender::rolling::never(&dir, "console.log");
    let (writer, _log_guard) = tracing_appender::non_blocking(appender);
    // A subscriber set earlier (by an embedding program) wins.
    let _ = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .try_init();
    tracing::info!(scenario = session.scenario().name(), "console opens");

    let first = Arc::new(session.snapshot());
    let mut driver = Driver::spawn(session).context("cannot start the engine thread")?;
    let mut app = App::new(first);
    let color = color_wanted();
    // `try_init` installs a panic hook that restores the terminal first.
    let mut terminal = match ratatui::try_init() {
        Ok(t) => t,
        Err(e) => {
            ratatui::restore();
            driver.stop();
            return Err(anyhow::Error::new(e).context("cannot set up the terminal"));
        }
    };
    let result = ui::run(
        &mut terminal,
        &mut app,
        &mut driver.snapshots,
        &driver.requests,
        &mut ui::CrosstermEvents,
        color,
    );
    ratatui::restore();
    driver.stop();
    tracing::info!("console closes");
    result
}
