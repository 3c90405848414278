//! Scheduling policies: queue disciplines that read a [`SystemView`] and
//! decide which queued jobs start now, and where.
//!
//! The engine validates and applies the decisions; a policy never touches
//! engine state. Policies are chosen by name through a [`PolicySpec`] so that
//! scenarios, the console and the command log all speak the same language.

pub mod backfill;
pub mod conservative;
pub mod easy;
pub mod fpfs;
pub mod pinned;
pub mod placement;
pub mod profile;

use crate::engine::{ActiveJob, JobKey};
use crate::model::{Platform, SimTime};
use placement::{Assignment, PlacementName};
use serde::{Deserialize, Serialize};
use slab::Slab;
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
        }
    }

    /// Whether the policy reads runtime estimates.
    pub fn uses_estimates(self) -> bool {
        matches!(self, PolicyName::Easy | PolicyName::Conservative)
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
    pub order: backfill::BackfillOrder,
    /// Backfilling on one cluster: whether processors are interchangeable
    /// (counted) or reservations hold particular numbered processors
    /// (pinned), as in machine-level simulators such as Batsim.
    #[serde(default, skip_serializing_if = "Machines::is_counted")]
    pub machines: Machines,
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

    /// Builds the policy, or says why it cannot run on `platform`.
    pub fn build(&self, platform: &Platform) -> Result<Box<dyn Policy>, String> {
        let placement = self.placement.build();
        if self.machines == Machines::Pinned {
            if platform.clusters.len() != 1 {
                return Err(format!(
                    "machines = \"pinned\" needs a platform of one cluster; this one has {}",
                    platform.clusters.len()
                ));
            }
            return match self.name {
                PolicyName::Easy => Ok(Box::new(pinned::PinnedEasy::new(self.clone()))),
                PolicyName::Conservative => {
                    Ok(Box::new(pinned::PinnedConservative::new(self.clone())))
                }
                other => Err(format!(
                    "machines = \"pinned\" is for the backfilling policies (easy, conservative), not {}",
                    other.as_str()
                )),
            };
        }
        Ok(match self.name {
            PolicyName::Fcfs => {
                Box::new(fpfs::Fpfs::new(MaxJumps::Limit(0), placement, self.clone()))
            }
            PolicyName::Fpfs => Box::new(fpfs::Fpfs::new(self.max_jumps, placement, self.clone())),
            PolicyName::Easy => Box::new(easy::Easy::new(placement, self.clone())),
            PolicyName::Conservative => {
                Box::new(conservative::Conservative::new(placement, self.clone()))
            }
        })
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
                    backfill::BackfillOrder::Arrival => format!("{name}{tail}"),
                    o => format!("{name} ({} first){tail}", o.describe()),
                }
            }
        }
    }
}

/// How a decision got its job started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum StartKind {
    /// The job was at the head of the queue.
    Head,
    /// The job jumped ahead of the head (FPFS) or was backfilled.
    Ahead,
}

/// Start a queued job now with this placement.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub job: JobKey,
    pub assignment: Assignment,
    pub kind: StartKind,
    /// The processor indices to take, per assignment entry; `None` takes
    /// the lowest-numbered free ones.
    pub processors: Option<Vec<Vec<u32>>>,
}

/// What a policy sees: the queue in arrival order, running jobs, free
/// processors per cluster. Actual run times are not in it.
pub struct SystemView<'a> {
    pub now: SimTime,
    pub platform: &'a Platform,
    pub free: &'a [u32],
    pub queue: &'a [JobKey],
    pub running: &'a [JobKey],
    pub(crate) jobs: &'a Slab<ActiveJob>,
    /// Changes whenever a queued job was changed in place or put back in
    /// the queue (not by arrivals and starts).
    pub queue_edits: u64,
}

impl<'a> SystemView<'a> {
    pub fn job(&self, key: JobKey) -> &'a ActiveJob {
        &self.jobs[key.0]
    }
}

/// What a policy tells the console about its own state.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub enum PolicyState {
    #[default]
    Idle,
    /// FPFS (and FCFS): the head job and how often it has been jumped.
    Fpfs {
        head: u64,
        jumps: u32,
        max_jumps: MaxJumps,
    },
    /// EASY and conservative backfilling: the head job and its reservation
    /// (the shadow time), if it has one.
    Backfill { head: u64, shadow: Option<SimTime> },
}

pub trait Policy: Send {
    fn spec(&self) -> &PolicySpec;

    /// Appends the jobs to start now, in order. The free counts in `view`
    /// do not change while the policy runs; it must account for its own
    /// decisions.
    fn schedule(&mut self, view: &SystemView<'_>, out: &mut Vec<Decision>);

    /// The policy's state for display.
    fn state(&self, view: &SystemView<'_>) -> PolicyState;

    /// What a backfilling policy has planned (reservations, shadow time,
    /// extra processors), for the console; `None` for other policies.
    fn plan(&self, _view: &SystemView<'_>) -> Option<crate::engine::BackfillView> {
        None
    }

    /// A time at which the policy must decide again even if nothing else
    /// happens then (the engine adds a wake-up event).
    fn wake_at(&self) -> Option<SimTime> {
        None
    }
}
