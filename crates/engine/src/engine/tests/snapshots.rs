use super::*;
use schedscope_policies::policy::{SharedParams, names};

/// One cluster of 2 under conservative backfilling at 1 s: jobs 1 and 2
/// run, 3 to 9 wait, two by two behind them every 100 s.
fn seven_queued() -> Engine {
    let jobs: Vec<JobSpec> = (1..=9).map(|i| job(i, 0, &[1], 100)).collect();
    let mut e = Engine::new(
        Platform::uniform(1, 2),
        Box::new(jobs.into_iter()),
        &PolicySpec::named(names::CONSERVATIVE),
        EngineConfig::default(),
    )
    .unwrap();
    e.step_until(SimTime::from_secs(1));
    e
}

#[test]
fn the_read_view_gives_the_queue_in_order_and_rows_for_any_of_its_jobs() {
    let e = seven_queued();
    let read = e.read();
    let ids = |keys: &[JobKey]| -> Vec<u64> { keys.iter().map(|&k| read.job(k).id).collect() };
    assert_eq!(ids(read.queue()), (3..=9).collect::<Vec<_>>());
    let mut running = ids(read.running());
    running.sort_unstable();
    assert_eq!(running, [1, 2]);
    // Rows for a few queued jobs, in the order asked, each with the start
    // the policy plans for it.
    let q = read.queue();
    let (rows, plan) = read.queue_rows(&[q[4], q[0]]);
    let planned = |rows: &[QueueRow]| -> Vec<(u64, Option<SimTime>)> {
        rows.iter().map(|r| (r.id, r.planned_start)).collect()
    };
    let at = |t| Some(SimTime::from_secs(t));
    assert_eq!(planned(&rows), [(7, at(300)), (3, at(100))]);
    let plan = plan.expect("a plan");
    assert_eq!(plan.reserved, 7, "every queued job holds a reservation");
    assert_eq!(plan.reservations.len(), 2, "listed only for the rows asked");
    // The whole picture carries the rows of the whole queue.
    let whole = e.snapshot();
    assert_eq!(whole.queue, read.queue_rows(q).0);
    assert_eq!(planned(&whole.queue[6..]), [(9, at(400))]);
    // A picture carries the queue as its reader chooses, the rest alike.
    let some = read.picture(rows.len(), None);
    assert_eq!((some.queue, &some.running), (2, &whole.running));
}

#[test]
fn a_job_has_expired_once_it_runs_past_its_estimated_end_not_at_it() {
    let mut long = job(1, 0, &[2], 10);
    long.estimate = Some(SimTime::from_secs(5));
    let mut e = Engine::new(
        Platform::uniform(1, 2),
        Box::new(vec![long].into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    let mut expired_at = |t: i64| {
        e.step_until(SimTime::from_secs(t));
        let s = e.snapshot();
        assert_eq!(s.running[0].estimated_end, SimTime::from_secs(5));
        s.running[0].expired
    };
    assert!(!expired_at(4));
    assert!(!expired_at(5), "at its estimated end it has not expired");
    assert!(expired_at(6));
}

#[test]
fn a_big_cluster_is_drawn_several_processors_to_a_cell() {
    // 1,024 processors, 4 to a cell; job 1 on processors 0 to 5, job 2
    // on 6 and 7.
    let mut e = Engine::new(
        Platform::uniform(1, 1024),
        Box::new(vec![job(1, 0, &[6], 10), job(2, 0, &[2], 10)].into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    e.step_until(SimTime::from_secs(1));
    let s = e.snapshot();
    let c = &s.clusters[0];
    assert_eq!((c.per_cell, c.cells.len(), c.free), (4, 256, 1016));
    let cell = |job, busy| CellView { job, busy };
    assert_eq!(
        c.cells[..3],
        [cell(Some(1), 4), cell(Some(1), 4), cell(None, 0)]
    );
    assert!(c.cells[2..].iter().all(|x| *x == CellView::default()));
}
