//! What a policy shows of itself, in a small vocabulary the console draws
//! without knowing the policy: a title, a note for the head of the queue,
//! lines of text in a few tones (a row per cluster with a mark per
//! processor is such a line), an alert, and a timeline of reservations.
//! A policy's own typed state travels beside it for tests and tools
//! ([`PolicyState::detail`]).

use super::ReservationPlanView;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// The mark of an expired window (a job past its estimate).
pub const EXPIRED: &str = "!";

/// How a piece of text is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tone {
    /// The terminal's own colours.
    #[default]
    Plain,
    /// Secondary: counts, hints, what is empty.
    Dim,
    /// The head of the queue and what is about it.
    Head,
    /// Something a user should notice (a limit reached, a fallback).
    Alert,
    /// Something that went well (busy processors, an optimal solve).
    Good,
    /// A job's own colour.
    Job(u64),
}

/// Text in one tone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PanelSpan {
    pub text: String,
    pub tone: Tone,
}

/// One line of a panel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PanelLine(pub Vec<PanelSpan>);

impl PanelLine {
    /// A line of one tone.
    pub fn of(text: impl Into<String>, tone: Tone) -> PanelLine {
        PanelLine(vec![PanelSpan {
            text: text.into(),
            tone,
        }])
    }

    /// This line and `text` in `tone` after it.
    pub fn then(mut self, text: impl Into<String>, tone: Tone) -> PanelLine {
        self.0.push(PanelSpan {
            text: text.into(),
            tone,
        });
        self
    }

    /// The line's text without tones.
    pub fn text(&self) -> String {
        self.0.iter().map(|s| s.text.as_str()).collect()
    }
}

/// Lines of a policy's own state, cut to fit: the first `keep` always (as
/// many as there is room for), the others while room is left, the last
/// row then saying how many were left out (`more`, with `{}` for the count).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PanelLines {
    pub lines: Vec<PanelLine>,
    pub keep: usize,
    pub more: String,
    /// The share of the pane they may take, in percent.
    pub share: u16,
}

impl PanelLines {
    /// The lines that fit in `room` rows.
    pub fn fitted(&self, room: usize) -> Vec<PanelLine> {
        let kept = self.keep.min(self.lines.len()).min(room);
        let mut out: Vec<PanelLine> = self.lines[..kept].to_vec();
        let items = &self.lines[self.keep.min(self.lines.len())..];
        let left = room.saturating_sub(out.len());
        let shown = if items.len() > left {
            left.saturating_sub(1)
        } else {
            items.len()
        };
        out.extend(items.iter().take(shown).cloned());
        if shown < items.len() && left > 0 {
            out.push(PanelLine::of(
                self.more.replace("{}", &(items.len() - shown).to_string()),
                Tone::Dim,
            ));
        }
        out
    }
}

/// What the console shows of a policy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Panel {
    /// What the head pane is about beside the head (" Head & {title} "):
    /// `backfill` when `None`.
    pub title: Option<String>,
    /// The title of the queue's policy column (`jumps`) and a few
    /// characters on the head there (`3/10`).
    pub note_column: Option<String>,
    pub head_note: Option<String>,
    /// Lines about the head, shown where no backfilling reservation is.
    pub head_lines: Vec<PanelLine>,
    /// The policy's own state.
    pub lines: PanelLines,
    /// A line shown in the alert tone above the running jobs' windows.
    pub alert: Option<String>,
    /// A timeline of advance reservations, drawn over the processors.
    pub plan: Option<Box<ReservationPlanView>>,
}

/// What a policy tells the console and tests about its own state: the
/// [`Panel`] the console draws, and the policy's own typed state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolicyState {
    pub panel: Panel,
    detail: Option<Detail>,
}

impl PolicyState {
    /// A state that shows `panel`.
    pub fn new(panel: Panel) -> PolicyState {
        PolicyState {
            panel,
            detail: None,
        }
    }

    /// This state with the policy's own typed state beside the panel.
    pub fn with_detail<T: Any + Send + Sync + fmt::Debug + PartialEq>(
        mut self,
        detail: T,
    ) -> PolicyState {
        self.detail = Some(Detail(Arc::new(detail)));
        self
    }

    /// The policy's own state, when it is a `T`.
    pub fn detail<T: Any>(&self) -> Option<&T> {
        let d: &dyn Any = self.detail.as_ref()?.0.as_ref();
        d.downcast_ref()
    }
}

/// A policy's typed state, compared and printed as itself.
#[derive(Clone)]
struct Detail(Arc<dyn AnyState>);

trait AnyState: Any + Send + Sync + fmt::Debug {
    fn same(&self, other: &dyn AnyState) -> bool;
}

impl<T: Any + Send + Sync + fmt::Debug + PartialEq> AnyState for T {
    fn same(&self, other: &dyn AnyState) -> bool {
        (other as &dyn Any).downcast_ref::<T>() == Some(self)
    }
}

impl PartialEq for Detail {
    fn eq(&self, other: &Self) -> bool {
        self.0.same(other.0.as_ref())
    }
}

impl fmt::Debug for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A whole number with spaces between thousands: `19 302`.
pub fn int(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// Seconds with one decimal and grouped thousands: `12 345.6 s`.
pub fn secs(s: f64) -> String {
    format!("{} s", num1(s))
}

/// A number with one decimal and grouped thousands, without a unit.
pub fn num1(x: f64) -> String {
    if !x.is_finite() {
        return "–".to_string();
    }
    let tenths = (x.abs() * 10.0).round() as u64;
    let sign = if x < 0.0 && tenths > 0 { "-" } else { "" };
    format!("{sign}{}.{}", int(tenths / 10), tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(n: usize, keep: usize) -> PanelLines {
        PanelLines {
            lines: (0..n)
                .map(|i| PanelLine::of(i.to_string(), Tone::Plain))
                .collect(),
            keep,
            more: "… {} more".into(),
            share: 50,
        }
    }

    fn texts(l: &[PanelLine]) -> Vec<String> {
        l.iter().map(PanelLine::text).collect()
    }

    #[test]
    fn lines_that_do_not_fit_are_counted_on_the_last_row() {
        assert_eq!(texts(&lines(3, 0).fitted(5)), ["0", "1", "2"]);
        assert_eq!(texts(&lines(5, 0).fitted(3)), ["0", "1", "… 3 more"]);
        assert_eq!(texts(&lines(5, 2).fitted(4)), ["0", "1", "2", "… 2 more"]);
        // Kept lines come first, as many as fit, and leave no room to count.
        assert_eq!(texts(&lines(5, 2).fitted(1)), ["0"]);
        assert!(lines(5, 0).fitted(0).is_empty());
    }

    #[test]
    fn the_typed_state_is_found_by_its_type() {
        let s = PolicyState::default().with_detail(7u32);
        assert_eq!(s.detail::<u32>(), Some(&7));
        assert_eq!(s.detail::<u64>(), None);
        assert_ne!(s, PolicyState::default());
        // Compared as what they hold.
        assert_eq!(s, PolicyState::default().with_detail(7u32));
        assert_ne!(s, PolicyState::default().with_detail(8u32));
        assert_ne!(s, PolicyState::default().with_detail(7u64));
        assert_eq!(
            format!("{s:?}"),
            "PolicyState { panel: Panel { title: None, note_column: None, head_note: None, head_lines: [], lines: PanelLines { lines: [], keep: 0, more: \"\", share: 0 }, alert: None, plan: None }, detail: Some(7) }"
        );
    }
}
