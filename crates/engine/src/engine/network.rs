//! The inter-cluster network's effect on running jobs: after every
//! decision point, start, end or link change, each running job's rate is
//! set from the slowdown model ([`crate::sched::slowdown`]) through
//! [`Engine::set_rate`], so a job slows when another starts to share its
//! links and speeds up when it leaves. Platforms without a network never
//! reach this file: their rates are those set at start.

use super::machine::Machine;
use super::*;
use crate::sched::slowdown::{self, Slowdown};

impl Engine {
    /// The links' available bandwidth now, if the platform has a network.
    pub fn link_bandwidth(&self) -> Option<&[f64]> {
        self.machine.link_bandwidth()
    }

    /// What the running jobs ask of each link now (zeros without a network).
    pub fn link_load(&self) -> Vec<f64> {
        let mut load = vec![0.0; self.machine.platform.clusters.len()];
        for k in &self.table.running {
            let j = &self.table.jobs[k.0];
            slowdown::add_demand(&mut load, j.comm.as_ref(), j.size, &j.assignment);
        }
        load
    }

    /// A running job's slowdowns now, on a platform with a network.
    pub fn job_slowdown(&self, key: JobKey) -> Option<Slowdown> {
        let abw = self.link_bandwidth()?;
        let j = self.table.jobs.get(key.0)?;
        let load = self.link_load();
        Some(slowdown::slowdown(
            &self.machine.platform,
            abw,
            &load,
            j.comm.as_ref(),
            j.size,
            &j.assignment,
        ))
    }

    /// The rate a job placed on `assignment` starts at: with a network, the
    /// model's `1/SD` with the links as the running jobs and this one load
    /// them; else the slowest cluster's speed.
    pub(super) fn start_rate(&self, key: JobKey, assignment: &Assignment) -> f64 {
        let Some(abw) = self.link_bandwidth() else {
            return job_rate(&self.machine.platform, assignment);
        };
        let j = &self.table.jobs[key.0];
        let mut load = self.link_load();
        slowdown::add_demand(&mut load, j.comm.as_ref(), j.size, assignment);
        slowdown::slowdown(
            &self.machine.platform,
            abw,
            &load,
            j.comm.as_ref(),
            j.size,
            assignment,
        )
        .rate()
    }

    /// Sets every running job's rate from the links' load now; a job whose
    /// rate does not change keeps its events.
    pub(super) fn refresh_rates(&mut self) {
        self.machine.rates_stale = false;
        let Some(abw) = self
            .machine
            .platform
            .network
            .as_ref()
            .map(|n| n.abw.clone())
        else {
            return;
        };
        let load = self.link_load();
        let changes: Vec<(JobKey, f64)> = self
            .table
            .running
            .iter()
            .filter_map(|&k| {
                let j = &self.table.jobs[k.0];
                let rate = slowdown::slowdown(
                    &self.machine.platform,
                    &abw,
                    &load,
                    j.comm.as_ref(),
                    j.size,
                    &j.assignment,
                )
                .rate();
                let rate = running_rate(rate, self.fold_factor(k.0));
                (rate != j.rate).then_some((k, rate))
            })
            .collect();
        for (k, rate) in changes {
            self.set_rate(k, rate);
        }
    }
}

impl Machine {
    /// Changes link `link`'s available bandwidth (an operator degrading or
    /// restoring it); the running jobs' rates follow at once.
    pub(super) fn set_link_bandwidth(
        &mut self,
        link: &str,
        abw: f64,
    ) -> Result<CommandOutcome, CommandError> {
        let index = self.link_index(link)?;
        if !(abw.is_finite() && abw > 0.0) {
            return Err(CommandError::BadLink(format!(
                "bandwidth must be a number above 0, found {abw}"
            )));
        }
        let net = self
            .platform
            .network
            .as_mut()
            .expect("checked by link_index");
        let before = net.abw[index];
        net.abw[index] = abw;
        self.rates_stale = true;
        Ok(CommandOutcome {
            message: format!(
                "link {} bandwidth {} → {}",
                self.platform.clusters[index].name, before, abw
            ),
        })
    }

    /// A link by its cluster's name or index.
    fn link_index(&self, link: &str) -> Result<usize, CommandError> {
        if self.platform.network.is_none() {
            return Err(CommandError::BadLink(
                "this platform has no inter-cluster network".into(),
            ));
        }
        self.platform
            .clusters
            .iter()
            .position(|c| c.name == link)
            .or_else(|| {
                link.parse::<usize>()
                    .ok()
                    .filter(|&i| i < self.platform.clusters.len())
            })
            .ok_or_else(|| {
                let names: Vec<&str> = self
                    .platform
                    .clusters
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect();
                CommandError::BadLink(format!(
                    "no link \"{link}\": the links are {}",
                    names.join(", ")
                ))
            })
    }
}
