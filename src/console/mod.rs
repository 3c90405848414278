//! The live console: the engine runs on a driver thread and publishes
//! snapshots; the UI turns keys into requests (model / message / update /
//! view) and draws the latest snapshot, pane by pane.

pub mod app;
pub mod driver;
pub mod format;
#[cfg(any(target_os = "linux", target_os = "android", target_os = "macos"))]
mod hangup;
pub mod hits;
pub mod inject_form;
pub mod keymap;
pub mod panes;
pub mod picker;
pub mod picture;
pub mod projection;
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
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

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
/// restored on every way out, panics included, the mouse given back too. With `paused`, time stands
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

/// Logs to `console.log` in [`log_dir`], never to the screen; the log is
/// written until the guard returned is dropped.
fn open_log() -> anyhow::Result<tracing_appender::non_blocking::WorkerGuard> {
    let dir = log_dir();
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create the log folder {}", dir.display()))?;
    let appender = tracing_appender::rolling::never(&dir, "console.log");
    let (writer, log_guard) = tracing_appender::non_blocking(appender);
    // A subscriber set earlier (by an embedding program) wins.
    let _ = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .try_init();
    Ok(log_guard)
}

/// Gives back the signals [`watch_signals`] took.
fn unwatch_signals(handlers: Vec<signal_hook::SigId>) {
    for id in handlers {
        signal_hook::low_level::unregister(id);
    }
}

/// Opens the console on a session made by the caller (one with a policy
/// of its own, say) and returns when the operator quits.
pub fn run_session(mut session: Session) -> anyhow::Result<()> {
    let _log_guard = open_log()?;
    tracing::info!(scenario = session.scenario().name(), "console opens");

    let first = Arc::new(session.snapshot());
    let mut app = App::new(first);
    // The driver carries what the console starts by drawing.
    let (queue, job, explain) = app.asked;
    session.handle(session::Request::View {
        queue,
        job,
        explain,
    });
    let mut driver = Driver::spawn(session).context("cannot start the engine thread")?;
    let color = color_wanted();
    // SIGINT, SIGTERM and SIGHUP close the console as `q` does, the
    // terminal given back first; a second one ends the process at once.
    let signal = Arc::new(AtomicUsize::new(0));
    let handlers = match watch_signals(&signal) {
        Ok(h) => h,
        Err(e) => {
            driver.stop();
            return Err(anyhow::Error::new(e).context("cannot watch for signals"));
        }
    };
    // `try_init` installs a panic hook that restores the terminal first.
    let mut terminal = match ratatui::try_init() {
        Ok(t) => t,
        Err(e) => {
            ratatui::restore();
            driver.stop();
            unwatch_signals(handlers);
            return Err(anyhow::Error::new(e).context("cannot set up the terminal"));
        }
    };
    if let Err(e) = capture_mouse() {
        ratatui::restore();
        driver.stop();
        unwatch_signals(handlers);
        return Err(anyhow::Error::new(e).context("cannot set up the terminal"));
    }
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "macos"))]
    let hangup = hangup::Watch::start();
    let result = ui::run(
        &mut terminal,
        &mut app,
        &mut driver.snapshots,
        &driver.requests,
        &mut ui::SignalledEvents(signal.clone()),
        color,
    );
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "macos"))]
    hangup.stop();
    release_mouse();
    ratatui::restore();
    driver.stop();
    unwatch_signals(handlers);
    match signal.load(Ordering::SeqCst) {
        0 => {
            tracing::info!("console closes");
            result
        }
        n => {
            let stopped = Stopped(n as i32);
            tracing::info!("console closes: {stopped}");
            Err(stopped.into())
        }
    }
}

/// Whether the console has the mouse: set while it does, so that only
/// then is the terminal asked to stop reporting it.
static MOUSE: AtomicBool = AtomicBool::new(false);

/// Asks the terminal to report clicks and the wheel, and makes a panic
/// give the mouse back before the terminal is restored (the hook
/// `ratatui::try_init` installed runs next).
fn capture_mouse() -> std::io::Result<()> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let restore = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            release_mouse();
            restore(info);
        }));
    });
    crossterm::execute!(std::io::stdout(), crossterm::event::EnableMouseCapture)?;
    MOUSE.store(true, Ordering::SeqCst);
    Ok(())
}

/// Gives the mouse back to the terminal (its own selection, its own
/// scrolling) if the console has it; best effort, on every way out.
pub(crate) fn release_mouse() {
    if MOUSE.swap(false, Ordering::SeqCst) {
        let _ = crossterm::execute!(std::io::stdout(), crossterm::event::DisableMouseCapture);
    }
}

/// The console was closed by a signal (its number): the process ends with
/// 128 + that number, as a shell reports a process the signal killed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("stopped by {}", signal_name(*.0))]
pub struct Stopped(pub i32);

fn signal_name(n: i32) -> String {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    match n {
        SIGINT => "SIGINT".into(),
        SIGTERM => "SIGTERM".into(),
        SIGHUP => "SIGHUP".into(),
        n => format!("signal {n}"),
    }
}

/// Sets `signal` to the number of the first of SIGINT, SIGTERM or SIGHUP
/// that comes; a second one takes the signal's default action (the
/// process ends) in case the console cannot close.
fn watch_signals(signal: &Arc<AtomicUsize>) -> std::io::Result<Vec<signal_hook::SigId>> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let came = Arc::new(AtomicBool::new(false));
    let mut ids = Vec::new();
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        // Handlers run in the order registered: the check before the set.
        ids.push(signal_hook::flag::register_conditional_default(
            sig,
            came.clone(),
        )?);
        ids.push(signal_hook::flag::register_usize(
            sig,
            signal.clone(),
            sig as usize,
        )?);
        ids.push(signal_hook::flag::register(sig, came.clone())?);
    }
    Ok(ids)
}
