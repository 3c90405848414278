//! Saving the run: the scenario with the operator's commands as its
//! timeline, written to a new file.

use super::Session;
use crate::console::snapshot::Message;
use std::io::Write;
use std::path::PathBuf;

impl Session {
    /// The scenario with the commands applied so far as its timeline, and
    /// this session's seed (after `R`, or `--seed`) as its `seed`: `run`
    /// of the saved file replays the figures the console shows.
    pub fn saved_text(&self) -> String {
        self.scenario.save_run(self.seed, self.engine.command_log())
    }

    /// Writes [`Session::saved_text`] to a new file in the save folder.
    pub fn save(&self) -> std::io::Result<PathBuf> {
        let stem: String = self
            .scenario
            .name()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let text = self.saved_text();
        for n in 1..10_000 {
            let path = self.save_dir.join(format!("{stem}-replay-{n}.toml"));
            if path.exists() {
                continue;
            }
            let mut tmp = tempfile::NamedTempFile::new_in(&self.save_dir)?;
            tmp.write_all(text.as_bytes())?;
            match tmp.persist_noclobber(&path) {
                Ok(_) => return Ok(path),
                Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e.error),
            }
        }
        Err(std::io::Error::other("no free file name"))
    }

    /// Saves the run and says where, or why it could not.
    pub(super) fn save_and_say(&self) -> Message {
        match self.save() {
            Ok(path) => Message::ok(format!(
                "✓ saved {} command{} to {}",
                self.engine.command_log().len(),
                if self.engine.command_log().len() == 1 {
                    ""
                } else {
                    "s"
                },
                path.display()
            )),
            Err(e) => Message::error(format!("✗ cannot save: {e}")),
        }
    }
}
