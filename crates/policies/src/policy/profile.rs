//! The availability profile: free processors per cluster as a step function
//! of future time, built from running jobs' expected ends and the
//! reservations made so far. Conservative backfilling plans every queued
//! job in it; EASY uses its first steps for the head's reservation.

use super::placement::{Assignment, Placement};
use crate::model::SimTime;

/// Steps per block of the one-cluster block maxima.
const BLOCK: usize = 64;

/// Free processors per cluster from `times[k]` until `times[k + 1]` (the
/// last step lasts forever). Counts may go below zero where a reservation
/// was made on estimates that turned out wrong; such steps fit nothing.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    clusters: usize,
    /// Step `base` holds now; the steps before it are past and are
    /// dropped in batches (a profile kept across decision points moves
    /// forward without shifting its steps every time).
    base: usize,
    times: Vec<SimTime>,
    free: Vec<i64>,
    /// Scratch for the minimum over a window.
    window: Vec<u32>,
    /// Scratch for the minima over sliding windows, one deque per cluster.
    mins: Vec<std::collections::VecDeque<usize>>,
    /// One cluster: the largest free count over steps `base..=k`, valid
    /// for the steps before `prefix_valid`.
    prefix_max: Vec<i64>,
    /// Several clusters: the largest free total and the largest count on
    /// one cluster over steps `base..=k` (see [`Profile::max_room_before`]),
    /// valid for the steps before `prefix_valid`.
    prefix_room: Vec<(i64, i64)>,
    prefix_valid: usize,
    /// One cluster: the largest free count in each block of `BLOCK`
    /// steps (`block_max[b]` for steps `b * BLOCK..(b + 1) * BLOCK`),
    /// valid for the blocks before `block_valid`. A search for a step
    /// with room skips the blocks too full for it.
    block_max: Vec<i64>,
    block_valid: usize,
}

impl Profile {
    /// The profile from `now`: `free` now, plus `releases` (end, cluster,
    /// width) sorted by end.
    pub fn new(now: SimTime, free: &[u32], releases: &[(SimTime, u16, u32)]) -> Profile {
        let mut changes: Vec<(SimTime, u16, i64)> =
            releases.iter().map(|&(t, c, w)| (t, c, w as i64)).collect();
        Profile::from_changes(now, free, &mut changes)
    }

    /// The profile from `now` in one pass over signed changes `(time,
    /// cluster, delta)` (releases positive, reservations negative); changes
    /// at or before `now` apply from the start.
    pub fn from_changes(
        now: SimTime,
        free: &[u32],
        changes: &mut [(SimTime, u16, i64)],
    ) -> Profile {
        changes.sort_unstable_by_key(|c| (c.0, c.1));
        let clusters = free.len();
        let mut p = Profile {
            clusters,
            times: vec![now],
            free: free.iter().map(|&f| f as i64).collect(),
            base: 0,
            window: vec![0; clusters],
            mins: Vec::new(),
            prefix_max: Vec::new(),
            prefix_room: Vec::new(),
            prefix_valid: 0,
            block_max: Vec::new(),
            block_valid: 0,
        };
        for &(t, c, d) in changes.iter() {
            let t = t.max(now);
            if *p.times.last().unwrap_or(&now) != t {
                let last = p.free.len() - clusters;
                p.times.push(t);
                p.free.extend_from_within(last..);
            }
            let base = p.free.len() - clusters;
            p.free[base + c as usize] += d;
        }
        p
    }

    /// One cluster: the largest free count at any step that starts before
    /// `until` — a job wider than that cannot start before `until`.
    pub fn max_free_before(&mut self, until: SimTime) -> i64 {
        debug_assert_eq!(self.clusters, 1);
        let n = self.base + self.times[self.base..].partition_point(|&t| t < until);
        if n <= self.base {
            return i64::MIN;
        }
        if self.prefix_max.len() < self.times.len() {
            self.prefix_max.resize(self.times.len(), 0);
        }
        let mut k = self.prefix_valid.max(self.base);
        while k < n {
            let before = if k == self.base {
                i64::MIN
            } else {
                self.prefix_max[k - 1]
            };
            self.prefix_max[k] = before.max(self.free[k]);
            k += 1;
        }
        self.prefix_valid = self.prefix_valid.max(n);
        self.prefix_max[n - 1]
    }

    /// Several clusters: the largest free total (over the clusters, counts
    /// below zero as none) and the largest free count on one cluster at
    /// any step that starts before `until`. A job larger than the first, or
    /// with a component wider than the second, cannot start before `until`.
    pub fn max_room_before(&mut self, until: SimTime) -> (i64, i64) {
        let c = self.clusters;
        let n = self.base + self.times[self.base..].partition_point(|&t| t < until);
        if n <= self.base {
            return (i64::MIN, i64::MIN);
        }
        if self.prefix_room.len() < self.times.len() {
            self.prefix_room.resize(self.times.len(), (0, 0));
        }
        let mut k = self.prefix_valid.max(self.base);
        while k < n {
            let row = &self.free[k * c..(k + 1) * c];
            let room: i64 = row.iter().map(|&f| f.max(0)).sum();
            let top = row.iter().copied().max().unwrap_or(0);
            let (r, t) = if k == self.base {
                (i64::MIN, i64::MIN)
            } else {
                self.prefix_room[k - 1]
            };
            self.prefix_room[k] = (r.max(room), t.max(top));
            k += 1;
        }
        self.prefix_valid = self.prefix_valid.max(n);
        self.prefix_room[n - 1]
    }

    /// One cluster: the earliest step start at or after `from` (and before
    /// `before`) where `width` processors stay free for `span`, counting
    /// `own` (start, end, width) — the job's current reservation — as free.
    /// It alternates two scans: to the next step with room, then over the
    /// window from there to the first step without (which the next
    /// candidate must lie after).
    pub fn earliest_single(
        &mut self,
        from: SimTime,
        before: SimTime,
        width: u32,
        span: SimTime,
        own: Option<(SimTime, SimTime, u32)>,
    ) -> Option<SimTime> {
        debug_assert_eq!(self.clusters, 1);
        if self.is_short() {
            return self.earliest_single_short(from, before, width, span, own);
        }
        let w = width as i64;
        let n = self.times.len();
        // The steps inside the job's own reservation, and its width there.
        let own = match own {
            Some((s, e, ow)) => (
                self.base + self.times[self.base..].partition_point(|&t| t < s),
                self.base + self.times[self.base..].partition_point(|&t| t < e),
                ow as i64,
            ),
            None => (n, n, 0),
        };
        let mut k = self.step_of(from);
        loop {
            k = self.find(k, n, w, own, false)?;
            let cand = self.times[k].max(from);
            if cand >= before {
                return None;
            }
            let end = cand.saturating_add(span);
            // The first step after `k` that begins before `end` without
            // room, looked for a few steps at a time (a window is often
            // much shorter than the rest of the profile).
            let mut a = k + 1;
            let blocked = loop {
                if a >= n || self.times[a] >= end {
                    break None;
                }
                let b = (a + 16).min(n);
                if let Some(j) = self.find(a, b, w, own, true) {
                    break (self.times[j] < end).then_some(j);
                }
                a = b;
            };
            match blocked {
                None => return Some(cand),
                Some(j) => k = j + 1,
            }
        }
    }

