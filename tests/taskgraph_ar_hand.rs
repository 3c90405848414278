//! The paper's Figure 1 graph worked by hand through the four
//! advance-reservation steps: rearrange, move (its Figure 3), interweave
//! with a second copy (its Figure 4) and backfill the gaps.
//!
//! The figure itself is not in the text we have; the graph below is
//! rebuilt from what the text says: nine subtasks T0–T8 of one time unit
//! each, T6 depends on T4 and T5 and runs on PE0, three of the four TPEs
//! are used for a length of 6 (efficiency 9/18), rearranging maps PE0, PE1,
//! PE2 to PE2, PE0, PE1, and moving takes T1 and T8 from the new PE0 to
//! PE1 and PE2, after which two PEs suffice. Edge costs are ours.

use schedscope::taskgraph::TaskGraph;
use schedscope::taskgraph::ar::{
    self, Candidate, Filled, Move, Occupant, RearrangeOrder, Reservation,
};
use schedscope::taskgraph::schedule::Schedule;

fn figure1() -> (TaskGraph, Schedule) {
    let g = TaskGraph::new(
        vec![1; 9],
        &[
            (0, 1, 2),
            (0, 2, 1),
            (0, 3, 1),
            (1, 8, 1),
            (2, 7, 1),
            (3, 4, 1),
            (3, 5, 1),
            (3, 7, 2),
            (4, 6, 1),
            (5, 6, 1),
            (5, 8, 1),
        ],
    )
    .unwrap();
    // PE0: T0 T3 T4 T5 T6 at 0..5; PE1: T1 at 3 (T0's data costs 2), T8
    // at 5 (T5's costs 1); PE2: T2 at 2, T7 at 4 (T3's data costs 2).
    let s = Schedule {
        procs: 4,
        proc: vec![0, 1, 2, 0, 0, 0, 0, 2, 1],
        start: vec![0, 3, 2, 1, 2, 3, 4, 4, 5],
    };
    (g, s)
}

#[test]
fn figure1_schedule_is_valid_with_efficiency_one_half() {
    let (g, s) = figure1();
    s.validate(&g).unwrap();
    assert_eq!(s.makespan(&g), 6);
    assert_eq!(s.used_procs(), 3);
    assert_eq!(s.efficiency(&g), 0.5);
}

#[test]
fn rearranging_least_busy_first_gives_the_papers_relabelling() {
    // PE0 (5 subtasks) → PE2, PE1 (2) → PE0, PE2 (2) → PE1, as in Figure 3(a).
    let (g, s) = figure1();
    let r = ar::rearrange(&s, RearrangeOrder::LeastBusyFirst);
    assert_eq!(r.proc, vec![2, 0, 1, 2, 2, 2, 2, 1, 0]);
    assert_eq!(r.start, s.start);
    r.validate(&g).unwrap();
    // Busiest first keeps this schedule's labels (PE0 is the busiest).
    assert_eq!(ar::rearrange(&s, RearrangeOrder::BusiestFirst), s);
}

#[test]
fn moving_empties_pe0_as_in_figure_3b() {
    let (g, s) = figure1();
    let r = ar::rearrange(&s, RearrangeOrder::LeastBusyFirst);
    let (m, moves) = ar::move_subtasks(&g, &r);
    // T1 (3–4) cannot join T5 on PE2, so it goes to PE1's empty slot; T8
    // (5–6) fits on PE2 after T6. Then PE1's T2 (2–3) has no slot on PE2,
    // and T0 cannot leave PE2 (T3 would wait for its data): done.
    assert_eq!(
        moves,
        vec![
            Move {
                task: 1,
                from: 0,
                to: 1
            },
            Move {
                task: 8,
                from: 0,
                to: 2
            },
        ]
    );
    assert_eq!(m.proc, vec![2, 1, 1, 2, 2, 2, 2, 1, 2]);
    assert_eq!(m.start, s.start);
    m.validate(&g).unwrap();
    assert_eq!(m.used_procs(), 2);
    assert_eq!(m.efficiency(&g), 0.75);
}

#[test]
fn compacting_busiest_first_makes_the_same_moves() {
    let (g, s) = figure1();
    let c = ar::compact(&g, &s, RearrangeOrder::BusiestFirst);
    c.validate(&g).unwrap();
    // Row 0: T0 T3 T4 T5 T6 T8 at 0..6; row 1: T2 at 2, T1 at 3, T7 at 4.
    assert_eq!(c.proc, vec![0, 1, 1, 0, 0, 0, 0, 1, 0]);
    assert_eq!(c.start, vec![0, 3, 2, 1, 2, 3, 4, 4, 5]);
    assert_eq!(
        c.rows(),
        vec![vec![0, 3, 4, 5, 6, 8], vec![2, 1, 7], vec![], vec![]]
    );
}

