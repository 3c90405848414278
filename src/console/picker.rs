//! The policy picker: every policy in the catalog, then the parameters
//! the chosen one declares; Enter hands over the policy under the cursor
//! (or, with the cursor on a parameter row, the chosen one) to be applied,
//! and the picker's "Enter applies …" line shows that same policy, both
//! from [`PickerState::applies`]. Nothing here names a policy: a new catalog entry shows up with
//! its own rows.

use super::app::Form;
use super::keymap::Action;
use crate::policy::backfill::BackfillOrder;
use crate::policy::catalog::{self, Param, ParamKind, PolicyEntry};
use crate::policy::placement::PlacementName;
use crate::policy::{Machines, MaxJumps, PolicyName, PolicySpec};
use crate::sched::ParamValue;
use crossterm::event::{KeyCode, KeyEvent};

/// The largest maxJumps (or whole-number parameter) that can be typed.
const MAX_JUMPS_TYPED: u32 = 100_000;

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
    /// parameters of `[policy.params]` it declares.
    pub fn spec(&self) -> PolicySpec {
        let mut s = self.spec.clone();
        let entry = self.entry();
        s.params.retain(|k, _| catalog::param(entry, k).is_some());
        if catalog::param(entry, "machines").is_none() {
            s.machines = Machines::Counted;
        }
        s
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
        match p.kind {
            ParamKind::MaxJumps => self.spec.max_jumps.to_string(),
            ParamKind::Placement => self.spec.placement.as_str().replace('-', " "),
            ParamKind::Order => format!("{} first", self.spec.order.describe()),
            ParamKind::Machines => match self.spec.machines {
                Machines::Counted => "counted".into(),
                Machines::Pinned => "pinned".into(),
            },
            _ => catalog::value(&self.spec, p).to_string(),
        }
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
                if self.row_of("max_jumps").is_some() {
                    self.spec.max_jumps = MaxJumps::Unlimited;
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
        match &p.kind {
            ParamKind::MaxJumps => {
                self.spec.max_jumps = match (self.spec.max_jumps, delta < 0) {
                    (MaxJumps::Limit(m), true) => MaxJumps::Limit(m.saturating_sub(1)),
                    (MaxJumps::Limit(m), false) => MaxJumps::Limit((m + 1).min(MAX_JUMPS_TYPED)),
                    (MaxJumps::Unlimited, _) => MaxJumps::Limit(0),
                };
            }
            ParamKind::Placement => {
                self.spec.placement = cycle(&PlacementName::ALL, self.spec.placement, delta);
            }
            ParamKind::Order => {
                self.spec.order = cycle(&BackfillOrder::ALL, self.spec.order, delta);
            }
            ParamKind::Machines => {
                self.spec.machines = match self.spec.machines {
                    Machines::Counted => Machines::Pinned,
                    Machines::Pinned => Machines::Counted,
                };
            }
            ParamKind::Count { min, max, .. } => {
                let now = catalog::count(&self.spec, p.key).unwrap_or(*min);
                let next = (now + delta).clamp(*min, *max);
                self.spec.params.insert(p.key.into(), ParamValue::Int(next));
            }
            ParamKind::Number { min, max, step, .. } => {
                let now = catalog::number(&self.spec, p.key).unwrap_or(*min);
                // Whole steps from the bottom of the range, so that
                // repeated presses never drift off the grid.
                let k = ((now - min) / step).round() + delta as f64;
                let next = (min + k * step).clamp(*min, *max);
                let next = (next * 1e9).round() / 1e9;
                self.spec
                    .params
                    .insert(p.key.into(), ParamValue::Float(next));
            }
            ParamKind::Choice { values, .. } => {
                let now = catalog::choice(&self.spec, p.key).unwrap_or_default();
                let now = values.iter().position(|v| *v == now).unwrap_or(0);
                let next = values[(now as i64 + delta).rem_euclid(values.len() as i64) as usize];
                self.spec
                    .params
                    .insert(p.key.into(), ParamValue::Text(next.into()));
            }
        }
    }

    /// A digit goes to the whole-number parameter under the cursor, or to
    /// maxJumps when the cursor is elsewhere and the policy has one.
    fn type_digit(&mut self, d: u32) {
        let target = match self.param_at_cursor() {
            Some(p) if matches!(p.kind, ParamKind::Count { .. } | ParamKind::MaxJumps) => p,
            _ => match self.row_of("max_jumps") {
                Some(row) => {
                    self.cursor = row;
                    &self.params()[row - self.names.len()]
                }
                None => return,
            },
        };
        match &target.kind {
            ParamKind::MaxJumps => {
                self.spec.max_jumps = match self.spec.max_jumps {
                    MaxJumps::Limit(m) if self.typed => {
                        MaxJumps::Limit((m * 10 + d).min(MAX_JUMPS_TYPED))
                    }
                    _ => MaxJumps::Limit(d),
                };
            }
            ParamKind::Count { min, max, .. } => {
                let now = catalog::count(&self.spec, target.key).unwrap_or(*min);
                let typed = if self.typed {
                    (now.saturating_mul(10).saturating_add(d as i64)).min(*max)
                } else {
                    (d as i64).clamp(*min, *max)
                };
                self.spec
                    .params
                    .insert(target.key.into(), ParamValue::Int(typed));
            }
            _ => return,
        }
        self.typed = true;
    }

    fn backspace(&mut self) {
        let Some(p) = self.param_at_cursor().or_else(|| {
            self.row_of("max_jumps")
                .map(|r| &self.params()[r - self.names.len()])
        }) else {
            return;
        };
        match &p.kind {
            ParamKind::MaxJumps => {
                if let MaxJumps::Limit(m) = self.spec.max_jumps {
                    self.spec.max_jumps = MaxJumps::Limit(m / 10);
                }
            }
            ParamKind::Count { min, .. } => {
                let now = catalog::count(&self.spec, p.key).unwrap_or(*min);
                self.spec
                    .params
                    .insert(p.key.into(), ParamValue::Int((now / 10).max(*min)));
            }
            _ => {}
        }
    }
}

