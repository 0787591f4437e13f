//! A member's counts of the vertices each source of a batch finds in a
//! level. A vertex found by many sources at once (most of them, on a
//! small-world graph) is counted a word at a time, into bit-sliced
//! counters: plane `j` holds bit `j` of every source's count, and adding
//! a word is a ripple of carries through the planes (a vertical counter,
//! as in bit-sliced population counts); a word of few bits is counted a
//! bit at a time.

use super::MOST_WORDS;

/// Bits a word may have to be counted bit by bit rather than rippled
/// through the planes (whose ripple costs a few word operations).
const FEW_BITS: u32 = 4;

/// What a member counts in a level.
pub(super) struct Tally {
    /// Vertices found per source of the batch, counted bit by bit.
    counts: Vec<u64>,
    /// The bit-sliced counters: `planes[j][word]` holds bit `j` of the
    /// counts of the sources of `word`.
    planes: Vec<[u64; MOST_WORDS]>,
    /// Edges of the vertices found (the next frontier's).
    pub(super) found_edges: u64,
    /// Edges of the vertices every source of the batch has now reached.
    pub(super) settled_edges: u64,
}

impl Tally {
    /// A tally for batches of up to `width` sources.
    pub(super) fn new(width: usize) -> Tally {
        Tally {
            counts: vec![0; width],
            planes: Vec::new(),
            found_edges: 0,
            settled_edges: 0,
        }
    }

    /// Counts a vertex found by the sources of the bits of `new`.
    pub(super) fn count(&mut self, new: &[u64]) {
        for (word, &bits) in new.iter().enumerate() {
            if bits.count_ones() <= FEW_BITS {
                let mut rest = bits;
                while rest != 0 {
                    self.counts[word * 64 + rest.trailing_zeros() as usize] += 1;
                    rest &= rest - 1;
                }
                continue;
            }
            let mut carry = bits;
            let mut plane = 0;
            while carry != 0 {
                if plane == self.planes.len() {
                    self.planes.push([0; MOST_WORDS]);
                }
                let held = &mut self.planes[plane][word];
                (*held, carry) = (*held ^ carry, *held & carry);
                plane += 1;
            }
        }
    }

    /// Adds the counts into `per_source` (a count a source), and zeroes them.
    pub(super) fn drain_into(&mut self, per_source: &mut [u64]) {
        for (total, count) in per_source.iter_mut().zip(&mut self.counts) {
            *total += std::mem::take(count);
        }
        for (power, plane) in self.planes.iter_mut().enumerate() {
            for (word, bits) in plane.iter_mut().enumerate() {
                let mut rest = std::mem::take(bits);
                while rest != 0 {
                    per_source[word * 64 + rest.trailing_zeros() as usize] += 1 << power;
                    rest &= rest - 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Tally;

    #[test]
    fn sparse_and_dense_words_add_up_to_each_bits_count() {
        let mut tally = Tally::new(128);
        let mut want = vec![0u64; 128];
        let mut state = 12345u64;
        for round in 0..5000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Dense words, sparse ones, and empty ones.
            let words = match round % 3 {
                0 => [state, !state],
                1 => [state & state >> 7 & state >> 13, 0],
                _ => [1 << (state % 64), 0],
            };
            for (word, &bits) in words.iter().enumerate() {
                for bit in 0..64 {
                    want[word * 64 + bit] += bits >> bit & 1;
                }
            }
            tally.count(&words);
        }
        let mut got = vec![0; 128];
        tally.drain_into(&mut got);
        assert_eq!(got, want);
        let mut again = vec![0; 128];
        tally.drain_into(&mut again);
        assert_eq!(again, vec![0; 128]);
    }
}
