//! Explanations worked by hand: small schedules whose every start is
//! known (the lessons' comments work them out), asked about at moments
//! where the policy's rule keeps a job waiting, through what `schedscope
//! run --explain` prints. Each sentence and its numbers are checked
//! against the schedule in the comment above it.

use schedscope::cli::explain::{Said, explain, lines};
use schedscope::scenario::Scenario;
use schedscope::sched::Verdict;
use std::path::Path;

/// What `run SCENARIO --set SETS --explain JOB@AT…` says, line by line.
fn said(path: &str, sets: &[&str], asks: &[(u64, f64)]) -> Vec<Said> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let sc = Scenario::load_with(Path::new(path), &sets).expect("scenario");
    explain(&sc, sc.seed(), asks).expect("run")
}

fn texts(said: &[Said]) -> Vec<String> {
    said.iter().map(|s| s.text.clone()).collect()
}

/// teach-jumping: 2 × 4. Job 1 holds c0 until 10, job 2 c1 until 5; job
/// 3 asks for 4 + 4 from 1; job 4 (2 wide) arrives at 2, job 5 (1) at 3.
#[test]
fn fcfs_and_fpfs_say_the_head_blocks_or_the_job_does_not_fit() {
    let fcfs = said("scenarios/teach-jumping.toml", &[], &[(3, 2.0), (4, 2.0)]);
    assert_eq!(
        texts(&fcfs),
        [
            "It is the head and does not fit: it needs 8 processors as 4+4 on 2 clusters; free per cluster: 0 and 0.",
            "FCFS starts jobs in arrival order only: it waits behind the head, job 3, which does not fit.",
        ]
    );
    assert!(fcfs.iter().all(|s| s.verdict == Some(Verdict::Waits)));
    // FPFS(10): at 2 nothing is free, so job 4 cannot jump.
    let fpfs = said(
        "scenarios/teach-jumping.toml",
        &["policy.name=fpfs"],
        &[(4, 2.0)],
    );
    assert_eq!(
        fpfs[0].text,
        "It does not fit now, so it cannot jump the head (job 3, jumped 0 of 10 times): it needs 2 processors; free per cluster: 0 and 0."
    );
    // FPFS(1): at 5 job 2 leaves c1; job 4 jumps the head (1 of 1) and
    // starts there, and job 5, which would fit the 2 left, may not.
    let one = said(
        "scenarios/teach-jumping.toml",
        &["policy.name=fpfs", "policy.max_jumps=1"],
        &[(5, 5.0), (4, 5.0)],
    );
    assert_eq!(
        one[0].text,
        "The head, job 3, has been jumped 1 of 1 times: nothing may pass it until it starts."
    );
    assert_eq!(
        (one[1].state, one[1].text.as_str()),
        ("running", "running since 5 s (2 on c1) at 5 s")
    );
}

/// teach-backfill: 4 processors. A (1) holds 2 until 20, B (2) 1 until
/// 5; H (3) needs 4 from 1, so its shadow time is 20; Q (4) is 2 wide for
/// 10 s from 1; C (5) 1 wide for 10 s from 2.
#[test]
fn easy_says_shadow_time_and_extra_processors() {
    let easy = said(
        "scenarios/teach-backfill.toml",
        &[],
        &[(4, 1.0), (3, 2.0), (4, 12.0), (5, 3.0)],
    );
    assert_eq!(
        lines(&easy),
        "job 4 at 1 s waits: It does not fit in the processors free now: it needs 2 processors; 1 free. (The head, job 3, holds the reservation at +19 s.)\n\
         job 3 at 2 s waits: It is the head and does not fit now: it needs 4 processors; 0 free. It holds the reservation: it starts at the shadow time +18 s, when the running jobs' estimates say enough is free.\n\
         job 4 at 12 s waits: Backfilling it would delay the head, job 3: its estimated end +10 s is after the head's shadow time +8 s, and it needs 2 processors, where only 0 are extra beyond that time.\n\
         job 5 at 3 s running: running since 2 s (1 on c0) at 3 s\n"
    );
}

#[test]
fn conservative_says_where_each_reservation_is() {
    // Q's reservation is at 5 (B's processor and the free one), C's at
    // 25, after H's (20 to 25).
    let c = said(
        "scenarios/teach-backfill.toml",
        &["policy.name=conservative"],
        &[(4, 2.0), (5, 2.0)],
    );
    assert_eq!(
        texts(&c),
        [
            "Its reservation is at +3 s on c0: the earliest time its 2 processors are free for its estimated 10 s, given the running jobs' estimates and the reservations of the 1 job queued before it.",
            "Its reservation is at +23 s on c0: the earliest time its 1 processor is free for its estimated 10 s, given the running jobs' estimates and the reservations of the 2 jobs queued before it.",
        ]
    );
}

