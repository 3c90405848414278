//! ZeroMQ's wire protocol, ZMTP 3.0 with the NULL mechanism (no
//! security), for the one pattern Batsim's protocol uses: a REQ socket
//! over TCP that sends a request and blocks for its reply (and, for tests
//! and measurements, the REP socket that answers it).
//!
//! Written here rather than taken from a ZeroMQ library: a round trip is
//! then two system calls on the caller's thread, with nothing between the
//! engine and the socket. The pure-Rust `zeromq` crate (an asynchronous
//! runtime between them) took 31–33 µs per round trip on the same
//! machine and libzmq's binding 60–63 µs (its own I/O thread on each
//! side); the protocol's goal is 25 µs. Peers are any ZeroMQ REP or ROUTER
//! socket (libzmq 4 and pyzmq speak ZMTP 3.1 and accept 3.0).
//!
//! Every wait is cut into [`POLL`] slices and asks a watcher after each
//! silent one whether to go on: a deadline, or the exit of the peer's
//! process, ends it.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// How long a wait goes without asking its watcher.
pub const POLL: Duration = Duration::from_millis(50);

/// How long a wait reads without blocking before it sleeps.
const SPIN: Duration = Duration::from_micros(50);

/// The largest frame taken from a peer (a protocol message of a million
/// jobs is far below it); a larger announced size is a broken peer.
const MAX_FRAME: u64 = 1 << 31;

const MORE: u8 = 0x01;
const LONG: u8 = 0x02;
const COMMAND: u8 = 0x04;

/// Why a wait or an exchange stopped.
#[derive(Debug)]
pub enum Stop {
    /// The watcher ended it, with its reason if it gave one (none: the
    /// deadline passed).
    Watch(Option<String>),
    /// The connection failed or closed.
    Io(io::Error),
    /// The peer broke the protocol: what it did.
    Protocol(String),
}

/// Asked after each silent [`POLL`]: `Err` ends the wait.
pub type Watch<'a> = &'a mut dyn FnMut() -> Result<(), Option<String>>;

/// A connected, greeted ZMTP socket.
pub struct Socket {
    stream: TcpStream,
    /// Bytes read and not yet taken, from `at`.
    inbuf: Vec<u8>,
    at: usize,
    chunk: Vec<u8>,
}

impl Socket {
    /// Connects to `address` (`HOST:PORT`) as a socket of type `kind`
    /// and greets the peer, which must be of one of the types `peers`.
    /// While nothing listens there it tries again every [`POLL`] until
    /// `watch` says stop.
    pub fn connect(
        address: &str,
        kind: &str,
        peers: &[&str],
        watch: Watch,
    ) -> Result<Socket, Stop> {
        let stream = loop {
            let addrs: Vec<_> = address.to_socket_addrs().map_err(Stop::Io)?.collect();
            let connected = addrs
                .iter()
                .find_map(|a| TcpStream::connect_timeout(a, Duration::from_secs(1)).ok());
            if let Some(s) = connected {
                break s;
            }
            watch().map_err(Stop::Watch)?;
            std::thread::sleep(POLL);
        };
        Socket::greet(stream, kind, peers, watch)
    }

    /// Accepts one connection on `listener` as a socket of type `kind`.
    pub fn accept(listener: &TcpListener, kind: &str, peers: &[&str]) -> Result<Socket, Stop> {
        let (stream, _) = listener.accept().map_err(Stop::Io)?;
        Socket::greet(stream, kind, peers, &mut || Ok(()))
    }

