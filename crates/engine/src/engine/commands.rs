//! Operator commands: what they are, and how the engine carries them out
//! (switch policy, inject jobs, change how estimates are made).

use super::*;

/// An operator action, applied at a simulated time and recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Command {
    /// Hand the queue to another policy; running jobs keep running.
    SetPolicy { policy: PolicySpec },
    /// Add jobs to the queue now.
    InjectJobs { jobs: Vec<InjectJob> },
    /// Change how runtime estimates are made for jobs that arrive from now
    /// on (and, with `queued_too`, of the jobs still queued).
    SetEstimateError {
        estimates: EstimateModel,
        /// Also re-estimate the jobs waiting in the queue now.
        #[serde(default)]
        queued_too: bool,
    },
    /// Change the available bandwidth of a cluster's link to the central
    /// switch (degrade or restore it); running jobs' rates follow at once.
    SetLinkBandwidth {
        /// The cluster's name (or its index).
        link: String,
        /// The new available bandwidth, above 0, in the platform's unit.
        abw: f64,
    },
}

/// A job an operator adds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InjectJob {
    pub size: u32,
    /// Run time in seconds.
    pub runtime: f64,
    /// Estimate in seconds; the active estimate model decides if absent.
    #[serde(default)]
    pub estimate: Option<f64>,
    /// Component widths; split by the workload's rule when absent.
    #[serde(default)]
    pub components: Option<Vec<u32>>,
    #[serde(default = "one")]
    pub count: u32,
    /// The site (cluster index) a one-task local job belongs to, as the
    /// grid workload gives its local jobs: the grid policies queue it at
    /// that site's processors. Other policies place every job on any
    /// cluster and ignore it, as they do the grid workload's own homes.
    /// Absent: a job of no site (under the grid policies, a gang for the
    /// grid scheduler).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<u32>,
}

impl InjectJob {
    /// Why `site` cannot be this job's home on `platform`, if it cannot.
    pub fn site_error(&self, platform: &Platform) -> Option<String> {
        let site = self.site?;
        let sites = platform.clusters.len();
        if site as usize >= sites {
            return Some(format!(
                "site {site} does not exist: the sites are 0 to {} (one per cluster)",
                sites.saturating_sub(1)
            ));
        }
        if self.size != 1 {
            return Some(format!(
                "a site is for a one-task local job; this one has {} tasks (leave the site out for a gang)",
                self.size
            ));
        }
        None
    }

    /// A job of one processor with these times, for checking them alone.
    pub fn times(runtime: f64, estimate: Option<f64>) -> InjectJob {
        InjectJob {
            size: 1,
            runtime,
            estimate,
            components: None,
            count: 1,
            site: None,
        }
    }

    /// Why this job's run time or estimate is not a time the simulation
    /// can hold, if one is not: the field (`runtime` or `estimate`) and
    /// why. The one rule for injected times, whether the job comes from a
    /// scenario's timeline, the console's form or a saved session: such a
    /// time is refused, never clamped.
    pub fn time_error(&self) -> Option<(&'static str, String)> {
        [("runtime", Some(self.runtime)), ("estimate", self.estimate)]
            .into_iter()
            .find_map(|(what, t)| {
                let t = t?;
                (!(t.is_finite() && (0.0..=SimTime::MAX_SECS).contains(&t))).then(|| {
                    (
                        what,
                        format!(
                            "must be a time in seconds from 0 to 9.2e12 (about 292,000 years), found {}",
                            crate::model::Shown(t)
                        ),
                    )
                })
            })
    }
}

fn one() -> u32 {
    1
}

/// Ids of injected jobs start here, apart from any workload's ids.
pub const INJECTED_ID_BASE: u64 = 1_000_000_000;

#[derive(Debug, Error, PartialEq)]
pub enum CommandError {
    #[error("policy {policy} cannot run here: {reason}")]
    PolicyUnsupported { policy: String, reason: String },
    #[error("injected job: {0}")]
    BadJob(String),
    #[error("link: {0}")]
    BadLink(String),
    #[error(
        "internal error: the engine is stuck at t = {at}: {events} events without time moving on"
    )]
    Stuck { at: SimTime, events: usize },
}

/// Events [`Engine::settle`] handles at one instant before it reports the
/// engine stuck: far more than any real burst (a whole trace's jobs
/// arriving at once is a few hundred thousand).
pub const SETTLE_LIMIT: usize = 20_000_000;

/// How often a decision pass with a refused decision is asked for again at
/// the same instant.
pub const REFUSAL_RETRIES: u32 = 3;

