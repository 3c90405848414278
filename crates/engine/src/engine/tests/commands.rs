//! Operator commands: a switch, injections the engine runs or refuses.

use super::*;
use schedscope_policies::policy::SharedParams;

#[test]
fn commands_switch_policy_and_inject() {
    let mut e = jumping_under_fcfs();
    e.step_until(SimTime::from_secs(4));
    let out = e
        .apply(Command::SetPolicy {
            policy: PolicySpec::fpfs(MaxJumps::Unlimited),
        })
        .unwrap();
    assert!(out.message.contains("FPFS"));
    // Nine processors on 2 × 4: the policy could never run it. It is
    // rejected with the reason, not queued to wait for ever.
    let out = e
        .apply(Command::InjectJobs {
            jobs: vec![InjectJob {
                size: 9,
                runtime: 1.0,
                estimate: None,
                components: None,
                count: 1,
                site: None,
            }],
        })
        .unwrap();
    assert!(
        out.message.contains("rejected by FPFS") && out.message.contains("needs 9 processors"),
        "{}",
        out.message
    );
    assert_eq!(e.counters().rejected, 1);
    assert_eq!(e.rejections()[0].id, INJECTED_ID_BASE + 1);
    e.apply(Command::InjectJobs {
        jobs: vec![InjectJob {
            size: 1,
            runtime: 1.0,
            estimate: None,
            components: None,
            count: 2,
            site: None,
        }],
    })
    .unwrap();
    assert_eq!(e.command_log().len(), 3);
    e.run();
    assert_eq!(e.check_conservation(), Ok(()));
    let recs: Vec<_> = e.drain_records().collect();
    assert_eq!(recs.len(), 7);
    assert_eq!(recs.iter().filter(|r| r.injected).count(), 2);
    // The switch at t=4 lets 4 and 5 jump at t=5.
    let start = |id| recs.iter().find(|r| r.id == id).unwrap().start.0 / 1_000_000;
    assert_eq!((start(4), start(5)), (5, 5));
}

/// Jobs that are not jobs at all, each changed from `good` in one way,
/// with what the refusal says.
fn bad_jobs(good: &InjectJob) -> Vec<(InjectJob, &'static str)> {
    vec![
        (
            InjectJob {
                size: 0,
                ..good.clone()
            },
            "size must be at least 1",
        ),
        (
            InjectJob {
                runtime: -1.0,
                ..good.clone()
            },
            "runtime must be",
        ),
        (
            InjectJob {
                runtime: f64::INFINITY,
                ..good.clone()
            },
            "runtime must be",
        ),
        (
            InjectJob {
                runtime: f64::NAN,
                ..good.clone()
            },
            "runtime must be",
        ),
        (
            InjectJob {
                estimate: Some(-1.0),
                ..good.clone()
            },
            "estimate must be",
        ),
        (
            InjectJob {
                estimate: Some(f64::INFINITY),
                ..good.clone()
            },
            "estimate must be",
        ),
        (
            InjectJob {
                components: Some(vec![1, 2]),
                ..good.clone()
            },
            "add up to the size",
        ),
        (
            InjectJob {
                components: Some(vec![2, 0]),
                ..good.clone()
            },
            "≥ 1 each",
        ),
        (
            InjectJob {
                site: Some(2),
                ..good.clone()
            },
            "site 2 does not exist",
        ),
        (
            InjectJob {
                site: Some(1),
                ..good.clone()
            },
            "one-task local job",
        ),
    ]
}

/// Every injected job the engine cannot run is refused with its reason,
/// and nothing is queued: a command log or timeline edited by hand reaches
/// the engine without the console form's checks.
#[test]
fn bad_injected_jobs_are_refused_with_their_reason() {
    let mut e = jumping_under_fcfs();
    let good = InjectJob {
        size: 2,
        runtime: 1.0,
        estimate: None,
        components: None,
        count: 1,
        site: None,
    };
    let bad = bad_jobs(&good);
    for (job, reason) in bad {
        let err = e
            .apply(Command::InjectJobs {
                jobs: vec![good.clone(), job.clone()],
            })
            .unwrap_err();
        assert!(
            matches!(&err, CommandError::BadJob(m) if m.contains(reason)),
            "{job:?}: {err}"
        );
    }
    assert_eq!(e.queue_len(), 0, "a refused command queues nothing");
    assert!(e.command_log().is_empty());
    // Zero run time and estimate, and a local job on a site, are fine.
    let fine = [
        InjectJob {
            runtime: 0.0,
            estimate: Some(0.0),
            ..good.clone()
        },
        InjectJob {
            size: 1,
            site: Some(1),
            ..good.clone()
        },
    ];
    let said: Vec<String> = fine
        .into_iter()
        .map(|job| {
            e.apply(Command::InjectJobs { jobs: vec![job] })
                .unwrap()
                .message
        })
        .collect();
    e.run();
    let mut injected: Vec<(u64, u32)> = e
        .drain_records()
        .filter(|r| r.injected)
        .map(|r| (r.id, r.size))
        .collect();
    injected.sort_unstable();
    // Injected jobs are numbered on from the last, in the order injected;
    // a refused command takes no number, or a replay of the command log
    // (which holds only the commands applied) would number them otherwise.
    let first = injected[0].0;
    assert_eq!(first, INJECTED_ID_BASE + 1);
    assert_eq!(injected, [(first, 2), (first + 1, 1)]);
    assert_eq!(
        said,
        [
            format!("injected job {first}"),
            format!("injected job {}", first + 1)
        ]
    );
}

/// A command that injects jobs the policy can run beside one it never
/// could runs the first and rejects the other with its reason: nothing of
/// the command is lost, nothing waits for ever.
#[test]
fn an_injection_runs_what_it_can_and_rejects_what_it_never_could() {
    let mut e = jumping_under_fcfs();
    let job = |size, components: Option<Vec<u32>>| InjectJob {
        size,
        runtime: 1.0,
        estimate: None,
        components,
        count: 1,
        site: None,
    };
    // 5 without components is split by the policy (2 + 3 on 2 × 4); 5 as
    // one component can never fit; 2 fits anywhere.
    let out = e
        .apply(Command::InjectJobs {
            jobs: vec![job(2, None), job(5, Some(vec![5])), job(5, None)],
        })
        .unwrap();
    let (a, b, c) = (
        INJECTED_ID_BASE + 1,
        INJECTED_ID_BASE + 2,
        INJECTED_ID_BASE + 3,
    );
    assert!(
        out.message
            .starts_with(&format!("injected job {a}, {c}; rejected by FCFS"))
    );
    assert!(
        out.message
            .contains(&format!("job {b} asks for 5 processors as 5"))
    );
    e.run();
    assert_eq!(e.check_conservation(), Ok(()));
    let mut ids: Vec<u64> = e
        .drain_records()
        .filter(|r| r.injected)
        .map(|r| r.id)
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [a, c]);
    let c = e.counters();
    assert_eq!((c.arrived, c.finished, c.rejected), (8, 7, 1));
}
