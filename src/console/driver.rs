//! The driver: the engine on its own thread, stepped at the chosen speed,
//! publishing snapshots through a latest-value channel and taking requests
//! over a channel.

use super::session::{Budget, Request, Session};
use super::snapshot::{Snapshot, Speed};
use crate::model::SimTime;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// Messages to the driver thread.
#[derive(Debug)]
pub enum ToDriver {
    Request(Request),
    Quit,
}

/// Snapshots per wall second, at most.
const PUBLISH_EVERY: Duration = Duration::from_millis(50);
/// Wall time the engine may run before the driver looks at its inbox:
/// how long a key waits behind the engine (beyond one event that takes
/// longer; see [`Budget`]). A look costs a channel poll, so a short slice
/// costs no throughput: flat out on METACENTRUM the console ran the trace
/// as fast with 5 ms as with 15 ms, and a pause showed in 17–27 ms instead
/// of 31–53 ms with 80,000–90,000 jobs queued (`crates/bench/benches/console_keys.sh`).
const SLICE: Duration = Duration::from_millis(5);
/// Where the next event is further away than this many wall seconds at
/// the speed chosen, the clock skips there.
pub const QUIET_SKIP_AFTER: f64 = 5.0;
/// Wall time the engine may run flat out without simulated time moving on
/// before the driver pauses it and says it looks stuck.
const STUCK_AFTER: Duration = Duration::from_secs(5);
/// How long quitting waits for the engine thread before leaving it behind.
const STOP_WAIT: Duration = Duration::from_secs(1);

pub struct Driver {
    pub requests: Sender<ToDriver>,
    pub snapshots: watch::Receiver<Arc<Snapshot>>,
    handle: Option<JoinHandle<()>>,
}

impl Driver {
    /// Starts the engine thread on `session`.
    pub fn spawn(mut session: Session) -> std::io::Result<Driver> {
        let (tx, rx) = watch::channel(Arc::new(session.snapshot()));
        let (req_tx, req_rx) = mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("schedscope-engine".into())
            .spawn(move || drive(session, req_rx, tx))?;
        Ok(Driver {
            requests: req_tx,
            snapshots: rx,
            handle: Some(handle),
        })
    }

    /// Stops the engine thread and waits for it, a moment at most: an
    /// engine busy inside one step must not keep the console from quitting
    /// (the thread ends with the process).
    pub fn stop(mut self) {
        let _ = self.requests.send(ToDriver::Quit);
        if let Some(h) = self.handle.take() {
            let deadline = Instant::now() + STOP_WAIT;
            while !h.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if h.is_finished() {
                let _ = h.join();
            } else {
                tracing::error!("the engine thread did not stop; leaving it behind");
            }
        }
    }
}

fn drive(mut session: Session, inbox: Receiver<ToDriver>, out: watch::Sender<Arc<Snapshot>>) {
    let mut pace = Pace::new(&session);
    loop {
        // Requests first: the operator never waits behind the engine.
        if !pace.take_requests(&mut session, &inbox) {
            return;
        }
        let running = !session.paused && !session.is_done();
        if running {
            pace.run_slice(&mut session);
            pace.watch_stuck(&mut session);
        } else {
            pace.still = None;
        }
        if !pace.publish(&mut session, &out, running) {
            return;
        }
        if !pace.idle(&session, &inbox, running) {
            return;
        }
    }
}

/// What the driver's loop keeps from one turn to the next.
struct Pace {
    /// Where the pacing started: (wall, simulated).
    anchor: Option<(Instant, SimTime)>,
    last_publish: Instant,
    changed: bool,
    publish_now: bool,
    pending: Option<ToDriver>,
    rate_from: (Instant, u64),
    /// Since when simulated time has stood still while the engine ran.
    still: Option<(Instant, SimTime, u64)>,
}

impl Pace {
    fn new(session: &Session) -> Pace {
        Pace {
            anchor: None,
            last_publish: Instant::now(),
            changed: false,
            publish_now: false,
            pending: None,
            rate_from: (Instant::now(), session.engine().counters().events),
            still: None,
        }
    }

