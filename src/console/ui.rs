//! The view (the whole screen from the model) and the UI loop, generic
//! over ratatui's `Backend` so tests drive it on a `TestBackend`.

use super::app::{App, Effect, Msg, Overlay, Pane};
use super::driver::ToDriver;
use super::hits::{Hits, Spot};
use super::panes::{self, Ctx};
use super::snapshot::Snapshot;
use anyhow::anyhow;
use crossterm::event::Event;
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The smallest terminal the full layout fits; below it the compact one.
pub const FULL_WIDTH: u16 = 120;
pub const FULL_HEIGHT: u16 = 28;
/// The smallest terminal the compact layout fits.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 18;

/// Whether a terminal of `area` gets the compact layout.
pub fn compact(area: Rect) -> bool {
    area.width < FULL_WIDTH || area.height < FULL_HEIGHT
}

/// Draws the whole screen for `app` into `buf`.
pub fn view(app: &App, color: bool, area: Rect, buf: &mut Buffer) {
    draw(app, color, area, buf);
}

/// Draws the whole screen for `app` into `buf` and returns where it drew
/// what, for the mouse to be read against ([`App::drawn`]).
pub fn draw(app: &App, color: bool, area: Rect, buf: &mut Buffer) -> Hits {
    let ctx = Ctx {
        color,
        focus: app.focus,
        selected: app.selected,
        selected_running: app.selected_running,
        grouping: app.grouping,
        selected_link: app.link,
    };
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(area, buf);
        return Hits::default();
    }
    let snap: &Snapshot = &app.snapshot;
    let mut hits = if let Some(twin) = &snap.twin {
        compare_view(app, twin, &ctx, area, buf);
        Hits::default()
    } else if compact(area) {
        compact_view(app, &ctx, area, buf)
    } else {
        full_view(app, &ctx, area, buf)
    };
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help(top) => panes::help::render(&ctx, *top, area, buf),
        Overlay::Detail(d) => panes::detail::render(snap, d, &ctx, area, buf),
        Overlay::Picker(p) => hits.picker = panes::picker::render(p, &ctx, area, buf),
        Overlay::Inject(f) => panes::inject::render(f, &ctx, area, buf),
        Overlay::Estimate(t) => panes::estimate_prompt::render(t, &ctx, area, buf),
    }
    hits
}

/// Every pane at once: queue, clusters and head & backfill above, groups
/// and history below.
fn full_view(app: &App, ctx: &Ctx, area: Rect, buf: &mut Buffer) -> Hits {
    let snap: &Snapshot = &app.snapshot;
    let n = snap.engine.clusters.len() as u16;
    let links = panes::links::height(snap);
    let cue = panes::cue::height(snap, area.width).min(area.height / 4);
    let body = area.height - 2 - links - cue - 2;
    let top = ((body * 11) / 20).max(n + 3).min(body.saturating_sub(9));
    let [status, top_area, bottom, links, cue, message, keys] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(top),
        Constraint::Fill(1),
        Constraint::Length(links),
        Constraint::Length(cue),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let clusters_w = panes::clusters::wanted_width(snap).min(area.width * 2 / 5);
    let [queue, clusters, backfill] = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(clusters_w),
        Constraint::Fill(1),
    ])
    .areas(top_area);
    let [groups, history] =
        Layout::horizontal([Constraint::Length(64), Constraint::Fill(1)]).areas(bottom);
    panes::status::render(snap, ctx, status, buf);
    let rows = panes::queue::render(snap, ctx, queue, buf);
    let cells = panes::clusters::render(snap, ctx, clusters, buf);
    panes::backfill_windows::render(snap, ctx, backfill, buf);
    panes::groups::render(snap, ctx, groups, buf);
    panes::history::render(snap, ctx, history, buf);
    panes::links::render(snap, ctx, links, buf);
    panes::cue::render(snap, ctx, cue, buf);
    panes::message::render_message(app.message(), ctx, message, buf);
    panes::message::render_keys(app.mode(), ctx, keys, buf);
    Hits {
        panes: vec![
            Spot::new(queue, Pane::Queue),
            Spot::new(clusters, Pane::Clusters),
            Spot::new(backfill, Pane::Backfill),
            Spot::new(groups, Pane::Groups),
            Spot::new(history, Pane::History),
        ],
        queue: rows,
        cells,
        picker: Vec::new(),
    }
}

