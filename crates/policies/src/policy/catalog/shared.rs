//! The parameters several policies share, typed: how often FPFS may jump
//! the head, where components go, the order in which backfilling considers
//! queued jobs, and counted or pinned processors. A spec carries them as
//! the keys of `[policy]` itself (`PolicySpec::shared`); here they are
//! read with the declared default when unset and written, a scenario's
//! `[policy]` is read, and a spec is put in the form every output writes.

use super::common::{MACHINES, MAX_JUMPS, ORDER, PLACEMENT};
use super::{Param, UNLIMITED, names, params};
use crate::sched::{ParamValue, PolicyName, PolicySpec};
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The parameters written in `[policy]` itself, in the order a spec
/// holds and writes them.
pub const SHARED: [&Param; 4] = [&MAX_JUMPS, &PLACEMENT, &ORDER, &MACHINES];

/// The keys of `[policy]`: the name, the shared parameters, and the
/// table of the policy's own.
const FIELDS: &[&str] = &[
    "name",
    "max_jumps",
    "placement",
    "order",
    "machines",
    "params",
];

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

    /// The limit as a spec holds it: the count, or `"unlimited"`.
    pub fn value(self) -> ParamValue {
        match self {
            MaxJumps::Limit(m) => ParamValue::Int(m.into()),
            MaxJumps::Unlimited => ParamValue::Text(UNLIMITED.to_string()),
        }
    }

    /// The limit `v` spells, if it spells one.
    pub fn of(v: &ParamValue) -> Option<MaxJumps> {
        match v {
            ParamValue::Int(i) => u32::try_from(*i).ok().map(MaxJumps::Limit),
            ParamValue::Text(t) => match t.as_str() {
                UNLIMITED | "inf" | "∞" => Some(MaxJumps::Unlimited),
                _ => t.parse::<u32>().ok().map(MaxJumps::Limit),
            },
            _ => None,
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
            MaxJumps::Unlimited => s.serialize_str(UNLIMITED),
        }
    }
}

