//! Why a queued job waits, as its policy would say it: the rule that
//! keeps it out now, with the numbers the rule used. A policy answers
//! [`Policy::explain`](super::Policy::explain) for any queued job; the
//! console shows it under the queue and in the job's detail, and
//! `schedscope run --explain JOB@TIME` prints it.
//!
//! An explanation carries a [`Verdict`] as well as its text: whether the
//! policy, deciding now, would start the job. Tests hold the verdict
//! against what the policy in fact decides at that instant.

use super::{Assignment, JobKey, SystemView};
use crate::model::{ClusterIdx, SimTime};
use serde::Serialize;

/// Whether the policy, deciding now, starts the job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// It fits the policy's rule now: it starts at this decision point,
    /// or, asked after the policy has decided, at its next one.
    Starts,
    /// It waits; the text says which rule keeps it.
    Waits,
    /// The policy gives no reasons of its own (an external scheduler, a
    /// policy that does not say): the text says what is known.
    Unknown,
}

impl Verdict {
    /// The word shown before the text.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Starts => "would start now",
            Verdict::Waits => "waits",
            Verdict::Unknown => "queued",
        }
    }
}

/// A policy's reason for a queued job, in one or two sentences.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Explanation {
    pub verdict: Verdict,
    pub text: String,
}

impl Explanation {
    pub fn starts(text: impl Into<String>) -> Explanation {
        Explanation {
            verdict: Verdict::Starts,
            text: text.into(),
        }
    }

    pub fn waits(text: impl Into<String>) -> Explanation {
        Explanation {
            verdict: Verdict::Waits,
            text: text.into(),
        }
    }

    pub fn unknown(text: impl Into<String>) -> Explanation {
        Explanation {
            verdict: Verdict::Unknown,
            text: text.into(),
        }
    }
}

/// A duration as a sentence says it: whole seconds bare (`412 s`), else
/// one decimal (`2.5 s`); from an hour on in hours and minutes (`2 h 5
/// min`), from a day on in days and hours (`628 d 16 h`).
pub fn span(d: SimTime) -> String {
    let s = d.as_secs_f64();
    if s.abs() >= 3600.0 && s.is_finite() {
        let whole = s.abs().round() as u64;
        let sign = if s < 0.0 { "-" } else { "" };
        return if whole >= 86_400 {
            format!("{sign}{} d {} h", whole / 86_400, whole % 86_400 / 3600)
        } else {
            format!("{sign}{} h {} min", whole / 3600, whole % 3600 / 60)
        };
    }
    if s.fract() == 0.0 {
        format!("{} s", s as i64)
    } else {
        format!("{s:.1} s")
    }
}

/// A time ahead of `now`, as `+412 s` (or `now`).
pub fn ahead(now: SimTime, t: SimTime) -> String {
    if t <= now {
        "now".to_string()
    } else {
        format!("+{}", span(SimTime(t.0 - now.0)))
    }
}

/// Counts per cluster as a list: `3, 2, 0 and 1`.
pub fn counts(free: &[u32]) -> String {
    let parts: Vec<String> = free.iter().map(u32::to_string).collect();
    counts_of(&parts)
}

/// What a job asks for: `16 processors as 4+4+4+4` or `6 processors`.
pub fn asks(view: &SystemView<'_>, job: JobKey) -> String {
    let j = view.job(job);
    let widths = j.widths(view.platform);
    if widths.len() > 1 {
        let w: Vec<String> = widths.iter().map(u32::to_string).collect();
        format!(
            "{} processors as {} on {} clusters",
            j.size,
            w.join("+"),
            widths.len()
        )
    } else {
        format!("{} processor{}", j.size, if j.size == 1 { "" } else { "s" })
    }
}

/// What is free now: `free: 3, 2, 0 and 1` on several clusters, `3 free`
/// on one.
pub fn free_now(free: &[u32]) -> String {
    if free.len() == 1 {
        format!("{} free", free[0])
    } else {
        format!("free per cluster: {}", counts(free))
    }
}

/// Where an assignment puts a job: `on c1` or `on c1 (4) and c2 (2)`.
pub fn on_clusters(view: &SystemView<'_>, assignment: &Assignment) -> String {
    let name = |c: ClusterIdx| {
        view.platform
            .clusters
            .get(c as usize)
            .map_or_else(|| format!("cluster {c}"), |c| c.name.clone())
    };
    match assignment.as_slice() {
        [] => "on the platform".to_string(),
        [(c, _)] => format!("on {}", name(*c)),
        many => {
            let parts: Vec<String> = many
                .iter()
                .map(|&(c, w)| format!("{} ({w})", name(c)))
                .collect();
            format!("on {}", counts_of(&parts))
        }
    }
}

fn counts_of(parts: &[String]) -> String {
    match parts.len() {
        0 => String::new(),
        1 => parts[0].clone(),
        n => format!("{} and {}", parts[..n - 1].join(", "), parts[n - 1]),
    }
}

/// A job's place in the queue: `3rd of 10 in the queue`.
pub fn place(view: &SystemView<'_>, job: JobKey) -> String {
    let pos = view
        .queue
        .iter()
        .position(|&k| k == job)
        .map_or(0, |i| i + 1);
    format!("{} of {} in the queue", ordinal(pos), view.queue.len())
}

/// A count with its noun: `1 process`, `2 processes`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Runs of consecutive numbers in `ids` (in order, each once) as
/// `first-last` (`first` alone for a run of one), joined by `sep`:
/// `0-3, 5, 7-8` with `", "`.
pub fn runs(ids: &[u32], sep: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            ids[i].to_string()
        } else {
            format!("{}-{}", ids[i], ids[j])
        });
        i = j + 1;
    }
    parts.join(sep)
}

/// `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`.
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// What any policy can say of a queued job without a rule of its own: its
/// place in the queue and what it asks for against what is free.
pub fn generic(view: &SystemView<'_>, job: JobKey) -> Explanation {
    Explanation::unknown(format!(
        "{}; it asks for {} ({}). This policy gives no reasons of its own.",
        place(view, job),
        asks(view, job),
        free_now(view.free)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_a_sentence_says_them() {
        assert_eq!(span(SimTime::from_secs(412)), "412 s");
        assert_eq!(span(SimTime::from_secs_f64(2.5)), "2.5 s");
        assert_eq!(
            ahead(SimTime::from_secs(10), SimTime::from_secs(130)),
            "+120 s"
        );
        assert_eq!(ahead(SimTime::from_secs(10), SimTime::from_secs(10)), "now");
        assert_eq!(span(SimTime::from_secs(3599)), "3599 s");
        assert_eq!(span(SimTime::from_secs(7500)), "2 h 5 min");
        assert_eq!(span(SimTime::from_secs(54_317_898)), "628 d 16 h");
    }

    #[test]
    fn lists_and_ordinals() {
        assert_eq!(counts(&[3, 2, 0, 1]), "3, 2, 0 and 1");
        assert_eq!(counts(&[5]), "5");
        assert_eq!(counts(&[]), "");
        let o: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            o,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"
            ]
        );
    }
}
