//! Every key binding in one table: `update` looks keys up here and the help
//! screen and key bar are generated from it, so they cannot disagree.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Which screen the keys act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Normal,
    Help,
    Detail,
    Picker,
    Inject,
    Estimate,
}

impl Mode {
    pub const ALL: [Mode; 6] = [
        Mode::Normal,
        Mode::Help,
        Mode::Detail,
        Mode::Picker,
        Mode::Inject,
        Mode::Estimate,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Mode::Normal => "Main screen",
            Mode::Help => "Help",
            Mode::Detail => "Job detail",
            Mode::Picker => "Policy picker",
            Mode::Inject => "Inject jobs form",
            Mode::Estimate => "Estimate error prompt",
        }
    }
}

/// What a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Quit,
    TogglePause,
    Faster,
    Slower,
    StepEvent,
    StepJob,
    /// To a lesson's next cue, or (no cues) the selected job's next event.
    Next,
    OpenPicker,
    OpenInject,
    CycleEstimate,
    TypeEstimate,
    /// Choose the next link (`b`).
    NextLink,
    /// The chosen link's bandwidth to the next step of [`LINK_STEPS`](crate::console::app::LINK_STEPS).
    CycleLink,
    NextGrouping,
    NextPane,
    PrevPane,
    Up,
    Down,
    PageUp,
    PageDown,
    /// To the top (help).
    Home,
    /// To the end (help).
    End,
    Left,
    Right,
    Detail,
    Save,
    Restart,
    RestartNewSeed,
    Help,
    /// Close the open window.
    Close,
    /// Confirm the open window (apply, inject, set).
    Confirm,
    /// Choose the policy under the cursor (picker).
    Select,
    /// Set the policy's limit to unlimited (picker).
    Unlimited,
    /// Delete the last character typed.
    Backspace,
    /// Typed text; documents the keys that fall through to a field.
    Type,
    /// Documents the mouse: no key is bound to it.
    Mouse,
}

pub struct Binding {
    pub mode: Mode,
    pub keys: &'static [KeyCode],
    /// How the help screen names the keys.
    pub label: &'static str,
    /// A word or two for the key bar; empty to leave it off the bar.
    pub bar: &'static str,
    pub help: &'static str,
    pub action: Action,
}

const fn b(
    mode: Mode,
    keys: &'static [KeyCode],
    label: &'static str,
    bar: &'static str,
    help: &'static str,
    action: Action,
) -> Binding {
    Binding {
        mode,
        keys,
        label,
        bar,
        help,
        action,
    }
}

use KeyCode::{
    BackTab, Backspace, Char, Down, End, Enter, Esc, Home, Left, PageDown, PageUp, Right, Tab, Up,
};
use Mode::{Detail, Estimate, Help, Inject, Normal, Picker};