    /// The greeting and the NULL mechanism's handshake: each side sends
    /// its greeting and a READY command naming its socket type.
    fn greet(stream: TcpStream, kind: &str, peers: &[&str], watch: Watch) -> Result<Socket, Stop> {
        stream.set_nodelay(true).map_err(Stop::Io)?;
        stream.set_read_timeout(Some(POLL)).map_err(Stop::Io)?;
        stream.set_write_timeout(Some(POLL)).map_err(Stop::Io)?;
        let mut s = Socket {
            stream,
            inbuf: Vec::new(),
            at: 0,
            chunk: vec![0; 1 << 16],
        };
        let mut hello = greeting().to_vec();
        put_frame(&mut hello, COMMAND, &ready(kind));
        s.write_all(&hello, watch)?;
        s.fill(64, watch)?;
        let g = &s.inbuf[s.at..s.at + 64];
        if g[0] != 0xFF || g[9] & 1 != 1 {
            return Err(Stop::Protocol(
                "does not speak ZeroMQ (no ZMTP greeting)".into(),
            ));
        }
        if g[10] < 3 {
            return Err(Stop::Protocol(format!(
                "speaks ZMTP {}.{}; 3.0 or later is needed",
                g[10], g[11]
            )));
        }
        let mechanism = String::from_utf8_lossy(&g[12..32])
            .trim_end_matches('\0')
            .to_string();
        if mechanism != "NULL" {
            return Err(Stop::Protocol(format!(
                "asks for ZeroMQ security ({mechanism}); only NULL (none) is spoken"
            )));
        }
        s.at += 64;
        let (flags, body) = s.frame(watch)?;
        if flags & COMMAND == 0 {
            return Err(Stop::Protocol("sent a message before its handshake".into()));
        }
        let peer = peer_type(&body)?;
        if !peers.contains(&peer.as_str()) {
            return Err(Stop::Protocol(format!(
                "is a ZeroMQ {peer} socket, not {}",
                peers.join(" or ")
            )));
        }
        Ok(s)
    }

    /// Sends one message of `frames`.
    pub fn send(&mut self, frames: &[&[u8]], watch: Watch) -> Result<(), Stop> {
        let mut out = Vec::with_capacity(frames.iter().map(|f| f.len() + 9).sum());
        for (i, f) in frames.iter().enumerate() {
            let more = if i + 1 < frames.len() { MORE } else { 0 };
            put_frame(&mut out, more, f);
        }
        self.write_all(&out, watch)
    }

    /// The next message, as its frames (commands between messages, such
    /// as a heartbeat, are passed over).
    pub fn recv(&mut self, watch: Watch) -> Result<Vec<Vec<u8>>, Stop> {
        let mut frames = Vec::new();
        loop {
            let (flags, body) = self.frame(watch)?;
            if flags & COMMAND != 0 {
                if body.starts_with(b"\x05ERROR") {
                    let reason = body.get(7..).unwrap_or_default();
                    return Err(Stop::Protocol(format!(
                        "closed the connection: {}",
                        String::from_utf8_lossy(reason)
                    )));
                }
                continue;
            }
            frames.push(body);
            if flags & MORE == 0 {
                return Ok(frames);
            }
        }
    }

    /// One frame: its flags and body.
    fn frame(&mut self, watch: Watch) -> Result<(u8, Vec<u8>), Stop> {
        self.fill(2, watch)?;
        let flags = self.inbuf[self.at];
        let (len, head) = if flags & LONG != 0 {
            self.fill(9, watch)?;
            let b: [u8; 8] = self.inbuf[self.at + 1..self.at + 9]
                .try_into()
                .expect("eight bytes");
            (u64::from_be_bytes(b), 9)
        } else {
            (u64::from(self.inbuf[self.at + 1]), 2)
        };
        if len > MAX_FRAME {
            return Err(Stop::Protocol(format!("announced a frame of {len} bytes")));
        }
        let len = len as usize;
        self.fill(head + len, watch)?;
        let body = self.inbuf[self.at + head..self.at + head + len].to_vec();
        self.at += head + len;
        Ok((flags, body))
    }

