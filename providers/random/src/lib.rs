//! hashicorp/random, written with terrace-sdk: the resource types, schemas
//! (versions included) and behaviour of the HashiCorp provider, so that
//! configurations and states using it work unchanged, offline.
//!
//! `random_id`, `random_integer`, `random_password`, `random_pet`,
//! `random_shuffle`, `random_string`, `random_uuid` and `random_bytes`.
//! Every argument but `keepers` forces a new value when it changes;
//! `keepers` does too, except for changes that only add or remove null
//! values, which update the state in place. Reads change nothing; imports
//! rebuild the state from the identifier as hashicorp/random does; a
//! `seed` draws Go's `math/rand` numbers, as hashicorp/random does.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

// The seeding table's computation, run by build.rs; the crate itself
// uses the LCG and its tests the rest.
#[cfg_attr(not(test), allow(dead_code))]
mod cooked;
mod gorand;
mod pet;
mod rand;
mod strings;

use gorand::GoRand;

use base64::Engine;
use serde_json::{Map, Value as Json};
use terrace_sdk::validators::int_at_least;
use terrace_sdk::{
    Attr, BlockSpec, EphemeralResourceSpec, Error, PlanData, ProviderSpec, ResourceData,
    ResourceSpec, Type, Value,
};

pub fn provider() -> ProviderSpec<()> {
    ProviderSpec::new(BlockSpec::new(), |_, _| Ok(()))
        .calls_never_wait()
        .resource("random_id", random_id())
        .resource("random_integer", random_integer())
        .resource("random_password", random_password())
        .resource("random_pet", random_pet())
        .resource("random_shuffle", random_shuffle())
        .resource("random_string", random_string())
        .resource("random_uuid", random_uuid())
        .resource("random_bytes", random_bytes())
        .ephemeral_resource("random_password", ephemeral_random_password())
}

/// `keepers` replaces the object by hashicorp's rule for it (changes
/// adding or removing only null values do not), applied by
/// `create_only`'s plan hook; other changes to it update in place.
fn keepers() -> Attr {
    Attr::map(Type::String).optional().description(
        "Arbitrary map of values that, when changed, will trigger recreation of resource. See \
         the main provider documentation for more information.",
    )
}

fn id_attr(description: &str) -> Attr {
    Attr::string().computed().description(description)
}

/// A resource whose only real operation is creating: every argument but
/// `keepers` forces a replacement, an update only records new keepers
/// (the planned state is the new state), and reads and deletes have
/// nothing to do.
fn create_only(
    schema: BlockSpec,
    create: impl Fn(&mut ResourceData) -> Result<(), Error> + Send + Sync + 'static,
) -> ResourceSpec<()> {
    ResourceSpec::new(schema)
        .create(move |_, _, d| create(d))
        .read(|_, _, _| Ok(()))
        .update(|_, _, _| Ok(()))
        .delete(|_, _, _| Ok(()))
        .plan_hook(|plan| {
            plan.require_replace_if_map_values_not_null("keepers");
            Ok(())
        })
}