fn interwoven(width: usize) -> (TaskGraph, Schedule, Reservation) {
    let (g, s) = figure1();
    let c = ar::compact(&g, &s, RearrangeOrder::BusiestFirst);
    let mut r = Reservation::new(width);
    assert_eq!(r.interweave(&g, &c), Ok(0));
    assert_eq!(r.interweave(&g, &c), Ok(1));
    (g, c, r)
}

#[test]
fn interweaving_two_copies_on_three_processors_as_in_figure_4() {
    let (g, c, r) = interwoven(3);
    // Copy A at offset 0: row 0 on P0 (0–6), row 1 on P1 (2–5).
    assert_eq!(r.placements[0].offset, 0);
    assert_eq!(r.placements[0].rows, vec![Some(0), Some(1), None, None]);
    // Copy B: its long row fits only on P2; its short row (2–5 in its own
    // time) must then meet P1 after copy A's T7 ends at 5, so both rows
    // are delayed by 3 (offsets 0, 1 and 2 put the short row on P1 while
    // A still runs there).
    assert_eq!(r.placements[1].offset, 3);
    assert_eq!(r.placements[1].rows, vec![Some(2), Some(1), None, None]);
    let b = r.placed_schedule(1, &c);
    assert_eq!(b.start, vec![3, 6, 5, 4, 5, 6, 7, 7, 8]);
    assert_eq!(b.proc, vec![2, 1, 1, 2, 2, 2, 2, 1, 2]);
    for i in 0..2 {
        r.placed_schedule(i, &c).validate(&g).unwrap();
    }
    assert!(r.is_disjoint());
    // 9 units instead of 6 + 6: a 25 % shorter reservation.
    assert_eq!(r.length(), 9);
    assert_eq!(r.serial_length(), 12);
    assert_eq!(r.reduction_pct(), 25.0);
}

#[test]
fn on_four_processors_the_copies_run_side_by_side() {
    let (_, _, r) = interwoven(4);
    assert_eq!(r.placements[1].offset, 0);
    assert_eq!(r.placements[1].rows, vec![Some(2), Some(3), None, None]);
    assert_eq!(r.length(), 6);
    assert_eq!(r.reduction_pct(), 50.0);
}

#[test]
fn backfilling_the_gaps_best_fit() {
    let (_, _, mut r) = interwoven(3);
    let gaps: Vec<(usize, u64, u64)> = r.gaps().iter().map(|g| (g.proc, g.start, g.end)).collect();
    assert_eq!(gaps, vec![(1, 0, 2), (2, 0, 3), (0, 6, 9), (1, 8, 9)]);
    let job = |job, width, estimate| Candidate {
        job,
        width,
        estimate,
    };
    let queue = [
        job(10, 1, 1),
        job(11, 1, 2),
        job(12, 1, 3),
        job(13, 1, 5),
        job(14, 2, 1),
    ];
    let filled = r.backfill(&queue);
    let f = |job, procs: Vec<usize>, start, end| Filled {
        job,
        procs,
        start,
        end,
    };
    assert_eq!(
        filled,
        vec![
            // P1's gap 0–2: job 11 (2) fits exactly.
            f(11, vec![1], 0, 2),
            // P2's gap 0–3: job 12 (3) fits exactly.
            f(12, vec![2], 0, 3),
            // P0's gap 6–9: job 13 (5) is too long and job 14 needs a
            // second processor idle at 6–7 (there is none): job 10.
            f(10, vec![0], 6, 7),
            // P0's 7–9 is given up (job 14 finds no partner at 7–8);
            // P1's 8–9 and P0 make a pair for job 14.
            f(14, vec![0, 1], 8, 9),
        ]
    );
    assert!(r.is_disjoint());
    assert_eq!(r.backfill_time(), 8);
    // Only P0's 7–8 stays idle: 26 of 27 units are used.
    assert_eq!(
        r.gaps()
            .iter()
            .map(|g| (g.proc, g.start, g.end))
            .collect::<Vec<_>>(),
        vec![(0, 7, 8)]
    );
    assert!((r.utilisation() - 26.0 / 27.0).abs() < 1e-12);
    assert!(r.busy[0].iter().any(|b| b.who == Occupant::Job { job: 14 }));
    // The reservation's length is still the graphs' 9.
    assert_eq!(r.length(), 9);
}
