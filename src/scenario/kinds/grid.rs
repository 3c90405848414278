//! `kind = "grid"`: the two-site grid paper's streams: local jobs at each
//! site (a cluster) and gangs at the grid scheduler.

use super::{Validated, Workload, WorkloadKindEntry, need_platform};
use crate::model::Platform;
use crate::scenario::schema::WorkloadSection;
use crate::scenario::values::Shown;
use crate::scenario::{Scenario, ScenarioError};
use crate::workload::JobSource;
use crate::workload::grid::{GridParams, GridWorkload};
use toml::Spanned;

pub(super) const ENTRY: WorkloadKindEntry = WorkloadKindEntry {
    name: "grid",
    summary: "the two-site grid paper's streams: one-task local jobs at each \
              site (cluster), gangs at the grid scheduler",
    keys: &[
        "local_rate",
        "gang_rate",
        "gang_sizes",
        "gang_service",
        "mean_service",
        "split_overhead",
    ],
    needs_platform: true,
    family: Some(&crate::grid_study::GRID_FAMILY),
    validate: |s, w, platform| {
        let mut platform = need_platform(s, platform)?.clone();
        let (params, overhead) = grid_params(s, w, &platform)?;
        platform.split_overhead = overhead;
        let mut v = Validated::of(params);
        v.platform = Some(platform);
        Ok(v)
    },
};

impl Workload for GridParams {
    fn source(&self, seed: u64, count: Option<u64>) -> Result<Box<dyn JobSource>, String> {
        let jobs = GridWorkload::new(self.clone(), seed);
        Ok(match count {
            Some(n) => Box::new(jobs.take(n as usize)),
            None => Box::new(jobs),
        })
    }

    fn has_sites(&self) -> bool {
        true
    }
}

/// The two-site grid's keys (the paper's values by default), each checked
/// where it is; the sites are the platform's clusters. Returns the
/// workload and the split overhead.
fn grid_params(
    s: &Scenario,
    w: &WorkloadSection,
    platform: &Platform,
) -> Result<(GridParams, f64), ScenarioError> {
    let d = GridParams::default();
    let within = |x: &Option<Spanned<f64>>, key: &str, default: f64, least: f64, most: f64| {
        x.as_ref().map_or(Ok(default), |v| {
            let v_ = *v.get_ref();
            if v_.is_finite() && v_ >= least && v_ <= most {
                Ok(v_)
            } else {
                Err(s.error_at(
                    v.span(),
                    format!(
                        "workload.{key} must be from {} to {}, found {}",
                        Shown(least),
                        Shown(most),
                        Shown(v_)
                    ),
                ))
            }
        })
    };
    let sites = platform.clusters.len();
    if sites > u16::MAX as usize {
        return Err(s.invalid("[platform] has too many clusters for grid sites"));
    }
    let params = GridParams {
        sites: sites as u16,
        local_rate: within(&w.local_rate, "local_rate", d.local_rate, 1e-6, 1e6)?,
        gang_rate: within(&w.gang_rate, "gang_rate", d.gang_rate, 1e-6, 1e6)?,
        gang_sizes: w.gang_sizes.as_ref().map_or(d.gang_sizes, |x| *x.get_ref()),
        gang_service: w
            .gang_service
            .as_ref()
            .map_or(d.gang_service, |x| *x.get_ref()),
        mean_service: within(&w.mean_service, "mean_service", d.mean_service, 1e-6, 1e6)?,
    };
    let overhead = within(&w.split_overhead, "split_overhead", 0.1, 0.0, 10.0)?;
    let widest = params.gang_sizes.largest() as u64;
    if widest > platform.total_processors() {
        return Err(s.error_at(
            w.gang_sizes
                .as_ref()
                .map_or_else(|| w.kind.span(), |x| x.span()),
            format!(
                "workload.gang_sizes: \"{}\" makes gangs of up to {widest} tasks, more than the {} processors of {} ({} site(s))",
                params.gang_sizes.as_str(),
                platform.total_processors(),
                platform.shape(),
                sites
            ),
        ));
    }
    Ok((params, overhead))
}
