//! Arbitrary-precision numbers with exactly the semantics of Go's `big.Float`
//! as cty uses it: every number carries its own binary precision (512 bits
//! for numbers parsed from text, 64 for integers, 53 for float64s), results
//! of arithmetic are rounded to nearest-even at the precision Go would pick,
//! and text is produced by Go's shortest-representation algorithm, so
//! `1/3`, `0.1 + 0.2` and `pow(2, 100)` print to the digit as Terraform does.
//!
//! Internally a finite number is `±mant × 2^exp` with an odd mantissa, which
//! makes "is this an integer", "minimum precision" and comparisons cheap;
//! mantissas that fit in 64 bits are kept inline so integer-heavy code does
//! not allocate.

use std::cmp::Ordering;

use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};

/// Go's `big.MinExp` / `big.MaxExp`: the binary exponent (of the mantissa
/// normalised to `[0.5, 1)`) must fit an int32, beyond that Go underflows to
/// zero or overflows to infinity.
const MIN_EXP: i64 = i32::MIN as i64;
const MAX_EXP: i64 = i32::MAX as i64;

/// cty parses every number from text at this precision.
const PARSE_PREC: u32 = 512;

/// cty's `Multiply` computes products at this precision before trimming.
const MUL_PREC: u32 = 512;

#[derive(Clone, Debug)]
pub struct Number {
    prec: u32,
    neg: bool,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Zero,
    Inf,
    /// `mant × 2^exp`, `mant` odd.
    Finite(Mant, i64),
}

/// A non-zero odd mantissa; `Big` only holds values that do not fit a u64,
/// so each value has exactly one representation.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Mant {
    Small(u64),
    Big(BigUint),
}

impl Mant {
    fn bits(&self) -> u64 {
        match self {
            Mant::Small(v) => u64::from(64 - v.leading_zeros()),
            Mant::Big(b) => b.bits(),
        }
    }

    fn to_biguint(&self) -> BigUint {
        match self {
            Mant::Small(v) => BigUint::from(*v),
            Mant::Big(b) => b.clone(),
        }
    }
}

/// An operation whose result Go's `big.Float` would refuse (it panics with
/// `ErrNaN`), such as `+Inf - +Inf` or `0 * Inf`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotANumber;

impl std::fmt::Display for NotANumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the result is not a number")
    }
}

impl std::error::Error for NotANumber {}

fn bits_u128(v: u128) -> u64 {
    u64::from(128 - v.leading_zeros())
}

fn zero_with(neg: bool, prec: u32) -> Number {
    Number {
        prec,
        neg,
        kind: Kind::Zero,
    }
}

fn inf_with(neg: bool, prec: u32) -> Number {
    Number {
        prec,
        neg,
        kind: Kind::Inf,
    }
}

/// Builds the number `±m × 2^e` rounded to `prec` bits, nearest even.
/// `sticky` says the exact value lies strictly above `m × 2^e` (by less than
/// one unit of `m`'s last bit); callers that pass it make sure `m` has more
/// than `prec` bits. Exponent limits behave as Go's `setExpAndRound`.
fn finish_u128(neg: bool, prec: u32, mut m: u128, mut e: i64, sticky: bool) -> Number {
    if m == 0 || prec == 0 {
        return zero_with(neg, prec);
    }
    let n = bits_u128(m);
    if e + n as i64 > MAX_EXP {
        return inf_with(neg, prec);
    }
    if e + (n as i64) < MIN_EXP {
        return zero_with(neg, prec);
    }
    if n > u64::from(prec) {
        let sh = (n - u64::from(prec)) as u32;
        let half = 1u128 << (sh - 1);
        let rbit = m & half != 0;
        let rest = sticky || m & (half - 1) != 0;
        m >>= sh;
        e += i64::from(sh);
        if rbit && (rest || m & 1 == 1) {
            m += 1;
        }
    }
    let tz = m.trailing_zeros();
    m >>= tz;
    e += i64::from(tz);
    if e + bits_u128(m) as i64 > MAX_EXP {
        return inf_with(neg, prec);
    }
    let mant = match u64::try_from(m) {
        Ok(v) => Mant::Small(v),
        Err(_) => Mant::Big(BigUint::from(m)),
    };
    Number {
        prec,
        neg,
        kind: Kind::Finite(mant, e),
    }
}

/// As [`finish_u128`] for mantissas of any size.
fn finish_big(neg: bool, prec: u32, mut m: BigUint, mut e: i64, sticky: bool) -> Number {
    let n = m.bits();
    if n <= 128 {
        if let Some(v) = m.to_u128() {
            return finish_u128(neg, prec, v, e, sticky);
        }
    }
    if prec == 0 {
        return zero_with(neg, prec);
    }
    if e.saturating_add(n as i64) > MAX_EXP {
        return inf_with(neg, prec);
    }
    if e.saturating_add(n as i64) < MIN_EXP {
        return zero_with(neg, prec);
    }
    if n > u64::from(prec) {
        let sh = n - u64::from(prec);
        let rbit = m.bit(sh - 1);
        let rest = sticky || m.trailing_zeros().is_some_and(|tz| tz < sh - 1);
        m >>= sh;
        e += sh as i64;
        if rbit && (rest || m.bit(0)) {
            m += 1u32;
        }
    }
    let tz = m.trailing_zeros().unwrap_or(0);
    m >>= tz;
    e += tz as i64;
    if e + m.bits() as i64 > MAX_EXP {
        return inf_with(neg, prec);
    }
    let mant = match m.to_u64() {
        Some(v) => Mant::Small(v),
        None => Mant::Big(m),
    };
    Number {
        prec,
        neg,
        kind: Kind::Finite(mant, e),
    }
}

fn finish_mant(neg: bool, prec: u32, m: &Mant, e: i64) -> Number {
    if m.bits() <= u64::from(prec) {
        return Number {
            prec,
            neg,
            kind: Kind::Finite(m.clone(), e),
        };
    }
    match m {
        Mant::Small(v) => finish_u128(neg, prec, u128::from(*v), e, false),
        Mant::Big(b) => finish_big(neg, prec, b.clone(), e, false),
    }
}

/// Compares `|a × 2^ea|` with `|b × 2^eb|`.
fn cmp_mag(a: &Mant, ea: i64, b: &Mant, eb: i64) -> Ordering {
    let (la, lb) = (a.bits(), b.bits());
    let top = (ea + la as i64).cmp(&(eb + lb as i64));
    if top != Ordering::Equal {
        return top;
    }
    match (a, b) {
        (Mant::Small(x), Mant::Small(y)) => (x << (64 - la)).cmp(&(y << (64 - lb))),
        _ => {
            let l = la.max(lb);
            (a.to_biguint() << (l - la)).cmp(&(b.to_biguint() << (l - lb)))
        }
    }
}

/// `|a × 2^ea| ± |b × 2^eb|` rounded to `prec`, where `b` is not above `a`
/// (and strictly below it when subtracting).
fn add_mags(neg: bool, prec: u32, a: &Mant, ea: i64, b: &Mant, eb: i64, subtract: bool) -> Number {
    let ta = ea + a.bits() as i64;
    let tb = eb + b.bits() as i64;
    // An operand that lies entirely below both a's last bit and a quarter
    // unit of the result only acts as a sticky bit: any value in that range
    // rounds identically, so a tiny stand-in avoids shifting by huge gaps.
    let lim = ea.min(ta - i64::from(prec) - 2);
    let one = Mant::Small(1);
    let (b, eb) = if tb + 64 < lim {
        (&one, lim - 1)
    } else {
        (b, eb)
    };
    let e = ea.min(eb);
    let (sa, sb) = ((ea - e) as u64, (eb - e) as u64);
    if let (Mant::Small(x), Mant::Small(y)) = (a, b) {
        if a.bits() + sa <= 126 && b.bits() + sb <= 126 {
            let (x, y) = (u128::from(*x) << sa, u128::from(*y) << sb);
            let m = if subtract { x - y } else { x + y };
            return finish_u128(neg, prec, m, e, false);
        }
    }
    let x = a.to_biguint() << sa;
    let y = b.to_biguint() << sb;
    let m = if subtract { x - y } else { x + y };
    finish_big(neg, prec, m, e, false)
}

fn mul_mags(neg: bool, prec: u32, a: &Mant, ea: i64, b: &Mant, eb: i64) -> Number {
    let e = ea + eb;
    match (a, b) {
        (Mant::Small(x), Mant::Small(y)) => {
            finish_u128(neg, prec, u128::from(*x) * u128::from(*y), e, false)
        }
        _ => finish_big(neg, prec, a.to_biguint() * b.to_biguint(), e, false),
    }
}

fn quo_mags(neg: bool, prec: u32, a: &Mant, ea: i64, b: &Mant, eb: i64) -> Number {
    if let Mant::Small(1) = b {
        return finish_mant(neg, prec, a, ea - eb);
    }
    let (la, lb) = (a.bits() as i64, b.bits() as i64);
    // Enough quotient bits for the rounding bit plus one guard bit; the
    // remainder then only needs to be known as non-zero.
    let s = (i64::from(prec) + 2 + lb - la).max(0) as u64;
    if let (Mant::Small(x), Mant::Small(y)) = (a, b) {
        if x % y == 0 {
            return finish_u128(neg, prec, u128::from(x / y), ea - eb, false);
        }
        if la as u64 + s <= 128 {
            let num = u128::from(*x) << s;
            let (q, r) = (num / u128::from(*y), num % u128::from(*y));
            return finish_u128(neg, prec, q, ea - eb - s as i64, r != 0);
        }
    }
    let num = a.to_biguint() << s;
    let (q, r) = num.div_rem(&b.to_biguint());
    finish_big(neg, prec, q, ea - eb - s as i64, !r.is_zero())
}

