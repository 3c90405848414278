//! Job groups: by size (S), by component count (C) and by widest
//! component (W), with the paper's quartile boundaries as defaults.

use crate::model::JobRecord;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grouping {
    Size = 0,
    Components = 1,
    Widest = 2,
}

impl Grouping {
    pub const ALL: [Grouping; 3] = [Grouping::Size, Grouping::Components, Grouping::Widest];

    pub fn name(self) -> &'static str {
        match self {
            Grouping::Size => "size",
            Grouping::Components => "components",
            Grouping::Widest => "widest",
        }
    }

    pub fn from_name(s: &str) -> Option<Grouping> {
        Grouping::ALL.into_iter().find(|g| g.name() == s)
    }

    fn prefix(self) -> char {
        match self {
            Grouping::Size => 'S',
            Grouping::Components => 'C',
            Grouping::Widest => 'W',
        }
    }

    /// The next grouping, for the console's `g` key.
    pub fn next(self) -> Grouping {
        Grouping::ALL[(self as usize + 1) % 3]
    }
}

/// Upper bounds of every group but the last, per grouping. The default is
/// the paper's: S1 = 1, S2 = 2–3, S3 = 4–7, S4 ≥ 8; C1..C4 by count;
/// W1 = 1, W2 = 2, W3 = 3–4, W4 ≥ 5.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupBounds {
    #[serde(default = "default_size")]
    pub size: Vec<u32>,
    #[serde(default = "default_components")]
    pub components: Vec<u32>,
    #[serde(default = "default_widest")]
    pub widest: Vec<u32>,
}

fn default_size() -> Vec<u32> {
    vec![1, 3, 7]
}
fn default_components() -> Vec<u32> {
    vec![1, 2, 3]
}
fn default_widest() -> Vec<u32> {
    vec![1, 2, 4]
}

impl Default for GroupBounds {
    fn default() -> Self {
        GroupBounds {
            size: default_size(),
            components: default_components(),
            widest: default_widest(),
        }
    }
}

impl GroupBounds {
    pub fn bounds(&self, g: Grouping) -> &[u32] {
        match g {
            Grouping::Size => &self.size,
            Grouping::Components => &self.components,
            Grouping::Widest => &self.widest,
        }
    }

    /// Bounds must be strictly increasing and at least 1.
    pub fn validate(&self) -> Result<(), String> {
        for g in Grouping::ALL {
            let b = self.bounds(g);
            if b.first() == Some(&0) || b.windows(2).any(|w| w[0] >= w[1]) {
                return Err(format!(
                    "metrics.groups.{}: upper bounds must be ≥ 1 and strictly increasing, found {b:?}",
                    g.name()
                ));
            }
        }
        Ok(())
    }

    pub fn count(&self, g: Grouping) -> usize {
        self.bounds(g).len() + 1
    }

    pub fn group_of(&self, g: Grouping, r: &JobRecord) -> usize {
        let v = match g {
            Grouping::Size => r.size,
            Grouping::Components => r.components.len() as u32,
            Grouping::Widest => r.widest(),
        };
        self.bounds(g).partition_point(|&b| b < v)
    }

    pub fn label(&self, g: Grouping, i: usize) -> String {
        format!("{}{}", g.prefix(), i + 1)
    }

    pub fn range_label(&self, g: Grouping, i: usize) -> String {
        let b = self.bounds(g);
        let lo = if i == 0 { 1 } else { b[i - 1] + 1 };
        match b.get(i) {
            Some(&hi) if hi == lo => format!("{lo}"),
            Some(&hi) => format!("{lo}–{hi}"),
            None => format!("≥{lo}"),
        }
    }
}
