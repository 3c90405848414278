//! A terminal that goes away (its window closed, `tmux kill-server`, a
//! dropped SSH connection) leaves the console's input permanently readable
//! with nothing to read; crossterm's event source then retries its read
//! forever inside `event::poll`, whatever the timeout (crossterm#793), so
//! the UI loop never sees the SIGHUP that came. This watch polls the
//! terminal for a hang-up alone (it never reads, so it takes no key) and
//! ends the process as SIGHUP would (exit 129): there is no terminal left
//! to give back, though the mouse is released first in case one is.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the terminal is looked at.
const EVERY: Duration = Duration::from_millis(200);

/// Watches the controlling terminal (else standard input) until `done`.
pub struct Watch {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watch {
    pub fn start() -> Watch {
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        let thread = std::thread::Builder::new()
            .name("schedscope-hangup".into())
            .spawn(move || watch(&flag))
            .ok();
        Watch { done, thread }
    }

    pub fn stop(mut self) {
        self.done.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn watch(done: &AtomicBool) {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    use std::os::fd::AsFd;
    let tty = std::fs::File::open("/dev/tty").ok();
    let stdin = std::io::stdin();
    let fd = match &tty {
        Some(f) => f.as_fd(),
        None => stdin.as_fd(),
    };
    let timeout = Timespec {
        tv_sec: 0,
        tv_nsec: EVERY.as_nanos() as _,
    };
    while !done.load(Ordering::SeqCst) {
        // No events asked for: a hang-up, an error and a closed descriptor
        // are reported whatever is asked.
        let mut fds = [PollFd::from_borrowed_fd(fd, PollFlags::empty())];
        match poll(&mut fds, Some(&timeout)) {
            Ok(_) if hung_up(fds[0].revents()) => {
                tracing::warn!("the terminal hung up: the console ends");
                super::release_mouse();
                std::process::exit(129);
            }
            Ok(_) => {}
            Err(_) => std::thread::sleep(EVERY),
        }
    }
}

fn hung_up(revents: rustix::event::PollFlags) -> bool {
    use rustix::event::PollFlags;
    revents.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL)
}
