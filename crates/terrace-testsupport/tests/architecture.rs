//! docs/ARCHITECTURE.md's table of dependency edges is the workspace's
//! manifests: every crate listed with exactly the workspace crates its
//! `[dependencies]` name, and no cycle among them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A manifest's `name` and the workspace crates (`terrace-*`) its
/// `[dependencies]` section names.
fn manifest_edges(manifest: &str) -> (String, BTreeSet<String>) {
    let mut name = String::new();
    let mut deps = BTreeSet::new();
    let mut section = String::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        if section == "[package]" && name.is_empty() {
            if let Some(value) = line.strip_prefix("name = ") {
                name = value.trim_matches('"').to_string();
            }
        }
        if section == "[dependencies]" && line.starts_with("terrace-") {
            let dep: String = line
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            deps.insert(dep);
        }
    }
    (name, deps)
}

fn manifests() -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for group in ["crates", "providers"] {
        let dir = workspace_root().join(group);
        let entries =
            std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
        for entry in entries.flatten() {
            let manifest = entry.path().join("Cargo.toml");
            let Ok(text) = std::fs::read_to_string(&manifest) else {
                continue;
            };
            let (name, deps) = manifest_edges(&text);
            assert!(
                !name.is_empty(),
                "no package name in {}",
                manifest.display()
            );
            out.insert(name, deps);
        }
    }
    out
}

/// The rows of the "Dependency edges" table.
fn documented() -> BTreeMap<String, BTreeSet<String>> {
    let path = workspace_root().join("docs/ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let start = text
        .find("## Dependency edges")
        .expect("docs/ARCHITECTURE.md has a \"Dependency edges\" section");
    let mut out = BTreeMap::new();
    for line in text[start..].lines().skip(1) {
        if line.starts_with("## ") {
            break;
        }
        let Some(row) = line.strip_prefix("| ") else {
            continue;
        };
        let cells: Vec<&str> = row.trim_end_matches('|').split(" | ").collect();
        if cells.len() != 2 || cells[0] == "crate" || cells[0].starts_with("---") {
            continue;
        }
        let deps = cells[1]
            .split(',')
            .map(str::trim)
            .filter(|d| d.starts_with("terrace-"))
            .map(str::to_string)
            .collect();
        out.insert(cells[0].trim().to_string(), deps);
    }
    out
}

#[test]
fn the_documented_edges_are_the_manifests() {
    assert_eq!(documented(), manifests());
}

#[test]
fn the_crate_graph_has_no_cycle() {
    let graph = manifests();
    // Kahn's algorithm: a crate is placed once everything it depends on is.
    let mut placed: BTreeSet<&str> = BTreeSet::new();
    loop {
        let ready: Vec<&str> = graph
            .iter()
            .filter(|(name, deps)| {
                !placed.contains(name.as_str()) && deps.iter().all(|d| placed.contains(d.as_str()))
            })
            .map(|(name, _)| name.as_str())
            .collect();
        if ready.is_empty() {
            break;
        }
        placed.extend(ready);
    }
    let stuck: Vec<&String> = graph
        .keys()
        .filter(|name| !placed.contains(name.as_str()))
        .collect();
    assert!(stuck.is_empty(), "crates in a dependency cycle: {stuck:?}");
}

#[test]
fn edges_are_read_from_the_dependencies_section_only() {
    let (name, deps) = manifest_edges(
        "[package]\nname = \"terrace-x\"\n\n[dependencies]\nterrace-a.workspace = true\nterrace-b = { workspace = true, features = [\"c\"] }\nserde.workspace = true\n\n[dev-dependencies]\nterrace-testsupport.workspace = true\n",
    );
    assert_eq!(name, "terrace-x");
    assert_eq!(
        deps,
        ["terrace-a", "terrace-b"]
            .into_iter()
            .map(String::from)
            .collect()
    );
}
