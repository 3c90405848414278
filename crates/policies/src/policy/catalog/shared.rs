//! The parameters several policies share, typed: how often FPFS may jump
//! the head, where components go, the order backfilling considers queued
//! jobs in, and counted or pinned processors. A spec carries them as the
//! keys of `[policy]` itself; these read them with the declared default
//! when unset and write them.

use crate::sched::{BackfillOrder, Machines, MaxJumps, PlacementName, PolicyName, PolicySpec};

/// The common parameters of a spec, typed, and the specs of the built-in
/// policies that take them.
pub trait SharedParams: Sized {
    /// First come, first served, placing by worst fit.
    fn fcfs() -> Self;
    /// FPFS with this limit on jumps, placing by worst fit.
    fn fpfs(max_jumps: MaxJumps) -> Self;
    /// The policy `name` with every parameter at its default.
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
    /// Backfilling on one cluster: counted or pinned processors.
    fn machines(&self) -> Machines;

    fn with_max_jumps(self, max_jumps: MaxJumps) -> Self;
    fn with_placement(self, placement: PlacementName) -> Self;
    fn with_order(self, order: BackfillOrder) -> Self;
    fn with_machines(self, machines: Machines) -> Self;
}

impl SharedParams for PolicySpec {
    fn fcfs() -> Self {
        Self::named(super::names::FCFS)
    }

    fn fpfs(max_jumps: MaxJumps) -> Self {
        Self::named(super::names::FPFS).with_max_jumps(max_jumps)
    }

    fn named(name: PolicyName) -> Self {
        PolicySpec {
            name,
            ..PolicySpec::default()
        }
    }

    fn scenario_default() -> Self {
        Self::named(super::names::FPFS)
    }

    fn max_jumps(&self) -> MaxJumps {
        self.max_jumps
    }

    fn placement(&self) -> PlacementName {
        self.placement
    }

    fn order(&self) -> BackfillOrder {
        self.order
    }

    fn machines(&self) -> Machines {
        self.machines
    }

    fn with_max_jumps(mut self, max_jumps: MaxJumps) -> Self {
        self.max_jumps = max_jumps;
        self
    }

    fn with_placement(mut self, placement: PlacementName) -> Self {
        self.placement = placement;
        self
    }

    fn with_order(mut self, order: BackfillOrder) -> Self {
        self.order = order;
        self
    }

    fn with_machines(mut self, machines: Machines) -> Self {
        self.machines = machines;
        self
    }
}
