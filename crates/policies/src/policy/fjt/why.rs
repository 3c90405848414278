//! Why a job starts or waits under FIFO and the FJT policies: the
//! decision point run on a copy, told in the paper's words.

use super::{Backfill, Fjt, paper_label};
use crate::policy::{JobKey, JobView, Start, StartKind};
use crate::sched::explain;
use crate::sched::{Explanation, SystemView};

impl Fjt {
    /// The paper's name of this policy.
    pub(super) fn label(&self) -> &'static str {
        paper_label(self.spec.name).unwrap_or("FJT")
    }

    /// Why `key` starts or waits, the decision point just run on `self`
    /// (a copy) having started `starts`.
    pub(super) fn explain_after(
        &self,
        view: &SystemView<'_>,
        key: JobKey,
        starts: &[Start],
    ) -> Explanation {
        let job = view.job(key);
        if let Some(s) = starts.iter().find(|s| s.job == key) {
            let held: u32 = s.assignment.iter().map(|&(_, w)| w).sum();
            let sized = match s.processes {
                Some(p) if p > held => format!("{p} processes folded on {held} processors"),
                Some(p) => format!("{p} processes"),
                None => format!("{held} processors"),
            };
            return Explanation::starts(format!(
                "{}, sized to {sized}: {}",
                if s.kind == StartKind::Head {
                    "it fits in arrival order"
                } else {
                    "it is backfilled without delaying the head"
                },
                explain::on_clusters(view, &s.assignment)
            ));
        }
        let free = crate::policy::backfill::free_after(view, starts);
        let total: u32 = free.iter().sum();
        let Some(&head_key) = view
            .queue
            .iter()
            .find(|&&k| starts.iter().all(|s| s.job != k))
        else {
            return explain::generic(view, key);
        };
        let name = self.label();
        let needs = |j: &JobView| match &j.app {
            None => format!("it needs {} processors", j.size),
            Some(app) if self.fifo => format!(
                "{name} starts it at its largest size, {}",
                explain::plural(app.largest() as u64, "process", "processes")
            ),
            Some(app) if app.long => format!(
                "a long job starts with at least {} processes, folded at most {} to a processor: {}",
                self.long_min(j),
                self.mpl(j),
                explain::plural(self.need(j) as u64, "processor", "processors")
            ),
            Some(_) => format!(
                "a short job starts at its smallest size, {}",
                explain::plural(self.need(j) as u64, "process", "processes")
            ),
        };
        if head_key == key {
            let mut text = format!(
                "It is the head and does not fit: {}, and {total} are free.",
                needs(job)
            );
            if let Some((_, shadow, _)) = self.plan.filter(|p| p.0 == job.id) {
                text.push_str(&format!(
                    " It holds the reservation at the shadow time {}.",
                    explain::ahead(view.now, shadow)
                ));
            }
            if self.backfill != Backfill::No {
                let expired: Vec<String> = self
                    .expired(view)
                    .iter()
                    .map(|&k| view.job(k).id.to_string())
                    .collect();
                let act = if self.backfill == Backfill::Abort {
                    "aborting"
                } else {
                    "folding"
                };
                text.push_str(&if expired.is_empty() {
                    format!(" No backfilled job's window has expired, so there is nothing to make room by {act}.")
                } else {
                    format!(
                        " The windows of backfilled jobs {} have expired, but {act} them would not make room.",
                        expired.join(", ")
                    )
                });
            }
            return Explanation::waits(text);
        }
        let head = view.job(head_key).id;
        let Some((_, shadow, extra)) = self.plan else {
            return Explanation::waits(format!(
                "{name} starts jobs in arrival order without backfilling: it waits behind the head, job {head}."
            ));
        };
        let Some((p, a)) = self.place(view.platform, job, &free, 1) else {
            return Explanation::waits(format!(
                "It does not fit the {total} free processors at any size it allows, one process to a processor ({}).",
                needs(job)
            ));
        };
        let held: u32 = a.iter().map(|&(_, w)| w).sum();
        let end = view.now.saturating_add(Self::expected(view, job, p, &a));
        Explanation::waits(format!(
            "Backfilling it would delay the head, job {head}: sized to the {held} free processors its estimated end {} is after the shadow time {}, and only {extra} processors are extra then.",
            explain::ahead(view.now, end),
            explain::ahead(view.now, shadow)
        ))
    }
}
