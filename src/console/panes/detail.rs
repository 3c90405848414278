//! One job's detail: submit, start, estimate, actual run once ended,
//! components and clusters; on a platform with a network, a running job's
//! processing, communication and total slowdown (SP, SC, SD) and its rate.

use super::{Ctx, INJECTED, centered};
use crate::console::app::{DetailState, JobInfo};
use crate::console::format::{parts, secs};
use crate::console::snapshot::Snapshot;
use crate::model::{ClusterIdx, SimTime};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget};

pub fn render(snap: &Snapshot, d: &DetailState, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let now = snap.engine.now;
    let t = |x: SimTime| secs(x.as_secs_f64());
    let names = |cs: &[ClusterIdx]| -> String {
        cs.iter()
            .map(|&c| {
                snap.engine
                    .clusters
                    .get(c as usize)
                    .map_or(c.to_string(), |v| v.name.clone())
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut lines: Vec<Line> = Vec::new();
    let mut injected = false;
    match &d.info {
        JobInfo::Queued(q) => {
            injected = q.injected;
            lines.push(Line::styled("queued", ctx.head()));
            lines.push(Line::raw(format!("submit     {}", t(q.submit))));
            lines.push(Line::raw(format!("waited     {}", t(now - q.submit))));
            lines.push(Line::raw(format!(
                "size       {} = {}",
                q.size,
                parts(&q.components)
            )));
            lines.push(Line::raw(format!("estimate   {}", t(q.estimate))));
            if let Some(p) = q.planned_start {
                lines.push(Line::raw(format!("planned    {}", t(p))));
            }
        }
        JobInfo::Running(r) => {
            injected = r.injected;
            lines.push(Line::styled("running", ctx.good()));
            lines.push(Line::raw(format!("submit     {}", t(r.submit))));
            lines.push(Line::raw(format!(
                "start      {} (waited {})",
                t(r.start),
                t(r.start - r.submit)
            )));
            lines.push(Line::raw(format!(
                "size       {} = {}",
                r.size,
                parts(&r.components)
            )));
            lines.push(Line::raw(format!("clusters   {}", names(&r.clusters))));
            lines.push(Line::raw(format!(
                "estimate   {} → ends by {}",
                t(r.estimate),
                t(r.estimated_end)
            )));
            if let Some(s) = &r.slowdown {
                lines.push(Line::raw(format!(
                    "slowdown   SP {:.2} · SC {:.2} · SD {:.2}",
                    s.sp, s.sc, s.sd
                )));
            }
            if r.slowdown.is_some() || r.rate != 1.0 {
                lines.push(Line::raw(format!(
                    "rate       {:.3} of dedicated speed",
                    r.rate
                )));
            }
            if r.expired {
                lines.push(Line::styled(
                    "! running past its estimate (expired window)",
                    ctx.alert(),
                ));
            }
            if r.jumped_ahead {
                lines.push(Line::raw("started ahead of an earlier job"));
            }
        }
        JobInfo::Ended(r) => {
            injected = r.injected;
            lines.push(Line::styled("ended", ctx.dim()));
            lines.push(Line::raw(format!("submit     {}", t(r.submit))));
            lines.push(Line::raw(format!(
                "start      {} (waited {})",
                t(r.start),
                t(r.wait())
            )));
            lines.push(Line::raw(format!(
                "end        {} (response {})",
                t(r.end),
                t(r.response())
            )));
            lines.push(Line::raw(format!(
                "size       {} = {}",
                r.size,
                parts(&r.components)
            )));
            lines.push(Line::raw(format!("clusters   {}", names(&r.clusters))));
            lines.push(Line::raw(format!("estimate   {}", t(r.estimate))));
            lines.push(Line::raw(format!("actual     {}", t(r.elapsed()))));
        }
        JobInfo::Gone => lines.push(Line::raw("ended; its record has scrolled away")),
    }
    let title = format!(
        " Job {}{} · n next event · Esc closes ",
        if injected { INJECTED } else { "" },
        d.id
    );
    let rect = centered(area, 56, lines.len() as u16 + 2);
    Clear.render(rect, buf);
    Paragraph::new(lines)
        .block(ctx.block(title, None))
        .render(rect, buf);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::app::find_job;
    use crate::console::fixtures;
    use crate::console::panes::testing::text;

    fn draw(id: u64) -> String {
        let snap = fixtures::snapshot();
        let d = DetailState {
            id,
            info: find_job(&snap, id).unwrap(),
        };
        let area = Rect::new(0, 0, 60, 14);
        let mut buf = Buffer::empty(area);
        render(&snap, &d, &Ctx::default(), area, &mut buf);
        text(&buf)
    }

    #[test]
    fn a_job_on_a_network_shows_its_slowdown_and_rate() {
        let mut snap = fixtures::snapshot();
        let r = &mut snap.engine.running[0];
        r.slowdown = Some(crate::sched::slowdown::Slowdown {
            sp: 1.25,
            sc: 2.0,
            sd: 1.5,
        });
        r.rate = 1.0 / 1.5;
        let d = DetailState {
            id: 10,
            info: find_job(&snap, 10).unwrap(),
        };
        let area = Rect::new(0, 0, 60, 16);
        let mut buf = Buffer::empty(area);
        render(&snap, &d, &Ctx::default(), area, &mut buf);
        let t = text(&buf);
        assert!(t.contains("slowdown   SP 1.25 · SC 2.00 · SD 1.50"), "{t}");
        assert!(t.contains("rate       0.667 of dedicated speed"), "{t}");
    }

    #[test]
    fn queued_running_and_ended_jobs() {
        let t = draw(20);
        assert!(t.contains("Job 20"), "{t}");
        assert!(t.contains("queued"), "{t}");
        assert!(t.contains("size       12 = 6+6"), "{t}");
        let t = draw(10);
        assert!(t.contains("clusters   c0, c1"), "{t}");
        assert!(t.contains("ends by 140.0 s"), "{t}");
        let t = draw(fixtures::INJ1);
        assert!(t.contains("Job ◆1000000001"), "{t}");
        assert!(t.contains("expired window"), "{t}");
        assert!(!t.contains("slowdown"), "{t}");
        let t = draw(3);
        assert!(t.contains("ended"), "{t}");
        assert!(t.contains("actual     40.0 s"), "{t}");
    }
}
