//! The REQ socket to the scheduler's REP socket: one request, one reply,
//! each within the timeout. ZeroMQ here is asynchronous and the engine
//! that asks is not: the link owns a runtime of one thread, the caller's,
//! and blocks on it for each exchange (no thread between the engine and
//! the socket; on a thread that already runs a runtime, the exchange runs
//! on a scoped thread of its own).

//!
//! A link may own the scheduler's process ([`Scheduler`], started for the
//! run): then its exit is watched while the link waits, and ends the wait
//! at once with the command, its status and its last errors.

use crate::process::Scheduler;
use std::time::{Duration, Instant};
use zeromq::{ReqSocket, Socket, SocketRecv, SocketSend, ZmqMessage};

/// A request-reply link to one scheduler.
pub struct Link {
    rt: tokio::runtime::Runtime,
    socket: Option<ReqSocket>,
    endpoint: String,
    timeout: Duration,
    /// The scheduler's process, when schedscope started it.
    scheduler: Option<Scheduler>,
}

/// How often a started scheduler is checked while the link waits.
const WATCH: Duration = Duration::from_millis(50);

impl Link {
    /// A link to the scheduler listening at `endpoint`
    /// (`tcp://HOST:PORT`); it connects on the first request, waiting up
    /// to `timeout` for the scheduler to listen.
    pub fn open(endpoint: &str, timeout: Duration) -> Result<Link, String> {
        check_endpoint(endpoint)?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the link's runtime: {e}"))?;
        Ok(Link {
            rt,
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
        if tokio::runtime::Handle::try_current().is_ok() {
            // Blocking on a runtime inside another is refused: a thread of
            // its own for this exchange.
            return std::thread::scope(|s| {
                s.spawn(|| self.exchange(message))
                    .join()
                    .unwrap_or_else(|_| Err("the link's thread failed".to_string()))
            });
        }
        self.exchange(message)
    }

    fn exchange(&mut self, message: String) -> Result<String, String> {
        let (endpoint, timeout) = (self.endpoint.as_str(), self.timeout);
        let socket = &mut self.socket;
        let scheduler = &mut self.scheduler;
        let result = self.rt.block_on(async {
            if socket.is_none() {
                let deadline = Instant::now() + timeout;
                let connected = watched(connect(endpoint, deadline), deadline, scheduler).await;
                *socket = Some(match connected {
                    Ok(r) => r?,
                    Err(Some(gone)) => return Err(gone),
                    Err(None) => return Err(format!("no scheduler listens at {endpoint}")),
                });
            }
            let s = socket.as_mut().expect("connected above");
            let exchange = async {
                s.send(ZmqMessage::from(message)).await?;
                s.recv().await
            };
            match watched(exchange, Instant::now() + timeout, scheduler).await {
                Err(Some(gone)) => Err(gone),
                Err(None) => Err(format!(
                    "the scheduler at {endpoint} stopped answering: no reply within {} s",
                    timeout.as_secs_f64()
                )),
                Ok(Err(e)) => Err(format!(
                    "the scheduler at {endpoint} stopped answering ({e})"
                )),
                Ok(Ok(m)) => String::try_from(m).map_err(|e| {
                    format!("the scheduler at {endpoint} sent a reply that is not text: {e}")
                }),
            }
        });
        result.map_err(|e| self.explain(e))
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

/// Runs `work` until `deadline`, watching the scheduler started for the
/// run, if any: `Err(Some(why))` when it exited, `Err(None)` when the
/// deadline came first.
async fn watched<T>(
    work: impl std::future::Future<Output = T>,
    deadline: Instant,
    scheduler: &mut Option<Scheduler>,
) -> Result<T, Option<String>> {
    let mut work = std::pin::pin!(work);
    loop {
        let until = match scheduler {
            Some(_) => deadline.min(Instant::now() + WATCH),
            None => deadline,
        };
        if let Ok(done) = tokio::time::timeout_at(until.into(), &mut work).await {
            return Ok(done);
        }
        if let Some(s) = scheduler
            && s.exited()
        {
            return Err(Some(s.failure()));
        }
        if Instant::now() >= deadline {
            return Err(None);
        }
    }
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

/// Connects to `endpoint`, trying again until `deadline` while nothing
/// listens there.
async fn connect(endpoint: &str, deadline: Instant) -> Result<ReqSocket, String> {
    let refused = |why: String| {
        format!(
            "no scheduler listens at {endpoint} ({why}); start it first, e.g. `pybatsim schedFcfs -s {}`",
            endpoint.replace("127.0.0.1", "*")
        )
    };
    let attempts = async {
        loop {
            let mut s = ReqSocket::new();
            match s.connect(endpoint).await {
                Ok(()) => return Ok(s),
                Err(e) if Instant::now() >= deadline => return Err(refused(e.to_string())),
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    };
    match tokio::time::timeout_at(deadline.into(), attempts).await {
        Ok(r) => r,
        Err(_) => Err(refused("nothing answered in time".to_string())),
    }
}
