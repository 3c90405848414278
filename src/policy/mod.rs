//! Scheduling policies: queue disciplines that read a [`SystemView`] and
//! decide which queued jobs start now, and where.
//!
//! The engine validates and applies the decisions; a policy never touches
//! engine state. Policies are chosen by name through a [`PolicySpec`] so that
//! scenarios, the console and the command log all speak the same language.

pub mod backfill;
pub mod conservative;
pub mod easy;
pub mod fjt;
pub mod fpfs;
pub mod pinned;
pub mod placement;
pub mod profile;

use crate::model::Platform;

pub use crate::sched::{
    BackfillOrder, BackfillView, JobKey, JobView, Machines, MaxJumps, PlacementName, Policy,
    PolicyName, PolicySpec, PolicyState, Start, StartKind, SystemView,
};

/// Builds the policy `spec` names for `platform`, or says why it cannot run
/// there: the builder the engine is given.
pub fn build(spec: &PolicySpec, platform: &Platform) -> Result<Box<dyn Policy>, String> {
    spec.build(platform)
}

impl PolicySpec {
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
            PolicyName::Fifo
            | PolicyName::Fjt4
            | PolicyName::Fjt4Bfa
            | PolicyName::Fjt1Bfa
            | PolicyName::Fjt1Bfm => fjt::Fjt::build(self.clone(), platform)?,
        })
    }
}
