//! Policies by name with their parameters: what scenarios, commands, the
//! console's picker and the command log speak. Data only; each policy's
//! behaviour lives with the policy.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The queue disciplines schedscope knows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyName {
    /// First come, first served: only the head of the queue may start.
    Fcfs,
    /// Fit processors first served: the first job that fits starts; the
    /// head may be jumped at most `max_jumps` times.
    #[default]
    Fpfs,
    /// EASY (aggressive) backfilling: the head holds a reservation; later
    /// jobs may start if they do not delay it.
    Easy,
    /// Conservative backfilling: every queued job holds a reservation; a
    /// job may start early only if it delays none.
    Conservative,
    /// Moldable jobs, first come first served, each at its largest
    /// allowed size.
    Fifo,
    /// FJT sizing; long jobs may start folded (up to 4 processes per
    /// processor) and expand later; no backfilling.
    Fjt4,
    /// FJT4 with aggressive backfilling; an expired backfilled job is
    /// aborted and requeued.
    Fjt4Bfa,
    /// FJT sizing without folding, aggressive backfilling with aborts.
    Fjt1Bfa,
    /// FJT sizing without folding, backfilling with malleability: expired
    /// backfilled jobs are folded, oldest first, until the head fits.
    Fjt1Bfm,
}

impl PolicyName {
    pub const ALL: [PolicyName; 9] = [
        PolicyName::Fcfs,
        PolicyName::Fpfs,
        PolicyName::Easy,
        PolicyName::Conservative,
        PolicyName::Fifo,
        PolicyName::Fjt4,
        PolicyName::Fjt4Bfa,
        PolicyName::Fjt1Bfa,
        PolicyName::Fjt1Bfm,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PolicyName::Fcfs => "fcfs",
            PolicyName::Fpfs => "fpfs",
            PolicyName::Easy => "easy",
            PolicyName::Conservative => "conservative",
            PolicyName::Fifo => "fifo",
            PolicyName::Fjt4 => "fjt4",
            PolicyName::Fjt4Bfa => "fjt4-bfa",
            PolicyName::Fjt1Bfa => "fjt1-bfa",
            PolicyName::Fjt1Bfm => "fjt1-bfm",
        }
    }

    /// The moldable-job policies' names as the paper writes them.
    pub fn paper_label(self) -> Option<&'static str> {
        Some(match self {
            PolicyName::Fifo => "FIFO",
            PolicyName::Fjt4 => "FJT4",
            PolicyName::Fjt4Bfa => "FJT4+BFA",
            PolicyName::Fjt1Bfa => "FJT1+BFA",
            PolicyName::Fjt1Bfm => "FJT1+BFM",
            _ => return None,
        })
    }

    /// Whether the policy reads runtime estimates.
    pub fn uses_estimates(self) -> bool {
        matches!(
            self,
            PolicyName::Easy
                | PolicyName::Conservative
                | PolicyName::Fjt4Bfa
                | PolicyName::Fjt1Bfa
                | PolicyName::Fjt1Bfm
        )
    }
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
    /// The moldable-job policies' readings (FJT's rule, the window rule).
    #[serde(default, skip_serializing_if = "FjtParams::is_default")]
    pub fjt: FjtParams,
}

/// When a backfilled job's window has expired.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WindowRule {
    /// The paper's definition: the head cannot start and every running
    /// job was backfilled.
    #[default]
    AllBackfilled,
    /// The head cannot start and a backfilled job has outlived its
    /// estimate (those are the expired ones).
    Estimate,
}

impl WindowRule {
    pub fn as_str(self) -> &'static str {
        match self {
            WindowRule::AllBackfilled => "all-backfilled",
            WindowRule::Estimate => "estimate",
        }
    }
}

/// The readings of the moldable-job policies (FIFO, FJT4, FJT4+BFA,
/// FJT1+BFA, FJT1+BFM) that the paper leaves open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FjtParams {
    /// FJT: the fewest processes a long job starts with (a long job is not
    /// given a small partition; short jobs take what is free).
    #[serde(default = "default_long_min")]
    pub long_min: u32,
    /// When a backfilled job's window has expired.
    #[serde(default)]
    pub window: WindowRule,
}

fn default_long_min() -> u32 {
    16
}

impl Default for FjtParams {
    fn default() -> Self {
        FjtParams {
            long_min: default_long_min(),
            window: WindowRule::default(),
        }
    }
}

impl FjtParams {
    pub fn is_default(&self) -> bool {
        *self == FjtParams::default()
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

impl PolicySpec {
    pub fn fcfs() -> PolicySpec {
        PolicySpec {
            name: PolicyName::Fcfs,
            ..PolicySpec::default()
        }
    }

    pub fn fpfs(max_jumps: MaxJumps) -> PolicySpec {
        PolicySpec {
            name: PolicyName::Fpfs,
            max_jumps,
            ..PolicySpec::default()
        }
    }

    pub fn with_placement(mut self, p: PlacementName) -> PolicySpec {
        self.placement = p;
        self
    }

    /// A short human label, e.g. `FPFS(maxJumps 10) + worst fit`.
    pub fn label(&self) -> String {
        let place = self.placement.as_str().replace('-', " ");
        match self.name {
            PolicyName::Fcfs => format!("FCFS + {place}"),
            PolicyName::Fpfs => format!("FPFS(maxJumps {}) + {place}", self.max_jumps),
            PolicyName::Easy | PolicyName::Conservative => {
                let name = if self.name == PolicyName::Easy {
                    "EASY backfilling"
                } else {
                    "conservative backfilling"
                };
                // Pinned processors are always the lowest-numbered that
                // fit: placement plays no part.
                let tail = if self.machines == Machines::Pinned {
                    ", pinned processors".to_string()
                } else {
                    format!(" + {place}")
                };
                match self.order {
                    BackfillOrder::Arrival => format!("{name}{tail}"),
                    o => format!("{name} ({} first){tail}", o.describe()),
                }
            }
            PolicyName::Fifo
            | PolicyName::Fjt4
            | PolicyName::Fjt4Bfa
            | PolicyName::Fjt1Bfa
            | PolicyName::Fjt1Bfm => {
                let base = self.name.paper_label().unwrap_or(self.name.as_str());
                if self.fjt.is_default() || self.name == PolicyName::Fifo {
                    base.to_string()
                } else {
                    format!(
                        "{base} (long ≥ {}, window {})",
                        self.fjt.long_min,
                        self.fjt.window.as_str()
                    )
                }
            }
        }
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
