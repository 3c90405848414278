//! A key, handed to the handler of the screen it acts on; the help's
//! scrolling and the job detail's few keys.

use super::{App, Effect, Overlay, Pane};
use crate::console::keymap::{self, Action, Mode};
use crate::console::panes::help;
use crate::console::session::Request;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

impl App {
    pub(super) fn key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.quit = true;
            return vec![Effect::Quit];
        }
        let mode = self.mode();
        let action = keymap::lookup(mode, &key);
        match mode {
            Mode::Normal => match action {
                Some(a) => {
                    let effects = self.normal(a);
                    if matches!(self.focus, Pane::Backfill | Pane::Groups | Pane::History) {
                        self.lower = self.focus;
                    }
                    effects
                }
                None => Vec::new(),
            },
            Mode::Help => {
                self.help(action);
                Vec::new()
            }
            Mode::Detail => match action {
                Some(Action::Close) => {
                    self.overlay = Overlay::None;
                    Vec::new()
                }
                Some(Action::StepJob) => match &self.overlay {
                    Overlay::Detail(d) => {
                        let id = d.id;
                        self.send(Request::StepJob(id))
                    }
                    _ => Vec::new(),
                },
                Some(Action::TogglePause) => self.send(Request::TogglePause),
                _ => Vec::new(),
            },
            Mode::Picker => self.picker(action, key),
            Mode::Inject => self.inject(action, key),
            Mode::Estimate => self.estimate(action, key),
        }
    }

    pub(super) fn help(&mut self, action: Option<Action>) {
        let Overlay::Help(top) = &mut self.overlay else {
            return;
        };
        let max = help::max_scroll(self.area);
        let page = help::page(self.area);
        *top = match action {
            Some(Action::Close) => {
                self.overlay = Overlay::None;
                return;
            }
            Some(Action::Up) => top.saturating_sub(1),
            Some(Action::Down) => *top + 1,
            Some(Action::PageUp) => top.saturating_sub(page),
            Some(Action::PageDown) => *top + page,
            Some(Action::Home) => 0,
            Some(Action::End) => max,
            _ => *top,
        }
        .min(max);
    }
}
