//! Expectations checked against `terraform console` (1.11.4).

use super::super::testing::{
    call, err_arg, err_call, obj, s, sensitive, str_list, try_call, unknown, unknown_nn,
};
use terrace_value::{Number, Refinement, Type, Value};

fn json_of(value: Value) -> String {
    try_call("jsonencode", vec![value])
        .expect("jsonencode")
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn base64_matches_terraform() {
    call(
        "base64encode",
        vec![s("Hello World")],
        Ok(s("SGVsbG8gV29ybGQ=")),
    );
    call("base64encode", vec![s("")], Ok(s("")));
    call("base64encode", vec![s("ü🙂")], Ok(s("w7zwn5mC")));
    call(
        "base64encode",
        vec![s("Hello World!")],
        Ok(s("SGVsbG8gV29ybGQh")),
    );
    call(
        "base64decode",
        vec![s("SGVsbG8gV29ybGQ=")],
        Ok(s("Hello World")),
    );
    call(
        "base64decode",
        vec![s("SGVsbG8g\nV29ybGQ=")],
        Ok(s("Hello World")),
    );
    call(
        "base64decode",
        vec![s("SGVsbG8gV29ybGQ=\r\n")],
        Ok(s("Hello World")),
    );
    call("base64decode", vec![s("")], Ok(s("")));
    call(
        "base64decode",
        vec![sensitive(s("SGk="))],
        Ok(sensitive(s("Hi"))),
    );
    for bad in [
        "SGVsbG8gV29ybGQ",
        "SGVsbG8gV29ybGQ==",
        "a",
        "====",
        "SGVsbG8=V29ybGQ=",
    ] {
        call(
            "base64decode",
            vec![s(bad)],
            err_call(&format!("failed to decode base64 data \"{bad}\"")),
        );
    }
    call(
        "base64decode",
        vec![sensitive(s("%%%"))],
        err_call("failed to decode base64 data (sensitive value)"),
    );
    call(
        "base64decode",
        vec![s("//4=")],
        err_call("the result of decoding the provided string is not valid UTF-8"),
    );
}

#[test]
fn base64gzip_matches_terraform() {
    let cases: &[(&str, &str)] = &[
        ("", "H4sIAAAAAAAA/wAAAP//AQAA//8AAAAAAAAAAA=="),
        ("test", "H4sIAAAAAAAA/ypJLS4BAAAA//8BAAD//wx+f9gEAAAA"),
        ("hello hello hello hello hello hello hello hello hello hello", "H4sIAAAAAAAA/8pIzcnJVyCLBAAAAP//AQAA//96gxpsOwAAAA=="),
        ("#!/bin/bash\nyum update -y\nyum install -y httpd\nsystemctl start httpd\nsystemctl enable httpd\necho \"<h1>Hello World</h1>\" > /var/www/html/index.html\n", "H4sIAAAAAAAA/2TIMQ7CMAxA0b2nMGUuVvcqMzdgdhpLjuQkVeIScnsEYmP7/10v6GNGT02mcSY4j0DGsIzvxdyMVGEZIGZHmNpoxmk3hWZU7U85k1f+Me9SYN5kdXdWLfAoVcOGsroZHOCTKvbeUSwpxhz4dfvk9AYAAP//AQAA//9kIDV3kwAAAA=="),
    ];
    for (input, want) in cases {
        call("base64gzip", vec![s(input)], Ok(s(want)));
    }
    let lines: String = (0..1000)
        .map(|i| format!("line {i} of the file\n"))
        .collect();
    call("base64gzip", vec![s(&lines)], Ok(s("H4sIAAAAAAAA/2zcPYodwRWA0dyrmCW8qrq/C5KwQNiJ94/BmXkn7Wg+pJl76K66f//869fP5+ffv3/+889fP7///P31j/89Ot+P7vej9/0ovh/l96P6ftTfj+b70eJH1Y+Pn/8g4KDgIOGg4SDioOIg46DjouPq3wEdFx0XHRcdFx0XHRcdFx0PHQ8dT/+h0PHQ8dDx0PHQ8dDx0BHoCHQEOkK/GegIdAQ6Ah2BjkBHoiPRkehIdKR+xdGR6Eh0JDoSHYWOQkeho9BR6Cj9rUJHoaPQUehodDQ6Gh2NjkZHo6P1RxcdjY5Gx6Bj0DHoGHQMOgYdg47R9EDHoGPRsehYdCw6Fh2LjkXHomM1BjkHNQg/moQfjcKPZuFHw/CjafjROPxoHn40ED8q8mhXEYc7pzvHO+c7BzwnPEe8ZvzRkD+a8kdj/mjOHw36o0l/NOqPZv3RsD+a9kfj/mjeHw38o4l/NPKPZv7R0D+a+kdj/2juHw3+o8l/NPqPZv/R8D+a/kfj/2j+HwHgSABHBDgywBECjhRwxIAjBxxB4EgCRxQ4ssARBo40cMSBIw8cgeBIBEckODLBEQqOVHDEgiMXHMHgSAZHNDiywREOjnRwxIMjHxwB4UgIR0Q4MsIREo6UcMSEIyccQeFICkdUOLLCERaOtHDEhSMvHIHhSAxHZDgyw5UZrsxwZYYrM1yZ4coMV2a4MsOVGa7McGWGKzNcmeHKDFdmuDLDlRmuzHBlhsv3Anwx4DcDKuK7Ab4c4NsBvh7g+wG+IJAZrsxwZYYrM1yZ4coMV2a4MsOVGa7McGWGKzNcmeHKDFdmuDLDlRmuzHBlhiszXJnhygxXZrgyw5UZrsxwZYYrM1yZ4coMV2a4MsOVGa7McGWGKzNcmeHKDFdmuDLDlRmuzHBlhiszXJnhygxXZrgyw5UZrsxwZYYrM1yZ4coMV2a4MsOVGa7McGWGKzNcmeHKDFdmuDLDlRmuzHBlhiszXJnhygxXZngyw5MZnszwZIYnMzyZ4ckMT2Z4MsOTGZ7M8GSGJzM8meHJDE9meDLDkxmezPBkhiczPJnhyQxPZngyw5MZnszwZIYnMzx+VeBnBX5X8IcFFfHTAr8t8OMCvy7w84LM8GSGJzM8meHJDE9meDLDkxmezPBkhiczPJnhyQxPZngyw5MZnszwZIYnMzyZ4ckMT2Z4MsOTGZ7M8GSGJzM8meHJDE9meDLDkxmezPBkhiczPJnhyQxPZngyw5MZnszwZIYnMzyZ4ckMT2Z4MsOTGZ7M8GSGJzM8meHJDE9meDLDkxmezPBkhiczPJnhyQwhM4TMEDJDyAwhM4TMEDJDyAwhM4TMEDJDyAwhM4TMEDJDyAwhM4TMEDJDyAwhM4TMEDJDyAwhM4TMEDJDyAwhM4TMEDJDyAwhM4TMEDJDyAwhM4TMEDJD8EwCDyXwVAKPJfhcgop4MoFHE3g2gYcTZIaQGUJmCJkhZIaQGUJmCJkhZIaQGUJmCJkhZIaQGUJmCJkhZIaQGUJmCJkhZIaQGUJmCJkhZIaQGUJmCJkhZIaQGUJmCJkhZIaQGUJmCJkhZIaQGUJmCJkhZIaQGUJmCJkhZIaQGUJmCJkhZIaQGUJmSJkhZYaUGVJmSJkhZYaUGVJmSJkhZYaUGVJmSJkhZYaUGVJmSJkhZYaUGVJmSJkhZYaUGVJmSJkhZYaUGVJmSJkhZYaUGVJmSJkhZYaUGVJmSJkhZYaUGVJmSJkhZYaUGVJmSJkhZYaUGVJmSJkheaKRRxp5ppGHGnmq0ccaVcSDjTzZyKONMkPKDCkzpMyQMkPKDCkzpMyQMkPKDCkzpMyQMkPKDCkzpMyQMkPKDCkzpMyQMkPKDCkzpMyQMkPKDCkzpMyQMkPKDCkzpMyQMkPKDCkzpMyQMkPKDCkzpMyQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQMkPJDCUzlMxQvA/BCxG8EcErEbwTwUsRvhWhIt6L4MUImaFkhpIZSmYomaFkhpIZSmYomaFkhpIZSmYomaFkhpIZSmYomaFkhpIZSmYomaFkhpIZSmYomaFkhpIZSmYomaFkhpIZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZomaFlhpYZWmZo3qbkdUrep+SFSt6o5JVK3qn0pUoV8VqlzNAyQ8sMLTO0zNAyQ8sMLTO0zNAyQ8sMLTO0zNAyQ8sMLTO0zNAyQ8sMLTO0zDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzOMzDAyw8gMIzMMdzFwGQO3MXAdA/cxcCEDNzJwJYN3MqhIZhiZYWSGkRlGZhiZYWSGkRlGZhiZYWSGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRlWZliZYWWGlRmWm5y4yom7nLjMiducuM6J+5y40IkbnbzS6f+L/gsAAP//AQAA//+QXN9lmlEAAA==")));
    // Inputs larger than the 32 KiB window, compared by hash.
    let big_lines: String = (0..10)
        .flat_map(|j| (0..1000).map(move |i| format!("line {j}-{i} of the file\n")))
        .collect();
    let numbers: Vec<String> = (0..20_000u64)
        .map(|k| (k * 7919 % 10007).to_string())
        .collect();
    for (input, want) in [
        (
            big_lines,
            "90d8adbfef753c2d4ac9c15b20bca0a6601db4d52a79de0ec5c4696bd1ffceee",
        ),
        (
            numbers.join(","),
            "210d8a42225b1cf904c1006f59fa01196263ebf036da7a54d44bca3df53cde44",
        ),
    ] {
        let compressed = try_call("base64gzip", vec![s(&input)]).expect("base64gzip");
        call("sha256", vec![compressed], Ok(s(want)));
    }
}

#[test]
fn base64gunzip_round_trips() {
    for text in ["", "test", "hello hello hello hello hello hello"] {
        let compressed = try_call("base64gzip", vec![s(text)]).expect("base64gzip");
        call("base64gunzip", vec![compressed], Ok(s(text)));
    }
    call(
        "base64gunzip",
        vec![sensitive(s("H4sIAAAAAAAA/ypJLS4BAAAA//8BAAD//wx+f9gEAAAA"))],
        Ok(sensitive(s("test"))),
    );
    call(
        "base64gunzip",
        vec![s("aGVsbG8=")],
        err_call("failed to gunzip bytestream: unexpected EOF"),
    );
    call(
        "base64gunzip",
        vec![s("%%")],
        err_call("failed to decode base64 data \"%%\""),
    );
}

#[test]
fn urlencode_matches_terraform() {
    let cases: &[(&str, &str)] = &[
        ("Hello World!", "Hello+World%21"),
        ("a/b?c=d&e=f", "a%2Fb%3Fc%3Dd%26e%3Df"),
        ("ü~-_.*'()", "%C3%BC~-_.%2A%27%28%29"),
        ("", ""),
        (" +%", "+%2B%25"),
    ];
    for (input, want) in cases {
        call("urlencode", vec![s(input)], Ok(s(want)));
        call("urldecode", vec![s(want)], Ok(s(input)));
    }
    call(
        "urldecode",
        vec![s("%zz")],
        err_call("failed to decode URL '': invalid URL escape \"%zz\""),
    );
}

#[test]
fn textencodebase64_matches_terraform() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "Hello World",
            "UTF-16LE",
            "SABlAGwAbABvACAAVwBvAHIAbABkAA==",
        ),
        ("Hello World", "UTF-16", "/v8ASABlAGwAbABvACAAVwBvAHIAbABk"),
        (
            "Hello World",
            "UTF-16BE",
            "AEgAZQBsAGwAbwAgAFcAbwByAGwAZA==",
        ),
        ("Hello ü", "ISO-8859-1", "SGVsbG8g/A=="),
        ("Hello ü", "latin1", "SGVsbG8g/A=="),
        ("Hello €", "windows-1252", "SGVsbG8ggA=="),
        ("Hello", "US-ASCII", "SGVsbG8="),
        ("Hello 🙂", "UTF-8", "SGVsbG8g8J+Zgg=="),
        ("日本", "Shift_JIS", "k/qWew=="),
        ("日本", "EUC-JP", "xvzL3A=="),
        ("日本", "ISO-2022-JP", "GyRCRnxLXBsoQg=="),
        ("한국", "EUC-KR", "x9GxuQ=="),
        ("中文", "GBK", "1tDOxA=="),
        ("中文", "GB18030", "1tDOxA=="),
        ("中文", "Big5", "pKSk5Q=="),
        ("€", "GBK", "gA=="),
        ("€", "GB18030", "ouM="),
        ("😀", "GB18030", "lDn8Ng=="),
        ("Hello", "KOI8-R", "SGVsbG8="),
        ("Hello", "utf-16le", "SABlAGwAbABvAA=="),
        ("Hello", "macintosh", "SGVsbG8="),
        ("Hello", "ISO-8859-16", "SGVsbG8="),
        ("x", "csUTF8", "eA=="),
        ("x", "windows-874", "eA=="),
        ("\u{81}", "ISO-8859-1", "gQ=="),
        ("\u{fffd}", "UTF-8", "77+9"),
        ("~\\", "Shift_JIS", "flw="),
    ];
    for (text, encoding, want) in cases {
        call("textencodebase64", vec![s(text), s(encoding)], Ok(s(want)));
    }
    let unsupported = |name: &str| {
        format!("\"{name}\" is not a supported IANA encoding name or alias in this terrace version")
    };
    let cannot = |name: &str| {
        format!("the given string contains characters that cannot be represented in {name}")
    };
    let errors: Vec<(&str, &str, usize, String)> = vec![
        ("Hello €", "ISO-8859-1", 0, cannot("ISO_8859-1:1987")),
        ("Hellö", "US-ASCII", 0, cannot("US-ASCII")),
        ("\u{81}", "windows-1252", 0, cannot("windows-1252")),
        ("😀", "GBK", 0, cannot("GBK")),
        ("¥", "Shift_JIS", 0, cannot("Shift_JIS")),
        ("Hello", "nope", 1, unsupported("nope")),
        ("Hello", "UTF-32", 1, unsupported("UTF-32")),
        ("Hello", "cp1252", 1, unsupported("cp1252")),
        ("x", "TIS-620", 1, unsupported("TIS-620")),
        ("x", "GB2312", 1, unsupported("GB2312")),
    ];
    for (text, encoding, argument, message) in &errors {
        call(
            "textencodebase64",
            vec![s(text), s(encoding)],
            err_arg(*argument, message),
        );
    }
}