/// Compare mode: the status, the two sides with the table of
/// differences, the message and the keys.
fn compare_view(app: &App, twin: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let snap: &Snapshot = &app.snapshot;
    let cue = panes::cue::height(snap, area.width).min(area.height / 4);
    let [status, body, cue, message, keys] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Fill(1),
        Constraint::Length(cue),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    panes::status::render(snap, ctx, status, buf);
    panes::compare::render(snap, twin, ctx, body, buf);
    panes::cue::render(snap, ctx, cue, buf);
    panes::message::render_message(app.message(), ctx, message, buf);
    panes::message::render_keys(app.mode(), ctx, keys, buf);
}

/// A small terminal (80×24 and up): the queue and the clusters above, one
/// lower pane (head & backfill, groups or history: the last one focused,
/// Tab reaches the others) and a line of key metrics.
fn compact_view(app: &App, ctx: &Ctx, area: Rect, buf: &mut Buffer) -> Hits {
    let snap: &Snapshot = &app.snapshot;
    let n = snap.engine.clusters.len() as u16;
    let links = panes::links::height(snap).min(2);
    // The cue's box takes the metrics line's row and some of the lower
    // pane's: at 80×24 the lower pane keeps six rows or more.
    let cue = panes::cue::height(snap, area.width).min(area.height / 4);
    let metrics_h = u16::from(cue == 0);
    let body = area.height - 2 - links - cue - 2 - metrics_h;
    let top = (n + 3).max(7).min(body.saturating_sub(8));
    let [status, top_area, lower, links, cue, metrics, message, keys] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(top),
        Constraint::Fill(1),
        Constraint::Length(links),
        Constraint::Length(cue),
        Constraint::Length(metrics_h),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let clusters_w = panes::clusters::wanted_width(snap).min(area.width / 2);
    let [queue, clusters] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(clusters_w)]).areas(top_area);
    panes::status::render(snap, ctx, status, buf);
    let rows = panes::queue::render(snap, ctx, queue, buf);
    let cells = panes::clusters::render(snap, ctx, clusters, buf);
    let shown = match app.lower {
        Pane::Groups => {
            panes::groups::render(snap, ctx, lower, buf);
            Pane::Groups
        }
        Pane::History => {
            panes::history::render(snap, ctx, lower, buf);
            Pane::History
        }
        _ => {
            panes::backfill_windows::render(snap, ctx, lower, buf);
            Pane::Backfill
        }
    };
    lower_hint(app.lower, ctx, lower, buf);
    panes::links::render(snap, ctx, links, buf);
    panes::cue::render(snap, ctx, cue, buf);
    panes::metrics::render(snap, ctx, metrics, buf);
    panes::message::render_message(app.message(), ctx, message, buf);
    panes::message::render_keys(app.mode(), ctx, keys, buf);
    Hits {
        panes: vec![
            Spot::new(queue, Pane::Queue),
            Spot::new(clusters, Pane::Clusters),
            Spot::new(lower, shown),
        ],
        queue: rows,
        cells,
        picker: Vec::new(),
    }
}

/// The lower panes of the compact layout, in Tab order.
const LOWER: [(Pane, &str); 3] = [
    (Pane::Backfill, "head & backfill"),
    (Pane::Groups, "groups"),
    (Pane::History, "history"),
];

/// Says on the lower pane's bottom border how to reach the other two (the
/// top one holds the pane's title).
fn lower_hint(shown: Pane, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let others: Vec<&str> = LOWER
        .iter()
        .cycle()
        .skip_while(|(p, _)| *p != shown)
        .skip(1)
        .take(2)
        .map(|(_, name)| *name)
        .collect();
    let text = format!(" Tab → {} ", others.join(" · "));
    let w = text.chars().count() as u16;
    if area.width < w + 24 || area.height == 0 {
        return;
    }
    let y = area.y + area.height - 1;
    Line::styled(text, ctx.dim()).render(Rect::new(area.x + area.width - 1 - w, y, w, 1), buf);
}

