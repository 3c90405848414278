//! The `external` policy: schedscope plays Batsim's side of the protocol
//! and the scheduler at the other end of the link decides.
//!
//! At each decision point the events since the last one (the simulation's
//! beginning, jobs submitted, jobs completed or killed, calls asked for
//! that are due) go to the scheduler in one message; its reply's
//! decisions are carried out at this instant. A decision point with
//! nothing to tell sends nothing, as Batsim does.

use crate::link::Link;
use crate::process::{self, Scheduler};
use crate::wire::{self, Ask, Numbering};
use schedscope_protocol::model::{ClusterIdx, Platform, SimTime};
use schedscope_protocol::sched::explain;
use schedscope_protocol::sched::{
    Abort, Decision, Decisions, Explanation, JobKey, JobState, JobView, Panel, PanelLine,
    PanelLines, Policy, PolicySpec, PolicyState, Start, StartKind, SystemView, Tone,
};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Mutex;
use std::time::Duration;

/// Endpoints driving a run now: a scheduler drives one run at a time (a
/// scheduler started for its run has a port of its own and claims none).
static IN_USE: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// A job the scheduler was told of and has not seen end.
#[derive(Clone, Debug)]
struct Told {
    key: JobKey,
    arrival: u64,
    /// Where it runs, once started (an interval set).
    alloc: Option<String>,
    start: SimTime,
    estimate: SimTime,
    /// Started at this decision point: not running in the view yet.
    starting: bool,
    /// When its estimate runs out (its walltime), as the engine set it.
    estimated_end: SimTime,
}

/// How many of the last exchanges the console shows.
const SHOWN: usize = 12;

pub struct External {
    spec: PolicySpec,
    endpoint: String,
    /// The command that starts a scheduler for this run, if any.
    command: Option<String>,
    timeout: Duration,
    numbering: Numbering,
    link: Option<Link>,
    /// The simulation's beginning was sent (and the scheduler started).
    begun: bool,
    /// The endpoint is claimed in [`IN_USE`].
    claimed: bool,
    /// Switched to in mid-run: how many jobs started by the policy before
    /// it were still running when it last looked (none: not waiting).
    draining: Option<usize>,
    /// The last arrival told; later arrivals are new.
    last_arrival: Option<u64>,
    /// Jobs told of, by id.
    jobs: BTreeMap<u64, Told>,
    /// Calls asked for and not made yet.
    calls: BTreeSet<SimTime>,
    /// Jobs killed at the scheduler's ask, to report.
    killed: Vec<(u64, f64)>,
    messages: u64,
    /// The last exchanges, for the console.
    log: Vec<String>,
    /// Why the run stopped, once it did.
    failed: Option<String>,
    now: SimTime,
    /// The last reply's `now`: the scheduler is busy deciding until then,
    /// and what happens meanwhile is told to it then.
    busy_until: SimTime,
    /// Events not told yet (the scheduler was busy).
    pending: Vec<Value>,
    /// Decisions timestamped after the request's now, in order: carried
    /// out at their time.
    deferred: Vec<(SimTime, Ask)>,
}

/// What this decision point's starts have taken so far.
#[derive(Default)]
struct Taken {
    busy: HashSet<u32>,
    started: HashSet<u64>,
}

impl External {
    pub fn new(
        spec: PolicySpec,
        platform: &Platform,
        endpoint: String,
        command: Option<String>,
        timeout: Duration,
    ) -> External {
        External {
            spec,
            // Known once the scheduler is started.
            endpoint: match command {
                Some(_) => "a port of its own".to_string(),
                None => endpoint,
            },
            command,
            timeout,
            numbering: Numbering::of(platform),
            link: None,
            begun: false,
            claimed: false,
            draining: None,
            last_arrival: None,
            jobs: BTreeMap::new(),
            calls: BTreeSet::new(),
            killed: Vec::new(),
            messages: 0,
            log: Vec::new(),
            failed: None,
            now: SimTime::ZERO,
            busy_until: SimTime::ZERO,
            pending: Vec::new(),
            deferred: Vec::new(),
        }
    }

    fn note(&mut self, line: String) {
        if self.log.len() == SHOWN {
            self.log.remove(0);
        }
        self.log.push(line);
    }

