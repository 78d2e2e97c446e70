//! Property test: the state file reader never panics, whatever the bytes,
//! and a state it accepts can always be written back. Inputs are mutations
//! of the state files terraform wrote (and hand-written edge cases) in
//! `tests/fixtures`. `TERRACE_FUZZ_CASES` sets the number of inputs.

use std::path::Path;
use terrace_states::statefile;
use terrace_testsupport::fuzz::never_panics;

fn fixture_files(dir: &Path, out: &mut Vec<Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!("no fixtures at {}", dir.display());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            fixture_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "tfstate") {
            out.push(std::fs::read(&path).expect("a readable fixture"));
        }
    }
}

/// Checks one input, and returns whether the reader accepted it.
fn read_and_write_back(input: &[u8]) -> bool {
    match statefile::read(input) {
        Ok((state, _)) => {
            let written = statefile::write(&state);
            // What terrace writes, it reads.
            assert!(
                statefile::read(&written).is_ok(),
                "a state written back does not read: {}",
                String::from_utf8_lossy(&written)
            );
            true
        }
        Err(_) => false,
    }
}

#[test]
fn the_state_file_reader_never_panics() {
    let mut seeds = Vec::new();
    fixture_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &mut seeds,
    );
    assert!(seeds.len() >= 4, "only {} fixtures", seeds.len());
    for seed in &seeds {
        assert!(read_and_write_back(seed), "a fixture does not read");
    }
    let dictionary: &[&[u8]] = &[
        b"\"version\": 4,",
        b"\"version\": 3,",
        b"\"version\": 18446744073709551616,",
        b"\"serial\": -1,",
        b"\"lineage\": \"\",",
        b"\"outputs\": {\"o\": {\"value\": 1, \"type\": \"number\", \"sensitive\": true}},",
        b"\"resources\": [",
        b"{\"mode\": \"managed\", \"type\": \"t\", \"name\": \"n\", \"provider\": \"provider[\\\"registry.terraform.io/hashicorp/null\\\"]\", \"instances\": []}",
        b"\"instances\": [{\"attributes\": {}}]",
        b"\"index_key\": 1.5,",
        b"\"index_key\": \"k\",",
        b"\"index_key\": null,",
        b"\"mode\": \"data\",",
        b"\"mode\": \"ephemeral\",",
        b"\"module\": \"module.a[0]\",",
        b"\"module\": \"module.\",",
        b"\"each\": \"list\",",
        b"\"deposed\": \"00000001\",",
        b"\"status\": \"tainted\",",
        b"\"schema_version\": 18446744073709551615,",
        b"\"attributes_flat\": {\"a.#\": \"1\", \"a.0\": \"x\"},",
        b"\"sensitive_attributes\": [[{\"type\": \"get_attr\", \"value\": \"x\"}, {\"type\": \"index\", \"value\": {\"value\": 0, \"type\": \"number\"}}]],",
        b"\"private\": \"bm90IGJhc2U2NA==\",",
        b"\"private\": \"!!\",",
        b"\"dependencies\": [\"null_resource.a\", \"bad address\"],",
        b"\"create_before_destroy\": true,",
        b"\"check_results\": [{\"object_kind\": \"resource\", \"config_addr\": \"x.y\", \"status\": \"pass\", \"objects\": null}],",
        b"\"provider\": \"provider[\\\"registry.terraform.io/hashicorp/null\\\"][\\\"k\\\"]\",",
        b"\"provider\": \"module.m.provider[\\\"example.com/a/b\\\"].x\",",
        b"\"type\": [\"object\", {\"a\": [\"list\", \"string\"]}]",
        b"\"type\": [\"tuple\", [\"number\", \"dynamic\"]]",
        b"\"type\": [\"map\"",
        b"\"value\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        b"\"\\ud83d\\ude00\"",
        b"\"\\ud800\"",
        b"1e400",
        b"-0",
        b"null",
    ];
    let accepted = std::cell::Cell::new(0usize);
    let ran = never_panics("statefile", &seeds, dictionary, 150_000, |input| {
        if read_and_write_back(input) {
            accepted.set(accepted.get() + 1);
        }
    });
    let _ = std::io::Write::write_fmt(
        &mut std::io::stderr(),
        format_args!(
            "state file reader: {ran} inputs, {} read as states\n",
            accepted.get()
        ),
    );
}
