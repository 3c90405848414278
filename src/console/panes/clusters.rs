//! Cluster maps: one row of processor cells per cluster, busy cells in the
//! colour of their job (a co-allocated job shows one colour in several
//! clusters), the free count at the end and the speed where clusters
//! differ (as the effective power Γ where every cluster has Γ ≤ 1). Clusters wider than the pane are drawn a cell per several
//! processors, and the title says how many.

use super::reservations::{Now, at_now};
use super::{BUSY, Ctx, FREE, INJECTED, PART};
use crate::console::app::Pane;
use crate::console::format::{fit_int, int};
use crate::console::hits::Spot;
use crate::console::snapshot::Snapshot;
use crate::engine::{CellView, ClusterView};
use crate::model::ClusterIdx;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use std::collections::HashSet;

/// Widest a free count may be drawn (`4.0 G`).
const FREE_W: usize = 5;

/// What surrounds the cells of a row.
struct Frame {
    name_w: usize,
    free_w: usize,
    speeds: bool,
    /// Speeds are effective powers Γ ≤ 1 (heterogeneous clusters): drawn
    /// as `Γ0.55` rather than `×0.6`.
    gamma: bool,
}

impl Frame {
    fn of(snap: &Snapshot) -> Frame {
        let clusters = &snap.engine.clusters;
        let name_w = clusters
            .iter()
            .map(|c| c.name.chars().count())
            .max()
            .unwrap_or(0)
            .min(12);
        let free_w = clusters
            .iter()
            .map(|c| fit_int(c.processors as u64, FREE_W).chars().count())
            .max()
            .unwrap_or(1);
        let first = clusters.first().map(|c| c.speed);
        let speeds = clusters
            .iter()
            .any(|c| Some(c.speed) != first || c.speed != 1.0);
        let gamma = speeds && clusters.iter().all(|c| c.speed <= 1.0);
        Frame {
            name_w,
            free_w,
            speeds,
            gamma,
        }
    }

    /// Columns besides the cells: name, brackets, free count and speed.
    fn extra(&self) -> usize {
        let speed = match (self.speeds, self.gamma) {
            (false, _) => 0,
            (true, false) => 5,
            (true, true) => 6,
        };
        self.name_w + 2 + 1 + 1 + self.free_w + 5 + speed
    }
}

/// The narrowest the pane is drawn: room for its title and legend.
const MIN_W: usize = 35;

/// The width the pane needs to show one cell per processor (at most 60
/// cells), and its title.
pub fn wanted_width(snap: &Snapshot) -> u16 {
    let cells = snap
        .engine
        .clusters
        .iter()
        .map(|c| c.processors as usize)
        .max()
        .unwrap_or(0)
        .min(60);
    (cells + Frame::of(snap).extra() + 2).max(MIN_W) as u16
}

/// Processors per drawn cell for `room` cells: a whole number of the
/// snapshot's cells, the same for every cluster.
fn processors_per_cell(clusters: &[ClusterView], room: usize) -> u64 {
    clusters
        .iter()
        .map(|c| c.per_cell.max(1) as u64 * (c.cells.len().div_ceil(room.max(1)).max(1)) as u64)
        .max()
        .unwrap_or(1)
}

/// One drawn cell: the job on its lowest busy processor, busy processors
/// and processors.
#[derive(Clone, Copy, Default)]
struct Drawn {
    job: Option<u64>,
    busy: u64,
    size: u64,
    /// What its first reserved processor does, if one is reserved now.
    reserved: Option<Now>,
}

/// A graph's subtask running inside a reservation now.
pub const RES_GRAPH: &str = "▣";
/// A job backfilled into a reservation, running now.
pub const RES_BACKFILL: &str = "▤";
/// A reserved processor idle now (a gap).
pub const RES_IDLE: &str = "□";

/// The snapshot's cells of `c` gathered `per` processors to a drawn cell,
/// with the processors reserved now (`reserved`, lowest first).
fn gather(c: &ClusterView, per: u64, reserved: &[(u32, Now)]) -> Vec<Drawn> {
    let n = (c.processors as u64).div_ceil(per) as usize;
    let mut out = vec![Drawn::default(); n];
    for (i, d) in out.iter_mut().enumerate() {
        d.size = per.min(c.processors as u64 - i as u64 * per);
    }
    let k = c.per_cell.max(1) as u64;
    for (j, cell) in c.cells.iter().enumerate() {
        let CellView { job, busy } = *cell;
        let d = &mut out[((j as u64 * k) / per) as usize];
        d.busy += busy as u64;
        if d.job.is_none() {
            d.job = job;
        }
    }
    for &(p, now) in reserved {
        if let Some(d) = out.get_mut((p as u64 / per) as usize) {
            match (d.reserved, now) {
                (None, _) | (Some(Now::Idle), Now::Graph(_) | Now::Backfill(_)) => {
                    d.reserved = Some(now)
                }
                _ => {}
            }
        }
    }
    out
}