    /// Stops the run with `reason`.
    fn fail(&mut self, out: &mut Decisions, reason: String) {
        self.note(format!("stopped: {reason}"));
        self.failed = Some(reason.clone());
        out.fail(format!("external scheduler at {}: {reason}", self.endpoint));
    }

    /// The first message: starts the scheduler (with a command) or claims
    /// the endpoint, and opens the link.
    fn begin(&mut self, view: &SystemView<'_>) -> Result<Value, String> {
        self.begun = true;
        if let Some(command) = &self.command {
            let (scheduler, endpoint): (Scheduler, String) = Scheduler::start(command)?;
            self.endpoint = endpoint;
            self.link = Some(Link::open(&self.endpoint, self.timeout)?.owning(scheduler));
        } else {
            if !IN_USE
                .lock()
                .map_err(|e| e.to_string())?
                .insert(self.endpoint.clone())
            {
                return Err(
                    "it already drives another run: a scheduler drives one run at a time \
                     (one replication, one sweep point per scheduler process; or set \
                     params.command to start one for each run)"
                        .to_string(),
                );
            }
            self.claimed = true;
            self.link = Some(Link::open(&self.endpoint, self.timeout)?);
        }
        Ok(wire::begins(view.platform))
    }

    /// The events since the last message, in time order.
    fn events(&mut self, view: &SystemView<'_>) -> Result<Vec<Value>, String> {
        let mut events = Vec::new();
        // Jobs that ended since: no longer running as themselves.
        let ended: Vec<u64> = self
            .jobs
            .iter()
            .filter(|(_, t)| t.alloc.is_some() && !t.starting)
            .filter(|(_, t)| {
                view.jobs
                    .get(t.key.0)
                    .is_none_or(|j| j.arrival != t.arrival || j.state != JobState::Running)
            })
            .map(|(&id, _)| id)
            .collect();
        let killed: HashSet<u64> = self.killed.iter().map(|&(id, _)| id).collect();
        for id in ended {
            let t = self.jobs.remove(&id).expect("listed above");
            if !killed.contains(&id) {
                // Killed at its walltime, or ended on its own.
                let walltime = view.kill_expired && view.now >= t.estimated_end;
                let alloc = t.alloc.as_deref().unwrap_or("");
                events.push(wire::completed(view.now, id, alloc, walltime));
            }
        }
        if !self.killed.is_empty() {
            let ids: Vec<String> = self
                .killed
                .iter()
                .map(|&(id, _)| wire::job_id(id))
                .collect();
            let progress: serde_json::Map<String, Value> = self
                .killed
                .iter()
                .map(|&(id, p)| {
                    (
                        wire::job_id(id),
                        json!({ "profile": wire::PROFILE, "progress": p }),
                    )
                })
                .collect();
            events.push(wire::event(
                view.now,
                "JOB_KILLED",
                json!({ "job_ids": ids, "job_progress": progress }),
            ));
            self.killed.clear();
        }
        // Jobs that arrived since (the queue is in arrival order).
        let new = view
            .queue
            .iter()
            .rev()
            .take_while(|k| self.last_arrival.is_none_or(|a| view.job(**k).arrival > a))
            .count();
        for &k in &view.queue[view.queue.len() - new..] {
            let j = view.job(k);
            self.last_arrival = Some(j.arrival);
            self.jobs.insert(
                j.id,
                Told {
                    key: k,
                    arrival: j.arrival,
                    alloc: None,
                    start: SimTime::ZERO,
                    estimate: j.estimate,
                    starting: false,
                    estimated_end: SimTime::MAX,
                },
            );
            events.push(wire::submitted(
                j.id,
                j.submit.min(view.now),
                j.size,
                j.estimate,
            ));
        }
        // Calls due.
        while let Some(&at) = self.calls.first().filter(|&&at| at <= view.now) {
            self.calls.remove(&at);
            events.push(wire::event(at, "REQUESTED_CALL", json!({})));
        }
        Ok(events)
    }

