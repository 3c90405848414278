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
    OpenPicker,
    OpenInject,
    CycleEstimate,
    TypeEstimate,
    NextGrouping,
    NextPane,
    PrevPane,
    Up,
    Down,
    PageUp,
    PageDown,
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
    /// Set maxJumps to unlimited (picker).
    Unlimited,
    /// Delete the last character typed.
    Backspace,
    /// Typed text; documents the keys that fall through to a field.
    Type,
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

use KeyCode::{BackTab, Backspace, Char, Down, Enter, Esc, Left, PageDown, PageUp, Right, Tab, Up};
use Mode::{Detail, Estimate, Help, Inject, Normal, Picker};

#[rustfmt::skip]
pub static KEYMAP: &[Binding] = &[
    // The main screen.
    b(Normal, &[Char(' ')], "Space", "pause", "pause or resume the simulation", Action::TogglePause),
    b(Normal, &[Char('+'), Char('=')], "+", "", "faster (simulated seconds per wall second)", Action::Faster),
    b(Normal, &[Char('-'), Char('_')], "-", "speed", "slower", Action::Slower),
    b(Normal, &[Char('.')], ".", "step", "handle one event, then stay paused", Action::StepEvent),
    b(Normal, &[Char('n')], "n", "", "run to the selected job's next start or end, then pause", Action::StepJob),
    b(Normal, &[Char('p')], "p", "policy", "choose a policy and its parameters, applied now", Action::OpenPicker),
    b(Normal, &[Char('i')], "i", "inject", "inject jobs (marked ◆ everywhere)", Action::OpenInject),
    b(Normal, &[Char('e')], "e", "estimates", "estimate error 0 / 10 / 30 % for jobs arriving from now on", Action::CycleEstimate),
    b(Normal, &[Char('E')], "E", "", "type an estimate error in percent", Action::TypeEstimate),
    b(Normal, &[Char('g')], "g", "groups", "group table by size, components or widest component", Action::NextGrouping),
    b(Normal, &[Tab], "Tab", "", "next pane", Action::NextPane),
    b(Normal, &[BackTab], "Shift+Tab", "", "previous pane", Action::PrevPane),
    b(Normal, &[Left, Char('h')], "← h", "", "pane to the left", Action::Left),
    b(Normal, &[Right, Char('l')], "→ l", "", "pane to the right", Action::Right),
    b(Normal, &[Up, Char('k')], "↑ k", "", "select the job above (queue or windows), else the pane above", Action::Up),
    b(Normal, &[Down, Char('j')], "↓ j", "", "select the job below (queue or windows), else the pane below", Action::Down),
    b(Normal, &[PageUp], "PgUp", "", "ten jobs up", Action::PageUp),
    b(Normal, &[PageDown], "PgDn", "", "ten jobs down", Action::PageDown),
    b(Normal, &[Enter], "Enter", "job", "the selected job's detail", Action::Detail),
    b(Normal, &[Char('s')], "s", "save", "save scenario + commands so far as a new scenario", Action::Save),
    b(Normal, &[Char('r')], "r", "", "restart with the same seed", Action::Restart),
    b(Normal, &[Char('R')], "R", "", "restart with the next seed", Action::RestartNewSeed),
    b(Normal, &[Char('?')], "?", "help", "this help", Action::Help),
    b(Normal, &[Char('q')], "q", "quit", "quit", Action::Quit),
    // Help.
    b(Help, &[Esc, Char('?'), Char('q'), Enter], "Esc ? q", "close", "close the help", Action::Close),
    // Job detail.
    b(Detail, &[Esc, Enter, Char('q')], "Esc Enter", "close", "close the detail", Action::Close),
    b(Detail, &[Char('n')], "n", "next", "run to this job's next start or end", Action::StepJob),
    b(Detail, &[Char(' ')], "Space", "pause", "pause or resume", Action::TogglePause),
    // Policy picker.
    b(Picker, &[Up, Char('k')], "↑ k", "", "cursor up", Action::Up),
    b(Picker, &[Down, Char('j'), Tab], "↓ j Tab", "move", "cursor down", Action::Down),
    b(Picker, &[Left, Char('h')], "← h", "", "smaller value / previous placement", Action::Left),
    b(Picker, &[Right, Char('l')], "→ l", "change", "larger value / next placement", Action::Right),
    b(Picker, &[Char(' ')], "Space", "choose", "choose the policy under the cursor", Action::Select),
    b(Picker, &[Char('u')], "u", "", "maxJumps unlimited", Action::Unlimited),
    b(Picker, &[], "0-9", "maxJumps", "type maxJumps", Action::Type),
    b(Picker, &[Backspace], "Backspace", "", "delete a digit of maxJumps", Action::Backspace),
    b(Picker, &[Enter], "Enter", "apply", "apply the chosen policy now", Action::Confirm),
    b(Picker, &[Esc], "Esc", "cancel", "close without a change", Action::Close),
    // Inject form.
    b(Inject, &[Down, Tab], "↓ Tab", "next field", "next field", Action::Down),
    b(Inject, &[Up, BackTab], "↑ Shift+Tab", "", "previous field", Action::Up),
    b(Inject, &[], "0-9 . +", "type", "type (components as 8+8; empty = automatic)", Action::Type),
    b(Inject, &[Backspace], "Backspace", "", "delete a character", Action::Backspace),
    b(Inject, &[Enter], "Enter", "inject", "inject the jobs if every field is valid", Action::Confirm),
    b(Inject, &[Esc], "Esc", "cancel", "close without injecting", Action::Close),
    // Estimate prompt.
    b(Estimate, &[], "0-9 .", "type", "the error in percent, 0 ≤ E < 100 (0 = exact)", Action::Type),
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

/// The key bar for `mode`: `Space pause  +/- speed …`.
pub fn bar(mode: Mode) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    let mut pending_label: Option<&'static str> = None;
    for b in bindings(mode) {
        if b.bar.is_empty() {
            // `+` has no word of its own: it joins `-`'s as `+/-`.
            if b.action == Action::Faster {
                pending_label = Some(b.label);
            }
            continue;
        }
        let label = match pending_label.take() {
            Some(p) => format!("{p}/{}", b.label),
            None => b.label.split(' ').next().unwrap_or(b.label).to_string(),
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
    fn key_bar_joins_speed_keys() {
        let bar = bar(Mode::Normal);
        assert_eq!(bar[0], ("Space".to_string(), "pause"));
        assert_eq!(bar[1], ("+/-".to_string(), "speed"));
        assert!(bar.iter().any(|(k, w)| k == "q" && *w == "quit"));
    }
}
