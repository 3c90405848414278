//! The console's model, its messages and `update`: keys and clicks become
//! effects (requests to the driver, quitting) without any I/O, so key and
//! mouse handling are tested without a terminal.

mod forms;
mod keys;
mod mouse;
mod normal;
mod pane;

pub use pane::Pane;

use super::hits::Hits;
pub use super::inject_form::{INJECT_FIELDS, InjectForm};
use super::keymap::Mode;
use super::panes::help;
pub use super::picker::PickerState;
use super::projection::QueueWindow;
use super::session::{DEFAULT_WINDOW, Request};
use super::snapshot::{CueJob, Message, Snapshot};
use crate::engine::{Command, QueueRow, RunningRow};
use crate::metrics::Grouping;
use crate::model::JobRecord;
use crate::scenario::CuePane;
use crate::workload::estimates::EstimateModel;
#[cfg(test)]
use crossterm::event::{KeyCode, KeyModifiers};
use crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Something that happened: a key, a mouse event and when it came, a new
/// snapshot, the terminal's size (columns, rows) at the start and on
/// every resize.
#[derive(Clone, Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent, Instant),
    Snapshot(Arc<Snapshot>),
    Resize(u16, u16),
}

/// Two clicks on the same job this close together open its detail.
pub const DOUBLE_CLICK: Duration = Duration::from_millis(400);

/// The job a click chose: one waiting in the queue, or one running on the
/// processor clicked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clicked {
    Queued(u64),
    Running(u64),
}

/// What `update` asks the outside world to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    Send(Request),
    Quit,
}

/// The estimate errors `e` cycles through, in percent (0 = exact).
pub const ESTIMATE_STEPS: [f64; 3] = [0.0, 10.0, 30.0];

/// What the job-detail window knows of its job.
#[derive(Clone, Debug, PartialEq)]
pub enum JobInfo {
    Queued(QueueRow),
    Running(RunningRow),
    Ended(JobRecord),
    /// Ended, but its record is no longer at hand.
    Gone,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DetailState {
    pub id: u64,
    pub info: JobInfo,
}

/// What a key did to an open form: it stays open, was cancelled, or hands
/// over what the operator filled in.
#[derive(Clone, Debug, PartialEq)]
pub enum Form<T> {
    Open,
    Cancel,
    Submit(T),
}

/// Open windows over the main screen.
#[derive(Clone, Debug, PartialEq)]
pub enum Overlay {
    None,
    /// The help, scrolled down by this many lines.
    Help(u16),
    Detail(DetailState),
    Picker(PickerState),
    Inject(InjectForm),
    Estimate(String),
}

/// The steps `B` walks a link's bandwidth through, as shares of its
/// bandwidth when the console started: restored, then degraded ever more.
pub const LINK_STEPS: [f64; 4] = [1.0, 0.5, 0.25, 0.125];

pub struct App {
    pub snapshot: Arc<Snapshot>,
    pub focus: Pane,
    /// The pane below the queue and the clusters on a small terminal: the
    /// last of head & backfill, groups and history to have had the focus.
    pub lower: Pane,
    /// The terminal's size, for scrolling the help.
    pub area: Rect,
    /// The selected queue row.
    pub selected: usize,
    /// The selected window (running job) in the head & backfill pane.
    pub selected_running: usize,
    pub grouping: Grouping,
    pub overlay: Overlay,
    pub estimate_step: usize,
    /// The inject form as the operator last left it: `i` opens it again
    /// with the same values.
    pub last_inject: InjectForm,
    /// A message of the console's own (a validation error); replaced by the
    /// driver's message as soon as a request is sent.
    pub note: Option<Message>,
    pub quit: bool,
    /// The link `b` chose (an index into the snapshot's links).
    pub link: usize,
    /// Each link's bandwidth when the console started, and the step of
    /// [`LINK_STEPS`] `B` last set it to.
    pub start_abw: Vec<f64>,
    pub link_steps: Vec<usize>,
    /// The queue rows and the job the driver was last asked to carry in
    /// its snapshots (see [`Request::View`]).
    pub asked: (QueueWindow, Option<u64>, Option<u64>),
    /// The last cue whose job and pane were selected (its `seq`).
    pub cue_seen: u64,
    /// Where the last frame drew what: clicks are read against it.
    pub drawn: Hits,
    /// The last click on a job and when it came, for a double click.
    pub last_click: Option<(Instant, Clicked)>,
}

/// Queue rows either side of the selection the console asks snapshots to
/// carry: more than any queue pane is tall, so scrolling stays within
/// what the last snapshot carries until the next one arrives.
const WINDOW_MARGIN: usize = 384;
/// The rows either side of the selection a snapshot must carry (a pane
/// of up to this many rows draws from the selection up or down).
const WINDOW_NEED: usize = 256;

impl App {
    pub fn new(snapshot: Arc<Snapshot>) -> App {
        let last_inject = InjectForm::for_rules(&snapshot.fit);
        let start_abw: Vec<f64> = snapshot.engine.links.iter().map(|l| l.capacity).collect();
        let link_steps = vec![0; start_abw.len()];
        let head = snapshot.engine.queue.first().map(|r| r.id);
        App {
            snapshot,
            focus: Pane::Queue,
            lower: Pane::Backfill,
            area: Rect::default(),
            selected: 0,
            selected_running: 0,
            grouping: Grouping::Size,
            overlay: Overlay::None,
            estimate_step: 0,
            last_inject,
            note: None,
            quit: false,
            link: 0,
            start_abw,
            link_steps,
            asked: (DEFAULT_WINDOW, None, head),
            cue_seen: 0,
            drawn: Hits::default(),
            last_click: None,
        }
    }