    /// Carries out the scheduler's reply; whether it killed jobs (to be
    /// reported at once).
    fn act(
        &mut self,
        view: &SystemView<'_>,
        asks: Vec<Ask>,
        taken: &mut Taken,
        out: &mut Decisions,
    ) -> Result<bool, String> {
        let mut killed = false;
        for ask in asks {
            match ask {
                Ask::Execute { job, alloc } => {
                    let start = self.execute(view, job, &alloc, &taken.busy, &taken.started)?;
                    taken.busy.extend(alloc.iter().copied());
                    taken.started.insert(job);
                    let set = wire::format_set(&alloc);
                    self.note(format!(
                        "{} EXECUTE_JOB {} on {set}",
                        secs(view.now),
                        wire::job_id(job)
                    ));
                    let told = self.jobs.get_mut(&job).expect("checked by execute");
                    told.alloc = Some(set);
                    told.start = view.now;
                    told.starting = true;
                    told.estimated_end = view.now.saturating_add(told.estimate);
                    out.start(start);
                }
                Ask::CallMeLater { at } => {
                    let at = at.max(view.now);
                    self.note(format!("{} CALL_ME_LATER {}", secs(view.now), secs(at)));
                    self.calls.insert(at);
                    out.wake_at(at);
                }
                Ask::Kill { jobs } => {
                    for id in jobs {
                        let Some(t) = self.jobs.get(&id).filter(|t| t.alloc.is_some()) else {
                            continue; // ended already: nothing to kill
                        };
                        let elapsed = (view.now.0 - t.start.0) as f64;
                        let progress = (elapsed / t.estimate.0.max(1) as f64).clamp(0.0, 0.999);
                        let job = t.key;
                        self.killed.push((id, progress));
                        self.note(format!("{} KILL_JOB {}", secs(view.now), wire::job_id(id)));
                        out.push(Decision::Abort(Abort {
                            job,
                            requeue: false,
                        }));
                        killed = true;
                    }
                }
                Ask::Reject { job } => {
                    return Err(format!(
                        "REJECT_JOB {}: schedscope runs every job of the workload and does not reject one",
                        wire::job_id(job)
                    ));
                }
                Ask::Metadata { job, metadata } => {
                    self.note(format!(
                        "{} metadata {}: {metadata}",
                        secs(view.now),
                        wire::job_id(job)
                    ));
                }
                Ask::Noted(what) => self.note(format!("{} NOTIFY {what}", secs(view.now))),
            }
        }
        Ok(killed)
    }

    /// The start an `EXECUTE_JOB` asks for, checked against the state.
    fn execute(
        &self,
        view: &SystemView<'_>,
        id: u64,
        alloc: &[u32],
        busy: &HashSet<u32>,
        started: &HashSet<u64>,
    ) -> Result<Start, String> {
        let name = wire::job_id(id);
        let told = self
            .jobs
            .get(&id)
            .ok_or(format!("EXECUTE_JOB {name}: no such job was submitted"))?;
        let j: &JobView = view
            .jobs
            .get(told.key.0)
            .filter(|j| {
                j.arrival == told.arrival && j.state == JobState::Queued && told.alloc.is_none()
            })
            .filter(|_| !started.contains(&id))
            .ok_or(format!(
                "EXECUTE_JOB {name}: the job is not waiting (it runs or has ended)"
            ))?;
        if alloc.len() as u32 != j.size {
            return Err(format!(
                "EXECUTE_JOB {name} on {}: {} resources for a job of {}",
                wire::format_set(alloc),
                alloc.len(),
                j.size
            ));
        }
        let mut parts: BTreeMap<ClusterIdx, Vec<u32>> = BTreeMap::new();
        for &r in alloc {
            let (c, p) = self.numbering.locate(r).ok_or(format!(
                "EXECUTE_JOB {name}: resource {r} does not exist (0-{})",
                self.numbering.total() - 1
            ))?;
            if busy.contains(&r) {
                return Err(format!("EXECUTE_JOB {name}: resource {r} is busy"));
            }
            parts.entry(c).or_default().push(p);
        }
        if j.components.len() == 1 && parts.len() > 1 {
            return Err(format!(
                "EXECUTE_JOB {name} on {}: the job runs on one cluster, the allocation spans {}",
                wire::format_set(alloc),
                parts.len()
            ));
        }
        let ahead = view.queue.iter().take_while(|&&k| k != told.key).any(|&k| {
            let q = view.job(k);
            !started.contains(&q.id)
        });
        Ok(Start {
            job: told.key,
            assignment: parts.iter().map(|(&c, ps)| (c, ps.len() as u32)).collect(),
            kind: if ahead {
                StartKind::Ahead
            } else {
                StartKind::Head
            },
            processors: Some(parts.into_values().collect()),
            processes: None,
        })
    }
}

