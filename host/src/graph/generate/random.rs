//! The generators' random streams: SplitMix64, the same sequence on every
//! platform, and Graph500's relabelling of Kronecker vertices.

/// A pseudo-random permutation of the ids below 2^scale, as Graph500 permutes
/// its Kronecker vertices (so the hubs, ids near 0, spread over the
/// graph): rounds of a multiplication by an odd number and an xor-shift,
/// each a bijection modulo 2^scale. Computed, not a table: a table of
/// 2^28 ids is a gigabyte, and a random read of it for every edge end
/// cost more than drawing the edge.
pub(super) struct Relabelling {
    multipliers: [u32; 3],
    mask: u32,
    shift: u32,
}

impl Relabelling {
    pub(super) fn new(random: &mut SplitMix64, scale: u32) -> Relabelling {
        Relabelling {
            multipliers: [0; 3].map(|_| random.next() as u32 | 1),
            mask: ((1u64 << scale) - 1) as u32,
            shift: (scale / 2).max(1),
        }
    }

    /// The new id of `vertex`.
    pub(super) fn of(&self, vertex: u32) -> u32 {
        self.multipliers.iter().fold(vertex, |id, &multiplier| {
            let id = id.wrapping_mul(multiplier) & self.mask;
            id ^ id >> self.shift
        })
    }
}

/// The values [`SplitMix64::unit`] draws from: 2^53, every multiple of 2^-53 in [0, 1).
const UNIT_STEPS: f64 = (1u64 << 53) as f64;

/// SplitMix64 (Steele, Lea & Flood 2014): tiny, fast, and the same sequence
/// on every platform and crate version, which seeded test graphs need.
pub(in crate::graph) struct SplitMix64(pub(in crate::graph) u64);

impl SplitMix64 {
    pub(in crate::graph) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1): one of [`UNIT_STEPS`] equally spaced values.
    pub(in crate::graph) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / UNIT_STEPS
    }

    /// Uniform in [0, bound) (Lemire's multiply-shift; bias below 2^-32).
    pub(in crate::graph) fn below(&mut self, bound: u32) -> u32 {
        (((self.next() >> 32) * bound as u64) >> 32) as u32
    }

    /// A uniformly random permutation of 0..count (Fisher–Yates).
    pub(super) fn permutation(&mut self, count: u32) -> Vec<u32> {
        let mut permutation: Vec<u32> = (0..count).collect();
        for index in (1..count).rev() {
            permutation.swap(index as usize, self.below(index + 1) as usize);
        }
        permutation
    }

    /// One R-MAT edge: at each of `scale` levels pick a quadrant with
    /// Graph500's probabilities A = 0.57, B = 0.19, C = 0.19, D = 0.05.
    pub(super) fn kronecker_edge(&mut self, scale: u32) -> (u32, u32) {
        const A: f64 = 0.57;
        const B: f64 = 0.19;
        const C: f64 = 0.19;
        // A draw of `unit` is `x / 2^53` for an integer `x`; it is below a
        // probability `p` exactly when `x < ceil(p * 2^53)`, so integer
        // comparisons give the same quadrants as comparing the draws.
        let below = |probability: f64| (probability * UNIT_STEPS).ceil() as u64;
        let (a, a_b, a_b_c) = (below(A), below(A + B), below(A + B + C));
        let (mut tail, mut head) = (0u32, 0u32);
        for bit in 0..scale {
            let draw = self.next() >> 11;
            // Quadrants A (0, 0), B (0, 1), C (1, 0), D (1, 1), chosen
            // without branches: the draws are unpredictable, and a
            // mispredicted branch a level cost more than the draw.
            let tail_bit = (draw >= a_b) as u32;
            let head_bit = ((draw >= a) & (draw < a_b) | (draw >= a_b_c)) as u32;
            tail |= tail_bit << bit;
            head |= head_bit << bit;
        }
        (tail, head)
    }
}