fn too_small(area: Rect, buf: &mut Buffer) {
    let text = vec![
        Line::raw("schedscope"),
        Line::raw(format!(
            "enlarge the terminal to {MIN_WIDTH}×{MIN_HEIGHT} (now {}×{})",
            area.width, area.height
        )),
        Line::raw("q quits"),
    ];
    let h = 3.min(area.height);
    let rect = Rect {
        y: area.y + (area.height - h) / 2,
        height: h,
        ..area
    };
    Paragraph::new(text)
        .centered()
        .wrap(Wrap { trim: true })
        .render(rect, buf);
}

/// Where terminal events come from: waits up to the given time for one.
pub trait Events {
    fn next(&mut self, timeout: Duration) -> std::io::Result<Option<Event>>;

    /// Whether the console must close now (a signal came), whatever the
    /// operator does.
    fn stopped(&self) -> bool {
        false
    }
}

/// The real terminal's events.
pub struct CrosstermEvents;

/// The real terminal's events, and SIGINT, SIGTERM and SIGHUP: the number
/// of the first that came, 0 while none has.
pub struct SignalledEvents(pub Arc<std::sync::atomic::AtomicUsize>);

impl Events for SignalledEvents {
    fn next(&mut self, timeout: Duration) -> std::io::Result<Option<Event>> {
        CrosstermEvents.next(timeout)
    }

    fn stopped(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst) != 0
    }
}

impl Events for CrosstermEvents {
    fn next(&mut self, timeout: Duration) -> std::io::Result<Option<Event>> {
        if crossterm::event::poll(timeout)? {
            crossterm::event::read().map(Some)
        } else {
            Ok(None)
        }
    }
}

/// Carries out what `update` asked for: requests go to the driver, `Quit`
/// ends the loop.
fn perform(effects: Vec<Effect>, app: &mut App, requests: &Sender<ToDriver>) -> anyhow::Result<()> {
    for effect in effects {
        match effect {
            Effect::Send(r) => {
                requests
                    .send(ToDriver::Request(r))
                    .map_err(|_| anyhow!("the engine driver stopped"))?;
            }
            Effect::Quit => app.quit = true,
        }
    }
    Ok(())
}

/// The UI loop: draws when a snapshot, a key, a click or a resize changed
/// something, turns keys and clicks into requests for the driver, and
/// returns on quit.
pub fn run<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    snapshots: &mut watch::Receiver<Arc<Snapshot>>,
    requests: &Sender<ToDriver>,
    events: &mut impl Events,
    color: bool,
) -> anyhow::Result<()> {
    let size = terminal
        .size()
        .map_err(|e| anyhow!("cannot read the terminal's size: {e}"))?;
    let send = |effects: Vec<Effect>, app: &mut App| perform(effects, app, requests);
    let effects = app.update(Msg::Resize(size.width, size.height));
    send(effects, app)?;
    let mut dirty = true;
    loop {
        if dirty {
            let mut hits = Hits::default();
            terminal
                .draw(|f| {
                    let area = f.area();
                    hits = draw(app, color, area, f.buffer_mut());
                })
                .map_err(|e| anyhow!("cannot draw: {e}"))?;
            app.drawn = hits;
            dirty = false;
        }
        if app.quit || events.stopped() {
            return Ok(());
        }
        match snapshots.has_changed() {
            Ok(true) => {
                let s = snapshots.borrow_and_update().clone();
                let effects = app.update(Msg::Snapshot(s));
                send(effects, app)?;
                dirty = true;
            }
            Ok(false) => {}
            Err(_) => return Err(anyhow!("the engine driver stopped")),
        }
        // A new snapshot waits for this wait to end: kept short, it adds
        // little to a key's way to the screen (the driver confirms a pause
        // by a snapshot), and idle it still costs no measurable CPU.
        if let Some(ev) = events.next(Duration::from_millis(5))? {
            match ev {
                Event::Key(k) => {
                    let effects = app.update(Msg::Key(k));
                    send(effects, app)?;
                    dirty = true;
                }
                // The pointer moving, dragging or let go does nothing:
                // no redraw for it.
                Event::Mouse(m) if App::heeds(&m) => {
                    let effects = app.update(Msg::Mouse(m, Instant::now()));
                    send(effects, app)?;
                    dirty = true;
                }
                Event::Resize(w, h) => {
                    terminal
                        .autoresize()
                        .map_err(|e| anyhow!("cannot resize: {e}"))?;
                    let effects = app.update(Msg::Resize(w, h));
                    send(effects, app)?;
                    dirty = true;
                }
                _ => {}
            }
        }
    }
}
