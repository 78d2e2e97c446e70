//! Expectations checked against `terraform console` (1.11.4), run in a
//! directory laid out like the one `Fixture` makes.

use super::super::testing::{call_in, err_at, sensitive};
use super::super::CallContext;
use super::{go_clean, go_rel};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use terrace_value::{Marks, Type, Value};

/// A temporary module directory:
/// `hello.txt` ("hello\n"), `bin.dat` (not UTF-8), `empty.txt`,
/// `link.txt` -> `hello.txt`, `sub/{a.txt,b.txt,.hidden}`,
/// `sub/deep/c.txt`, `sock` (a unix socket).
struct Fixture {
    dir: PathBuf,
    _socket: std::os::unix::net::UnixListener,
}

impl Fixture {
    fn new() -> Fixture {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "terrace-fs-test-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub/deep")).expect("create fixture");
        let write = |name: &str, contents: &[u8]| {
            std::fs::write(dir.join(name), contents).expect("write fixture")
        };
        write("hello.txt", b"hello\n");
        write("bin.dat", &[0xff, 0xfe]);
        write("empty.txt", b"");
        write("sub/a.txt", b"a");
        write("sub/b.txt", b"b");
        write("sub/.hidden", b"h");
        write("sub/deep/c.txt", b"c");
        std::os::unix::fs::symlink("hello.txt", dir.join("link.txt")).expect("symlink");
        let socket = std::os::unix::net::UnixListener::bind(dir.join("sock")).expect("socket");
        Fixture {
            dir,
            _socket: socket,
        }
    }

    fn base(&self) -> String {
        self.dir.to_string_lossy().into_owned()
    }

    fn path(&self, rel: &str) -> String {
        format!("{}/{rel}", self.base())
    }

    fn context(&self) -> CallContext<'static> {
        CallContext {
            base_dir: self.dir.clone(),
            ..CallContext::default()
        }
    }

    #[track_caller]
    fn expect(&self, name: &str, args: Vec<Value>, want: Value) {
        call_in(&self.context(), name, args, Ok(want))
    }

    #[track_caller]
    fn expect_error(&self, name: &str, args: Vec<Value>, argument: Option<usize>, message: &str) {
        call_in(&self.context(), name, args, err_at(argument, message))
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn s(text: &str) -> Value {
    Value::string(text)
}

fn not_found(path: &str) -> String {
    format!(
        "no file exists at {path}; this function works only with files that are distributed as part of the \
         configuration source code, so if this file will be created by a resource in this configuration you must \
         instead obtain this result from an attribute of that resource"
    )
}

#[test]
fn file_matches_terraform() {
    let f = Fixture::new();
    f.expect("file", vec![s("hello.txt")], s("hello\n"));
    f.expect("file", vec![s("./hello.txt")], s("hello\n"));
    f.expect("file", vec![s("link.txt")], s("hello\n"));
    f.expect("file", vec![s(&f.path("sub/a.txt"))], s("a"));
    f.expect(
        "file",
        vec![sensitive(s("hello.txt"))],
        sensitive(s("hello\n")),
    );
    f.expect_error(
        "file",
        vec![s("nope.txt")],
        Some(0),
        &not_found("\"nope.txt\""),
    );
    f.expect_error(
        "file",
        vec![sensitive(s("nope.txt"))],
        Some(0),
        &not_found("(sensitive value)"),
    );
    f.expect_error(
        "file",
        vec![s("bin.dat")],
        None,
        "contents of \"bin.dat\" are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded \
         contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead",
    );
    f.expect_error(
        "file",
        vec![s("sub")],
        Some(0),
        &format!(
            "failed to read file: read {}: is a directory",
            f.path("sub")
        ),
    );
    f.expect_error(
        "file",
        vec![s("")],
        Some(0),
        &format!("failed to read file: read {}: is a directory", f.base()),
    );
    f.expect_error(
        "file",
        vec![s("~nobody/x")],
        Some(0),
        "failed to expand ~: cannot expand user-specific home dir",
    );
}

#[test]
fn filebase64_matches_terraform() {
    let f = Fixture::new();
    f.expect("filebase64", vec![s("bin.dat")], s("//4="));
    f.expect("filebase64", vec![s("empty.txt")], s(""));
    f.expect("filebase64", vec![s("hello.txt")], s("aGVsbG8K"));
    f.expect(
        "filebase64",
        vec![sensitive(s("bin.dat"))],
        sensitive(s("//4=")),
    );
    f.expect_error(
        "filebase64",
        vec![s("nope.txt")],
        Some(0),
        &not_found("\"nope.txt\""),
    );
}

#[test]
fn fileexists_matches_terraform() {
    let f = Fixture::new();
    f.expect("fileexists", vec![s("hello.txt")], Value::bool(true));
    f.expect("fileexists", vec![s("link.txt")], Value::bool(true));
    f.expect("fileexists", vec![s("nope.txt")], Value::bool(false));
    f.expect("fileexists", vec![s("nope/x")], Value::bool(false));
    f.expect(
        "fileexists",
        vec![sensitive(s("hello.txt"))],
        Value::bool(true).mark(Marks::SENSITIVE),
    );
    f.expect_error(
        "fileexists",
        vec![s("sub")],
        None,
        &format!("\"{}\" is a directory, not a file", f.path("sub")),
    );
    f.expect_error(
        "fileexists",
        vec![s("sock")],
        None,
        &format!(
            "\"{}\" is a unix domain socket, not a regular file",
            f.path("sock")
        ),
    );
    f.expect_error(
        "fileexists",
        vec![s("hello.txt/x")],
        None,
        &format!("failed to stat \"{}\"", f.path("hello.txt/x")),
    );
    f.expect_error(
        "fileexists",
        vec![sensitive(s("sub"))],
        None,
        "(sensitive value) is a directory, not a file",
    );
}

fn set(items: &[&str]) -> Value {
    Value::set(Type::String, items.iter().map(|i| s(i)).collect())
}

#[test]
fn fileset_matches_terraform() {
    let f = Fixture::new();
    let cases: &[(&str, &str, &[&str])] = &[
        (".", "*.txt", &["empty.txt", "hello.txt", "link.txt"]),
        (
            ".",
            "**",
            &[
                "bin.dat",
                "empty.txt",
                "hello.txt",
                "link.txt",
                "sub/.hidden",
                "sub/a.txt",
                "sub/b.txt",
                "sub/deep/c.txt",
            ],
        ),
        ("sub", "**/*.txt", &["a.txt", "b.txt", "deep/c.txt"]),
        (".", "sub/*", &["sub/.hidden", "sub/a.txt", "sub/b.txt"]),
        (".", "{hello,empty}.txt", &["empty.txt", "hello.txt"]),
        (".", "[a-h]*.txt", &["empty.txt", "hello.txt"]),
        (
            ".",
            "sub/**",
            &["sub/.hidden", "sub/a.txt", "sub/b.txt", "sub/deep/c.txt"],
        ),
        ("nope", "*", &[]),
        (".", "sub/deep/../*.txt", &["sub/a.txt", "sub/b.txt"]),
        (".", "sub", &[]),
        (".", "sub/*/", &["sub/.hidden", "sub/a.txt", "sub/b.txt"]),
        (".", "?ello.txt", &["hello.txt"]),
        (".", "\\*", &[]),
        (".", "hello.txt", &["hello.txt"]),
        (".", "**/c.txt", &["sub/deep/c.txt"]),
        (
            ".",
            "sub/**/*.txt",
            &["sub/a.txt", "sub/b.txt", "sub/deep/c.txt"],
        ),
        (".", "**/deep/*", &["sub/deep/c.txt"]),
        (".", "s*/d*/c.txt", &["sub/deep/c.txt"]),
        (".", "", &[]),
        ("sub", ".", &[]),
        (".", "sub/{a,b}.txt", &["sub/a.txt", "sub/b.txt"]),
        (".", "{sub}/a.txt", &["sub/a.txt"]),
        (".", "x{a/b,c}", &[]),
        (".", "*{a/b,c}", &[]),
        ("nope", "[", &[]),
        (".", "zz[", &[]),
        ("sub/deep", "../*.txt", &["../a.txt", "../b.txt"]),
    ];
    for (path, pattern, want) in cases {
        f.expect("fileset", vec![s(path), s(pattern)], set(want));
    }
    f.expect("fileset", vec![s(&f.base()), s("*.dat")], set(&["bin.dat"]));
    f.expect(
        "fileset",
        vec![sensitive(s(".")), s("*.dat")],
        set(&["bin.dat"]).mark(Marks::SENSITIVE),
    );
    f.expect_error(
        "fileset",
        vec![s("."), s("[")],
        None,
        &format!(
            "failed to glob pattern \"{}\": syntax error in pattern",
            f.path("[")
        ),
    );
    f.expect_error(
        "fileset",
        vec![s("."), sensitive(s("{"))],
        None,
        "failed to glob pattern (sensitive value): syntax error in pattern",
    );
    for pattern in ["{sub/a.txt,hello.txt}", "{a/b,c}", "{sub/a.txt}"] {
        f.expect_error(
            "fileset",
            vec![s("."), s(pattern)],
            None,
            &format!(
                "failed to glob pattern \"{}\": syntax error in pattern",
                f.path(pattern)
            ),
        );
    }
}

fn empty_digest(name: &str) -> &'static str {
    match name {
        "filemd5" => "d41d8cd98f00b204e9800998ecf8427e",
        "filesha1" => "da39a3ee5e6b4b0d3255bfef95601890afd80709",
        "filesha256" => "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "filesha512" => "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
        "filebase64sha256" => "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
        "filebase64sha512" => "z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
        _ => "",
    }
}

