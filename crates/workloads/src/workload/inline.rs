//! Jobs listed in the scenario file, for hand-worked examples and teaching.

use crate::model::JobSpec;

/// Jobs in submit order; equal submit times keep the listed order.
pub fn source(mut jobs: Vec<JobSpec>) -> impl Iterator<Item = JobSpec> + Send {
    jobs.sort_by_key(|j| j.submit);
    jobs.into_iter()
}
