//! The strings of `random_string` and `random_password`: at least the
//! requested minimum of each character class, the rest from every enabled
//! class, in a random order.

use crate::rand::Source;
use terrace_sdk::Error;

pub const NUMERIC: &str = "0123456789";
pub const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
pub const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
pub const SPECIAL: &str = "!@#$%&*()-_=+[]{}<>:?";

#[derive(Clone, Debug, Default)]
pub struct Params {
    pub length: i64,
    pub upper: bool,
    pub min_upper: i64,
    pub lower: bool,
    pub min_lower: i64,
    pub numeric: bool,
    pub min_numeric: i64,
    pub special: bool,
    pub min_special: i64,
    pub override_special: Option<String>,
}

fn draw(source: &mut Source, set: &[char], count: i64, into: &mut Vec<char>) -> Result<(), Error> {
    if count <= 0 {
        return Ok(());
    }
    if set.is_empty() {
        return Err(Error::new(
            "Random Read Error",
            "A minimum count was requested from an empty character set.",
        ));
    }
    for _ in 0..count {
        let index = source.below(set.len() as u64)? as usize;
        into.push(set[index]);
    }
    Ok(())
}

pub fn generate(params: &Params) -> Result<String, Error> {
    let special: Vec<char> = match &params.override_special {
        Some(chars) if !chars.is_empty() => chars.chars().collect(),
        _ => SPECIAL.chars().collect(),
    };
    let upper: Vec<char> = UPPER.chars().collect();
    let lower: Vec<char> = LOWER.chars().collect();
    let numeric: Vec<char> = NUMERIC.chars().collect();
    let mut all: Vec<char> = Vec::new();
    for (enabled, set) in [
        (params.upper, &upper),
        (params.lower, &lower),
        (params.numeric, &numeric),
        (params.special, &special),
    ] {
        if enabled {
            all.extend(set.iter());
        }
    }
    if all.is_empty() {
        return Err(Error::new(
            "Random Read Error",
            "The character set specified is empty: enable at least one of upper, lower, numeric \
             and special.",
        ));
    }
    let minimums = params.min_upper.max(0)
        + params.min_lower.max(0)
        + params.min_numeric.max(0)
        + params.min_special.max(0);
    if minimums > params.length {
        return Err(Error::attribute(
            "length",
            "Invalid Attribute Value",
            format!(
                "Attribute length value must be at least sum of min_upper, min_lower, \
                 min_numeric and min_special ({minimums}), got: {}",
                params.length
            ),
        ));
    }
    let mut source = Source;
    let mut result: Vec<char> = Vec::with_capacity(usize::try_from(params.length).unwrap_or(0));
    draw(&mut source, &numeric, params.min_numeric, &mut result)?;
    draw(&mut source, &lower, params.min_lower, &mut result)?;
    draw(&mut source, &upper, params.min_upper, &mut result)?;
    draw(&mut source, &special, params.min_special, &mut result)?;
    let rest = params.length - result.len() as i64;
    draw(&mut source, &all, rest, &mut result)?;
    let order = source.permutation(result.len())?;
    Ok(order.into_iter().map(|i| result[i]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(text: &str, set: &str) -> usize {
        text.chars().filter(|c| set.contains(*c)).count()
    }

    #[test]
    fn minimums_and_classes_are_respected() {
        let params = Params {
            length: 40,
            upper: true,
            min_upper: 5,
            lower: false,
            numeric: true,
            min_numeric: 7,
            special: true,
            min_special: 3,
            override_special: Some("#".into()),
            ..Params::default()
        };
        for _ in 0..20 {
            let text = generate(&params).unwrap();
            assert_eq!(text.chars().count(), 40);
            assert!(count(&text, UPPER) >= 5);
            assert!(count(&text, NUMERIC) >= 7);
            assert!(count(&text, "#") >= 3);
            assert_eq!(count(&text, LOWER), 0);
            assert_eq!(count(&text, "!@$"), 0);
        }
    }

    #[test]
    fn impossible_requests_are_errors() {
        let none = Params {
            length: 4,
            ..Params::default()
        };
        assert!(generate(&none).is_err());
        let too_many = Params {
            length: 2,
            lower: true,
            min_lower: 3,
            ..Params::default()
        };
        let error = generate(&too_many).unwrap_err();
        assert!(error.to_string().contains("(at .length)"), "{error}");
    }
}
