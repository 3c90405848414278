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
}
