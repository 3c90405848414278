//! The wall-time budget the driver gives a run of events.

use std::time::{Duration, Instant};

/// Wall time for a run of events. Events cost from tens of nanoseconds (a
/// short queue) to milliseconds (a plan over a queue of tens of
/// thousands), and the cost can change within a few events (a burst of
/// arrivals into a long plan): the clock is looked at after every event
/// while they are slow, and every few while they are cheap (a look costs
/// about as much as a cheap event), so a run overshoots its time by a few
/// slow events at most.
#[derive(Debug)]
pub struct Budget {
    start: Instant,
    limit: Duration,
    /// Events between looks at the clock, and left before the next look.
    stride: u32,
    left: u32,
    events: u32,
}

impl Budget {
    pub fn new(limit: Duration) -> Budget {
        Budget {
            start: Instant::now(),
            limit,
            stride: 1,
            left: 1,
            events: 0,
        }
    }

    /// Whether another event fits in the time; true the first time.
    pub fn go_on(&mut self) -> bool {
        // Events handled so far.
        let done = self.events;
        self.events = self.events.saturating_add(1);
        self.left -= 1;
        if self.left > 0 {
            return true;
        }
        self.left = 1;
        if done == 0 {
            return true;
        }
        let spent = self.start.elapsed();
        if spent >= self.limit {
            return false;
        }
        let each = spent / done;
        self.stride = if each < Duration::from_micros(1) {
            32
        } else if each < Duration::from_micros(20) {
            4
        } else {
            1
        };
        self.left = self.stride;
        true
    }
}

#[cfg(test)]
mod budget_tests {
    use super::*;

    #[test]
    fn slow_events_are_timed_one_by_one_and_cheap_ones_in_strides() {
        let mut b = Budget::new(Duration::from_millis(20));
        let mut n = 0;
        while b.go_on() {
            n += 1;
            std::thread::sleep(Duration::from_millis(3));
        }
        assert!((1..=8).contains(&n), "{n} events of 3 ms in 20 ms");
        assert_eq!(b.stride, 1);
        let mut b = Budget::new(Duration::from_millis(2));
        let mut n = 0u64;
        while b.go_on() {
            n += 1;
        }
        assert_eq!(b.stride, 32, "cheap events");
        assert!(b.start.elapsed() < Duration::from_millis(50), "{n}");
    }
}