    /// Whether a mouse event can do anything: a left click or the wheel.
    /// The pointer moving, dragging or let go does nothing.
    pub fn heeds(m: &MouseEvent) -> bool {
        matches!(
            m.kind,
            MouseEventKind::Down(MouseButton::Left)
                | MouseEventKind::ScrollUp
                | MouseEventKind::ScrollDown
        )
    }

    pub fn mode(&self) -> Mode {
        match self.overlay {
            Overlay::None => Mode::Normal,
            Overlay::Help(_) => Mode::Help,
            Overlay::Detail(_) => Mode::Detail,
            Overlay::Picker(_) => Mode::Picker,
            Overlay::Inject(_) => Mode::Inject,
            Overlay::Estimate(_) => Mode::Estimate,
        }
    }

    /// The job the selection points at.
    pub fn selected_job(&self) -> Option<u64> {
        if self.focus == Pane::Backfill {
            let w = windows(&self.snapshot);
            return w
                .get(self.selected_running.min(w.len().saturating_sub(1)))
                .map(|r| r.id);
        }
        let q = &self.snapshot.engine.queue;
        q.get(self.selected.min(q.len().saturating_sub(1)))
            .map(|r| r.id)
    }

    /// The message line: the console's own note, else the driver's.
    pub fn message(&self) -> Option<&Message> {
        self.note.as_ref().or(self.snapshot.message.as_ref())
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let mut effects = self.apply(msg);
        if !self.quit {
            effects.extend(self.view_request());
        }
        effects
    }

    /// Asks the driver for other queue rows or another watched job when
    /// the selection has moved near the edge of what snapshots carry, or a
    /// job's detail opened or closed.
    fn view_request(&mut self) -> Option<Effect> {
        let job = match &self.overlay {
            Overlay::Detail(d) => Some(d.id),
            _ => None,
        };
        // The reason shown is for the job whose detail is open, else for
        // the queued job selected.
        let explain = job.or_else(|| self.snapshot.engine.queue.get(self.selected).map(|r| r.id));
        let (window, watched, explained) = self.asked;
        let need_from = self.selected.saturating_sub(WINDOW_NEED);
        let covered = window.covers(need_from, self.selected + WINDOW_NEED - need_from);
        if covered && watched == job && explained == explain {
            return None;
        }
        let queue = if covered {
            window
        } else {
            QueueWindow::around(self.selected, WINDOW_MARGIN)
        };
        self.asked = (queue, job, explain);
        Some(Effect::Send(Request::View {
            queue,
            job,
            explain,
        }))
    }

    fn apply(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::Snapshot(s) => {
                self.snapshot = s;
                let len = self.snapshot.engine.queue.len();
                self.selected = self.selected.min(len.saturating_sub(1));
                let running = self.snapshot.engine.running.len();
                self.selected_running = self.selected_running.min(running.saturating_sub(1));
                self.follow_cue();
                if let Overlay::Detail(d) = &mut self.overlay {
                    d.info = find_job(&self.snapshot, d.id).unwrap_or(match &d.info {
                        JobInfo::Queued(_) | JobInfo::Running(_) => JobInfo::Gone,
                        other => other.clone(),
                    });
                }
                Vec::new()
            }
            Msg::Resize(w, h) => {
                self.area = Rect::new(0, 0, w, h);
                if let Overlay::Help(top) = &mut self.overlay {
                    *top = (*top).min(help::max_scroll(self.area));
                }
                Vec::new()
            }
            Msg::Key(key) => self.key(key),
            Msg::Mouse(m, at) => self.mouse(m, at),
        }
    }

