//! The operating system's random source, which hashicorp/random uses
//! (through `crypto/rand`) for everything but the seedable resources:
//! strings, passwords, ids, bytes, UUIDs, pet names. `random_integer` and
//! `random_shuffle` use Go's `math/rand` instead (`gorand`).

use terrace_sdk::Error;

/// Draws from the operating system.
pub struct Source;

impl Source {
    pub fn next_u64(&mut self) -> Result<u64, Error> {
        let mut bytes = [0u8; 8];
        fill(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
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
    fn draws_stay_in_range() {
        let mut source = Source;
        for n in [1u64, 2, 7, 1000, u64::MAX] {
            for _ in 0..20 {
                assert!(n == 1 || source.below(n).unwrap() < n);
            }
        }
        assert_eq!(source.below(1).unwrap(), 0);
        let mut permutation = source.permutation(10).unwrap();
        permutation.sort();
        assert_eq!(permutation, (0..10).collect::<Vec<_>>());
    }
}
