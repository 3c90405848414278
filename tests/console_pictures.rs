//! The console's pictures in `assets/console/`: each seed system's console
//! at a fixed simulated time, drawn on a `TestBackend` and rendered as SVG
//! and PNG. Each test compares the rendering with the committed files, so
//! the pictures cannot fall behind the console; where they differ,
//! `SCHEDSCOPE_UPDATE_PICTURES=1 cargo test --test console_pictures`
//! writes them anew.

use ratatui::buffer::Buffer;
use schedscope::console::picture;
use schedscope::console::session::Session;
use schedscope::console::{App, Msg};
use schedscope::scenario::Scenario;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[path = "common/console.rs"]
mod console;
use console::Console;

const W: u16 = 120;
const H: u16 = 36;

fn scenario(name: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::load_with(&root().join("scenarios").join(name), &sets).unwrap()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

impl Console {
    /// The console run from its start to `secs` in one go. The queue's
    /// head gets its reason on the second publish: the session finds it
    /// afresh for a job it has not explained before, whatever the wall
    /// clock says.
    fn at(mut self, secs: f64) -> Console {
        self.run_to(secs);
        self.publish();
        self
    }

    fn text(buf: &Buffer) -> String {
        let a = buf.area;
        (a.top()..a.bottom())
            .map(|y| {
                let mut line: String = (a.left()..a.right())
                    .map(|x| buf[(x, y)].symbol())
                    .collect();
                line.push('\n');
                line
            })
            .collect()
    }
}

/// Renders `buf` as `assets/console/NAME.svg` and `.png` and compares
/// with the files there, or writes them under
/// `SCHEDSCOPE_UPDATE_PICTURES`.
fn picture(name: &str, buf: &Buffer) {
    let update = std::env::var_os("SCHEDSCOPE_UPDATE_PICTURES").is_some_and(|v| !v.is_empty());
    let dir = root().join("assets/console");
    let mut stale = Vec::new();
    for (ext, bytes) in [
        ("svg", picture::svg(buf).into_bytes()),
        ("png", picture::png(buf)),
    ] {
        let path = dir.join(format!("{name}.{ext}"));
        if std::fs::read(&path).ok().as_deref() == Some(&bytes[..]) {
            continue;
        }
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        } else {
            stale.push(rel(&path));
        }
    }
    assert!(
        stale.is_empty(),
        "out of date with the console as it draws now: {}\n\
         to write them anew (and look at them before committing):\n\
         SCHEDSCOPE_UPDATE_PICTURES=1 cargo test --test console_pictures\n\
         The screen now:\n{}",
        stale.join(", "),
        Console::text(buf)
    );
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

fn has(buf: &Buffer, wants: &[&str]) {
    let s = Console::text(buf);
    for want in wants {
        assert!(s.contains(want), "{want} missing:\n{s}");
    }
}

/// What `schedscope` opens, the tour: heterogeneous clusters whose links
/// saturate, EASY backfilling with estimates ±50 %, the group tables.
/// (At 55 minutes: the c16b link, degraded at 2,000 s, saturated; a
/// backfilled job running, another past its window.)
#[test]
fn tour_links_backfilling_groups() {
    let mut c = Console::on(Scenario::embedded_default(), W, H).at(3_300.0);
    let b = c.buffer();
    has(
        &b,
        &[
            "schedscope · tour",
            "SATURATED",
            "expired",
            "backfilled",
            "Groups by size",
        ],
    );
    picture("tour", &b);
}

/// The Ngubiri study (5 × 20 multi-cluster, FPFS(10) with worst-fit
/// co-allocation, `scenarios/default.toml`) at 30 minutes, past the
/// warm-up: a queue behind a head that has been jumped, every cluster
/// busy, the groups measured.
#[test]
fn default_fpfs_co_allocation() {
    let mut c = Console::on(scenario("default.toml", &[]), W, H).at(1_800.0);
    let b = c.buffer();
    has(
        &b,
        &["t = 1 800.0 s", "▶ running", "Queue ", "▶ head", "jumped "],
    );
    picture("ngubiri", &b);
}

/// Task graphs in advance reservations (Sulistio's `ar`) on the teaching
/// example: the second graph's reservation holds p0–p3 with its subtasks
/// running, jobs 4 and 5 wait; its cues are left out so that the run
/// goes on.
#[test]
fn reservations_with_graphs_running() {
    let sc = scenario("teach-reservations.toml", &["timeline=[]"]);
    let mut c = Console::on(sc, W, H).at(31.0);
    let b = c.buffer();
    has(
        &b,
        &["t = 31.0 s", "Queue 2", "▣▣▣▣", "Head & reservations"],
    );
    picture("reservations", &b);
}

/// Blanco's heterogeneous clusters under PAS, with the scenario's c16b
/// link degraded to a tenth at 3,000 s and c16a to a quarter at 3,200 s:
/// the package, Γ per cluster and a saturated link.
#[test]
fn blanco_pas_links() {
    let timeline = "timeline=[\
        {at=3000.0, action=\"set-link-bandwidth\", link=\"c16b\", abw=0.1},\
        {at=3200.0, action=\"set-link-bandwidth\", link=\"c16a\", abw=0.25}]";
    let mut c = Console::on(scenario("blanco-pas.toml", &[timeline]), W, H).at(3_300.0);
    c.fixed_solve_time();
    let b = c.buffer();
    has(
        &b,
        &[
            "Head & package",
            "Γ0.83",
            "0.00 / 0.10",
            "/ 0.25",
            "SATURATED",
        ],
    );
    picture("blanco-pas", &b);
}

/// Utrera's moldable jobs under FJT1 with backfilling and malleability
/// at 50 minutes: a long queue of moldable jobs, the head's shadow time
/// and backfilled jobs whose windows have expired.
#[test]
fn utrera_moldable() {
    let mut c = Console::on(scenario("utrera-moldable.toml", &[]), W, H).at(3_000.0);
    let b = c.buffer();
    has(&b, &["FJT1+BFM", "Queue 20", "shadow time", "expired "]);
    picture("utrera-moldable", &b);
}

/// The two-site grid, approach 2: a queue per processor, gangs waiting
/// and split over both sites.
#[test]
fn grid_two_site() {
    let mut c = Console::on(scenario("grid-two-site.toml", &[]), W, H).at(60.0);
    let b = c.buffer();
    has(&b, &["Head & grid queues", " busy, "]);
    picture("grid-two-site", &b);
}

/// Compare mode on the default workload: FPFS(10) on the left, EASY
/// backfilling on the right, on the same simulated time.
#[test]
fn compare_fpfs_and_easy() {
    let left = scenario("default.toml", &[]);
    let right = scenario("default.toml", &["policy.name=easy"]);
    let seed = left.seed();
    let mut session = Session::new(left, seed, true)
        .unwrap()
        .with_twin(Session::new(right, seed, true).unwrap());
    let mut app = App::new(Arc::new(session.snapshot()));
    app.update(Msg::Resize(W, H));
    let mut c = Console {
        session,
        app,
        terminal: ratatui::Terminal::new(ratatui::backend::TestBackend::new(W, H)).unwrap(),
    }
    .at(1_800.0);
    let b = c.buffer();
    has(&b, &["◧ left FPFS", "◨ right EASY backfilling", "ΔART"]);
    picture("compare", &b);
}
