//! Arbitrary-precision numbers with exactly the semantics of Go's `big.Float`
//! as cty uses it: every number carries its own binary precision (512 bits
//! for numbers parsed from text, 64 for integers, 53 for float64s), results
//! of arithmetic are rounded to nearest-even at the precision Go would pick,
//! and text is produced by Go's shortest-representation algorithm, so
//! `1/3`, `0.1 + 0.2` and `pow(2, 100)` print to the digit as Terraform does.
//!
//! (API contract; implementation in progress.)

use std::cmp::Ordering;

#[derive(Clone, Debug)]
pub struct Number {
    _private: (),
}

/// An operation whose result Go's `big.Float` would refuse (it panics with
/// `ErrNaN`), such as `+Inf - +Inf` or `0 * Inf`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotANumber;

impl Number {
    /// As cty's `ParseNumberVal`: decimal text (optional sign, digits,
    /// fraction, exponent; also `Inf`/`+Inf`/`-Inf`) at 512 bits rounded to
    /// nearest even. None when the text is not a number.
    pub fn parse(text: &str) -> Option<Number> {
        let _ = text;
        todo!()
    }
    pub fn from_i64(v: i64) -> Number {
        let _ = v;
        todo!()
    }
    pub fn from_u64(v: u64) -> Number {
        let _ = v;
        todo!()
    }
    /// None for NaN.
    pub fn from_f64(v: f64) -> Option<Number> {
        let _ = v;
        todo!()
    }
    pub fn from_bigint(v: &num_bigint::BigInt) -> Number {
        let _ = v;
        todo!()
    }
    pub fn zero() -> Number {
        todo!()
    }
    pub fn infinity(negative: bool) -> Number {
        let _ = negative;
        todo!()
    }
    pub fn add(&self, other: &Number) -> Result<Number, NotANumber> {
        let _ = other;
        todo!()
    }
    pub fn sub(&self, other: &Number) -> Result<Number, NotANumber> {
        let _ = other;
        todo!()
    }
    /// cty's `Multiply`: computed at 512 bits, then reduced to the larger
    /// operand precision or the minimum precision the product needs.
    pub fn mul(&self, other: &Number) -> Result<Number, NotANumber> {
        let _ = other;
        todo!()
    }
    /// `big.Float.Quo` at the larger operand precision; x/0 is ±Inf.
    pub fn div(&self, other: &Number) -> Result<Number, NotANumber> {
        let _ = other;
        todo!()
    }
    /// cty's `Modulo`.
    pub fn rem(&self, other: &Number) -> Result<Number, NotANumber> {
        let _ = other;
        todo!()
    }
    pub fn neg(&self) -> Number {
        todo!()
    }
    pub fn abs(&self) -> Number {
        todo!()
    }
    pub fn is_integer(&self) -> bool {
        todo!()
    }
    pub fn is_infinite(&self) -> bool {
        todo!()
    }
    pub fn is_zero(&self) -> bool {
        todo!()
    }
    /// -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        todo!()
    }
    /// Exact conversion when the number is an integer in range.
    pub fn to_i64(&self) -> Option<i64> {
        todo!()
    }
    /// Nearest float64, as `big.Float.Float64`.
    pub fn to_f64(&self) -> f64 {
        todo!()
    }
    /// Integer part, truncated toward zero (`big.Float.Int`); None for ±Inf.
    pub fn trunc_to_bigint(&self) -> Option<num_bigint::BigInt> {
        todo!()
    }
    pub fn floor(&self) -> Number {
        todo!()
    }
    pub fn ceil(&self) -> Number {
        todo!()
    }
    /// The mantissa precision in bits, as `big.Float.Prec`.
    pub fn precision(&self) -> u32 {
        todo!()
    }
    /// Go's `big.Float.Text(format, prec)` for format 'e', 'E', 'f', 'g', 'G'
    /// and prec -1 (shortest) or >= 0.
    pub fn text(&self, format: char, prec: i32) -> String {
        let _ = (format, prec);
        todo!()
    }
    pub fn cmp(&self, other: &Number) -> Ordering {
        let _ = other;
        todo!()
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl std::fmt::Display for Number {
    /// As Terraform prints numbers: `Text('f', -1)`, with `+Inf`/`-Inf`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text('f', -1))
    }
}