/// Go's `pow5tab`: the powers of five that fit a uint64.
const POW5: [u64; 28] = {
    let mut t = [1u64; 28];
    let mut i = 1;
    while i < 28 {
        t[i] = t[i - 1] * 5;
        i += 1;
    }
    t
};

impl Number {
    /// As cty's `ParseNumberVal`: decimal text (optional sign, digits,
    /// fraction, exponent; also `Inf`/`+Inf`/`-Inf`) at 512 bits rounded to
    /// nearest even. None when the text is not a number.
    ///
    /// Like Go's `big.ParseFloat(s, 10, 512, ToNearestEven)` this also takes
    /// a binary exponent (`1p3` is 8), and the decimal scaling is done the
    /// way Go does it (the power of five is itself rounded at 576 bits), so
    /// long literals round to exactly the same bits.
    pub fn parse(text: &str) -> Option<Number> {
        match text {
            "Inf" | "inf" | "+Inf" | "+inf" => return Some(inf_with(false, PARSE_PREC)),
            "-Inf" | "-inf" => return Some(inf_with(true, PARSE_PREC)),
            _ => {}
        }
        let b = text.as_bytes();
        let mut i = 0;
        let neg = match b.first()? {
            b'-' => {
                i = 1;
                true
            }
            b'+' => {
                i = 1;
                false
            }
            _ => false,
        };

        let mantissa_start = i;
        let mut small: u64 = 0;
        let mut count: i64 = 0;
        let mut dot: Option<i64> = None;
        while i < b.len() {
            let c = b[i];
            if c == b'.' && dot.is_none() {
                dot = Some(count);
            } else if c.is_ascii_digit() {
                if count < 19 {
                    small = small * 10 + u64::from(c - b'0');
                }
                count += 1;
            } else {
                break;
            }
            i += 1;
        }
        if count == 0 {
            return None;
        }
        let mantissa_end = i;

        let mut exp: i64 = 0;
        let mut binary_exp = false;
        if i < b.len() {
            match b[i] {
                b'e' | b'E' => {}
                b'p' | b'P' => binary_exp = true,
                _ => return None,
            }
            i += 1;
            let mut lit = String::new();
            if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                if b[i] == b'-' {
                    lit.push('-');
                }
                i += 1;
            }
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == start || i != b.len() {
                return None;
            }
            lit.push_str(&text[start..i]);
            exp = lit.parse().ok()?;
        }

        let mant = if count <= 19 {
            Mant::Small(small)
        } else {
            let digits: Vec<u8> = b[mantissa_start..mantissa_end]
                .iter()
                .copied()
                .filter(u8::is_ascii_digit)
                .collect();
            Mant::Big(BigUint::parse_bytes(&digits, 10)?)
        };
        if mant == Mant::Small(0) || mant == Mant::Big(BigUint::zero()) {
            return Some(zero_with(neg, PARSE_PREC));
        }

        // Go's exponent bookkeeping, int64 wrap-around included.
        let nbits = mant.bits() as i64;
        let mut exp2 = nbits;
        let mut exp5: i64 = 0;
        if let Some(dot) = dot {
            let fcount = dot - count;
            if fcount < 0 {
                exp5 = fcount;
                exp2 = exp2.wrapping_add(fcount);
            }
        }
        if !binary_exp {
            exp5 = exp5.wrapping_add(exp);
        }
        exp2 = exp2.wrapping_add(exp);
        if !(MIN_EXP..=MAX_EXP).contains(&exp2) {
            return None;
        }

