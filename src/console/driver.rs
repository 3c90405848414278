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
    // Where the pacing started: (wall, simulated).
    let mut anchor: Option<(Instant, SimTime)> = None;
    let mut last_publish = Instant::now();
    let mut changed = false;
    let mut publish_now = false;
    let mut pending: Option<ToDriver> = None;
    let mut rate_from = (Instant::now(), session.engine().counters().events);
    // Since when simulated time has stood still while the engine ran.
    let mut still: Option<(Instant, SimTime, u64)> = None;
    loop {
        // Requests first: the operator never waits behind the engine.
        loop {
            let msg = match pending.take() {
                Some(m) => m,
                None => match inbox.try_recv() {
                    Ok(m) => m,
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return,
                },
            };
            match msg {
                ToDriver::Quit => return,
                // What the console draws changes nothing of the run: the
                // pace goes on as it was.
                ToDriver::Request(r @ Request::View { .. }) => {
                    tracing::debug!(request = ?r, "view");
                    session.handle(r);
                    publish_now = true;
                }
                ToDriver::Request(r) => {
                    tracing::info!(request = ?r, at = session.now().as_secs_f64(), "request");
                    session.handle(r);
                    anchor = None;
                    publish_now = true;
                }
            }
        }
        let running = !session.paused && !session.is_done();
        if running {
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
                Speed::Rate(r)
                    if session.skip_quiet(SimTime::from_secs_f64(r * QUIET_SKIP_AFTER)) =>
                {
                    anchor = None;
                    publish_now = true;
                }
                Speed::Rate(r) => {
                    let (w0, s0) = *anchor.get_or_insert((Instant::now(), session.now()));
                    let target = s0 + SimTime::from_secs_f64(r * w0.elapsed().as_secs_f64());
                    if !session.advance_within(target, &mut budget) {
                        // Falling behind: pace from here.
                        anchor = None;
                    }
                }
            }
            changed = true;
            let (now, events) = (session.now(), session.engine().counters().events);
            match still {
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
                        still = None;
                        publish_now = true;
                    }
                }
                _ => still = Some((Instant::now(), now, events)),
            }
        } else {
            still = None;
        }
        if publish_now || (changed && last_publish.elapsed() >= PUBLISH_EVERY) {
            let now = Instant::now();
            let events = session.engine().counters().events;
            let dt = now.duration_since(rate_from.0).as_secs_f64();
            if !running {
                session.events_per_sec = 0.0;
                rate_from = (now, events);
            } else if dt >= 0.5 {
                session.events_per_sec = events.saturating_sub(rate_from.1) as f64 / dt;
                rate_from = (now, events);
            }
            if out.send(Arc::new(session.snapshot())).is_err() {
                return;
            }
            last_publish = now;
            changed = false;
            publish_now = false;
        }
        // Idle until the next frame or request when there is nothing to run
        // flat out.
        if !running || (matches!(session.speed, Speed::Rate(_)) && !session.rushing) {
            let wait = if running {
                Duration::from_millis(5)
            } else {
                PUBLISH_EVERY
            };
            match inbox.recv_timeout(wait) {
                Ok(m) => pending = Some(m),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }
}