/// The pane's title, as long as the width allows: the scale first.
fn title(per: u64, width: usize) -> String {
    let candidates = if per == 1 {
        vec![
            " Clusters · a cell per processor ".to_string(),
            " Clusters · cell = processor ".to_string(),
            " Clusters ".to_string(),
        ]
    } else {
        vec![
            format!(" Clusters · a cell per {} processors ", int(per)),
            format!(" Clusters · a cell per {} procs ", int(per)),
            format!(" Clusters · cell = {} procs ", fit_int(per, 6)),
            format!(" cell = {} procs ", fit_int(per, 6)),
        ]
    };
    let last = candidates.last().cloned().unwrap_or_default();
    candidates
        .into_iter()
        .find(|t| t.chars().count() + 2 <= width)
        .unwrap_or(last)
}

/// Draws the maps and returns where each processor cell went, with the
/// job running there (for the mouse).
pub fn render(snap: &Snapshot, ctx: &Ctx, area: Rect, buf: &mut Buffer) -> Vec<Spot<Option<u64>>> {
    let clusters = &snap.engine.clusters;
    let frame = Frame::of(snap);
    let room = (area.width as usize)
        .saturating_sub(2 + frame.extra())
        .max(1);
    let per = processors_per_cell(clusters, room);
    let block = ctx.block(title(per, area.width as usize), Some(Pane::Clusters));
    let inner = block.inner(area);
    block.render(area, buf);
    let marks = Marks::of(snap);
    let mut lines = Vec::new();
    let mut spots = Vec::new();
    let mut any_reserved = false;
    for (ci, c) in clusters.iter().enumerate() {
        let reserved = at_now(snap, ci as ClusterIdx);
        any_reserved |= !reserved.is_empty();
        let (line, jobs) = cluster_row(c, &reserved, &frame, per, &marks, ctx);
        if ci < inner.height as usize {
            spots.extend(cell_spots(&line, &jobs, inner, inner.y + ci as u16));
        }
        lines.push(line);
    }
    if (inner.height as usize) > clusters.len() {
        let room = (inner.height as usize) - clusters.len();
        let fold = marks.folded.values().max().copied();
        lines.extend(legend(
            per,
            fold,
            any_reserved,
            inner.width as usize,
            room,
            ctx,
        ));
    }
    ratatui::widgets::Paragraph::new(lines).render(inner, buf);
    spots
}

/// Where the cells of a cluster's `line` (drawn on row `y` of `inner`,
/// its two first spans the name and the bracket) fall, each with its
/// cell's job; a cell past the pane's edge is not on the screen.
fn cell_spots(line: &Line, jobs: &[Option<u64>], inner: Rect, y: u16) -> Vec<Spot<Option<u64>>> {
    let mut x = inner.x as usize + line.spans.iter().take(2).map(Span::width).sum::<usize>();
    let right = inner.right() as usize;
    let mut out = Vec::new();
    for (span, job) in line.spans.iter().skip(2).zip(jobs) {
        let w = span.width();
        if x + w > right {
            break;
        }
        out.push(Spot::new(Rect::new(x as u16, y, w as u16, 1), *job));
        x += w;
    }
    out
}

/// The running jobs drawn apart: injected ones, and folded ones with
/// their fold f (processes per processor).
struct Marks {
    injected: HashSet<u64>,
    folded: std::collections::HashMap<u64, u32>,
}

impl Marks {
    fn of(snap: &Snapshot) -> Marks {
        let running = &snap.engine.running;
        Marks {
            injected: running
                .iter()
                .filter(|r| r.injected)
                .map(|r| r.id)
                .collect(),
            folded: running
                .iter()
                .filter(|r| r.fold > 1)
                .map(|r| (r.id, r.fold))
                .collect(),
        }
    }
}

