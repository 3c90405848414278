//! Scheduling policies: queue disciplines that read a [`SystemView`] and
//! decide which queued jobs start now, and where.
//!
//! The engine validates and applies the decisions; a policy never touches
//! engine state. Policies are chosen by name through a [`PolicySpec`] so that
//! scenarios, the console and the command log all speak the same language.

pub mod ar;
pub mod backfill;
pub mod catalog;
pub mod coalloc;
pub mod conservative;
pub mod easy;
pub mod fjt;
pub mod fpfs;
pub mod grid;
pub mod grid_rules;
pub mod grid_view;
pub mod package_mip;
pub mod package_search;
pub mod package_view;
pub mod pinned;
pub mod placement;
pub mod profile;
mod queue_index;

use crate::model::Platform;

pub use crate::sched::{
    BackfillView, JobKey, JobView, Phased, Policy, PolicyName, PolicySpec, PolicyState, Start,
    StartKind, SystemView,
};
pub use catalog::shared::{BackfillOrder, Machines, MaxJumps, PlacementName};

pub use backfill::SortQueue;
pub use catalog::{Catalogued, SharedParams, names};
pub use placement::BuildPlacement;

/// Builds the policy `spec` names for `platform`, or says why it cannot run
/// there.
pub fn build(spec: &PolicySpec, platform: &Platform) -> Result<Box<dyn Policy>, String> {
    spec.build(platform)
}

/// Every policy of the catalog, as the engine is given them.
pub const CATALOG: crate::sched::Policies = crate::sched::Policies {
    build,
    label: catalog::label,
};