    /// Carries out the requests waiting; false when the console quit.
    fn take_requests(&mut self, session: &mut Session, inbox: &Receiver<ToDriver>) -> bool {
        loop {
            let msg = match self.pending.take() {
                Some(m) => m,
                None => match inbox.try_recv() {
                    Ok(m) => m,
                    Err(TryRecvError::Empty) => return true,
                    Err(TryRecvError::Disconnected) => return false,
                },
            };
            match msg {
                ToDriver::Quit => return false,
                // What the console draws changes nothing of the run: the
                // pace goes on as it was.
                ToDriver::Request(r @ Request::View { .. }) => {
                    tracing::debug!(request = ?r, "view");
                    session.handle(r);
                    self.publish_now = true;
                }
                ToDriver::Request(r) => {
                    tracing::info!(request = ?r, at = session.now().as_secs_f64(), "request");
                    session.handle(r);
                    self.anchor = None;
                    self.publish_now = true;
                }
            }
        }
    }

    /// Runs the engine for a slice of wall time at the speed chosen.
    fn run_slice(&mut self, session: &mut Session) {
        let mut budget = Budget::new(SLICE);
        let speed = session.speed;
        match speed {
            // `n`: flat out to the next cue, whatever the speed.
            _ if session.rushing => {
                session.step_within(&mut budget);
            }
            Speed::Max => {
                session.step_within(&mut budget);
            }
            Speed::Rate(r) if session.skip_quiet(SimTime::from_secs_f64(r * QUIET_SKIP_AFTER)) => {
                self.anchor = None;
                self.publish_now = true;
            }
            Speed::Rate(r) => {
                let (w0, s0) = *self.anchor.get_or_insert((Instant::now(), session.now()));
                let target = s0 + SimTime::from_secs_f64(r * w0.elapsed().as_secs_f64());
                if !session.advance_within(target, &mut budget) {
                    // Falling behind: pace from here.
                    self.anchor = None;
                }
            }
        }
        self.changed = true;
    }

    /// Pauses the run, saying so, where simulated time has stood still
    /// for [`STUCK_AFTER`] of wall time while the engine ran.
    fn watch_stuck(&mut self, session: &mut Session) {
        let (now, events) = (session.now(), session.engine().counters().events);
        match self.still {
            Some((since, t, e0)) if t == now && !session.is_done() => {
                if since.elapsed() >= STUCK_AFTER {
                    session.paused = true;
                    let msg = format!(
                        "✗ the engine looks stuck: {} events in {:.0} s of wall time without simulated time moving on from t = {}; paused (Space resumes)",
                        events.saturating_sub(e0),
                        since.elapsed().as_secs_f64(),
                        super::format::secs(now.as_secs_f64())
                    );
                    tracing::error!("{msg}");
                    session.set_message(super::snapshot::Message::error(msg));
                    self.still = None;
                    self.publish_now = true;
                }
            }
            _ => self.still = Some((Instant::now(), now, events)),
        }
    }

    /// Publishes a snapshot when one is due, with the measured event
    /// rate; false when the console is gone.
    fn publish(
        &mut self,
        session: &mut Session,
        out: &watch::Sender<Arc<Snapshot>>,
        running: bool,
    ) -> bool {
        if self.publish_now || (self.changed && self.last_publish.elapsed() >= PUBLISH_EVERY) {
            let now = Instant::now();
            let events = session.engine().counters().events;
            let dt = now.duration_since(self.rate_from.0).as_secs_f64();
            if !running {
                session.events_per_sec = 0.0;
                self.rate_from = (now, events);
            } else if dt >= 0.5 {
                session.events_per_sec = events.saturating_sub(self.rate_from.1) as f64 / dt;
                self.rate_from = (now, events);
            }
            if out.send(Arc::new(session.snapshot())).is_err() {
                return false;
            }
            self.last_publish = now;
            self.changed = false;
            self.publish_now = false;
        }
        true
    }

    /// Idles until the next frame or request when there is nothing to
    /// run flat out; false when the console is gone.
    fn idle(&mut self, session: &Session, inbox: &Receiver<ToDriver>, running: bool) -> bool {
        if !running || (matches!(session.speed, Speed::Rate(_)) && !session.rushing) {
            let wait = if running {
                Duration::from_millis(5)
            } else {
                PUBLISH_EVERY
            };
            match inbox.recv_timeout(wait) {
                Ok(m) => self.pending = Some(m),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return false,
            }
        }
        true
    }
}
