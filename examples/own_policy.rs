//! A policy of your own, run by schedscope's engine on any scenario.
//!
//! The engine and its policies meet only in the protocol of
//! `schedscope::sched`: a policy reads a `SystemView` (the queue, the
//! running jobs, free processors, and each job as a scheduler may know it
//! online, without its actual run time) and, in its one decision call,
//! answers with `Start`s (or aborts, resizes, reservations) that the engine
//! checks one by one. This one is "smallest job first": of the
//! queued jobs that fit now, the narrowest starts first (each of its
//! components on the freest cluster).
//!
//! With `--faulty` it also gets things wrong on purpose, every seventh
//! decision asking for one processor more than a cluster has free: the
//! engine refuses that decision with its reason, counts it, shows it on the
//! console's message line, and the run goes on.
//!
//! ```sh
//! cargo run --release --example own_policy -- scenarios/teach-jumping.toml
//! cargo run --release --example own_policy -- scenarios/default.toml --faulty --console
//! ```
//!
//! It is registered in schedscope's catalog as `smallest-first`, so the
//! scenario runs under it and the console's picker lists it beside the
//! built-in policies (`crates/sjf-easy` does the same from a crate of its
//! own, with every command of the program).
//!
//! It reads no parameter. One that places by the scenario's `placement`
//! (or reads `order`, `max_jumps`, `machines`: the keys several policies
//! share, written in `[policy]` itself) lists `catalog::common::PLACEMENT`
//! among its entry's `params` and reads `spec.placement()` through
//! `schedscope::policy::SharedParams`; the types (`PlacementName`,
//! `BackfillOrder`, `MaxJumps`, `Machines`) are in `schedscope::policy`.
//! The protocol's `PolicySpec` only carries the keys.

use schedscope::console::Session;
use schedscope::model::Platform;
use schedscope::policy::PolicyName;
use schedscope::policy::catalog::{self, PolicyEntry};
use schedscope::scenario::Scenario;
use schedscope::sched::{Decisions, Policy, PolicySpec, PolicyState, Start, StartKind, SystemView};
use std::sync::atomic::{AtomicBool, Ordering};

static FAULTY: AtomicBool = AtomicBool::new(false);

struct SmallestFirst {
    spec: PolicySpec,
    faulty: bool,
    decisions: u64,
}

impl Policy for SmallestFirst {
    fn spec(&self) -> &PolicySpec {
        &self.spec
    }

    fn decide(&mut self, view: &SystemView<'_>, out: &mut Decisions) {
        let mut free = view.free.to_vec();
        let mut queue: Vec<_> = view.queue.to_vec();
        queue.sort_by_key(|&k| (view.job(k).size, view.job(k).arrival));
        for key in queue {
            let job = view.job(key);
            let widths = if job.components.is_empty() {
                vec![job.size]
            } else {
                job.components.clone()
            };
            // Each component, widest first, on the freest cluster not yet
            // used by this job.
            let mut order: Vec<usize> = (0..widths.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(widths[i]));
            let mut assignment = vec![(0u16, 0u32); widths.len()];
            let mut used = vec![false; free.len()];
            let mut fits = true;
            for i in order {
                let best = (0..free.len())
                    .filter(|&c| !used[c] && free[c] >= widths[i])
                    .max_by_key(|&c| (free[c], std::cmp::Reverse(c)));
                match best {
                    Some(c) => {
                        used[c] = true;
                        assignment[i] = (c as u16, widths[i]);
                    }
                    None => {
                        fits = false;
                        break;
                    }
                }
            }
            if !fits {
                continue;
            }
            self.decisions += 1;
            if self.faulty && self.decisions.is_multiple_of(7) {
                // Deliberately wrong: one processor more than is free.
                let (c, _) = assignment[0];
                assignment[0].1 = free[c as usize] + 1;
            }
            for &(c, w) in &assignment {
                free[c as usize] = free[c as usize].saturating_sub(w);
            }
            let head = view.queue.first() == Some(&key);
            out.start(Start {
                job: key,
                assignment,
                kind: if head {
                    StartKind::Head
                } else {
                    StartKind::Ahead
                },
                processors: None,
                processes: None,
            });
        }
    }

    fn state(&self, _view: &SystemView<'_>) -> PolicyState {
        PolicyState::default()
    }
}

/// Its catalog entry: name, what it does, parameters, label, builder.
fn entry() -> PolicyEntry {
    PolicyEntry {
        name: PolicyName::new("smallest-first"),
        summary: "smallest job first: of the queued jobs that fit now, the narrowest starts",
        params: &[],
        label: |_| "smallest first".to_string(),
        build: |spec: &PolicySpec, _: &Platform| {
            Ok(Box::new(SmallestFirst {
                spec: spec.clone(),
                faulty: FAULTY.load(Ordering::Relaxed),
                decisions: 0,
            }))
        },
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .cloned()
        .unwrap_or_else(|| "scenarios/teach-jumping.toml".into());
    FAULTY.store(args.iter().any(|a| a == "--faulty"), Ordering::Relaxed);
    catalog::register(entry()).map_err(anyhow::Error::msg)?;
    let scenario = Scenario::load_with(
        std::path::Path::new(&path),
        &["policy.name=smallest-first".into()],
    )?;
    let seed = scenario.seed();
    if args.iter().any(|a| a == "--console") {
        let session = Session::new(scenario, seed, true)?;
        return schedscope::console::run_session(session);
    }
    let mut session = Session::new(scenario, seed, false)?;
    session.run_to_end();
    let s = session.metrics().summary();
    let c = session.engine().counters();
    println!(
        "smallest job first on {path}: {} jobs, ART {:.2} s, mean wait {:.2} s, {} decisions refused",
        s.jobs, s.art, s.mean_wait, c.refused
    );
    if let Some((at, why)) = session.engine().last_refusal() {
        println!("last refused at t = {:.1} s: {why}", at.as_secs_f64());
    }
    Ok(())
}
