//! The view (the whole screen from the model) and the UI loop, generic
//! over ratatui's `Backend` so tests drive it on a `TestBackend`.

use super::app::{App, Effect, Msg, Overlay};
use super::driver::ToDriver;
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
use std::time::Duration;
use tokio::sync::watch;

/// The smallest terminal the layout fits.
pub const MIN_WIDTH: u16 = 120;
pub const MIN_HEIGHT: u16 = 28;

/// Draws the whole screen for `app` into `buf`.
pub fn view(app: &App, color: bool, area: Rect, buf: &mut Buffer) {
    let ctx = Ctx {
        color,
        focus: app.focus,
        selected: app.selected,
        selected_running: app.selected_running,
        grouping: app.grouping,
    };
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(area, buf);
        return;
    }
    let snap: &Snapshot = &app.snapshot;
    let n = snap.engine.clusters.len() as u16;
    let body = area.height - 2 - panes::links::height(snap) - 2;
    let top = ((body * 11) / 20).max(n + 3).min(body.saturating_sub(9));
    let [status, top_area, bottom, links, message, keys] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(top),
        Constraint::Fill(1),
        Constraint::Length(panes::links::height(snap)),
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
    panes::status::render(snap, &ctx, status, buf);
    panes::queue::render(snap, &ctx, queue, buf);
    panes::clusters::render(snap, &ctx, clusters, buf);
    panes::backfill_windows::render(snap, &ctx, backfill, buf);
    panes::groups::render(snap, &ctx, groups, buf);
    panes::history::render(snap, &ctx, history, buf);
    panes::links::render(snap, &ctx, links, buf);
    panes::message::render_message(app.message(), &ctx, message, buf);
    panes::message::render_keys(app.mode(), &ctx, keys, buf);
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help => panes::help::render(&ctx, area, buf),
        Overlay::Detail(d) => panes::detail::render(snap, d, &ctx, area, buf),
        Overlay::Picker(p) => panes::picker::render(p, &ctx, area, buf),
        Overlay::Inject(f) => panes::inject::render(f, &ctx, area, buf),
        Overlay::Estimate(t) => panes::estimate_prompt::render(t, &ctx, area, buf),
    }
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
}

/// The real terminal's events.
pub struct CrosstermEvents;

impl Events for CrosstermEvents {
    fn next(&mut self, timeout: Duration) -> std::io::Result<Option<Event>> {
        if crossterm::event::poll(timeout)? {
            crossterm::event::read().map(Some)
        } else {
            Ok(None)
        }
    }
}

/// The UI loop: draws when a snapshot, a key or a resize changed something,
/// turns keys into requests for the driver, and returns on quit.
pub fn run<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    snapshots: &mut watch::Receiver<Arc<Snapshot>>,
    requests: &Sender<ToDriver>,
    events: &mut impl Events,
    color: bool,
) -> anyhow::Result<()> {
    let mut dirty = true;
    loop {
        if dirty {
            terminal
                .draw(|f| {
                    let area = f.area();
                    view(app, color, area, f.buffer_mut())
                })
                .map_err(|e| anyhow!("cannot draw: {e}"))?;
            dirty = false;
        }
        if app.quit {
            return Ok(());
        }
        match snapshots.has_changed() {
            Ok(true) => {
                let s = snapshots.borrow_and_update().clone();
                app.update(Msg::Snapshot(s));
                dirty = true;
            }
            Ok(false) => {}
            Err(_) => return Err(anyhow!("the engine driver stopped")),
        }
        if let Some(ev) = events.next(Duration::from_millis(15))? {
            match ev {
                Event::Key(k) => {
                    for effect in app.update(Msg::Key(k)) {
                        match effect {
                            Effect::Send(r) => {
                                requests
                                    .send(ToDriver::Request(r))
                                    .map_err(|_| anyhow!("the engine driver stopped"))?;
                            }
                            Effect::Quit => app.quit = true,
                        }
                    }
                    dirty = true;
                }
                Event::Resize(..) => {
                    terminal
                        .autoresize()
                        .map_err(|e| anyhow!("cannot resize: {e}"))?;
                    app.update(Msg::Resize);
                    dirty = true;
                }
                _ => {}
            }
        }
    }
}