    /// [`Profile::earliest_single`] on a short profile, where no block of
    /// steps is worth skipping: one pass that looks at each step once,
    /// following the run of steps with room that the candidate start
    /// begins (a step is the job's own when it begins inside the job's
    /// reservation).
    fn earliest_single_short(
        &self,
        from: SimTime,
        before: SimTime,
        width: u32,
        span: SimTime,
        own: Option<(SimTime, SimTime, u32)>,
    ) -> Option<SimTime> {
        let w = width as i64;
        let (s, e, ow) = own.map_or((SimTime::MAX, SimTime::MAX, 0), |(s, e, ow)| {
            (s, e, ow as i64)
        });
        let k = self.step_of(from);
        // The candidate start and the end of its window.
        let mut run: Option<(SimTime, SimTime)> = None;
        for (&t, &f) in self.times[k..].iter().zip(&self.free[k..]) {
            if let Some((start, end)) = run
                && t >= end
            {
                return Some(start);
            }
            let need = if t >= s && t < e { w - ow } else { w };
            if f < need {
                run = None;
            } else if run.is_none() {
                let start = t.max(from);
                if start >= before {
                    return None;
                }
                run = Some((start, start.saturating_add(span)));
            }
        }
        // The last step lasts forever.
        run.map(|(start, _)| start)
    }

    /// One cluster: the first step in `a..b` whose count, with `ow` more
    /// over the steps `lo..hi`, is below `w` (`short`) or at least `w`.
    fn find(
        &mut self,
        a: usize,
        b: usize,
        w: i64,
        (lo, hi, ow): (usize, usize, i64),
        short: bool,
    ) -> Option<usize> {
        let mut i = a;
        while i < b {
            let (to, need) = if i < lo {
                (lo.min(b), w)
            } else if i < hi {
                (hi.min(b), w - ow)
            } else {
                (b, w)
            };
            let steps = &self.free[i..to];
            let hit = if short {
                steps.iter().position(|&f| f < need).map(|d| i + d)
            } else if need == w {
                self.first_with(i, to, w)
            } else {
                steps.iter().position(|&f| f >= need).map(|d| i + d)
            };
            if hit.is_some() {
                return hit;
            }
            i = to;
        }
        None
    }

    /// One cluster: the first step in `from..to` with at least `w` free,
    /// skipping whole blocks whose largest count is below `w`.
    fn first_with(&mut self, from: usize, to: usize, w: i64) -> Option<usize> {
        let scan = |p: &Profile, a: usize, b: usize| {
            p.free[a..b].iter().position(|&f| f >= w).map(|d| a + d)
        };
        if to - from <= 2 * BLOCK {
            // Too short for a whole block to be skipped often: a scan is
            // cheaper than keeping the blocks' maxima up to date.
            return scan(self, from, to);
        }
        let mut i = from;
        while i < to {
            let b = i / BLOCK;
            let end = (b + 1) * BLOCK;
            if i == b * BLOCK && end <= to && self.block(b) < w {
                i = end;
                continue;
            }
            let e = end.min(to);
            if let Some(k) = scan(self, i, e) {
                return Some(k);
            }
            i = e;
        }
        None
    }

    /// The largest free count in block `b` (whole, within the steps),
    /// computing the blocks up to it that are not valid.
    fn block(&mut self, b: usize) -> i64 {
        if b >= self.block_valid {
            if self.block_max.len() <= b {
                self.block_max.resize(b + 1, 0);
            }
            for j in self.block_valid..=b {
                let steps = &self.free[j * BLOCK..(j + 1) * BLOCK];
                self.block_max[j] = steps.iter().copied().max().expect("a whole block");
            }
            self.block_valid = b + 1;
        }
        self.block_max[b]
    }

    /// The counts changed from step `k` on: the blocks from `k`'s are
    /// stale, and so is the prefix maximum.
    fn changed_from(&mut self, k: usize) {
        self.prefix_valid = self.prefix_valid.min(k);
        self.block_valid = self.block_valid.min(k / BLOCK);
    }

    /// Whether the profile is short enough that a search walks its steps
    /// one by one (no block is worth skipping, and a pre-check costs as
    /// much as the search).
    pub fn is_short(&self) -> bool {
        self.steps() <= 2 * BLOCK
    }

    /// The number of steps from now on.
    pub fn steps(&self) -> usize {
        self.times.len() - self.base
    }

    /// When step `k` (counted from now) begins.
    pub fn time(&self, k: usize) -> SimTime {
        self.times[self.base + k]
    }

    /// The time the profile starts at: now.
    pub fn now(&self) -> SimTime {
        self.times[self.base]
    }

    /// Moves the profile's start to `now` (not before its current start):
    /// the steps that ended are dropped.
    pub fn advance(&mut self, now: SimTime) {
        if now <= self.times[self.base] {
            return;
        }
        let k = self.step_of(now);
        self.times[k] = now;
        if k != self.base {
            self.base = k;
            self.prefix_valid = self.prefix_valid.min(k);
        }
        if self.base >= 1024 && self.base * 2 >= self.times.len() {
            let b = self.base;
            self.times.drain(..b);
            self.free.drain(..b * self.clusters);
            self.prefix_max.clear();
            self.prefix_valid = 0;
            self.block_valid = 0;
            self.base = 0;
        }
    }

    /// Drops the past steps and every step whose counts equal the step
    /// before it: the same free counts over time, in fewer steps (a kept
    /// profile collects such steps as reservations move). No search
    /// answer changes: an earliest start is always now or a time where
    /// some count changes.
    pub fn compact(&mut self) {
        let c = self.clusters;
        let mut kept = 0;
        for k in self.base..self.times.len() {
            if kept > 0 && self.free[k * c..(k + 1) * c] == self.free[(kept - 1) * c..kept * c] {
                continue;
            }
            self.times[kept] = self.times[k];
            self.free.copy_within(k * c..(k + 1) * c, kept * c);
            kept += 1;
        }
        self.times.truncate(kept);
        self.free.truncate(kept * c);
        self.base = 0;
        self.prefix_max.clear();
        self.prefix_valid = 0;
        self.block_valid = 0;
    }