/// One cluster's row: its name, a cell per `per` processors (reserved
/// ones by what they do now), its free count and its speed; and the job
/// running on each cell.
fn cluster_row(
    c: &ClusterView,
    reserved: &[(u32, Now)],
    frame: &Frame,
    per: u64,
    marks: &Marks,
    ctx: &Ctx,
) -> (Line<'static>, Vec<Option<u64>>) {
    let mut spans = vec![
        Span::raw(format!(
            "{:>w$}",
            truncate(&c.name, frame.name_w),
            w = frame.name_w
        )),
        Span::styled(" ▕", ctx.dim()),
    ];
    let cells = gather(c, per, reserved);
    let jobs = cells
        .iter()
        .map(|d| match d.reserved {
            Some(Now::Graph(id) | Now::Backfill(id)) => Some(id),
            Some(Now::Idle) => None,
            None => d.job.filter(|_| d.busy > 0),
        })
        .collect();
    for d in cells {
        if let Some(now) = d.reserved {
            spans.push(match now {
                Now::Graph(id) => Span::styled(RES_GRAPH, ctx.job(id)),
                Now::Backfill(id) => Span::styled(RES_BACKFILL, ctx.job(id)),
                Now::Idle => Span::styled(RES_IDLE, ctx.fg(Color::Cyan)),
            });
            continue;
        }
        match d.job {
            Some(id) if d.busy > 0 => {
                if let Some(f) = marks.folded.get(&id) {
                    spans.push(Span::styled(fold_glyph(*f), ctx.job(id)));
                    continue;
                }
                let glyph = if marks.injected.contains(&id) {
                    INJECTED
                } else if d.busy < d.size {
                    PART
                } else {
                    BUSY
                };
                spans.push(Span::styled(glyph, ctx.job(id)));
            }
            _ => spans.push(Span::styled(FREE, ctx.dim())),
        }
    }
    spans.push(Span::styled("▏", ctx.dim()));
    let free_style = if c.free == 0 { ctx.dim() } else { ctx.good() };
    spans.push(Span::styled(
        format!(
            " {:>w$} free",
            fit_int(c.free as u64, FREE_W),
            w = frame.free_w
        ),
        free_style,
    ));
    if frame.gamma {
        spans.push(Span::raw(format!(" Γ{:.2}", c.speed)));
    } else if frame.speeds {
        spans.push(Span::raw(format!(" ×{:.1}", c.speed)));
    }
    (Line::from(spans), jobs)
}

/// What the glyphs mean, in `room` rows of `width` at most: two spaces
/// between items where they fit, else one; more lines where the rows
/// allow.
fn legend(
    per: u64,
    fold: Option<u32>,
    any_reserved: bool,
    width: usize,
    room: usize,
    ctx: &Ctx,
) -> Vec<Line<'static>> {
    let mut items: Vec<String> = if per == 1 {
        vec![
            format!("{BUSY} colour = job"),
            format!("{FREE} free"),
            format!("{INJECTED} injected"),
        ]
    } else {
        vec![
            format!("{BUSY} busy"),
            format!("{PART} partly"),
            format!("{FREE} free"),
            format!("{INJECTED} injected"),
        ]
    };
    if let Some(f) = fold {
        items.push(format!("{} folded ×f", fold_glyph(f)));
    }
    if any_reserved {
        items.extend([
            format!("{RES_GRAPH} graph"),
            format!("{RES_BACKFILL} backfilled"),
            format!("{RES_IDLE} reserved"),
        ]);
    }
    let wide = items.join("  ");
    if wide.chars().count() <= width {
        return vec![Line::styled(wide, ctx.dim())];
    }
    if !any_reserved {
        return vec![Line::styled(items.join(" "), ctx.dim())];
    }
    let mut line = String::new();
    let mut legend = Vec::new();
    for it in &items {
        let n = line.chars().count();
        if n > 0 && n + 1 + it.chars().count() > width {
            legend.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(it);
    }
    legend.push(line);
    legend
        .into_iter()
        .take(room)
        .map(|l| Line::styled(l, ctx.dim()))
        .collect()
}

/// The cell of a job folded `f` times: its fold as a digit (`+` past 9).
fn fold_glyph(f: u32) -> String {
    match f {
        2..=9 => f.to_string(),
        _ => "+".to_string(),
    }
}

