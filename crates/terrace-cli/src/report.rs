//! The HTML report (`show -html`, `plan -html=FILE`, `graph -html`):
//! gathers what terrace-report draws (the configuration's dependency
//! edges, the run's diagnostics and their sources) and hands it over.

use std::collections::BTreeSet;
use std::path::Path;
use terrace_addrs::ConfigResource;
use terrace_config::loader::Config;
use terrace_plans::{Plan, SchemaLookup};
use terrace_syntax::render::SourceMap;
use terrace_syntax::Diagnostic;

/// The configuration's resources and what each depends on, as `terrace
/// graph` finds them; empty when the providers cannot be located (the
/// report then draws its graph without edges rather than failing).
pub fn dependencies(
    dir: &Path,
    config: &Config,
) -> Vec<(ConfigResource, BTreeSet<ConfigResource>)> {
    crate::commands::validate::static_context(dir, config)
        .and_then(|ctx| terrace_engine::resource_graph(&ctx))
        .unwrap_or_default()
}

/// The report of `plan`.
pub fn plan_html(
    title: &str,
    plan: &Plan,
    schemas: &dyn SchemaLookup,
    dependencies: &[(ConfigResource, BTreeSet<ConfigResource>)],
    diagnostics: &[Diagnostic],
    sources: &SourceMap,
) -> String {
    terrace_report::render_html(&terrace_report::ReportInput {
        title,
        plan: Some(plan),
        schemas,
        dependencies,
        diagnostics,
        sources,
    })
}

/// The report of a configuration: its resources and their dependencies.
pub fn config_html(
    title: &str,
    dependencies: &[(ConfigResource, BTreeSet<ConfigResource>)],
    diagnostics: &[Diagnostic],
    sources: &SourceMap,
) -> String {
    let no_schemas = |_: &terrace_addrs::Provider, _, _: &str| None;
    terrace_report::render_html(&terrace_report::ReportInput {
        title,
        plan: None,
        schemas: &no_schemas,
        dependencies,
        diagnostics,
        sources,
    })
}

/// Writes a report to `path`; the diagnostic saying why not on failure.
pub fn write(path: &Path, html: &str) -> Option<Diagnostic> {
    std::fs::write(path, html).err().map(|e| {
        Diagnostic::error(
            "Failed to write the HTML report",
            format!(
                "Could not write {}: {}",
                path.display(),
                terrace_gocompat::oserror::errno_text(&e)
            ),
        )
    })
}
