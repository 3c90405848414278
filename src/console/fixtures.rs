//! Hand-built snapshots for pane tests.

use super::projection::QueueSlice;
use super::snapshot::{History, Message, Snapshot, Speed};
use crate::engine::{
    BackfillView, CellView, ClusterView, Counters, EngineSnapshot, QueueRow, RunningRow,
};
use crate::metrics::{GroupBounds, Metrics};
use crate::model::{JobRecord, SimTime};
use crate::policy::Catalogued;
use crate::policy::SharedParams;
use crate::policy::{MaxJumps, PolicySpec, PolicyState};

pub const INJ1: u64 = 1_000_000_001;
pub const INJ2: u64 = 1_000_000_002;

fn s(x: i64) -> SimTime {
    SimTime::from_secs(x)
}

fn record(id: u64, arrival: u64, size: u32, submit: i64, start: i64, end: i64) -> JobRecord {
    JobRecord {
        id,
        arrival,
        submit: s(submit),
        start: s(start),
        end: s(end),
        size,
        components: vec![size],
        clusters: vec![0],
        estimate: s(end - start),
        runtime: s(end - start),
        user: None,
        injected: false,
        jumped_ahead: false,
        killed: false,
        requeues: 0,
        held: size as f64 * (end - start) as f64,
        busy: size as f64 * (end - start) as f64,
        moldable: None,
        placements: Vec::new(),
    }
}

/// Two clusters of 8 at t = 100 s under FPFS(10): job 10 co-allocated 4+4,
/// injected job 1000000001 past its estimate, three queued jobs (the head
/// jumped three times, one injected job).
pub fn snapshot() -> Snapshot {
    let cells = |ids: &[Option<u64>]| -> Vec<CellView> {
        ids.iter()
            .map(|&job| CellView {
                job,
                busy: job.is_some() as u32,
            })
            .collect()
    };
    let c0 = cells(&[
        Some(10),
        Some(10),
        Some(10),
        Some(10),
        Some(INJ1),
        Some(INJ1),
        None,
        None,
    ]);
    let c1 = cells(&[
        Some(10),
        Some(10),
        Some(10),
        Some(10),
        None,
        None,
        None,
        None,
    ]);
    let engine = EngineSnapshot {
        now: s(100),
        counters: Counters {
            events: 40,
            arrived: 9,
            started: 6,
            finished: 4,
            killed: 0,
            started_ahead: 1,
            ..Counters::default()
        },
        policy: PolicySpec::fpfs(MaxJumps::Limit(10)),
        policy_label: PolicySpec::fpfs(MaxJumps::Limit(10)).label(),
        policy_state: PolicyState::new(crate::policy::fpfs::head_panel(
            3,
            MaxJumps::Limit(10),
            &crate::sched::JobView {
                id: 20,
                size: 12,
                components: vec![6, 6],
                ..Default::default()
            },
            &[2, 4],
        )),
        estimates: "exact".into(),
        estimate_model: crate::workload::estimates::EstimateModel::exact(),
        links: Vec::new(),
        reservations: Vec::new(),
        reservations_total: 0,
        queue: QueueSlice::whole(vec![
            QueueRow {
                id: 20,
                submit: s(60),
                size: 12,
                components: vec![6, 6],
                estimate: s(50),
                injected: false,
                planned_start: None,
                graph: None,
            },
            QueueRow {
                id: 21,
                submit: s(90),
                size: 1,
                components: vec![1],
                estimate: s(5),
                injected: false,
                planned_start: None,
                graph: None,
            },
            QueueRow {
                id: INJ2,
                submit: s(99),
                size: 16,
                components: vec![8, 8],
                estimate: s(60),
                injected: true,
                planned_start: None,
                graph: None,
            },
        ]),
        running: vec![
            RunningRow {
                id: 10,
                submit: s(30),
                start: s(40),
                size: 8,
                components: vec![4, 4],
                clusters: vec![0, 1],
                estimated_end: s(140),
                estimate: s(100),
                injected: false,
                jumped_ahead: false,
                rate: 1.0,
                slowdown: None,
                graph: None,
                expired: false,
                fold: 1,
                folds: 0,
                requeues: 0,
            },
            RunningRow {
                id: INJ1,
                submit: s(50),
                start: s(50),
                size: 2,
                components: vec![2],
                clusters: vec![0],
                estimated_end: s(80),
                estimate: s(30),
                injected: true,
                jumped_ahead: false,
                rate: 1.0,
                slowdown: None,
                graph: None,
                expired: true,
                fold: 1,
                folds: 0,
                requeues: 0,
            },
        ],
        clusters: vec![
            ClusterView {
                name: "c0".into(),
                processors: 8,
                speed: 1.0,
                free: 2,
                per_cell: 1,
                cells: c0,
            },
            ClusterView {
                name: "c1".into(),
                processors: 8,
                speed: 1.0,
                free: 4,
                per_cell: 1,
                cells: c1,
            },
        ],
        backfill: None,
        done: false,
        stopped: false,
    };
    let mut metrics = Metrics::new(GroupBounds::default(), 0, 16);
    let recent = vec![
        record(1, 0, 1, 0, 0, 10),
        record(2, 1, 2, 1, 2, 22),
        record(3, 2, 5, 2, 5, 45),
        record(4, 3, 12, 3, 20, 60),
    ];
    for r in &recent {
        metrics.record(r);
    }
    Snapshot {
        engine,
        scenario: "test".into(),
        shape: "2×8".into(),
        fit: std::sync::Arc::new(super::inject_form::FitRules::new(
            crate::model::Platform::uniform(2, 8),
            None,
        )),
        seed: 7,
        speed: Speed::DEFAULT,
        paused: false,
        summary: metrics.summary(),
        warmup: (0, 0),
        history: History {
            start: 60.0,
            every: 10.0,
            utilization: vec![0.1, 0.5, 0.9, 0.75],
            queue: vec![0.0, 1.0, 4.0, 3.0],
            art: vec![0.0, 10.0, 15.0, 25.5],
        },
        events_per_sec: 0.0,
        message: Some(Message::ok("✓ injected job 1000000002")),
        recent,
        version: 1,
        twin: None,
        why: None,
        cue: None,
        cues: (0, 0),
    }
}

/// `engine` as a backfilling policy would show it: the head reserved at
/// t = 130 s with 2 extra processors on c0, the injected job backfilled.
pub fn with_backfill(mut engine: EngineSnapshot<QueueSlice>) -> EngineSnapshot<QueueSlice> {
    engine.queue.set_planned_start(0, Some(s(130)));
    engine.running[1].jumped_ahead = true;
    engine.backfill = Some(BackfillView {
        head: Some(20),
        shadow: Some(s(130)),
        extra: vec![2, 0],
        reservations: vec![(20, s(130))],
        reserved: 1,
    });
    engine.policy_state = PolicyState::default();
    engine
}