    /// Whether `other` describes the same free counts from now on (steps
    /// where nothing changes do not matter).
    pub fn same_counts(&self, other: &Profile) -> bool {
        let rows = |p: &Profile| -> Vec<(SimTime, Vec<i64>)> {
            let mut v: Vec<(SimTime, Vec<i64>)> = Vec::new();
            for k in p.base..p.times.len() {
                let row = p.free[k * p.clusters..(k + 1) * p.clusters].to_vec();
                if v.last().is_none_or(|l| l.1 != row) {
                    v.push((p.times[k], row));
                }
            }
            v
        };
        self.times[self.base] == other.times[other.base] && rows(self) == rows(other)
    }

    fn row(&self, k: usize) -> &[i64] {
        &self.free[k * self.clusters..(k + 1) * self.clusters]
    }

    /// Free processors per cluster at step `k` (counted from now),
    /// negatives as zero.
    pub fn free_at(&self, k: usize) -> Vec<u32> {
        self.row(self.base + k)
            .iter()
            .map(|&f| f.max(0) as u32)
            .collect()
    }

    /// Free processors per cluster at time `t` (not before now), negatives
    /// as zero.
    pub fn free_at_time(&self, t: SimTime) -> Vec<u32> {
        self.free_at(self.step_of(t) - self.base)
    }

    /// The step holding time `t` (now's step for earlier times).
    fn step_of(&self, t: SimTime) -> usize {
        // Most searches start now.
        if self.times.get(self.base + 1).is_none_or(|&x| t < x) {
            return self.base;
        }
        self.times[self.base..]
            .partition_point(|&x| x <= t)
            .saturating_sub(1)
            + self.base
    }

    /// Makes `t` a step boundary and returns its step.
    fn split(&mut self, t: SimTime) -> usize {
        let k = self.step_of(t);
        if self.times[k] == t {
            return k;
        }
        self.changed_from(k + 1);
        self.times.insert(k + 1, t);
        let c = self.clusters;
        if c == 1 {
            self.free.insert(k + 1, self.free[k]);
        } else {
            let at = (k + 1) * c;
            self.free.splice(at..at, std::iter::repeat_n(0, c));
            self.free.copy_within(k * c..at, at);
        }
        k + 1
    }

    /// Adds `sign × width` on each assigned cluster over [from, to).
    fn add(&mut self, from: SimTime, to: SimTime, assignment: &Assignment, sign: i64) {
        // The profile starts now: what lies before it is gone.
        let from = from.max(self.times[self.base]);
        if to <= from {
            return;
        }
        let a = self.split(from);
        let b = if to == SimTime::MAX {
            self.times.len()
        } else {
            self.split(to)
        };
        self.prefix_valid = self.prefix_valid.min(a);
        for k in a..b {
            for &(c, w) in assignment {
                self.free[k * self.clusters + c as usize] += sign * w as i64;
            }
        }
        // The blocks over [a, b) are stale; those after `b` did not change
        // (a split has marked them if it shifted them).
        let (first, last) = (a / BLOCK, (b - 1) / BLOCK);
        if first < self.block_valid {
            if last + 1 >= self.block_valid {
                self.block_valid = first;
            } else {
                for j in first..=last {
                    let steps = &self.free[j * BLOCK..(j + 1) * BLOCK];
                    self.block_max[j] = steps.iter().copied().max().expect("a whole block");
                }
            }
        }
        // An edge where the counts no longer change is no boundary any
        // more (a reservation moved off it, say): merged now, a kept
        // profile does not collect such steps for every search to walk.
        // `b` first, so that `a` still names its step.
        self.merge(b);
        self.merge(a);
    }

    /// Drops step `k` (not now's) when its counts equal the step's before.
    fn merge(&mut self, k: usize) {
        let c = self.clusters;
        if k <= self.base || k >= self.times.len() {
            return;
        }
        let same = if c == 1 {
            self.free[k] == self.free[k - 1]
        } else {
            self.row(k) == self.row(k - 1)
        };
        if !same {
            return;
        }
        self.times.remove(k);
        self.free.drain(k * c..(k + 1) * c);
        self.changed_from(k);
    }

    /// Holds the processors of `assignment` over [from, from + span).
    pub fn reserve(&mut self, from: SimTime, span: SimTime, assignment: &Assignment) {
        self.add(from, from.saturating_add(span), assignment, -1);
    }

    /// Gives back a reservation made with [`Profile::reserve`].
    pub fn release(&mut self, from: SimTime, span: SimTime, assignment: &Assignment) {
        self.add(from, from.saturating_add(span), assignment, 1);
    }

    /// The earliest step start at which `placement` can place `widths` for
    /// `span` (the minimum free count over the window on every cluster),
    /// at or after `from`. `span_of` gives the span an assignment really
    /// needs (slower clusters stretch it); the window is checked again for
    /// it. Returns the start and the assignment.
    pub fn earliest(
        &mut self,
        from: SimTime,
        widths: &[u32],
        span: SimTime,
        placement: &dyn Placement,
        span_of: &dyn Fn(&Assignment) -> SimTime,
    ) -> Option<(SimTime, Assignment)> {
        self.earliest_before(from, SimTime::MAX, widths, span, placement, span_of)
    }

    /// [`Profile::earliest`] among the starts before `before` only.
    pub fn earliest_before(
        &mut self,
        from: SimTime,
        before: SimTime,
        widths: &[u32],
        span: SimTime,
        placement: &dyn Placement,
        span_of: &dyn Fn(&Assignment) -> SimTime,
    ) -> Option<(SimTime, Assignment)> {
        // No start before the first window in which some cluster keeps room
        // for the widest component throughout: skip to it (a placement puts
        // each component on a cluster with that much room over the window).
        let widest = widths.iter().copied().max().unwrap_or(0);
        let from = self.first_room(from, before, widest, span)?;
        let first = self.step_of(from);
        let n = self.times.len();
        let c = self.clusters;
        // The windows of successive candidates both begin and end later:
        // per cluster, the steps that can still be a window's minimum, in
        // a deque with rising counts (the front is the minimum), so that
        // each step goes in and out once per search.
        let mut mins = std::mem::take(&mut self.mins);
        mins.resize_with(c, Default::default);
        for q in &mut mins {
            q.clear();
        }
        let mut next = first;
        let mut found = None;
        for k in first..n {
            let t = self.times[k].max(from);
            if t >= before {
                break;
            }
            let end = t.saturating_add(span);
            while next < n && (next == k || self.times[next] < end) {
                for (i, q) in mins.iter_mut().enumerate() {
                    let f = self.free[next * c + i];
                    while q.back().is_some_and(|&j| self.free[j * c + i] >= f) {
                        q.pop_back();
                    }
                    q.push_back(next);
                }
                next += 1;
            }
            let mut any = false;
            for (i, q) in mins.iter_mut().enumerate() {
                while q.front().is_some_and(|&j| j < k) {
                    q.pop_front();
                }
                let j = *q.front().expect("step k is in its own window");
                let f = self.free[j * c + i].max(0) as u32;
                self.window[i] = f;
                any |= f > 0;
            }
            if !any {
                continue;
            }
            let Some(a) = placement.place(widths, &self.window) else {
                continue;
            };
            let need = span_of(&a);
            if need > span && !self.fits_over(k, t.saturating_add(need), &a) {
                continue;
            }
            found = Some((t, a));
            break;
        }
        self.mins = mins;
        found
    }

