//! `terrace graph`: the resources of the configuration and what each one
//! depends on, as the DOT document terraform 1.11's `terraform graph`
//! prints by default (resources only, dependencies through locals,
//! variables, outputs and module calls followed to the resources behind
//! them; one cluster per module). With `-html`, the same graph as a
//! self-contained HTML page with the graph drawn as SVG.

use crate::commands::providers::{load, print_diagnostics, source_map};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use terrace_addrs::ConfigResource;

const USAGE: &str = "Usage: terrace [global options] graph [options]

  Produces a representation of the dependency graph between different
  objects in the current configuration, in the DOT format.

Options:

  -html       Output a self-contained HTML page with the graph drawn,
              instead of DOT.
";

pub fn run(dir: &Path, argv: &[String]) -> i32 {
    let mut color = std::env::var_os("NO_COLOR").is_none();
    let mut html = false;
    for arg in crate::args::parse(argv) {
        match arg {
            crate::args::Arg::Flag { name, value } => match (name.as_str(), value) {
                ("no-color", None) => color = false,
                ("html", None) => html = true,
                ("help" | "h", _) => {
                    eprint!("{USAGE}");
                    return 0;
                }
                (other, _) => {
                    eprintln!("flag provided but not defined: -{other}\n{USAGE}");
                    return 1;
                }
            },
            crate::args::Arg::Positional(p) => {
                eprintln!("Too many command line arguments: {p}\n{USAGE}");
                return 1;
            }
        }
    }
    let Some((config, warnings)) = load(dir, color) else {
        return 1;
    };
    let sources = source_map(&config);
    let graph = crate::commands::validate::static_context(dir, &config)
        .and_then(|ctx| terrace_engine::resource_graph(&ctx));
    match graph {
        Ok(graph) if html => {
            let title = dir
                .canonicalize()
                .ok()
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "configuration".to_string());
            crate::write_stdout(&crate::report::config_html(
                &title, &graph, &warnings, &sources,
            ));
            0
        }
        Ok(graph) => {
            out!("{}", render_dot(&graph));
            0
        }
        Err(diags) => {
            print_diagnostics(&diags, &sources, color);
            1
        }
    }
}

/// The DOT text: root resources as nodes, each module's resources in a
/// cluster labelled with the module path, then every edge from a resource
/// to what it depends on.
fn render_dot(graph: &[(ConfigResource, std::collections::BTreeSet<ConfigResource>)]) -> String {
    let mut out = String::from(
        "digraph G {\n  rankdir = \"RL\";\n  node [shape = rect, fontname = \"sans-serif\"];\n",
    );
    let mut modules: BTreeMap<String, Vec<&ConfigResource>> = BTreeMap::new();
    for (resource, _) in graph {
        if resource.module.is_root() {
            let name = resource.to_string();
            let _ = writeln!(out, "  {name:?} [label={name:?}];");
        } else {
            modules
                .entry(resource.module.to_string())
                .or_default()
                .push(resource);
        }
    }
    for (module, resources) in &modules {
        let _ = writeln!(out, "  subgraph \"cluster_{module}\" {{");
        let _ = writeln!(out, "    label = {module:?}");
        let _ = writeln!(out, "    fontname = \"sans-serif\"");
        for resource in resources {
            let _ = writeln!(
                out,
                "    {:?} [label={:?}];",
                resource.to_string(),
                resource.resource.to_string()
            );
        }
        out.push_str("  }\n");
    }
    for (resource, deps) in graph {
        for dep in deps {
            let _ = writeln!(
                out,
                "  {:?} -> {:?};",
                resource.to_string(),
                dep.to_string()
            );
        }
    }
    out.push_str("}\n");
    out
}
