//! Processors: checking a policy's decisions against ownership, taking
//! processors for a start and giving them back.

use super::*;

impl Engine {
    /// Carries out a policy's abort, or says why not.
    pub(super) fn abort(&mut self, a: &crate::sched::Abort) -> Result<(), Refusal> {
        let slot = a.job.0;
        if self
            .table
            .jobs
            .get(slot)
            .is_none_or(|j| j.state != JobState::Running)
        {
            return Err(Refusal::NotRunning(slot));
        }
        if a.requeue {
            if let Some(&head) = self.table.queue.first() {
                self.table.aborted_for = Some((head.0, self.table.jobs[head.0].arrival));
            }
            self.requeue(slot);
        } else {
            self.finish(slot, true);
        }
        Ok(())
    }

    /// Checks a start decision against the job table and the free
    /// processors, changing nothing.
    pub(super) fn check_start(&self, d: &Start) -> Result<(), Refusal> {
        let Some(job) = self
            .table
            .jobs
            .get(d.job.0)
            .filter(|j| j.state == JobState::Queued)
        else {
            return Err(Refusal::NotQueued(d.job.0));
        };
        if self.table.returning.contains(&d.job.0) {
            // Aborted, and not back in the queue yet.
            return Err(Refusal::NotQueued(d.job.0));
        }
        let id = job.id;
        if self.check_reserved_start(d)?.is_some() {
            return Ok(());
        }
        let flexible = Self::check_widths(job, d)?;
        for (i, &(c, w)) in d.assignment.iter().enumerate() {
            if !flexible && w != job.components[i] {
                return Err(Refusal::Width {
                    job: id,
                    index: i,
                    wanted: job.components[i],
                    given: w,
                });
            }
            let Some(cs) = self.machine.clusters.get(c as usize) else {
                return Err(Refusal::NoCluster {
                    job: id,
                    cluster: c,
                });
            };
            if d.assignment[..i].iter().any(|&(o, _)| o == c) {
                return Err(Refusal::SameCluster {
                    job: id,
                    cluster: c,
                });
            }
            if cs.free < w {
                return Err(Refusal::TooFew {
                    job: id,
                    cluster: c,
                    wanted: w,
                    free: cs.free,
                });
            }
            if let Some(chosen) = d.processors.as_ref().and_then(|ps| ps.get(i)) {
                self.check_named(d, id, (c, w), cs, chosen)?;
            }
        }
        self.check_unreserved(d)
    }

    /// The widths of a start against the job's: its processes when it
    /// names them, any split of its size into widths of at least 1 when it
    /// asks for no particular components (the policy splits it), or one
    /// width per component. Returns whether the job is split by the policy.
    fn check_widths(job: &JobView, d: &Start) -> Result<bool, Refusal> {
        let flexible = job.components.is_empty();
        if let Some(p) = d.processes {
            Self::check_processes(job, p, &d.assignment)?;
        } else if flexible {
            let total: u64 = d.assignment.iter().map(|&(_, w)| w as u64).sum();
            if total != job.size as u64 || d.assignment.iter().any(|&(_, w)| w == 0) {
                return Err(Refusal::Split {
                    job: job.id,
                    given: d.assignment.iter().map(|&(_, w)| w).collect(),
                    size: job.size,
                });
            }
        } else if job.components.len() != d.assignment.len() {
            return Err(Refusal::ComponentCount {
                job: job.id,
                given: d.assignment.len(),
                wanted: job.components.len(),
            });
        }
        Ok(flexible)
    }

    /// The processors a start names on cluster `c` for a component `w`
    /// wide: as many as it is wide, each free and named once (a reserved
    /// one only as the reservation allows).
    fn check_named(
        &self,
        d: &Start,
        id: u64,
        (c, w): (ClusterIdx, u32),
        cs: &machine::ClusterState,
        chosen: &[u32],
    ) -> Result<(), Refusal> {
        if chosen.len() != w as usize {
            return Err(Refusal::NamedCount {
                job: id,
                cluster: c,
                given: chosen.len(),
                wanted: w,
            });
        }
        for (n, &p) in chosen.iter().enumerate() {
            if cs.owner.get(p as usize) == Some(&super::reservations::RESERVED) {
                self.check_unreserved(d)?;
            }
            if cs.owner.get(p as usize) != Some(&0) || chosen[..n].contains(&p) {
                return Err(Refusal::Taken {
                    job: id,
                    cluster: c,
                    processor: p,
                });
            }
        }
        Ok(())
    }

