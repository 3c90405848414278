//! The policy picker: every policy in the catalog, then the parameters
//! the chosen one declares; Enter hands over the policy under the cursor
//! (or, with the cursor on a parameter row, the chosen one) to be applied,
//! and the picker's "Enter applies …" line shows that same policy, both
//! from [`PickerState::applies`]. Nothing here names a policy: a new catalog entry shows up with
//! its own rows.

use super::app::Form;
use super::keymap::Action;
use crate::policy::catalog::{self, Param, ParamKind, PolicyEntry};
use crate::policy::{PolicyName, PolicySpec};
use crate::sched::ParamValue;
use crossterm::event::{KeyCode, KeyEvent};

#[derive(Clone, Debug, PartialEq)]
pub struct PickerState {
    pub names: Vec<PolicyName>,
    /// The policy whose parameters are shown (Space chooses another).
    pub chosen: usize,
    /// Rows: one per policy, then one per parameter of the chosen policy.
    pub cursor: usize,
    /// The spec being edited: the chosen name with every parameter as set.
    spec: PolicySpec,
    /// A digit has been typed since the picker opened: the next one adds
    /// to the number instead of replacing it.
    typed: bool,
}

impl PickerState {
    pub fn new(current: &PolicySpec) -> PickerState {
        let names: Vec<PolicyName> = catalog::names().collect();
        let chosen = names.iter().position(|n| *n == current.name).unwrap_or(0);
        let mut spec = current.clone();
        spec.name = names[chosen];
        PickerState {
            names,
            chosen,
            cursor: chosen,
            spec,
            typed: false,
        }
    }