fn random_bytes_of(length: usize) -> Result<Vec<u8>, Error> {
    let mut bytes = vec![0u8; length];
    rand::fill(&mut bytes)?;
    Ok(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn length_of(d: &ResourceData, name: &str) -> Result<usize, Error> {
    let length = d.get_i64(name).unwrap_or(0);
    usize::try_from(length).map_err(|_| {
        Error::attribute(
            name,
            "Invalid Attribute Value",
            format!("Attribute {name} value must be at least 0, got: {length}"),
        )
    })
}

// ----- random_id -----

fn set_id_values(d: &mut ResourceData, bytes: &[u8], prefix: &str) -> Result<(), Error> {
    let url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let std = base64::engine::general_purpose::STANDARD.encode(bytes);
    let dec = num_bigint::BigUint::from_bytes_be(bytes).to_string();
    d.set_id(&url)?;
    d.set_string("b64_url", format!("{prefix}{url}"))?;
    d.set_string("b64_std", format!("{prefix}{std}"))?;
    d.set_string("hex", format!("{prefix}{}", hex(bytes)))?;
    d.set_string("dec", format!("{prefix}{dec}"))
}

fn random_id() -> ResourceSpec<()> {
    let schema = BlockSpec::new()
        .markdown_description(
            "The resource `random_id` generates random numbers that are intended to be used as \
             unique identifiers for other resources.",
        )
        .attr("keepers", keepers())
        .attr(
            "byte_length",
            Attr::int64().required().force_new().description(
                "The number of random bytes to produce. The minimum value is 1, which produces \
                 eight bits of randomness.",
            ),
        )
        .attr(
            "prefix",
            Attr::string().optional().force_new().description(
                "Arbitrary string to prefix the output value with. This string is supplied as-is, \
                 meaning it is not guaranteed to be URL-safe or base64 encoded.",
            ),
        )
        .attr("b64_url", id_attr("The generated id presented in base64, using the URL-friendly character set: case-sensitive letters, digits and the characters `_` and `-`."))
        .attr("b64_std", id_attr("The generated id presented in base64 without additional transformations."))
        .attr("hex", id_attr("The generated id presented in padded hexadecimal digits. This result will always be twice as long as the requested byte length."))
        .attr("dec", id_attr("The generated id presented in non-padded decimal digits."))
        .attr("id", id_attr("The generated id presented in base64 without additional transformations or prefix."));
    create_only(schema, |d| {
        let bytes = random_bytes_of(length_of(d, "byte_length")?)?;
        let prefix = d.get_string("prefix").unwrap_or_default();
        set_id_values(d, &bytes, &prefix)
    })
    .importer(|_, _, id, d| {
        let (prefix, encoded) = match id.rfind(',') {
            Some(at) => (&id[..at], &id[at + 1..]),
            None => ("", id),
        };
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(encoded)
            .map_err(|e| {
                Error::new(
                    "Import Random ID Error",
                    format!(
                        "While attempting to import a random id there was a decoding error.\n\n\
                         Original Error: {e}"
                    ),
                )
            })?;
        d.set_i64("byte_length", bytes.len() as i64)?;
        if !prefix.is_empty() {
            d.set_string("prefix", prefix)?;
        }
        set_id_values(d, &bytes, prefix)
    })
}

// ----- random_integer -----

fn random_integer() -> ResourceSpec<()> {
    let schema = BlockSpec::new()
        .markdown_description(
            "The resource `random_integer` generates random values from a given range, described \
             by the `min` and `max` attributes of a given resource.",
        )
        .attr("keepers", keepers())
        .attr(
            "min",
            Attr::int64()
                .required()
                .force_new()
                .description("The minimum inclusive value of the range."),
        )
        .attr(
            "max",
            Attr::int64()
                .required()
                .force_new()
                .description("The maximum inclusive value of the range."),
        )
        .attr(
            "seed",
            Attr::string()
                .optional()
                .force_new()
                .description("A custom seed to always produce the same value."),
        )
        .attr(
            "result",
            Attr::int64()
                .computed()
                .description("The random integer result."),
        )
        .attr(
            "id",
            id_attr("The string representation of the integer result."),
        );
    create_only(schema, |d| {
        let min = d.get_i64("min").unwrap_or(0);
        let max = d.get_i64("max").unwrap_or(0);
        if max < min {
            return Err(min_max_error());
        }
        let mut source = GoRand::for_seed(d.get_str("seed"))?;
        // hashicorp/random draws `Intn(max+1-min) + min`; where that span
        // overflows Go's int it crashes, so such ranges get a uniform draw
        // of their own.
        let number = match source.intn(max.wrapping_add(1).wrapping_sub(min)) {
            Some(offset) => min.wrapping_add(offset),
            None => {
                let span = (i128::from(max) - i128::from(min) + 1) as u128;
                let offset = source.below_wide(span);
                (i128::from(min) + offset as i128) as i64
            }
        };
        d.set_i64("result", number)?;
        d.set_id(number.to_string())
    })
    .check(|d| {
        match (d.get_i64("min"), d.get_i64("max")) {
            (Some(min), Some(max)) if max < min => Err(min_max_error()),
            _ => Ok(()),
        }
    })
    .importer(|_, _, id, d| {
        let parts: Vec<&str> = id.split(',').collect();
        if parts.len() != 3 && parts.len() != 4 {
            return Err(Error::new(
                "Import Random Integer Error",
                "Invalid import usage: expecting {result},{min},{max} or {result},{min},{max},{seed}",
            ));
        }
        let parse = |text: &str, what: &str| {
            text.parse::<i64>().map_err(|e| {
                Error::new(
                    "Import Random Integer Error",
                    format!("The {what} supplied could not be parsed as an integer.\n\nOriginal Error: {e}"),
                )
            })
        };
        d.set_i64("result", parse(parts[0], "value")?)?;
        d.set_i64("min", parse(parts[1], "min value")?)?;
        d.set_i64("max", parse(parts[2], "max value")?)?;
        d.set_id(parts[0])?;
        if let Some(seed) = parts.get(3) {
            d.set_string("seed", seed)?;
        }
        Ok(())
    })
}

fn min_max_error() -> Error {
    Error::attribute(
        "max",
        "Create Random Integer Error",
        "The minimum (min) value needs to be smaller than or equal to maximum (max) value.",
    )
}

// ----- random_string and random_password -----

fn string_schema(password: bool) -> BlockSpec {
    let mut schema = BlockSpec::new()
        .attr("keepers", keepers())
        .attr(
            "length",
            Attr::int64()
                .required()
                .force_new()
                .validate(int_at_least(1))
                .description("The length of the string desired. The minimum value for length is 1 and, length must also be >= (`min_upper` + `min_lower` + `min_numeric` + `min_special`)."),
        );
    for (name, what) in [
        (
            "special",
            "Include special characters in the result. These are `!@#$%&*()-_=+[]{}<>:?`.",
        ),
        (
            "upper",
            "Include uppercase alphabet characters in the result.",
        ),
        (
            "lower",
            "Include lowercase alphabet characters in the result.",
        ),
    ] {
        schema = schema.attr(
            name,
            Attr::bool()
                .optional()
                .computed()
                .force_new()
                .default(Value::bool(true))
                .description(format!("{what} Default value is `true`.")),
        );
    }
    schema = schema
        .attr(
            "number",
            Attr::bool()
                .optional()
                .computed()
                .force_new()
                .deprecated("**NOTE**: This is deprecated, use `numeric` instead.")
                .description("Include numeric characters in the result. Default value is `true`. **NOTE**: This is deprecated, use `numeric` instead."),
        )
        .attr(
            "numeric",
            Attr::bool()
                .optional()
                .computed()
                .force_new()
                .description("Include numeric characters in the result. Default value is `true`."),
        );
    for (name, what) in [
        ("min_numeric", "numeric"),
        ("min_upper", "uppercase alphabet"),
        ("min_lower", "lowercase alphabet"),
        ("min_special", "special"),
    ] {
        schema = schema.attr(
            name,
            Attr::int64()
                .optional()
                .computed()
                .force_new()
                .default(Value::int(0))
                .description(format!(
                    "Minimum number of {what} characters in the result. Default value is `0`."
                )),
        );
    }
    schema = schema.attr(
        "override_special",
        Attr::string().optional().force_new().description(
            "Supply your own list of special characters to use for string generation.  This \
             overrides the default character list in the special argument.  The `special` \
             argument must still be set to true for any overwritten characters to be used in \
             generation.",
        ),
    );
    let result = Attr::string()
        .computed()
        .description("The generated random string.");
    if password {
        schema
            .markdown_description(
                "Identical to `random_string` with the exception that the result is treated as \
                 sensitive and, thus, _not_ displayed in console output.",
            )
            .attr("result", result.sensitive())
            .attr(
                "bcrypt_hash",
                Attr::string()
                    .computed()
                    .sensitive()
                    .description("A bcrypt hash of the generated random string. **NOTE**: If the generated random string is greater than 72 bytes in length, `bcrypt_hash` will contain a hash of the first 72 bytes."),
            )
            .attr("id", id_attr("A static value used internally by Terraform, this should not be referenced in configurations."))
    } else {
        schema
            .markdown_description(
                "The resource `random_string` generates a random permutation of alphanumeric \
                 characters and optionally special characters.",
            )
            .attr("result", result)
            .attr("id", id_attr("The generated random string."))
    }
}

/// `number` and `numeric` are one setting under two names: whichever is
/// configured gives both their value, and both are true when neither is.
fn plan_number_numeric(plan: &mut PlanData) -> Result<(), Error> {
    let number = plan.data.config("number");
    let numeric = plan.data.config("numeric");
    let value = match (number.is_null(), numeric.is_null()) {
        (true, true) => Value::bool(true),
        (true, false) => numeric,
        (false, _) => number,
    };
    plan.data.set("number", value.clone())?;
    plan.data.set("numeric", value)
}

fn check_string_config(d: &ResourceData) -> Result<(), Error> {
    let mut error: Option<Error> = None;
    let mut push = |e: Error| match &mut error {
        Some(all) => {
            for diagnostic in e.into_diagnostics() {
                all.push(diagnostic);
            }
        }
        None => error = Some(e),
    };
    let number = d.config("number");
    let numeric = d.config("numeric");
    if let (Some(a), Some(b)) = (number.as_bool(), numeric.as_bool()) {
        if a != b {
            push(Error::attribute(
                "numeric",
                "Number and numeric are both configured with different values",
                "Number is deprecated, use numeric instead",
            ));
        }
    }
    let configured_false = |name: &str| d.config(name).as_bool() == Some(false);
    for name in ["number", "numeric"] {
        if configured_false(name)
            && ["special", "upper", "lower"]
                .iter()
                .all(|n| configured_false(n))
        {
            push(Error::attribute(
                name,
                "Invalid Attribute Combination",
                "At least one attribute out of [special,upper,lower,numeric] must be specified as true",
            ));
        }
    }
    if let Some(length) = d.config("length").as_number().and_then(|n| n.to_i64()) {
        let mut sum = 0i64;
        let mut known = true;
        for name in ["min_upper", "min_lower", "min_numeric", "min_special"] {
            let value = d.config(name);
            if !value.is_known() {
                known = false;
            }
            sum = sum.saturating_add(value.as_number().and_then(|n| n.to_i64()).unwrap_or(0));
        }
        if known && length < sum {
            push(Error::attribute(
                "length",
                "Invalid Attribute Value",
                format!(
                    "Attribute length value must be at least sum of min_upper, min_lower, \
                     min_numeric and min_special ({sum}), got: {length}"
                ),
            ));
        }
    }
    error.map_or(Ok(()), Err)
}

fn string_params(d: &ResourceData) -> strings::Params {
    strings::Params {
        length: d.get_i64("length").unwrap_or(0),
        upper: d.get_bool("upper").unwrap_or(true),
        min_upper: d.get_i64("min_upper").unwrap_or(0),
        lower: d.get_bool("lower").unwrap_or(true),
        min_lower: d.get_i64("min_lower").unwrap_or(0),
        numeric: d.get_bool("numeric").unwrap_or(true),
        min_numeric: d.get_i64("min_numeric").unwrap_or(0),
        special: d.get_bool("special").unwrap_or(true),
        min_special: d.get_i64("min_special").unwrap_or(0),
        override_special: d.get_string("override_special"),
    }
}

fn bcrypt_hash(text: &str) -> Result<String, Error> {
    let bytes = text.as_bytes();
    let bytes = &bytes[..bytes.len().min(72)];
    bcrypt::hash_with_result(bytes, 10)
        .map(|parts| parts.format_for_version(bcrypt::Version::TwoA))
        .map_err(|e| {
            Error::new(
                "Hash Generation Error",
                format!("While attempting to generate a hash from the password an error occurred.\n\nOriginal Error: {e}"),
            )
        })
}

/// Imported strings: the identifier is the value; every setting takes
/// its default.
fn import_string(d: &mut ResourceData, id: &str) -> Result<(), Error> {
    d.set_string("result", id)?;
    d.set_i64("length", id.chars().count() as i64)?;
    for name in ["special", "upper", "lower", "number", "numeric"] {
        d.set_bool(name, true)?;
    }
    for name in ["min_special", "min_upper", "min_lower", "min_numeric"] {
        d.set_i64(name, 0)?;
    }
    Ok(())
}

/// Brings an older state up to the current schema: settings missing from
/// it take the values they had by default, `numeric` mirrors `number`,
/// and passwords get their hash.
fn upgrade_string_state(
    mut state: Map<String, Json>,
    password: bool,
) -> Result<Map<String, Json>, Error> {
    let result = state
        .get("result")
        .and_then(Json::as_str)
        .unwrap_or_default()
        .to_string();
    if state.get("length").is_none_or(Json::is_null) {
        state.insert("length".into(), Json::from(result.chars().count()));
    }
    for name in ["min_numeric", "min_upper", "min_lower", "min_special"] {
        if state.get(name).is_none_or(Json::is_null) {
            state.insert(name.into(), Json::from(0));
        }
    }
    for name in ["special", "upper", "lower", "number"] {
        if state.get(name).is_none_or(Json::is_null) {
            state.insert(name.into(), Json::Bool(true));
        }
    }
    if state.get("numeric").is_none_or(Json::is_null) {
        let number = state.get("number").cloned().unwrap_or(Json::Bool(true));
        state.insert("numeric".into(), number);
    }
    if password && state.get("bcrypt_hash").is_none_or(Json::is_null) {
        state.insert("bcrypt_hash".into(), Json::String(bcrypt_hash(&result)?));
    }
    Ok(state)
}

fn random_string() -> ResourceSpec<()> {
    let mut spec = create_only(string_schema(false), |d| {
        let result = strings::generate(&string_params(d))?;
        d.set_string("result", &result)?;
        d.set_id(result)
    })
    .version(2)
    .plan_hook(plan_number_numeric)
    .check(check_string_config)
    .importer(|_, _, id, d| {
        import_string(d, id)?;
        d.set_id(id)
    });
    for from in 0..2 {
        spec = spec.upgrader(from, |state| upgrade_string_state(state, false));
    }
    spec
}

fn random_password() -> ResourceSpec<()> {
    let mut spec = create_only(string_schema(true), |d| {
        let result = strings::generate(&string_params(d))?;
        d.set_string("bcrypt_hash", bcrypt_hash(&result)?)?;
        d.set_string("result", result)?;
        d.set_id("none")
    })
    .version(3)
    .plan_hook(plan_number_numeric)
    .check(check_string_config)
    .importer(|_, _, id, d| {
        import_string(d, id)?;
        d.set_string("bcrypt_hash", bcrypt_hash(id)?)?;
        d.set_id("none")
    });
    for from in 0..3 {
        spec = spec.upgrader(from, |state| upgrade_string_state(state, true));
    }
    spec
}

/// The ephemeral `random_password`: the resource's settings (without
/// `keepers`, the deprecated `number` and `id`, which only matter for an
/// object kept in state), a new password each time it is opened.
fn ephemeral_random_password() -> EphemeralResourceSpec<()> {
    let resource = string_schema(true);
    let mut schema = BlockSpec::new().markdown_description(
        "Generates an ephemeral password string using a cryptographic random number generator. \
         The primary use case for this ephemeral resource is to generate a password that is \
         passed to a write-only argument, so that it is stored neither in the plan nor in the \
         state.",
    );
    for (name, attr) in resource.attributes() {
        if matches!(name.as_str(), "keepers" | "number" | "id") {
            continue;
        }
        schema = schema.attr(name.clone(), attr.clone());
    }
    EphemeralResourceSpec::new(schema)
        .check(check_string_config)
        .open(|_, _, d| {
            let result = strings::generate(&string_params(d))?;
            d.set_string("bcrypt_hash", bcrypt_hash(&result)?)?;
            d.set_string("result", result)
        })
}

// ----- random_pet -----

fn random_pet() -> ResourceSpec<()> {
    let schema = BlockSpec::new()
        .markdown_description(
            "The resource `random_pet` generates random pet names that are intended to be used as \
             unique identifiers for other resources.",
        )
        .attr("keepers", keepers())
        .attr(
            "length",
            Attr::int64()
                .optional()
                .computed()
                .force_new()
                .default(Value::int(2))
                .description("The length (in words) of the pet name. Defaults to 2"),
        )
        .attr(
            "prefix",
            Attr::string()
                .optional()
                .force_new()
                .description("A string to prefix the name with."),
        )
        .attr(
            "separator",
            Attr::string()
                .optional()
                .computed()
                .force_new()
                .default(Value::string("-"))
                .description("The character to separate words in the pet name. Defaults to \"-\""),
        )
        .attr("id", id_attr("The random pet name."));
    create_only(schema, |d| {
        let length = length_of(d, "length")?;
        let separator = d.get_string("separator").unwrap_or_else(|| "-".into());
        let mut pet = pet::generate(length, &separator)?;
        if let Some(prefix) = d.get_string("prefix").filter(|p| !p.is_empty()) {
            pet = format!("{prefix}{separator}{pet}");
        }
        d.set_id(pet)
    })
}

// ----- random_shuffle -----

fn random_shuffle() -> ResourceSpec<()> {
    let schema = BlockSpec::new()
        .markdown_description("The resource `random_shuffle` generates a random permutation of a list of strings given as an argument.")
        .attr("keepers", keepers())
        .attr("seed", Attr::string().optional().force_new().description("Arbitrary string with which to seed the random number generator, in order to produce less-volatile permutations of the list.\n\n**Important:** Even with an identical seed, it is not guaranteed that the same permutation will be produced across different versions of Terraform. This argument causes the result to be *less volatile*, but not fixed for all time."))
        .attr("input", Attr::list(Type::String).required().force_new().description("The list of strings to shuffle."))
        .attr("result_count", Attr::int64().optional().force_new().description("The number of results to return. Defaults to the number of items in the `input` list. If fewer items are requested, some elements will be excluded from the result. If more items are requested, items will be repeated in the result but not more frequently than the number of items in the input list."))
        .attr("result", Attr::list(Type::String).computed().description("Random permutation of the list of strings given in `input`. The number of elements is determined by `result_count` if set, or the number of elements in `input`."))
        .attr("id", id_attr("A static value used internally by Terraform, this should not be referenced in configurations."));
    create_only(schema, |d| {
        d.set_id("-")?;
        let input: Vec<Value> = d
            .get("input")
            .as_elements()
            .map(<[Value]>::to_vec)
            .unwrap_or_default();
        let count = match d.get_i64("result_count") {
            Some(count) => usize::try_from(count).map_err(|_| {
                Error::attribute(
                    "result_count",
                    "Invalid Attribute Value",
                    format!("Attribute result_count value must be at least 0, got: {count}"),
                )
            })?,
            None => input.len(),
        };
        let mut result = Vec::with_capacity(count);
        if count > 0 && !input.is_empty() {
            let mut source = GoRand::for_seed(d.get_str("seed"))?;
            // Whole permutations, one after another, as hashicorp/random
            // draws them: the same seed gives the same result.
            'batches: loop {
                for index in source.perm(input.len()) {
                    result.push(input[index].clone());
                    if result.len() >= count {
                        break 'batches;
                    }
                }
            }
        }
        d.set("result", Value::list(Type::String, result))
    })
}

// ----- random_uuid -----

fn format_uuid(bytes: &[u8; 16]) -> String {
    let h = hex(bytes);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

fn parse_uuid(text: &str) -> Option<[u8; 16]> {
    let groups: Vec<&str> = text.split('-').collect();
    let lengths: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    if lengths != [8, 4, 4, 4, 12] {
        return None;
    }
    let digits: String = groups.concat();
    let mut bytes = [0u8; 16];
    for (i, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(digits.get(i * 2..i * 2 + 2)?, 16).ok()?;
    }
    Some(bytes)
}

fn random_uuid() -> ResourceSpec<()> {
    let schema = BlockSpec::new()
        .markdown_description("The resource `random_uuid` generates a random uuid string that is intended to be used as a unique identifier for other resources.")
        .attr("keepers", keepers())
        .attr("result", Attr::string().computed().description("The generated uuid presented in string format."))
        .attr("id", id_attr("The generated uuid presented in string format."));
    create_only(schema, |d| {
        let mut bytes = [0u8; 16];
        rand::fill(&mut bytes)?;
        // Version 4, RFC 4122 variant.
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        let text = format_uuid(&bytes);
        d.set_string("result", &text)?;
        d.set_id(text)
    })
    .importer(|_, _, id, d| {
        let bytes = parse_uuid(id).ok_or_else(|| {
            Error::new(
                "Import Random UUID Error",
                format!("There was an error during the parsing of the UUID.\n\nOriginal Error: uuid string is wrong length or has invalid characters: {id:?}"),
            )
        })?;
        let text = format_uuid(&bytes);
        d.set_string("result", &text)?;
        d.set_id(text)
    })
}

// ----- random_bytes -----

fn random_bytes() -> ResourceSpec<()> {
    let schema = BlockSpec::new()
        .markdown_description("The resource `random_bytes` generates random bytes that are intended to be used as a secret, or key. Use this in preference to `random_id` when the output is considered sensitive, and should not be displayed in the CLI.")
        .attr("keepers", keepers())
        .attr("length", Attr::int64().required().force_new().validate(int_at_least(1)).description("The number of bytes requested. The minimum value for length is 1."))
        .attr("base64", Attr::string().computed().sensitive().description("The generated bytes presented in base64 string format."))
        .attr("hex", Attr::string().computed().sensitive().description("The generated bytes presented in lowercase hexadecimal string format. The length of the encoded string is exactly twice the `length` parameter."));
    let set = |d: &mut ResourceData, bytes: &[u8]| -> Result<(), Error> {
        d.set_string(
            "base64",
            base64::engine::general_purpose::STANDARD.encode(bytes),
        )?;
        d.set_string("hex", hex(bytes))
    };
    create_only(schema, move |d| {
        let bytes = random_bytes_of(length_of(d, "length")?)?;
        set(d, &bytes)
    })
    .importer(move |_, _, id, d| {
        let bytes = base64::engine::general_purpose::STANDARD.decode(id).map_err(|e| {
            Error::new(
                "Import Random Bytes Error",
                format!("There was an error during the parsing of the base64 string.\n\nOriginal Error: {e}"),
            )
        })?;
        d.set_i64("length", bytes.len() as i64)?;
        set(d, &bytes)
    })
}

#[cfg(test)]
mod tests;