impl External {
    /// A decision point: the decisions due now, then what happened told
    /// to the scheduler unless it is still busy, and its reply acted on.
    fn point(&mut self, view: &SystemView<'_>, out: &mut Decisions) -> Result<(), String> {
        self.now = view.now;
        for t in self.jobs.values_mut() {
            t.starting = false;
            if t.alloc.is_some()
                && let Some(j) = view.jobs.get(t.key.0).filter(|j| j.arrival == t.arrival)
            {
                t.estimated_end = j.estimated_end;
            }
        }
        let mut taken = Taken {
            busy: self.busy(view),
            started: HashSet::new(),
        };
        // Switched to in mid-run: a scheduler can only be told of the
        // processors it allocates, so it begins once the jobs another
        // policy started have ended; the queue waits meanwhile.
        if !self.begun && !view.running.is_empty() {
            let n = view.running.len();
            if self.draining != Some(n) {
                self.note(format!(
                    "waiting for {} started before it to end: the scheduler is told \
                     only of processors it allocates",
                    explain::plural(n as u64, "job", "jobs")
                ));
                self.draining = Some(n);
            }
            return Ok(());
        }
        // The beginning goes alone, as Batsim sends it (pybatsim reads it
        // before its scheduler is set up).
        if !self.begun {
            let begins = self.begin(view)?;
            self.exchange(view, vec![begins], &mut taken, out)?;
        }
        let events = self.events(view)?;
        self.pending.extend(events);
        let due = self
            .deferred
            .iter()
            .take_while(|(t, _)| *t <= view.now)
            .count();
        let due: Vec<Ask> = self.deferred.drain(..due).map(|(_, a)| a).collect();
        if self.act(view, due, &mut taken, out)? {
            out.again();
        }
        if view.now < self.busy_until {
            out.wake_at(self.busy_until);
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        self.exchange(view, pending, &mut taken, out)
    }

    /// The resources running jobs hold.
    fn busy(&self, view: &SystemView<'_>) -> HashSet<u32> {
        view.running
            .iter()
            .flat_map(|&k| {
                let j = view.job(k);
                j.assignment
                    .iter()
                    .zip(&j.processors)
                    .flat_map(|(&(c, _), ps)| ps.iter().map(move |&p| (c, p)))
            })
            .map(|(c, p)| self.numbering.id(c, p))
            .collect()
    }

    /// Sends `events` (nothing when there are none) and acts on the reply:
    /// its decisions timestamped now at once, later ones at their time.
    fn exchange(
        &mut self,
        view: &SystemView<'_>,
        mut events: Vec<Value>,
        taken: &mut Taken,
        out: &mut Decisions,
    ) -> Result<(), String> {
        if events.is_empty() {
            return Ok(());
        }
        events.sort_by(|a, b| {
            let t = |e: &Value| e["timestamp"].as_f64().unwrap_or(0.0);
            t(a).total_cmp(&t(b))
        });
        let message = json!({ "now": wire::secs(view.now), "events": events }).to_string();
        let link = self.link.as_mut().ok_or("the link is not open")?;
        let reply = wire::parse_reply(&link.ask(message)?)?;
        self.messages += 1;
        if reply.now < view.now {
            return Err(format!(
                "the reply's now {} is before the request's {}",
                wire::secs(reply.now),
                wire::secs(view.now)
            ));
        }
        self.busy_until = reply.now;
        let mut now = Vec::new();
        for (t, ask) in reply.asks {
            if t <= view.now {
                now.push(ask);
            } else {
                out.wake_at(t);
                self.deferred.push((t, ask));
            }
        }
        // Jobs killed are reported at once, in another round.
        if self.act(view, now, taken, out)? {
            out.again();
        }
        if reply.now > view.now {
            out.wake_at(reply.now);
        }
        Ok(())
    }
}

fn secs(t: SimTime) -> String {
    format!("{:.3}", wire::secs(t))
}

impl Policy for External {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn decide(&mut self, view: &SystemView<'_>, out: &mut Decisions) {
        if self.failed.is_some() {
            return;
        }
        if let Err(reason) = self.point(view, out) {
            self.fail(out, reason);
        }
    }

