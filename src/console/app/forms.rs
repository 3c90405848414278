//! Keys in the open forms: the policy picker, the inject form and the
//! estimate error prompt.

use super::{App, Effect, Form, Overlay, estimate_command};
use crate::console::keymap::Action;
use crate::console::session::Request;
use crate::console::snapshot::Message;
use crate::engine::Command;
use crossterm::event::{KeyCode, KeyEvent};

impl App {
    pub(super) fn picker(&mut self, action: Option<Action>, key: KeyEvent) -> Vec<Effect> {
        let Overlay::Picker(p) = &mut self.overlay else {
            return Vec::new();
        };
        match p.update(action, key) {
            Form::Open => Vec::new(),
            Form::Cancel => {
                self.overlay = Overlay::None;
                Vec::new()
            }
            Form::Submit(policy) => {
                self.overlay = Overlay::None;
                self.send(Request::Apply(Command::SetPolicy { policy }))
            }
        }
    }

    pub(super) fn inject(&mut self, action: Option<Action>, key: KeyEvent) -> Vec<Effect> {
        let Overlay::Inject(f) = &mut self.overlay else {
            return Vec::new();
        };
        let outcome = f.update(action, key, &self.snapshot);
        if outcome != Form::Open {
            self.last_inject = f.clone();
            self.overlay = Overlay::None;
        }
        match outcome {
            Form::Submit(job) => self.send(Request::Apply(Command::InjectJobs { jobs: vec![job] })),
            _ => Vec::new(),
        }
    }

    pub(super) fn estimate(&mut self, action: Option<Action>, key: KeyEvent) -> Vec<Effect> {
        let Overlay::Estimate(text) = &mut self.overlay else {
            return Vec::new();
        };
        match action {
            Some(Action::Close) => self.overlay = Overlay::None,
            Some(Action::Backspace) => {
                text.pop();
            }
            Some(Action::Confirm) => match text.trim().parse::<f64>() {
                Ok(p) if p.is_finite() && (0.0..100.0).contains(&p) => {
                    self.overlay = Overlay::None;
                    return self.send(Request::Apply(estimate_command(
                        p,
                        &self.snapshot.engine.estimate_model,
                    )));
                }
                _ => {
                    self.note = Some(Message::error(format!(
                        "✗ estimate error must be a number at least 0 and below 100, found \"{}\"",
                        text.trim()
                    )));
                }
            },
            _ => {
                if let KeyCode::Char(c) = key.code
                    && (c.is_ascii_digit() || c == '.')
                    && text.len() < 8
                {
                    text.push(c);
                }
            }
        }
        Vec::new()
    }
}