impl<'de> Deserialize<'de> for MaxJumps {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = MaxJumps;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a whole number ≥ 0 or \"unlimited\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<MaxJumps, E> {
                u32::try_from(v).map(MaxJumps::Limit).map_err(|_| {
                    E::custom(format!(
                        "max_jumps must be a whole number ≥ 0 or \"unlimited\", found {v}"
                    ))
                })
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<MaxJumps, E> {
                self.visit_i64(i64::try_from(v).unwrap_or(-1))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MaxJumps, E> {
                MaxJumps::of(&ParamValue::Text(v.to_string())).ok_or_else(|| {
                    E::custom(format!(
                        "max_jumps must be a whole number ≥ 0 or \"unlimited\", found \"{v}\""
                    ))
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// Where a job's components go.
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

    /// The rule `word` names, if it names one.
    pub fn of(word: &str) -> Option<PlacementName> {
        Self::ALL.into_iter().find(|p| p.as_str() == word)
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

    /// The order `word` names, if it names one.
    pub fn of(word: &str) -> Option<BackfillOrder> {
        Self::ALL.into_iter().find(|o| o.as_str() == word)
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

    pub fn as_str(self) -> &'static str {
        match self {
            Machines::Counted => "counted",
            Machines::Pinned => "pinned",
        }
    }

    /// The way `word` names, if it names one.
    pub fn of(word: &str) -> Option<Machines> {
        [Machines::Counted, Machines::Pinned]
            .into_iter()
            .find(|m| m.as_str() == word)
    }
}

/// Whether `v` is a value the shared key `key` takes.
pub(super) fn takes(key: &str, v: &ParamValue) -> bool {
    let word = |of: fn(&str) -> bool| matches!(v, ParamValue::Text(t) if of(t));
    match key {
        "max_jumps" => MaxJumps::of(v).is_some(),
        "placement" => word(|t| PlacementName::of(t).is_some()),
        "order" => word(|t| BackfillOrder::of(t).is_some()),
        "machines" => word(|t| Machines::of(t).is_some()),
        _ => false,
    }
}

/// `spec` in the form every output writes: `max_jumps`, `placement` and
/// `order` always (their declared defaults when unset), `machines` only
/// when not the default (counted), then any other key as held (for the
/// check to refuse); a limit spelt as the catalog spells it.
pub fn normalize(mut spec: PolicySpec) -> PolicySpec {
    let mut shared = Vec::with_capacity(SHARED.len());
    for p in SHARED {
        let default = params::default_value(p);
        let value = match spec.remove_shared(p.key) {
            Some(v) if p.key == MAX_JUMPS.key => MaxJumps::of(&v).map_or(v, MaxJumps::value),
            Some(v) => v,
            None if p.key == MACHINES.key => continue,
            None => default.clone(),
        };
        if p.key == MACHINES.key && value == default {
            continue;
        }
        shared.push((p.key.to_string(), value));
    }
    shared.append(&mut spec.shared);
    spec.shared = shared;
    spec
}

/// The shared parameters of a spec, typed, and the specs of the built-in
/// policies that take them.
pub trait SharedParams: Sized {
    /// First come, first served, placing by worst fit.
    fn fcfs() -> Self;
    /// FPFS with this limit on jumps, placing by worst fit.
    fn fpfs(max_jumps: MaxJumps) -> Self;
    /// The policy `name` with every shared parameter at its default.
    fn named(name: PolicyName) -> Self;
    /// The policy a scenario without `[policy]` runs: FPFS with its
    /// defaults.
    fn scenario_default() -> Self;

    /// FPFS: how often the head may be jumped (ignored by other policies).
    fn max_jumps(&self) -> MaxJumps;
    /// Where a job's components go.
    fn placement(&self) -> PlacementName;
    /// Backfilling: the order in which queued jobs are considered.
    fn order(&self) -> BackfillOrder;
    /// Backfilling on one cluster: whether processors are interchangeable
    /// (counted) or reservations hold particular numbered processors
    /// (pinned), as in machine-level simulators such as Batsim.
    fn machines(&self) -> Machines;

    fn with_max_jumps(self, max_jumps: MaxJumps) -> Self;
    fn with_placement(self, placement: PlacementName) -> Self;
    fn with_order(self, order: BackfillOrder) -> Self;
    fn with_machines(self, machines: Machines) -> Self;
}

impl SharedParams for PolicySpec {
    fn fcfs() -> Self {
        Self::named(names::FCFS)
    }

    fn fpfs(max_jumps: MaxJumps) -> Self {
        Self::named(names::FPFS).with_max_jumps(max_jumps)
    }

    fn named(name: PolicyName) -> Self {
        normalize(PolicySpec::new(name))
    }

    fn scenario_default() -> Self {
        Self::named(names::FPFS)
    }

    fn max_jumps(&self) -> MaxJumps {
        self.shared(MAX_JUMPS.key)
            .and_then(MaxJumps::of)
            .unwrap_or_default()
    }

    fn placement(&self) -> PlacementName {
        word(self, &PLACEMENT)
            .and_then(PlacementName::of)
            .unwrap_or_default()
    }

    fn order(&self) -> BackfillOrder {
        word(self, &ORDER)
            .and_then(BackfillOrder::of)
            .unwrap_or_default()
    }

    fn machines(&self) -> Machines {
        word(self, &MACHINES)
            .and_then(Machines::of)
            .unwrap_or_default()
    }

    fn with_max_jumps(self, max_jumps: MaxJumps) -> Self {
        with(self, &MAX_JUMPS, max_jumps.value())
    }

    fn with_placement(self, placement: PlacementName) -> Self {
        with(
            self,
            &PLACEMENT,
            ParamValue::Text(placement.as_str().into()),
        )
    }

    fn with_order(self, order: BackfillOrder) -> Self {
        with(self, &ORDER, ParamValue::Text(order.as_str().into()))
    }

    fn with_machines(self, machines: Machines) -> Self {
        with(self, &MACHINES, ParamValue::Text(machines.as_str().into()))
    }
}

/// The word the spec holds for `p`, if it holds one.
fn word<'a>(spec: &'a PolicySpec, p: &Param) -> Option<&'a str> {
    match spec.shared(p.key)? {
        ParamValue::Text(t) => Some(t),
        _ => None,
    }
}

fn with(mut spec: PolicySpec, p: &Param, v: ParamValue) -> PolicySpec {
    spec.set_shared(p.key, v);
    normalize(spec)
}

/// Reads `[policy]` as a scenario or a timeline's `set-policy` writes it,
/// for `#[serde(deserialize_with)]`: a key not of [`FIELDS`] is refused
/// where it is written, each shared one is read as its type reads it (so
/// a wrong value is told in that key's terms), and the spec comes
/// normalized.
pub fn read<'de, D: Deserializer<'de>>(d: D) -> Result<PolicySpec, D::Error> {
    d.deserialize_struct("PolicySpec", FIELDS, Reader)
}

struct Reader;

impl<'de> Visitor<'de> for Reader {
    type Value = PolicySpec;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct PolicySpec")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PolicySpec, A::Error> {
        let mut name = None;
        let mut spec = PolicySpec::new(names::FPFS);
        let mut params = None;
        while let Some(key) = map.next_key_seed(Key)? {
            let text = |s: &str| ParamValue::Text(s.to_string());
            let value = match key {
                "name" => {
                    name = Some(map.next_value::<PolicyName>()?);
                    continue;
                }
                "params" => {
                    params = Some(map.next_value::<BTreeMap<String, ParamValue>>()?);
                    continue;
                }
                "max_jumps" => map.next_value::<MaxJumps>()?.value(),
                "placement" => text(map.next_value::<PlacementName>()?.as_str()),
                "order" => text(map.next_value::<BackfillOrder>()?.as_str()),
                _ => text(map.next_value::<Machines>()?.as_str()),
            };
            spec.set_shared(key, value);
        }
        spec.name = name.ok_or_else(|| de::Error::missing_field("name"))?;
        spec.params = params.unwrap_or_default();
        Ok(normalize(spec))
    }
}

/// A key of `[policy]`, refused where it is written when unknown.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = &'static str;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<&'static str, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl Visitor<'_> for Key {
    type Value = &'static str;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<&'static str, E> {
        FIELDS
            .iter()
            .find(|f| **f == v)
            .copied()
            .ok_or_else(|| E::unknown_field(v, FIELDS))
    }
}