fn truncate(s: &str, w: usize) -> String {
    s.chars().take(w).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::fixtures;
    use crate::console::panes::{
        job_color,
        testing::{rows, text},
    };
    use crate::engine::CellView;
    use ratatui::style::Color;

    #[test]
    fn a_co_allocated_job_has_one_colour_in_both_clusters() {
        let snap = fixtures::snapshot();
        let area = Rect::new(0, 0, 40, 5);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("a cell per processor"), "{t}");
        let r = rows(&buf);
        assert!(r[1].starts_with("│c0 ▕■■■■◆◆··▏ 2 free"), "{}", r[1]);
        assert!(r[2].starts_with("│c1 ▕■■■■····▏ 4 free"), "{}", r[2]);
        // Job 10 runs on both clusters: the same colour in each.
        let c = job_color(10);
        assert_eq!(buf[(5, 1)].fg, c);
        assert_eq!(buf[(5, 2)].fg, c);
        assert_eq!(buf[(9, 1)].fg, job_color(1_000_000_001));
        assert_eq!(buf[(11, 1)].fg, Color::DarkGray);
    }

    /// Each processor's spot is the cell drawn for it: a busy glyph in
    /// its job's colour where a job runs, the free mark where none does;
    /// a narrow pane draws (and returns) a cell per several processors.
    #[test]
    fn the_cells_returned_are_the_cells_drawn() {
        let snap = fixtures::snapshot();
        for width in [40, 12] {
            let area = Rect::new(2, 1, width, 5);
            let mut buf = Buffer::empty(Rect::new(0, 0, 50, 8));
            let spots = render(&snap, &Ctx::default(), area, &mut buf);
            let drawn = |y: u16| spots.iter().filter(|s| s.area.y == y).count();
            if width == 40 {
                assert_eq!((drawn(2), drawn(3)), (8, 8));
            } else {
                assert!(drawn(2) < 8 && drawn(2) == drawn(3), "{spots:?}");
            }
            for s in &spots {
                assert_eq!((s.area.width, s.area.height), (1, 1));
                assert!(s.area.right() < area.right(), "inside the border");
                let cell = &buf[(s.area.x, s.area.y)];
                match s.what {
                    Some(job) => {
                        assert!([BUSY, PART, INJECTED].contains(&cell.symbol()), "{s:?}");
                        assert_eq!(cell.fg, job_color(job), "{s:?}");
                    }
                    None => assert_eq!(cell.symbol(), FREE, "{s:?}"),
                }
            }
        }
    }

    #[test]
    fn speeds_show_where_clusters_differ() {
        let mut snap = fixtures::snapshot();
        snap.engine.clusters[1].speed = 1.5;
        let area = Rect::new(0, 0, 40, 5);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let r = rows(&buf);
        assert!(r[2].starts_with("│c1 ▕■■■■····▏ 4 free ×1.5"), "{}", r[2]);
    }

    #[test]
    fn effective_powers_show_as_gamma() {
        let mut snap = fixtures::snapshot();
        snap.engine.clusters[1].speed = 0.55;
        let area = Rect::new(0, 0, 40, 5);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let r = rows(&buf);
        assert!(r[1].starts_with("│c0 ▕"), "{}", r[1]);
        assert!(r[1].contains("free Γ1.00"), "{}", r[1]);
        assert!(r[2].contains("4 free Γ0.55"), "{}", r[2]);
        // Equal powers of 1: nothing to say.
        snap.engine.clusters[1].speed = 1.0;
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        assert!(!text(&buf).contains('Γ'));
    }

    #[test]
    fn big_clusters_are_scaled_and_say_so() {
        let mut snap = fixtures::snapshot();
        for c in &mut snap.engine.clusters {
            c.processors = 128;
            c.cells = vec![CellView::default(); 128];
            c.free = 128;
        }
        // Job 10 on processors 0..5 of c0: a full cell, then a partial one.
        for cell in &mut snap.engine.clusters[0].cells[..5] {
            *cell = CellView {
                job: Some(10),
                busy: 1,
            };
        }
        let area = Rect::new(0, 0, 60, 5);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("a cell per 3 processors"), "{t}");
        assert!(t.contains("c0 ▕■▪······"), "{t}");
        assert!(t.contains("▪ partly"), "{t}");
    }

    #[test]
    fn a_huge_cluster_is_drawn_from_a_few_hundred_cells() {
        let mut snap = fixtures::snapshot();
        snap.engine.clusters.truncate(1);
        let c = &mut snap.engine.clusters[0];
        c.processors = 4_000_000_000;
        c.free = 4_000_000_000 - 16;
        c.per_cell = 4_000_000_000u32.div_ceil(256);
        c.cells = vec![CellView::default(); 256];
        c.cells[0] = CellView {
            job: Some(10),
            busy: 16,
        };
        let area = Rect::new(0, 0, 60, 4);
        let mut buf = Buffer::empty(area);
        render(&snap, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("a cell per 109 375 000 processors"), "{t}");
        assert!(t.contains("c0 ▕▪·"), "{t}");
        assert!(t.contains("4.0 G free"), "{t}");
    }
}
