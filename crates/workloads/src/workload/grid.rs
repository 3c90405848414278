//! The two-site grid's workload (Dimitriadou and Karatza): a Poisson
//! stream of local jobs at each site (one task, bound to its site) and one
//! of gangs at the grid scheduler (2–13 tasks uniformly, or 2/4/8/16 as in
//! the earlier power-of-two study; both of mean 7.5). Service times are
//! exponential with mean 1/μ.
//!
//! Each stream has its own random streams (arrivals, sizes, service
//! times), so that changing λ of the locals does not move the gangs.

use super::rng::stream_number;
use crate::model::{ClusterIdx, JobSpec, SimTime};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};
use serde::{Deserialize, Serialize};

/// How many tasks a gang has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GangSizes {
    /// 2..=13, each with probability 1/12 (mean 7.5).
    #[default]
    Uniform,
    /// 2, 4, 8 or 16, each with probability 1/4 (mean 7.5).
    #[serde(alias = "pow2")]
    PowerOfTwo,
}

impl GangSizes {
    pub fn as_str(self) -> &'static str {
        match self {
            GangSizes::Uniform => "uniform",
            GangSizes::PowerOfTwo => "power-of-two",
        }
    }

    /// The largest gang this distribution makes.
    pub fn largest(self) -> u32 {
        match self {
            GangSizes::Uniform => 13,
            GangSizes::PowerOfTwo => 16,
        }
    }
}

/// Whether a gang's tasks share one service time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GangService {
    /// One exponential service time for the whole gang: every task runs
    /// that long (the paper speaks of "the gang's service time").
    #[default]
    Shared,
    /// Each task draws its own service time; the gang holds its processors
    /// until its last task ends (the maximum of the draws).
    LongestTask,
}

