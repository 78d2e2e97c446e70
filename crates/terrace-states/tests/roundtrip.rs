//! State files must come back byte-for-byte from `write(read(file))`:
//! those in `fixtures/` were written by Terraform 1.11.4 (terraform_data
//! with count and for_each, a module, outputs incl. sensitive ones, a
//! tainted instance, a deposed object, check results, a destroyed state);
//! those in `fixtures/handwritten/` cover what Terraform does not write by
//! itself (provider instance keys, flatmap attributes, private data,
//! sensitive index paths, failure messages).

use std::path::Path;

fn fixtures(sub: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(sub);
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("fixtures directory") {
        let path = entry.expect("fixture entry").path();
        if path.extension().is_some_and(|e| e == "tfstate") {
            let bytes = std::fs::read(&path).expect("fixture readable");
            out.push((path.display().to_string(), bytes));
        }
    }
    out.sort();
    assert!(out.len() >= 2, "fixtures missing in {sub}");
    out
}

#[test]
fn terraform_files_round_trip_byte_for_byte() {
    round_trip("tests/fixtures");
}

#[test]
fn handwritten_files_round_trip_byte_for_byte() {
    round_trip("tests/fixtures/handwritten");
}

fn round_trip(sub: &str) {
    for (name, bytes) in fixtures(sub) {
        let (state, warnings) = match terrace_states::statefile::read(&bytes) {
            Ok(r) => r,
            Err(d) => panic!("{name}: {d:?}"),
        };
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        let written = terrace_states::statefile::write(&state);
        if written != bytes {
            let w = String::from_utf8_lossy(&written);
            let b = String::from_utf8_lossy(&bytes);
            for (i, (x, y)) in w.lines().zip(b.lines()).enumerate() {
                assert_eq!(x, y, "{name}: first difference at line {}", i + 1);
            }
            assert_eq!(w.len(), b.len(), "{name}: length differs");
        }
        assert!(written == bytes, "{name}: output differs");
        // And the state read back is the same state.
        let (again, _) = terrace_states::statefile::read(&written).expect("reads back");
        assert!(state.deep_eq_ignoring_serial(&again), "{name}");
        assert_eq!(state.serial, again.serial);
    }
}
