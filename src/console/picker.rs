//! The policy picker: every policy the engine knows, with its parameters;
//! Enter hands the chosen policy over to be applied.

use super::app::Form;
use super::keymap::Action;
use crate::policy::backfill::BackfillOrder;
use crate::policy::placement::PlacementName;
use crate::policy::{Machines, MaxJumps, PolicyName, PolicySpec};
use crossterm::event::{KeyCode, KeyEvent};

/// The largest maxJumps that can be typed.
const MAX_JUMPS_TYPED: u32 = 100_000;

#[derive(Clone, Debug, PartialEq)]
pub struct PickerState {
    pub names: Vec<PolicyName>,
    /// The policy that Enter applies.
    pub chosen: usize,
    /// Rows: one per policy, then maxJumps, placement, backfill order and
    /// processors.
    pub cursor: usize,
    pub max_jumps: MaxJumps,
    pub placement: PlacementName,
    /// The scan order of EASY and conservative backfilling.
    pub order: BackfillOrder,
    /// Counted or pinned processors (backfilling on one cluster).
    pub machines: Machines,
    /// A digit has been typed since the picker opened: the next one adds
    /// to maxJumps instead of replacing it.
    typed: bool,
    base: PolicySpec,
}

impl PickerState {
    pub fn new(current: &PolicySpec) -> PickerState {
        let names = PolicyName::ALL.to_vec();
        let chosen = names.iter().position(|n| *n == current.name).unwrap_or(0);
        PickerState {
            names,
            chosen,
            cursor: chosen,
            max_jumps: current.max_jumps,
            placement: current.placement,
            order: current.order,
            machines: current.machines,
            typed: false,
            base: current.clone(),
        }
    }

    pub fn rows(&self) -> usize {
        self.names.len() + 4
    }

    pub fn max_jumps_row(&self) -> usize {
        self.names.len()
    }

    pub fn placement_row(&self) -> usize {
        self.names.len() + 1
    }

    pub fn order_row(&self) -> usize {
        self.names.len() + 2
    }

    pub fn machines_row(&self) -> usize {
        self.names.len() + 3
    }

    /// The policy Enter would apply.
    pub fn spec(&self) -> PolicySpec {
        let mut s = self.base.clone();
        s.name = self.names[self.chosen];
        s.max_jumps = self.max_jumps;
        s.placement = self.placement;
        s.order = self.order;
        s.machines = self.machines;
        s
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
                    self.chosen = self.cursor;
                }
            }
            Some(Action::Unlimited) => self.max_jumps = MaxJumps::Unlimited,
            Some(Action::Backspace) => {
                if let MaxJumps::Limit(m) = self.max_jumps {
                    self.max_jumps = MaxJumps::Limit(m / 10);
                }
            }
            Some(Action::Confirm) => {
                if self.cursor < self.names.len() {
                    self.chosen = self.cursor;
                }
                return Form::Submit(self.spec());
            }
            _ => {
                if let KeyCode::Char(c) = key.code
                    && let Some(d) = c.to_digit(10)
                {
                    self.type_digit(d);
                    self.cursor = self.max_jumps_row();
                }
            }
        }
        Form::Open
    }

    fn adjust(&mut self, delta: i64) {
        if self.cursor == self.max_jumps_row() {
            self.max_jumps = match (self.max_jumps, delta < 0) {
                (MaxJumps::Limit(m), true) => MaxJumps::Limit(m.saturating_sub(1)),
                (MaxJumps::Limit(m), false) => MaxJumps::Limit((m + 1).min(MAX_JUMPS_TYPED)),
                (MaxJumps::Unlimited, _) => MaxJumps::Limit(0),
            };
        } else if self.cursor == self.placement_row() {
            self.placement = cycle(&PlacementName::ALL, self.placement, delta);
        } else if self.cursor == self.order_row() {
            self.order = cycle(&BackfillOrder::ALL, self.order, delta);
        } else if self.cursor == self.machines_row() {
            self.machines = match self.machines {
                Machines::Counted => Machines::Pinned,
                Machines::Pinned => Machines::Counted,
            };
        }
    }

    fn type_digit(&mut self, d: u32) {
        self.max_jumps = match self.max_jumps {
            MaxJumps::Limit(m) if self.typed => MaxJumps::Limit((m * 10 + d).min(MAX_JUMPS_TYPED)),
            _ => MaxJumps::Limit(d),
        };
        self.typed = true;
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
        assert_eq!(p.max_jumps, MaxJumps::Limit(2));
        assert_eq!(p.cursor, p.max_jumps_row());
        press(&mut p, None, KeyCode::Char('5'));
        press(&mut p, Some(Action::Right), KeyCode::Right);
        assert_eq!(p.max_jumps, MaxJumps::Limit(26));
        press(&mut p, Some(Action::Backspace), KeyCode::Backspace);
        assert_eq!(p.max_jumps, MaxJumps::Limit(2));
        for _ in 0..9 {
            press(&mut p, None, KeyCode::Char('9'));
        }
        assert_eq!(p.max_jumps, MaxJumps::Limit(MAX_JUMPS_TYPED));
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
        assert_eq!(spec.name, PolicyName::ALL[0]);
        // Placement cycles round its ends.
        p.cursor = p.placement_row();
        let first = p.placement;
        for _ in 0..PlacementName::ALL.len() {
            press(&mut p, Some(Action::Left), KeyCode::Left);
        }
        assert_eq!(p.placement, first);
    }
}
