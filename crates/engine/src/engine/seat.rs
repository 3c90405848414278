//! The policy seat: the policy in force, how the engine builds and names
//! policies (on a switch too), and the jobs the policy in force rejected.

use super::{KEPT_REJECTIONS, Rejection};
use crate::model::Platform;
use crate::sched::{Policies, Policy, PolicySpec};

pub(super) struct PolicySeat {
    /// The policies the engine may build, and how they are named.
    policies: Policies,
    /// The policy in force.
    pub(super) policy: Box<dyn Policy>,
    /// The first [`KEPT_REJECTIONS`] jobs rejected.
    rejections: Vec<Rejection>,
}

impl PolicySeat {
    /// The seat with the policy `spec` in force on `platform`.
    pub(super) fn new(
        policies: Policies,
        spec: &PolicySpec,
        platform: &Platform,
    ) -> Result<PolicySeat, String> {
        let policy = (policies.build)(spec, platform)?;
        Ok(PolicySeat {
            policies,
            policy,
            rejections: Vec::new(),
        })
    }

    /// The policy `spec` built for `platform`, or why it cannot run there.
    pub(super) fn build(
        &self,
        spec: &PolicySpec,
        platform: &Platform,
    ) -> Result<Box<dyn Policy>, String> {
        (self.policies.build)(spec, platform)
    }

    /// The label of `spec`, as the engine's policies name it.
    pub(super) fn label_of(&self, spec: &PolicySpec) -> String {
        (self.policies.label)(spec)
    }

    /// The label of the policy in force.
    pub(super) fn label(&self) -> String {
        self.label_of(self.policy.spec())
    }

    /// Keeps the rejection `make` builds from the policy's label, while
    /// fewer than [`KEPT_REJECTIONS`] are kept.
    pub(super) fn reject(&mut self, make: impl FnOnce(String) -> Rejection) {
        if self.rejections.len() < KEPT_REJECTIONS {
            let r = make(self.label());
            self.rejections.push(r);
        }
    }

    pub(super) fn rejections(&self) -> &[Rejection] {
        &self.rejections
    }
}
