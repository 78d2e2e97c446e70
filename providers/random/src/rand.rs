//! Random sources: the operating system's for unseeded values (as
//! hashicorp/random uses `crypto/rand`), and a small deterministic
//! generator for resources given a `seed`, so that the same seed always
//! gives the same result.
//!
//! The seeded sequence is terrace's own (SplitMix64 over an FNV-1a hash of
//! the seed): stable from run to run and release to release, but not the
//! numbers Go's `math/rand` would draw for the same seed.

use terrace_sdk::Error;

pub enum Source {
    Os,
    Seeded(u64),
}

impl Source {
    /// A seeded source for a non-empty seed, the system's otherwise.
    pub fn new(seed: Option<&str>) -> Source {
        match seed {
            Some(seed) if !seed.is_empty() => {
                let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
                for byte in seed.bytes() {
                    hash ^= u64::from(byte);
                    hash = hash.wrapping_mul(0x0100_0000_01b3);
                }
                Source::Seeded(hash)
            }
            _ => Source::Os,
        }
    }

    pub fn next_u64(&mut self) -> Result<u64, Error> {
        match self {
            Source::Os => {
                let mut bytes = [0u8; 8];
                fill(&mut bytes)?;
                Ok(u64::from_le_bytes(bytes))
            }
            Source::Seeded(state) => {
                *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = *state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                Ok(z ^ (z >> 31))
            }
        }
    }

    /// A uniform number in `0..n` (n > 0), without modulo bias.
    pub fn below(&mut self, n: u64) -> Result<u64, Error> {
        if n <= 1 {
            return Ok(0);
        }
        // Draws past the largest multiple of n are retried.
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let value = self.next_u64()?;
            if value < zone {
                return Ok(value % n);
            }
        }
    }

    /// A random permutation of `0..n`.
    pub fn permutation(&mut self, n: usize) -> Result<Vec<usize>, Error> {
        let mut items: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = self.below(i as u64 + 1)? as usize;
            items.swap(i, j);
        }
        Ok(items)
    }
}

/// Fills `bytes` from the operating system.
pub fn fill(bytes: &mut [u8]) -> Result<(), Error> {
    getrandom::fill(bytes).map_err(|e| {
        Error::new(
            "Random Read Error",
            format!("While generating random bytes the system gave an error: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_repeat_and_differ() {
        let draw = |seed| {
            let mut source = Source::new(Some(seed));
            (0..5)
                .map(|_| source.below(1000).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(draw("a"), draw("a"));
        assert_ne!(draw("a"), draw("b"));
        let mut source = Source::new(Some("x"));
        let mut permutation = source.permutation(10).unwrap();
        permutation.sort();
        assert_eq!(permutation, (0..10).collect::<Vec<_>>());
        assert!(matches!(Source::new(Some("")), Source::Os));
        let mut os = Source::new(None);
        assert!(os.below(7).unwrap() < 7);
        assert_eq!(os.below(1).unwrap(), 0);
    }
}
