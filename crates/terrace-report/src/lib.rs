//! terrace-report: a plan (or a configuration's resources) as one
//! self-contained HTML page for reviewers.
//!
//! The page needs nothing but itself: styles and the small script are
//! inline, the dependency graph is inline SVG laid out here (`layout`),
//! and a Content-Security-Policy forbids the page any request. Everything
//! that matters reads without JavaScript (summary, groups, every change as
//! a `<details>` element, graph nodes as links to their change); the
//! script only adds filtering, expand/collapse and keyboard shortcuts.
//!
//! Each change's diff is the human plan renderer's own text for it
//! (`terrace_plans::render_plan_items`), so the semantics are those of
//! `terrace plan`: sensitive values show as `(sensitive value)`, unknowns
//! as `(known after apply)`, `# forces replacement` where a path requires
//! it. Every piece of text written into the page goes through [`escape`].

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod layout;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use terrace_addrs::{AbsProviderInstance, ConfigResource, ModuleInstance};
use terrace_plans::{
    Action, ActionReason, CheckStatus, Plan, ResourceInstanceChange, SchemaLookup,
};
use terrace_providers::{AttributePath, PathStep};
use terrace_syntax::render::{render_diagnostic, RenderStyle, SourceMap};
use terrace_syntax::{Diagnostic, Severity, PRODUCT};

pub use layout::{render_svg, Graph, Node};

/// The graph edges over the configuration: each resource with the
/// resources it depends on (what `terrace graph` draws).
pub type ResourceDependencies = [(ConfigResource, BTreeSet<ConfigResource>)];

/// The most edges the graph draws; past it the page says that some were
/// left out (a fan-out of thousands of instances would otherwise make the
/// page unusably large).
pub const MAX_GRAPH_EDGES: usize = 10_000;

/// What the report shows.
pub struct ReportInput<'a> {
    /// The page's heading (a plan file's name, the working directory).
    pub title: &'a str,
    /// The plan; `None` draws the configuration's resources only.
    pub plan: Option<&'a Plan>,
    pub schemas: &'a dyn SchemaLookup,
    /// Dependencies between the configuration's resources; empty when the
    /// configuration could not be loaded (the graph then has no edges).
    pub dependencies: &'a ResourceDependencies,
    /// Warnings and errors of the run, shown with their source snippets.
    pub diagnostics: &'a [Diagnostic],
    pub sources: &'a SourceMap,
}

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for element content, where quotes need no escaping
/// (attribute values go through [`escape`]).
pub fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// The kinds of change the summary counts, in its order: the data name,
/// the symbol, the words.
const KINDS: [(&str, &str, &str); 8] = [
    ("add", "+", "to add"),
    ("change", "~", "to change"),
    ("replace", "-/+", "to replace"),
    ("destroy", "-", "to destroy"),
    ("read", "<=", "to read"),
    ("import", "→", "to import"),
    ("move", "⇢", "to move"),
    ("forget", ".", "to forget"),
];

/// The CSS class, symbol and verb of an action.
fn action_style(action: Action) -> (&'static str, &'static str, &'static str) {
    match action {
        Action::Create => ("a-create", "+", "create"),
        Action::Update => ("a-update", "~", "update in-place"),
        Action::DeleteThenCreate => ("a-replace", "-/+", "replace (destroy, then create)"),
        Action::CreateThenDelete => ("a-replace", "+/-", "replace (create, then destroy)"),
        Action::Delete => ("a-delete", "-", "destroy"),
        Action::Read => ("a-read", "<=", "read"),
        Action::Forget => ("a-forget", ".", "forget"),
        Action::NoOp => ("a-noop", "=", "no change"),
    }
}