    /// Reads until `n` bytes are waiting to be taken.
    fn fill(&mut self, n: usize, watch: Watch) -> Result<(), Stop> {
        if self.at > 0 {
            self.inbuf.drain(..self.at);
            self.at = 0;
        }
        if self.inbuf.len() < n {
            self.spin(n)?;
        }
        while self.inbuf.len() < n {
            match self.stream.read(&mut self.chunk) {
                Ok(0) => return Err(closed()),
                Ok(k) => self.inbuf.extend_from_slice(&self.chunk[..k]),
                Err(e) if quiet(&e) => watch().map_err(Stop::Watch)?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Stop::Io(e)),
            }
        }
        Ok(())
    }

    /// Reads without blocking for up to [`SPIN`] while fewer than `n`
    /// bytes wait: a reply that comes within it is taken without the
    /// thread going to sleep and being woken (on an idle machine that
    /// costs more than the exchange itself).
    fn spin(&mut self, n: usize) -> Result<(), Stop> {
        self.stream.set_nonblocking(true).map_err(Stop::Io)?;
        let until = std::time::Instant::now() + SPIN;
        let mut got = Ok(());
        while self.inbuf.len() < n && std::time::Instant::now() < until {
            match self.stream.read(&mut self.chunk) {
                Ok(0) => {
                    got = Err(closed());
                    break;
                }
                Ok(k) => self.inbuf.extend_from_slice(&self.chunk[..k]),
                Err(e) if quiet(&e) || e.kind() == io::ErrorKind::Interrupted => {
                    std::hint::spin_loop()
                }
                Err(e) => {
                    got = Err(Stop::Io(e));
                    break;
                }
            }
        }
        self.stream.set_nonblocking(false).map_err(Stop::Io)?;
        got
    }

    fn write_all(&mut self, mut bytes: &[u8], watch: Watch) -> Result<(), Stop> {
        while !bytes.is_empty() {
            match self.stream.write(bytes) {
                Ok(0) => {
                    return Err(Stop::Io(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "the connection closed",
                    )));
                }
                Ok(k) => bytes = &bytes[k..],
                Err(e) if quiet(&e) => watch().map_err(Stop::Watch)?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Stop::Io(e)),
            }
        }
        Ok(())
    }
}

/// The connection's end, seen as a read of nothing.
fn closed() -> Stop {
    Stop::Io(io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the connection closed",
    ))
}

