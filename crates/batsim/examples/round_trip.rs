//! The protocol's own cost per round trip: schedscope's side (a message
//! of one submission out, a reply read) against a scheduler that answers
//! at once, in this process.
//!
//! `cargo run --release -p schedscope-batsim --example round_trip`

use schedscope_batsim::link::Link;
use schedscope_batsim::wire;
use schedscope_batsim::zmtp;
use schedscope_protocol::model::SimTime;
use std::time::{Duration, Instant};

const N: usize = 20_000;

fn main() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let endpoint = format!("tcp://{}", listener.local_addr().expect("bound"));
    let scheduler = std::thread::spawn(move || {
        let mut rep = zmtp::Socket::accept(&listener, "REP", &["REQ"]).expect("a peer");
        for _ in 0..N + 1 {
            let request = rep.recv(&mut || Ok(())).expect("a request");
            rep.send(
                &[&request[0], br#"{"now": 12.5, "events": []}"#],
                &mut || Ok(()),
            )
            .expect("sent");
        }
    });
    let mut link = Link::open(&endpoint, Duration::from_secs(5)).expect("a link");
    let message = |t: i64| {
        let e = wire::submitted(17, SimTime(t), 4, SimTime(100_000_000));
        serde_json::json!({ "now": wire::secs(SimTime(t)), "events": [e] }).to_string()
    };
    link.ask(message(0)).expect("connected");
    let start = Instant::now();
    for i in 0..N {
        let reply = link.ask(message(i as i64)).expect("a reply");
        wire::parse_reply(&reply).expect("a reply of the protocol's");
    }
    let us = start.elapsed().as_secs_f64() * 1e6 / N as f64;
    println!("{N} round trips: {us:.1} µs each (message built, sent, reply read)");
    drop(link);
    scheduler.join().expect("the scheduler ends");
}
