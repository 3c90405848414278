use super::*;

/// One cluster of 2 under FCFS at 1 s: jobs 1 and 2 run, 3 to 9 wait.
fn seven_queued() -> Engine {
    let jobs: Vec<JobSpec> = (1..=9).map(|i| job(i, 0, &[1], 100)).collect();
    let mut e = Engine::new(
        Platform::uniform(1, 2),
        Box::new(jobs.into_iter()),
        &PolicySpec::fcfs(),
        EngineConfig::default(),
    )
    .unwrap();
    e.step_until(SimTime::from_secs(1));
    e
}

fn rows(s: &EngineSnapshot) -> Vec<(usize, u64)> {
    s.queue.rows().map(|(i, r)| (i, r.id)).collect()
}

#[test]
fn a_window_carries_its_rows_the_head_and_a_watched_job() {
    let e = seven_queued();
    let whole = e.snapshot();
    assert_eq!(rows(&whole), (3..=9).enumerate().collect::<Vec<_>>());
    assert_eq!(
        whole.queue,
        QueueSlice::whole(whole.queue.iter().cloned().collect()),
        "a whole queue carries no separate head"
    );
    let window = QueueWindow { from: 2, rows: 3 };
    let part = e.snapshot_window(window, None);
    assert_eq!(rows(&part), [(2, 5), (3, 6), (4, 7)]);
    assert_eq!(part.queue.len(), 7);
    assert_eq!(
        part.queue.first().map(|r| r.id),
        Some(3),
        "the head, whatever the window"
    );
    assert!(part.queue.find(9).is_none());
    // A job watched outside the window comes with its position.
    let watched = e.snapshot_window(window, Some(9));
    assert_eq!(watched.queue.find(9).map(|(i, r)| (i, r.id)), Some((6, 9)));
    assert_eq!(rows(&watched), rows(&part));
    // One inside the window is one of its rows, not carried twice.
    assert_eq!(e.snapshot_window(window, Some(6)).queue, part.queue);
    // A window of no rows, or past the end, still carries the head.
    let none = e.snapshot_window(QueueWindow { from: 0, rows: 0 }, None);
    assert_eq!(none.queue.window(), 0..0);
    assert_eq!(none.queue.first().map(|r| r.id), Some(3));
    let past = e.snapshot_window(QueueWindow { from: 50, rows: 3 }, None);
    assert_eq!(past.queue.window(), 7..7);
    assert_eq!(past.queue.first().map(|r| r.id), Some(3));
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