/// How many passes in a row at one instant that abort, reserve and start
/// nothing a policy may ask to follow with another at the same instant
/// ([`crate::sched::Phased::recheck_at`]). A policy's plan may change in a
/// pass that changes nothing in the engine and call for aborts in the
/// next; one that keeps asking while nothing changes would hold the clock
/// at that instant for ever, and is refused.
pub const RECHECK_RETRIES: u32 = 3;

/// The result of a command, for the operator's message line.
#[derive(Clone, Debug, PartialEq)]
pub struct CommandOutcome {
    pub message: String,
}

/// How a new job's components are chosen when a command does not say.
pub type Splitter = Box<dyn FnMut(u32) -> Vec<u32> + Send>;

/// The command log: the scenario's timeline of commands, what each one
/// said when it came due, and the operator's commands applied. It only
/// records; the engine carries the commands out.
#[derive(Default)]
pub(super) struct CommandLog {
    /// Timeline commands, by the index their events carry.
    timeline: Vec<Command>,
    /// Messages of the timeline commands that came due, with when.
    messages: Vec<(SimTime, String)>,
    /// Operator commands applied through [`Engine::apply`], with when.
    applied: Vec<(SimTime, Command)>,
    /// Timeline commands that could not apply, with when and why.
    refused: Vec<(SimTime, String)>,
}

impl CommandLog {
    /// Adds a command to the timeline; returns the index its event carries.
    fn plan(&mut self, command: Command) -> usize {
        self.timeline.push(command);
        self.timeline.len() - 1
    }

    /// The timeline command whose event carries `index`.
    pub(super) fn planned(&self, index: usize) -> Command {
        self.timeline[index].clone()
    }

    /// What a timeline command that came due at `at` did: its message, or
    /// why it changed nothing.
    pub(super) fn came_due(&mut self, at: SimTime, done: Result<CommandOutcome, CommandError>) {
        match done {
            Ok(outcome) => self.messages.push((at, outcome.message)),
            Err(e) => {
                let message = format!("refused: {e}");
                self.refused.push((at, message.clone()));
                self.messages.push((at, message));
            }
        }
    }

    /// An operator command applied at `at`.
    fn applied(&mut self, at: SimTime, command: Command) {
        self.applied.push((at, command));
    }
}

impl Engine {
    /// Queues a command for simulated time `at` (a scenario timeline entry).
    pub fn schedule_command(&mut self, at: SimTime, command: Command) {
        let index = self.commands.plan(command);
        self.events
            .push(at.max(self.now), EventKind::Command { index });
    }

    /// Applies an operator command now and records it in the command log.
    /// Events left at the current instant are handled first, so a saved log
    /// replays exactly.
    pub fn apply(&mut self, command: Command) -> Result<CommandOutcome, CommandError> {
        if !self.settle() {
            return Err(CommandError::Stuck {
                at: self.now,
                events: SETTLE_LIMIT,
            });
        }
        let outcome = self.execute(&command)?;
        self.commands.applied(self.now, command);
        Ok(outcome)
    }

    /// Messages of timeline commands applied so far.
    pub fn timeline_messages(&self) -> &[(SimTime, String)] {
        &self.commands.messages
    }

    /// The operator commands applied so far through [`Engine::apply`], with
    /// the simulated time of each (timeline commands are not in it).
    pub fn command_log(&self) -> &[(SimTime, Command)] {
        &self.commands.applied
    }

    /// Timeline commands that could not apply, with when and why.
    pub fn timeline_refused(&self) -> &[(SimTime, String)] {
        &self.commands.refused
    }

    pub(super) fn execute(&mut self, command: &Command) -> Result<CommandOutcome, CommandError> {
        let outcome = match command {
            Command::SetPolicy { policy } => self.set_policy(policy)?,
            Command::InjectJobs { jobs } => self.inject_jobs(jobs)?,
            Command::SetEstimateError {
                estimates,
                queued_too,
            } => self.set_estimate_error(estimates, *queued_too),
            Command::SetLinkBandwidth { link, abw } => {
                self.machine.set_link_bandwidth(link, *abw)?
            }
        };
        self.pass.dirty = true;
        if self.instant_settled() {
            self.schedule();
            if self.machine.rates_stale {
                self.refresh_rates();
            }
        }
        Ok(outcome)
    }

