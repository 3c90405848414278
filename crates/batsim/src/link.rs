//! The REQ socket to the scheduler's REP socket, on a thread of its own
//! (ZeroMQ here is asynchronous; the engine that asks is not, and may run
//! on any thread): one request, one reply, each within the timeout.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::{Duration, Instant};
use zeromq::{ReqSocket, Socket, SocketRecv, SocketSend, ZmqMessage};

/// A request-reply link to one scheduler.
pub struct Link {
    ask: Option<SyncSender<String>>,
    replies: Receiver<Result<String, String>>,
    endpoint: String,
    timeout: Duration,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Link {
    /// A link to the scheduler listening at `endpoint`
    /// (`tcp://HOST:PORT`); it connects on the first request, waiting up
    /// to `timeout` for the scheduler to listen.
    pub fn open(endpoint: &str, timeout: Duration) -> Result<Link, String> {
        if !endpoint.starts_with("tcp://") {
            return Err(format!(
                "endpoint \"{endpoint}\" is not a tcp://HOST:PORT address"
            ));
        }
        let (ask, asked) = sync_channel::<String>(1);
        let (reply, replies) = sync_channel(1);
        let at = endpoint.to_string();
        let thread = std::thread::Builder::new()
            .name("batsim-link".into())
            .spawn(move || serve(&at, timeout, asked, reply))
            .map_err(|e| format!("cannot start the link's thread: {e}"))?;
        Ok(Link {
            ask: Some(ask),
            replies,
            endpoint: endpoint.to_string(),
            timeout,
            thread: Some(thread),
        })
    }

    /// Sends `message` and waits for the reply.
    pub fn ask(&self, message: String) -> Result<String, String> {
        let gone = || format!("the link to the scheduler at {} is closed", self.endpoint);
        self.ask
            .as_ref()
            .ok_or_else(gone)?
            .send(message)
            .map_err(|_| gone())?;
        // The thread answers within its own timeout; the margin covers the
        // connection's own.
        match self
            .replies
            .recv_timeout(self.timeout * 2 + Duration::from_secs(1))
        {
            Ok(r) => r,
            Err(_) => Err(format!(
                "no reply from the scheduler at {} within {} s",
                self.endpoint,
                self.timeout.as_secs_f64()
            )),
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        // Closing the request channel ends the thread.
        self.ask = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The link's thread: connects, then sends each request and waits for
/// its reply, each within `timeout`.
fn serve(
    endpoint: &str,
    timeout: Duration,
    asked: Receiver<String>,
    reply: SyncSender<Result<String, String>>,
) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let _ = reply.send(Err(format!("cannot start the link's runtime: {e}")));
            return;
        }
    };
    let mut socket: Option<ReqSocket> = None;
    while let Ok(message) = asked.recv() {
        let answer = rt.block_on(async {
            let deadline = Instant::now() + timeout;
            if socket.is_none() {
                socket = Some(connect(endpoint, deadline).await?);
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
        });
        let failed = answer.is_err();
        if reply.send(answer).is_err() || failed {
            return;
        }
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