/// The value `delta` steps from `now` in `all`, round the ends.
fn cycle<T: Copy + PartialEq>(all: &[T], now: T, delta: i64) -> T {
    let i = all.iter().position(|x| *x == now).unwrap_or(0) as i64;
    all[(i + delta).rem_euclid(all.len() as i64) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn press(p: &mut PickerState, a: Option<Action>, c: KeyCode) -> Form<PolicySpec> {
        p.update(a, KeyEvent::new(c, KeyModifiers::NONE))
    }

    #[test]
    fn digits_replace_then_extend_max_jumps() {
        let mut p = PickerState::new(&PolicySpec::fpfs(MaxJumps::Limit(10)));
        press(&mut p, None, KeyCode::Char('2'));
        assert_eq!(p.spec().max_jumps, MaxJumps::Limit(2));
        assert_eq!(Some(p.cursor), p.row_of("max_jumps"));
        press(&mut p, None, KeyCode::Char('5'));
        press(&mut p, Some(Action::Right), KeyCode::Right);
        assert_eq!(p.spec().max_jumps, MaxJumps::Limit(26));
        press(&mut p, Some(Action::Backspace), KeyCode::Backspace);
        assert_eq!(p.spec().max_jumps, MaxJumps::Limit(2));
        for _ in 0..9 {
            press(&mut p, None, KeyCode::Char('9'));
        }
        assert_eq!(p.spec().max_jumps, MaxJumps::Limit(MAX_JUMPS_TYPED));
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
        let first = p.spec().placement;
        for _ in 0..PlacementName::ALL.len() {
            press(&mut p, Some(Action::Left), KeyCode::Left);
        }
        assert_eq!(p.spec().placement, first);
    }

    #[test]
    fn the_rows_are_the_chosen_policys_own_parameters() {
        let mut p = PickerState::new(&PolicySpec::fpfs(MaxJumps::Limit(10)));
        let names = p.names.len();
        assert_eq!(p.rows(), names + 2, "FPFS: maxJumps and placement");
        assert!(p.row_of("order").is_none());
        let easy = p.names.iter().position(|n| *n == PolicyName::Easy).unwrap();
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