    /// Switches to `policy`, if it can run every job that waits.
    fn set_policy(&mut self, policy: &PolicySpec) -> Result<CommandOutcome, CommandError> {
        let label = self.label_of(policy);
        let unsupported = |reason| CommandError::PolicyUnsupported {
            policy: label.clone(),
            reason,
        };
        let p = self
            .seat
            .build(policy, &self.machine.platform)
            .map_err(unsupported)?;
        // Every job waiting must be one the new policy can run.
        let mut waiting: Vec<&JobView> = self
            .table
            .jobs
            .iter()
            .map(|(_, j)| j)
            .filter(|j| j.state == JobState::Queued)
            .collect();
        waiting.sort_unstable_by_key(|j| j.arrival);
        if let Some(reason) = waiting
            .iter()
            .find_map(|j| p.admits(j, &self.machine.platform).err())
        {
            return Err(unsupported(format!(
                "it could never run a job that waits: {reason}"
            )));
        }
        self.seat.policy = p;
        Ok(CommandOutcome {
            message: format!("policy is now {label}"),
        })
    }

    /// Injects `jobs`: runs those the policy can run and rejects, with
    /// their reasons, those it never could; a job that is not one at all
    /// refuses the whole command.
    fn inject_jobs(&mut self, jobs: &[InjectJob]) -> Result<CommandOutcome, CommandError> {
        // A refused command numbers no job: the command log holds
        // only the commands applied, and its replay must number
        // the jobs it injects as the live run did.
        let first = self.table.next_injected;
        let mut specs = Vec::new();
        for j in jobs {
            for _ in 0..j.count.max(1) {
                match self.injected_spec(j) {
                    Ok(s) => specs.push(s),
                    Err(e) => {
                        self.table.next_injected = first;
                        return Err(e);
                    }
                }
            }
        }
        let mut ids: Vec<String> = Vec::new();
        let mut rejected: Vec<String> = Vec::new();
        for s in specs {
            let id = s.id;
            match self.enqueue(s) {
                None => ids.push(id.to_string()),
                Some(reason) => rejected.push(reason),
            }
        }
        let mut message = match ids.is_empty() {
            true => String::new(),
            false => format!("injected job {}", ids.join(", ")),
        };
        if !rejected.is_empty() {
            if !message.is_empty() {
                message.push_str("; ");
            }
            message.push_str(&format!(
                "rejected by {}: {}",
                self.policy_label(),
                rejected.join("; ")
            ));
        }
        Ok(CommandOutcome { message })
    }

    /// Sets the estimate model for jobs that arrive from now on, and for
    /// those that wait too when `queued_too`.
    fn set_estimate_error(
        &mut self,
        estimates: &EstimateModel,
        queued_too: bool,
    ) -> CommandOutcome {
        self.estimator.set_model(estimates.clone());
        let scope = if queued_too {
            for k in self.table.queue.iter() {
                let job = &mut self.table.jobs[k.0];
                let h = &self.table.hidden[k.0];
                job.estimate = self.estimator.estimate(&JobSpec {
                    work: None,
                    id: job.id,
                    submit: job.submit,
                    size: job.size,
                    components: Vec::new(),
                    runtime: h.runtime,
                    estimate: h.trace_estimate,
                    user: job.user,
                    injected: job.injected,
                    home: None,
                    app: None,
                    comm: job.comm,
                    graph: None,
                });
            }
            self.table.queue_edits += 1;
            "for queued jobs and jobs that arrive from now on"
        } else {
            "for jobs that arrive from now on"
        };
        CommandOutcome {
            message: format!("estimates are now {estimates} {scope}"),
        }
    }

    pub(super) fn injected_spec(&mut self, j: &InjectJob) -> Result<JobSpec, CommandError> {
        if j.size == 0 {
            return Err(CommandError::BadJob("size must be at least 1".into()));
        }
        if let Some((what, e)) = j.time_error() {
            return Err(CommandError::BadJob(format!("{what} {e}")));
        }
        if let Some(e) = j.site_error(&self.machine.platform) {
            return Err(CommandError::BadJob(e));
        }
        let components = match &j.components {
            Some(c) => {
                if c.iter().sum::<u32>() != j.size || c.contains(&0) {
                    return Err(CommandError::BadJob(format!(
                        "components {c:?} must be ≥ 1 each and add up to the size {}",
                        j.size
                    )));
                }
                c.clone()
            }
            // The workload's split rule, else the policy splits it as it
            // does the workload's jobs without components.
            None => match &mut self.splitter {
                Some(s) => s(j.size),
                None => Vec::new(),
            },
        };
        let id = self.table.next_injected;
        self.table.next_injected += 1;
        Ok(JobSpec {
            work: None,
            id,
            submit: self.now,
            size: j.size,
            components,
            runtime: SimTime::from_secs_f64(j.runtime),
            estimate: j.estimate.map(SimTime::from_secs_f64),
            user: None,
            injected: true,
            home: j.site.map(|s| s as ClusterIdx),
            app: None,
            comm: None,
            graph: None,
        })
    }
}
