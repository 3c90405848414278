//! Where the engine meets the policies: the engine knows policies only
//! through the protocol in [`crate::sched`], and this is the one place
//! that hands it the policies schedscope has.

use crate::engine::{Engine, EngineConfig};
use crate::model::Platform;
use crate::sched::PolicySpec;
use crate::workload::JobSource;

/// An engine on `platform` running the jobs of `source` under `policy`
/// (any of [`crate::policy`]'s), or why that policy cannot run there.
pub fn engine(
    platform: Platform,
    source: Box<dyn JobSource>,
    policy: &PolicySpec,
    config: EngineConfig,
) -> Result<Engine, String> {
    Engine::with_builder(platform, source, policy, config, crate::policy::CATALOG)
}