/// A read or write that timed out: nothing happened in the slice.
fn quiet(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// The greeting: signature, version 3.0, the NULL mechanism, not as
/// server, filler.
fn greeting() -> [u8; 64] {
    let mut g = [0u8; 64];
    g[0] = 0xFF;
    g[9] = 0x7F;
    g[10] = 3;
    g[12..16].copy_from_slice(b"NULL");
    g
}

/// The body of a READY command naming the socket type `kind`.
fn ready(kind: &str) -> Vec<u8> {
    let mut b = vec![5];
    b.extend_from_slice(b"READY");
    property(&mut b, "Socket-Type", kind.as_bytes());
    b
}

fn property(out: &mut Vec<u8>, name: &str, value: &[u8]) {
    out.push(name.len() as u8);
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(&(value.len() as u32).to_be_bytes());
    out.extend_from_slice(value);
}

fn put_frame(out: &mut Vec<u8>, flags: u8, body: &[u8]) {
    if body.len() <= 255 {
        out.push(flags);
        out.push(body.len() as u8);
    } else {
        out.push(flags | LONG);
        out.extend_from_slice(&(body.len() as u64).to_be_bytes());
    }
    out.extend_from_slice(body);
}

/// The socket type a peer's READY command names (an ERROR command: its
/// reason).
fn peer_type(body: &[u8]) -> Result<String, Stop> {
    let broken = || Stop::Protocol("sent a handshake that cannot be read".into());
    let name_len = *body.first().ok_or_else(broken)? as usize;
    let name = body.get(1..1 + name_len).ok_or_else(broken)?;
    let mut rest = &body[1 + name_len..];
    match name {
        b"READY" => {}
        b"ERROR" => {
            let reason = rest.get(1..).unwrap_or_default();
            return Err(Stop::Protocol(format!(
                "refused the connection: {}",
                String::from_utf8_lossy(reason)
            )));
        }
        other => {
            return Err(Stop::Protocol(format!(
                "sent the command {} where READY was due",
                String::from_utf8_lossy(other)
            )));
        }
    }
    while !rest.is_empty() {
        let n = rest[0] as usize;
        let key = rest.get(1..1 + n).ok_or_else(broken)?;
        let len = rest.get(1 + n..5 + n).ok_or_else(broken)?;
        let len = u32::from_be_bytes(len.try_into().expect("four bytes")) as usize;
        let value = rest.get(5 + n..5 + n + len).ok_or_else(broken)?;
        if key.eq_ignore_ascii_case(b"Socket-Type") {
            return Ok(String::from_utf8_lossy(value).into_owned());
        }
        rest = &rest[5 + n + len..];
    }
    Err(Stop::Protocol("did not say its socket type".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (Socket, std::thread::JoinHandle<Socket>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let rep = std::thread::spawn(move || Socket::accept(&listener, "REP", &["REQ"]).unwrap());
        let req = Socket::connect(&addr, "REQ", &["REP"], &mut || Ok(())).unwrap();
        (req, rep)
    }

    #[test]
    fn a_request_and_its_reply_cross_with_their_envelope() {
        let (mut req, rep) = pair();
        let mut rep = rep.join().unwrap();
        let long = vec![b'x'; 70_000];
        req.send(&[b"", &long], &mut || Ok(())).unwrap();
        let got = rep.recv(&mut || Ok(())).unwrap();
        assert_eq!(got, vec![Vec::new(), long]);
        rep.send(&[b"", b"{}"], &mut || Ok(())).unwrap();
        assert_eq!(
            req.recv(&mut || Ok(())).unwrap(),
            vec![Vec::new(), b"{}".to_vec()]
        );
    }

    #[test]
    fn a_peer_of_another_type_is_refused_naming_it() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let pub_ = std::thread::spawn(move || Socket::accept(&listener, "PUB", &["REQ"]));
        let err = Socket::connect(&addr, "REQ", &["REP", "ROUTER"], &mut || Ok(()));
        match err {
            Err(Stop::Protocol(m)) => assert_eq!(m, "is a ZeroMQ PUB socket, not REP or ROUTER"),
            other => panic!("{:?}", other.map(|_| ())),
        }
        let _ = pub_.join();
    }

    #[test]
    fn a_peer_that_is_not_zeromq_is_named_so() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let http = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            s.write_all(&[b'H'; 64]).unwrap();
            std::thread::sleep(Duration::from_millis(200));
        });
        match Socket::connect(&addr, "REQ", &["REP"], &mut || Ok(())) {
            Err(Stop::Protocol(m)) => assert!(m.contains("does not speak ZeroMQ"), "{m}"),
            other => panic!("{:?}", other.map(|_| ())),
        }
        http.join().unwrap();
    }

    #[test]
    fn a_silent_peer_ends_the_wait_when_the_watcher_says_so() {
        let (mut req, rep) = pair();
        let _rep = rep.join().unwrap();
        req.send(&[b"", b"ping"], &mut || Ok(())).unwrap();
        let mut asked = 0;
        let r = req.recv(&mut || {
            asked += 1;
            if asked < 3 {
                Ok(())
            } else {
                Err(Some("gone".into()))
            }
        });
        assert!(matches!(r, Err(Stop::Watch(Some(ref m))) if m == "gone"));
        assert_eq!(asked, 3);
    }

    #[test]
    fn nothing_listening_is_tried_again_until_the_watcher_stops() {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut asked = 0;
        let r = Socket::connect(&format!("127.0.0.1:{port}"), "REQ", &["REP"], &mut || {
            asked += 1;
            if asked < 2 { Ok(()) } else { Err(None) }
        });
        assert!(matches!(r, Err(Stop::Watch(None))));
        assert_eq!(asked, 2);
    }
}