    /// The earliest time from `from` and before `before` at which some
    /// cluster has `width` processors free over [t, t + span), if any: a
    /// start no job with a component that wide can precede. A scan of
    /// each cluster's counts, which stops at the best start found so far.
    fn first_room(
        &self,
        from: SimTime,
        before: SimTime,
        width: u32,
        span: SimTime,
    ) -> Option<SimTime> {
        let first = self.step_of(from);
        let n = self.times.len();
        let c = self.clusters;
        let w = width as i64;
        let mut best: Option<SimTime> = None;
        for i in 0..c {
            let bound = best.unwrap_or(before).min(before);
            let mut run: Option<SimTime> = None;
            for k in first..n {
                let t = self.times[k].max(from);
                if run.is_none() && t >= bound {
                    break;
                }
                if self.free[k * c + i] < w {
                    run = None;
                    continue;
                }
                let start = *run.get_or_insert(t);
                let covered = match self.times.get(k + 1) {
                    Some(&next) => start.saturating_add(span) <= next,
                    None => true,
                };
                if covered {
                    if start < bound {
                        best = Some(start);
                    }
                    break;
                }
            }
        }
        best
    }

    /// Whether every step in [from, to) has room for what `a` holds there
    /// already (no count below zero on its clusters).
    pub fn holds(&self, from: SimTime, to: SimTime, a: &Assignment) -> bool {
        let from = from.max(self.times[self.base]);
        let mut j = self.step_of(from);
        while j < self.times.len() && self.times[j] < to {
            if a.iter()
                .any(|&(c, _)| self.free[j * self.clusters + c as usize] < 0)
            {
                return false;
            }
            j += 1;
        }
        true
    }

    /// The times between which some step has a count below zero (on any
    /// cluster): from the first such step's start to the last one's end.
    /// `None` when no count is below zero. Giving room back only raises
    /// counts, so the bounds stay true (if loose) after releases.
    pub fn negative_bounds(&self) -> Option<(SimTime, SimTime)> {
        let c = self.clusters;
        let row_neg = |k: usize| self.free[k * c..(k + 1) * c].iter().any(|&f| f < 0);
        let n = self.times.len();
        let first = (self.base..n).find(|&k| row_neg(k))?;
        let last = (first..n)
            .rev()
            .find(|&k| row_neg(k))
            .expect("first is one");
        let end = if last + 1 < n {
            self.times[last + 1]
        } else {
            SimTime::MAX
        };
        Some((self.times[first], end))
    }