// A binding whose help is empty shares the line of the one before it in
// the help screen (`+ / -`, `r / R`): the first one's help covers both.
#[rustfmt::skip]
pub static KEYMAP: &[Binding] = &[
    // The main screen.
    b(Normal, &[Char(' ')], "Space", "pause", "pause or resume the simulation", Action::TogglePause),
    b(Normal, &[Char('+'), Char('=')], "+", "", "faster / slower (simulated s per s)", Action::Faster),
    b(Normal, &[Char('-'), Char('_')], "-", "speed", "", Action::Slower),
    b(Normal, &[Char('.')], ".", "step", "handle one event, then stay paused", Action::StepEvent),
    b(Normal, &[Char('n')], "n", "", "next cue, or the selected job's next event", Action::Next),
    b(Normal, &[Char('p')], "p", "policy", "choose a policy, applied now", Action::OpenPicker),
    b(Normal, &[Char('i')], "i", "inject", "inject jobs (marked ◆ everywhere)", Action::OpenInject),
    b(Normal, &[Char('e')], "e", "estimates", "estimate error 0, 10, 30 % (new jobs)", Action::CycleEstimate),
    b(Normal, &[Char('E')], "E", "", "type an estimate error in percent", Action::TypeEstimate),
    b(Normal, &[Char('b')], "b", "", "next link / bandwidth 1, ½, ¼, ⅛ × start", Action::NextLink),
    b(Normal, &[Char('B')], "B", "", "", Action::CycleLink),
    b(Normal, &[Char('g')], "g", "groups", "groups by size, components or widest", Action::NextGrouping),
    b(Normal, &[Tab], "Tab", "", "next / previous pane", Action::NextPane),
    b(Normal, &[BackTab], "Shift+Tab", "", "", Action::PrevPane),
    b(Normal, &[Left, Char('h')], "← h", "", "pane to the left / right", Action::Left),
    b(Normal, &[Right, Char('l')], "→ l", "", "", Action::Right),
    b(Normal, &[Up, Char('k')], "↑ k", "", "job above / below, or the next pane", Action::Up),
    b(Normal, &[Down, Char('j')], "↓ j", "", "", Action::Down),
    b(Normal, &[PageUp], "PgUp", "", "ten jobs up / down", Action::PageUp),
    b(Normal, &[PageDown], "PgDn", "", "", Action::PageDown),
    b(Normal, &[Home], "Home", "", "first / last job in the queue", Action::Home),
    b(Normal, &[End], "End", "", "", Action::End),
    b(Normal, &[Enter], "Enter", "job", "the selected job's detail, why it waits", Action::Detail),
    b(Normal, &[], "mouse", "", "click selects, twice opens; wheel moves", Action::Mouse),
    b(Normal, &[Char('s')], "s", "save", "save scenario + commands as a new file", Action::Save),
    b(Normal, &[Char('r')], "r", "", "restart with the same / the next seed", Action::Restart),
    b(Normal, &[Char('R')], "R", "", "", Action::RestartNewSeed),
    b(Normal, &[Char('?')], "?", "help", "this help / quit", Action::Help),
    b(Normal, &[Char('q')], "q", "quit", "", Action::Quit),
    // Help.
    b(Help, &[Up, Char('k')], "↑ k", "", "scroll up / down", Action::Up),
    b(Help, &[Down, Char('j')], "↓ j", "scroll", "", Action::Down),
    b(Help, &[PageUp], "PgUp", "", "a page up / down", Action::PageUp),
    b(Help, &[PageDown], "PgDn", "page", "", Action::PageDown),
    b(Help, &[Home, Char('g')], "Home g", "", "to the top / the end", Action::Home),
    b(Help, &[End, Char('G')], "End G", "top/end", "", Action::End),
    b(Help, &[Esc, Char('?'), Char('q'), Enter], "Esc ? q", "close", "close the help", Action::Close),
    // Job detail.
    b(Detail, &[Esc, Enter, Char('q')], "Esc Enter", "close", "close the detail", Action::Close),
    b(Detail, &[Char('n')], "n", "next", "run to this job's next start or end", Action::StepJob),
    b(Detail, &[Char(' ')], "Space", "pause", "pause or resume", Action::TogglePause),
    // Policy picker.
    b(Picker, &[Up, Char('k')], "↑ k", "", "cursor up / down", Action::Up),
    b(Picker, &[Down, Char('j'), Tab], "↓ j Tab", "move", "", Action::Down),
    b(Picker, &[Left, Char('h')], "← h", "", "smaller / larger value, other choice", Action::Left),
    b(Picker, &[Right, Char('l')], "→ l", "change", "", Action::Right),
    b(Picker, &[Char(' ')], "Space", "choose", "choose the policy under the cursor", Action::Select),
    b(Picker, &[Char('u')], "u", "", "a limit such as maxJumps to ∞", Action::Unlimited),
    b(Picker, &[], "0-9", "number", "type a whole number (maxJumps …)", Action::Type),
    b(Picker, &[Backspace], "Backspace", "", "delete a digit of the number", Action::Backspace),
    b(Picker, &[Enter], "Enter", "apply", "apply the policy named here", Action::Confirm),
    b(Picker, &[Esc], "Esc", "cancel", "close without a change", Action::Close),
    // Inject form.
    b(Inject, &[Down, Tab], "↓ Tab", "next field", "next / previous field", Action::Down),
    b(Inject, &[Up, BackTab], "↑ Shift+Tab", "", "", Action::Up),
    b(Inject, &[], "0-9 . +", "type", "type (components as 8+8; empty = auto)", Action::Type),
    b(Inject, &[Backspace], "Backspace", "", "delete a character", Action::Backspace),
    b(Inject, &[Enter], "Enter", "inject", "inject the jobs if every field is valid", Action::Confirm),
    b(Inject, &[Esc], "Esc", "cancel", "close without injecting", Action::Close),
    // Estimate prompt.
    b(Estimate, &[], "0-9 .", "type", "the error in percent, 0 ≤ E < 100", Action::Type),
    b(Estimate, &[Backspace], "Backspace", "", "delete a character", Action::Backspace),
    b(Estimate, &[Enter], "Enter", "set", "set it for jobs arriving from now on", Action::Confirm),
    b(Estimate, &[Esc], "Esc", "cancel", "close without a change", Action::Close),
];

