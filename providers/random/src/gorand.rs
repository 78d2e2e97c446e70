//! Go's `math/rand` as hashicorp/random uses it for `random_integer` and
//! `random_shuffle`: `rand.New(rand.NewSource(seed))`, the seed being the
//! CRC-64 (ISO polynomial) of the `seed` string, so that a given seed
//! gives the same result here as with the HashiCorp provider. Without a
//! seed hashicorp/random seeds from the clock; this seeds from the
//! operating system.
//!
//! Only the parts those resources use: the source (`Seed`, `Int63`) and
//! `Int31`, `Int31n`, `Int63n`, `Intn` and `Perm` with Go's exact value
//! streams (rejection sampling included), `int` being 64 bits.

use crate::cooked::{seedrand, LEN, TAP};
use terrace_sdk::Error;

mod table {
    include!(concat!(env!("OUT_DIR"), "/cooked_table.rs"));
}

/// Go's `rngSource` wrapped in `Rand`.
pub struct GoRand {
    register: [u64; LEN],
    tap: usize,
    feed: usize,
}

const MODULUS: i64 = (1 << 31) - 1;
const INT63_MASK: u64 = (1 << 63) - 1;

impl GoRand {
    /// `rand.New(rand.NewSource(seed))`.
    pub fn new(seed: i64) -> GoRand {
        // Seeds equal modulo 2^31-1 give the same stream; 0 is replaced
        // since the LCG would stay at 0.
        let mut seed = seed % MODULUS;
        if seed < 0 {
            seed += MODULUS;
        }
        if seed == 0 {
            seed = 89_482_311;
        }
        let mut register = [0u64; LEN];
        let mut x = seed as i32;
        for i in -20..LEN as i64 {
            x = seedrand(x);
            if i >= 0 {
                let mut u = (i64::from(x) << 40) as u64;
                x = seedrand(x);
                u ^= (i64::from(x) << 20) as u64;
                x = seedrand(x);
                u ^= x as u64;
                register[i as usize] = u ^ table::COOKED[i as usize];
            }
        }
        GoRand {
            register,
            tap: 0,
            feed: LEN - TAP,
        }
    }

    /// A generator for hashicorp/random's `seed` argument: seeded with
    /// the string's CRC-64/ISO when it is not empty, from the operating
    /// system otherwise.
    pub fn for_seed(seed: Option<&str>) -> Result<GoRand, Error> {
        match seed {
            Some(seed) if !seed.is_empty() => Ok(GoRand::new(crc64_iso(seed.as_bytes()) as i64)),
            _ => {
                let mut bytes = [0u8; 8];
                crate::rand::fill(&mut bytes)?;
                Ok(GoRand::new(i64::from_le_bytes(bytes)))
            }
        }
    }

    fn uint64(&mut self) -> u64 {
        self.tap = (self.tap + LEN - 1) % LEN;
        self.feed = (self.feed + LEN - 1) % LEN;
        let x = self.register[self.feed].wrapping_add(self.register[self.tap]);
        self.register[self.feed] = x;
        x
    }

    pub fn int63(&mut self) -> i64 {
        (self.uint64() & INT63_MASK) as i64
    }

    pub fn int31(&mut self) -> i32 {
        (self.int63() >> 32) as i32
    }

    /// `Int63n`, for n > 0.
    fn int63n(&mut self, n: i64) -> i64 {
        if n & (n - 1) == 0 {
            return self.int63() & (n - 1);
        }
        let max = ((1u64 << 63) - 1 - (1u64 << 63) % n as u64) as i64;
        let mut v = self.int63();
        while v > max {
            v = self.int63();
        }
        v % n
    }

    /// `Int31n`, for n > 0.
    fn int31n(&mut self, n: i32) -> i32 {
        if n & (n - 1) == 0 {
            return self.int31() & (n - 1);
        }
        let max = ((1u32 << 31) - 1 - (1u32 << 31) % n as u32) as i32;
        let mut v = self.int31();
        while v > max {
            v = self.int31();
        }
        v % n
    }

    /// `Intn`: a number in `0..n`, or `None` when n is not positive
    /// (where Go panics).
    pub fn intn(&mut self, n: i64) -> Option<i64> {
        if n <= 0 {
            None
        } else if n <= i64::from(i32::MAX) {
            Some(i64::from(self.int31n(n as i32)))
        } else {
            Some(self.int63n(n))
        }
    }