    /// A cue reached since the last snapshot: select its job where it is
    /// (a queued job in the queue, a running one among the windows) and
    /// focus its pane, once per cue.
    fn follow_cue(&mut self) {
        let Some(cue) = self.snapshot.cue.clone() else {
            return;
        };
        if cue.seq == self.cue_seen {
            return;
        }
        self.cue_seen = cue.seq;
        match cue.select {
            Some((_, CueJob::Queued(pos))) => {
                self.selected = pos;
                self.focus = Pane::Queue;
            }
            Some((id, CueJob::Running)) => {
                if let Some(i) = windows(&self.snapshot).iter().position(|r| r.id == id) {
                    self.selected_running = i;
                    self.focus = Pane::Backfill;
                }
            }
            Some((_, CueJob::Elsewhere)) | None => {}
        }
        if let Some(pane) = cue.pane {
            self.focus = match pane {
                CuePane::Queue => Pane::Queue,
                CuePane::Clusters => Pane::Clusters,
                CuePane::Backfill => Pane::Backfill,
                CuePane::Groups => Pane::Groups,
                CuePane::History => Pane::History,
            };
        }
        if matches!(self.focus, Pane::Backfill | Pane::Groups | Pane::History) {
            self.lower = self.focus;
        }
    }

    fn send(&mut self, r: Request) -> Vec<Effect> {
        self.note = None;
        vec![Effect::Send(r)]
    }
}

/// The command for an estimate error of `percent` (0 = exact estimates),
/// for jobs that arrive from now on. What happens on an overrun stays as
/// the run has it.
pub fn estimate_command(percent: f64, current: &EstimateModel) -> Command {
    let model = if percent == 0.0 {
        EstimateModel::exact()
    } else {
        EstimateModel::uniform_error(percent)
    };
    Command::SetEstimateError {
        estimates: model.with_overrun(current.on_overrun),
        queued_too: false,
    }
}

/// Running jobs in the order the head & backfill pane lists their
/// windows: by estimated end.
pub fn windows(snap: &Snapshot) -> Vec<&RunningRow> {
    let mut running: Vec<&RunningRow> = snap.engine.running.iter().collect();
    running.sort_by_key(|r| (r.estimated_end, r.id));
    running
}

