//! Properties of task-graph schedules under random graphs of every bench
//! branch: no subtask starts before its parents' data, no processor runs
//! two things at once, and packing a reservation keeps both for every
//! graph and leaves backfilled jobs only in idle time.

use proptest::prelude::*;
use schedscope::taskgraph::ar::{self, Candidate, RearrangeOrder, Reservation};
use schedscope::taskgraph::generate::{
    EdgeLength, GenParams, Meshing, SizeClass, WEIGHT_PAIRS, generate,
};
use schedscope::taskgraph::list::ListScheduler;

fn params(i: usize) -> GenParams {
    GenParams::new(
        SizeClass::ALL[i % 3],
        Meshing::ALL[(i / 3) % 4],
        EdgeLength::ALL[(i / 12) % 4],
        WEIGHT_PAIRS[(i / 48) % 5],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn list_schedules_and_their_compaction_keep_every_rule(
        family in 0usize..240, seed in 0u64..1_000_000, p in prop::sample::select(vec![2usize, 4, 8])
    ) {
        let g = generate(&params(family), seed);
        for s in ListScheduler::ALL {
            let sc = s.schedule(&g, p);
            prop_assert_eq!(sc.validate(&g), Ok(()));
            prop_assert!(sc.makespan(&g) >= g.lower_bound(p));
            for order in [RearrangeOrder::BusiestFirst, RearrangeOrder::LeastBusyFirst] {
                let c = ar::compact(&g, &sc, order);
                prop_assert_eq!(c.validate(&g), Ok(()));
                prop_assert_eq!(c.makespan(&g), sc.makespan(&g));
                prop_assert!(c.used_procs() <= sc.used_procs());
            }
        }
    }

    #[test]
    fn a_packed_reservation_keeps_each_graph_and_overlaps_nothing(
        family in 0usize..240, seed in 0u64..1_000_000, k in 1usize..=5,
        p in prop::sample::select(vec![2usize, 4]),
        jobs in prop::collection::vec((1usize..=2, 1u64..=60), 0..12)
    ) {
        let mut r = Reservation::new(p);
        let mut scheds = Vec::new();
        for i in 0..k {
            let g = generate(&params(family), seed + i as u64);
            let s = ar::compact(&g, &ListScheduler::Mcp.schedule(&g, p), RearrangeOrder::BusiestFirst);
            prop_assert_eq!(r.interweave(&g, &s), Ok(i));
            scheds.push((g, s));
        }
        prop_assert!(r.is_disjoint());
        for (i, (g, s)) in scheds.iter().enumerate() {
            prop_assert_eq!(r.placed_schedule(i, s).validate(g), Ok(()));
        }
        prop_assert!(r.length() <= r.serial_length());
        prop_assert!(r.length() >= scheds.iter().map(|(g, s)| s.makespan(g)).max().unwrap());
        let len = r.length();
        let before: Vec<_> = r.busy.clone();
        let queue: Vec<Candidate> = jobs
            .iter()
            .enumerate()
            .map(|(i, &(width, estimate))| Candidate { job: i, width, estimate })
            .collect();
        let filled = r.backfill(&queue);
        prop_assert!(r.is_disjoint());
        prop_assert_eq!(r.length(), len);
        for f in &filled {
            prop_assert!(f.end <= len);
            prop_assert_eq!(f.procs.len(), queue[f.job].width);
        }
        // The graphs' blocks are untouched.
        for (q, blocks) in before.iter().enumerate() {
            for b in blocks {
                prop_assert!(r.busy[q].contains(b));
            }
        }
    }
}
