//! Go's `math.Pow`, `math.Log` and `math.Exp` algorithms, reproduced
//! operation for operation. cty's `pow` and `log` functions hand their
//! arguments to these as float64s and wrap the result with
//! [`Number::from_f64`](crate::Number::from_f64); Go's routines are not
//! correctly rounded (`pow(10, 308)` is 1.0000000000000006e308 in
//! Terraform), so the platform `powf`/`ln` would print different digits.
//!
//! The polynomial constants are written digit for digit as in FreeBSD's
//! msun (and Go), so they carry more digits than an f64 holds.
#![allow(clippy::excessive_precision)]

const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-01;
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;

/// `math.Frexp`: `f = frac * 2^exp` with `0.5 <= |frac| < 1`; zero, infinite
/// and NaN inputs come back unchanged with exponent 0.
pub fn frexp(f: f64) -> (f64, i32) {
    if f == 0.0 || f.is_infinite() || f.is_nan() {
        return (f, 0);
    }
    let (f, mut exp) = normalize(f);
    let mut bits = f.to_bits();
    exp += ((bits >> 52) & 0x7ff) as i32 - 1022;
    bits &= !(0x7ff << 52);
    bits |= 1022 << 52;
    (f64::from_bits(bits), exp)
}

/// Scales a subnormal up into the normal range, returning the exponent
/// adjustment.
fn normalize(f: f64) -> (f64, i32) {
    const SMALLEST_NORMAL: f64 = 2.225_073_858_507_201_4e-308;
    if f.abs() < SMALLEST_NORMAL {
        return (f * (1u64 << 52) as f64, -52);
    }
    (f, 0)
}