    fn entry(&self) -> &'static PolicyEntry {
        catalog::find(self.names[self.chosen]).expect("the picker lists catalog names")
    }

    /// The chosen policy's parameters, one row each after the names.
    pub fn params(&self) -> &'static [Param] {
        self.entry().params
    }

    pub fn rows(&self) -> usize {
        self.names.len() + self.params().len()
    }

    /// The row of the chosen policy's parameter `key`, if it has one.
    pub fn row_of(&self, key: &str) -> Option<usize> {
        self.params()
            .iter()
            .position(|p| p.key == key)
            .map(|i| self.names.len() + i)
    }

    /// The parameter under the cursor, if the cursor is on one.
    fn param_at_cursor(&self) -> Option<&'static Param> {
        self.cursor
            .checked_sub(self.names.len())
            .and_then(|i| self.params().get(i))
    }

    /// The policy Enter would apply: the chosen one, with only the
    /// parameters it declares.
    pub fn spec(&self) -> PolicySpec {
        catalog::declared_only(self.spec.clone())
    }

    /// The policy Enter applies and the screen names: the policy under the
    /// cursor when it is on a name row, else the chosen one, with its
    /// parameters as set.
    pub fn applies(&self) -> PolicySpec {
        if self.cursor < self.names.len() && self.cursor != self.chosen {
            let mut p = self.clone();
            p.choose(self.cursor);
            p.spec()
        } else {
            self.spec()
        }
    }

    /// How parameter `p` reads now, for the picker's row.
    pub fn shown(&self, p: &Param) -> String {
        let v = catalog::value(&self.spec, p);
        match (&p.kind, &v) {
            (ParamKind::Limit { .. }, ParamValue::Text(_)) => "∞".to_string(),
            (ParamKind::Choice { values, shown, .. }, ParamValue::Text(t)) => values
                .iter()
                .position(|w| w == t)
                .and_then(|i| shown.get(i))
                .map_or_else(|| t.clone(), |s| s.to_string()),
            _ => v.to_string(),
        }
    }

    /// Sets parameter `p` to `v` (a value its kind takes).
    fn set(&mut self, p: &Param, v: ParamValue) {
        let set = catalog::set(&mut self.spec, p, v);
        debug_assert!(set.is_ok(), "{set:?}");
    }

    /// The whole number `p` holds now (`None` for no limit).
    fn whole(&self, p: &Param) -> Option<i64> {
        match catalog::value(&self.spec, p) {
            ParamValue::Int(i) => Some(i),
            _ => None,
        }
    }

    /// The parameter digits go to: the one under the cursor when it is a
    /// whole number or a limit, else the policy's first such one (the
    /// cursor moves to it).
    fn digits_target(&mut self) -> Option<&'static Param> {
        if let Some(p) = self.param_at_cursor().filter(|p| is_whole(p)) {
            return Some(p);
        }
        let i = self.first_whole()?;
        self.cursor = self.names.len() + i;
        Some(&self.params()[i])
    }

    /// The index of the policy's first whole-number or limit parameter.
    fn first_whole(&self) -> Option<usize> {
        self.params().iter().position(is_whole)
    }

    fn choose(&mut self, i: usize) {
        self.chosen = i;
        self.spec.name = self.names[i];
    }

    /// One key: moves, changes a parameter, or hands over the policy.
    pub fn update(&mut self, action: Option<Action>, key: KeyEvent) -> Form<PolicySpec> {
        match action {
            Some(Action::Close) => return Form::Cancel,
            Some(Action::Up) => self.cursor = (self.cursor + self.rows() - 1) % self.rows(),
            Some(Action::Down) => self.cursor = (self.cursor + 1) % self.rows(),
            Some(Action::Left) => self.adjust(-1),
            Some(Action::Right) => self.adjust(1),
            Some(Action::Select) => {
                if self.cursor < self.names.len() {
                    self.choose(self.cursor);
                }
            }
            Some(Action::Unlimited) => {
                let limit = self
                    .params()
                    .iter()
                    .find(|p| matches!(p.kind, ParamKind::Limit { .. }));
                if let Some(p) = limit {
                    self.set(p, ParamValue::Text(catalog::UNLIMITED.into()));
                }
            }
            Some(Action::Backspace) => self.backspace(),
            Some(Action::Confirm) => return Form::Submit(self.applies()),
            _ => {
                if let KeyCode::Char(c) = key.code
                    && let Some(d) = c.to_digit(10)
                {
                    self.type_digit(d);
                }
            }
        }
        Form::Open
    }

    fn adjust(&mut self, delta: i64) {
        let Some(p) = self.param_at_cursor() else {
            return;
        };
        let next = match &p.kind {
            ParamKind::Limit { max, .. } => match self.whole(p) {
                Some(m) => ParamValue::Int((m + delta).clamp(0, *max)),
                None => ParamValue::Int(0),
            },
            ParamKind::Count { min, max, .. } => {
                let now = self.whole(p).unwrap_or(*min);
                ParamValue::Int((now + delta).clamp(*min, *max))
            }
            ParamKind::Number { min, max, step, .. } => {
                let now = catalog::value(&self.spec, p).as_f64().unwrap_or(*min);
                // Whole steps from the bottom of the range, so that
                // repeated presses never drift off the grid.
                let k = ((now - min) / step).round() + delta as f64;
                let next = (min + k * step).clamp(*min, *max);
                ParamValue::Float((next * 1e9).round() / 1e9)
            }
            ParamKind::Choice { values, .. } => {
                let now = catalog::value(&self.spec, p).to_string();
                let now = values.iter().position(|v| *v == now).unwrap_or(0);
                let next = values[(now as i64 + delta).rem_euclid(values.len() as i64) as usize];
                ParamValue::Text(next.into())
            }
            // Text is set in the scenario or with --set, not stepped.
            ParamKind::Text { .. } => return,
        };
        self.set(p, next);
    }

    /// A digit goes to the whole-number parameter under the cursor, or to
    /// the policy's first one when the cursor is elsewhere: the first digit
    /// typed replaces the number, the next ones add to it.
    fn type_digit(&mut self, d: u32) {
        let Some(p) = self.digits_target() else {
            return;
        };
        let (min, max) = match p.kind {
            ParamKind::Count { min, max, .. } => (min, max),
            ParamKind::Limit { max, .. } => (0, max),
            _ => return,
        };
        let typed = match self.whole(p) {
            Some(now) if self.typed => now.saturating_mul(10).saturating_add(d as i64).min(max),
            _ => (d as i64).clamp(min, max),
        };
        self.set(p, ParamValue::Int(typed));
        self.typed = true;
    }

    /// Drops the last digit of the whole-number parameter under the
    /// cursor, or of the policy's first one when the cursor is on a name.
    fn backspace(&mut self) {
        let p = match self.param_at_cursor() {
            Some(p) => p,
            None => match self.first_whole() {
                Some(i) => &self.params()[i],
                None => return,
            },
        };
        let min = match p.kind {
            ParamKind::Count { min, .. } => min,
            ParamKind::Limit { .. } => 0,
            _ => return,
        };
        if let Some(now) = self.whole(p) {
            self.set(p, ParamValue::Int((now / 10).max(min)));
        }
    }
}

