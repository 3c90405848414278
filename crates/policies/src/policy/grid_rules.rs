//! The two-site grid's readings: the rules its paper leaves open, as the
//! `[policy.params]` keys of `grid-1` and `grid-2`. They belong to the
//! grid policy (`policy::grid`) and the grid study, not to the protocol
//! every policy speaks.

use crate::sched::{ParamValue, PolicySpec};
use std::collections::BTreeMap;

/// The two-site grid's rules where the paper leaves more than one reading
/// (`[policy.params]` keys of `grid-1` and `grid-2`); each default is the
/// most literal one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GridRules {
    /// `threshold`: T, in seconds: how long a backfilled local job may delay
    /// a gang (`estimate ≤ elapsed + T`).
    pub threshold: f64,
    pub idle: IdleReading,
    pub elapsed: ElapsedReading,
    pub empty_queues: QueuePick,
    pub wide: WideRule,
}

impl GridRules {
    /// The rules a spec's parameters give (values the catalog has checked;
    /// anything else reads as the default).
    pub fn from_spec(spec: &PolicySpec) -> GridRules {
        let text = |k: &str| match spec.params.get(k) {
            Some(ParamValue::Text(t)) => t.as_str(),
            _ => "",
        };
        GridRules {
            threshold: spec
                .params
                .get("threshold")
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0),
            idle: match text("idle") {
                "unclaimed" => IdleReading::Unclaimed,
                _ => IdleReading::NotExecuting,
            },
            elapsed: match text("elapsed") {
                "estimated" => ElapsedReading::Estimated,
                _ => ElapsedReading::Exact,
            },
            empty_queues: match text("empty_queues") {
                "idle-first" => QueuePick::IdleFirst,
                "random" => QueuePick::Random,
                _ => QueuePick::Lowest,
            },
            wide: match text("wide") {
                "idle" => WideRule::Idle,
                _ => WideRule::Queues,
            },
        }
    }

    /// These rules as `[policy.params]` values.
    pub fn to_params(&self) -> BTreeMap<String, ParamValue> {
        let mut m = BTreeMap::new();
        m.insert("threshold".into(), ParamValue::Float(self.threshold));
        let idle = match self.idle {
            IdleReading::NotExecuting => "not-executing",
            IdleReading::Unclaimed => "unclaimed",
        };
        let elapsed = match self.elapsed {
            ElapsedReading::Exact => "exact",
            ElapsedReading::Estimated => "estimated",
        };
        let pick = match self.empty_queues {
            QueuePick::Lowest => "lowest",
            QueuePick::IdleFirst => "idle-first",
            QueuePick::Random => "random",
        };
        m.insert("idle".into(), ParamValue::Text(idle.into()));
        m.insert("elapsed".into(), ParamValue::Text(elapsed.into()));
        m.insert("empty_queues".into(), ParamValue::Text(pick.into()));
        let wide = match self.wide {
            WideRule::Queues => "queues",
            WideRule::Idle => "idle",
        };
        m.insert("wide".into(), ParamValue::Text(wide.into()));
        m
    }
}

/// What the grid scheduler counts as an idle processor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ElapsedReading {
    /// The exact remaining time of the jobs the gang waits for, which the
    /// paper says is known.
    #[default]
    Exact,
    /// Their estimated remaining time (estimate minus time run, at least 0).
    Estimated,
}

/// Which empty queues a gang takes when a site has more than it needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum QueuePick {
    /// The lowest-numbered processors.
    #[default]
    Lowest,
    /// Those whose processors are idle first, then the lowest-numbered.
    IdleFirst,
    /// Uniformly at random.
    Random,
}

/// How a gang no single site can hold is run (wider than every site, or
/// asking for components on several clusters). The paper never has one
/// (its gangs fit a site); on other platforms such a gang is always split
/// over sites, under both approaches, and pays the split overhead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WideRule {
    /// As a site's gang does in step 1, over sites: it starts at once on
    /// idle processors of several sites if there are enough, else its tasks
    /// take empty queues over several sites (most empty first) and it
    /// starts when all those processors are idle; else it waits in the
    /// grid queue.
    #[default]
    Queues,
    /// It starts only when enough processors are idle over the sites at
    /// once (step 2's rule, whatever the approach); until then it waits in
    /// the grid queue and claims nothing.
    Idle,
}