/// Two sites of 4 under the grid's approach 1: gangs 1 (until 10) and 2
/// (until 20) take a site each; gangs 3 and 4 (at 1) find no idle site
/// but a site of empty queues each, and wait there for its processors
/// (3 starts at 10, 4 at 20); gang 5 (at 2) finds neither and waits in
/// the grid queue (it starts at 15).
#[test]
fn the_grid_says_which_queue_holds_a_gang() {
    let text = r#"
name = "gangs"
[platform]
shape = "2x4"
[workload]
kind = "jobs"
jobs = [
  { id = 1, submit = 0, size = 4, runtime = 10 },
  { id = 2, submit = 0, size = 4, runtime = 20 },
  { id = 3, submit = 1, size = 4, runtime = 5 },
  { id = 4, submit = 1, size = 4, runtime = 5 },
  { id = 5, submit = 2, size = 4, runtime = 5 },
]
[policy]
name = "grid-1"
[estimates]
source = "trace"
"#;
    let sc = Scenario::parse(text, "gangs", Path::new("."), &[]).expect("scenario");
    let s = explain(&sc, sc.seed(), &[(3, 1.0), (4, 1.0), (5, 2.0)]).expect("run");
    assert_eq!(
        texts(&s),
        [
            "A gang of 4: one task waits in each of 4 processor queues of c1; it starts when all 4 of those processors are free, and 4 still run jobs.",
            "A gang of 4: one task waits in each of 4 processor queues of c0; it starts when all 4 of those processors are free, and 4 still run jobs.",
            "A gang of 4 in the grid queue (1st of 1): no site has 4 processors idle (0 on c0, 0 on c1) or 4 empty queues (0 on c0, 0 on c1). The grid queue is searched, largest gang first, when a processor's queue empties.",
        ]
    );
}

/// teach-reservations (its comment works the schedule out): job 1 holds
/// p0-p3 until 30 and graph 2000000000's reservation p4-p7 until 21.99,
/// so job 2 (2 wide) finds nothing free and unreserved at 6; job 4 waits
/// behind it under FCFS; at 31 job 5 is held in the second reservation
/// (30 to 65), on p1 from 32.
#[test]
fn ar_says_what_holds_each_job() {
    let s = said(
        "scenarios/teach-reservations.toml",
        &[],
        &[(2, 6.0), (4, 21.0), (5, 31.0)],
    );
    assert_eq!(
        texts(&s),
        [
            "An independent job, FCFS around the reservations: it needs 2 processors free from now to its estimated end +10 s, and 0 are (the rest run jobs or are reserved for task graphs).",
            "FCFS keeps the independent jobs in order: it waits behind job 2, which does not fit around the reservations.",
            "A reservation holds it: it starts at +1 s on processor 1 (the reservation runs from now to +34 s).",
        ]
    );
}

/// teach-folding: at 70.5 job 10 (a short job) heads the queue with no
/// processor free and its reservation at 70.73, when job 9's window
/// expires (not yet); under FIFO at 40 job 7 waits behind job 2, which
/// needs its largest size, 60 processors, until 69.35.
#[test]
fn the_moldable_policies_say_sizes_and_windows() {
    let s = said("scenarios/teach-folding.toml", &[], &[(10, 70.5)]);
    assert_eq!(
        s[0].text,
        "It is the head and does not fit: a short job starts at its smallest size, 1 process, and 0 are free. It holds the reservation at the shadow time +0.2 s. No backfilled job's window has expired, so there is nothing to make room by folding."
    );
    let fifo = said(
        "scenarios/teach-folding.toml",
        &["policy.name=fifo"],
        &[(7, 40.0)],
    );
    assert_eq!(
        fifo[0].text,
        "FIFO starts jobs in arrival order without backfilling: it waits behind the head, job 2."
    );
}

#[test]
fn jobs_not_queued_say_where_they_are() {
    let s = said(
        "scenarios/teach-backfill.toml",
        &[],
        &[(2, 30.0), (99, 3.0), (1, 3.0)],
    );
    let states: Vec<&str> = s.iter().map(|s| s.state).collect();
    assert_eq!(states, ["ended", "absent", "running"]);
    assert_eq!(s[0].text, "ended at 5 s (it started at 0 s)");
    assert!(s.iter().all(|s| s.verdict.is_none()));
}
