//! `kind = "ngubiri"`: the group-wise co-allocation paper's generator
//! (D(q) sizes, exponential times, jobs split into components).

use super::{Validated, Workload, WorkloadKindEntry, join, need_platform};
use crate::model::{Platform, split_even};
use crate::scenario::schema::WorkloadSection;
use crate::scenario::values::{MAX_SECONDS, Shown};
use crate::scenario::{Scenario, ScenarioError};
use crate::workload::JobSource;
use crate::workload::ngubiri::{
    NgubiriParams, NgubiriWorkload, SplitApproach, phased_bounds, split_count, split_counts,
};
use crate::workload::rng::{Purpose, stream};

pub(super) const ENTRY: WorkloadKindEntry = WorkloadKindEntry {
    name: "ngubiri",
    summary: "the group-wise co-allocation paper's generator: D(q) sizes, \
              exponential inter-arrival and run times, large jobs split into components",
    keys: &[
        "q",
        "min_size",
        "max_size",
        "mean_interarrival",
        "mean_runtime",
        "split",
    ],
    needs_platform: true,
    family: None,
    validate,
};

impl Workload for NgubiriParams {
    fn source(&self, seed: u64, count: Option<u64>) -> Result<Box<dyn JobSource>, String> {
        Ok(Box::new(NgubiriWorkload::new(self.clone(), seed, count)))
    }

    fn splitter(&self, seed: u64) -> Option<crate::engine::Splitter> {
        let p = self.clone();
        let bounds = phased_bounds(&p);
        let mut rng = stream(seed ^ 0x5EED_1A7E, Purpose::Split);
        Some(Box::new(move |size: u32| {
            split_even(size, split_count(&p, &bounds, size, &mut rng))
        }))
    }

    fn splits(&self, size: u32) -> Option<Vec<Vec<u32>>> {
        let bounds = phased_bounds(self);
        Some(
            split_counts(self, &bounds, size)
                .map(|n| split_even(size, n.min(size)))
                .collect(),
        )
    }
}

fn validate(
    s: &Scenario,
    w: &WorkloadSection,
    platform: Option<&Platform>,
) -> Result<Validated, ScenarioError> {
    let split = w
        .split
        .as_ref()
        .map(|x| x.get_ref().clone())
        .unwrap_or_default();
    let d = NgubiriParams::default();
    let params = NgubiriParams {
        q: w.q.as_ref().map_or(d.q, |x| x.get_ref().0),
        min_size: w.min_size.as_ref().map_or(d.min_size, |x| x.get_ref().0),
        max_size: w.max_size.as_ref().map_or(d.max_size, |x| x.get_ref().0),
        mean_interarrival: w
            .mean_interarrival
            .as_ref()
            .map_or(d.mean_interarrival, |x| x.get_ref().0),
        mean_runtime: w
            .mean_runtime
            .as_ref()
            .map_or(d.mean_runtime, |x| x.get_ref().0),
        threshold: split.threshold,
        max_components: split.max_components.0,
        approach: split.approach,
    };
    let size_span = w
        .max_size
        .as_ref()
        .map(|x| x.span())
        .or_else(|| w.split.as_ref().map(|x| x.span()))
        .unwrap_or_else(|| w.kind.span());
    let platform = need_platform(s, platform)?;
    if params.max_size as u64 > platform.total_processors() {
        return Err(s.error_at(
            size_span,
            format!(
                "max_size ({}) must be at most the platform's {} processors: a larger job can never run",
                params.max_size,
                platform.total_processors()
            ),
        ));
    }
    if params.min_size > params.max_size {
        return Err(s.error_at(
            size_span,
            format!(
                "max_size ({}) must be at least min_size ({})",
                params.max_size, params.min_size
            ),
        ));
    }
    check_generated_times(s, w, &params)?;
    check_generated_sizes(s, &params, platform, size_span)?;
    Ok(Validated::of(params))
}

/// The generator's times must stay within what the simulation can hold:
/// the last arrival (about `jobs` mean inter-arrival times) and any run
/// time (an exponential sample past 100 times its mean has a chance of
/// e⁻¹⁰⁰), each with room for the other.
fn check_generated_times(
    s: &Scenario,
    w: &WorkloadSection,
    p: &NgubiriParams,
) -> Result<(), ScenarioError> {
    let half = MAX_SECONDS / 2.0;
    let arrivals = s.file.run.jobs.0 as f64 + 100.0;
    for (key, value, times, span) in [
        (
            "mean_interarrival",
            p.mean_interarrival,
            arrivals,
            w.mean_interarrival.as_ref().map(|x| x.span()),
        ),
        (
            "mean_runtime",
            p.mean_runtime,
            100.0,
            w.mean_runtime.as_ref().map(|x| x.span()),
        ),
    ] {
        if value * times > half {
            let why = if key == "mean_runtime" {
                "run times"
            } else {
                "arrivals of [run] jobs"
            };
            return Err(s.error_at(
                span.unwrap_or_else(|| w.kind.span()),
                format!(
                    "`{key}` = {} s would take {why} past the latest time the simulation can hold (9.2e12 s, about 292,000 years); here it can be at most {:.3e} s",
                    Shown(value),
                    half / times
                ),
            ));
        }
    }
    Ok(())
}

/// Every size the generator can make, split every way it can be split, must
/// fit the platform.
fn check_generated_sizes(
    s: &Scenario,
    p: &NgubiriParams,
    platform: &Platform,
    span: std::ops::Range<usize>,
) -> Result<(), ScenarioError> {
    let bounds = phased_bounds(p);
    for size in p.min_size..=p.max_size {
        let counts: Vec<u32> = if size <= p.threshold || p.max_components < 2 {
            vec![1]
        } else {
            match p.approach {
                SplitApproach::Random => (2..=p.max_components).map(|n| n.min(size)).collect(),
                SplitApproach::Phased => {
                    vec![2 + bounds.iter().filter(|&&b| size > b).count() as u32]
                }
            }
        };
        for n in counts {
            let widths = split_even(size, n);
            if !platform.can_ever_fit(&widths) {
                return Err(s.error_at(
                    span.clone(),
                    format!(
                        "a generated job of size {size} split as {} can never run on {} (largest cluster {}, {} cluster{}): lower max_size or split.threshold, or raise split.max_components",
                        join(&widths),
                        platform.shape(),
                        platform.largest_cluster(),
                        platform.clusters.len(),
                        if platform.clusters.len() == 1 { "" } else { "s" }
                    ),
                ));
            }
        }
    }
    Ok(())
}
