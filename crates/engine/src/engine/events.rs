//! The event queue: a binary heap keyed by `(time, class, sequence)`.
//!
//! The class orders simultaneous events (completions, then estimate
//! expiries, then arrivals, then commands) and the sequence number makes
//! every remaining tie first-scheduled, first-out, so a run is the same bit
//! for bit every time. Commands come last so that a command applied
//! interactively at time t (after the engine has handled everything at t)
//! and the same command replayed from a timeline see the same state.

use crate::model::SimTime;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// What an event does when its time comes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A running job's work is done (if `stamp` is still the job's: stamps
    /// are unique across the run, so the event cannot reach a job that
    /// later takes the same slot).
    Completion { job: usize, stamp: u64 },
    /// A running job reaches the end of its estimate (same rule).
    EstimateExpiry { job: usize, stamp: u64 },
    /// The workload's next job arrives.
    Arrival,
    /// The policy asked to decide again at this time: a reservation comes
    /// due when nothing else happens.
    Wake,
    /// An entry of the command timeline is due.
    Command { index: usize },
}

impl EventKind {
    /// Handling order among events at the same instant.
    pub fn class(&self) -> u8 {
        match self {
            EventKind::Completion { .. } => 0,
            EventKind::EstimateExpiry { .. } => 1,
            EventKind::Arrival => 2,
            EventKind::Wake => 3,
            EventKind::Command { .. } => 4,
        }
    }

    pub fn is_command(&self) -> bool {
        matches!(self, EventKind::Command { .. })
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub time: SimTime,
    pub seq: u64,
    pub kind: EventKind,
}

impl Event {
    fn key(&self) -> (SimTime, u8, u64) {
        (self.time, self.kind.class(), self.seq)
    }
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

#[derive(Default, Debug)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<Event>>,
    next_seq: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: SimTime, kind: EventKind) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Reverse(Event { time, seq, kind }));
    }

    pub fn pop(&mut self) -> Option<Event> {
        self.heap.pop().map(|Reverse(e)| e)
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse(e)| e.time)
    }

    pub fn peek(&self) -> Option<&Event> {
        self.heap.peek().map(|Reverse(e)| e)
    }

    /// Keeps only the events for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&Event) -> bool) {
        self.heap.retain(|Reverse(e)| keep(e));
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// Stale job events that may wait in the queue before a sweep: more than
/// this many, and more than the live events, and they are swept out.
const STALE_SWEEP: usize = 4096;

/// The engine's agenda: the event queue (which it derefs to), with the
/// stamps that tie a job's events to its current run and the count of
/// job events gone stale since.
#[derive(Debug)]
pub(super) struct Agenda {
    queue: EventQueue,
    /// The next job-event stamp (0 is never given out).
    next_stamp: u64,
    /// Job events in the queue whose job has ended or was rescheduled
    /// since: dropped when they come up, and swept out of the queue when
    /// they are many (rate changes and kills leave them behind).
    stale: usize,
}

impl Default for Agenda {
    fn default() -> Self {
        Agenda {
            queue: EventQueue::default(),
            next_stamp: 1,
            stale: 0,
        }
    }
}

impl std::ops::Deref for Agenda {
    type Target = EventQueue;

    fn deref(&self) -> &EventQueue {
        &self.queue
    }
}

impl std::ops::DerefMut for Agenda {
    fn deref_mut(&mut self) -> &mut EventQueue {
        &mut self.queue
    }
}

impl Agenda {
    /// A job-event stamp unique across the run.
    pub(super) fn stamp(&mut self) -> u64 {
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        stamp
    }

    /// `n` job events in the queue went stale. Once stale events are many,
    /// every job event whose (slot, stamp) `live` does not own is swept out.
    pub(super) fn forget(&mut self, n: usize, live: impl Fn(usize, u64) -> bool) {
        self.stale += n;
        if self.stale > STALE_SWEEP && self.stale * 2 > self.queue.len() {
            self.queue.retain(|e| match e.kind {
                EventKind::Completion { job, stamp } | EventKind::EstimateExpiry { job, stamp } => {
                    live(job, stamp)
                }
                _ => true,
            });
            self.stale = 0;
        }
    }

