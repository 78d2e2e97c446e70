//! One sentence about each built-in function, for `metadata functions`
//! (editors show it beside a call). Keyed by the function table's names; a
//! test keeps the two in step both ways.

/// The description of the built-in function `name` (without `core::`).
pub fn function_description(name: &str) -> Option<&'static str> {
    DESCRIPTIONS
        .binary_search_by(|(n, _)| n.cmp(&name))
        .ok()
        .map(|i| DESCRIPTIONS[i].1)
}

/// Sorted by name, for the binary search.
const DESCRIPTIONS: &[(&str, &str)] = &[
    ("abs", "The magnitude of a number: negative numbers lose their sign."),
    ("abspath", "A filesystem path made absolute by joining it to the current working directory when it is relative."),
    ("alltrue", "Whether every element of a list of booleans is true; true for an empty list."),
    ("anytrue", "Whether at least one element of a list of booleans is true; false for an empty list."),
    ("base64decode", "The UTF-8 text that a Base64 string encodes."),
    ("base64encode", "The Base64 encoding of a string's UTF-8 bytes."),
    ("base64gunzip", "The text of gzip-compressed data given as a Base64 string."),
    ("base64gzip", "A string compressed with gzip, then encoded in Base64."),
    ("base64sha256", "The SHA-256 digest of a string, encoded in Base64."),
    ("base64sha512", "The SHA-512 digest of a string, encoded in Base64."),
    ("basename", "The last element of a filesystem path."),
    ("bcrypt", "A Blowfish-based hash of a string, with a new random salt on every call and an optional cost."),
    ("can", "Whether an expression evaluates without errors."),
    ("ceil", "The smallest whole number not less than the given number."),
    ("chomp", "A string without the newline characters at its end."),
    ("chunklist", "A list cut into consecutive lists of at most the given size."),
    ("cidrcontains", "Whether an IP address or a smaller CIDR prefix lies within a CIDR prefix."),
    ("cidrhost", "The IP address with the given host number inside a CIDR prefix."),
    ("cidrnetmask", "The dotted-decimal netmask of an IPv4 CIDR prefix."),
    ("cidrsubnet", "A subnet of a CIDR prefix, chosen by added prefix bits and a network number."),
    ("cidrsubnets", "Consecutive subnets of a CIDR prefix, one for each number of added prefix bits."),
    ("coalesce", "The first argument that is neither null nor an empty string."),
    ("coalescelist", "The first argument that is a non-empty list."),
    ("compact", "A list of strings without its null and empty elements."),
    ("concat", "The elements of several lists, one after another, in one list."),
    ("contains", "Whether a list or set has the given value as an element."),
    ("csvdecode", "A list of maps from CSV text whose first line names the columns."),
    ("dirname", "A filesystem path without its last element."),
    ("distinct", "A list with repeated elements removed, keeping the first of each."),
    ("element", "The element of a list at an index, counting round again past its end."),
    ("endswith", "Whether a string ends with the given suffix."),
    ("ephemeralasnull", "A value with every ephemeral part of it replaced by null."),
    ("file", "The contents of a file as UTF-8 text."),
    ("filebase64", "The contents of a file, encoded in Base64."),
    ("filebase64sha256", "The SHA-256 digest of a file's contents, encoded in Base64."),
    ("filebase64sha512", "The SHA-512 digest of a file's contents, encoded in Base64."),
    ("fileexists", "Whether a file exists at the given path."),
    ("filemd5", "The MD5 digest of a file's contents, in hexadecimal."),
    ("fileset", "The set of file names below a directory that match a glob pattern."),
    ("filesha1", "The SHA-1 digest of a file's contents, in hexadecimal."),
    ("filesha256", "The SHA-256 digest of a file's contents, in hexadecimal."),
    ("filesha512", "The SHA-512 digest of a file's contents, in hexadecimal."),
    ("flatten", "The elements of nested lists, in one flat list."),
    ("floor", "The largest whole number not greater than the given number."),
    ("format", "A string built from a format specification and values, in the manner of printf."),
    ("formatdate", "A timestamp written in the given date and time format."),
    ("formatlist", "A list of strings, the format specification applied to each set of corresponding elements."),
    ("indent", "A multi-line string with every line but the first indented by the given number of spaces."),
    ("index", "The position of the first element of a list equal to the given value."),
    ("issensitive", "Whether a value is marked sensitive."),
    ("join", "The elements of lists of strings joined by a separator."),
    ("jsondecode", "The value that a JSON text represents."),
    ("jsonencode", "The JSON text of a value."),
    ("keys", "The keys of a map, or the attribute names of an object, in lexical order."),
    ("length", "The number of elements of a collection or structure, or of characters of a string."),
    ("log", "The logarithm of a number in the given base."),
    ("lookup", "The element of a map at a key, or a default when the key is absent."),
    ("lower", "A string with its letters in lower case."),
    ("matchkeys", "The elements of a list whose counterparts in a list of keys are among the searched keys."),
    ("max", "The largest of the given numbers."),
    ("md5", "The MD5 digest of a string, in hexadecimal."),
    ("merge", "The maps or objects combined into one; later arguments win for a repeated key."),
    ("min", "The smallest of the given numbers."),
    ("nonsensitive", "A sensitive value without its sensitive mark."),
    ("one", "The only element of a collection of at most one element, or null when it is empty."),
    ("parseint", "The number that a string of digits in the given base represents."),
    ("pathexpand", "A filesystem path with a leading ~ replaced by the user's home directory."),
    ("plantimestamp", "The time at which the plan was made, in RFC 3339 form."),
    ("pow", "A number raised to the given power."),
    ("range", "A list of numbers from a start to before a limit, by a step."),
    ("regex", "The first match of a regular expression in a string, with its capture groups."),
    ("regexall", "Every match of a regular expression in a string, with its capture groups."),
    ("replace", "A string with each occurrence of a substring, or of a regular expression between slashes, replaced."),
    ("reverse", "A sequence with its elements in the opposite order."),
    ("rsadecrypt", "The plain text of an RSA-encrypted, Base64-encoded ciphertext, decrypted with a PEM private key."),
    ("sensitive", "A value marked sensitive, so that it is hidden wherever values are shown."),
    ("setintersection", "The elements that all of the given sets have."),
    ("setproduct", "Every combination of one element from each of the given sets or lists."),
    ("setsubtract", "The elements of the first set that the second set lacks."),
    ("setunion", "The elements that any of the given sets has."),
    ("sha1", "The SHA-1 digest of a string, in hexadecimal."),
    ("sha256", "The SHA-256 digest of a string, in hexadecimal."),
    ("sha512", "The SHA-512 digest of a string, in hexadecimal."),
    ("signum", "The sign of a number: -1, 0 or 1."),
    ("slice", "The consecutive elements of a list from a start index to before an end index."),
    ("sort", "A list of strings in lexical order."),
    ("split", "The parts of a string between the occurrences of a separator."),
    ("startswith", "Whether a string starts with the given prefix."),
    ("strcontains", "Whether a string contains the given substring."),
    ("strrev", "A string with its characters in the opposite order."),
    ("substr", "The characters of a string from an offset, for a length."),
    ("sum", "The total of a list or set of numbers."),
    ("templatefile", "A template file rendered with the given variables."),
    ("templatestring", "A template held in a string rendered with the given variables."),
    ("textdecodebase64", "The text that Base64-encoded bytes in the given character encoding represent."),
    ("textencodebase64", "A string encoded in the given character encoding, then in Base64."),
    ("timeadd", "A timestamp moved by a duration such as \"1h30m\"."),
    ("timecmp", "How two timestamps compare: -1, 0 or 1."),
    ("timestamp", "The current time in RFC 3339 form, different on every call."),
    ("title", "A string with the first letter of each word in upper case."),
    ("tobool", "A value converted to a boolean."),
    ("tolist", "A value converted to a list."),
    ("tomap", "A value converted to a map."),
    ("tonumber", "A value converted to a number."),
    ("toset", "A value converted to a set."),
    ("tostring", "A value converted to a string."),
    ("transpose", "A map of lists with keys and elements swapped."),
    ("trim", "A string without the given characters at its start and end."),
    ("trimprefix", "A string without the given prefix, when it starts with it."),
    ("trimspace", "A string without the whitespace at its start and end."),
    ("trimsuffix", "A string without the given suffix, when it ends with it."),
    ("try", "The value of the first of the given expressions that evaluates without errors."),
    ("upper", "A string with its letters in upper case."),
    ("urldecode", "A string with its URL percent-encoding undone."),
    ("urlencode", "A string percent-encoded for use in a URL's query."),
    ("uuid", "A new random UUID, different on every call."),
    ("uuidv5", "The name-based UUID (version 5) of a name in a namespace."),
    ("values", "The values of a map, or the attributes of an object, in the order of their keys."),
    ("yamldecode", "The value that a YAML document represents."),
    ("yamlencode", "The YAML text of a value."),
    ("zipmap", "A map built from a list of keys and a list of values."),
];

#[cfg(test)]
mod tests {
    use super::DESCRIPTIONS;
    use crate::funcs::builtins;

    #[test]
    fn descriptions_are_sorted_for_the_binary_search() {
        for pair in DESCRIPTIONS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} before {}", pair[0].0, pair[1].0);
        }
    }

    #[test]
    fn every_builtin_function_has_a_description_and_every_description_a_function() {
        for name in builtins().keys() {
            assert!(
                super::function_description(name).is_some(),
                "no description for {name}"
            );
        }
        for (name, _) in DESCRIPTIONS {
            assert!(
                builtins().contains_key(name),
                "description for {name}, which is not a built-in function"
            );
        }
    }
}