#[test]
fn file_hashes_match_terraform() {
    let f = Fixture::new();
    let cases: &[(&str, &str)] = &[
        ("filemd5", "b1946ac92492d2347c6235b4d2611184"),
        ("filesha1", "f572d396fae9206628714fb2ce00f72e94f2258f"),
        ("filesha256", "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"),
        (
            "filesha512",
            "e7c22b994c59d9cf2b48e549b1e24666636045930d3da7c1acb299d1c3b7f931f94aae41edda2c2b207a36e10f8bcb8d45223e54878f5b316e7ce3b6bc019629",
        ),
        ("filebase64sha256", "WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM="),
        (
            "filebase64sha512",
            "58IrmUxZ2c8rSOVJseJGZmNgRZMNPafBrLKZ0cO3+TH5Sq5B7dosKyB6NuEPi8uNRSI+VIePWzFufOO2vAGWKQ==",
        ),
    ];
    for (name, want) in cases {
        f.expect(name, vec![s("hello.txt")], s(want));
        f.expect(name, vec![s("empty.txt")], s(empty_digest(name)));
        f.expect_error(
            name,
            vec![s("nope.txt")],
            None,
            &format!("open {}: no such file or directory", f.path("nope.txt")),
        );
        f.expect_error(
            name,
            vec![s("sub")],
            None,
            &format!("read {}: is a directory", f.path("sub")),
        );
    }
    f.expect(
        "filemd5",
        vec![s("bin.dat")],
        s("f3b25701fe362ec84616a93a45ce9998"),
    );
    f.expect_error(
        "filesha1",
        vec![s("hello.txt/x")],
        None,
        &format!("open {}: not a directory", f.path("hello.txt/x")),
    );
}

