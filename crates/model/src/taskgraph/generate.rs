//! Random task graphs in the spirit of Hönig and Schiffmann's test bench
//! (PDCS 2004), whose branches the AR paper samples: graph size, meshing
//! degree (number of sons), edge length and node/edge weights. The bench
//! itself is not public; this generator follows its parameters, and every
//! draw is written down here:
//!
//! 1. **Size** n ~ U{lo..=hi}: GS7_12 = 7..=12, GS13_18 = 13..=18,
//!    GS19_24 = 19..=24.
//! 2. Subtasks are numbered 0..n in topological order. Every subtask
//!    i < n − 1 gets a **number of sons** NoS ~ Low U{1..=2}, Avg U{2..=3},
//!    High U{3..=5}, Rand U{1..=5} (capped by the sons it can have).
//! 3. Each son is i + L, the **edge length** L drawn without repetition
//!    from a window clamped to the r = n − 1 − i subtasks after i:
//!    Short 1..=2, Avg 2..=max(2, n/3), Long max(1, n/2)..=n − 1,
//!    Rand 1..=n − 1 (a window starting past r becomes r..=r). Subtasks
//!    without parents are entries, those without sons exits.
//! 4. **Node weights** (run times) and **edge weights** (communication
//!    costs) ~ Light U{1..=10}, Heavy U{10..=100}, Rand U{1..=100}; the
//!    bench's branches pair them as LNode/LEdge, LNode/HEdge, HNode/LEdge,
//!    HNode/HEdge and RNode/REdge.
//!
//! The structure, node weights and edge weights come from three ChaCha8
//! streams of one seed, so changing the weights keeps the structure.

use super::TaskGraph;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::ops::RangeInclusive;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum SizeClass {
    #[serde(rename = "7-12")]
    Gs7_12,
    #[serde(rename = "13-18")]
    Gs13_18,
    #[serde(rename = "19-24")]
    Gs19_24,
}

impl SizeClass {
    pub const ALL: [SizeClass; 3] = [SizeClass::Gs7_12, SizeClass::Gs13_18, SizeClass::Gs19_24];
    pub fn range(self) -> RangeInclusive<usize> {
        match self {
            SizeClass::Gs7_12 => 7..=12,
            SizeClass::Gs13_18 => 13..=18,
            SizeClass::Gs19_24 => 19..=24,
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            SizeClass::Gs7_12 => "GS7_12",
            SizeClass::Gs13_18 => "GS13_18",
            SizeClass::Gs19_24 => "GS19_24",
        }
    }
}

/// Meshing degree: how many sons each subtask has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Meshing {
    Low,
    Avg,
    High,
    Rand,
}

impl Meshing {
    pub const ALL: [Meshing; 4] = [Meshing::Low, Meshing::Avg, Meshing::High, Meshing::Rand];
    fn sons(self) -> RangeInclusive<usize> {
        match self {
            Meshing::Low => 1..=2,
            Meshing::Avg => 2..=3,
            Meshing::High => 3..=5,
            Meshing::Rand => 1..=5,
        }
    }
}

/// Edge length: how far down the numbering a son lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeLength {
    Short,
    Avg,
    Long,
    Rand,
}

impl EdgeLength {
    pub const ALL: [EdgeLength; 4] = [
        EdgeLength::Short,
        EdgeLength::Avg,
        EdgeLength::Long,
        EdgeLength::Rand,
    ];
    fn window(self, n: usize) -> (usize, usize) {
        match self {
            EdgeLength::Short => (1, 2),
            EdgeLength::Avg => (2, (n / 3).max(2)),
            EdgeLength::Long => ((n / 2).max(1), n.saturating_sub(1).max(1)),
            EdgeLength::Rand => (1, n.saturating_sub(1).max(1)),
        }
    }
}

/// Light, heavy or random weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Weight {
    Light,
    Heavy,
    Rand,
}

impl Weight {
    fn range(self) -> RangeInclusive<u64> {
        match self {
            Weight::Light => 1..=10,
            Weight::Heavy => 10..=100,
            Weight::Rand => 1..=100,
        }
    }
    fn letter(self) -> char {
        match self {
            Weight::Light => 'L',
            Weight::Heavy => 'H',
            Weight::Rand => 'R',
        }
    }
}

/// The bench's five node/edge weight pairs.
pub const WEIGHT_PAIRS: [(Weight, Weight); 5] = [
    (Weight::Light, Weight::Light),
    (Weight::Light, Weight::Heavy),
    (Weight::Heavy, Weight::Light),
    (Weight::Heavy, Weight::Heavy),
    (Weight::Rand, Weight::Rand),
];

/// A branch of the bench: every parameter of the draw.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GenParams {
    pub sizes: RangeInclusive<usize>,
    pub meshing: Meshing,
    pub edge_length: EdgeLength,
    pub node: Weight,
    pub edge: Weight,
}

impl GenParams {
    pub fn new(
        size: SizeClass,
        meshing: Meshing,
        edge_length: EdgeLength,
        weights: (Weight, Weight),
    ) -> Self {
        GenParams {
            sizes: size.range(),
            meshing,
            edge_length,
            node: weights.0,
            edge: weights.1,
        }
    }