        // The mantissa is scaled unrounded, as Go does; only without a
        // decimal exponent is it rounded on its own.
        let e = exp2 - nbits;
        let prec = if exp5 == 0 { PARSE_PREC } else { u32::MAX };
        let z = match mant {
            Mant::Small(v) => finish_u128(neg, prec, u128::from(v), e, false),
            Mant::Big(b) => finish_big(neg, prec, b, e, false),
        };
        if exp5 == 0 {
            return Some(z);
        }
        let p = pow5(exp5.unsigned_abs(), PARSE_PREC + 64)?;
        if exp5 < 0 {
            z.quo_prec(&p, PARSE_PREC).ok()
        } else {
            z.mul_prec(&p, PARSE_PREC).ok()
        }
    }

    /// As `SetInt64`: precision 64.
    pub fn from_i64(v: i64) -> Number {
        Number::from_bits64(v < 0, v.unsigned_abs())
    }

    /// As `SetUint64`: precision 64.
    pub fn from_u64(v: u64) -> Number {
        Number::from_bits64(false, v)
    }

    fn from_bits64(neg: bool, v: u64) -> Number {
        if v == 0 {
            return zero_with(neg, 64);
        }
        let tz = v.trailing_zeros();
        Number {
            prec: 64,
            neg,
            kind: Kind::Finite(Mant::Small(v >> tz), i64::from(tz)),
        }
    }

    /// As `SetFloat64`: precision 53, exact. None for NaN.
    pub fn from_f64(v: f64) -> Option<Number> {
        if v.is_nan() {
            return None;
        }
        let neg = v.is_sign_negative();
        if v == 0.0 {
            return Some(zero_with(neg, 53));
        }
        if v.is_infinite() {
            return Some(inf_with(neg, 53));
        }
        let bits = v.to_bits();
        let field = ((bits >> 52) & 0x7ff) as i64;
        let frac = bits & ((1u64 << 52) - 1);
        let (m, e) = if field == 0 {
            (frac, -1074)
        } else {
            (frac | (1u64 << 52), field - 1075)
        };
        let tz = m.trailing_zeros();
        Some(Number {
            prec: 53,
            neg,
            kind: Kind::Finite(Mant::Small(m >> tz), e + i64::from(tz)),
        })
    }

    /// As `SetInt` on a fresh `big.Float`: precision max(64, bit length),
    /// so the value is exact.
    pub fn from_bigint(v: &BigInt) -> Number {
        let prec = u32::try_from(v.bits()).unwrap_or(u32::MAX).max(64);
        Number::from_bigint_prec(v, prec)
    }

    /// `SetInt` into a number whose precision is already `prec`.
    fn from_bigint_prec(v: &BigInt, prec: u32) -> Number {
        let neg = v.sign() == Sign::Minus;
        if v.is_zero() {
            return zero_with(neg, prec);
        }
        finish_big(neg, prec, v.magnitude().clone(), 0, false)
    }

    /// cty's `Zero` (`big.NewFloat(0)`): +0 at precision 53.
    pub fn zero() -> Number {
        zero_with(false, 53)
    }

    /// cty's `PositiveInfinity`/`NegativeInfinity`: precision 0.
    pub fn infinity(negative: bool) -> Number {
        inf_with(negative, 0)
    }

    pub fn add(&self, other: &Number) -> Result<Number, NotANumber> {
        self.add_signed(other, false, self.prec.max(other.prec))
    }

    pub fn sub(&self, other: &Number) -> Result<Number, NotANumber> {
        self.add_signed(other, true, self.prec.max(other.prec))
    }

    /// cty's `Multiply`: computed at 512 bits, then reduced to the larger
    /// operand precision or the minimum precision the product needs.
    pub fn mul(&self, other: &Number) -> Result<Number, NotANumber> {
        let product = self.mul_prec(other, MUL_PREC)?;
        let prec = self.prec.max(other.prec).max(product.min_prec());
        Ok(product.with_precision(prec))
    }

    /// `big.Float.Quo` at the larger operand precision; x/0 is ±Inf.
    pub fn div(&self, other: &Number) -> Result<Number, NotANumber> {
        self.quo_prec(other, self.prec.max(other.prec))
    }

    /// cty's `Modulo`: `x - y * trunc(x / y)`, with the product and the
    /// difference rounded at x's precision, and `x % 0 == x`.
    ///
    /// Any infinite operand is an error: that is what Terraform shows (cty
    /// only special-cases its own shared infinity values, which arithmetic
    /// never produces; with any other infinity it fails).
    pub fn rem(&self, other: &Number) -> Result<Number, NotANumber> {
        if self.is_infinite() || other.is_infinite() {
            return Err(NotANumber);
        }
        if other.is_zero() {
            return Ok(self.clone());
        }
        let quotient = self.div(other)?;
        let whole = quotient.trunc_to_bigint().ok_or(NotANumber)?;
        let prec = if self.prec == 0 {
            u32::try_from(whole.bits()).unwrap_or(u32::MAX).max(64)
        } else {
            self.prec
        };
        let work = Number::from_bigint_prec(&whole, prec);
        let work = other.mul_prec(&work, prec)?;
        self.add_signed(&work, true, prec)
    }

    pub fn neg(&self) -> Number {
        let mut r = self.clone();
        r.neg = !r.neg;
        r
    }

    pub fn abs(&self) -> Number {
        let mut r = self.clone();
        r.neg = false;
        r
    }

    /// As Go's `IsInt`: zeros are integers, infinities are not.
    pub fn is_integer(&self) -> bool {
        match &self.kind {
            Kind::Zero => true,
            Kind::Inf => false,
            Kind::Finite(_, e) => *e >= 0,
        }
    }

    pub fn is_infinite(&self) -> bool {
        matches!(self.kind, Kind::Inf)
    }

    pub fn is_zero(&self) -> bool {
        matches!(self.kind, Kind::Zero)
    }

    /// The sign bit, as Go's `Signbit`: true for -0 and -Inf too.
    pub fn is_negative(&self) -> bool {
        self.neg
    }

    /// -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        match self.kind {
            Kind::Zero => 0,
            _ if self.neg => -1,
            _ => 1,
        }
    }

    /// Exact conversion when the number is an integer in range.
    pub fn to_i64(&self) -> Option<i64> {
        match &self.kind {
            Kind::Zero => Some(0),
            Kind::Inf => None,
            Kind::Finite(m, e) => {
                let v = integer_u128(m, *e)?;
                if self.neg {
                    if v <= 1u128 << 63 {
                        i64::try_from(-(v as i128)).ok()
                    } else {
                        None
                    }
                } else {
                    i64::try_from(v).ok()
                }
            }
        }
    }

    /// Exact conversion when the number is a non-negative integer in range.
    pub fn to_u64(&self) -> Option<u64> {
        match &self.kind {
            Kind::Zero => Some(0),
            Kind::Inf => None,
            Kind::Finite(_, _) if self.neg => None,
            Kind::Finite(m, e) => u64::try_from(integer_u128(m, *e)?).ok(),
        }
    }

    /// Nearest float64, as `big.Float.Float64`.
    pub fn to_f64(&self) -> f64 {
        let sign = if self.neg { -1.0 } else { 1.0 };
        let (m, e) = match &self.kind {
            Kind::Zero => return sign * 0.0,
            Kind::Inf => return sign * f64::INFINITY,
            Kind::Finite(m, e) => (m, *e),
        };
        // Exponent of the leading bit; below -1022 fewer mantissa bits
        // remain (denormals), down to none at all.
        let lead = e + m.bits() as i64 - 1;
        let mut p: i64 = 53;
        if lead < -1022 {
            p = 1075 + lead;
            if p < 0 || (p == 0 && *m == Mant::Small(1)) {
                return sign * 0.0;
            }
            if p == 0 {
                return sign * f64::from_bits(1);
            }
        }
        let r = finish_mant(self.neg, p as u32, m, e);
        let (rm, re) = match &r.kind {
            Kind::Finite(Mant::Small(rm), re) => (*rm, *re),
            _ => return sign * f64::INFINITY,
        };
        let rl = i64::from(64 - rm.leading_zeros());
        let lead = re + rl - 1;
        if lead > 1023 {
            return sign * f64::INFINITY;
        }
        let bits = if lead < -1022 {
            rm << (re + 1074)
        } else {
            let frac = (rm << (53 - rl)) & ((1u64 << 52) - 1);
            (((lead + 1023) as u64) << 52) | frac
        };
        sign * f64::from_bits(bits)
    }

    /// The float64 with exactly this value, if there is one (Go's
    /// `Float64` reporting `Exact`).
    pub fn to_f64_exact(&self) -> Option<f64> {
        let f = self.to_f64();
        match self.kind {
            Kind::Zero | Kind::Inf => Some(f),
            Kind::Finite(..) => {
                let back = Number::from_f64(f)?;
                (f.is_finite() && back.cmp(self) == Ordering::Equal).then_some(f)
            }
        }
    }

    /// Integer part, truncated toward zero (`big.Float.Int`); None for ±Inf.
    pub fn trunc_to_bigint(&self) -> Option<BigInt> {
        match &self.kind {
            Kind::Zero => Some(BigInt::zero()),
            Kind::Inf => None,
            Kind::Finite(m, e) => {
                let mag = if *e >= 0 {
                    m.to_biguint() << (*e as u64)
                } else if e.unsigned_abs() >= m.bits() {
                    BigUint::zero()
                } else {
                    m.to_biguint() >> e.unsigned_abs()
                };
                let sign = if self.neg { Sign::Minus } else { Sign::Plus };
                Some(BigInt::from_biguint(sign, mag))
            }
        }
    }

    /// The value as an integer when it is one (None for fractions and ±Inf).
    pub fn to_bigint_exact(&self) -> Option<BigInt> {
        if self.is_integer() {
            self.trunc_to_bigint()
        } else {
            None
        }
    }

    /// cty's number equality (`Value.Equals`), which is not [`Ord`]'s:
    /// integers compare by value, but other numbers are equal when their
    /// shortest texts are, so `0.1` read from text equals the float64 `0.1`
    /// (different values) while `1/3` at 512 and at 64 bits differ.
    pub fn cty_equal(&self, other: &Number) -> bool {
        if self.signum() != other.signum() || self.is_integer() != other.is_integer() {
            return false;
        }
        if self.is_integer() {
            return self.cmp(other) == Ordering::Equal;
        }
        self.text('f', -1) == other.text('f', -1)
    }

    /// cty's `floor`: infinities unchanged, otherwise the integer set into
    /// a number of the operand's precision (so `floor(-0)` is `0`).
    pub fn floor(&self) -> Number {
        self.round_integral(true)
    }

    /// cty's `ceil`, the mirror of [`Number::floor`].
    pub fn ceil(&self) -> Number {
        self.round_integral(false)
    }

    fn round_integral(&self, down: bool) -> Number {
        let Some(mut whole) = self.trunc_to_bigint() else {
            return self.clone();
        };
        if !self.is_integer() {
            if down && self.neg {
                whole -= 1;
            } else if !down && !self.neg {
                whole += 1;
            }
        }
        let prec = if self.prec == 0 {
            u32::try_from(whole.bits()).unwrap_or(u32::MAX).max(64)
        } else {
            self.prec
        };
        Number::from_bigint_prec(&whole, prec)
    }

    /// The mantissa precision in bits, as `big.Float.Prec`.
    pub fn precision(&self) -> u32 {
        self.prec
    }

    /// As Go's `MinPrec`: the bits needed to hold the value exactly (0 for
    /// zeros and infinities).
    pub fn min_prec(&self) -> u32 {
        match &self.kind {
            Kind::Finite(m, _) => u32::try_from(m.bits()).unwrap_or(u32::MAX),
            _ => 0,
        }
    }

    /// As Go's `SetPrec`: the value rounded (nearest even) to `prec` bits,
    /// which becomes its precision; precision 0 turns finite values into
    /// zeros of the same sign.
    pub fn with_precision(&self, prec: u32) -> Number {
        match &self.kind {
            Kind::Finite(m, e) => finish_mant(self.neg, prec, m, *e),
            _ => Number {
                prec,
                neg: self.neg,
                kind: self.kind.clone(),
            },
        }
    }

    /// Go's `big.Float.Text(format, prec)` for format 'e', 'E', 'f', 'g', 'G'
    /// and prec -1 (shortest) or >= 0. Other formats give `%` and the
    /// format character, as Go does for formats it does not know.
    pub fn text(&self, format: char, prec: i32) -> String {
        let mut buf = String::new();
        if self.neg {
            buf.push('-');
        }
        if self.is_infinite() {
            if !self.neg {
                buf.push('+');
            }
            buf.push_str("Inf");
            return buf;
        }
        if !matches!(format, 'e' | 'E' | 'f' | 'g' | 'G') {
            return format!("%{format}");
        }
        let mut d = match &self.kind {
            Kind::Finite(m, e) => Decimal::of_mant(m, *e),
            _ => Decimal::default(),
        };
        let len = |d: &Decimal| d.mant.len() as i64;
        let shortest = prec < 0;
        let mut prec = i64::from(prec);
        if shortest {
            if let Kind::Finite(m, e) = &self.kind {
                round_shortest(&mut d, m, *e, self.prec);
            }
            prec = match format {
                'e' | 'E' => len(&d) - 1,
                'f' => (len(&d) - d.exp).max(0),
                _ => len(&d),
            };
        } else {
            match format {
                'e' | 'E' => d.round(1 + prec),
                'f' => d.round(d.exp + prec),
                _ => {
                    if prec == 0 {
                        prec = 1;
                    }
                    d.round(prec);
                }
            }
        }
        match format {
            'e' | 'E' => fmt_e(&mut buf, format, prec, &d),
            'f' => fmt_f(&mut buf, prec, &d),
            _ => {
                let mut eprec = prec;
                if eprec > len(&d) && len(&d) >= d.exp {
                    eprec = len(&d);
                }
                if shortest {
                    eprec = 6;
                }
                let exp = d.exp - 1;
                if exp < -4 || exp >= eprec {
                    if prec > len(&d) {
                        prec = len(&d);
                    }
                    let e = if format == 'g' { 'e' } else { 'E' };
                    fmt_e(&mut buf, e, prec - 1, &d);
                } else {
                    if prec > d.exp {
                        prec = len(&d);
                    }
                    fmt_f(&mut buf, (prec - d.exp).max(0), &d);
                }
            }
        }
        buf
    }

    fn ord(&self) -> i32 {
        let m = match self.kind {
            Kind::Zero => return 0,
            Kind::Finite(..) => 1,
            Kind::Inf => 2,
        };
        if self.neg {
            -m
        } else {
            m
        }
    }

    /// Go's `Add` (or `Sub` when `negate_other`) into a result of
    /// precision `prec`.
    fn add_signed(
        &self,
        other: &Number,
        negate_other: bool,
        prec: u32,
    ) -> Result<Number, NotANumber> {
        let (xneg, yneg) = (self.neg, other.neg != negate_other);
        match (&self.kind, &other.kind) {
            (Kind::Finite(a, ea), Kind::Finite(b, eb)) => {
                if xneg == yneg {
                    let (ta, tb) = (*ea + a.bits() as i64, *eb + b.bits() as i64);
                    let (a, ea, b, eb) = if ta < tb {
                        (b, *eb, a, *ea)
                    } else {
                        (a, *ea, b, *eb)
                    };
                    return Ok(add_mags(xneg, prec, a, ea, b, eb, false));
                }
                Ok(match cmp_mag(a, *ea, b, *eb) {
                    Ordering::Greater => add_mags(xneg, prec, a, *ea, b, *eb, true),
                    Ordering::Less => add_mags(yneg, prec, b, *eb, a, *ea, true),
                    Ordering::Equal => zero_with(false, prec),
                })
            }
            (Kind::Inf, Kind::Inf) if xneg != yneg => Err(NotANumber),
            (Kind::Zero, Kind::Zero) => Ok(zero_with(xneg && yneg, prec)),
            (Kind::Inf, _) | (_, Kind::Zero) => Ok(self.with_precision(prec)),
            _ => {
                let mut r = other.with_precision(prec);
                r.neg = yneg;
                Ok(r)
            }
        }
    }

    /// Go's `Mul` into a result of precision `prec`.
    fn mul_prec(&self, other: &Number, prec: u32) -> Result<Number, NotANumber> {
        let neg = self.neg != other.neg;
        match (&self.kind, &other.kind) {
            (Kind::Finite(a, ea), Kind::Finite(b, eb)) => Ok(mul_mags(neg, prec, a, *ea, b, *eb)),
            (Kind::Zero, Kind::Inf) | (Kind::Inf, Kind::Zero) => Err(NotANumber),
            (Kind::Inf, _) | (_, Kind::Inf) => Ok(inf_with(neg, prec)),
            _ => Ok(zero_with(neg, prec)),
        }
    }

    /// Go's `Quo` into a result of precision `prec`.
    fn quo_prec(&self, other: &Number, prec: u32) -> Result<Number, NotANumber> {
        let neg = self.neg != other.neg;
        match (&self.kind, &other.kind) {
            (Kind::Finite(a, ea), Kind::Finite(b, eb)) => Ok(quo_mags(neg, prec, a, *ea, b, *eb)),
            (Kind::Zero, Kind::Zero) | (Kind::Inf, Kind::Inf) => Err(NotANumber),
            (Kind::Zero, _) | (_, Kind::Inf) => Ok(zero_with(neg, prec)),
            _ => Ok(inf_with(neg, prec)),
        }
    }
}

