//! Policies by name with their parameters: what scenarios, commands, the
//! console's picker and the command log speak. Data only; each policy's
//! behaviour lives with the policy.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A policy's name, as scenarios, commands and the command log spell it
/// (`fcfs`, `easy`, …). Which names exist, what each takes and how each is
/// built is the policy catalog's business (`policy::catalog`): a name read
/// from a file is only checked against it when the policy is built, so
/// this module stays data only.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PolicyName(&'static str);

impl PolicyName {
    /// A name known when the program is built (a catalog entry's).
    pub const fn new(name: &'static str) -> PolicyName {
        PolicyName(name)
    }

    /// The name `text` spells. Names are few (one per policy, plus any
    /// misspelling a file carries before it is refused), so each distinct
    /// one is kept for the life of the process.
    pub fn intern(text: &str) -> PolicyName {
        use std::sync::{Mutex, OnceLock};
        static NAMES: OnceLock<Mutex<Vec<&'static str>>> = OnceLock::new();
        let mut names = NAMES
            .get_or_init(|| Mutex::new(Vec::new()))
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(n) = names.iter().find(|n| **n == text) {
            return PolicyName(n);
        }
        // A bound on what a stream of misspelt files can keep: past it, an
        // unknown name reads as one that no policy has.
        if names.len() >= 1024 {
            return PolicyName("(unknown)");
        }
        let leaked: &'static str = Box::leak(text.to_owned().into_boxed_str());
        names.push(leaked);
        PolicyName(leaked)
    }

    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl Default for PolicyName {
    fn default() -> Self {
        PolicyName("fpfs")
    }
}

impl fmt::Debug for PolicyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for PolicyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for PolicyName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for PolicyName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Ok(PolicyName::intern(&text))
    }
}

/// Whether `name` is spelt as names of a catalog are (policies, workload
/// kinds): lowercase letters and digits in words joined by `-`.
pub fn is_catalog_name(name: &str) -> bool {
    name.split('-').all(|w| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    })
}

/// How many times the head of the queue may be jumped: a count, or no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaxJumps {
    Limit(u32),
    Unlimited,
}

impl Default for MaxJumps {
    fn default() -> Self {
        MaxJumps::Limit(10)
    }
}

impl MaxJumps {
    pub fn allows(self, jumps: u32) -> bool {
        match self {
            MaxJumps::Limit(m) => jumps < m,
            MaxJumps::Unlimited => true,
        }
    }
}

impl fmt::Display for MaxJumps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MaxJumps::Limit(m) => write!(f, "{m}"),
            MaxJumps::Unlimited => write!(f, "∞"),
        }
    }
}

impl Serialize for MaxJumps {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MaxJumps::Limit(m) => s.serialize_u32(*m),
            MaxJumps::Unlimited => s.serialize_str("unlimited"),
        }
    }
}

impl<'de> Deserialize<'de> for MaxJumps {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = MaxJumps;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a whole number ≥ 0 or \"unlimited\"")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<MaxJumps, E> {
                u32::try_from(v).map(MaxJumps::Limit).map_err(|_| {
                    E::custom(format!(
                        "max_jumps must be a whole number ≥ 0 or \"unlimited\", found {v}"
                    ))
                })
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<MaxJumps, E> {
                self.visit_i64(i64::try_from(v).unwrap_or(-1))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<MaxJumps, E> {
                match v {
                    "unlimited" | "inf" | "∞" => Ok(MaxJumps::Unlimited),
                    _ => v.parse::<u32>().map(MaxJumps::Limit).map_err(|_| {
                        E::custom(format!(
                            "max_jumps must be a whole number ≥ 0 or \"unlimited\", found \"{v}\""
                        ))
                    }),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A policy by name with its parameters: what scenarios, commands and the
/// console's picker use.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicySpec {
    pub name: PolicyName,
    /// FPFS: how often the head may be jumped (ignored by other policies).
    #[serde(default)]
    pub max_jumps: MaxJumps,
    #[serde(default)]
    pub placement: PlacementName,
    /// Backfilling: the order in which queued jobs are considered.
    #[serde(default)]
    pub order: BackfillOrder,
    /// Backfilling on one cluster: whether processors are interchangeable
    /// (counted) or reservations hold particular numbered processors
    /// (pinned), as in machine-level simulators such as Batsim.
    #[serde(default, skip_serializing_if = "Machines::is_counted")]
    pub machines: Machines,
    /// The policy's own parameters beyond the common ones above, by the
    /// keys its catalog entry declares (`[policy.params]` in a scenario).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, ParamValue>,
}

/// The value of a policy's own parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl ParamValue {
    /// The value as a number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParamValue::Int(i) => Some(*i as f64),
            ParamValue::Float(x) => Some(*x),
            _ => None,
        }
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Text(t) => f.write_str(t),
        }
    }
}

/// How backfilling policies treat a cluster's processors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Machines {
    /// Interchangeable: a reservation holds a number of processors.
    #[default]
    Counted,
    /// A reservation holds the lowest-numbered processors free at its
    /// time; a job started ahead avoids them if it would still run then.
    Pinned,
}

impl Machines {
    pub fn is_counted(&self) -> bool {
        *self == Machines::Counted
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlacementName {
    /// The paper's WFit: widest component to the freest cluster.
    #[default]
    WorstFit,
    /// Widest component to the cluster it fills most tightly.
    BestFit,
    /// Each component to the lowest-numbered cluster it fits in.
    FirstFit,
}

impl PlacementName {
    pub const ALL: [PlacementName; 3] = [
        PlacementName::WorstFit,
        PlacementName::BestFit,
        PlacementName::FirstFit,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PlacementName::WorstFit => "worst-fit",
            PlacementName::BestFit => "best-fit",
            PlacementName::FirstFit => "first-fit",
        }
    }
}

/// The order in which queued jobs are considered for backfilling (and, under
/// conservative backfilling, given their reservations).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackfillOrder {
    /// Arrival order.
    #[default]
    Arrival,
    /// Shortest estimate first (ties: arrival order).
    ShortestEstimate,
    /// Fewest processors first (ties: arrival order).
    Smallest,
}

impl BackfillOrder {
    pub const ALL: [BackfillOrder; 3] = [
        BackfillOrder::Arrival,
        BackfillOrder::ShortestEstimate,
        BackfillOrder::Smallest,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BackfillOrder::Arrival => "arrival",
            BackfillOrder::ShortestEstimate => "shortest-estimate",
            BackfillOrder::Smallest => "smallest",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            BackfillOrder::Arrival => "arrival",
            BackfillOrder::ShortestEstimate => "shortest estimate",
            BackfillOrder::Smallest => "smallest",
        }
    }
}