    /// Graphs of 4 to 6 subtasks with every parameter varied by `seed`,
    /// for checks against plain enumeration.
    pub fn small_for_checks(seed: u64) -> Self {
        let i = seed as usize;
        GenParams {
            sizes: 4..=6,
            meshing: Meshing::ALL[i % 4],
            edge_length: EdgeLength::ALL[(i / 4) % 4],
            node: WEIGHT_PAIRS[i % 5].0,
            edge: WEIGHT_PAIRS[i % 5].1,
        }
    }

    /// `NoS_Low/EL_Short/HNode_LEdge`-style name of the branch (size apart).
    pub fn label(&self) -> String {
        let m = match self.meshing {
            Meshing::Low => "Low",
            Meshing::Avg => "Avg",
            Meshing::High => "High",
            Meshing::Rand => "Rand",
        };
        let e = match self.edge_length {
            EdgeLength::Short => "Short",
            EdgeLength::Avg => "Avg",
            EdgeLength::Long => "Long",
            EdgeLength::Rand => "Rand",
        };
        format!(
            "NoS_{m}/EL_{e}/{}Node_{}Edge",
            self.node.letter(),
            self.edge.letter()
        )
    }
}

fn stream(seed: u64, n: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(0x7467_0000 + n);
    rng
}

/// One graph of the branch `p` under `seed`.
pub fn generate(p: &GenParams, seed: u64) -> TaskGraph {
    let mut shape = stream(seed, 1);
    let mut nodes = stream(seed, 2);
    let mut costs = stream(seed, 3);
    let n = shape.random_range(p.sizes.clone()).max(1);
    let (wlo, whi) = p.edge_length.window(n);
    let mut edges = Vec::new();
    for i in 0..n.saturating_sub(1) {
        let rem = n - 1 - i;
        let lo = wlo.min(rem);
        let hi = whi.min(rem).max(lo);
        let mut window: Vec<usize> = (lo..=hi).collect();
        let sons = shape.random_range(p.meshing.sons()).min(window.len());
        for k in 0..sons {
            let pick = shape.random_range(k..window.len());
            window.swap(k, pick);
        }
        let mut chosen: Vec<usize> = window[..sons].iter().map(|&l| i + l).collect();
        chosen.sort_unstable();
        for j in chosen {
            edges.push((i, j, costs.random_range(p.edge.range())));
        }
    }
    let weights = (0..n).map(|_| nodes.random_range(p.node.range())).collect();
    TaskGraph::new(weights, &edges).expect("edges go forward without repetition")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_sons_lengths_and_weights_follow_the_stated_draws() {
        let mut graphs = 0;
        for size in SizeClass::ALL {
            for m in Meshing::ALL {
                for el in EdgeLength::ALL {
                    for w in WEIGHT_PAIRS {
                        let p = GenParams::new(size, m, el, w);
                        for seed in 0..3 {
                            let g = generate(&p, seed);
                            graphs += 1;
                            let n = g.len();
                            assert!(size.range().contains(&n));
                            let (wlo, whi) = el.window(n);
                            for i in 0..n - 1 {
                                let s = g.succs[i].len();
                                let rem = n - 1 - i;
                                let room = whi.min(rem).max(wlo.min(rem)) - wlo.min(rem) + 1;
                                assert!(s >= (*m.sons().start()).min(room) && s <= *m.sons().end());
                                for &(j, c) in &g.succs[i] {
                                    let l = j - i;
                                    assert!(
                                        l >= wlo.min(rem) && l <= whi.min(rem).max(wlo.min(rem))
                                    );
                                    assert!(w.1.range().contains(&c));
                                }
                            }
                            assert!(g.succs[n - 1].is_empty());
                            assert!(g.weights.iter().all(|x| w.0.range().contains(x)));
                        }
                    }
                }
            }
        }
        assert_eq!(graphs, 3 * 4 * 4 * 5 * 3);
    }

    #[test]
    fn same_seed_same_graph_and_weights_keep_the_structure() {
        let a = GenParams::new(
            SizeClass::Gs13_18,
            Meshing::Avg,
            EdgeLength::Rand,
            WEIGHT_PAIRS[0],
        );
        let b = GenParams::new(
            SizeClass::Gs13_18,
            Meshing::Avg,
            EdgeLength::Rand,
            WEIGHT_PAIRS[3],
        );
        assert_eq!(generate(&a, 7), generate(&a, 7));
        let (ga, gb) = (generate(&a, 7), generate(&b, 7));
        let shape = |g: &TaskGraph| g.edges().map(|(i, j, _)| (i, j)).collect::<Vec<_>>();
        assert_eq!(shape(&ga), shape(&gb));
        assert_ne!(ga.weights, gb.weights);
    }

    #[test]
    fn meshing_degree_orders_the_mean_number_of_edges() {
        let mean = |m: Meshing| {
            let p = GenParams::new(SizeClass::Gs19_24, m, EdgeLength::Rand, WEIGHT_PAIRS[4]);
            (0..200)
                .map(|s| generate(&p, s).edge_count() as f64 / generate(&p, s).len() as f64)
                .sum::<f64>()
                / 200.0
        };
        let (low, avg, high) = (mean(Meshing::Low), mean(Meshing::Avg), mean(Meshing::High));
        assert!(low < avg && avg < high, "{low} {avg} {high}");
    }
}