/// `m × 2^e` when it is an integer below 2^128.
fn integer_u128(m: &Mant, e: i64) -> Option<u128> {
    if e < 0 || m.bits() + e as u64 > 128 {
        return None;
    }
    let v = match m {
        Mant::Small(v) => u128::from(*v),
        Mant::Big(b) => b.to_u128()?,
    };
    Some(v << e)
}

/// Go's `pow5`: 5^n at precision `prec`, built by repeated squaring with a
/// 64-bit wider factor, each product rounded as Go rounds it.
fn pow5(n: u64, prec: u32) -> Option<Number> {
    let last = (POW5.len() - 1) as u64;
    if n <= last {
        return Some(Number::from_u64(POW5[n as usize]).with_precision_unrounded(prec));
    }
    let mut z = Number::from_u64(POW5[last as usize]).with_precision_unrounded(prec);
    let mut n = n - last;
    let fprec = prec + 64;
    let mut f = Number::from_u64(5).with_precision_unrounded(fprec);
    while n > 0 {
        if n & 1 != 0 {
            z = z.mul_prec(&f, prec).ok()?;
        }
        n >>= 1;
        if n > 0 {
            f = f.mul_prec(&f, fprec).ok()?;
        }
    }
    Some(z)
}

impl Number {
    /// Sets the precision field of a value known to fit it.
    fn with_precision_unrounded(mut self, prec: u32) -> Number {
        self.prec = prec;
        self
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Number {}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Number) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Number {
    /// As Go's `Cmp`: -Inf < finite < +Inf, and -0 == +0.
    fn cmp(&self, other: &Number) -> Ordering {
        let (a, b) = (self.ord(), other.ord());
        if a != b {
            return a.cmp(&b);
        }
        match (&self.kind, &other.kind) {
            (Kind::Finite(x, ex), Kind::Finite(y, ey)) => {
                let c = cmp_mag(x, *ex, y, *ey);
                if self.neg {
                    c.reverse()
                } else {
                    c
                }
            }
            _ => Ordering::Equal,
        }
    }
}

impl std::fmt::Display for Number {
    /// As Terraform prints numbers: `Text('f', -1)`, with `+Inf`/`-Inf`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text('f', -1))
    }
}

/// A decimal `0.mant × 10^exp` (ASCII digits, no trailing zeros; empty for
/// zero), as Go's `decimal` used by `Text`.
#[derive(Default, Debug)]
struct Decimal {
    mant: Vec<u8>,
    exp: i64,
}

const LOG10_2: f64 = std::f64::consts::LOG10_2;

impl Decimal {
    fn of_mant(m: &Mant, e: i64) -> Decimal {
        if let Mant::Small(v) = m {
            if let Some(d) = Decimal::of_u128(u128::from(*v), e) {
                return d;
            }
        }
        Decimal::of_big(m.to_biguint(), e)
    }

    /// The exact decimal of `m × 2^e` when the digits fit a u128.
    fn of_u128(m: u128, e: i64) -> Option<Decimal> {
        if m == 0 {
            return Some(Decimal::default());
        }
        let tz = m.trailing_zeros();
        let (m, e) = (m >> tz, e + i64::from(tz));
        let (n, scale) = if e >= 0 {
            if bits_u128(m) + e as u64 > 128 {
                return None;
            }
            (m << e, 0)
        } else {
            let k = u32::try_from(-e).ok()?;
            (m.checked_mul(5u128.checked_pow(k)?)?, i64::from(k))
        };
        Some(Decimal::from_digits(n.to_string().into_bytes(), scale))
    }

    fn of_big(m: BigUint, e: i64) -> Decimal {
        let Some(tz) = m.trailing_zeros() else {
            return Decimal::default();
        };
        let (m, e) = (m >> tz, e + tz as i64);
        if m.bits() <= 128 {
            if let Some(d) = m.to_u128().and_then(|v| Decimal::of_u128(v, e)) {
                return d;
            }
        }
        let (n, scale) = if e >= 0 {
            (m << (e as u64), 0)
        } else {
            let k = u32::try_from(-e).unwrap_or(u32::MAX);
            (m * BigUint::from(5u32).pow(k), i64::from(k))
        };
        Decimal::from_digits(n.to_string().into_bytes(), scale)
    }

    /// `digits × 10^-scale`.
    fn from_digits(mut digits: Vec<u8>, scale: i64) -> Decimal {
        let exp = digits.len() as i64 - scale;
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        Decimal { mant: digits, exp }
    }

    fn at(&self, i: i64) -> u8 {
        if i >= 0 && (i as usize) < self.mant.len() {
            self.mant[i as usize]
        } else {
            b'0'
        }
    }

    fn should_round_up(&self, n: usize) -> bool {
        if self.mant[n] == b'5' && n + 1 == self.mant.len() {
            // Exactly halfway: to even.
            return n > 0 && (self.mant[n - 1] - b'0') & 1 != 0;
        }
        self.mant[n] >= b'5'
    }

    fn round(&mut self, n: i64) {
        if n < 0 || n >= self.mant.len() as i64 {
            return;
        }
        if self.should_round_up(n as usize) {
            self.round_up(n);
        } else {
            self.round_down(n);
        }
    }

    fn round_up(&mut self, n: i64) {
        if n < 0 || n >= self.mant.len() as i64 {
            return;
        }
        let mut n = n as usize;
        while n > 0 && self.mant[n - 1] >= b'9' {
            n -= 1;
        }
        if n == 0 {
            self.mant.truncate(1);
            self.mant[0] = b'1';
            self.exp += 1;
            return;
        }
        self.mant[n - 1] += 1;
        self.mant.truncate(n);
    }

    fn round_down(&mut self, n: i64) {
        if n < 0 || n >= self.mant.len() as i64 {
            return;
        }
        self.mant.truncate(n as usize);
        while self.mant.last() == Some(&b'0') {
            self.mant.pop();
        }
        if self.mant.is_empty() {
            self.exp = 0;
        }
    }
}

/// Go's `roundShortest`: the fewest digits that still read back as the
/// same value at precision `prec`, judged against the neighbours half a
/// unit away at that precision (so powers of two get no special lower
/// bound), and comparing digit positions exactly as Go does.
fn round_shortest(d: &mut Decimal, m: &Mant, e: i64, prec: u32) {
    if d.mant.is_empty() {
        return;
    }
    let l = m.bits() as i64;
    // When half a unit at this precision is below the last digit's unit,
    // the neighbours share every digit but the last and Go keeps all of
    // them; skip building the neighbours' long expansions.
    let half_ulp_log10 = (e + l - i64::from(prec) - 1) as f64 * LOG10_2;
    if half_ulp_log10 + 0.5 < (d.exp - d.mant.len() as i64) as f64 {
        return;
    }
    let s = l - (i64::from(prec) + 1);
    let mant = if s < 0 {
        m.to_biguint() << s.unsigned_abs()
    } else {
        m.to_biguint() >> (s as u64)
    };
    let exp = e + s;
    let lower = Decimal::of_big(&mant - 1u32, exp);
    let upper = Decimal::of_big(&mant + 1u32, exp);
    let inclusive = !mant.bit(1);
    for i in 0..d.mant.len() {
        let (digit, lo, up) = (d.mant[i], lower.at(i as i64), upper.at(i as i64));
        let okdown = lo != digit || (inclusive && i + 1 == lower.mant.len());
        let okup = digit != up && (inclusive || digit + 1 < up || i + 1 < upper.mant.len());
        let n = i as i64 + 1;
        match (okdown, okup) {
            (true, true) => d.round(n),
            (true, false) => d.round_down(n),
            (false, true) => d.round_up(n),
            (false, false) => continue,
        }
        return;
    }
}

fn push_exp(buf: &mut String, exp: i64) {
    let (sign, abs) = if exp < 0 { ('-', -exp) } else { ('+', exp) };
    buf.push(sign);
    if abs < 10 {
        buf.push('0');
    }
    buf.push_str(&abs.to_string());
}

/// Go's `%e`: d.dddde±dd.
fn fmt_e(buf: &mut String, format: char, prec: i64, d: &Decimal) {
    buf.push(char::from(d.mant.first().copied().unwrap_or(b'0')));
    if prec > 0 {
        buf.push('.');
        let mut i: i64 = 1;
        let m = (d.mant.len() as i64).min(prec + 1);
        if i < m {
            buf.extend(d.mant[1..m as usize].iter().map(|&c| char::from(c)));
            i = m;
        }
        while i <= prec {
            buf.push('0');
            i += 1;
        }
    }
    buf.push(format);
    let exp = if d.mant.is_empty() { 0 } else { d.exp - 1 };
    push_exp(buf, exp);
}

