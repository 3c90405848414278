//! Clicks and the wheel, read against where the last frame drew what.

use super::{App, Clicked, DOUBLE_CLICK, DetailState, Effect, JobInfo, Overlay, Pane};
use super::{find_job, windows};
use crate::console::keymap::Action;
use crate::console::snapshot::Message;
use crossterm::event::{KeyCode, KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use std::time::Instant;

impl App {
    /// A click or the wheel, read against the last frame drawn. On the
    /// main screen a click selects a queued job or the job running on a
    /// processor (twice opens its detail) and the wheel moves the
    /// selection of the pane under the pointer; the help scrolls; a click
    /// in the picker moves its cursor. Anything else does nothing.
    pub(super) fn mouse(&mut self, m: MouseEvent, at: Instant) -> Vec<Effect> {
        use MouseEventKind::{Down, ScrollDown, ScrollUp};
        let (x, y) = (m.column, m.row);
        let wheel = match m.kind {
            ScrollUp => Some(Action::Up),
            ScrollDown => Some(Action::Down),
            _ => None,
        };
        let click = m.kind == Down(MouseButton::Left);
        match &mut self.overlay {
            Overlay::None if click => self.click(x, y, at),
            Overlay::None => {
                if let Some(a) = wheel {
                    self.wheel(x, y, a);
                }
                Vec::new()
            }
            Overlay::Help(_) => {
                if wheel.is_some() {
                    self.help(wheel);
                }
                Vec::new()
            }
            Overlay::Picker(p) if click => {
                if let Some(row) = self.drawn.picker_row(x, y) {
                    p.cursor = row.min(p.rows().saturating_sub(1));
                }
                Vec::new()
            }
            Overlay::Picker(_) => match wheel {
                Some(a) => {
                    let code = if a == Action::Up {
                        KeyCode::Up
                    } else {
                        KeyCode::Down
                    };
                    self.picker(wheel, KeyEvent::from(code))
                }
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// A left click at (`x`, `y`) on the main screen.
    fn click(&mut self, x: u16, y: u16, at: Instant) -> Vec<Effect> {
        let clicked = match self.drawn.queued(x, y) {
            Some(q) => Some(Clicked::Queued(q.id)),
            None => self.drawn.cell(x, y).flatten().map(Clicked::Running),
        };
        let Some(clicked) = clicked else {
            self.last_click = None;
            return Vec::new();
        };
        let double = matches!(self.last_click,
            Some((then, last)) if last == clicked
                && at.checked_duration_since(then).is_some_and(|d| d <= DOUBLE_CLICK));
        // A third click starts over.
        self.last_click = (!double).then_some((at, clicked));
        if self.select(clicked) && double {
            return self.normal(Action::Detail);
        }
        Vec::new()
    }

    /// Selects the job a click chose where the keys would: a queued job in
    /// the queue, a running one among the windows of head & backfill.
    /// Whether it could be selected.
    fn select(&mut self, clicked: Clicked) -> bool {
        match clicked {
            Clicked::Queued(id) => match self.snapshot.engine.queue.find(id) {
                Some((pos, _)) => {
                    self.selected = pos;
                    self.focus = Pane::Queue;
                    true
                }
                None => {
                    self.note = Some(Message::error(format!("job {id} no longer waits")));
                    false
                }
            },
            Clicked::Running(id) => {
                match windows(&self.snapshot).iter().position(|r| r.id == id) {
                    Some(i) => {
                        self.selected_running = i;
                        self.focus = Pane::Backfill;
                        self.lower = Pane::Backfill;
                        true
                    }
                    // Not one of the windows (it ended since): its detail
                    // says where it is.
                    None => {
                        let info = find_job(&self.snapshot, id).unwrap_or(JobInfo::Gone);
                        self.overlay = Overlay::Detail(DetailState { id, info });
                        false
                    }
                }
            }
        }
    }

    /// The wheel (`Up` or `Down`) over (`x`, `y`): moves the selection of
    /// the queue or of head & backfill as the arrows do, without leaving
    /// the pane at its end.
    fn wheel(&mut self, x: u16, y: u16, a: Action) {
        let up = a == Action::Up;
        let step = |at: usize, len: usize| {
            if up {
                at.saturating_sub(1)
            } else {
                (at + 1).min(len.saturating_sub(1))
            }
        };
        match self.drawn.pane(x, y) {
            Some(Pane::Queue) => {
                self.focus = Pane::Queue;
                self.selected = step(self.selected, self.snapshot.engine.queue.len());
            }
            Some(Pane::Backfill) => {
                self.focus = Pane::Backfill;
                self.lower = Pane::Backfill;
                let len = self.snapshot.engine.running.len();
                self.selected_running = step(self.selected_running, len);
            }
            _ => {}
        }
    }
}