    /// The scheduler's reasons stay in the scheduler: what is known is
    /// whether it has been told of the job and what it asks for.
    fn explain(&self, view: &SystemView<'_>, job: JobKey) -> Explanation {
        let g = explain::generic(view, job);
        let told = if let Some(n) = self.draining.filter(|_| !self.begun) {
            &format!(
                "it begins once the jobs started before the switch to it have \
                 ended ({} still {}; it can only be told of processors it allocates)",
                n,
                if n == 1 { "runs" } else { "run" }
            )
        } else if self.jobs.contains_key(&view.job(job).id) {
            "it has been told of this job (JOB_SUBMITTED) and has not started it"
        } else {
            "it has not been told of this job yet"
        };
        Explanation::unknown(format!(
            "The external scheduler at {} decides when it runs; {told}. {}",
            self.endpoint,
            g.text
                .trim_end_matches(" This policy gives no reasons of its own.")
        ))
    }

    fn state(&self, _view: &SystemView<'_>) -> PolicyState {
        let mut head = vec![PanelLine::of(
            format!(
                "{} messages · {} jobs told of and not ended",
                self.messages,
                self.jobs.len()
            ),
            Tone::Plain,
        )];
        if let Some(at) = self.calls.first() {
            head.push(PanelLine::of(
                format!("call asked at {}", secs(*at)),
                Tone::Dim,
            ));
        }
        let lines = self
            .log
            .iter()
            .rev()
            .map(|l| {
                PanelLine::of(
                    l.clone(),
                    if l.starts_with("stopped") {
                        Tone::Alert
                    } else {
                        Tone::Plain
                    },
                )
            })
            .collect();
        PolicyState::new(Panel {
            title: Some(format!("external scheduler at {}", self.endpoint)),
            head_lines: head,
            lines: PanelLines {
                lines,
                more: "{} more".to_string(),
                // The exchanges, newest first, in up to half the pane.
                share: 50,
                ..PanelLines::default()
            },
            alert: self.failed.clone(),
            ..Panel::default()
        })
    }

    fn admits(&self, job: &JobView, platform: &Platform) -> Result<(), String> {
        if job.app.is_some() {
            return Err(format!(
                "job {} is moldable; a Batsim scheduler runs rigid jobs",
                job.id
            ));
        }
        if job.graph.is_some() {
            return Err(format!(
                "job {} is a task graph; a Batsim scheduler runs rigid jobs",
                job.id
            ));
        }
        if job.components.len() > 1 {
            return Err(format!(
                "job {} is co-allocated over {} clusters; the protocol allocates resources, not components",
                job.id,
                job.components.len()
            ));
        }
        let total = platform.total_processors();
        if job.size as u64 > total {
            return Err(format!(
                "job {} needs {} processors; the platform has {total}",
                job.id, job.size
            ));
        }
        if job.components.len() == 1 && !platform.can_ever_fit(&job.components) {
            return Err(format!(
                "job {} needs {} processors on one cluster; the largest has {}",
                job.id,
                job.size,
                platform.largest_cluster()
            ));
        }
        Ok(())
    }
}

impl Drop for External {
    fn drop(&mut self) {
        if !self.begun {
            return;
        }
        if self.failed.is_none()
            && let Some(link) = &mut self.link
        {
            let ends = wire::event(self.now, "SIMULATION_ENDS", json!({}));
            let message = json!({ "now": wire::secs(self.now), "events": [ends] }).to_string();
            match link.ask(message) {
                // A scheduler started for the run exits on its own now.
                Ok(_) => link.stop_scheduler(process::GRACE),
                Err(e) => {
                    tracing::warn!(endpoint = %self.endpoint, error = %e, "SIMULATION_ENDS was not answered")
                }
            }
        }
        // Stops the scheduler started for the run, if it still runs.
        self.link = None;
        if self.claimed
            && let Ok(mut used) = IN_USE.lock()
        {
            used.remove(&self.endpoint);
        }
    }
}