    /// A number in `0..span` for spans past Go's `int` (up to 2^64),
    /// which Go cannot draw; rejection keeps it uniform.
    pub fn below_wide(&mut self, span: u128) -> u128 {
        loop {
            let value = u128::from(self.uint64());
            if value < span {
                return value;
            }
        }
    }

    /// `Perm`: a permutation of `0..n`, built by inserting each i at a
    /// random place (Go's "inside-out" shuffle, its draws included).
    pub fn perm(&mut self, n: usize) -> Vec<usize> {
        let mut m = vec![0usize; n];
        for i in 0..n {
            // i + 1 is positive, so a number always comes back.
            let j = self.intn(i as i64 + 1).unwrap_or(0) as usize;
            m[i] = m[j];
            m[j] = i;
        }
        m
    }
}

/// Go's `crc64.Checksum(data, crc64.MakeTable(crc64.ISO))`: reflected
/// CRC-64 with the ISO 3309 polynomial, all ones in and out.
pub fn crc64_iso(data: &[u8]) -> u64 {
    const POLY: u64 = 0xD800_0000_0000_0000;
    let mut crc = !0u64;
    for &byte in data {
        crc ^= u64::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ POLY
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cooked::{advance, cooked, initial_register, step, COOKING_STEPS};

    #[test]
    fn jump_ahead_matches_stepping() {
        let start = initial_register();
        for steps in [0u64, 1, 272, 273, 606, 607, 608, 1000, 4321] {
            let mut register = start;
            let (mut tap, mut feed) = (0, LEN - TAP);
            for _ in 0..steps {
                step(&mut register, &mut tap, &mut feed);
            }
            assert_eq!(
                advance(&start, steps).to_vec(),
                register.to_vec(),
                "{steps}"
            );
        }
    }

    #[test]
    fn build_table_is_the_computed_one() {
        assert_eq!(table::COOKED.to_vec(), cooked().to_vec());
        assert_eq!(COOKING_STEPS, 7_800_000_000_000);
    }

    #[test]
    fn streams_match_go() {
        // rand.New(rand.NewSource(1)).Int63(), the values Go's global
        // generator gave before Go 1.20 seeded it randomly.
        let mut r = GoRand::new(1);
        let first: Vec<i64> = (0..3).map(|_| r.int63()).collect();
        assert_eq!(
            first,
            vec![
                5577006791947779410,
                8674665223082153551,
                6129484611666145821
            ]
        );
        // rand.Intn(100) ten times from seed 1: Go's well-known
        // "81 87 47 59 81 18 25 40 56 0".
        let mut r = GoRand::new(1);
        let draws: Vec<i64> = (0..10).map(|_| r.intn(100).unwrap()).collect();
        assert_eq!(draws, vec![81, 87, 47, 59, 81, 18, 25, 40, 56, 0]);
        // Seeds equal modulo 2^31-1, and 0 standing for 89482311.
        let mut a = GoRand::new(1 + MODULUS);
        let mut b = GoRand::new(1 - MODULUS);
        assert_eq!(a.int63(), 5577006791947779410);
        assert_eq!(b.int63(), 5577006791947779410);
        let mut zero = GoRand::new(0);
        let mut replaced = GoRand::new(89_482_311);
        assert_eq!(zero.int63(), replaced.int63());
        assert_eq!(GoRand::new(5).intn(0), None);
        assert_eq!(GoRand::new(5).intn(-3), None);
    }

    #[test]
    fn perm_is_a_permutation_and_repeats() {
        let mut r = GoRand::new(42);
        let mut p = r.perm(10);
        let again = GoRand::new(42).perm(10);
        assert_eq!(p, again);
        p.sort();
        assert_eq!(p, (0..10).collect::<Vec<_>>());
        assert!(GoRand::new(1).perm(0).is_empty());
        assert_eq!(GoRand::new(1).perm(1), vec![0]);
    }

    #[test]
    fn crc64_iso_check_values() {
        // The catalogue's check value for CRC-64/GO-ISO.
        assert_eq!(crc64_iso(b"123456789"), 0xb909_56c7_75a4_1001);
        assert_eq!(crc64_iso(b""), 0);
    }

    #[test]
    fn large_ranges_use_int63n() {
        let n = (1i64 << 40) + 3;
        let mut r = GoRand::new(7);
        for _ in 0..100 {
            let v = r.intn(n).unwrap();
            assert!((0..n).contains(&v));
        }
        let mut r = GoRand::new(7);
        assert_eq!(r.intn(1 << 40).unwrap() & !((1 << 40) - 1), 0);
    }
}
