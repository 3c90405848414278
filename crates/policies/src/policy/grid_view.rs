//! The two-site grid's state as the console shows it: one row per site
//! with a mark per processor (its queue depth; `■` busy with an empty
//! queue, `·` idle and empty; cells headed by a gang waiting for its other
//! processors in the head colour), the grid queue with its gangs' sizes,
//! the gangs waiting on processor queues, and the gangs running split
//! across sites.

use crate::model::Platform;
use crate::sched::{Assignment, Panel, PanelLine, PanelLines, Tone};
use serde::Serialize;

/// What the two-site grid shows the console.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GridStateView {
    /// Per site (cluster), per processor.
    pub sites: Vec<Vec<GridProcView>>,
    /// Gangs in the grid queue (id, tasks), in arrival order.
    pub grid_queue: Vec<(u64, u32)>,
    /// Gangs on processor queues waiting for all their processors: (id,
    /// tasks per site).
    pub waiting: Vec<(u64, Assignment)>,
    /// Running gangs split over sites: (id, tasks per site).
    pub split: Vec<(u64, Assignment)>,
}

/// One processor of the two-site grid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GridProcView {
    /// The job it runs.
    pub running: Option<u64>,
    /// Jobs in its queue.
    pub depth: u32,
    /// The job heading its queue, and whether it is a gang (waiting for its
    /// other processors).
    pub head: Option<(u64, bool)>,
}

impl GridStateView {
    /// What the console shows, in three quarters of the head pane at most.
    pub fn panel(&self, platform: &Platform) -> Panel {
        let name = |c: u16| {
            platform
                .clusters
                .get(c as usize)
                .map_or(c.to_string(), |v| v.name.clone())
        };
        let per_site = |a: &Assignment| {
            a.iter()
                .map(|&(c, w)| format!("{} {w}", name(c)))
                .collect::<Vec<_>>()
                .join(" + ")
        };
        let mut out = Vec::new();
        for (s, procs) in self.sites.iter().enumerate() {
            let busy = procs.iter().filter(|p| p.running.is_some()).count();
            let queued: u32 = procs.iter().map(|p| p.depth).sum();
            let gang_headed = procs
                .iter()
                .filter(|p| matches!(p.head, Some((_, true))))
                .count();
            let mut line = PanelLine::of(format!("{:<4}", name(s as u16)), Tone::Plain);
            for p in procs {
                let (glyph, tone) = match (p.depth, p.head, p.running) {
                    (0, _, Some(_)) => ("■".to_string(), Tone::Good),
                    (0, _, None) => ("·".to_string(), Tone::Dim),
                    (d, Some((_, true)), _) => (depth(d), Tone::Head),
                    (d, _, _) => (depth(d), Tone::Plain),
                };
                line = line.then(glyph, tone);
            }
            out.push(line.then(
                format!(
                    " {busy}/{} busy, {queued} queued, {gang_headed} gang-headed",
                    procs.len()
                ),
                Tone::Dim,
            ));
        }
        let gangs: Vec<String> = self.grid_queue.iter().map(|(_, n)| n.to_string()).collect();
        out.push(if gangs.is_empty() {
            PanelLine::of("grid queue empty", Tone::Dim)
        } else {
            PanelLine::of(format!("grid queue {}: sizes ", gangs.len()), Tone::Plain)
                .then(gangs.join(" "), Tone::Head)
        });
        for (id, a) in &self.waiting {
            out.push(
                PanelLine::of("waits ", Tone::Plain)
                    .then(format!("{id}"), Tone::Job(*id))
                    .then(format!(" on queues: {}", per_site(a)), Tone::Plain),
            );
        }
        for (id, a) in &self.split {
            out.push(
                PanelLine::of("split ", Tone::Plain)
                    .then(format!("{id}"), Tone::Job(*id))
                    .then(format!(": {}", per_site(a)), Tone::Plain),
            );
        }
        Panel {
            title: Some("grid queues".into()),
            lines: PanelLines {
                lines: out,
                keep: 0,
                more: "… {} more lines".into(),
                share: 75,
            },
            ..Panel::default()
        }
    }
}

/// A queue depth in one cell: 1–9, then `+`.
fn depth(d: u32) -> String {
    if d <= 9 { d.to_string() } else { "+".into() }
}