/// Whether `p` takes a whole number (a count or a limit): digits go to it.
fn is_whole(p: &Param) -> bool {
    matches!(p.kind, ParamKind::Count { .. } | ParamKind::Limit { .. })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::MaxJumps;
    use crate::policy::placement::PlacementName;
    use crate::policy::{SharedParams, names};

    /// The largest maxJumps that can be typed (the parameter's range).
    const MAX_JUMPS_TYPED: u32 = 100_000;
    use crossterm::event::KeyModifiers;

    fn press(p: &mut PickerState, a: Option<Action>, c: KeyCode) -> Form<PolicySpec> {
        p.update(a, KeyEvent::new(c, KeyModifiers::NONE))
    }

    #[test]
    fn digits_replace_then_extend_max_jumps() {
        let mut p = PickerState::new(&PolicySpec::fpfs(MaxJumps::Limit(10)));
        press(&mut p, None, KeyCode::Char('2'));
        assert_eq!(p.spec().max_jumps(), MaxJumps::Limit(2));
        assert_eq!(Some(p.cursor), p.row_of("max_jumps"));
        press(&mut p, None, KeyCode::Char('5'));
        press(&mut p, Some(Action::Right), KeyCode::Right);
        assert_eq!(p.spec().max_jumps(), MaxJumps::Limit(26));
        press(&mut p, Some(Action::Backspace), KeyCode::Backspace);
        assert_eq!(p.spec().max_jumps(), MaxJumps::Limit(2));
        for _ in 0..9 {
            press(&mut p, None, KeyCode::Char('9'));
        }
        assert_eq!(p.spec().max_jumps(), MaxJumps::Limit(MAX_JUMPS_TYPED));
        assert_eq!(
            press(&mut p, Some(Action::Close), KeyCode::Esc),
            Form::Cancel
        );
    }

    #[test]
    fn rows_wrap_and_enter_chooses_the_row_under_the_cursor() {
        let mut p = PickerState::new(&PolicySpec::fpfs(MaxJumps::Limit(10)));
        let from = p.cursor;
        press(&mut p, Some(Action::Up), KeyCode::Up);
        assert_eq!(p.cursor, (from + p.rows() - 1) % p.rows());
        p.cursor = 0;
        let Form::Submit(spec) = press(&mut p, Some(Action::Confirm), KeyCode::Enter) else {
            panic!("Enter applies")
        };
        assert_eq!(spec.name, catalog::POLICIES[0].name);
        // Placement cycles round its ends.
        p.cursor = p.row_of("placement").unwrap();
        let first = p.spec().placement();
        for _ in 0..PlacementName::ALL.len() {
            press(&mut p, Some(Action::Left), KeyCode::Left);
        }
        assert_eq!(p.spec().placement(), first);
    }

    #[test]
    fn the_rows_are_the_chosen_policys_own_parameters() {
        let mut p = PickerState::new(&PolicySpec::fpfs(MaxJumps::Limit(10)));
        let names = p.names.len();
        assert_eq!(p.rows(), names + 2, "FPFS: maxJumps and placement");
        assert!(p.row_of("order").is_none());
        let easy = p.names.iter().position(|n| *n == names::EASY).unwrap();
        p.cursor = easy;
        press(&mut p, Some(Action::Select), KeyCode::Char(' '));
        assert!(p.row_of("max_jumps").is_none());
        assert_eq!(p.row_of("order"), Some(names));
        // A digit on a policy without maxJumps changes nothing.
        let before = p.spec();
        press(&mut p, None, KeyCode::Char('7'));
        assert_eq!(p.spec(), before);
        // Every catalog entry's declared rows follow the names.
        for (i, e) in catalog::POLICIES.iter().enumerate() {
            p.choose(i);
            assert_eq!(p.rows(), names + e.params.len(), "{}", e.name);
        }
    }
}
