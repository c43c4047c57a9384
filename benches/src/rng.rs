//! The one random-number generator every engine uses.
//!
//! A 64-bit xorshift (Marsaglia's 13/7/17 variant): tiny state, no
//! dependency, and bit-identical on every engine, so every engine sends
//! the same balls to the same peers.

/// A xorshift64 generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Xorshift64 {
    state: u64,
}

impl Xorshift64 {
    /// A generator seeded from `seed` (any value, zero included).
    pub fn new(seed: u64) -> Self {
        // Spread the seed (splitmix64 finaliser) so nearby seeds diverge;
        // xorshift must never hold zero.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Xorshift64 { state: z.max(1) }
    }

    /// The seed of model `index` of rig `rig`.
    pub fn for_model(rig: usize, index: usize) -> Self {
        Self::new(((rig as u64) << 32) | index as u64)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.state = x;
        x
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A peer of `me` among `count` models, uniformly, never `me` itself.
    #[inline]
    pub fn peer(&mut self, me: usize, count: usize) -> usize {
        let pick = self.below(count as u64 - 1) as usize;
        if pick >= me {
            pick + 1
        } else {
            pick
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_are_uniform_and_never_self() {
        let mut rng = Xorshift64::for_model(3, 5);
        let mut seen = [0u32; 13];
        for _ in 0..130_000 {
            seen[rng.peer(5, 13)] += 1;
        }
        assert_eq!(seen[5], 0);
        for (i, &n) in seen.iter().enumerate().filter(|&(i, _)| i != 5) {
            assert!((10_000..11_700).contains(&n), "peer {i}: {n}");
        }
    }

    #[test]
    fn seeds_differ() {
        assert_ne!(
            Xorshift64::for_model(0, 1).next_u64(),
            Xorshift64::for_model(1, 0).next_u64()
        );
    }
}