/// `math.Ldexp`: `frac * 2^exp`, with Go's handling of subnormal results.
pub fn ldexp(frac: f64, exp: i64) -> f64 {
    if frac == 0.0 || frac.is_infinite() || frac.is_nan() {
        return frac;
    }
    let (frac, e) = normalize(frac);
    let mut exp = exp.saturating_add(i64::from(e));
    let mut bits = frac.to_bits();
    exp = exp.saturating_add(((bits >> 52) & 0x7ff) as i64 - 1023);
    if exp < -1075 {
        return 0.0_f64.copysign(frac);
    }
    if exp > 1023 {
        return if frac < 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let mut m = 1.0;
    if exp < -1022 {
        exp += 53;
        m = 1.0 / (1u64 << 53) as f64;
    }
    bits &= !(0x7ff << 52);
    bits |= ((exp + 1023) as u64) << 52;
    m * f64::from_bits(bits)
}

/// `math.Modf`: integer and fractional parts, both with the sign of `f`.
fn modf(f: f64) -> (f64, f64) {
    if f < 1.0 {
        if f < 0.0 {
            let (i, fr) = modf(-f);
            return (-i, -fr);
        }
        if f == 0.0 {
            return (f, f);
        }
        return (0.0, f);
    }
    let mut bits = f.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    if e < 52 {
        bits &= !((1u64 << (52 - e)) - 1);
    }
    let int = f64::from_bits(bits);
    (int, f - int)
}

const TWO_POW_63: f64 = (1u64 << 63) as f64;

fn is_odd_int(x: f64) -> bool {
    let (xi, xf) = modf(x);
    // Go converts with int64(xi), which on amd64 turns anything out of
    // range into MinInt64 (even); such large floats are even anyway.
    xf == 0.0 && xi.abs() < TWO_POW_63 && (xi as i64) & 1 == 1
}

/// `math.Log`, the FreeBSD `e_log.c` algorithm.
pub fn log(x: f64) -> f64 {
    const L1: f64 = 6.666_666_666_666_735_130e-01;
    const L2: f64 = 3.999_999_999_940_941_908e-01;
    const L3: f64 = 2.857_142_874_366_239_149e-01;
    const L4: f64 = 2.222_219_843_214_978_396e-01;
    const L5: f64 = 1.818_357_216_161_805_012e-01;
    const L6: f64 = 1.531_383_769_920_937_332e-01;
    const L7: f64 = 1.479_819_860_511_658_591e-01;

    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    let (mut f1, mut ki) = frexp(x);
    if f1 < std::f64::consts::SQRT_2 / 2.0 {
        f1 *= 2.0;
        ki -= 1;
    }
    let f = f1 - 1.0;
    let k = f64::from(ki);
    let s = f / (2.0 + f);
    let s2 = s * s;
    let s4 = s2 * s2;
    let t1 = s2 * (L1 + s4 * (L3 + s4 * (L5 + s4 * L7)));
    let t2 = s4 * (L2 + s4 * (L4 + s4 * L6));
    let r = t1 + t2;
    let hfsq = 0.5 * f * f;
    k * LN2_HI - ((hfsq - (s * (hfsq + r) + k * LN2_LO)) - f)
}

/// `math.Exp`, the FreeBSD `e_exp.c` algorithm.
pub fn exp(x: f64) -> f64 {
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    const OVERFLOW: f64 = 7.097_827_128_933_839_730_96e+02;
    const UNDERFLOW: f64 = -7.451_332_191_019_411_084_20e+02;
    const NEAR_ZERO: f64 = 1.0 / (1u64 << 28) as f64;

    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == f64::NEG_INFINITY {
        return 0.0;
    }
    if x > OVERFLOW {
        return f64::INFINITY;
    }
    if x < UNDERFLOW {
        return 0.0;
    }
    if -NEAR_ZERO < x && x < NEAR_ZERO {
        return 1.0 + x;
    }
    let k: i64 = if x < 0.0 {
        (LOG2E * x - 0.5) as i64
    } else {
        (LOG2E * x + 0.5) as i64
    };
    let hi = x - k as f64 * LN2_HI;
    let lo = k as f64 * LN2_LO;
    expmulti(hi, lo, k)
}

fn expmulti(hi: f64, lo: f64, k: i64) -> f64 {
    const P1: f64 = 1.666_666_666_666_666_574_15e-01;
    const P2: f64 = -2.777_777_777_701_559_338_42e-03;
    const P3: f64 = 6.613_756_321_437_934_361_17e-05;
    const P4: f64 = -1.653_390_220_546_525_153_90e-06;
    const P5: f64 = 4.138_136_797_057_238_460_39e-08;

    let r = hi - lo;
    let t = r * r;
    let c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    let y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    ldexp(y, k)
}

/// `math.Pow` with Go's special cases and its square-and-multiply loop.
pub fn pow(x: f64, y: f64) -> f64 {
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 {
        if y < 0.0 {
            if is_odd_int(y) {
                return f64::INFINITY.copysign(x);
            }
            return f64::INFINITY;
        }
        if is_odd_int(y) {
            return x;
        }
        return 0.0;
    }
    if y.is_infinite() {
        if x == -1.0 {
            return 1.0;
        }
        if (x.abs() < 1.0) == (y == f64::INFINITY) {
            return 0.0;
        }
        return f64::INFINITY;
    }
    if x.is_infinite() {
        if x == f64::NEG_INFINITY {
            return pow(1.0 / x, -y);
        }
        if y < 0.0 {
            return 0.0;
        }
        return f64::INFINITY;
    }
    if y == 0.5 {
        return x.sqrt();
    }
    if y == -0.5 {
        return 1.0 / x.sqrt();
    }

    let (mut yi, mut yf) = modf(y.abs());
    if yf != 0.0 && x < 0.0 {
        return f64::NAN;
    }
    if yi >= TWO_POW_63 {
        if x == -1.0 {
            return 1.0;
        }
        if (x.abs() < 1.0) == (y > 0.0) {
            return 0.0;
        }
        return f64::INFINITY;
    }

    let mut a1 = 1.0;
    let mut ae: i64 = 0;
    if yf != 0.0 {
        if yf > 0.5 {
            yf -= 1.0;
            yi += 1.0;
        }
        a1 = exp(yf * log(x));
    }

    let (mut x1, xe) = frexp(x);
    let mut xe = i64::from(xe);
    let mut i = yi as i64;
    while i != 0 {
        if !(-(1 << 12)..=(1 << 12)).contains(&xe) {
            ae += xe;
            break;
        }
        if i & 1 == 1 {
            a1 *= x1;
            ae += xe;
        }
        x1 *= x1;
        xe <<= 1;
        if x1 < 0.5 {
            x1 += x1;
            xe -= 1;
        }
        i >>= 1;
    }

    if y < 0.0 {
        a1 = 1.0 / a1;
        ae = -ae;
    }
    ldexp(a1, ae)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values printed by Terraform 1.11 (shortest float64 text).
    #[test]
    fn matches_go() {
        let pow_cases: &[(f64, f64, f64)] = &[
            (1.1, 10.0, 2.593742460100002),
            (1.0001, 100.0, 1.0100496620928734),
            (3.7, 7.0, 9493.187713300002),
            (0.9, 50.0, 0.005153775207320125),
            (1.7, 100.0, 1.1088993727807792e23),
            (2.5, -3.0, 0.064),
            (1.3, 0.7, 1.2016011812929526),
            (7.1, 2.3, 90.75994040673845),
            (10.0, -5.0, 0.00001),
            (0.3, 3.0, 0.027),
            (10.0, 308.0, 1.0000000000000006e308),
            (2.0, 1024.0, f64::INFINITY),
            (0.0, -1.0, f64::INFINITY),
        ];
        for &(x, y, want) in pow_cases {
            assert_eq!(pow(x, y), want, "pow({x}, {y})");
        }
        let log_cases: &[(f64, f64, f64)] = &[
            (10.0, 3.0, 2.095903274289385),
            (1000.0, 10.0, 2.9999999999999996),
            (0.5, 7.0, -0.3562071871080222),
            (123.456, 2.5, 5.255848007360054),
            (2.0, 10.0, 0.30102999566398114),
            (1e-300, 3.0, -628.7709822868154),
            (8.0, 2.0, 3.0),
        ];
        for &(x, b, want) in log_cases {
            assert_eq!(log(x) / log(b), want, "log({x}, {b})");
        }
    }
}