#[test]
fn textdecodebase64_matches_terraform() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "SABlAGwAbABvACAAVwBvAHIAbABkAA==",
            "UTF-16LE",
            "Hello World",
        ),
        ("SGVsbG8g/A==", "ISO-8859-1", "Hello ü"),
        ("", "UTF-8", ""),
        ("gQ==", "ISO-8859-1", "\u{81}"),
        ("gA==", "windows-1252", "€"),
        ("gQ==", "KOI8-R", "│"),
        ("oQ==", "ISO-8859-3", "Ħ"),
        ("gA==", "ISO-8859-9", "\u{80}"),
        ("//7/2ADd", "UTF-16", "\u{4fd00}"),
        ("/v8ASA==", "UTF-16", "H"),
        ("AEg=", "UTF-16", "H"),
        ("gA==", "GBK", "€"),
        ("XH4=", "Shift_JIS", "\\~"),
    ];
    for (source, encoding, want) in cases {
        call(
            "textdecodebase64",
            vec![s(source), s(encoding)],
            Ok(s(want)),
        );
    }
    let undefined =
        |name: &str| format!("the given string contains symbols that are not defined for {name}");
    let errors: Vec<(&str, &str, usize, String)> = vec![
        ("//4=", "UTF-8", 0, undefined("UTF-8")),
        ("77+9", "UTF-8", 0, undefined("UTF-8")),
        ("gQ==", "ISO-8859-2", 0, undefined("ISO_8859-2:1987")),
        ("gQ==", "windows-1250", 0, undefined("windows-1250")),
        ("jQ==", "windows-1252", 0, undefined("windows-1252")),
        ("/w==", "windows-1255", 0, undefined("windows-1255")),
        ("gQ==", "US-ASCII", 0, undefined("US-ASCII")),
        ("gA==", "ISO-8859-15", 0, undefined("ISO-8859-15")),
        ("gQ==", "Shift_JIS", 0, undefined("Shift_JIS")),
        ("2AA=", "UTF-16BE", 0, undefined("UTF-16BE")),
        (
            "SGVsb%8=",
            "UTF-8",
            0,
            "the given value is has an invalid base64 symbol at offset 5".to_string(),
        ),
        (
            "SGVsbG8",
            "UTF-8",
            0,
            "the given value is has an invalid base64 symbol at offset 4".to_string(),
        ),
        (
            "SGVsbG8=",
            "nope",
            1,
            "\"nope\" is not a supported IANA encoding name or alias in this terrace version"
                .to_string(),
        ),
    ];
    for (source, encoding, argument, message) in &errors {
        call(
            "textdecodebase64",
            vec![s(source), s(encoding)],
            err_arg(*argument, message),
        );
    }
}