impl GangService {
    pub fn as_str(self) -> &'static str {
        match self {
            GangService::Shared => "shared",
            GangService::LongestTask => "longest-task",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridParams {
    /// Sites (clusters) with a local stream each.
    pub sites: u16,
    /// λ: local jobs per unit time at each site.
    pub local_rate: f64,
    /// λ3: gangs per unit time at the grid scheduler.
    pub gang_rate: f64,
    pub gang_sizes: GangSizes,
    pub gang_service: GangService,
    /// 1/μ, in seconds.
    pub mean_service: f64,
}

impl Default for GridParams {
    fn default() -> Self {
        GridParams {
            sites: 2,
            local_rate: 12.5,
            gang_rate: 0.5,
            gang_sizes: GangSizes::Uniform,
            gang_service: GangService::Shared,
            mean_service: 1.0,
        }
    }
}

/// One Poisson stream: its next arrival time (seconds) and its generators.
struct Stream {
    next: f64,
    interarrival: Exp<f64>,
    arrivals: ChaCha8Rng,
    sizes: ChaCha8Rng,
    service: ChaCha8Rng,
}

impl Stream {
    fn new(seed: u64, index: u64, rate: f64) -> Stream {
        let base = 16 + 3 * index;
        let mut s = Stream {
            next: 0.0,
            interarrival: Exp::new(rate).expect("validated rate"),
            arrivals: stream_number(seed, base),
            sizes: stream_number(seed, base + 1),
            service: stream_number(seed, base + 2),
        };
        s.next = s.interarrival.sample(&mut s.arrivals);
        s
    }
}

/// The merged streams, in submit order (endless).
pub struct GridWorkload {
    params: GridParams,
    /// One per site, then the gangs'.
    streams: Vec<Stream>,
    service: Exp<f64>,
    next_id: u64,
}

impl GridWorkload {
    pub fn new(params: GridParams, seed: u64) -> GridWorkload {
        let mut streams: Vec<Stream> = (0..params.sites as u64)
            .map(|i| Stream::new(seed, i, params.local_rate))
            .collect();
        streams.push(Stream::new(seed, params.sites as u64, params.gang_rate));
        GridWorkload {
            service: Exp::new(1.0 / params.mean_service).expect("validated mean"),
            params,
            streams,
            next_id: 1,
        }
    }
}

impl Iterator for GridWorkload {
    type Item = JobSpec;

    fn next(&mut self) -> Option<JobSpec> {
        // The earliest stream; ties go to the lower index (sites first).
        let (i, _) = self
            .streams
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.next.total_cmp(&b.1.next))?;
        let gang = i == self.params.sites as usize;
        let s = &mut self.streams[i];
        let submit = SimTime::from_secs_f64(s.next);
        s.next += s.interarrival.sample(&mut s.arrivals);
        let size = if gang {
            match self.params.gang_sizes {
                GangSizes::Uniform => s.sizes.random_range(2..=13u32),
                GangSizes::PowerOfTwo => 2u32 << s.sizes.random_range(0..4u32),
            }
        } else {
            1
        };
        let draws = if gang && self.params.gang_service == GangService::LongestTask {
            size
        } else {
            1
        };
        let tasks: Vec<f64> = (0..draws)
            .map(|_| self.service.sample(&mut s.service))
            .collect();
        let service = tasks.iter().copied().fold(0.0, f64::max);
        // Tasks that end apart leave processors held idle until the last.
        let work = (draws > 1).then(|| tasks.iter().sum::<f64>());
        // At least one tick: a job of no work would end as it starts.
        let runtime = SimTime::from_secs_f64(service).max(SimTime(1));
        let id = self.next_id;
        self.next_id += 1;
        Some(JobSpec {
            work,
            id,
            submit,
            size,
            // A gang's split over sites is the policy's to choose.
            components: if gang { Vec::new() } else { vec![1] },
            runtime,
            estimate: None,
            user: None,
            injected: false,
            home: (!gang).then_some(i as ClusterIdx),
            comm: None,
            graph: None,
            app: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_have_their_rates_sizes_and_means() {
        let p = GridParams {
            local_rate: 10.0,
            ..GridParams::default()
        };
        let jobs: Vec<JobSpec> = GridWorkload::new(p, 7).take(200_000).collect();
        assert!(jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
        let span = jobs.last().unwrap().submit.as_secs_f64();
        let gangs: Vec<&JobSpec> = jobs.iter().filter(|j| j.home.is_none()).collect();
        let site0 = jobs.iter().filter(|j| j.home == Some(0)).count() as f64;
        let site1 = jobs.iter().filter(|j| j.home == Some(1)).count() as f64;
        // 20.5 jobs per second in all: 10 + 10 + 0.5.
        assert!((site0 / span - 10.0).abs() < 0.15, "{}", site0 / span);
        assert!((site1 / span - 10.0).abs() < 0.15, "{}", site1 / span);
        let g = gangs.len() as f64;
        assert!((g / span - 0.5).abs() < 0.02, "{}", g / span);
        let mean_size = gangs.iter().map(|j| j.size as f64).sum::<f64>() / g;
        assert!((mean_size - 7.5).abs() < 0.1, "{mean_size}");
        assert!(gangs.iter().all(|j| (2..=13).contains(&j.size)));
        assert!(gangs.iter().any(|j| j.size == 13) && gangs.iter().any(|j| j.size == 2));
        let mean_rt = jobs.iter().map(|j| j.runtime.as_secs_f64()).sum::<f64>() / jobs.len() as f64;
        assert!((mean_rt - 1.0).abs() < 0.01, "{mean_rt}");
    }

    #[test]
    fn power_of_two_gangs_are_two_four_eight_or_sixteen() {
        let p = GridParams {
            gang_sizes: GangSizes::PowerOfTwo,
            ..GridParams::default()
        };
        let sizes: Vec<u32> = GridWorkload::new(p, 3)
            .take(100_000)
            .filter(|j| j.home.is_none())
            .map(|j| j.size)
            .collect();
        for s in [2, 4, 8, 16] {
            let share = sizes.iter().filter(|&&x| x == s).count() as f64 / sizes.len() as f64;
            assert!((share - 0.25).abs() < 0.03, "{s}: {share}");
        }
        assert!(sizes.iter().all(|s| [2, 4, 8, 16].contains(s)));
    }

    #[test]
    fn the_gangs_do_not_move_when_the_local_rate_changes() {
        let gangs = |rate: f64| -> Vec<(SimTime, u32, SimTime)> {
            let p = GridParams {
                local_rate: rate,
                ..GridParams::default()
            };
            GridWorkload::new(p, 11)
                .take(20_000)
                .filter(|j| j.home.is_none())
                .map(|j| (j.submit, j.size, j.runtime))
                .take(100)
                .collect()
        };
        assert_eq!(gangs(12.5), gangs(8.3));
    }
}
