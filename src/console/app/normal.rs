//! Keys on the main screen: the run's pace, the windows they open, the
//! what-if changes and moving between panes and jobs.

use super::{
    App, DetailState, ESTIMATE_STEPS, Effect, JobInfo, LINK_STEPS, Overlay, Pane, PickerState,
    estimate_command, find_job,
};
use crate::console::keymap::Action;
use crate::console::session::Request;
use crate::console::snapshot::Message;
use crate::engine::Command;

impl App {
    /// A key on the main screen.
    pub(super) fn normal(&mut self, a: Action) -> Vec<Effect> {
        match a {
            Action::Quit => {
                self.quit = true;
                vec![Effect::Quit]
            }
            Action::TogglePause => self.send(Request::TogglePause),
            Action::Faster => self.send(Request::Faster),
            Action::Slower => self.send(Request::Slower),
            Action::StepEvent => self.send(Request::StepEvent),
            Action::Next if self.snapshot.cues.0 > 0 => self.send(Request::NextCue),
            Action::StepJob | Action::Next => match self.selected_job() {
                Some(id) => self.send(Request::StepJob(id)),
                None => {
                    self.note = Some(Message::error("no job is selected"));
                    Vec::new()
                }
            },
            Action::OpenPicker
            | Action::OpenInject
            | Action::TypeEstimate
            | Action::Detail
            | Action::Help => self.open(a),
            Action::CycleEstimate | Action::NextLink | Action::CycleLink => self.what_if(a),
            Action::NextGrouping => {
                self.grouping = self.grouping.next();
                self.note = Some(Message::ok(format!("groups by {}", self.grouping.name())));
                Vec::new()
            }
            Action::Save => self.send(Request::Save),
            Action::Restart => self.send(Request::Restart { new_seed: false }),
            Action::RestartNewSeed => self.send(Request::Restart { new_seed: true }),
            _ => self.navigate(a),
        }
    }

    /// The windows the main screen opens: the policy picker, the inject
    /// form, the estimate error prompt, the selected job's detail, the help.
    fn open(&mut self, a: Action) -> Vec<Effect> {
        match a {
            Action::OpenPicker => {
                self.overlay = Overlay::Picker(PickerState::new(&self.snapshot.engine.policy));
                Vec::new()
            }
            Action::OpenInject => {
                self.overlay = Overlay::Inject(self.last_inject.reopen());
                Vec::new()
            }
            Action::TypeEstimate => {
                self.overlay = Overlay::Estimate(String::new());
                Vec::new()
            }
            Action::Detail => {
                match self.selected_job() {
                    Some(id) => {
                        let info = find_job(&self.snapshot, id).unwrap_or(JobInfo::Gone);
                        self.overlay = Overlay::Detail(DetailState { id, info });
                    }
                    None => self.note = Some(Message::error("no job is selected")),
                }
                Vec::new()
            }
            Action::Help => {
                self.overlay = Overlay::Help(0);
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// The what-if keys: the estimate error of jobs to come, the link chosen
    /// and its bandwidth.
    fn what_if(&mut self, a: Action) -> Vec<Effect> {
        match a {
            Action::CycleEstimate => {
                self.estimate_step = (self.estimate_step + 1) % ESTIMATE_STEPS.len();
                let p = ESTIMATE_STEPS[self.estimate_step];
                self.send(Request::Apply(estimate_command(
                    p,
                    &self.snapshot.engine.estimate_model,
                )))
            }
            Action::NextLink | Action::CycleLink if self.snapshot.engine.links.is_empty() => {
                self.note = Some(Message::error(
                    "✗ this scenario has no inter-cluster network: no link to change",
                ));
                Vec::new()
            }
            Action::NextLink => {
                let links = &self.snapshot.engine.links;
                self.link = (self.link + 1) % links.len();
                let l = &links[self.link];
                self.note = Some(Message::ok(format!(
                    "link {} chosen: bandwidth {} now, {} at the start · B changes it",
                    l.name,
                    l.capacity,
                    self.start_abw.get(self.link).copied().unwrap_or(l.capacity)
                )));
                Vec::new()
            }
            Action::CycleLink => {
                let i = self.link.min(self.snapshot.engine.links.len() - 1);
                let (Some(step), Some(&start)) =
                    (self.link_steps.get_mut(i), self.start_abw.get(i))
                else {
                    return Vec::new();
                };
                *step = (*step + 1) % LINK_STEPS.len();
                let abw = start * LINK_STEPS[*step];
                let link = self.snapshot.engine.links[i].name.clone();
                self.send(Request::Apply(Command::SetLinkBandwidth { link, abw }))
            }
            _ => Vec::new(),
        }
    }

    /// Moving the focus between panes and the selection within the queue
    /// and head & backfill.
    fn navigate(&mut self, a: Action) -> Vec<Effect> {
        let len = self.snapshot.engine.queue.len();
        match a {
            Action::NextPane => {
                self.focus = self.focus.next();
                Vec::new()
            }
            Action::PrevPane => {
                self.focus = self.focus.prev();
                Vec::new()
            }
            Action::Left => {
                self.focus = self.focus.left();
                Vec::new()
            }
            Action::Right => {
                self.focus = self.focus.right();
                Vec::new()
            }
            Action::Up | Action::PageUp if self.focus == Pane::Queue => {
                let by = if a == Action::Up { 1 } else { 10 };
                self.selected = self.selected.saturating_sub(by);
                Vec::new()
            }
            Action::Down | Action::PageDown if self.focus == Pane::Queue => {
                let by = if a == Action::Down { 1 } else { 10 };
                if self.selected + 1 < len || len == 0 {
                    self.selected = (self.selected + by).min(len.saturating_sub(1));
                } else if a == Action::Down {
                    self.focus = self.focus.down();
                }
                Vec::new()
            }
            Action::Up if self.focus == Pane::Backfill && self.selected_running > 0 => {
                self.selected_running -= 1;
                Vec::new()
            }
            Action::Down
                if self.focus == Pane::Backfill
                    && self.selected_running + 1 < self.snapshot.engine.running.len() =>
            {
                self.selected_running += 1;
                Vec::new()
            }
            Action::Up => {
                self.focus = self.focus.up();
                Vec::new()
            }
            Action::Down => {
                self.focus = self.focus.down();
                Vec::new()
            }
            Action::Home if self.focus == Pane::Queue => {
                self.selected = 0;
                Vec::new()
            }
            Action::End if self.focus == Pane::Queue => {
                self.selected = len.saturating_sub(1);
                Vec::new()
            }
            _ => Vec::new(),
        }
    }
}