/// Where job `id` is in `snap`: queued, running, or recently ended.
pub fn find_job(snap: &Snapshot, id: u64) -> Option<JobInfo> {
    if let Some((_, q)) = snap.engine.queue.find(id) {
        return Some(JobInfo::Queued(q.clone()));
    }
    if let Some(r) = snap.engine.running.iter().find(|r| r.id == id) {
        return Some(JobInfo::Running(r.clone()));
    }
    snap.recent
        .iter()
        .rev()
        .find(|r| r.id == id)
        .map(|r| JobInfo::Ended(r.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::InjectJob;
    use crate::policy::Catalogued;
    use crate::policy::backfill::BackfillOrder;
    use crate::policy::placement::PlacementName;
    use crate::policy::{MaxJumps, PolicyName, PolicySpec};
    use crate::policy::{SharedParams, names};

    #[test]
    fn the_estimate_key_keeps_the_overrun_setting() {
        use crate::workload::estimates::OnOverrun;
        let current = EstimateModel::exact().with_overrun(OnOverrun::Kill);
        let Command::SetEstimateError { estimates, .. } = estimate_command(30.0, &current) else {
            panic!("not an estimate command")
        };
        assert_eq!(
            estimates,
            EstimateModel::uniform_error(30.0).with_overrun(OnOverrun::Kill)
        );
    }
    use crate::console::fixtures;

    fn app() -> App {
        App::new(Arc::new(fixtures::snapshot()))
    }

    fn key(c: char) -> Msg {
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
    }

    fn code(c: KeyCode) -> Msg {
        Msg::Key(KeyEvent::new(c, KeyModifiers::NONE))
    }

    fn press(app: &mut App, keys: &[Msg]) -> Vec<Effect> {
        keys.iter().flat_map(|k| app.update(k.clone())).collect()
    }

    fn send(r: Request) -> Vec<Effect> {
        vec![Effect::Send(r)]
    }

    #[test]
    fn main_screen_keys_to_effects() {
        let table: Vec<(Msg, Vec<Effect>)> = vec![
            (key(' '), send(Request::TogglePause)),
            (key('+'), send(Request::Faster)),
            (key('='), send(Request::Faster)),
            (key('-'), send(Request::Slower)),
            (key('.'), send(Request::StepEvent)),
            (key('n'), send(Request::StepJob(20))),
            (
                key('e'),
                send(Request::Apply(estimate_command(
                    10.0,
                    &EstimateModel::exact(),
                ))),
            ),
            (key('s'), send(Request::Save)),
            (key('r'), send(Request::Restart { new_seed: false })),
            (key('R'), send(Request::Restart { new_seed: true })),
            (key('q'), vec![Effect::Quit]),
            (
                Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
                vec![Effect::Quit],
            ),
            (key('g'), vec![]),
            (key('x'), vec![]),
            (code(KeyCode::Tab), vec![]),
            (key('p'), vec![]),
            (key('i'), vec![]),
            (key('?'), vec![]),
            // The detail opens, and the driver is asked to carry the job
            // wherever it waits.
            (
                code(KeyCode::Enter),
                send(Request::View {
                    queue: DEFAULT_WINDOW,
                    job: Some(20),
                    explain: Some(20),
                }),
            ),
        ];
        for (msg, want) in table {
            let mut a = app();
            assert_eq!(a.update(msg.clone()), want, "{msg:?}");
        }
    }

    #[test]
    fn keys_open_the_right_windows() {
        let cases = [
            ('p', Mode::Picker),
            ('i', Mode::Inject),
            ('?', Mode::Help),
            ('E', Mode::Estimate),
        ];
        for (c, mode) in cases {
            let mut a = app();
            a.update(key(c));
            assert_eq!(a.mode(), mode, "{c}");
            a.update(code(KeyCode::Esc));
            assert_eq!(a.mode(), Mode::Normal, "{c} then Esc");
        }
        let mut a = app();
        a.update(code(KeyCode::Enter));
        assert_eq!(a.mode(), Mode::Detail);
        assert_eq!(press(&mut a, &[key('n')]), send(Request::StepJob(20)));
        // q closes help rather than quitting.
        let mut a = app();
        assert!(press(&mut a, &[key('?'), key('q')]).is_empty());
        assert!(!a.quit);
    }

    #[test]
    fn b_chooses_a_link_and_big_b_walks_its_bandwidth_down_and_back() {
        // Without a network the keys say so and send nothing.
        let mut a = app();
        assert!(press(&mut a, &[key('b'), key('B')]).is_empty());
        assert!(
            a.note
                .as_ref()
                .is_some_and(|m| m.error && m.text.contains("no inter-cluster network"))
        );
        let mut snap = fixtures::snapshot();
        snap.engine.links = ["c0", "c1"]
            .iter()
            .map(|n| crate::engine::LinkView {
                name: n.to_string(),
                demand: 0.0,
                capacity: 2.0,
            })
            .collect();
        let mut a = App::new(Arc::new(snap));
        assert!(press(&mut a, &[key('b')]).is_empty());
        assert_eq!(a.link, 1);
        assert!(
            a.note
                .as_ref()
                .is_some_and(|m| m.text.contains("link c1 chosen"))
        );
        let set = |abw: f64| {
            send(Request::Apply(Command::SetLinkBandwidth {
                link: "c1".into(),
                abw,
            }))
        };
        // ½, ¼, ⅛ of the start value, then restored.
        for abw in [1.0, 0.5, 0.25, 2.0] {
            assert_eq!(press(&mut a, &[key('B')]), set(abw));
        }
        // b wraps round to c0, whose steps are its own.
        press(&mut a, &[key('b')]);
        assert_eq!(a.link, 0);
        assert_eq!(
            press(&mut a, &[key('B')]),
            send(Request::Apply(Command::SetLinkBandwidth {
                link: "c0".into(),
                abw: 1.0
            }))
        );
    }

    #[test]
    fn e_cycles_0_10_30_percent() {
        let mut a = app();
        let got = press(&mut a, &[key('e'), key('e'), key('e')]);
        assert_eq!(
            got,
            vec![
                Effect::Send(Request::Apply(estimate_command(
                    10.0,
                    &EstimateModel::exact()
                ))),
                Effect::Send(Request::Apply(estimate_command(
                    30.0,
                    &EstimateModel::exact()
                ))),
                Effect::Send(Request::Apply(Command::SetEstimateError {
                    estimates: EstimateModel::exact(),
                    queued_too: false
                })),
            ]
        );
    }

    #[test]
    fn typed_estimate_error_is_checked() {
        let mut a = app();
        let got = press(
            &mut a,
            &[key('E'), key('5'), key('.'), key('5'), code(KeyCode::Enter)],
        );
        assert_eq!(
            got,
            send(Request::Apply(estimate_command(
                5.5,
                &EstimateModel::exact()
            )))
        );
        let mut a = app();
        let got = press(
            &mut a,
            &[key('E'), key('1'), key('2'), key('0'), code(KeyCode::Enter)],
        );
        assert!(got.is_empty());
        assert!(a.message().unwrap().error);
        assert_eq!(a.mode(), Mode::Estimate);
    }

    /// The picker's "Enter applies …" line, as the screen shows it.
    fn picker_says(a: &App) -> String {
        let area = Rect::new(0, 0, 140, 40);
        let mut buf = ratatui::buffer::Buffer::empty(area);
        crate::console::ui::view(a, false, area, &mut buf);
        let t = crate::console::panes::testing::text(&buf);
        let line = t
            .lines()
            .find(|l| l.contains("Enter applies "))
            .unwrap_or_else(|| panic!("no \"Enter applies\" on the screen:\n{t}"));
        let from = line.find("Enter applies ").unwrap() + "Enter applies ".len();
        // Up to the picker's right border.
        line[from..]
            .split('│')
            .next()
            .unwrap_or_default()
            .trim_end()
            .to_string()
    }

    #[test]
    fn the_picker_applies_what_it_says_it_applies() {
        let all: Vec<PolicyName> = crate::policy::catalog::names().collect();
        let at = |n: PolicyName| all.iter().position(|x| *x == n).unwrap();
        let (fpfs, easy) = (at(names::FPFS), at(names::EASY));
        let moves = |from: usize, to: usize| -> Vec<Msg> {
            let k = if to > from {
                KeyCode::Down
            } else {
                KeyCode::Up
            };
            std::iter::repeat_n(code(k), from.abs_diff(to)).collect()
        };
        // EASY chosen with Space, then the cursor back on FPFS: the screen
        // and Enter agree on the policy under the cursor.
        let mut a = app();
        press(&mut a, &[key('p')]);
        press(&mut a, &moves(fpfs, easy));
        press(&mut a, &[key(' ')]);
        assert!(picker_says(&a).starts_with("EASY"), "{}", picker_says(&a));
        press(&mut a, &moves(easy, fpfs));
        let said = picker_says(&a);
        let got = press(&mut a, &[code(KeyCode::Enter)]);
        let [Effect::Send(Request::Apply(Command::SetPolicy { policy }))] = got.as_slice() else {
            panic!("Enter applies a policy: {got:?}")
        };
        assert_eq!(said, policy.label());
        assert_eq!(policy.name, names::FPFS);
        // EASY chosen, the cursor on its first parameter row: EASY, as said.
        let mut a = app();
        press(&mut a, &[key('p')]);
        press(&mut a, &moves(fpfs, easy));
        press(&mut a, &[key(' ')]);
        press(&mut a, &moves(easy, all.len()));
        let said = picker_says(&a);
        let got = press(&mut a, &[code(KeyCode::Enter)]);
        let [Effect::Send(Request::Apply(Command::SetPolicy { policy }))] = got.as_slice() else {
            panic!("Enter applies a policy: {got:?}")
        };
        assert_eq!(said, policy.label());
        assert_eq!(policy.name, names::EASY);
        // Every name row, reached from every chosen policy: what the line
        // says is what Enter sends.
        for chosen in 0..all.len() {
            for cursor in 0..all.len() {
                let mut a = app();
                press(&mut a, &[key('p')]);
                press(&mut a, &moves(fpfs, chosen));
                press(&mut a, &[key(' ')]);
                press(&mut a, &moves(chosen, cursor));
                let said = picker_says(&a);
                let got = press(&mut a, &[code(KeyCode::Enter)]);
                let [Effect::Send(Request::Apply(Command::SetPolicy { policy }))] = got.as_slice()
                else {
                    panic!("Enter applies a policy: {got:?}")
                };
                // A long label runs to the picker's border.
                let label = policy.label();
                assert!(
                    label.starts_with(&said) && said.len() >= label.len().min(48),
                    "chosen {chosen}, cursor {cursor}: the screen says {said:?}, Enter applies {label:?}"
                );
            }
        }
    }

    #[test]
    fn picker_applies_fpfs_0_or_another_policy() {
        let mut a = app();
        let got = press(&mut a, &[key('p'), key('0'), code(KeyCode::Enter)]);
        assert_eq!(
            got,
            send(Request::Apply(Command::SetPolicy {
                policy: PolicySpec::fpfs(MaxJumps::Limit(0))
            }))
        );
        assert_eq!(a.mode(), Mode::Normal);
        // Typing replaces the value first, then adds digits.
        let mut a = app();
        let got = press(
            &mut a,
            &[key('p'), key('2'), key('5'), code(KeyCode::Enter)],
        );
        assert_eq!(
            got,
            send(Request::Apply(Command::SetPolicy {
                policy: PolicySpec::fpfs(MaxJumps::Limit(25))
            }))
        );
        // Every policy the engine knows is on the list: choose the first.
        let mut a = app();
        let mut keys = vec![key('p')];
        let all: Vec<PolicyName> = crate::policy::catalog::names().collect();
        let from = all.iter().position(|n| *n == names::FPFS).unwrap();
        keys.extend(std::iter::repeat_n(code(KeyCode::Up), from));
        keys.push(code(KeyCode::Enter));
        let got = press(&mut a, &keys);
        let mut want = PolicySpec::fpfs(MaxJumps::Limit(10));
        want.name = all[0];
        assert_eq!(
            got,
            send(Request::Apply(Command::SetPolicy { policy: want }))
        );
        // Placement cycles with the arrows on its row (the last one; the
        // cursor starts on the current policy).
        let mut a = app();
        let mut keys = vec![key('p')];
        keys.extend(std::iter::repeat_n(
            code(KeyCode::Down),
            all.len() + 1 - from,
        ));
        keys.extend([code(KeyCode::Right), key('u'), code(KeyCode::Enter)]);
        let got = press(&mut a, &keys);
        let Effect::Send(Request::Apply(Command::SetPolicy { policy })) = &got[0] else {
            panic!("{got:?}")
        };
        assert_eq!(policy.placement(), PlacementName::BestFit);
        assert_eq!(policy.max_jumps(), MaxJumps::Unlimited);
        // EASY with the smallest job first in the backfill scan: choose
        // EASY with Space, go down to its first row (the order), two steps
        // right.
        let easy = all.iter().position(|n| *n == names::EASY).unwrap();
        let mut a = app();
        let mut keys = vec![key('p')];
        keys.extend(std::iter::repeat_n(code(KeyCode::Down), easy - from));
        keys.push(key(' '));
        keys.extend(std::iter::repeat_n(code(KeyCode::Down), all.len() - easy));
        keys.extend([code(KeyCode::Right), code(KeyCode::Right)]);
        keys.push(code(KeyCode::Enter));
        let got = press(&mut a, &keys);
        let Effect::Send(Request::Apply(Command::SetPolicy { policy })) = &got[0] else {
            panic!("{got:?}")
        };
        assert_eq!(policy.name, names::EASY);
        assert_eq!(policy.order(), BackfillOrder::Smallest);
        assert_eq!(
            policy.label(),
            "EASY backfilling (smallest first) + worst fit"
        );
    }

    #[test]
    fn inject_form_validates_in_place() {
        // The form opens with a size the platform takes (16 on 2 × 8, split
        // 8 + 8 by the policy as the workload's jobs are).
        let mut a = app();
        press(&mut a, &[key('i')]);
        let Overlay::Inject(f) = &a.overlay else {
            panic!("the form did not open")
        };
        assert_eq!(f.values[1], "16");
        // 16 as one component cannot fit 2 × 8: the form stays open on the
        // components, which keep what was typed, and says what would fit.
        let mut a = app();
        let mut keys = vec![key('i'), code(KeyCode::Down), code(KeyCode::Down)];
        keys.extend([code(KeyCode::Down), code(KeyCode::Down), key('1'), key('6')]);
        keys.push(code(KeyCode::Enter));
        assert!(press(&mut a, &keys).is_empty());
        let Overlay::Inject(f) = &a.overlay else {
            panic!("the form closed")
        };
        assert_eq!(f.cursor, 4);
        assert_eq!(f.values[4], "16");
        assert!(
            f.errors[4].as_deref().unwrap().ends_with("; try 8+8"),
            "{:?}",
            f.errors
        );
        // Size 99 is more than the platform has.
        let mut a = app();
        let keys = [
            key('i'),
            code(KeyCode::Down),
            code(KeyCode::Backspace),
            code(KeyCode::Backspace),
            key('9'),
            key('9'),
            code(KeyCode::Enter),
        ];
        assert!(press(&mut a, &keys).is_empty());
        let Overlay::Inject(f) = &a.overlay else {
            panic!("the form closed")
        };
        assert_eq!(f.errors[1].as_deref(), Some("at most 16 on 2×8"));
        // Explicit components and an estimate.
        let mut a = app();
        let mut keys = vec![key('i'), code(KeyCode::Down), code(KeyCode::Backspace)];
        keys.extend([
            code(KeyCode::Backspace),
            key('1'),
            key('6'),
            code(KeyCode::Down),
        ]);
        keys.extend([code(KeyCode::Down), key('3'), key('0')]);
        keys.extend([code(KeyCode::Down), key('8'), key('+'), key('8')]);
        keys.push(code(KeyCode::Enter));
        let got = press(&mut a, &keys);
        assert_eq!(
            got,
            send(Request::Apply(Command::InjectJobs {
                jobs: vec![InjectJob {
                    size: 16,
                    runtime: 60.0,
                    estimate: Some(30.0),
                    components: Some(vec![8, 8]),
                    count: 1,
                    site: None,
                }]
            }))
        );
        assert_eq!(a.mode(), Mode::Normal);
        // `i` opens the form again with what was typed last.
        press(&mut a, &[key('i')]);
        let Overlay::Inject(f) = &a.overlay else {
            panic!("no form")
        };
        assert_eq!(f.values[4], "8+8");
        assert_eq!(f.values[3], "30");
    }

    #[test]
    fn help_scrolls_within_the_terminal() {
        let mut a = app();
        a.update(Msg::Resize(80, 24));
        let max = help::max_scroll(Rect::new(0, 0, 80, 24));
        assert!(max > 0);
        press(&mut a, &[key('?'), code(KeyCode::End)]);
        assert_eq!(a.overlay, Overlay::Help(max));
        press(&mut a, &[code(KeyCode::Down)]);
        assert_eq!(a.overlay, Overlay::Help(max), "the end is the end");
        press(&mut a, &[code(KeyCode::PageUp)]);
        assert!(matches!(a.overlay, Overlay::Help(t) if t < max));
        press(&mut a, &[key('g')]);
        assert_eq!(a.overlay, Overlay::Help(0));
        press(&mut a, &[key('j'), key('j')]);
        assert_eq!(a.overlay, Overlay::Help(2));
        // At 120 × 28 everything shows: nothing to scroll.
        a.update(Msg::Resize(120, 28));
        assert_eq!(a.overlay, Overlay::Help(0));
        press(&mut a, &[key('j')]);
        assert_eq!(a.overlay, Overlay::Help(0));
    }

    #[test]
    fn the_lower_pane_follows_the_focus() {
        let mut a = app();
        assert_eq!(a.lower, Pane::Backfill);
        press(
            &mut a,
            &[code(KeyCode::Tab), code(KeyCode::Tab), code(KeyCode::Tab)],
        );
        assert_eq!((a.focus, a.lower), (Pane::Groups, Pane::Groups));
        press(&mut a, &[code(KeyCode::Tab)]);
        assert_eq!(a.lower, Pane::History);
        // Back to the queue: history stays below it.
        press(&mut a, &[code(KeyCode::Tab)]);
        assert_eq!((a.focus, a.lower), (Pane::Queue, Pane::History));
    }

    #[test]
    fn moving_between_panes_and_jobs() {
        let mut a = app();
        press(&mut a, &[key('j'), key('j')]);
        assert_eq!(a.selected_job(), Some(fixtures::INJ2));
        assert_eq!(
            press(&mut a, &[key('n')]),
            send(Request::StepJob(fixtures::INJ2))
        );
        press(&mut a, &[key('j')]);
        assert_eq!(a.focus, Pane::Groups, "down past the last job");
        press(&mut a, &[key('l')]);
        assert_eq!(a.focus, Pane::History);
        press(&mut a, &[key('k')]);
        assert_eq!(a.focus, Pane::Backfill);
        press(&mut a, &[code(KeyCode::Tab)]);
        assert_eq!(a.focus, Pane::Groups);
        press(&mut a, &[code(KeyCode::BackTab), key('h'), key('h')]);
        assert_eq!(a.focus, Pane::Queue);
        press(&mut a, &[key('g')]);
        assert_eq!(a.grouping, Grouping::Components);
    }

    /// Clicks read against a hand-made map of the screen: a row selects,
    /// a second click opens the detail, a third one after it only selects
    /// again; a busy cell selects its running job, a free one nothing.
    #[test]
    fn clicks_select_and_double_clicks_open() {
        use crate::console::hits::{Hits, Queued, Spot};
        let mut a = app();
        a.drawn = Hits {
            queue: vec![Spot::new(
                Rect::new(1, 5, 30, 1),
                Queued {
                    pos: 2,
                    id: fixtures::INJ2,
                },
            )],
            cells: vec![
                Spot::new(Rect::new(40, 3, 1, 1), Some(10)),
                Spot::new(Rect::new(41, 3, 1, 1), None),
            ],
            ..Hits::default()
        };
        let t0 = Instant::now();
        let click = |a: &mut App, x: u16, y: u16, ms: u64| {
            let m = MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column: x,
                row: y,
                modifiers: KeyModifiers::NONE,
            };
            a.update(Msg::Mouse(m, t0 + Duration::from_millis(ms)))
        };
        click(&mut a, 10, 5, 0);
        assert_eq!(a.selected_job(), Some(fixtures::INJ2));
        assert_eq!(a.mode(), Mode::Normal);
        click(&mut a, 10, 5, 399);
        assert_eq!(a.mode(), Mode::Detail);
        press(&mut a, &[code(KeyCode::Esc)]);
        click(&mut a, 10, 5, 500);
        assert_eq!(a.mode(), Mode::Normal, "a third click starts over");
        // A free processor, then a busy one: job 10 among the windows.
        click(&mut a, 41, 3, 600);
        assert_eq!(
            (a.focus, a.selected_job()),
            (Pane::Queue, Some(fixtures::INJ2))
        );
        click(&mut a, 40, 3, 700);
        assert_eq!((a.focus, a.selected_job()), (Pane::Backfill, Some(10)));
        assert!(
            click(&mut a, 40, 3, 800).contains(&Effect::Send(Request::View {
                queue: DEFAULT_WINDOW,
                job: Some(10),
                explain: Some(10),
            }))
        );
        assert_eq!(a.mode(), Mode::Detail);
    }

    #[test]
    fn running_jobs_are_selected_in_the_backfill_pane() {
        let mut a = app();
        press(&mut a, &[key('l'), key('l')]);
        assert_eq!(a.focus, Pane::Backfill);
        // Windows by estimated end: the expired injected job, then job 10.
        assert_eq!(a.selected_job(), Some(fixtures::INJ1));
        press(&mut a, &[key('j')]);
        assert_eq!(a.selected_job(), Some(10));
        assert_eq!(press(&mut a, &[key('n')]), send(Request::StepJob(10)));
        press(&mut a, &[code(KeyCode::Enter)]);
        let Overlay::Detail(d) = &a.overlay else {
            panic!()
        };
        assert!(matches!(&d.info, JobInfo::Running(r) if r.id == 10));
        press(&mut a, &[code(KeyCode::Esc), key('j')]);
        assert_eq!(a.focus, Pane::History, "down past the last window");
    }

    #[test]
    fn detail_follows_its_job_to_the_end() {
        let mut a = app();
        press(&mut a, &[code(KeyCode::Enter)]);
        let mut s = fixtures::snapshot();
        s.engine.queue.remove(0);
        a.update(Msg::Snapshot(Arc::new(s.clone())));
        let Overlay::Detail(d) = &a.overlay else {
            panic!()
        };
        assert_eq!(d.info, JobInfo::Gone);
        let mut r = s.recent[0].clone();
        r.id = 20;
        s.recent.push(r);
        a.update(Msg::Snapshot(Arc::new(s)));
        let Overlay::Detail(d) = &a.overlay else {
            panic!()
        };
        assert!(matches!(d.info, JobInfo::Ended(_)));
    }
}