#[test]
fn csvdecode_matches_terraform() {
    let cases: &[(&str, &str)] = &[
        (
            "a,b,c\n1,2,3\n4,5,6\n",
            r#"[{"a":"1","b":"2","c":"3"},{"a":"4","b":"5","c":"6"}]"#,
        ),
        ("a,b\n1,2", r#"[{"a":"1","b":"2"}]"#),
        ("a,b\r\n1,2\r\n", r#"[{"a":"1","b":"2"}]"#),
        ("a,b\n\n\n1,2\n\n", r#"[{"a":"1","b":"2"}]"#),
        (
            "a,b\n\"x,y\",\"he said \"\"hi\"\"\"\n",
            r#"[{"a":"x,y","b":"he said \"hi\""}]"#,
        ),
        (
            "a,b\n\"multi\nline\",2\n",
            r#"[{"a":"multi\nline","b":"2"}]"#,
        ),
        ("a,b\n", "[]"),
        ("\"a\nb\",c\n1,2\n", r#"[{"a\nb":"1","c":"2"}]"#),
        ("a,b\n 1 , 2 \n", r#"[{"a":" 1 ","b":" 2 "}]"#),
        ("a\n\n", "[]"),
        ("a,b\n1,2\r", r#"[{"a":"1","b":"2"}]"#),
        ("a,\"b\"\n1,\"\"\n", r#"[{"a":"1","b":""}]"#),
    ];
    for (input, want) in cases {
        let got = try_call("csvdecode", vec![s(input)])
            .unwrap_or_else(|e| panic!("csvdecode({input:?}): {e:?}"));
        assert_eq!(json_of(got), *want, "csvdecode({input:?})");
    }
    let errors: &[(&str, &str)] = &[
        (
            "a,b\n1,2,3\n",
            "CSV parse error on line 2: wrong number of fields",
        ),
        (
            "a,b\n1\n",
            "CSV parse error on line 2: wrong number of fields",
        ),
        ("a,a\n1,2\n", "duplicate column name \"a\""),
        ("", "missing header line"),
        (
            "a,b\n1,x\"y\n",
            "CSV parse error on line 2: bare \" in non-quoted-field",
        ),
        (
            "a,b\n\"1\"x,2\n",
            "CSV parse error on line 2: extraneous or missing \" in quoted-field",
        ),
        (
            "a,b\n\"unterminated,2\n",
            "CSV parse error on line 2: extraneous or missing \" in quoted-field",
        ),
        (
            "a,b\n1,2\n\"x\ny\"z,3\n",
            "CSV parse error on line 4: extraneous or missing \" in quoted-field",
        ),
    ];
    for (input, message) in errors {
        call("csvdecode", vec![s(input)], err_call(message));
    }
    call(
        "csvdecode",
        vec![unknown(Type::String)],
        Ok(unknown(Type::Dynamic)),
    );
    let typed = try_call("csvdecode", vec![s("b,a\n1,2\n")]).expect("csvdecode");
    assert_eq!(
        typed.ty(),
        &Type::list(Type::object([
            ("a".to_string(), Type::String),
            ("b".to_string(), Type::String)
        ]))
    );
}

#[test]
fn jsonencode_matches_terraform() {
    let n = |text: &str| Value::number(Number::parse(text).expect("number"));
    let nested = obj(vec![
        ("a", n("1")),
        (
            "b",
            Value::tuple(vec![Value::bool(true), Value::null(Type::Dynamic), s("x")]),
        ),
        ("c", obj(vec![("d", n("1.5"))])),
    ]);
    let cases: Vec<(Value, &str)> = vec![
        (nested, r#"{"a":1,"b":[true,null,"x"],"c":{"d":1.5}}"#),
        (s("a<b>&c"), r#""a\u003cb\u003e\u0026c""#),
        (Value::null(Type::Dynamic), "null"),
        (Value::list(Type::Number, vec![n("1"), n("2")]), "[1,2]"),
        (
            Value::set(Type::String, vec![s("b"), s("a")]),
            r#"["a","b"]"#,
        ),
        (n("1e30"), "1000000000000000000000000000000"),
        (s("\u{2028}"), r#""\u2028""#),
    ];
    for (value, want) in cases {
        call("jsonencode", vec![value], Ok(s(want)));
    }
    call(
        "jsonencode",
        vec![sensitive(s("x"))],
        Ok(sensitive(s("\"x\""))),
    );
    // Unknowns: the first character is known unless the value may be null.
    call(
        "jsonencode",
        vec![unknown(Type::String)],
        Ok(unknown_nn(Type::String)),
    );
    let prefixed = |prefix: &str| {
        Value::unknown_refined(
            Type::String,
            Refinement {
                not_null: true,
                string_prefix: Some(prefix.to_string()),
                ..Refinement::default()
            },
        )
    };
    call(
        "jsonencode",
        vec![unknown_nn(Type::String)],
        Ok(prefixed("\"")),
    );
    call(
        "jsonencode",
        vec![Value::tuple(vec![unknown(Type::Number)])],
        Ok(prefixed("[")),
    );
    call(
        "jsonencode",
        vec![obj(vec![("a", unknown(Type::Bool))])],
        Ok(prefixed("{")),
    );
    call(
        "jsonencode",
        vec![unknown_nn(Type::Number)],
        Ok(unknown_nn(Type::String)),
    );
}

#[test]
fn jsondecode_matches_terraform() {
    let got =
        try_call("jsondecode", vec![s(r#"{"a": 1, "b": [true, null, "x"]}"#)]).expect("jsondecode");
    assert_eq!(json_of(got.clone()), r#"{"a":1,"b":[true,null,"x"]}"#);
    assert_eq!(
        got.ty().type_string(),
        "object({a=number,b=tuple([bool,any,string])})"
    );
    call(
        "jsondecode",
        vec![s("1.5")],
        Ok(Value::number(Number::parse("1.5").expect("number"))),
    );
    call(
        "jsondecode",
        vec![s("null")],
        Ok(Value::null(Type::Dynamic)),
    );
    call("jsondecode", vec![s("\"x\"")], Ok(s("x")));
    for (input, message) in [
        ("{", "EOF"),
        ("", "EOF"),
        ("[1, 2] x", "extraneous data after JSON object"),
        ("{\"a\":1}{", "extraneous data after JSON object"),
        ("tru", "unexpected EOF"),
    ] {
        call("jsondecode", vec![s(input)], err_call(message));
    }
    // An unknown document whose first character is known.
    let with_prefix = |prefix: &str| {
        Value::unknown_refined(
            Type::String,
            Refinement {
                string_prefix: Some(prefix.to_string()),
                ..Refinement::default()
            },
        )
    };
    call(
        "jsondecode",
        vec![with_prefix("  \"ab")],
        Ok(unknown(Type::String)),
    );
    call(
        "jsondecode",
        vec![with_prefix("tr")],
        Ok(unknown(Type::Bool)),
    );
    call(
        "jsondecode",
        vec![with_prefix("-1")],
        Ok(unknown(Type::Number)),
    );
    call(
        "jsondecode",
        vec![with_prefix("{")],
        Ok(unknown(Type::Dynamic)),
    );
    call(
        "jsondecode",
        vec![with_prefix("x")],
        err_arg(0, "a JSON document cannot begin with the character 'x'"),
    );
}

#[test]
fn yamlencode_matches_terraform() {
    // Inputs as JSON, decoded with jsondecode (Terraform gives the same
    // output for the equivalent HCL literals).
    let cases: &[(&str, &str)] = &[
        ("\"hello\"", "\"hello\"\n"),
        ("42", "42\n...\n"),
        ("1.5", "1.5\n...\n"),
        ("-0.000001", "-0.000001\n...\n"),
        ("12345678901234567890123", "12345678901234567890123\n...\n"),
        ("true", "true\n...\n"),
        ("null", "null\n...\n"),
        ("[]", "[]\n"),
        ("{}", "{}\n"),
        ("[1,\"a\",true,null]", "- 1\n- \"a\"\n- true\n- null\n"),
        ("{\"a\":1,\"b\":\"two\"}", "\"a\": 1\n\"b\": \"two\"\n"),
        ("[[1,2],[3,[4]],[]]", "- - 1\n  - 2\n- - 3\n  - - 4\n- []\n"),
        ("[{\"a\":1,\"b\":2},{\"c\":[1,2]},{}]", "- \"a\": 1\n  \"b\": 2\n- \"c\":\n  - 1\n  - 2\n- {}\n"),
        ("{\"a\":{\"b\":{\"c\":\"d\"}},\"e\":[{\"f\":1}]}", "\"a\":\n  \"b\":\n    \"c\": \"d\"\n\"e\":\n- \"f\": 1\n"),
        ("{\"\":4,\"#x\":3,\"-\":5,\"1\":7,\"a b\":1,\"a:b\":2,\"null\":6}", "\"\": 4\n\"#x\": 3\n\"-\": 5\n\"1\": 7\n\"a b\": 1\n\"a:b\": 2\n\"null\": 6\n"),
        ("\"line1\\nline2\"", "|-\n  line1\n  line2\n"),
        ("\"line1\\nline2\\n\"", "|\n  line1\n  line2\n"),
        ("\"line1\\nline2\\n\\n\"", "|+\n  line1\n  line2\n\n"),
        ("\"\\nleading newline\"", "|2-\n\n  leading newline\n"),
        ("\"  leading spaces\\nx\"", "|2-\n    leading spaces\n  x\n"),
        ("\"trailing spaces  \\nx\"", "\"trailing spaces  \\nx\"\n"),
        ("\"tab\\there\"", "\"tab\\there\"\n"),
        ("\"a\\tb\\nc\"", "\"a\\tb\\nc\"\n"),
        ("\"crlf\\r\\nx\"", "\"crlf\\r\\nx\"\n"),
        ("\"\\n\"", "|2+\n\n"),
        ("\"\\n\\n\"", "|2+\n\n\n"),
        ("\" \"", "\" \"\n"),
        ("\"\"", "\"\"\n"),
        ("\"ünïcödé 🙂\"", "\"ünïcödé \\U0001F642\"\n"),
        ("\"control \\u0001 char\"", "\"control \\x01 char\"\n"),
        ("\"bell \\u0007\"", "\"bell \\a\"\n"),
        ("\"nbsp\u{a0}x\"", "\"nbsp\u{a0}x\"\n"),
        ("\"zero width \u{200b} x\"", "\"zero width \u{200b} x\"\n"),
        ("\"bom \u{feff} x\"", "\"bom \\uFEFF x\"\n"),
        ("\"\u{feff}bom first\"", "\"\\uFEFF\\x62\\x6F\\x6D\\x20\\x66\\x69\\x72\\x73\\x74\"\n"),
        ("\"line sep \\u2028 x\"", "\"line sep \\L x\"\n"),
        ("\"quote \\\" and backslash \\\\\"", "\"quote \\\" and backslash \\\\\"\n"),
        ("\"single ' quote\"", "\"single ' quote\"\n"),
        ("\"This is a long string with many words that should exceed the eighty character width limit of the emitter for sure yes\"", "\"This is a long string with many words that should exceed the eighty character width\n  limit of the emitter for sure yes\"\n"),
        ("\"Thisisalongstringwithoutanyspacesthatshouldexceedtheeightycharacterwidthlimitoftheemitterforsureyes\"", "\"Thisisalongstringwithoutanyspacesthatshouldexceedtheeightycharacterwidthlimitoftheemitterforsureyes\"\n"),
        ("\"long string with many words that should exceed the eighty character width limit   with   multiple   spaces   in   it   here\"", "\"long string with many words that should exceed the eighty character width limit   with\n  \\  multiple   spaces   in   it   here\"\n"),
        ("{\"key\":\"This is a long string with many words that should exceed the eighty character width limit of the emitter for sure yes\"}", "\"key\": \"This is a long string with many words that should exceed the eighty character\n  width limit of the emitter for sure yes\"\n"),
        ("[\"This is a long string with many words that should exceed the eighty character width limit of the emitter for sure yes\"]", "- \"This is a long string with many words that should exceed the eighty character width\n  limit of the emitter for sure yes\"\n"),
        ("{\"This is a very long key that is longer than one hundred and twenty eight characters in total so that it cannot be a simple key in yaml ok\":1}", "? \"This is a very long key that is longer than one hundred and twenty eight characters\n  in total so that it cannot be a simple key in yaml ok\"\n: 1\n"),
        ("{\"key\\nwith newline\":\"v\"}", "? |-\n  key\n  with newline\n: \"v\"\n"),
        ("{\"a\":\"multi\\nline\",\"b\":[\"x\\ny\"],\"c\":{\"d\":\"e\\nf\\n\"}}", "\"a\": |-\n  multi\n  line\n\"b\":\n- |-\n  x\n  y\n\"c\":\n  \"d\": |\n    e\n    f\n"),
        ("[\"multi\\nline\\n\",\"x\"]", "- |\n  multi\n  line\n- \"x\"\n"),
        ("[[\"multi\\nline\"]]", "- - |-\n    multi\n    line\n"),
        ("\"ends with space \"", "\"ends with space \"\n"),
        ("\"@at\"", "\"@at\"\n"),
        ("\"---\"", "\"---\"\n"),
        ("\"...\"", "\"...\"\n"),
        ("{\"a\":null,\"b\":[null]}", "\"a\": null\n\"b\":\n- null\n"),
        ("\"very long line in literal block that goes beyond the eighty char width limit of the emitter ok yes\\nsecond\"", "|-\n  very long line in literal block that goes beyond the eighty char width limit of the emitter ok yes\n  second\n"),
        ("\"x\u{85}y\"", "\"x\\Ny\"\n"),
        ("\"emoji 😀 in long string that is definitely longer than eighty characters in total length ok ok ok\"", "\"emoji \\U0001F600 in long string that is definitely longer than eighty characters\n  in total length ok ok ok\"\n"),
        ("\"trailing newline only at the end with very long words that need to go past eighty characters in the line\\n\"", "|\n  trailing newline only at the end with very long words that need to go past eighty characters in the line\n"),
        ("\"\\t\"", "\"\\t\"\n"),
        ("\"a\\n b\"", "|-\n  a\n   b\n"),
        ("\"a\\n\\n\\nb\"", "|-\n  a\n\n\n  b\n"),
        ("{\"a\":{\"b\":[{\"c\":[1,{\"d\":\"x\\ny\"}]}]}}", "\"a\":\n  \"b\":\n  - \"c\":\n    - 1\n    - \"d\": |-\n        x\n        y\n"),
        ("[{},[],\"\",null]", "- {}\n- []\n- \"\"\n- null\n"),
        ("{\"long key that is exactly long enough to push the value past the eighty column limit okay\":\"value with some spaces in it that will wrap\"}", "\"long key that is exactly long enough to push the value past the eighty column limit okay\": \"value\n  with some spaces in it that will wrap\"\n"),
        ("[[[[[\"deep\"]]]]]", "- - - - - \"deep\"\n"),
        ("\"a  b\"", "\"a  b\"\n"),
        ("\" leading space\"", "\" leading space\"\n"),
        ("\"x\\u0000y\"", "\"x\\0y\"\n"),
        ("\"esc \\u001b\"", "\"esc \\e\"\n"),
        ("\"ÿĀ￿\"", "\"ÿĀ\\uFFFF\"\n"),
        ("1000000000000000000000000000000", "1000000000000000000000000000000\n...\n"),
        ("-5", "-5\n...\n"),
        ("0.1", "0.1\n...\n"),
    ];
    for (json, want) in cases {
        let value = try_call("jsondecode", vec![s(json)])
            .unwrap_or_else(|e| panic!("jsondecode({json:?}): {e:?}"));
        call("yamlencode", vec![value], Ok(s(want)));
    }
    let n = |text: &str| Value::number(Number::parse(text).expect("number"));
    call(
        "yamlencode",
        vec![str_list(&["b", "a"])],
        Ok(s("- \"b\"\n- \"a\"\n")),
    );
    call(
        "yamlencode",
        vec![Value::set(Type::String, vec![s("b"), s("a")])],
        Ok(s("- \"a\"\n- \"b\"\n")),
    );
    let map = Value::map(
        Type::Number,
        [("z".to_string(), n("1")), ("a".to_string(), n("2"))]
            .into_iter()
            .collect(),
    );
    call("yamlencode", vec![map], Ok(s("\"a\": 2\n\"z\": 1\n")));
    call(
        "yamlencode",
        vec![Value::null(Type::String)],
        Ok(s("null\n...\n")),
    );
    call(
        "yamlencode",
        vec![Value::tuple(vec![unknown(Type::String)])],
        Ok(unknown(Type::String)),
    );
    call(
        "yamlencode",
        vec![sensitive(s("x"))],
        Ok(sensitive(s("\"x\"\n"))),
    );
}

#[test]
fn yamldecode_matches_terraform() {
    let cases: &[(&str, Result<&str, &str>)] = &[
        ("a: &x {b: 1}\nc:\n  <<: [*x]\n", Err("on line 2, column 3: cannot merge tuple into mapping")),
        ("a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\n", Ok("{\"a\":{\"b\":1},\"c\":{\"b\":1,\"d\":2}}")),
        ("", Err("on line 1, column 1: missing start of document")),
        ("---\na: 1\n---\nb: 2\n", Err("on line 2, column 1: unexpected extra content after value")),
        ("a: !!int x", Err("cannot parse \"x\" as tag:yaml.org,2002:int")),
        ("a: 1\nb: !!int x", Err("on line 1, column 4: cannot parse \"x\" as tag:yaml.org,2002:int")),
        ("a: 1\nb: !!bool x", Err("on line 1, column 4: cannot parse \"x\" as tag:yaml.org,2002:bool")),
        ("a: 1\nb: !foo x", Err("on line 1, column 4: unsupported tag \"!foo\"")),
        ("a: 1\nb: !!binary x", Err("on line 1, column 4: cannot parse \"x\" as tag:yaml.org,2002:binary: not valid base64")),
        ("[2001-12-14, 2001-12-14t21:59:43.10-05:00, 2001-12-14 21:59:43.10, 2001-12-14T21:59:43Z, '2001-12-14', !!timestamp 2001-12-14]", Ok("[\"2001-12-14T00:00:00Z\",\"2001-12-14T21:59:43-05:00\",\"2001-12-14T21:59:43Z\",\"2001-12-14T21:59:43Z\",\"2001-12-14\",\"2001-12-14T00:00:00Z\"]")),
        ("a: .nan", Err("floating point NaN is not supported")),
        ("a: *b", Err("reference to undefined anchor \"b\"")),
        ("a: &b [*b]", Err("cannot refer to anchor \"b\" from inside its own definition")),
        ("{a: 1, a: 2}", Ok("{\"a\":2}")),
        ("[1, 2]\n[3]", Err("on line 1, column 1: did not find expected <document start>")),
        ("a: b: c", Err("mapping values are not allowed in this context")),
        ("a:\n\t- b", Err("on line 2, column 1: found character that cannot start any token")),
        ("\"unterminated", Err("found unexpected end of stream")),
        ("a: 1\n  b: 2", Err("on line 2, column 1: mapping values are not allowed in this context")),
        ("- 1\n- 2\nc: 3", Err("on line 2, column 1: did not find expected '-' indicator")),
        ("? [1]\n: 2", Err("only strings are allowed as mapping keys")),
        ("1: 2\n3.5: x\ntrue: y\n~: z", Err("on line 3, column 1: mapping key cannot be null")),
        ("null: z", Err("mapping key cannot be null")),
        ("!!str 123", Ok("\"123\"")),
        ("!!float 1", Ok("1")),
        ("key: |\n  line1\n  line2\n", Ok("{\"key\":\"line1\\nline2\\n\"}")),
        ("\u{1}", Err("control characters are not allowed")),
        ("a: [1, {b: 2}]\nc: !!map {}\n", Ok("{\"a\":[1,{\"b\":2}],\"c\":{}}")),
        ("- !!seq []\n- !!str [] \n", Err("on line 1, column 3: can't interpret sequence as tag:yaml.org,2002:str")),
        ("a: !!null x", Ok("{\"a\":null}")),
        ("a: 'x'\nb: \"y\"\nc: '1'", Ok("{\"a\":\"x\",\"b\":\"y\",\"c\":\"1\"}")),
        ("%YAML 1.1\n---\na: 1", Ok("{\"a\":1}")),
        ("...", Err("did not find expected node content")),
        ("a: 1\n...\n", Ok("{\"a\":1}")),
        ("&a [1, *a]", Err("cannot refer to anchor \"a\" from inside its own definition")),
        ("[*a]", Err("reference to undefined anchor \"a\"")),
        ("<<: {a: 1}\nb: 2", Ok("{\"a\":1,\"b\":2}")),
        ("<<: 5", Err("cannot merge number into mapping")),
        ("<<: [5]", Err("cannot merge tuple into mapping")),
        ("a: !!merge 5", Err("unsupported tag \"tag:yaml.org,2002:merge\"")),
        ("0x8000000000000000", Ok("9223372036854775808")),
        ("0xFFFFFFFFFFFFFFFF", Ok("18446744073709551615")),
        ("0x10000000000000000", Err("cannot parse \"0x10000000000000000\" as tag:yaml.org,2002:int")),
        ("-0x1F", Ok("\"-0x1F\"")),
        ("!!int 1_000", Ok("1000")),
        ("!!int 0b101", Ok("5")),
        ("!!float 1_000.5", Ok("1000.5")),
        ("00", Ok("0")),
        ("1.", Ok("1")),
        ("a: <<", Ok("{\"a\":\"\\u003c\\u003c\"}")),
        ("'<<': {x: 1}", Ok("{\"x\":1}")),
        ("a: &v 1\nb: *v\nc: [*v, *v]", Ok("{\"a\":1,\"b\":1,\"c\":[1,1]}")),
        ("a: >\n  folded\n  text\nb: |+\n  keep\n\n", Ok("{\"a\":\"folded text\\n\",\"b\":\"keep\\n\\n\"}")),
        ("{\"a\": \"x\\ty\\u00e9\"}", Ok("{\"a\":\"x\\tyé\"}")),
        ("a:\n  - b: 1\n    c: 2\n  - d\n", Ok("{\"a\":[{\"b\":1,\"c\":2},\"d\"]}")),
        ("!!binary aGVsbG8=", Ok("\"aGVsbG8=\"")),
        ("hello world", Ok("\"hello world\"")),
        ("a: 'it''s'", Ok("{\"a\":\"it's\"}")),
        ("- [a, b]\n- {c: d}\n-\n- ''\n", Ok("[[\"a\",\"b\"],{\"c\":\"d\"},null,\"\"]")),
        ("2001-13-14", Ok("\"2001-13-14\"")),
        ("2001-1-2", Ok("\"2001-01-02T00:00:00Z\"")),
        ("2001-02-29", Ok("\"2001-02-29\"")),
        ("2001-12-14T21:59:43+05:30", Ok("\"2001-12-14T21:59:43+05:30\"")),
        ("a: !!str", Ok("{\"a\":\"\"}")),
        ("a: @b", Err("found character that cannot start any token")),
        ("key: value\nkey2", Err("on line 3, column 1: could not find expected ':'")),
        ("[1, 2", Err("on line 1, column 1: did not find expected ',' or ']'")),
    ];
    for (source, want) in cases {
        match want {
            Ok(json) => {
                let value = try_call("yamldecode", vec![s(source)])
                    .unwrap_or_else(|e| panic!("yamldecode({source:?}): {e:?}"));
                assert_eq!(json_of(value), *json, "yamldecode({source:?})");
            }
            Err(message) => call("yamldecode", vec![s(source)], err_call(message)),
        }
    }
    let value = try_call("yamldecode", vec![s("[.inf, -.Inf, +.INF]")]).expect("yamldecode");
    let texts: Vec<String> = value
        .as_elements()
        .unwrap_or(&[])
        .iter()
        .filter_map(|v| v.as_number().map(|n| n.to_string()))
        .collect();
    assert_eq!(texts, vec!["+Inf", "-Inf", "+Inf"]);
    call(
        "yamldecode",
        vec![unknown(Type::String)],
        Ok(unknown(Type::Dynamic)),
    );
    // libyaml_safer panics here; Terraform says `unsupported tag "!a,b]"`.
    call(
        "yamldecode",
        vec![s("[!a,b]")],
        err_call("did not find expected whitespace or line break"),
    );
}
