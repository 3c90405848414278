//! Seeded random streams, one per purpose, so that changing one setting
//! (say, the split approach) does not shift the numbers drawn for another
//! (say, the arrival times).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// What a random stream is for; its value is the ChaCha stream number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Purpose {
    Arrivals = 1,
    Sizes = 2,
    Runtimes = 3,
    Split = 4,
    Estimates = 5,
    /// Per-job communication (σ) of the package-allocation workload.
    Comm = 6,
    /// Task-graph arrivals beside another workload.
    Graphs = 7,
}

/// The generator for `purpose` under `seed`.
pub fn stream(seed: u64, purpose: Purpose) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(purpose as u64);
    rng
}

/// The seed of replication `r` of a scenario seeded with `seed`.
pub fn replication_seed(seed: u64, r: u32) -> u64 {
    if r == 0 {
        seed
    } else {
        // SplitMix64 step: well-spread, independent-looking seeds.
        let mut z = seed.wrapping_add((r as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The generator numbered `number` under `seed`, for workloads with many
/// streams of their own (the two-site grid: three per arrival stream,
/// numbered from 16 so as not to meet a [`Purpose`]).
pub fn stream_number(seed: u64, number: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(number);
    rng
}