    /// A decision the engine would not carry out: counted, logged, and
    /// kept for the console's message line. The run goes on.
    pub(super) fn refuse(&mut self, r: Refusal) {
        self.counters.refused += 1;
        tracing::warn!(at = self.now.as_secs_f64(), policy = %self.policy_label(), "decision refused: {r}");
        self.pass.refused(self.now, r);
    }

    pub(super) fn start(&mut self, d: &Start) -> Result<(), Refusal> {
        self.check_start(d)?;
        let now = self.now;
        let inside = self.check_reserved_start(d)?;
        let processors = self.take_processors(d, inside.is_some());
        let placed = Placement {
            from: now,
            processors: self.machine.numbered(&d.assignment, &processors),
        };
        self.table.hidden[d.job.0].held = inside;
        self.table.hidden[d.job.0].placements = vec![placed];
        let held: u32 = d.assignment.iter().map(|&(_, w)| w).sum();
        // The size first: a moldable job's processes load the links.
        let fold = self.mold_start(d.job.0, d.processes, held);
        let rate = running_rate(self.start_rate(d.job, &d.assignment), fold);
        self.machine.links_changed();
        let job = &mut self.table.jobs[d.job.0];
        job.state = JobState::Running;
        job.start = now;
        job.assignment = d.assignment.clone();
        job.processors = processors;
        job.rate = rate;
        job.jumped_ahead = d.kind == StartKind::Ahead;
        let h = &mut self.table.hidden[d.job.0];
        h.rate_since = now;
        h.held_since = now;
        h.held_run = 0.0;
        h.expired = false;
        job.estimated_end = now.saturating_add(span(job.estimate, rate));
        self.counters.started += 1;
        if job.jumped_ahead {
            self.counters.started_ahead += 1;
        }
        self.table.running.push(d.job);
        self.schedule_completion(d.job);
        Ok(())
    }

    /// Takes the processors of a checked start, per component: none inside
    /// the job's reservation (it holds them), the ones named, or the
    /// lowest-numbered free ones (outside every reservation, those not
    /// reserved before the job's estimated end).
    fn take_processors(&mut self, d: &Start, inside: bool) -> Vec<Vec<u32>> {
        let now = self.now;
        let owner = d.job.0 as u32 + 1;
        let mut processors = Vec::with_capacity(d.assignment.len());
        // Outside every reservation, the engine's own pick leaves out the
        // processors reserved before the job's estimated end.
        let avoid: Vec<Vec<u32>> = if self.book.is_empty() || inside || d.processors.is_some() {
            Vec::new()
        } else {
            let job = &self.table.jobs[d.job.0];
            let end = now.saturating_add(span(
                job.estimate,
                job_rate(&self.machine.platform, &d.assignment),
            ));
            d.assignment
                .iter()
                .map(|&(c, w)| {
                    self.unreserved_free(c, job.id, end)
                        .take(w as usize)
                        .collect()
                })
                .collect()
        };
        for (i, &(c, w)) in d.assignment.iter().enumerate() {
            if inside {
                // Inside its reservation: the reservation holds the
                // processors, the job takes none of them.
                let named = d.processors.as_ref().and_then(|ps| ps.get(i));
                processors.push(named.cloned().unwrap_or_default());
                continue;
            }
            let chosen = avoid
                .get(i)
                .or_else(|| d.processors.as_ref().and_then(|ps| ps.get(i)));
            let got = self.machine.take(c, w, owner, chosen);
            processors.push(got);
        }
        processors
    }

    /// Gives a running job's processors back.
    pub(super) fn release(&mut self, slot: usize) {
        if self.table.hidden[slot].held.take().is_some() {
            // Inside a reservation: it took no processors.
            if let Some(pos) = self.table.running.iter().position(|k| k.0 == slot) {
                self.table.running.swap_remove(pos);
            }
            self.machine.links_changed();
            return;
        }
        let job = &self.table.jobs[slot];
        for (&(c, w), procs) in job.assignment.iter().zip(&job.processors) {
            self.machine.give_back(c, w, slot, procs);
        }
        self.table.stop_running(slot);
        self.machine.links_changed();
    }
}