#[test]
fn abspath_matches_terraform() {
    let f = Fixture::new();
    let cwd = std::env::current_dir()
        .expect("cwd")
        .to_string_lossy()
        .into_owned();
    f.expect("abspath", vec![s("/etc/../x")], s("/x"));
    f.expect("abspath", vec![s("")], s(&cwd));
    f.expect(
        "abspath",
        vec![s("hello.txt")],
        s(&format!("{cwd}/hello.txt")),
    );
    f.expect("abspath", vec![s("a//b/./c/")], s(&format!("{cwd}/a/b/c")));
}

#[test]
fn basename_and_dirname_match_terraform() {
    let f = Fixture::new();
    for (path, base) in [
        ("/a/b/c.txt", "c.txt"),
        ("", "."),
        ("/", "/"),
        ("a/b/", "b"),
        ("//", "/"),
        ("c", "c"),
    ] {
        f.expect("basename", vec![s(path)], s(base));
    }
    for (path, dir) in [
        ("/a/b/c.txt", "/a/b"),
        ("", "."),
        ("c.txt", "."),
        ("/", "/"),
        ("a/b/", "a/b"),
        ("a//b//c", "a/b"),
        ("../x", ".."),
    ] {
        f.expect("dirname", vec![s(path)], s(dir));
    }
}

#[test]
fn pathexpand_matches_terraform() {
    let f = Fixture::new();
    let home = std::env::var("HOME").unwrap_or_default();
    if home.is_empty() {
        f.expect_error(
            "pathexpand",
            vec![s("~")],
            None,
            "blank output when reading home directory",
        );
        return;
    }
    let home = go_clean(&home);
    f.expect("pathexpand", vec![s("~/x")], s(&format!("{home}/x")));
    f.expect("pathexpand", vec![s("~")], s(&home));
    f.expect("pathexpand", vec![s("~/a/../b")], s(&format!("{home}/b")));
    f.expect("pathexpand", vec![s("/~/x")], s("/~/x"));
    f.expect("pathexpand", vec![s("")], s(""));
    f.expect_error(
        "pathexpand",
        vec![s("~foo/x")],
        None,
        "cannot expand user-specific home dir",
    );
}

#[test]
fn go_path_helpers() {
    for (path, clean) in [
        ("", "."),
        ("a/../..", ".."),
        ("/../a", "/a"),
        ("a//b/./c/", "a/b/c"),
        ("./", "."),
    ] {
        assert_eq!(go_clean(path), clean, "Clean({path:?})");
    }
    let rel: &[(&str, &str, Result<&str, ()>)] = &[
        (".", "../work/hello.txt", Ok("../work/hello.txt")),
        ("/a/b", "/a/b/c/d", Ok("c/d")),
        ("/a/b", "/a/x", Ok("../x")),
        ("/a/b/c", "/a", Ok("../..")),
        ("a", "a", Ok(".")),
        ("/a", "b", Err(())),
        ("..", "a", Err(())),
    ];
    for (base, target, want) in rel {
        assert_eq!(
            go_rel(base, target).as_deref().map_err(|_| ()),
            *want,
            "Rel({base:?}, {target:?})"
        );
    }
}
