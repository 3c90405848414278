//! The REQ socket to the scheduler's REP socket: one request, one reply,
//! each within the timeout, blocking the caller's thread (ZeroMQ's wire
//! protocol in [`crate::zmtp`]: no thread and no runtime between the
//! engine and the socket).
//!
//! A link may own the scheduler's process ([`Scheduler`], started for the
//! run): then its exit is watched while the link waits, and ends the wait
//! at once with the command, its status and its last errors.

use crate::process::Scheduler;
use crate::zmtp::{self, Stop};
use std::time::{Duration, Instant};

/// A request-reply link to one scheduler.
pub struct Link {
    socket: Option<zmtp::Socket>,
    endpoint: String,
    timeout: Duration,
    /// The scheduler's process, when schedscope started it.
    scheduler: Option<Scheduler>,
}

impl Link {
    /// A link to the scheduler listening at `endpoint`
    /// (`tcp://HOST:PORT`); it connects on the first request, waiting up
    /// to `timeout` for the scheduler to listen.
    pub fn open(endpoint: &str, timeout: Duration) -> Result<Link, String> {
        check_endpoint(endpoint)?;
        Ok(Link {
            socket: None,
            endpoint: endpoint.to_string(),
            timeout,
            scheduler: None,
        })
    }

    /// The link to `scheduler`, started for this run and listening at
    /// the link's endpoint: stopped with the link.
    pub fn owning(mut self, scheduler: Scheduler) -> Link {
        self.scheduler = Some(scheduler);
        self
    }

    /// Gives the scheduler started for this run up to `grace` to exit on
    /// its own, then kills it (nothing when the link does not own one).
    pub fn stop_scheduler(&mut self, grace: Duration) {
        if let Some(s) = &mut self.scheduler {
            s.stop(grace);
        }
    }

    /// Sends `message` and waits for the reply. After an error the link
    /// is not to be used again (a REQ socket that missed its reply cannot
    /// send).
    pub fn ask(&mut self, message: String) -> Result<String, String> {
        let result = self.exchange(&message);
        result.map_err(|e| self.explain(e))
    }

    fn exchange(&mut self, message: &str) -> Result<String, String> {
        let endpoint = self.endpoint.as_str();
        let scheduler = &mut self.scheduler;
        let deadline = Instant::now() + self.timeout;
        let mut go_on = || watch(deadline, scheduler);
        if self.socket.is_none() {
            let address = endpoint.strip_prefix("tcp://").unwrap_or(endpoint);
            let connected = zmtp::Socket::connect(address, "REQ", &["REP", "ROUTER"], &mut go_on);
            self.socket = Some(connected.map_err(|e| match e {
                Stop::Watch(Some(gone)) => gone,
                Stop::Watch(None) => refused(endpoint, "nothing answered in time"),
                Stop::Io(e) => refused(endpoint, &e.to_string()),
                Stop::Protocol(m) => format!("the peer at {endpoint} {m}"),
            })?);
        }
        let s = self.socket.as_mut().expect("connected above");
        let deadline = Instant::now() + self.timeout;
        let mut go_on = || watch(deadline, scheduler);
        let reply = s
            .send(&[b"", message.as_bytes()], &mut go_on)
            .and_then(|()| s.recv(&mut go_on));
        let mut frames = reply.map_err(|e| match e {
            Stop::Watch(Some(gone)) => gone,
            Stop::Watch(None) => format!(
                "the scheduler at {endpoint} stopped answering: no reply within {} s",
                self.timeout.as_secs_f64()
            ),
            Stop::Io(e) => format!("the scheduler at {endpoint} stopped answering ({e})"),
            Stop::Protocol(m) => format!("the scheduler at {endpoint} {m}"),
        })?;
        // The reply's envelope: what precedes the empty delimiter frame.
        let Some(delimiter) = frames.iter().position(Vec::is_empty) else {
            return Err(format!(
                "the scheduler at {endpoint} sent a reply without a REP socket's envelope"
            ));
        };
        let body: Vec<u8> = frames.drain(delimiter + 1..).flatten().collect();
        String::from_utf8(body)
            .map_err(|e| format!("the scheduler at {endpoint} sent a reply that is not text: {e}"))
    }

    /// `error`, or why the scheduler started for the run is gone if it
    /// is (a closed connection may be seen before the exit).
    fn explain(&mut self, error: String) -> String {
        let Some(s) = &mut self.scheduler else {
            return error;
        };
        let deadline = Instant::now() + Duration::from_millis(500);
        while !s.exited() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if s.exited() {
            return s.failure();
        }
        if error.starts_with("no scheduler listens") {
            return format!(
                "the scheduler `{}` runs but does not listen at {} within {} s \
                 (does the command listen on {{port}}?)",
                s.command(),
                self.endpoint,
                self.timeout.as_secs_f64()
            );
        }
        error
    }
}

/// Whether to go on waiting: not once the scheduler started for the run
/// has exited (why it did), nor past `deadline`.
fn watch(deadline: Instant, scheduler: &mut Option<Scheduler>) -> Result<(), Option<String>> {
    if let Some(s) = scheduler
        && s.exited()
    {
        return Err(Some(s.failure()));
    }
    if Instant::now() >= deadline {
        return Err(None);
    }
    Ok(())
}

fn refused(endpoint: &str, why: &str) -> String {
    format!(
        "no scheduler listens at {endpoint} ({why}); start it first, e.g. `pybatsim schedFcfs -s {}`",
        endpoint.replace("127.0.0.1", "*")
    )
}

/// Whether `endpoint` is an address the link can connect to:
/// `tcp://HOST:PORT`.
pub fn check_endpoint(endpoint: &str) -> Result<(), String> {
    let port = endpoint
        .strip_prefix("tcp://")
        .and_then(|a| a.rsplit_once(':'))
        .filter(|(host, _)| !host.is_empty())
        .and_then(|(_, port)| port.parse::<u16>().ok());
    match port {
        Some(p) if p > 0 => Ok(()),
        _ => Err(format!(
            "endpoint \"{endpoint}\" is not a tcp://HOST:PORT address"
        )),
    }
}
