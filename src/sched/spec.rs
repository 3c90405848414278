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
    /// The two-site grid, approach 1: a gang runs on one site; per-processor
    /// FIFO queues with local backfilling (rules in [`GridRules`]).
    #[serde(rename = "grid-1")]
    Grid1,
    /// The two-site grid, approach 2: as approach 1, and a gang may be split
    /// over both sites' idle processors (running `split_overhead` longer).
    #[serde(rename = "grid-2")]
    Grid2,
}

impl PolicyName {
    pub const ALL: [PolicyName; 4] = [
        PolicyName::Fcfs,
        PolicyName::Fpfs,
        PolicyName::Easy,
        PolicyName::Conservative,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PolicyName::Fcfs => "fcfs",
            PolicyName::Fpfs => "fpfs",
            PolicyName::Easy => "easy",
            PolicyName::Conservative => "conservative",
            PolicyName::Grid1 => "grid-1",
            PolicyName::Grid2 => "grid-2",
        }
    }

    /// The two-site grid's approaches (for per-processor-queue platforms).
    pub const GRID: [PolicyName; 2] = [PolicyName::Grid1, PolicyName::Grid2];

    /// Whether the policy reads runtime estimates.
    pub fn uses_estimates(self) -> bool {
        matches!(
            self,
            PolicyName::Easy | PolicyName::Conservative | PolicyName::Grid1 | PolicyName::Grid2
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
    /// The two-site grid's open readings (ignored by other policies).
    #[serde(default, skip_serializing_if = "GridRules::is_default")]
    pub grid: GridRules,
}

/// The two-site grid's rules where the paper leaves more than one reading;
/// each default is the most literal one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridRules {
    /// T, in seconds: how long a backfilled local job may delay a gang
    /// (`estimate ≤ elapsed + T`).
    #[serde(default)]
    pub threshold: f64,
    #[serde(default)]
    pub idle: IdleReading,
    #[serde(default)]
    pub elapsed: ElapsedReading,
    #[serde(default)]
    pub empty_queues: QueuePick,
}

impl Default for GridRules {
    fn default() -> Self {
        GridRules {
            threshold: 0.0,
            idle: IdleReading::default(),
            elapsed: ElapsedReading::default(),
            empty_queues: QueuePick::default(),
        }
    }
}

impl GridRules {
    pub fn is_default(&self) -> bool {
        *self == GridRules::default()
    }
}

/// What the grid scheduler counts as an idle processor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IdleReading {
    /// Not executing a job, even if a gang waits at the head of its queue.
    #[default]
    NotExecuting,
    /// Not executing and its queue empty: a processor held by a waiting
    /// gang is not idle.
    Unclaimed,
}

/// What "elapsed time" (until the waiting gang can start) is in the
/// backfilling condition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ElapsedReading {
    /// The exact remaining time of the jobs the gang waits for, which the
    /// paper says is known.
    #[default]
    Exact,
    /// Their estimated remaining time (estimate minus time run, at least 0).
    Estimated,
}

/// Which empty queues a gang takes when a site has more than it needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueuePick {
    /// The lowest-numbered processors.
    #[default]
    Lowest,
    /// Those whose processors are idle first, then the lowest-numbered.
    IdleFirst,
    /// Uniformly at random.
    Random,
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
            PolicyName::Grid1 => "grid approach 1 (one site)".to_string(),
            PolicyName::Grid2 => "grid approach 2 (may split)".to_string(),
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
