//! Advance reservations over time, for the head & backfill pane under the
//! reservation scheduler: one row per reserved processor from now to a
//! horizon, the graphs' subtasks (`█`) and the independent jobs backfilled
//! into the gaps (`▓`) in their jobs' colours, idle reserved time (`░`)
//! dim; and what the scheduler has done so far. The processor map marks
//! the same processors now (see [`at_now`]).

use super::Ctx;
use crate::console::format::{int, short};
use crate::console::snapshot::Snapshot;
use crate::model::{ClusterIdx, SimTime};
use crate::sched::{ReservationPlanView, ReservationView, ReservedBlock};
use ratatui::text::{Line, Span};

/// A graph's subtask inside a reservation.
pub const GRAPH: char = '█';
/// An independent job backfilled into a reservation's gap.
pub const BACKFILL: char = '▓';
/// Reserved, idle.
pub const GAP: char = '░';

/// What a reserved processor does now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Now {
    /// A graph job's subtask runs on it.
    Graph(u64),
    /// A backfilled job runs on it.
    Backfill(u64),
    /// Reserved and idle.
    Idle,
}

/// The reservation plan, if the policy keeps one.
pub fn plan(snap: &Snapshot) -> Option<&ReservationPlanView> {
    snap.engine.policy_state.panel.plan.as_deref()
}

/// The processors of `cluster` inside an active reservation now, with
/// what each does: (processor, state), lowest first.
pub fn at_now(snap: &Snapshot, cluster: ClusterIdx) -> Vec<(u32, Now)> {
    let now = snap.engine.now;
    let blocks: &[ReservedBlock] = plan(snap).map_or(&[], |p| &p.blocks);
    let mut out: Vec<(u32, Now)> = snap
        .engine
        .reservations
        .iter()
        .filter(|r| r.cluster == cluster && r.start <= now && now < r.finish)
        .flat_map(|r| r.processors.iter().copied())
        .map(|p| {
            let b = blocks
                .iter()
                .find(|b| b.processor == p && b.start <= now && now < b.end);
            let state = match b {
                Some(b) if b.graph => Now::Graph(b.job),
                Some(b) => Now::Backfill(b.job),
                None => Now::Idle,
            };
            (p, state)
        })
        .collect();
    out.sort_by_key(|&(p, _)| p);
    out.dedup_by_key(|&mut (p, _)| p);
    out
}

/// The summary lines: counts so far and the next request.
pub fn summary(p: &ReservationPlanView, snap: &Snapshot, ctx: &Ctx) -> Vec<Line<'static>> {
    let now = snap.engine.now;
    let mut lines = vec![Line::raw(format!(
        "{} reservations · {} graphs · {} backfilled",
        int(p.reservations),
        int(p.graphs),
        int(p.backfilled)
    ))];
    if p.reservations > 0 {
        lines.push(Line::styled(
            format!(
                "interweaving −{:.1} % · backfill {} proc-s",
                p.reduction_pct_sum / p.reservations as f64,
                short(p.backfill_secs)
            ),
            ctx.dim(),
        ));
    }
    let mut next = vec![Span::raw(format!(
        "{} graph{} wait",
        int(p.waiting_graphs as u64),
        if p.waiting_graphs == 1 { "" } else { "s" }
    ))];
    if let Some(t) = p.next_request {
        next.push(Span::raw(" · next request "));
        next.push(Span::styled(
            format!("+{} s", short((t - now).as_secs_f64().max(0.0))),
            ctx.head(),
        ));
    }
    lines.push(Line::from(next));
    lines
}

/// The end of the time axis for the reservations `shown`: their latest
/// finish after now (None when there is none).
pub fn horizon(shown: &[&ReservationView], now: SimTime) -> Option<f64> {
    shown
        .iter()
        .map(|r| (r.finish - now).as_secs_f64())
        .filter(|&d| d > 0.0)
        .reduce(f64::max)
}

/// The reservations that get rows when `room` rows are left: whole
/// reservations, earliest first (a first one taller than `room` is cut).
pub fn fitting(snap: &Snapshot, room: usize) -> Vec<&ReservationView> {
    let mut used = 0;
    let mut out = Vec::new();
    for r in &snap.engine.reservations {
        let rows = r.processors.len().max(1);
        if used + rows > room && !out.is_empty() {
            break;
        }
        used += rows;
        out.push(r);
        if used >= room {
            break;
        }
    }
    out
}

/// One row per processor of the reservations `shown`, at most `room`
/// rows: a label `label_w` wide, then `bar_w` columns of `scale` seconds
/// from now.
pub fn rows(
    shown: &[&ReservationView],
    snap: &Snapshot,
    ctx: &Ctx,
    label_w: usize,
    bar_w: usize,
    scale: f64,
    room: usize,
) -> Vec<Line<'static>> {
    let now = snap.engine.now;
    let blocks: &[ReservedBlock] = plan(snap).map_or(&[], |p| &p.blocks);
    let mut lines = Vec::new();
    for r in shown {
        let mut procs = r.processors.clone();
        procs.sort_unstable();
        for (i, &p) in procs.iter().enumerate() {
            if lines.len() >= room {
                return lines;
            }
            let label = if i == 0 {
                format!("#{} p{p}", r.id)
            } else {
                format!("p{p}")
            };
            let mine: Vec<&ReservedBlock> = blocks
                .iter()
                .filter(|b| b.processor == p && b.start >= r.start && b.end <= r.finish)
                .collect();
            let mut spans = vec![Span::styled(
                format!("{label:>w$} ", w = label_w.saturating_sub(1)),
                if r.active { ctx.head() } else { ctx.dim() },
            )];
            // Runs of equal cells share a span.
            let mut run: Option<(char, Option<u64>, String)> = None;
            for c in 0..bar_w {
                let from = now + SimTime::from_secs_f64(c as f64 * scale);
                let to = now + SimTime::from_secs_f64((c + 1) as f64 * scale);
                let cell = if to <= r.start || from >= r.finish {
                    (' ', None)
                } else {
                    // The block covering most of the column.
                    let best = mine
                        .iter()
                        .map(|b| (b, b.end.min(to).0 - b.start.max(from).0))
                        .filter(|&(_, d)| d > 0)
                        .max_by_key(|&(b, d)| (d, std::cmp::Reverse(b.start)));
                    match best {
                        Some((b, _)) if b.graph => (GRAPH, Some(b.job)),
                        Some((b, _)) => (BACKFILL, Some(b.job)),
                        None => (GAP, None),
                    }
                };
                match &mut run {
                    Some((g, j, s)) if *g == cell.0 && *j == cell.1 => s.push(cell.0),
                    _ => {
                        if let Some(done) = run.take() {
                            spans.push(styled(done, ctx));
                        }
                        run = Some((cell.0, cell.1, cell.0.to_string()));
                    }
                }
            }
            if let Some(done) = run.take() {
                spans.push(styled(done, ctx));
            }
            // No trailing blanks.
            while spans
                .last()
                .is_some_and(|s| s.content.chars().all(|c| c == ' '))
            {
                spans.pop();
            }
            lines.push(Line::from(spans));
        }
    }
    lines
}

fn styled((glyph, job, text): (char, Option<u64>, String), ctx: &Ctx) -> Span<'static> {
    match job {
        Some(id) => Span::styled(text, ctx.job(id)),
        None if glyph == GAP => Span::styled(text, ctx.dim()),
        None => Span::raw(text),
    }
}

/// The chart's legend.
pub fn legend() -> String {
    format!("{GRAPH} graph subtask  {BACKFILL} backfilled  {GAP} reserved, idle")
}
