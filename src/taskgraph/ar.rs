//! Advance-reservation steps on schedules (placeholder, filled below).
