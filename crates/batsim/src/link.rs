//! The REQ socket to the scheduler's REP socket: one request, one reply,
//! each within the timeout. ZeroMQ here is asynchronous and the engine
//! that asks is not: the link owns a runtime of one thread, the caller's,
//! and blocks on it for each exchange (no thread between the engine and
//! the socket; on a thread that already runs a runtime, the exchange runs
//! on a scoped thread of its own).

use std::time::{Duration, Instant};
use zeromq::{ReqSocket, Socket, SocketRecv, SocketSend, ZmqMessage};

/// A request-reply link to one scheduler.
pub struct Link {
    rt: tokio::runtime::Runtime,
    socket: Option<ReqSocket>,
    endpoint: String,
    timeout: Duration,
}

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
        })
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
        self.rt.block_on(async {
            if socket.is_none() {
                *socket = Some(connect(endpoint, Instant::now() + timeout).await?);
            }
            let s = socket.as_mut().expect("connected above");
            let exchange = async {
                s.send(ZmqMessage::from(message)).await?;
                s.recv().await
            };
            match tokio::time::timeout(timeout, exchange).await {
                Err(_) => Err(format!(
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
        })
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