    /// A stale job event came up and was dropped.
    pub(super) fn dropped(&mut self) {
        self.stale = self.stale.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_break_by_class_then_sequence() {
        let mut q = EventQueue::default();
        let t = SimTime::from_secs(5);
        q.push(t, EventKind::Arrival);
        q.push(t, EventKind::Completion { job: 1, stamp: 0 });
        q.push(SimTime::from_secs(1), EventKind::Arrival);
        q.push(t, EventKind::Completion { job: 2, stamp: 0 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| e.kind).collect();
        assert_eq!(
            order,
            vec![
                EventKind::Arrival,
                EventKind::Completion { job: 1, stamp: 0 },
                EventKind::Completion { job: 2, stamp: 0 },
                EventKind::Arrival,
            ]
        );
    }

    /// Equality agrees with the order (as `Ord` requires of `Eq`): two
    /// events are equal only with the same time, class and sequence.
    #[test]
    fn events_are_equal_exactly_when_their_keys_are() {
        let e = |time: i64, seq: u64, kind: EventKind| Event {
            time: SimTime::from_secs(time),
            seq,
            kind,
        };
        let a = e(5, 1, EventKind::Arrival);
        assert_eq!(a, e(5, 1, EventKind::Arrival));
        for b in [
            e(6, 1, EventKind::Arrival),
            e(5, 2, EventKind::Arrival),
            e(5, 1, EventKind::Wake),
        ] {
            assert_ne!(a, b);
            assert_ne!(a.cmp(&b), Ordering::Equal);
        }
    }

    #[test]
    fn many_equal_events_leave_first_in_first_out_and_classes_in_order() {
        let mut q = EventQueue::default();
        let t = SimTime::from_secs(7);
        // 200 events at one instant, pushed with the classes interleaved:
        // a heap gives equal keys back in no particular order, so the
        // sequence number is what keeps them in push order.
        let mut pushed = Vec::new();
        for i in 0..200usize {
            let kind = match i % 5 {
                0 => EventKind::Command { index: i },
                1 => EventKind::Wake,
                2 => EventKind::Arrival,
                3 => EventKind::EstimateExpiry {
                    job: i,
                    stamp: i as u64,
                },
                _ => EventKind::Completion {
                    job: i,
                    stamp: i as u64,
                },
            };
            q.push(t, kind);
            pushed.push(kind);
        }
        // Some stale ones swept out on the way, as the engine does.
        q.retain(|e| !matches!(e.kind, EventKind::Completion { job, .. } if job % 10 == 4));
        pushed.retain(|k| !matches!(k, EventKind::Completion { job, .. } if job % 10 == 4));
        let mut want = pushed.clone();
        want.sort_by_key(|k| k.class()); // stable: push order within a class
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| e.kind).collect();
        assert_eq!(got.len(), 180);
        assert_eq!(got, want);
        assert!(q.is_empty());
    }

    #[test]
    fn a_command_comes_after_everything_else_at_its_instant_and_before_later_events() {
        let mut q = EventQueue::default();
        let t = SimTime::from_secs(3);
        q.push(t, EventKind::Command { index: 0 });
        q.push(
            SimTime::from_secs(4),
            EventKind::Completion { job: 0, stamp: 0 },
        );
        q.push(t, EventKind::Wake);
        q.push(t, EventKind::Completion { job: 1, stamp: 1 });
        q.push(SimTime::from_secs(2), EventKind::Command { index: 1 });
        let got: Vec<_> = std::iter::from_fn(|| q.pop())
            .map(|e| (e.time.0 / 1_000_000, e.kind))
            .collect();
        assert_eq!(
            got,
            vec![
                (2, EventKind::Command { index: 1 }),
                (3, EventKind::Completion { job: 1, stamp: 1 }),
                (3, EventKind::Wake),
                (3, EventKind::Command { index: 0 }),
                (4, EventKind::Completion { job: 0, stamp: 0 }),
            ]
        );
    }
}