    fn fits_over(&self, k: usize, end: SimTime, a: &Assignment) -> bool {
        let mut j = k;
        while j < self.times.len() && (j == k || self.times[j] < end) {
            if a.iter()
                .any(|&(c, w)| self.free[j * self.clusters + c as usize] < w as i64)
            {
                return false;
            }
            j += 1;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::placement::WorstFit;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn s(x: i64) -> SimTime {
        SimTime::from_secs(x)
    }

    /// The first step in `from..to` with at least `w` free, by a plain scan.
    fn scan_first_with(p: &Profile, from: usize, to: usize, w: i64) -> Option<usize> {
        p.free[from..to]
            .iter()
            .position(|&f| f >= w)
            .map(|d| from + d)
    }

    /// The block-skipping search agrees with a plain scan through random
    /// reservations, releases and advances (blocks made stale by splits,
    /// by adds inside valid blocks, and by dropping past steps).
    impl Profile {
        /// The search as a walk over every step, to check the scans against.
        fn earliest_single_walk(
            &mut self,
            from: SimTime,
            before: SimTime,
            width: u32,
            span: SimTime,
            own: Option<(SimTime, SimTime, u32)>,
        ) -> Option<SimTime> {
            debug_assert_eq!(self.clusters, 1);
            let w = width as i64;
            let n = self.times.len();
            let mut k = self.step_of(from);
            let free_at = |p: &Profile, j: usize| -> i64 {
                let mut f = p.free[j];
                if let Some((s, e, ow)) = own
                    && p.times[j] >= s
                    && p.times[j] < e
                {
                    f += ow as i64;
                }
                f
            };
            // Steps before the job's own reservation count as they are: the
            // run of steps too full for it is skipped in one tight pass there.
            let plain_until = match own {
                Some((s, _, _)) => self.times.partition_point(|&t| t < s),
                None => n,
            };
            let mut cand = self.times[k].max(from);
            while k < n {
                if cand >= before {
                    return None;
                }
                if free_at(self, k) < w {
                    k += 1;
                    if k < plain_until {
                        k = self.first_with(k, plain_until, w).unwrap_or(plain_until);
                    }
                    if k < n {
                        cand = self.times[k];
                    }
                    continue;
                }
                let end = cand.saturating_add(span);
                if k + 1 >= n || self.times[k + 1] >= end {
                    return Some(cand);
                }
                k += 1;
            }
            None
        }
    }

    /// A profile under random reservations, releases and advances: the
    /// profile, the reservations held, now (in seconds) and the generator.
    struct Churn {
        p: Profile,
        held: Vec<(SimTime, SimTime, u32)>,
        now: i64,
        rng: ChaCha8Rng,
    }

    impl Churn {
        fn new(seed: u64) -> Churn {
            Churn {
                p: Profile::new(s(0), &[40], &[(s(5), 0, 20)]),
                held: Vec::new(),
                now: 0,
                rng: ChaCha8Rng::seed_from_u64(seed),
            }
        }

        fn next(&mut self, m: u64) -> u64 {
            self.rng.random_range(0..m)
        }

        /// One random change: reserve (ahead up to `ahead` s), release or
        /// advance.
        fn round(&mut self, ahead: u64) {
            match self.next(10) {
                0..=5 => {
                    let from = s(self.now + self.next(ahead) as i64);
                    let span = s(1 + self.next(300) as i64);
                    let w = 1 + self.next(30) as u32;
                    self.p.reserve(from, span, &vec![(0, w)]);
                    self.held.push((from, span, w));
                }
                6..=7 if !self.held.is_empty() => {
                    let i = self.next(self.held.len() as u64) as usize;
                    let (from, span, w) = self.held.swap_remove(i);
                    self.p.release(from, span, &vec![(0, w)]);
                }
                _ => {
                    self.now += self.next(20) as i64;
                    self.p.advance(s(self.now));
                }
            }
        }
    }

    /// The search agrees with a walk over every step through random
    /// reservations, releases and advances, with and without an own
    /// reservation counted as free.
    #[test]
    fn earliest_single_agrees_with_a_walk() {
        let mut c = Churn::new(11);
        let (mut checked, mut found, mut owned, mut long) = (0, 0, 0, 0);
        for round in 0..3000 {
            c.round(3000);
            if round % 5 != 0 {
                continue;
            }
            for _ in 0..6 {
                let from = s(c.now + c.next(2000) as i64 - 100);
                let before = if c.next(3) == 0 {
                    SimTime::MAX
                } else {
                    from + s(c.next(3000) as i64)
                };
                let (w, span) = (c.next(45) as u32, s(c.next(400) as i64));
                let i = c.next(c.held.len() as u64 + 1) as usize;
                let own = match c.held.get(i).copied() {
                    Some((f, sp, ow)) if c.next(2) == 0 => Some((f, f + sp, ow)),
                    _ => None,
                };
                let got = c.p.earliest_single(from, before, w, span, own);
                let want = c.p.earliest_single_walk(from, before, w, span, own);
                assert_eq!(
                    got, want,
                    "from {from:?} before {before:?} w {w} span {span:?} own {own:?}"
                );
                // Both searches, whichever the profile's length picks.
                assert_eq!(
                    c.p.earliest_single_short(from, before, w, span, own),
                    want,
                    "one pass: from {from:?} before {before:?} w {w} span {span:?} own {own:?}"
                );
                long += !c.p.is_short() as usize;
                checked += 1;
                found += got.is_some() as usize;
                owned += own.is_some() as usize;
            }
        }
        assert!(
            checked > 3000 && found > 1000 && owned > 500 && long > 1000 && checked - long > 100,
            "{checked} {found} {owned} {long}"
        );
    }

    /// A step that begins exactly where the job's own reservation ends is
    /// not the job's: its processors count as they are, on a long profile
    /// and a short one alike.
    #[test]
    fn the_step_at_the_own_reservations_end_is_not_its_own() {
        // 10 processors. The job's own reservation holds 4 over [100, 150)
        // beside another holding 6; from 150 another holds 7 until 300.
        // A 5-wide job fits nowhere before 300, counting its own 4 as free
        // over [100, 150) only.
        let one = |w| vec![(0u16, w)];
        let mut p = Profile::new(s(0), &[10], &[]);
        p.reserve(s(100), s(50), &one(4));
        p.reserve(s(100), s(50), &one(6));
        p.reserve(s(150), s(150), &one(7));
        let own = Some((s(100), s(150), 4));
        assert!(p.is_short());
        assert_eq!(
            p.earliest_single(s(100), SimTime::MAX, 5, s(10), own),
            Some(s(300))
        );
        // Made long by reservations far later.
        for i in 0..100 {
            p.reserve(s(10_000 + 10 * i), s(1), &one(1));
        }
        assert!(!p.is_short());
        assert_eq!(
            p.earliest_single(s(100), SimTime::MAX, 5, s(10), own),
            Some(s(300))
        );
    }

    /// A hold without end (a span that saturates) is taken and given
    /// back like any other, its last edge the profile's end.
    #[test]
    fn a_hold_without_end_is_taken_and_given_back() {
        let mut p = Profile::new(s(0), &[10], &[(s(20), 0, 2)]);
        let before = p.clone();
        p.reserve(s(5), SimTime::MAX, &vec![(0, 3)]);
        assert_eq!(p.free_at_time(s(100)), vec![9]);
        p.release(s(5), SimTime::MAX, &vec![(0, 3)]);
        assert!(p.same_counts(&before));
        assert_eq!(p.steps(), 2, "the edge at 5 merged away");
    }

    #[test]
    fn block_search_agrees_with_a_scan() {
        let mut c = Churn::new(7);
        let mut checked = 0;
        for round in 0..3000 {
            c.round(4000);
            if round % 7 != 0 {
                continue;
            }
            let (n, base) = (c.p.times.len(), c.p.base);
            for _ in 0..8 {
                let from = base + c.next((n - base) as u64) as usize;
                let to = from + c.next((n - from + 1) as u64) as usize;
                let w = c.next(60) as i64 - 10;
                let want = scan_first_with(&c.p, from, to, w);
                assert_eq!(
                    c.p.first_with(from, to, w),
                    want,
                    "from {from} to {to} w {w}"
                );
                checked += 1;
            }
        }
        let p = &c.p;
        assert!(
            checked > 3000 && p.times.len() > 4 * BLOCK,
            "{checked} {}",
            p.times.len()
        );
    }

    #[test]
    fn builds_steps_and_finds_the_earliest_window() {
        // One cluster: 2 free now, +3 at 10, +5 at 20.
        let mut p = Profile::new(s(0), &[2], &[(s(10), 0, 3), (s(20), 0, 5)]);
        assert_eq!(p.steps(), 3);
        let one = |_: &Assignment| s(5);
        assert_eq!(
            p.earliest(s(0), &[2], s(5), &WorstFit, &one).unwrap().0,
            s(0)
        );
        assert_eq!(
            p.earliest(s(0), &[4], s(5), &WorstFit, &one).unwrap().0,
            s(10)
        );
        assert_eq!(
            p.earliest(s(0), &[6], s(5), &WorstFit, &one).unwrap().0,
            s(20)
        );
        // Reserve 5 over [10, 30): 0 free in [10, 20), 5 in [20, 30); a
        // 4-wide job now fits only from 20 …
        p.reserve(s(10), s(20), &vec![(0, 5)]);
        assert_eq!(
            p.earliest(s(0), &[4], s(5), &WorstFit, &one).unwrap().0,
            s(20)
        );
        // … and a 2-wide, 15 s job cannot start at 0 (it would need 2
        // during [10, 15) where 0 are left).
        let long = |_: &Assignment| s(15);
        assert_eq!(
            p.earliest(s(0), &[2], s(15), &WorstFit, &long).unwrap().0,
            s(20)
        );
        p.release(s(10), s(20), &vec![(0, 5)]);
        assert_eq!(
            p.earliest(s(0), &[4], s(5), &WorstFit, &one).unwrap().0,
            s(10)
        );
    }

    /// What was done to a profile, kept as a list: the counts worked out
    /// from scratch, for the profile's steps, merges, blocks, prefix
    /// maxima and dropped past steps to be checked against.
    struct Naive {
        now: SimTime,
        initial: Vec<i64>,
        /// `delta` on `cluster` over [from, to): releases run to the end.
        changes: Vec<(SimTime, SimTime, u16, i64)>,
    }

    /// Steps worked out from a [`Naive`] list: (start, counts), each
    /// differing from the one before, the first at now.
    struct Steps(Vec<(SimTime, Vec<i64>)>);

    impl Naive {
        /// A sweep over the edges of every change.
        fn steps(&self) -> Steps {
            let mut row = self.initial.clone();
            let mut edges: Vec<(SimTime, u16, i64)> = Vec::new();
            for &(a, b, c, d) in &self.changes {
                if b <= self.now {
                    continue;
                }
                if a <= self.now {
                    row[c as usize] += d;
                } else {
                    edges.push((a, c, d));
                }
                if b < SimTime::MAX {
                    edges.push((b, c, -d));
                }
            }
            edges.sort_unstable_by_key(|e| e.0);
            let mut out = vec![(self.now, row.clone())];
            let mut i = 0;
            while i < edges.len() {
                let t = edges[i].0;
                while i < edges.len() && edges[i].0 == t {
                    row[edges[i].1 as usize] += edges[i].2;
                    i += 1;
                }
                if out.last().is_some_and(|l| l.1 != row) {
                    out.push((t, row.clone()));
                }
            }
            Steps(out)
        }
    }

    impl Steps {
        /// The counts at `t` (not before now).
        fn at(&self, t: SimTime) -> &[i64] {
            let i = self.0.partition_point(|(x, _)| *x <= t);
            &self.0[i - 1].1
        }

        /// `from` and every step start in (from, to).
        fn times_in(&self, from: SimTime, to: SimTime) -> Vec<SimTime> {
            let mut v = vec![from];
            v.extend(self.0.iter().map(|s| s.0).filter(|&t| t > from && t < to));
            v
        }
    }

    /// A profile of several clusters (or one) under random reservations
    /// (some before now, some without end, some driving counts below
    /// zero), releases, advances and compactions, with the same done to a
    /// [`Naive`] list.
    struct Model {
        p: Profile,
        naive: Naive,
        held: Vec<(SimTime, SimTime, Assignment)>,
        rng: ChaCha8Rng,
        drops: usize,
        compactions: usize,
        found: usize,
    }

    impl Model {
        fn new(seed: u64, free: &[u32]) -> Model {
            let releases: Vec<(SimTime, u16, u32)> = (0..free.len() as u16)
                .flat_map(|c| [(s(0), c, 1), (s(7 + c as i64), c, 3)])
                .collect();
            let p = Profile::new(s(0), free, &releases);
            let mut changes = Vec::new();
            for &(t, c, w) in &releases {
                changes.push((t, SimTime::MAX, c, w as i64));
            }
            Model {
                p,
                naive: Naive {
                    now: s(0),
                    initial: free.iter().map(|&f| f as i64).collect(),
                    changes,
                },
                held: Vec::new(),
                rng: ChaCha8Rng::seed_from_u64(seed),
                drops: 0,
                compactions: 0,
                found: 0,
            }
        }

        fn next(&mut self, m: u64) -> u64 {
            self.rng.random_range(0..m)
        }

        fn now(&self) -> i64 {
            self.naive.now.as_secs_f64() as i64
        }

        fn assignment(&mut self) -> Assignment {
            let c = self.p.clusters as u64;
            let mut a: Assignment = Vec::new();
            for _ in 0..1 + self.next(c) {
                let k = self.next(c) as u16;
                if a.iter().all(|&(x, _)| x != k) {
                    a.push((k, 1 + self.next(4) as u32));
                }
            }
            a
        }

        fn round(&mut self) {
            match self.next(20) {
                0..=7 => {
                    let from = s(self.now() + self.next(2000) as i64 - 50);
                    let span = if self.next(60) == 0 {
                        SimTime::MAX
                    } else {
                        s(1 + self.next(100) as i64)
                    };
                    let a = self.assignment();
                    self.p.reserve(from, span, &a);
                    let to = from.saturating_add(span);
                    for &(c, w) in &a {
                        self.naive.changes.push((from, to, c, -(w as i64)));
                    }
                    self.held.push((from, span, a));
                }
                8..=12 if !self.held.is_empty() => {
                    let i = self.next(self.held.len() as u64) as usize;
                    let (from, span, a) = self.held.swap_remove(i);
                    self.p.release(from, span, &a);
                    // From now on, as if it had never been made.
                    let to = from.saturating_add(span);
                    for &(c, w) in &a {
                        let e = (from, to, c, -(w as i64));
                        let i = self
                            .naive
                            .changes
                            .iter()
                            .position(|&x| x == e)
                            .expect("the reservation is listed");
                        self.naive.changes.swap_remove(i);
                    }
                }
                16 if self.next(50) == 0 => {
                    self.p.compact();
                    self.compactions += 1;
                    assert_eq!(self.p.steps(), self.naive.steps().0.len(), "compacted");
                }
                _ => {
                    let len = self.p.times.len();
                    let now = s(self.now() + self.next(25) as i64);
                    self.p.advance(now);
                    self.naive.now = self.naive.now.max(now);
                    self.drops += (self.p.times.len() < len) as usize;
                }
            }
        }

        /// Every query of the profile against the list.
        fn check(&mut self) {
            let now = self.naive.now;
            assert_eq!(self.p.now(), now);
            let steps = self.naive.steps();
            let clamped = |r: &[i64]| -> Vec<u32> { r.iter().map(|&f| f.max(0) as u32).collect() };
            // Every step of the list is a step of the profile, with its
            // counts (negatives as zero), and the profile has no others
            // but steps that change nothing.
            assert!(self.p.steps() >= steps.0.len());
            for (t, row) in &steps.0 {
                assert_eq!(self.p.free_at_time(*t), clamped(row), "at {t:?}");
                assert!(self.p.times[self.p.base..].contains(t), "no step at {t:?}");
            }
            for k in 0..self.p.steps() {
                let t = self.p.time(k);
                assert_eq!(self.p.free_at(k), clamped(steps.at(t)), "step {k} at {t:?}");
                let raw = &self.p.free[(self.p.base + k) * self.p.clusters..][..self.p.clusters];
                assert_eq!(raw, steps.at(t), "step {k} at {t:?}, below zero too");
            }
            let t = s(self.now() + self.next(3000) as i64);
            assert_eq!(self.p.free_at_time(t), clamped(steps.at(t)), "at {t:?}");
            // Below zero: from the first such step's start to the last
            // one's end.
            let neg = |r: &Vec<i64>| r.iter().any(|&f| f < 0);
            let want = steps.0.iter().position(|(_, r)| neg(r)).map(|i| {
                let j = steps.0.iter().rposition(|(_, r)| neg(r)).expect("i is one");
                let end = steps.0.get(j + 1).map_or(SimTime::MAX, |s| s.0);
                (steps.0[i].0, end)
            });
            assert_eq!(self.p.negative_bounds(), want);
            // Whether a held assignment still has room.
            let from = s(self.now() + self.next(2000) as i64 - 50);
            let to = from + s(1 + self.next(500) as i64);
            let a = self.assignment();
            // (Nothing to hold over a window that ended before now.)
            let want = from.max(now) >= to
                || steps
                    .times_in(from.max(now), to)
                    .iter()
                    .all(|&x| a.iter().all(|&(c, _)| steps.at(x)[c as usize] >= 0));
            assert_eq!(
                self.p.holds(from, to, &a),
                want,
                "holds {from:?}..{to:?} {a:?}"
            );
            // One cluster: the largest count before a time.
            if self.p.clusters == 1 {
                let until = s(self.now() + self.next(3000) as i64 - 100);
                let want = steps
                    .0
                    .iter()
                    .filter(|(t, _)| *t < until)
                    .map(|(_, r)| r[0])
                    .max()
                    .unwrap_or(i64::MIN);
                assert_eq!(self.p.max_free_before(until), want, "until {until:?}");
            }
            // One cluster: the block search for a step with room, against
            // a scan of the raw counts; and the one-cluster search for a
            // window, against the steps.
            if self.p.clusters == 1 {
                let (n, base) = (self.p.times.len(), self.p.base);
                for _ in 0..4 {
                    let from = base + self.next((n - base) as u64) as usize;
                    let to = from + self.next((n - from + 1) as u64) as usize;
                    let w = self.next(50) as i64 - 10;
                    let want = scan_first_with(&self.p, from, to, w);
                    assert_eq!(self.p.first_with(from, to, w), want, "{from}..{to} {w}");
                }
                let from = s(self.now() + self.next(1500) as i64 - 50);
                let before = if self.next(3) == 0 {
                    SimTime::MAX
                } else {
                    from + s(self.next(2000) as i64)
                };
                let (w, span) = (self.next(45) as u32, s(self.next(300) as i64));
                let start = from.max(now);
                let mut cands = vec![start];
                cands.extend(steps.0.iter().map(|s| s.0).filter(|&t| t > start));
                let want = cands
                    .into_iter()
                    .find(|&t| {
                        t >= before
                            || steps
                                .times_in(t, t.saturating_add(span))
                                .iter()
                                .all(|&x| steps.at(x)[0] >= w as i64)
                    })
                    .filter(|&t| t < before);
                let got = self.p.earliest_single(from, before, w, span, None);
                assert_eq!(
                    got, want,
                    "from {from:?} before {before:?} w {w} span {span:?}"
                );
            }
            // The earliest start of a job of one or two components, a
            // split one running 10 s longer per extra cluster.
            let from = s(self.now() + self.next(1500) as i64 - 50);
            let span = s(1 + self.next(400) as i64);
            let widths: Vec<u32> = (0..1 + self.next(self.p.clusters.min(2) as u64))
                .map(|_| 1 + self.next(36) as u32)
                .collect();
            let span_of = |a: &Assignment| span + s(10 * (a.len() as i64 - 1));
            let got = self.p.earliest(from, &widths, span, &WorstFit, &span_of);
            let want = self.naive_earliest(&steps, from, &widths, span, &span_of);
            assert_eq!(got, want, "earliest from {from:?} {widths:?} for {span:?}");
            self.found += got.is_some() as usize;
        }

        /// The earliest start worked out from the list, at the profile's
        /// step starts.
        fn naive_earliest(
            &self,
            steps: &Steps,
            from: SimTime,
            widths: &[u32],
            span: SimTime,
            span_of: &dyn Fn(&Assignment) -> SimTime,
        ) -> Option<(SimTime, Assignment)> {
            let start = from.max(self.naive.now);
            let mut cands = vec![start];
            cands.extend(
                self.p.times[self.p.base..]
                    .iter()
                    .copied()
                    .filter(|&t| t > start),
            );
            for t in cands {
                let end = t.saturating_add(span);
                let mut window = vec![u32::MAX; self.p.clusters];
                for x in steps.times_in(t, end) {
                    for (w, &f) in window.iter_mut().zip(steps.at(x)) {
                        *w = (*w).min(f.max(0) as u32);
                    }
                }
                if window.iter().all(|&f| f == 0) {
                    continue;
                }
                let Some(a) = WorstFit.place(widths, &window) else {
                    continue;
                };
                let need = span_of(&a);
                if need > span {
                    let fits = steps
                        .times_in(t, t.saturating_add(need))
                        .iter()
                        .all(|&x| a.iter().all(|&(c, w)| steps.at(x)[c as usize] >= w as i64));
                    if !fits {
                        continue;
                    }
                }
                return Some((t, a));
            }
            None
        }
    }

    /// Every query agrees with the counts worked out from scratch, on one
    /// cluster and on three, through thousands of random changes: long
    /// enough for past steps to be dropped in batches and for the block
    /// maxima to be used.
    #[test]
    fn every_query_agrees_with_the_counts_worked_out_from_scratch() {
        for (seed, free) in [(1u64, vec![30u32]), (2, vec![16, 10, 24]), (3, vec![40])] {
            let mut m = Model::new(seed, &free);
            let (mut checked, mut negative, mut split, mut long) = (0, 0, 0, 0);
            for round in 0..6000 {
                m.round();
                if round % 10 == 0 {
                    m.check();
                    checked += 1;
                    negative += m.p.negative_bounds().is_some() as usize;
                    long += !m.p.is_short() as usize;
                }
                if round % 50 == 0 {
                    let a =
                        m.p.earliest(s(m.now()), &[3, 3], s(50), &WorstFit, &|a: &Assignment| {
                            s(50 + 10 * (a.len() as i64 - 1))
                        });
                    split += a.is_some_and(|(_, a)| a.len() == 2) as usize;
                }
            }
            // Each kind of answer is met often: counts below zero and not,
            // long profiles and short, a start found and none.
            let found = m.found;
            assert!(
                checked == 600
                    && (100..590).contains(&negative)
                    && (300..570).contains(&long)
                    && (100..590).contains(&found),
                "{checked} {negative} {long} {found}"
            );
            assert!(
                m.drops > 0 && m.compactions > 0,
                "{} {}",
                m.drops,
                m.compactions
            );
            if free.len() > 1 {
                assert!(split > 20, "{split}");
            }
        }
    }

    /// Two profiles of the same counts from the same time are the same
    /// whatever their steps; a count or the start differing tells them
    /// apart.
    #[test]
    fn same_counts_looks_at_counts_and_start_not_steps() {
        let p = Profile::new(s(0), &[10, 4], &[(s(20), 1, 2)]);
        // A change of nothing at 30 is a step of its own here.
        let mut q = Profile::from_changes(s(0), &[10, 4], &mut [(s(20), 1, 2), (s(30), 0, 0)]);
        assert_eq!((p.steps(), q.steps()), (2, 3));
        assert!(p.same_counts(&q) && q.same_counts(&p));
        q.reserve(s(40), s(1), &vec![(1, 1)]);
        assert!(!p.same_counts(&q) && !q.same_counts(&p), "a count differs");
        let mut r = p.clone();
        r.advance(s(1));
        assert!(
            !p.same_counts(&r) && !r.same_counts(&p),
            "the start differs"
        );
        let mut r2 = p.clone();
        r2.advance(s(1));
        assert!(r.same_counts(&r2));
    }

    /// A profile built from changes that cancel out at an instant (a
    /// release and a reservation of the same processors at once, as a
    /// policy builds one afresh) has steps that change nothing;
    /// compaction merges them and drops the past steps, and no count
    /// moves. On one cluster and on three.
    #[test]
    fn compaction_merges_the_steps_that_change_nothing() {
        for clusters in [1u16, 3] {
            let free = vec![10u32; clusters as usize];
            let mut changes = Vec::new();
            for c in 0..clusters {
                changes.extend([
                    (s(10), c, 4),
                    (s(10), c, -4),
                    (s(20), c, -3),
                    (s(30), c, 2),
                    (s(40), c, -2),
                    (s(40), c, 2),
                    (s(50), c, 1),
                ]);
            }
            let mut p = Profile::from_changes(s(0), &free, &mut changes);
            assert_eq!(p.steps(), 6, "at 0, 10, 20, 30, 40 and 50");
            p.advance(s(15));
            let before: Vec<(SimTime, Vec<u32>)> = [15, 20, 25, 30, 45, 50, 60]
                .map(|t| (s(t), p.free_at_time(s(t))))
                .to_vec();
            p.compact();
            // 10 and 40 change nothing; 0 and 10 are past.
            assert_eq!(p.steps(), 4, "{clusters} clusters");
            assert_eq!((p.base, p.times.len()), (0, 4));
            assert_eq!(
                (0..4).map(|k| p.time(k)).collect::<Vec<_>>(),
                vec![s(15), s(20), s(30), s(50)]
            );
            for (t, f) in before {
                assert_eq!(p.free_at_time(t), f, "at {t:?}");
            }
            assert_eq!(p.free_at_time(s(20)), vec![7; clusters as usize]);
        }
    }

    /// A step that begins where a window ends is not in it: 5 of 10
    /// processors fit over [0, 20) though 8 are held from 20, whether the
    /// window is the span asked for or the longer one the placement needs.
    #[test]
    fn a_step_that_begins_where_the_window_ends_is_not_in_it() {
        let mut p = Profile::new(s(0), &[10], &[]);
        p.reserve(s(20), s(10), &vec![(0, 8)]);
        let twenty = |_: &Assignment| s(20);
        let at_once = Some((s(0), vec![(0, 5)]));
        assert_eq!(p.earliest(s(0), &[5], s(20), &WorstFit, &twenty), at_once);
        assert_eq!(p.earliest(s(0), &[5], s(10), &WorstFit, &twenty), at_once);
        assert_eq!(
            p.earliest(s(0), &[5], s(21), &WorstFit, &twenty),
            Some((s(30), vec![(0, 5)]))
        );
    }

    /// 100 processors, one held over [10i, 10i + 5) for i < 300 (600
    /// steps), and `b` held from 1000 for `span`.
    fn six_hundred_steps_and(span: SimTime, b: &Assignment) -> Profile {
        let mut p = Profile::new(s(0), &[100], &[]);
        for i in 0..300 {
            p.reserve(s(10 * i), s(5), &vec![(0, 1)]);
        }
        p.reserve(s(1000), span, b);
        p
    }

    /// The blocks' maxima kept up to date in place: a release inside
    /// blocks already worked out, both its edges steps already and
    /// neither merging away, raises their maxima; a search for room there
    /// must not skip them on the old ones.
    #[test]
    fn a_release_inside_worked_out_blocks_raises_their_maxima() {
        // B over [1000, 2000), on edges already there.
        let b = vec![(0, 60)];
        let mut p = six_hundred_steps_and(s(1000), &b);
        let (at, len) = (p.step_of(s(1000)), p.times.len());
        assert_eq!((at, len), (200, 600));
        // Work every whole block out: nothing has 101.
        assert_eq!(p.first_with(0, len, 101), None);
        assert_eq!(p.first_with(at, len, 50), Some(400));
        assert!(p.block_valid * BLOCK > 400);
        p.release(s(1000), s(1000), &b);
        assert_eq!(p.times.len(), 600, "no step added or merged");
        // From the start of each block (4 and 5 lie wholly inside B).
        for from in [at, 4 * BLOCK, 5 * BLOCK] {
            for w in [50, 99, 100] {
                let want = scan_first_with(&p, from, len, w);
                assert_eq!(p.first_with(from, len, w), want, "from {from} w {w}");
            }
            assert_eq!(p.first_with(from, len, 50), Some(from));
        }
    }

    /// The same release ending three steps into a block: the blocks
    /// worked out in place run to the block of its last step, not to the
    /// one its offset inside that block would name.
    #[test]
    fn a_release_ending_early_in_a_block_raises_every_block_it_covers() {
        // B over steps [200, 387): 387 = 6 × BLOCK + 3.
        let b = vec![(0, 60)];
        let mut p = six_hundred_steps_and(s(935), &b);
        let len = p.times.len();
        assert_eq!(
            (p.step_of(s(1000)), p.step_of(s(1935)), len),
            (200, 387, 600)
        );
        assert_eq!(p.first_with(0, len, 101), None);
        assert!(p.block_valid > 7, "blocks 3 to 6 worked out");
        p.release(s(1000), s(935), &b);
        assert_eq!(p.times.len(), 600, "no step added or merged");
        for from in [4 * BLOCK, 5 * BLOCK] {
            assert_eq!(p.first_with(from, len, 99), Some(from), "from {from}");
        }
    }
}