/// Go's `%f`: ddddd.ddd.
fn fmt_f(buf: &mut String, prec: i64, d: &Decimal) {
    if d.exp > 0 {
        let m = (d.mant.len() as i64).min(d.exp) as usize;
        buf.extend(d.mant[..m].iter().map(|&c| char::from(c)));
        buf.extend(std::iter::repeat_n('0', (d.exp - m as i64) as usize));
    } else {
        buf.push('0');
    }
    if prec > 0 {
        buf.push('.');
        buf.extend((0..prec).map(|i| char::from(d.at(d.exp + i))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value in the little expression language the table is written in.
    #[derive(Debug)]
    enum V {
        N(Number),
        S(String),
        L(usize),
        B(bool),
    }

    /// Evaluates the Terraform expressions of the test table with this
    /// module's operations, following HCL's precedence (`* / %` above
    /// `+ -`, unary minus above both) and cty's function definitions.
    struct Eval<'a> {
        s: &'a [u8],
        i: usize,
    }

    type R = Result<V, String>;

    impl Eval<'_> {
        fn run(src: &str) -> Result<String, String> {
            let mut ev = Eval {
                s: src.as_bytes(),
                i: 0,
            };
            let v = ev.comparison()?;
            ev.ws();
            if ev.i != ev.s.len() {
                return Err(format!("trailing input in {src:?}"));
            }
            Ok(match v {
                V::N(n) => n.to_string(),
                V::S(s) => format!("\"{s}\""),
                V::L(n) => format!("list of {n}"),
                V::B(b) => b.to_string(),
            })
        }

        fn ws(&mut self) {
            while self.i < self.s.len() && self.s[self.i] == b' ' {
                self.i += 1;
            }
        }

        fn peek(&mut self) -> Option<u8> {
            self.ws();
            self.s.get(self.i).copied()
        }

        fn eat(&mut self, c: u8) -> Result<(), String> {
            if self.peek() == Some(c) {
                self.i += 1;
                Ok(())
            } else {
                Err(format!("expected {:?} at {}", c as char, self.i))
            }
        }

        fn num(v: V) -> Result<Number, String> {
            match v {
                V::N(n) => Ok(n),
                other => Err(format!("not a number: {other:?}")),
            }
        }

        /// `==`/`!=` use cty's equality, the orderings Go's `Cmp`.
        fn comparison(&mut self) -> R {
            let lhs = self.expr()?;
            self.ws();
            let rest = &self.s[self.i..];
            let op = ["==", "!=", "<=", ">=", "<", ">"]
                .into_iter()
                .find(|op| rest.starts_with(op.as_bytes()));
            let Some(op) = op else {
                return Ok(lhs);
            };
            self.i += op.len();
            let (a, b) = (Eval::num(lhs)?, Eval::num(self.expr()?)?);
            let c = a.cmp(&b);
            Ok(V::B(match op {
                "==" => a.cty_equal(&b),
                "!=" => !a.cty_equal(&b),
                "<=" => c != Ordering::Greater,
                ">=" => c != Ordering::Less,
                "<" => c == Ordering::Less,
                _ => c == Ordering::Greater,
            }))
        }

        fn expr(&mut self) -> R {
            let mut lhs = self.term()?;
            while let Some(op @ (b'+' | b'-')) = self.peek() {
                self.i += 1;
                let rhs = Eval::num(self.term()?)?;
                let l = Eval::num(lhs)?;
                let r = if op == b'+' { l.add(&rhs) } else { l.sub(&rhs) };
                lhs = V::N(r.map_err(|_| "ERR".to_string())?);
            }
            Ok(lhs)
        }

        fn term(&mut self) -> R {
            let mut lhs = self.unary()?;
            while let Some(op @ (b'*' | b'/' | b'%')) = self.peek() {
                self.i += 1;
                let rhs = Eval::num(self.unary()?)?;
                let l = Eval::num(lhs)?;
                let r = match op {
                    b'*' => l.mul(&rhs),
                    b'/' => l.div(&rhs),
                    _ => l.rem(&rhs),
                };
                lhs = V::N(r.map_err(|_| "ERR".to_string())?);
            }
            Ok(lhs)
        }

        fn unary(&mut self) -> R {
            if self.peek() == Some(b'-') {
                self.i += 1;
                return Ok(V::N(Eval::num(self.unary()?)?.neg()));
            }
            self.primary()
        }

        fn primary(&mut self) -> R {
            match self.peek() {
                Some(b'(') => {
                    self.i += 1;
                    let v = self.expr()?;
                    self.eat(b')')?;
                    Ok(v)
                }
                Some(b'"') => {
                    self.i += 1;
                    let start = self.i;
                    while self.i < self.s.len() && self.s[self.i] != b'"' {
                        self.i += 1;
                    }
                    let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                    self.eat(b'"')?;
                    Ok(V::S(text))
                }
                Some(b'[') => {
                    self.i += 1;
                    let mut n = 0;
                    while self.peek() != Some(b']') {
                        if n > 0 {
                            self.eat(b',')?;
                        }
                        self.expr()?;
                        n += 1;
                    }
                    self.eat(b']')?;
                    Ok(V::L(n))
                }
                Some(c) if c.is_ascii_digit() => Ok(V::N(self.literal()?)),
                Some(c) if c.is_ascii_alphabetic() => self.call(),
                other => Err(format!("unexpected {other:?} at {}", self.i)),
            }
        }

        /// An HCL number literal token, parsed as cty parses it.
        fn literal(&mut self) -> Result<Number, String> {
            let start = self.i;
            let digits = |ev: &mut Eval| {
                while ev.i < ev.s.len() && ev.s[ev.i].is_ascii_digit() {
                    ev.i += 1;
                }
            };
            digits(self);
            if self.s.get(self.i) == Some(&b'.') {
                self.i += 1;
                digits(self);
            }
            if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
                self.i += 1;
                if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                    self.i += 1;
                }
                digits(self);
            }
            let tok = std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?;
            Number::parse(tok).ok_or_else(|| format!("bad literal {tok}"))
        }

        fn call(&mut self) -> R {
            let start = self.i;
            while self.i < self.s.len() && self.s[self.i].is_ascii_alphabetic() {
                self.i += 1;
            }
            let name = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
            self.eat(b'(')?;
            let mut args = Vec::new();
            while self.peek() != Some(b')') {
                if !args.is_empty() {
                    self.eat(b',')?;
                }
                args.push(self.expr()?);
            }
            self.eat(b')')?;
            let mut args = args.into_iter();
            let mut next = || {
                args.next()
                    .ok_or_else(|| format!("{name}: missing argument"))
            };
            let f64_of = |v: V| Eval::num(v).map(|n| n.to_f64());
            let v = match name.as_str() {
                "floor" => V::N(Eval::num(next()?)?.floor()),
                "ceil" => V::N(Eval::num(next()?)?.ceil()),
                "abs" => V::N(Eval::num(next()?)?.abs()),
                // cty's pow goes through float64 math.Pow and NumberFloatVal.
                "pow" => {
                    let (x, y) = (f64_of(next()?)?, f64_of(next()?)?);
                    V::N(Number::from_f64(crate::gomath::pow(x, y)).ok_or("NaN")?)
                }
                // cty's max keeps the first greatest argument as it is.
                "max" => {
                    let mut best = Number::infinity(true);
                    for v in [next()?, next()?] {
                        let n = Eval::num(v)?;
                        if n.cmp(&best) == Ordering::Greater {
                            best = n;
                        }
                    }
                    V::N(best)
                }
                "length" => match next()? {
                    V::L(n) => V::N(Number::from_i64(n as i64)),
                    V::S(s) => V::N(Number::from_i64(s.chars().count() as i64)),
                    other => return Err(format!("length of {other:?}")),
                },
                "parseint" => {
                    let V::S(digits) = next()? else {
                        return Err("parseint wants a string".into());
                    };
                    let base = Eval::num(next()?)?.to_i64().ok_or("base")? as u32;
                    let v = BigInt::parse_bytes(digits.as_bytes(), base).ok_or("parseint")?;
                    V::N(Number::from_bigint(&v))
                }
                "tonumber" => {
                    let V::S(text) = next()? else {
                        return Err("tonumber wants a string".into());
                    };
                    V::N(Number::parse(&text).ok_or("ERR")?)
                }
                // Go's fmt on a *big.Float: %e and %f default to 6 digits,
                // %g to the shortest form.
                "format" => {
                    let V::S(spec) = next()? else {
                        return Err("format wants a string".into());
                    };
                    let n = Eval::num(next()?)?;
                    let spec = spec.strip_prefix('%').ok_or("format spec")?;
                    let verb = spec.chars().last().ok_or("format verb")?;
                    let digits = &spec[..spec.len() - 1];
                    let prec = match digits.strip_prefix('.') {
                        Some(p) => p.parse().map_err(|_| "format precision")?,
                        None if matches!(verb, 'g' | 'G') => -1,
                        None => 6,
                    };
                    V::S(n.text(verb, prec))
                }
                _ => return Err(format!("unknown function {name}")),
            };
            Ok(v)
        }
    }

    /// Every expectation is the output of `terraform console` (1.11.4) for
    /// the same expression; "ERR" marks expressions Terraform rejects.
    const TERRAFORM: &[(&str, &str)] = &[
        (
            r#"1/3"#,
            r#"0.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333335"#,
        ),
        (
            r#"2/3"#,
            r#"0.6666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666667"#,
        ),
        (
            r#"1/7"#,
            r#"0.14285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285"#,
        ),
        (
            r#"22/7"#,
            r#"3.1428571428571428571428571428571428571428571428571428571428571428571428571428571428571428571428571428571428571428571428571428571428571428571428571428571428"#,
        ),
        (r#"1/10"#, r#"0.1"#),
        (
            r#"1/9"#,
            r#"0.111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111115"#,
        ),
        (
            r#"10/3"#,
            r#"3.3333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333332"#,
        ),
        (
            r#"100/7"#,
            r#"14.285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714286"#,
        ),
        (
            r#"1/11"#,
            r#"0.09090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909090909091"#,
        ),
        (
            r#"-1/3"#,
            r#"-0.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333335"#,
        ),
        (r#"7/2"#, r#"3.5"#),
        (r#"-7/2"#, r#"-3.5"#),
        (r#"1/1024"#, r#"0.0009765625"#),
        (r#"1/3*3"#, r#"1"#),
        (r#"(1/3)*3"#, r#"1"#),
        (
            r#"2/3 - 1/3"#,
            r#"0.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333335"#,
        ),
        (r#"1/3 + 1/3 + 1/3"#, r#"1"#),
        (r#"0.1*3"#, r#"0.3"#),
        (r#"3*0.1"#, r#"0.3"#),
        (
            r#"1.1-1"#,
            r#"0.10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003"#,
        ),
        (r#"0.1+0.2"#, r#"0.3"#),
        (
            r#"0.3-0.1"#,
            r#"0.20000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002"#,
        ),
        (r#"-0.1-0.2"#, r#"-0.3"#),
        (
            r#"0.1*0.1"#,
            r#"0.010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"#,
        ),
        (
            r#"1.1*1.1"#,
            r#"1.2100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"#,
        ),
        (r#"1.5*1.5"#, r#"2.25"#),
        (r#"100*1.1"#, r#"110"#),
        (r#"2.675*100"#, r#"267.5"#),
        (
            r#"1e-7*1e-7"#,
            r#"0.000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"#,
        ),
        (r#"1e-5"#, r#"0.00001"#),
        (
            r#"1e-5/3"#,
            r#"0.0000033333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333332"#,
        ),
        (r#"0.000001"#, r#"0.000001"#),
        (r#"123.456e10"#, r#"1234560000000"#),
        (
            r#"123456789.123456789*987654321.987654321"#,
            r#"121932631356500531.347203169112635269"#,
        ),
        (
            r#"18446744073709551616*18446744073709551616"#,
            r#"340282366920938463463374607431768211456"#,
        ),
        (r#"4294967296*4294967296"#, r#"18446744073709551616"#),
        (r#"9007199254740993"#, r#"9007199254740993"#),
        (r#"9007199254740993+1"#, r#"9007199254740994"#),
        (r#"9007199254740993*1"#, r#"9007199254740993"#),
        (
            r#"1e300*10"#,
            r#"10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"#,
        ),
        (
            r#"1e308*10"#,
            r#"1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"#,
        ),
        (
            r#"1e1000"#,
            r#"10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"#,
        ),
        (
            r#"1e1000/3"#,
            r#"3333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"#,
        ),
        (
            r#"1e1000*1e1000"#,
            r#"99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999990000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"#,
        ),
        (
            r#"1e400+1"#,
            r#"10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"#,
        ),
        (
            r#"2e-400"#,
            r#"0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002"#,
        ),
        (
            r#"1e-400/3"#,
            r#"0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000033333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333334"#,
        ),
        (r#"5 % 3"#, r#"2"#),
        (r#"-5 % 3"#, r#"-2"#),
        (r#"5.5 % 2"#, r#"1.5"#),
        (r#"10 % -3"#, r#"1"#),
        (r#"1 % 0"#, r#"1"#),
        (r#"5.5 % -2"#, r#"1.5"#),
        (r#"1e20 % 7"#, r#"2"#),
        (r#"0.3 % 0.1"#, r#"0"#),
        (
            r#"7.5 % 0.2"#,
            r#"0.09999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999988"#,
        ),
        (r#"-7 % 2"#, r#"-1"#),
        (
            r#"(1/3) % (1/7)"#,
            r#"0.04761904761904761904761904761904761904761904761904761904761904761904761904761904761904761904761904761904761904761904761904761904761904761904761904761904764"#,
        ),
        (r#"-0"#, r#"-0"#),
        (r#"0 * -1"#, r#"-0"#),
        (r#"-0 + 0"#, r#"0"#),
        (r#"-0 - 0"#, r#"-0"#),
        (r#"-0 * -1"#, r#"0"#),
        (r#"1/0"#, r#"+Inf"#),
        (r#"-1/0"#, r#"-Inf"#),
        (r#"1/(-0)"#, r#"-Inf"#),
        (r#"floor(2.5)"#, r#"2"#),
        (r#"floor(-2.5)"#, r#"-3"#),
        (r#"ceil(2.5)"#, r#"3"#),
        (r#"ceil(-2.5)"#, r#"-2"#),
        (r#"ceil(-0.5)"#, r#"0"#),
        (r#"floor(-0)"#, r#"0"#),
        (
            r#"floor(1e100/3)"#,
            r#"3333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"#,
        ),
        (r#"ceil(1/3)"#, r#"1"#),
        (r#"floor(-1/3)"#, r#"-1"#),
        (
            r#"abs(-1/3)"#,
            r#"0.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333335"#,
        ),
        (r#"pow(2,100)"#, r#"1267650600228229400000000000000"#),
        (r#"pow(10,20)"#, r#"100000000000000000000"#),
        (r#"pow(10,23)"#, r#"100000000000000000000000"#),
        (r#"pow(3,40)"#, r#"12157665459056929000"#),
        (
            r#"pow(2,-1074)"#,
            r#"0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004940656458412465"#,
        ),
        (r#"pow(2,0.5)"#, r#"1.4142135623730951"#),
        (r#"pow(2,53)+1"#, r#"9007199254740993"#),
        (r#"pow(10,-5)"#, r#"0.00001"#),
        (
            r#"length([1,2,3])/7"#,
            r#"0.42857142857142857142857142857142857142857142857142857142857142857142857142857142857142857142857142857142857142857142857142857142857142857142857142857142856"#,
        ),
        (r#"length([1,2,3])*0.1"#, r#"0.3"#),
        (r#"length([1,2,3])/10"#, r#"0.3"#),
        (r#"(length([1,2,3])/7)*7"#, r#"3"#),
        (
            r#"length("abcdefg")/3"#,
            r#"2.3333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333332"#,
        ),
        (
            r#"parseint("ffffffffffffffffffffffffffffffff",16)/3"#,
            r#"113427455640312821154458202477256070485"#,
        ),
        (
            r#"parseint("123456789012345678901234567890",10)*3"#,
            r#"370370367037037036703703703670"#,
        ),
        (
            r#"parseint("-123456789012345678901234567890",10)/7"#,
            r#"-17636684144620811271604938270"#,
        ),
        (r#"max(1/3, 0.5)"#, r#"0.5"#),
        (r#"format("%.3e", 1/3)"#, r#""3.333e-01""#),
        (r#"format("%e", 1/3)"#, r#""3.333333e-01""#),
        (r#"format("%E", 123456789)"#, r#""1.234568E+08""#),
        (r#"format("%f", 1/3)"#, r#""0.333333""#),
        (r#"format("%.0f", 0.5)"#, r#""0""#),
        (r#"format("%.0f", 1.5)"#, r#""2""#),
        (r#"format("%.0f", 2.5)"#, r#""2""#),
        (r#"format("%.1f", 0.25)"#, r#""0.2""#),
        (r#"format("%.2f", 2.675)"#, r#""2.67""#),
        (r#"format("%.20f", 0.1)"#, r#""0.10000000000000000000""#),
        (
            r#"format("%g", 1/3)"#,
            r#""0.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333335""#,
        ),
        (r#"format("%g", 1e21)"#, r#""1e+21""#),
        (r#"format("%g", 123456)"#, r#""123456""#),
        (r#"format("%g", 1234567)"#, r#""1.234567e+06""#),
        (r#"format("%g", 0.0001)"#, r#""0.0001""#),
        (r#"format("%g", 0.00001)"#, r#""1e-05""#),
        (r#"format("%G", 1e-10)"#, r#""1E-10""#),
        (r#"format("%.3g", 1234.5678)"#, r#""1.23e+03""#),
        (r#"format("%.10g", 1/7)"#, r#""0.1428571429""#),
        (r#"format("%e", 0)"#, r#""0.000000e+00""#),
        (r#"format("%g", 0)"#, r#""0""#),
        (r#"format("%f", -0)"#, r#""-0.000000""#),
        (r#"format("%.3e", 1/0)"#, r#""+Inf""#),
        (r#"format("%e", pow(2,100))"#, r#""1.267651e+30""#),
        (r#"format("%.0e", 5)"#, r#""5e+00""#),
        (r#"format("%.0e", 15)"#, r#""2e+01""#),
        (r#"format("%.0e", 25)"#, r#""2e+01""#),
        (r#"format("%f", 1e20)"#, r#""100000000000000000000.000000""#),
        (r#"format("%.3f", -1/3)"#, r#""-0.333""#),
        (r#"format("%g", 100000)"#, r#""100000""#),
        (r#"format("%g", 1e6)"#, r#""1e+06""#),
        (r#"1e-20"#, r#"0.00000000000000000001"#),
        (r#"0.1"#, r#"0.1"#),
        (
            r#"12345678901234567890.123456789"#,
            r#"12345678901234567890.123456789"#,
        ),
        (r#"-9223372036854775808"#, r#"-9223372036854775808"#),
        (r#"9223372036854775807*2"#, r#"18446744073709551614"#),
        (r#"0.30000000000000004"#, r#"0.30000000000000004"#),
        (
            r#"1/3 - 0.3333333333333333333333"#,
            r#"0.00000000000000000000003333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333334186083607470471627305"#,
        ),
        (r#"tonumber("1e-999999999")"#, r#"0"#),
        (r#"tonumber("1e999999999")"#, r#"+Inf"#),
        (
            r#"1e50/7"#,
            r#"14285714285714285714285714285714285714285714285714.285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285714285"#,
        ),
        (
            r#"3.14159265358979323846264338327950288419716939937510582097494459"#,
            r#"3.14159265358979323846264338327950288419716939937510582097494459"#,
        ),
        (
            r#"1/3*1e200"#,
            r#"33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333334000000000000000000000000000000000000000000000"#,
        ),
        (
            r#"1e-300*1e-300"#,
            r#"0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000009999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"#,
        ),
        (r#"1e20 + 1 - 1e20"#, r#"1"#),
        (r#"(1e20+1) - 1e20"#, r#"1"#),
        (r#"0.1 + 0.7"#, r#"0.8"#),
        (r#"1/3 - 1/3"#, r#"0"#),
        (r#"-(1/3) + 1/3"#, r#"0"#),
        (
            r#"1e-320"#,
            r#"0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"#,
        ),
        (r#"4.35 * 100"#, r#"435"#),
        (r#"1.005 * 1000"#, r#"1005"#),
        (r#"2/3 * 3"#, r#"2"#),
        (r#"1/49*49"#, r#"1"#),
        (r#"10/4"#, r#"2.5"#),
        (r#"1e15 + 0.3"#, r#"1000000000000000.3"#),
        (r#"255/256"#, r#"0.99609375"#),
        (r#"ceil(1e20/3)"#, r#"33333333333333333334"#),
        (r#"floor(-1e-300)"#, r#"-1"#),
        (r#"pow(2, 64)"#, r#"18446744073709550000"#),
        (r#"pow(2, 63) - 1"#, r#"9223372036854775807"#),
        (r#"pow(1.1, 2)"#, r#"1.2100000000000002"#),
        (r#"pow(10, 0.5)"#, r#"3.1622776601683795"#),
        (r#"length([1,2,3]) * length([1,2,3,4])"#, r#"12"#),
        (r#"length([1,2,3]) - 0.1"#, r#"2.9"#),
        (
            r#"parseint("ffffffffffffffff",16) + 1"#,
            r#"18446744073709551616"#,
        ),
        (
            r#"parseint("ffffffffffffffff",16) * parseint("ffffffffffffffff",16)"#,
            r#"340282366920938463426481119284349108225"#,
        ),
        (
            r#"parseint("1fffffffffffffffff",16) / 3"#,
            r#"196765270119568550570.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"#,
        ),
        (r#"1e400 % 3"#, r#"0"#),
        (r#"1e100 % 7"#, r#"4"#),
        (
            r#"0.1 % 0.03"#,
            r#"0.010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003"#,
        ),
        (r#"100 % 7.5"#, r#"2.5"#),
        (r#"-100 % 7.5"#, r#"-2.5"#),
        (
            r#"-(1/3) % 1"#,
            r#"-0.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333335"#,
        ),
        (r#"1 - 1e-200"#, r#"1"#),
        (r#"1 + 1e-200"#, r#"1"#),
        (r#"-1 + 1e-200"#, r#"-1"#),
        (
            r#"1e300 + 1e-300"#,
            r#"1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"#,
        ),
        (
            r#"1e300 - 1e-300"#,
            r#"1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"#,
        ),
        (r#"0.1 * 3 - 0.3"#, r#"0"#),
        (r#"0.1 + 0.2 - 0.3"#, r#"0"#),
        (r#"format("%.2f", 0.125)"#, r#""0.12""#),
        (r#"format("%.1f", 0.35)"#, r#""0.3""#),
        (r#"format("%.0f", 3.5)"#, r#""4""#),
        (r#"format("%.3g", 0.0001234)"#, r#""0.000123""#),
        (r#"format("%g", 1e20)"#, r#""1e+20""#),
        (r#"format("%g", 123456789.123)"#, r#""1.23456789123e+08""#),
        (r#"format("%.15g", 0.1)"#, r#""0.1""#),
        (r#"format("%.0g", 123)"#, r#""1e+02""#),
        (r#"format("%.1e", 0.25)"#, r#""2.5e-01""#),
        (r#"format("%e", 1e-320)"#, r#""1.000000e-320""#),
        (r#"format("%.5f", 1e-10)"#, r#""0.00000""#),
        (r#"format("%.3e", -12345.6789)"#, r#""-1.235e+04""#),
        (
            r#"format("%G", 1e100/3)"#,
            r#""3.3333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333334E+99""#,
        ),
        (r#"format("%.2e", 9.995)"#, r#""1.00e+01""#),
        (r#"format("%.2e", 9.999)"#, r#""1.00e+01""#),
        (r#"format("%.1f", 9.96)"#, r#""10.0""#),
        (r#"format("%g", pow(2,100))"#, r#""1.2676506002282294e+30""#),
        (
            r#"format("%f", pow(3,40))"#,
            r#""12157665459056928768.000000""#,
        ),
        (
            r#"format("%.25f", 1/3)"#,
            r#""0.3333333333333333333333333""#,
        ),
        (r#"format("%.0f", 0.6)"#, r#""1""#),
        (r#"format("%.0f", -0.6)"#, r#""-1""#),
        (r#"format("%.3f", 0.0004)"#, r#""0.000""#),
        (r#"format("%.3f", 0.0005)"#, r#""0.000""#),
        (r#"format("%.3f", 0.0006)"#, r#""0.001""#),
        (
            r#"-1e-320"#,
            r#"-0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"#,
        ),
        (
            r#"1/3 * 1/3"#,
            r#"0.111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111115"#,
        ),
        (r#"(1/3) * (1/3) * 9"#, r#"1"#),
        (
            r#"7/3 % 1"#,
            r#"0.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333323"#,
        ),
        (
            r#"length([1,2,3]) / length([1,2,3,4,5,6,7])"#,
            r#"0.42857142857142857144"#,
        ),
        (r#"length([1,2,3]) / 3"#, r#"1"#),
        (
            r#"length([1,2]) / 1e300"#,
            r#"0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002"#,
        ),
        (
            r#"1e300 / length([1,2,3])"#,
            r#"333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333330000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"#,
        ),
        (
            r#"1/length([1,2,3]) + 1/length([1,2,3])"#,
            r#"0.6666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666667"#,
        ),
        (r#"0/0"#, r#"ERR"#),
        (r#"5 % (1/0)"#, r#"ERR"#),
        (r#"(1/0) % 3"#, r#"ERR"#),
        (r#"(1/0) - (1/0)"#, r#"ERR"#),
        (r#"0 * (1/0)"#, r#"ERR"#),
        (r#"(1/0)/(1/0)"#, r#"ERR"#),
        (r#"(1/0) + (1/0)"#, r#"+Inf"#),
        (r#"-(1/0) - (1/0)"#, r#"-Inf"#),
        (r#"(1/0) * -2"#, r#"-Inf"#),
        (r#"3 / (1/0)"#, r#"0"#),
        (r#"-3 / (1/0)"#, r#"-0"#),
        (r#"(1/0) - 1e300"#, r#"+Inf"#),
        (r#"floor(1/0)"#, r#"+Inf"#),
        (r#"ceil(-1/0)"#, r#"-Inf"#),
        (r#"abs(-1/0)"#, r#"+Inf"#),
        (r#"tonumber("1e")"#, r#"ERR"#),
        (r#"tonumber("1p3")"#, r#"8"#),
        (r#"tonumber(".5")"#, r#"0.5"#),
        (r#"tonumber("5.")"#, r#"5"#),
        (r#"tonumber("-inf")"#, r#"-Inf"#),
        (r#"tonumber("+Inf")"#, r#"+Inf"#),
        (r#"5 % -0"#, r#"5"#),
        (r#"-0 % 5"#, r#"-0"#),
        (r#"tonumber("-0e5")"#, r#"-0"#),
        (r#"tonumber("0.00000")"#, r#"0"#),
        (r#"tonumber("-1e-999999999")"#, r#"-0"#),
        (r#"pow(7,20)"#, r#"79792266297612000"#),
        (r#"pow(1.1,10)"#, r#"2.593742460100002"#),
        (r#"pow(1.01,100)"#, r#"2.704813829421529"#),
        (r#"pow(1.0001,1000)"#, r#"1.105165392603197"#),
        (r#"pow(3,-5)"#, r#"0.00411522633744856"#),
        (r#"pow(2.5,7)"#, r#"610.3515625"#),
        (r#"pow(0.1,3)"#, r#"0.0010000000000000002"#),
        (r#"pow(1.7,33)"#, r#"40254497.11092789"#),
        (r#"pow(9.1,17)"#, r#"20123507015287956"#),
        (r#"pow(1.1,127)"#, r#"180663.7477303838"#),
        (r#"pow(1.1,128)"#, r#"198730.12250342217"#),
        (r#"pow(0.7,-9)"#, r#"24.780932222490065"#),
        (r#"pow(1.3,45)"#, r#"134106.8167132502"#),
        (r#"pow(10,22)"#, r#"10000000000000000000000"#),
        (r#"pow(10,-3)"#, r#"0.001"#),
        (r#"pow(60.458,7)"#, r#"2952408410608.161"#),
        (r#"pow(38.704,15)"#, r#"655145504434771900000000"#),
        (r#"pow(31.102,21)"#, r#"22312830058331067000000000000000"#),
        (r#"1/0 == 1/0"#, r#"true"#),
        (r#"1/0 == -1/0"#, r#"false"#),
        (r#"5 == 5.0"#, r#"true"#),
        (r#"length([1,2,3]) == 3"#, r#"true"#),
        (r#"0.1 + 0.2 == 0.3"#, r#"true"#),
        (r#"pow(2,0.5) == 1.4142135623730951"#, r#"true"#),
        (r#"1/3 < 0.33333333333333333334"#, r#"true"#),
        (r#"length([1])/length([1,2,3]) > 1/3"#, r#"true"#),
        (r#"-0 < 0"#, r#"false"#),
        (r#"-1/0 < -1e300"#, r#"true"#),
        (r#"2.5 != 2.50"#, r#"false"#),
        (r#"pow(10,-1) != 0.1"#, r#"false"#),
        (r#"pow(10,-1) == 0.1"#, r#"true"#),
        (r#"pow(10,-1) > 0.1"#, r#"true"#),
        (r#"length([1])/length([1,2,3]) == 1/3"#, r#"false"#),
        (r#"length([1])/length([1,2,3]) < 1/3"#, r#"false"#),
        (
            r#"length([1])/length([1,2,3])"#,
            r#"0.33333333333333333334"#,
        ),
        (r#"0 == -0"#, r#"true"#),
        (r#"length([1,2,3,4,5]) % 0.3"#, r#"0.19999999999999999983"#),
        (r#"length([1,2,3,4,5,6,7]) % (1/3)"#, r#"0"#),
        (r#"0.3 % length([1,2])"#, r#"0.3"#),
        (r#"floor(length([1,2,3])/2)"#, r#"1"#),
        (r#"ceil(length([1,2,3,4,5,6,7])/3)"#, r#"3"#),
        (r#"floor(pow(2,0.5)*1e10)"#, r#"14142135623"#),
        (r#"floor(1e30 + 0.5)"#, r#"1000000000000000000000000000000"#),
        (r#"pow(2,0.5) % 0.1"#, r#"0.014213562373095234"#),
        (
            r#"pow(2,0.5) * 1e10"#,
            r#"14142135623.730951454746218587388284504413604736328125"#,
        ),
        (
            r#"pow(2,0.5) / 3"#,
            r#"0.47140452079103171515820728624627615014712015787760416666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666665"#,
        ),
        (
            r#"pow(2,0.5) + 1"#,
            r#"2.4142135623730951454746218587388284504413604736328125"#,
        ),
        (
            r#"pow(2,0.5) * pow(2,0.5)"#,
            r#"2.00000000000000027343234630647693"#,
        ),
        (r#"pow(3,40) + 1"#, r#"12157665459056928769"#),
        (r#"pow(3,40) * 3"#, r#"36472996377170786304"#),
        (
            r#"pow(2,-1074) * 3"#,
            r#"0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000014821969375237396325297063786046641170951794078429742932767570475020265218106262555958995090849079771393896940863371531927799701310678193891963243880323456"#,
        ),
        (
            r#"pow(2,-1074) / 3"#,
            r#"0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001646885486137488480588562642894071241216866008714415881418618941668918357567362506217666121205453307932655215651485725769755522367853132654662582653369273"#,
        ),
        (r#"ceil(pow(2,70)/3)"#, r#"393530540239137101142"#),
        (
            r#"length([1,2,3]) * pow(2,0.5)"#,
            r#"4.2426406871192854364"#,
        ),
    ];

    #[test]
    fn matches_terraform() {
        let mut failures = Vec::new();
        for (expr, want) in TERRAFORM {
            let got = Eval::run(expr).unwrap_or_else(|e| e);
            if got != *want {
                failures.push(format!("{expr}\n   got: {got}\n  want: {want}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// A small deterministic generator (xorshift64*), enough to spread
    /// inputs without a dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        fn range(&mut self, lo: i64, hi: i64) -> i64 {
            lo + self.below((hi - lo + 1) as u64) as i64
        }

        /// `[-]d.ddd...e±x` with up to `max_digits` digits.
        fn decimal(&mut self, max_digits: u64, exp_lo: i64, exp_hi: i64) -> String {
            let mut s = String::new();
            if self.below(2) == 0 {
                s.push('-');
            }
            let n = 1 + self.below(max_digits);
            s.push(char::from(b'1' + self.below(9) as u8));
            if n > 1 {
                s.push('.');
                for _ in 1..n {
                    s.push(char::from(b'0' + self.below(10) as u8));
                }
            }
            s.push_str(&format!("e{}", self.range(exp_lo, exp_hi)));
            s
        }

        /// A number of varied precision and size: parsed decimals, their
        /// quotients (full 512-bit mantissas), integers and float64s.
        fn number(&mut self) -> Number {
            match self.below(5) {
                0 => Number::parse(&self.decimal(30, -40, 40)).unwrap_or_else(Number::zero),
                1 => {
                    let a = Number::parse(&self.decimal(20, -30, 30)).unwrap_or_else(Number::zero);
                    let b = Number::parse(&self.decimal(20, -30, 30)).unwrap_or_else(Number::zero);
                    a.div(&b).unwrap_or_else(|_| Number::zero())
                }
                2 => Number::from_i64(self.next() as i64 >> self.below(64)),
                3 => Number::from_f64(f64::from_bits(self.next()))
                    .filter(|n| !n.is_infinite())
                    .unwrap_or_else(Number::zero),
                _ => Number::from_i64(self.range(-5, 5)),
            }
        }
    }

    fn parsed(s: &str) -> Number {
        Number::parse(s).unwrap_or_else(|| panic!("{s} should parse"))
    }

    #[test]
    fn shortest_text_reads_back_exactly() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..3000 {
            let x = match rng.below(3) {
                0 => parsed(&rng.decimal(60, -400, 400)),
                1 => parsed(&rng.decimal(25, -60, 60))
                    .div(&parsed(&rng.decimal(25, -60, 60)))
                    .unwrap(),
                _ => parsed(&rng.decimal(25, -60, 60))
                    .mul(&parsed(&rng.decimal(25, -60, 60)))
                    .unwrap(),
            };
            let x = x.with_precision(PARSE_PREC);
            let text = x.to_string();
            let back = parsed(&text);
            assert_eq!(
                back.cmp(&x),
                Ordering::Equal,
                "{text} does not read back as itself"
            );
            assert_eq!(back.text('g', -1), x.text('g', -1));
            let e = x.text('e', -1);
            assert_eq!(parsed(&e).cmp(&x), Ordering::Equal, "{e}");
        }
    }

    #[test]
    fn shortest_text_of_float64s_reads_back_as_the_same_float64() {
        let mut rng = Rng(7);
        for _ in 0..5000 {
            let f = f64::from_bits(rng.next());
            let Some(x) = Number::from_f64(f).filter(|x| !x.is_infinite()) else {
                continue;
            };
            let text = x.to_string();
            let back: f64 = text.parse().unwrap();
            assert_eq!(back.to_bits(), f.to_bits(), "{f:e} printed as {text}");
        }
    }

    #[test]
    fn to_f64_agrees_with_rust_parsing() {
        let mut rng = Rng(42);
        for _ in 0..5000 {
            let s = rng.decimal(25, -330, 310);
            let want: f64 = s.parse().unwrap();
            let got = parsed(&s).to_f64();
            assert_eq!(got.to_bits(), want.to_bits(), "{s}: {got:e} vs {want:e}");
        }
        for s in [
            "1e400",
            "-1e400",
            "1e-400",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
        ] {
            let want: f64 = s.parse().unwrap();
            assert_eq!(parsed(s).to_f64().to_bits(), want.to_bits(), "{s}");
        }
    }

    #[test]
    fn float64_arithmetic_matches_ieee_at_precision_53() {
        let mut rng = Rng(3);
        let mut f = || {
            let m = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 + 0.5;
            let e = rng.range(-300, 300) as i32;
            let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
            sign * m * 2f64.powi(e)
        };
        for _ in 0..5000 {
            let (a, b) = (f(), f());
            let (x, y) = (Number::from_f64(a).unwrap(), Number::from_f64(b).unwrap());
            assert_eq!(x.add(&y).unwrap().to_f64(), a + b, "{a:e} + {b:e}");
            assert_eq!(x.sub(&y).unwrap().to_f64(), a - b, "{a:e} - {b:e}");
            assert_eq!(x.mul(&y).unwrap().to_f64(), a * b, "{a:e} * {b:e}");
            assert_eq!(x.div(&y).unwrap().to_f64(), a / b, "{a:e} / {b:e}");
            assert_eq!(x.add(&y).unwrap().precision(), 53);
        }
    }

    #[test]
    fn integer_arithmetic_is_exact() {
        let mut rng = Rng(11);
        for _ in 0..5000 {
            let a = rng.next() as i64 >> rng.below(64);
            let b = rng.next() as i64 >> rng.below(64);
            let (x, y) = (Number::from_i64(a), Number::from_i64(b));
            let product = x.mul(&y).unwrap();
            assert_eq!(
                product.to_bigint_exact(),
                Some(BigInt::from(a) * BigInt::from(b))
            );
            assert_eq!(x.to_i64(), Some(a));
            assert_eq!(x.trunc_to_bigint(), Some(BigInt::from(a)));
            let (a, b) = (a >> 24, (b >> 44) | 1);
            let r = Number::from_i64(a).rem(&Number::from_i64(b)).unwrap();
            assert_eq!(r.to_i64(), Some(a % b), "{a} % {b}");
        }
    }

    #[test]
    fn cmp_is_a_total_order_consistent_with_sub() {
        let mut rng = Rng(5);
        let mut values: Vec<Number> = (0..300).map(|_| rng.number()).collect();
        values.extend([
            Number::infinity(false),
            Number::infinity(true),
            Number::zero().neg(),
        ]);
        for a in &values {
            for b in values.iter().take(60) {
                let c = a.cmp(b);
                assert_eq!(b.cmp(a), c.reverse());
                if !a.is_infinite() && !b.is_infinite() {
                    let d = a.sub(b).unwrap();
                    assert_eq!(d.signum(), c as i32, "{a} - {b} = {d}");
                }
            }
        }
        values.sort();
        for w in values.windows(2) {
            assert_ne!(w[0].cmp(&w[1]), Ordering::Greater);
        }
        for w in values.windows(3) {
            assert_ne!(
                w[0].cmp(&w[2]),
                Ordering::Greater,
                "{} {} {}",
                w[0],
                w[1],
                w[2]
            );
        }
    }
}