/// An attribute path as configuration spells it: `tags["Name"]`, `a[0].b`.
pub fn path_text(path: &AttributePath) -> String {
    let mut out = String::new();
    for step in path.steps() {
        match step {
            PathStep::Attribute(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            PathStep::Key(key) => {
                let _ = write!(out, "[{key:?}]");
            }
            PathStep::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

/// A provider instance as a `provider` argument names it, with the module
/// it belongs to in front: `aws.by_region["eu-west-1"]`,
/// `module.net.aws`.
pub fn provider_instance_label(provider: &AbsProviderInstance) -> String {
    let config = &provider.config;
    let mut out = String::new();
    if !config.module.is_root() {
        let _ = write!(out, "{}.", config.module);
    }
    out.push_str(config.provider.type_name());
    if let Some(alias) = &config.alias {
        let _ = write!(out, ".{alias}");
    }
    let _ = write!(out, "{}", provider.key);
    out
}

fn module_label(module: &ModuleInstance) -> String {
    if module.is_root() {
        "root module".to_string()
    } else {
        module.to_string()
    }
}

/// Why the action was chosen, in words; `None` when the action says it all.
pub fn reason_text(change: &ResourceInstanceChange) -> Option<String> {
    let replace_paths = || {
        change
            .required_replace
            .iter()
            .map(path_text)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let text = match change.action_reason {
        ActionReason::ReplaceBecauseTainted => {
            "tainted: the object is marked for replacement".into()
        }
        ActionReason::ReplaceByRequest => "replacement requested with -replace".into(),
        ActionReason::ReplaceByTriggers => {
            "replace_triggered_by: a referenced object changes".into()
        }
        ActionReason::ReplaceBecauseCannotUpdate | ActionReason::None
            if change.action.is_replace() =>
        {
            if change.required_replace.is_empty() {
                "the provider cannot update it in place".into()
            } else {
                format!("requires_replace: {}", replace_paths())
            }
        }
        ActionReason::DeleteBecauseNoResourceConfig => {
            "its resource is not in the configuration".into()
        }
        ActionReason::DeleteBecauseWrongRepetition => {
            "count or for_each changed on its resource".into()
        }
        ActionReason::DeleteBecauseCountIndex => "its index is out of range for count".into(),
        ActionReason::DeleteBecauseEachKey => "its key is not in for_each".into(),
        ActionReason::DeleteBecauseEnabledFalse => "enabled is false".into(),
        ActionReason::DeleteBecauseNoModule => "its module is not in the configuration".into(),
        ActionReason::DeleteBecauseNoMoveTarget => {
            "it was moved to an address not in the configuration".into()
        }
        ActionReason::ReadBecauseConfigUnknown => {
            "its configuration refers to values not yet known".into()
        }
        ActionReason::ReadBecauseDependencyPending => "it depends on changes pending".into(),
        ActionReason::ReadBecauseCheckNested => "a check block reads it again".into(),
        ActionReason::ForgotBecauseLifecycleDestroyInState
        | ActionReason::ForgotBecauseLifecycleDestroyInConfig => "lifecycle destroy = false".into(),
        _ => return None,
    };
    Some(text)
}

/// Per-kind counts of the shown changes, keyed by the names in [`KINDS`].
fn counts(plan: &Plan, shown: &[(usize, String)]) -> BTreeMap<&'static str, usize> {
    let mut counts: BTreeMap<&'static str, usize> = KINDS.iter().map(|k| (k.0, 0)).collect();
    for (index, _) in shown {
        let Some(change) = plan.changes.get(*index) else {
            continue;
        };
        let kind = match change.action {
            Action::Create => Some("add"),
            Action::Update => Some("change"),
            Action::DeleteThenCreate | Action::CreateThenDelete => Some("replace"),
            Action::Delete => Some("destroy"),
            Action::Read => Some("read"),
            Action::Forget => Some("forget"),
            Action::NoOp => None,
        };
        let mut bump = |k| *counts.entry(k).or_default() += 1;
        if let Some(kind) = kind {
            bump(kind);
        }
        if change.importing.is_some() {
            bump("import");
        }
        if change.moved() {
            bump("move");
        }
    }
    counts
}

/// The diff text as lines, each marked by what it does so the page can
/// colour it (the symbol stays in the text, so nothing depends on colour):
/// `ins` added, `del` removed, `mark` updated or replaced, `em` comments.
/// Short elements rather than classes keep a plan of thousands of changes
/// small. `skip_first_comment` drops the `# ADDRESS will be ...` line,
/// which the change's summary already says.
fn diff_html(text: &str, skip_first_comment: bool) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut lines = text.lines().peekable();
    if skip_first_comment
        && lines
            .peek()
            .is_some_and(|l| l.trim_start().starts_with('#'))
    {
        lines.next();
    }
    // Consecutive lines of one kind share one element; lines that only
    // close a block (`}`, `]`) continue the run they close.
    let mut open: Option<&str> = None;
    for line in lines {
        let trimmed = line.trim_start();
        let tag = if trimmed.starts_with('#') {
            Some("em")
        } else if trimmed.starts_with("-/+")
            || trimmed.starts_with("+/-")
            || trimmed.starts_with("~ ")
        {
            Some("mark")
        } else if trimmed.starts_with("+ ") {
            Some("ins")
        } else if trimmed.starts_with("- ") {
            Some("del")
        } else if !trimmed.is_empty() && trimmed.chars().all(|c| "}]),".contains(c)) {
            open
        } else {
            None
        };
        if tag != open {
            if let Some(closing) = open {
                let _ = write!(out, "</{closing}>");
            }
            if let Some(opening) = tag {
                let _ = write!(out, "<{opening}>");
            }
            open = tag;
        }
        out.push_str(&escape_text(line));
        out.push('\n');
    }
    if let Some(closing) = open {
        let _ = write!(out, "</{closing}>");
    }
    out
}

/// The page.
pub fn render_html(input: &ReportInput) -> String {
    let mut body = String::new();
    let mut graph = Graph {
        nodes: Vec::new(),
        edges: Vec::new(),
    };
    let mut edges_left_out = 0usize;
    match input.plan {
        Some(plan) => plan_sections(input, plan, &mut body, &mut graph, &mut edges_left_out),
        None => config_sections(input, &mut body, &mut graph),
    }
    diagnostics_section(input, &mut body);

    let mut page = String::with_capacity(body.len() + graph.nodes.len() * 220 + 16_384);
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    // No request of any kind: only inline styles and scripts run, images
    // only from data: URLs.
    page.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n",
    );
    page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    page.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n");
    let _ = writeln!(
        page,
        "<title>{} {}</title>",
        escape(PRODUCT),
        escape(input.title)
    );
    page.push_str("<style>");
    page.push_str(STYLE);
    page.push_str("</style>\n</head>\n<body>\n");
    let _ = writeln!(
        page,
        "<header><h1><span class=\"product\">{}</span> {}</h1></header>",
        escape(PRODUCT),
        escape(input.title)
    );
    page.push_str("<main>\n");
    // The summary and lists first; the graph after, so the page reads top
    // to bottom without it.
    page.push_str(&body);
    if !graph.nodes.is_empty() {
        page.push_str(
            "<section id=\"graph-section\" aria-labelledby=\"graph-h\"><h2 id=\"graph-h\">\
             Dependency graph</h2>\n<p class=\"hint\">Lines run left to right, from what a \
             resource depends on to the resource; bands are provider instances. Dependencies are known per \
             resource, as terrace graph draws them: an instance is joined to every changed \
             instance of a resource its configuration refers to (within one module instance, \
             only to that instance's). Select a node to see its change.</p>\n",
        );
        if edges_left_out > 0 {
            let _ = writeln!(
                page,
                "<p class=\"warning\" id=\"edges-left-out\">{edges_left_out} dependency edges \
                 are not drawn (more than {MAX_GRAPH_EDGES}).</p>"
            );
        }
        page.push_str("<div class=\"graph-scroll\" tabindex=\"0\">");
        page.push_str(&render_svg(&graph));
        page.push_str("</div></section>\n");
    }
    page.push_str("</main>\n<script>");
    page.push_str(SCRIPT);
    page.push_str("</script>\n</body>\n</html>\n");
    page
}

fn plan_sections(
    input: &ReportInput,
    plan: &Plan,
    body: &mut String,
    graph: &mut Graph,
    edges_left_out: &mut usize,
) {
    let texts = terrace_plans::render_plan_items(plan, input.schemas);
    let counts = counts(plan, &texts.changes);

    // Status and summary.
    let status = if plan.errored {
        (
            "status-errored",
            "Planning failed: the changes below are incomplete.",
        )
    } else if !plan.unavailable_providers.is_empty() {
        (
            "status-partial",
            "Some provider instances could not be configured; their resources are not planned.",
        )
    } else if plan.changes_empty() && texts.drift.is_empty() {
        ("status-empty", "No changes.")
    } else {
        ("status-ok", "The plan can be applied.")
    };
    let _ = writeln!(
        body,
        "<section id=\"summary\" aria-labelledby=\"summary-h\"><h2 id=\"summary-h\">Summary</h2>\n\
         <p class=\"status {}\" id=\"status\">{}</p>\n<p class=\"mode\">Mode: <span id=\"mode\">{}</span>{}</p>",
        status.0,
        escape(status.1),
        escape(plan.mode.ui_name()),
        if plan.timestamp.is_empty() {
            String::new()
        } else {
            format!(" · planned at <time>{}</time>", escape(&plan.timestamp))
        }
    );
    body.push_str("<ul class=\"counts\">");
    for (kind, symbol, words) in KINDS {
        let n = counts.get(kind).copied().unwrap_or(0);
        let _ = write!(
            body,
            "<li class=\"count k-{kind}{}\" data-kind=\"{kind}\"><b class=\"sym\">{}</b> \
             <span class=\"n\">{n}</span> {words}</li>",
            if n == 0 { " zero" } else { "" },
            escape(symbol)
        );
    }
    body.push_str("</ul>\n");
    if !plan.unavailable_providers.is_empty() {
        body.push_str("<p>Provider instances left out:</p><ul id=\"unavailable\">");
        for p in &plan.unavailable_providers {
            let _ = write!(
                body,
                "<li><code>{}</code></li>",
                escape(&provider_instance_label(p))
            );
        }
        body.push_str("</ul>\n");
    }
    body.push_str("</section>\n");

    // Filters: shown by the script only, since they do nothing without it.
    body.push_str(
        "<nav id=\"filters\" hidden aria-label=\"Filter changes\"><label>Filter \
         <input type=\"search\" id=\"filter-text\" placeholder=\"address contains…  (/)\"></label> ",
    );
    for (class, label) in [
        ("a-create", "+ create"),
        ("a-update", "~ update"),
        ("a-replace", "-/+ replace"),
        ("a-delete", "- destroy"),
        ("a-read", "<= read"),
        ("a-forget", ". forget"),
        ("a-noop", "= move/import"),
    ] {
        let _ = write!(
            body,
            "<label class=\"f {class}\"><input type=\"checkbox\" checked data-action-filter=\"{class}\"> {}</label> ",
            escape(label)
        );
    }
    body.push_str(
        "<button type=\"button\" id=\"expand-all\">Expand all</button> <button type=\"button\" \
         id=\"collapse-all\">Collapse all</button> <span class=\"hint\">Keys: j/k next/previous, \
         o open, / filter</span></nav>\n",
    );

    // Changes by provider instance: the diffs live here, once.
    let mut by_provider: BTreeMap<&AbsProviderInstance, Vec<usize>> = BTreeMap::new();
    let mut by_module: BTreeMap<&ModuleInstance, Vec<usize>> = BTreeMap::new();
    for (n, (index, _)) in texts.changes.iter().enumerate() {
        if let Some(change) = plan.changes.get(*index) {
            by_provider.entry(&change.provider).or_default().push(n);
            by_module.entry(&change.addr.module).or_default().push(n);
        }
    }
    body.push_str(
        "<section id=\"by-provider\" aria-labelledby=\"by-provider-h\"><h2 id=\"by-provider-h\">\
         Changes by provider instance</h2>\n",
    );
    if texts.changes.is_empty() {
        body.push_str("<p class=\"empty\">No resource changes.</p>\n");
    }
    for (provider, members) in &by_provider {
        let label = provider_instance_label(provider);
        let _ = writeln!(
            body,
            "<details class=\"group\" open data-provider=\"{}\"><summary><code>{}</code> \
             <span class=\"group-count\">{} change{}</span> <span class=\"fqn\">{}</span></summary>",
            escape(&label),
            escape(&label),
            members.len(),
            if members.len() == 1 { "" } else { "s" },
            escape(&provider.config.provider.to_string())
        );
        for &n in members {
            let (index, text) = &texts.changes[n];
            let Some(change) = plan.changes.get(*index) else {
                continue;
            };
            change_html(body, n, change, text);
        }
        body.push_str("</details>\n");
    }
    body.push_str("</section>\n");

    // Changes by module instance: links to the changes above.
    body.push_str(
        "<section id=\"by-module\" aria-labelledby=\"by-module-h\"><h2 id=\"by-module-h\">\
         Changes by module instance</h2>\n",
    );
    for (module, members) in &by_module {
        let label = module_label(module);
        let _ = writeln!(
            body,
            "<details class=\"group\" data-module=\"{}\"><summary><code>{}</code> <span \
             class=\"group-count\">{} change{}</span></summary><ul class=\"links\">",
            escape(&label),
            escape(&label),
            members.len(),
            if members.len() == 1 { "" } else { "s" }
        );
        for &n in members {
            let (index, _) = &texts.changes[n];
            let Some(change) = plan.changes.get(*index) else {
                continue;
            };
            let (class, symbol, _) = action_style(change.action);
            let _ = write!(
                body,
                "<li class={class}><a href=#c{n}><b>{}</b> {}</a></li>",
                escape_text(symbol),
                escape_text(&instance_address(change))
            );
        }
        body.push_str("</ul></details>\n");
    }
    body.push_str("</section>\n");

    // Output changes.
    if !texts.outputs.is_empty() {
        body.push_str(
            "<section id=\"outputs\" aria-labelledby=\"outputs-h\"><h2 id=\"outputs-h\">Output \
             changes</h2>\n<pre>",
        );
        for (name, text) in &texts.outputs {
            let _ = write!(
                body,
                "<span class=\"output\" data-output=\"{}\">{}</span>",
                escape(name),
                diff_html(text, false)
            );
        }
        body.push_str("</pre></section>\n");
    }

    checks_section(plan, body);

    // Drift.
    if !texts.drift.is_empty() {
        let _ = writeln!(
            body,
            "<section id=\"drift\" aria-labelledby=\"drift-h\"><h2 id=\"drift-h\">Changed \
             outside of {} (found by refresh)</h2>",
            escape(PRODUCT)
        );
        for (n, (index, text)) in texts.drift.iter().enumerate() {
            let Some(change) = plan.drift.get(*index) else {
                continue;
            };
            let (class, symbol, _) = action_style(change.action);
            let verb = if change.action == Action::Delete {
                "deleted"
            } else {
                "changed"
            };
            let _ = writeln!(
                body,
                "<details class=\"drift {class}\" id=\"d{n}\" data-address=\"{addr}\"><summary>\
                 <b>{}</b> <code>{addr}</code> <i>{verb}</i></summary><pre>{}</pre></details>",
                escape_text(symbol),
                diff_html(text, true),
                addr = escape(&instance_address(change)),
            );
        }
        body.push_str("</section>\n");
    }

    // The graph of the shown changes.
    let mut nodes_by_resource: BTreeMap<ConfigResource, Vec<usize>> = BTreeMap::new();
    for (n, (index, _)) in texts.changes.iter().enumerate() {
        let Some(change) = plan.changes.get(*index) else {
            continue;
        };
        let (class, symbol, verb) = action_style(change.action);
        let address = instance_address(change);
        nodes_by_resource
            .entry(change.addr.config_resource())
            .or_default()
            .push(graph.nodes.len());
        let module = &change.addr.module;
        graph.nodes.push(Node {
            id: format!("c{n}"),
            title: format!("{address} ({verb})"),
            label: match &change.deposed {
                Some(d) => format!("{} (deposed {d})", change.addr.resource),
                None => change.addr.resource.to_string(),
            },
            sublabel: if module.is_root() {
                String::new()
            } else {
                module.to_string()
            },
            class,
            symbol,
            cluster: provider_instance_label(&change.provider),
        });
    }
    let module_of = |node: usize| -> Option<&ModuleInstance> {
        let index = texts.changes.get(node)?.0;
        plan.changes.get(index).map(|c| &c.addr.module)
    };
    'edges: for (resource, deps) in input.dependencies {
        let Some(froms) = nodes_by_resource.get(resource) else {
            continue;
        };
        for dep in deps {
            let Some(tos) = nodes_by_resource.get(dep) else {
                continue;
            };
            for &from in froms {
                for &to in tos {
                    // Within one module, references stay inside the
                    // module instance they are made in.
                    if dep.module == resource.module && module_of(from) != module_of(to) {
                        continue;
                    }
                    if graph.edges.len() >= MAX_GRAPH_EDGES {
                        *edges_left_out += 1;
                        if *edges_left_out > 1_000_000 {
                            break 'edges;
                        }
                        continue;
                    }
                    graph.edges.push((from, to));
                }
            }
        }
    }
}

/// The change's address as the plan names it (with its deposed key).
fn instance_address(change: &ResourceInstanceChange) -> String {
    match &change.deposed {
        Some(d) => format!("{} (deposed object {d})", change.addr),
        None => change.addr.to_string(),
    }
}

fn change_html(body: &mut String, n: usize, change: &ResourceInstanceChange, text: &str) {
    let (class, symbol, verb) = action_style(change.action);
    let address = instance_address(change);
    let mut notes = Vec::new();
    if change.moved() {
        notes.push(format!("moved from {}", change.prev_run_addr));
    }
    if let Some(id) = &change.importing {
        notes.push(if id.is_empty() {
            "imported first".to_string()
        } else {
            format!("imported from id {id:?}")
        });
    }
    let reason = reason_text(change);
    let verb = if change.action == Action::NoOp && change.moved() {
        "move"
    } else if change.action == Action::NoOp && change.importing.is_some() {
        "import"
    } else {
        verb
    };
    let _ = write!(
        body,
        "<details class=\"change {class}\" id=c{n} data-actions={}><summary><b>{}</b> \
         <code>{}</code> <i>{}</i>",
        change.action.json_actions().join(","),
        escape_text(symbol),
        escape_text(&address),
        escape_text(verb),
    );
    if let Some(reason) = &reason {
        let _ = write!(body, " <span class=\"reason\">{}</span>", escape(reason));
    }
    for note in &notes {
        let _ = write!(body, " <span class=\"note\">{}</span>", escape(note));
    }
    body.push_str("</summary>");
    if change.action.is_replace() && !change.required_replace.is_empty() {
        body.push_str("<p class=\"why\">Attributes that force replacement: ");
        for (i, path) in change.required_replace.iter().enumerate() {
            if i > 0 {
                body.push_str(", ");
            }
            let _ = write!(
                body,
                "<code class=\"replace-path\">{}</code>",
                escape(&path_text(path))
            );
        }
        body.push_str("</p>");
    }
    let _ = writeln!(body, "<pre>{}</pre></details>", diff_html(text, true));
}

/// The symbol and the word of a condition's status; the symbol keeps the
/// status readable without colour.
fn check_status_style(status: CheckStatus) -> (&'static str, &'static str) {
    match status {
        CheckStatus::Pass => ("\u{2713}", "passed"),
        CheckStatus::Fail => ("\u{2717}", "failed"),
        CheckStatus::Error => ("!", "could not be evaluated"),
        CheckStatus::Unknown => ("?", "known after apply"),
    }
}

/// The results of custom conditions the plan evaluated: every object that
/// declares some, its status, and the message of each failed condition.
fn checks_section(plan: &Plan, body: &mut String) {
    let Some(results) = plan.checks.as_ref().filter(|c| !c.is_empty()) else {
        return;
    };
    body.push_str(
        "<section id=\"checks\" aria-labelledby=\"checks-h\"><h2 id=\"checks-h\">Check \
         results</h2>\n<ul class=\"checks\">\n",
    );
    for config in results.configs() {
        let (symbol, word) = check_status_style(config.status);
        let _ = write!(
            body,
            "<li class=\"check check-{status}\" data-check=\"{addr}\" data-status=\"{status}\">\
             <b class=\"sym\">{}</b> <code>{addr}</code> <i>{word}</i>",
            escape_text(symbol),
            status = config.status.as_str(),
            addr = escape(&config.config_addr),
        );
        let objects = config.objects.as_deref().unwrap_or(&[]);
        let listed: Vec<_> = objects
            .iter()
            .filter(|o| o.status != config.status || !o.failure_messages.is_empty())
            .collect();
        if objects.len() > 1 || !listed.is_empty() {
            body.push_str("<ul>");
            for object in objects {
                let (symbol, word) = check_status_style(object.status);
                let _ = write!(
                    body,
                    "<li class=\"check-{status}\" data-object=\"{addr}\"><b class=\"sym\">{}</b> \
                     <code>{addr}</code> <i>{word}</i>",
                    escape_text(symbol),
                    status = object.status.as_str(),
                    addr = escape(&object.object_addr),
                );
                for message in &object.failure_messages {
                    let _ = write!(
                        body,
                        "<div class=\"problem\">{}</div>",
                        escape_text(message)
                    );
                }
                body.push_str("</li>");
            }
            body.push_str("</ul>");
        }
        body.push_str("</li>\n");
    }
    body.push_str("</ul></section>\n");
}

fn config_sections(input: &ReportInput, body: &mut String, graph: &mut Graph) {
    let mut index: BTreeMap<&ConfigResource, usize> = BTreeMap::new();
    body.push_str(
        "<section id=\"resources\" aria-labelledby=\"resources-h\"><h2 id=\"resources-h\">\
         Resources of the configuration</h2>\n<ul class=\"links\">",
    );
    for (n, (resource, deps)) in input.dependencies.iter().enumerate() {
        index.insert(resource, n);
        let module = if resource.module.is_root() {
            "root module".to_string()
        } else {
            resource.module.to_string()
        };
        let _ = write!(
            body,
            "<li class=\"resource\" id=\"r{n}\" data-address=\"{}\"><code>{}</code>",
            escape(&resource.to_string()),
            escape(&resource.to_string())
        );
        if !deps.is_empty() {
            body.push_str(" <span class=\"note\">depends on ");
            for (i, dep) in deps.iter().enumerate() {
                if i > 0 {
                    body.push_str(", ");
                }
                let _ = write!(body, "<code>{}</code>", escape(&dep.to_string()));
            }
            body.push_str("</span>");
        }
        body.push_str("</li>");
        graph.nodes.push(Node {
            id: format!("r{n}"),
            label: resource.resource.to_string(),
            sublabel: String::new(),
            title: resource.to_string(),
            class: "a-config",
            symbol: "□",
            cluster: module,
        });
    }
    body.push_str("</ul></section>\n");
    for (resource, deps) in input.dependencies {
        let Some(&from) = index.get(resource) else {
            continue;
        };
        for dep in deps {
            if let Some(&to) = index.get(dep) {
                graph.edges.push((from, to));
            }
        }
    }
}

fn diagnostics_section(input: &ReportInput, body: &mut String) {
    if input.diagnostics.is_empty() {
        return;
    }
    let errors = input.diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = input.diagnostics.len() - errors;
    let _ = writeln!(
        body,
        "<section id=\"diagnostics\" aria-labelledby=\"diagnostics-h\"><h2 id=\"diagnostics-h\">\
         Errors and warnings</h2>\n<p><span id=\"error-count\">{errors}</span> error{}, \
         <span id=\"warning-count\">{warnings}</span> warning{}</p>",
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" },
    );
    for d in input.diagnostics {
        let (class, symbol) = match d.severity {
            Severity::Error => ("diag-error", "✖"),
            Severity::Warning => ("diag-warning", "⚠"),
        };
        let text = render_diagnostic(d, input.sources, RenderStyle::Plain, 100);
        let _ = writeln!(
            body,
            "<div class=\"diag {class}\"><p class=\"diag-summary\"><span class=\"sym\" \
             aria-hidden=\"true\">{symbol}</span> {}</p><pre>{}</pre></div>",
            escape(&d.summary),
            escape(text.trim_matches('\n'))
        );
    }
    body.push_str("</section>\n");
}

/// Colours from the Okabe–Ito palette, which stays distinct for the
/// common colour-vision deficiencies; every action also carries its
/// symbol, so nothing depends on colour alone. Dark mode swaps the
/// neutrals and lightens the accents.
const STYLE: &str = r#"
:root{--bg:#fff;--fg:#1b1b1b;--muted:#5c5c5c;--panel:#f4f4f4;--border:#c9c9c9;
--create:#00795a;--update:#a86a00;--replace:#a3417f;--delete:#b84400;--read:#1f6f9e;--forget:#555;--noop:#555;--config:#3b4a6b;--focus:#0057d9}
@media (prefers-color-scheme:dark){:root{--bg:#141414;--fg:#e8e8e8;--muted:#a8a8a8;--panel:#1f1f1f;--border:#444;
--create:#3fcf9f;--update:#f0b73a;--replace:#e39acb;--delete:#ff8a4c;--read:#7cc7f0;--forget:#b0b0b0;--noop:#b0b0b0;--config:#a9b8dc;--focus:#7fb0ff}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header{padding:12px 20px;border-bottom:1px solid var(--border)}
h1{font-size:20px;margin:0}h2{font-size:17px;margin:18px 0 8px}
.product{font-weight:700;letter-spacing:.02em}
main{padding:0 20px 40px;max-width:1400px}
code,pre{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:13px}
pre{background:var(--panel);border:1px solid var(--border);border-radius:4px;padding:8px 10px;overflow:auto;margin:6px 0}
.counts{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:8px}
.count{border:1px solid var(--border);border-radius:4px;padding:4px 10px;background:var(--panel)}
.count .n{font-weight:700}.count.zero{opacity:.6}
.k-add .sym{color:var(--create)}.k-change .sym{color:var(--update)}.k-replace .sym{color:var(--replace)}.k-destroy .sym{color:var(--delete)}.k-read .sym{color:var(--read)}
.sym,summary>b,ul.links b{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-weight:700;display:inline-block;min-width:2.2em;text-align:center}
.status{font-weight:600}.status-errored,.warning{color:var(--delete)}.status-partial{color:var(--update)}
details.group{border:1px solid var(--border);border-radius:6px;margin:8px 0;padding:4px 10px;content-visibility:auto;contain-intrinsic-size:auto 40px}
section{content-visibility:auto;contain-intrinsic-size:auto 600px}
details.group>summary{cursor:pointer;padding:4px 0;font-weight:600}
.group-count,.fqn,.hint,.mode{color:var(--muted);font-weight:400;font-size:13px}
details.change,details.drift{margin:2px 0 2px 8px;border-left:4px solid var(--border);padding-left:8px;content-visibility:auto;contain-intrinsic-size:auto 22px}
details.change>summary,details.drift>summary{cursor:pointer;padding:2px 0}
.a-create{border-left-color:var(--create)!important}.a-create b{color:var(--create)}
.a-update{border-left-color:var(--update)!important}.a-update b{color:var(--update)}
.a-replace{border-left-color:var(--replace)!important}.a-replace b{color:var(--replace)}
.a-delete{border-left-color:var(--delete)!important}.a-delete b{color:var(--delete)}
.a-read{border-left-color:var(--read)!important}.a-read b{color:var(--read)}
.a-forget,.a-noop{border-left-color:var(--forget)!important}
summary>i{color:var(--muted);font-size:13px;font-style:normal}
.reason{font-size:13px;border:1px solid var(--replace);border-radius:3px;padding:0 5px}
.note{font-size:13px;color:var(--muted)}
.why{margin:4px 0;font-size:13px}
pre ins,pre del,pre mark,pre em{text-decoration:none;font-style:normal;background:none}
pre ins{color:var(--create)}pre del{color:var(--delete)}pre mark{color:var(--update)}pre em{color:var(--muted)}
ul.links{list-style:none;padding-left:8px;margin:4px 0}ul.links a{color:inherit}
.diag{border-left:4px solid var(--border);padding-left:8px;margin:8px 0}
.diag-error{border-left-color:var(--delete)}.diag-warning{border-left-color:var(--update)}
.diag-error .sym{color:var(--delete)}.diag-warning .sym{color:var(--update)}
.diag-summary{font-weight:600;margin:4px 0}
ul.checks,ul.checks ul{list-style:none;padding-left:8px;margin:4px 0}
.check-pass>.sym{color:var(--create)}.check-fail>.sym,.check-error>.sym{color:var(--delete)}.check-unknown>.sym{color:var(--muted)}
.problem{margin:2px 0 2px 2.6em;font-size:13px}
#filters{position:sticky;top:0;background:var(--bg);padding:8px 0;border-bottom:1px solid var(--border);z-index:1}
#filters label.f{margin-right:6px;white-space:nowrap}
.hidden{display:none!important}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.graph-scroll{overflow:auto;max-height:80vh;border:1px solid var(--border);border-radius:6px}
#graph{font:12px ui-monospace,"DejaVu Sans Mono",monospace}
#graph .band rect{fill:var(--panel);stroke:var(--border)}
#graph .band text{fill:var(--muted);font-weight:700}
#graph .edges path{fill:none;stroke:var(--muted);stroke-opacity:.55}
#graph .node rect{fill:var(--bg);stroke-width:2;rx:4px}
#graph .node text{fill:var(--fg)}#graph .node text.sub{fill:var(--muted);font-size:10px}
#graph .a-create rect{stroke:var(--create)}#graph .a-update rect{stroke:var(--update)}#graph .a-replace rect{stroke:var(--replace);stroke-dasharray:5 2}
#graph .a-delete rect{stroke:var(--delete);stroke-dasharray:2 2}#graph .a-read rect{stroke:var(--read)}#graph .a-forget rect,#graph .a-noop rect{stroke:var(--forget)}#graph .a-config rect{stroke:var(--config)}
#graph .node:hover rect,#graph .node:focus rect,#graph .node.selected rect{stroke-width:4}
#graph .node.dim{opacity:.25}
"#;

/// Filtering, expand/collapse, opening the change a graph node or link
/// points at, and keyboard shortcuts. The page works without it.
const SCRIPT: &str = r##"
(function(){
var filters=document.getElementById('filters');
var changes=Array.prototype.slice.call(document.querySelectorAll('details.change'));
var text=document.getElementById('filter-text');
function apply(){
  var q=text?text.value.trim().toLowerCase():'';
  var off={};
  document.querySelectorAll('[data-action-filter]').forEach(function(c){if(!c.checked)off[c.getAttribute('data-action-filter')]=1;});
  var shown={};
  changes.forEach(function(d){
    var cls=d.className.split(' ')[1];
    var ok=!off[cls]&&(!q||d.querySelector('summary>code').textContent.toLowerCase().indexOf(q)>=0);
    d.classList.toggle('hidden',!ok);
    if(ok)shown[d.id]=1;
  });
  document.querySelectorAll('#by-provider details.group').forEach(function(g){
    g.classList.toggle('hidden',!g.querySelector('details.change:not(.hidden)'));
  });
  document.querySelectorAll('#graph .node').forEach(function(n){
    n.classList.toggle('dim',!shown[n.getAttribute('href').slice(1)]);
  });
}
function openTarget(id){
  var el=document.getElementById(id);
  if(!el)return;
  var p=el;
  while(p){if(p.tagName==='DETAILS')p.open=true;p=p.parentElement;}
  document.querySelectorAll('#graph .node.selected').forEach(function(n){n.classList.remove('selected');});
  var node=document.querySelector('#graph .node[href="#'+id+'"]');
  if(node)node.classList.add('selected');
  var s=el.querySelector('summary');
  (s||el).focus();
  el.scrollIntoView({block:'nearest'});
}
window.addEventListener('hashchange',function(){openTarget(location.hash.slice(1));});
if(location.hash)openTarget(location.hash.slice(1));
if(filters&&changes.length){
  filters.hidden=false;
  text.addEventListener('input',apply);
  document.querySelectorAll('[data-action-filter]').forEach(function(c){c.addEventListener('change',apply);});
  document.getElementById('expand-all').addEventListener('click',function(){changes.forEach(function(d){if(!d.classList.contains('hidden'))d.open=true;});});
  document.getElementById('collapse-all').addEventListener('click',function(){changes.forEach(function(d){d.open=false;});});
}
function visible(){return changes.filter(function(d){return !d.classList.contains('hidden');});}
function current(){var a=document.activeElement;while(a&&!(a.classList&&a.classList.contains('change')))a=a.parentElement;return a;}
document.addEventListener('keydown',function(e){
  if(e.ctrlKey||e.metaKey||e.altKey)return;
  var t=e.target.tagName;
  if(t==='INPUT'||t==='TEXTAREA'){if(e.key==='Escape')e.target.blur();return;}
  var v=visible(),c=current(),i=c?v.indexOf(c):-1;
  if(e.key==='j'||e.key==='k'){
    if(!v.length)return;
    i=e.key==='j'?Math.min(v.length-1,i+1):Math.max(0,i-1);
    var s=v[i].querySelector('summary');s.focus();v[i].scrollIntoView({block:'nearest'});e.preventDefault();
  }else if(e.key==='o'&&c){c.open=!c.open;e.preventDefault();}
  else if(e.key==='/'&&text&&!filters.hidden){text.focus();e.preventDefault();}
});
document.documentElement.setAttribute('data-ready','1');
})();
"##;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_every_character_that_can_end_text_or_an_attribute() {
        assert_eq!(
            escape(r#"<a href="x" onclick='y'>&amp;"#),
            "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;amp;"
        );
    }

    #[test]
    fn attribute_paths_read_as_configuration_spells_them() {
        let path = AttributePath::root()
            .attribute("tags")
            .key("Name")
            .attribute("x")
            .index(2);
        assert_eq!(path_text(&path), "tags[\"Name\"].x[2]");
    }

    #[test]
    fn provider_instances_are_named_as_a_provider_argument_names_them() {
        let cases = [
            (
                "provider[\"registry.terraform.io/hashicorp/aws\"].by_region[\"eu-west-1\"]",
                "aws.by_region[\"eu-west-1\"]",
            ),
            ("provider[\"registry.terraform.io/hashicorp/null\"]", "null"),
            (
                "module.net.provider[\"registry.terraform.io/hashicorp/aws\"].west",
                "module.net.aws.west",
            ),
        ];
        for (text, label) in cases {
            let provider =
                AbsProviderInstance::parse_str(text).unwrap_or_else(|d| panic!("{text}: {d:?}"));
            assert_eq!(provider_instance_label(&provider), label, "{text}");
        }
    }

    #[test]
    fn diff_lines_keep_their_symbols_and_are_escaped() {
        let html = diff_html(
            "  + name = \"<x>\"\n  # forces replacement\n      id = 1",
            false,
        );
        assert!(
            html.contains("<ins>  + name = \"&lt;x&gt;\"\n</ins>"),
            "{html}"
        );
        assert!(html.contains("<em>  # forces replacement\n</em>"), "{html}");
        assert!(html.contains("      id = 1\n"));
    }
}
