//! A console driven synchronously on a `TestBackend`: a session, the app
//! and a terminal, with keys going through the same key → request path as
//! the live console's.
#![allow(dead_code)] // not every test file that shares this module uses all of it

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use schedscope::console::app::{App, Effect, Msg};
use schedscope::console::session::Session;
use schedscope::console::ui;
use schedscope::model::SimTime;
use schedscope::scenario::Scenario;
use std::sync::Arc;
use std::time::Instant;

pub struct Console {
    pub session: Session,
    pub app: App,
    pub terminal: Terminal<TestBackend>,
}

impl Console {
    /// A console on `sc` (its own seed, endless) in a `w` × `h` terminal.
    pub fn on(sc: Scenario, w: u16, h: u16) -> Console {
        let seed = sc.seed();
        let mut session = Session::new(sc, seed, true).unwrap();
        let mut app = App::new(Arc::new(session.snapshot()));
        app.update(Msg::Resize(w, h));
        Console {
            session,
            app,
            terminal: Terminal::new(TestBackend::new(w, h)).unwrap(),
        }
    }

    pub fn resize(&mut self, w: u16, h: u16) {
        self.app.update(Msg::Resize(w, h));
        self.terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    }

    /// Hands the app a snapshot, and the session what the app asks of it.
    pub fn publish(&mut self) {
        let s = Arc::new(self.session.snapshot());
        let effects = self.app.update(Msg::Snapshot(s));
        self.carry_out(effects);
    }

    /// Runs the simulation to `secs` simulated seconds, then publishes.
    pub fn run_to(&mut self, secs: impl Into<f64>) {
        assert!(
            self.session
                .advance_to(SimTime::from_secs_f64(secs.into()), usize::MAX)
        );
        self.publish();
    }

    /// Presses `keys` one after another, publishing after each.
    pub fn keys(&mut self, keys: &[KeyCode]) {
        for &k in keys {
            let effects = self
                .app
                .update(Msg::Key(KeyEvent::new(k, KeyModifiers::NONE)));
            self.carry_out(effects);
            self.publish();
        }
    }

    /// A mouse event at column `x`, row `y` that came at `at`, against
    /// the screen last drawn, then a snapshot.
    pub fn mouse(&mut self, kind: MouseEventKind, x: u16, y: u16, at: Instant) {
        let m = MouseEvent {
            kind,
            column: x,
            row: y,
            modifiers: KeyModifiers::NONE,
        };
        let effects = self.app.update(Msg::Mouse(m, at));
        self.carry_out(effects);
        self.publish();
    }

    fn carry_out(&mut self, effects: Vec<Effect>) {
        for e in effects {
            match e {
                Effect::Send(r) => self.session.handle(r),
                Effect::Quit => {}
            }
        }
    }

    /// The package's wall-clock solve time set to 1 ms, so that screens
    /// compare across machines.
    pub fn fixed_solve_time(&mut self) {
        use schedscope::model::{Cluster, Platform};
        use schedscope::policy::package_view::PackageView;
        let mut s = (*self.app.snapshot).clone();
        let mut p = s
            .engine
            .policy_state
            .detail::<PackageView>()
            .expect("a PAS snapshot")
            .clone();
        p.solve_micros = 1_000;
        let platform = Platform {
            clusters: s
                .engine
                .clusters
                .iter()
                .map(|c| Cluster {
                    name: c.name.clone(),
                    processors: c.processors,
                    speed: c.speed,
                })
                .collect(),
            ..Platform::default()
        };
        s.engine.policy_state =
            schedscope::sched::PolicyState::new(p.panel(&platform)).with_detail(p);
        self.app.update(Msg::Snapshot(Arc::new(s)));
    }

    /// The screen as cells, drawn now.
    pub fn buffer(&mut self) -> ratatui::buffer::Buffer {
        self.screen();
        self.terminal.backend().buffer().clone()
    }

    /// The screen as text, drawn now (and where it drew what, for the
    /// mouse, as the live console keeps it).
    pub fn screen(&mut self) -> String {
        let app = &self.app;
        let mut hits = Default::default();
        self.terminal
            .draw(|f| {
                let area = f.area();
                hits = ui::draw(app, true, area, f.buffer_mut());
            })
            .unwrap();
        self.app.drawn = hits;
        self.terminal.backend().to_string()
    }
}
