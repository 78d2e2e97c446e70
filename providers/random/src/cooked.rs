//! The starting state ("cooked" values) of Go's `math/rand` source,
//! computed rather than copied: shared by `build.rs`, which writes the
//! table into the build, and the unit tests, which check the method
//! against plain stepping.
//!
//! Go's `rngSource` is an additive lagged Fibonacci generator over 607
//! 64-bit words, `x[n] = x[n-607] + x[n-273] (mod 2^64)`. Its seeding
//! XORs every word with a fixed table: the generator's register after
//! 7.8e12 steps from a state filled by the Park–Miller LCG
//! (`x' = 48271·x mod 2^31-1`) seeded with 1, as Go's `gen_cooked.go`
//! describes. Stepping 7.8e12 times is out of the question; the
//! recurrence is linear, so the state after k steps is given by `z^k`
//! reduced modulo the recurrence's characteristic polynomial
//! `z^607 - z^334 - 1`, computed by repeated squaring.

/// Words in the generator's register.
pub const LEN: usize = 607;
/// The recurrence's short lag.
pub const TAP: usize = 273;
/// Steps the reference generator ran to produce the table.
pub const COOKING_STEPS: u64 = 7_800_000_000_000;

/// Park–Miller "minimal standard" step, `48271·x mod (2^31 - 1)`.
pub fn seedrand(x: i32) -> i32 {
    ((i64::from(x) * 48271) % 2_147_483_647) as i32
}

/// The register as Go's `gen_cooked.go` fills it before stepping:
/// seeded with 1, twenty LCG draws discarded, then three draws per word
/// combined with shifts of 20 and 10.
pub fn initial_register() -> [u64; LEN] {
    let mut register = [0u64; LEN];
    let mut x: i32 = 1;
    for i in -20..LEN as i64 {
        x = seedrand(x);
        if i >= 0 {
            let mut u = (i64::from(x) << 20) as u64;
            x = seedrand(x);
            u ^= (i64::from(x) << 10) as u64;
            x = seedrand(x);
            u ^= x as u64;
            register[i as usize] = u;
        }
    }
    register
}

/// One step of the reference generator in place, with its read
/// positions: both move down one word per step, the written ("feed")
/// word 334 places behind the other ("tap") word.
pub fn step(register: &mut [u64; LEN], tap: &mut usize, feed: &mut usize) -> u64 {
    *tap = (*tap + LEN - 1) % LEN;
    *feed = (*feed + LEN - 1) % LEN;
    let x = register[*feed].wrapping_add(register[*tap]);
    register[*feed] = x;
    x
}

/// A polynomial in z over the integers mod 2^64, of degree below 607,
/// standing for its class modulo `z^607 - z^334 - 1`.
type Poly = Vec<u64>;

/// Folds coefficients of degree 607 and up back down, using
/// `z^607 = z^334 + 1`; the highest first, since folding can land at or
/// above 607 again.
fn reduce(mut product: Vec<u64>) -> Poly {
    for degree in (LEN..product.len()).rev() {
        let c = product[degree];
        if c != 0 {
            product[degree - LEN] = product[degree - LEN].wrapping_add(c);
            product[degree - TAP] = product[degree - TAP].wrapping_add(c);
        }
    }
    product.truncate(LEN);
    product
}

fn multiply(a: &Poly, b: &Poly) -> Poly {
    let mut product = vec![0u64; 2 * LEN - 1];
    for (i, &x) in a.iter().enumerate() {
        if x == 0 {
            continue;
        }
        for (j, &y) in b.iter().enumerate() {
            product[i + j] = product[i + j].wrapping_add(x.wrapping_mul(y));
        }
    }
    reduce(product)
}

fn times_z(a: &Poly) -> Poly {
    let mut shifted = Vec::with_capacity(LEN + 1);
    shifted.push(0);
    shifted.extend_from_slice(a);
    reduce(shifted)
}

/// `z^k` modulo the characteristic polynomial.
fn z_power(k: u64) -> Poly {
    let mut result = vec![0u64; LEN];
    result[0] = 1;
    for bit in (0..u64::BITS - k.leading_zeros()).rev() {
        result = multiply(&result, &result);
        if k >> bit & 1 == 1 {
            result = times_z(&result);
        }
    }
    result
}

/// The register after `steps` steps of the reference generator from
/// `register` with its starting positions (tap 0, feed 334), as it
/// lies in memory.
///
/// Numbering the words in the order the generator writes them, s(-606)
/// to s(0) are the starting words and step n writes s(n) = s(n-607) +
/// s(n-273). Step n writes position (334 - n) mod 607, and that is
/// where s(-606..=0) start out too. With t(j) = s(j - 606) the
/// recurrence is t(j+607) = t(j+334) + t(j), so t(j) = Σ r_i·t(i) where
/// `z^j ≡ Σ r_i·z^i`. After `steps` steps, each position holds the last
/// word written there: s(steps-606) to s(steps).
pub fn advance(register: &[u64; LEN], steps: u64) -> [u64; LEN] {
    let position = |n: i128| (334 - n).rem_euclid(LEN as i128) as usize;
    let start: Vec<u64> = (0..LEN as i128)
        .map(|j| register[position(j - 606)])
        .collect();
    let mut result = [0u64; LEN];
    let mut power = z_power(steps);
    for d in 0..LEN {
        let word = power
            .iter()
            .zip(&start)
            .fold(0u64, |sum, (r, t)| sum.wrapping_add(r.wrapping_mul(*t)));
        result[position(i128::from(steps) - 606 + d as i128)] = word;
        power = times_z(&power);
    }
    result
}

/// The table Go's `rngSource` XORs into every seeded register.
pub fn cooked() -> [u64; LEN] {
    advance(&initial_register(), COOKING_STEPS)
}
