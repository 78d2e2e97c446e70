//! Never-panic property tests over readers of outside data: inputs are
//! valid seeds mutated at random (bytes flipped, inserted, deleted,
//! duplicated, spliced from another seed, cut short, tokens of the format
//! dropped in), from a fixed seed so a failure repeats. The number of
//! inputs is CI-sized by default; `TERRACE_FUZZ_CASES` sets another, and
//! `TERRACE_FUZZ_SEED` another starting point.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// xorshift64*: small, fast and good enough to spread inputs around.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// How many inputs to try: `TERRACE_FUZZ_CASES`, else `ci_default`.
pub fn cases(ci_default: usize) -> usize {
    std::env::var("TERRACE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ci_default)
}

/// Where the random sequence starts: `TERRACE_FUZZ_SEED`, else a fixed
/// number derived from `name`, so each target has its own sequence.
pub fn seed(name: &str) -> u64 {
    std::env::var("TERRACE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            })
        })
}

/// Bytes that make parsers take unusual paths.
const INTERESTING: &[&[u8]] = &[
    b"\0",
    b"\xff",
    b"\x7f",
    b"\x80",
    b"\xc0",
    b"\xe2\x80",
    b"\xf0\x9f\x98",
    b"\n",
    b"\r\n",
    b"\t",
    b" ",
    b"\"",
    b"\\",
    b"\\u",
    b"\\ud800",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"=",
    b"#",
    b"/*",
    b"*/",
    b"//",
    b"<<EOF\n",
    b"${",
    b"-1",
    b"0",
    b"1e999",
    b"18446744073709551616",
    b"9223372036854775807",
    b"-9223372036854775808",
    b"0x",
    b"4294967295",
    b"65535",
    b"\xff\xff\xff\xff",
    b"\x00\x00\x00\x00",
    b"\xff\xff\xff\xff\xff\xff\xff\xff",
];

/// One mutation of a seed picked from `seeds`, with `dictionary` (the
/// format's own tokens) beside the generic interesting bytes.
pub fn mutate(rng: &mut Rng, seeds: &[Vec<u8>], dictionary: &[&[u8]]) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].clone();
    let rounds = 1 + rng.below(8);
    for _ in 0..rounds {
        let len = data.len();
        match rng.below(10) {
            // Flip bits of one byte.
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            // Replace a byte with any byte.
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = rng.next_u64() as u8;
            }
            // Delete a range.
            2 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(16.min(len - start))).min(len);
                data.drain(start..end);
            }
            // Duplicate a range in place.
            3 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(64.min(len - start))).min(len);
                let piece = data[start..end].to_vec();
                let at = rng.below(len + 1);
                data.splice(at..at, piece);
            }
            // Splice in part of another seed.
            4 => {
                let other = &seeds[rng.below(seeds.len())];
                if !other.is_empty() {
                    let start = rng.below(other.len());
                    let end =
                        (start + 1 + rng.below(256.min(other.len() - start))).min(other.len());
                    let at = rng.below(len + 1);
                    data.splice(at..at, other[start..end].iter().copied());
                }
            }
            // Cut short.
            5 if len > 0 => data.truncate(rng.below(len)),
            // Insert a token of the format.
            6 | 7 if !dictionary.is_empty() => {
                let token = dictionary[rng.below(dictionary.len())];
                let at = rng.below(len + 1);
                data.splice(at..at, token.iter().copied());
            }
            // Insert or overwrite with an interesting byte sequence.
            _ => {
                let token = INTERESTING[rng.below(INTERESTING.len())];
                let at = rng.below(len + 1);
                if rng.below(2) == 0 || at + token.len() > len {
                    data.splice(at..at, token.iter().copied());
                } else {
                    data[at..at + token.len()].copy_from_slice(token);
                }
            }
        }
    }
    data
}

/// Feeds `check` the seeds themselves, then `cases` mutations of them, and
/// fails with every input that made it panic (at most a few shown, as
/// Rust byte-string literals to paste into a regression test). Returns how
/// many inputs ran.
pub fn never_panics(
    name: &str,
    seeds: &[Vec<u8>],
    dictionary: &[&[u8]],
    ci_default: usize,
    check: impl Fn(&[u8]),
) -> usize {
    assert!(!seeds.is_empty(), "{name}: no seeds");
    let total = cases(ci_default);
    let start = seed(name);
    let mut rng = Rng::new(start);
    let mut panics: Vec<(Vec<u8>, String)> = Vec::new();
    let mut ran = 0;
    let inputs = seeds
        .iter()
        .cloned()
        .chain((0..total).map(|_| mutate(&mut rng, seeds, dictionary)));
    for input in inputs {
        ran += 1;
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| check(&input))) {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            panics.push((input, message));
        }
    }
    if !panics.is_empty() {
        let shown: Vec<String> = panics
            .iter()
            .take(5)
            .map(|(input, message)| format!("  {message}\n    b\"{}\"", input.escape_ascii()))
            .collect();
        panic!(
            "{name}: {} of {ran} inputs panicked (seed {start}):\n{}",
            panics.len(),
            shown.join("\n")
        );
    }
    ran
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader with a planted bug (a panic on a byte pair no seed has) is
    /// caught, and the report shows an input that triggers it.
    #[test]
    fn a_planted_panic_is_found_and_shown() {
        let seeds = vec![b"{\"a\": [1, 2, 3]}".to_vec(), b"abc".to_vec()];
        let outcome = std::panic::catch_unwind(|| {
            never_panics("planted", &seeds, &[b"]]"], 5_000, |input| {
                if input.windows(2).any(|w| w == b"]]") {
                    panic!("planted bug");
                }
            })
        });
        let report = outcome
            .err()
            .and_then(|p| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        assert!(
            report.contains("planted bug") && report.contains("]]"),
            "{report}"
        );
    }

    #[test]
    fn mutations_repeat_from_the_same_seed() {
        let seeds = vec![b"provider \"a/b\" {}".to_vec()];
        let run = |start| {
            let mut rng = Rng::new(start);
            (0..100)
                .map(|_| mutate(&mut rng, &seeds, &[b"x"]))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }
}