/// The action bound to `key` in `mode`, if any. Shift is ignored for
/// characters (it is part of the character); Control is not.
pub fn lookup(mode: Mode, key: &KeyEvent) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) || key.modifiers.contains(KeyModifiers::ALT) {
        return None;
    }
    KEYMAP
        .iter()
        .filter(|b| b.mode == mode)
        .find(|b| b.keys.contains(&key.code))
        .map(|b| b.action)
}

/// The bindings of one mode, in table order.
pub fn bindings(mode: Mode) -> impl Iterator<Item = &'static Binding> {
    KEYMAP.iter().filter(move |b| b.mode == mode)
}

/// The help lines of `mode`: (keys, what they do), a binding with no help
/// of its own joined to the line before it (`+ / -`).
pub fn help_lines(mode: Mode) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    for b in bindings(mode) {
        match out.last_mut() {
            Some((label, _)) if b.help.is_empty() => {
                label.push_str(" / ");
                label.push_str(b.label);
            }
            _ => out.push((b.label.to_string(), b.help)),
        }
    }
    out
}

/// The key bar for `mode`: `Space pause  +/- speed …`. A pair of keys
/// sharing a help line shares its word too (`+/-`, `↑/↓`).
pub fn bar(mode: Mode) -> Vec<(String, &'static str)> {
    let all: Vec<&Binding> = bindings(mode).collect();
    let first = |b: &Binding| b.label.split(' ').next().unwrap_or(b.label).to_string();
    let mut out: Vec<(String, &'static str)> = Vec::new();
    for (i, b) in all.iter().enumerate() {
        if b.bar.is_empty() {
            continue;
        }
        let label = match i.checked_sub(1).map(|j| all[j]) {
            Some(prev) if b.help.is_empty() && prev.bar.is_empty() => {
                format!("{}/{}", first(prev), first(b))
            }
            _ => first(b),
        };
        out.push((label, b.bar));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_is_bound_twice_in_a_mode() {
        for mode in Mode::ALL {
            let mut seen: Vec<KeyCode> = Vec::new();
            for b in bindings(mode) {
                for k in b.keys {
                    assert!(!seen.contains(k), "{k:?} twice in {mode:?}");
                    seen.push(*k);
                }
            }
        }
    }

    #[test]
    fn help_joins_pairs_and_leaves_no_binding_out() {
        let lines = help_lines(Mode::Normal);
        assert!(lines.contains(&("+ / -".to_string(), "faster / slower (simulated s per s)")));
        assert!(lines.contains(&("r / R".to_string(), "restart with the same / the next seed")));
        for mode in Mode::ALL {
            let lines = help_lines(mode);
            for b in bindings(mode) {
                assert!(
                    lines
                        .iter()
                        .any(|(l, _)| l.split(" / ").any(|k| k == b.label)),
                    "{:?} {} has no help line",
                    mode,
                    b.label
                );
            }
            // The first binding of a mode has help of its own.
            assert!(!lines[0].1.is_empty(), "{mode:?}");
        }
    }

    #[test]
    fn key_bar_joins_speed_keys() {
        let bar = bar(Mode::Normal);
        assert_eq!(bar[0], ("Space".to_string(), "pause"));
        assert_eq!(bar[1], ("+/-".to_string(), "speed"));
        assert!(bar.iter().any(|(k, w)| k == "q" && *w == "quit"));
        assert!(!bar.iter().any(|(k, _)| k.contains("Tab")), "{bar:?}");
        assert_eq!(super::bar(Mode::Help)[0], ("↑/↓".to_string(), "scroll"));
        assert_eq!(super::bar(Mode::Picker)[0], ("↑/↓".to_string(), "move"));
    }
}
