//! Everything of a test file the runner needs beyond what the provider
//! rules read (`terrace_config::testfile`): file-level `variables`, the
//! contents of `mock_provider` blocks, overrides, and each `run` block's
//! command, variables, assertions, expected failures, plan options and
//! state key. Expressions stay unevaluated: a run's variables can refer to
//! earlier runs' outputs, so they are evaluated when the run starts.

use std::collections::BTreeMap;
use std::sync::Arc;
use terrace_config::body::{Block, Body, BodySchema};
use terrace_config::expr::Expression;
use terrace_config::testfile::TestFile;
use terrace_syntax::ast::{SourceFile, Traversal, TraversalStep};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};
use terrace_value::gostr::quote;

/// What a run block does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Plan,
    Apply,
}

/// `plan_options { mode = ... }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunMode {
    Normal,
    RefreshOnly,
}

#[derive(Clone, Debug)]
pub struct PlanOptionsSpec {
    pub mode: RunMode,
    pub refresh: bool,
    pub replace: Vec<Traversal>,
    pub target: Vec<Traversal>,
}

impl Default for PlanOptionsSpec {
    fn default() -> PlanOptionsSpec {
        PlanOptionsSpec {
            mode: RunMode::Normal,
            refresh: true,
            replace: Vec::new(),
            target: Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Assertion {
    pub condition: Expression,
    pub error_message: Option<Expression>,
    pub decl_range: SourceRange,
}

/// One entry of `expect_failures`: the checkable object's address as
/// written, and where.
#[derive(Clone, Debug)]
pub struct ExpectedFailure {
    pub address: String,
    pub range: SourceRange,
}

/// What an override replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverrideKind {
    Resource,
    Data,
    Module,
}

/// `override_resource`, `override_data` or `override_module`.
#[derive(Clone, Debug)]
pub struct Override {
    pub kind: OverrideKind,
    /// The target address as written (`aws_instance.a`, `module.m`,
    /// `module.m.data.x.y`).
    pub target: String,
    pub target_range: SourceRange,
    /// The whole `target = ...` argument.
    pub target_attribute_range: SourceRange,
    /// `values` (resources, data) or `outputs` (modules).
    pub values: Option<Expression>,
    /// `override_during = plan`: the values are used in plans too.
    pub during_plan: bool,
    pub decl_range: SourceRange,
}

/// `mock_resource "TYPE"` or `mock_data "TYPE"`.
#[derive(Clone, Debug)]
pub struct MockObject {
    pub type_name: String,
    pub defaults: Option<Expression>,
    pub during_plan: bool,
    pub decl_range: SourceRange,
}

/// The contents of a `mock_provider` block (and of the `.tfmock.hcl`
/// files its `source` names).
#[derive(Clone, Debug, Default)]
pub struct MockContents {
    pub resources: Vec<MockObject>,
    pub data: Vec<MockObject>,
    pub overrides: Vec<Override>,
}

#[derive(Clone, Debug)]
pub struct RunSpec {
    pub name: String,
    pub decl_range: SourceRange,
    pub command: Command,
    pub variables: Vec<(String, Expression)>,
    pub asserts: Vec<Assertion>,
    pub expect_failures: Vec<ExpectedFailure>,
    pub plan_options: PlanOptionsSpec,
    pub state_key: Option<String>,
    pub overrides: Vec<Override>,
    /// Index into the configuration test file's runs.
    pub index: usize,
}

/// One test file, decoded.
#[derive(Clone, Debug)]
pub struct TestFileSpec {
    /// What the provider rules read, with each run's alternate module.
    pub base: TestFile,
    pub source: Arc<SourceFile>,
    pub variables: Vec<(String, Expression)>,
    /// Keyed as `base.providers`: the contents of each mock provider.
    pub mocks: BTreeMap<String, MockContents>,
    pub overrides: Vec<Override>,
    pub runs: Vec<RunSpec>,
}

/// Decodes the runner's parts of `base` from its source.
pub fn decode(base: TestFile, mock_dir: &std::path::Path) -> (TestFileSpec, Diagnostics) {
    let mut diags = Diagnostics::new();
    let source = base
        .source
        .clone()
        .unwrap_or_else(|| SourceFile::new(base.name.clone(), String::new()));
    // Syntax errors were reported when the configuration loader read the
    // file (`base`); what parses is decoded again here for the runner.
    let body = if base.name.ends_with(".json") {
        Body::from_file(&terrace_syntax::parse_json_file(&base.name, &source.text).0)
    } else {
        Body::from_file(&terrace_syntax::parse_file(&base.name, &source.text).0)
    };
    let schema = BodySchema::new()
        .labeled_block("run", &["name"])
        .labeled_block("provider", &["name"])
        .labeled_block("mock_provider", &["name"])
        .block("variables")
        .block("override_resource")
        .block("override_data")
        .block("override_module")
        .block("test");
    let (content, d) = body.content(&schema);
    diags.extend(d);
    let mut spec = TestFileSpec {
        source,
        variables: Vec::new(),
        mocks: BTreeMap::new(),
        overrides: Vec::new(),
        runs: Vec::new(),
        base,
    };
    let mut run_index = 0;
    let mut seen_runs: BTreeMap<String, SourceRange> = BTreeMap::new();
    for block in &content.blocks {
        match block.block_type.as_str() {
            "variables" => {
                let (attrs, d) = block.body.just_attributes();
                diags.extend(d);
                spec.variables
                    .extend(attrs.into_iter().map(|a| (a.name, a.expr)));
            }
            "provider" => {
                let version = block
                    .body
                    .partial_content(&BodySchema::new().attr("version"))
                    .0
                    .attribute("version")
                    .map(|a| a.expr.range());
                if let Some(range) = version {
                    diags.push(
                        Diagnostic::error(
                            "Version constraints are not allowed in test files",
                            "Version constraints inside provider configuration blocks are not allowed in test files. To silence this error, move the provider version constraint into the required_providers block of the configuration that uses this provider.",
                        )
                        .with_subject(range),
                    );
                }
            }
            "mock_provider" => {
                let (key, contents, d) = decode_mock_provider(block, mock_dir);
                diags.extend(d);
                spec.mocks.insert(key, contents);
            }
            "override_resource" | "override_data" | "override_module" => {
                let (o, d) = decode_override(block);
                diags.extend(d);
                add_override(&mut spec.overrides, o, &block.block_type, &mut diags);
            }
            "run" => {
                let name = block.labels.first().cloned().unwrap_or_default();
                if let Some(first) = seen_runs.get(&name) {
                    diags.push(
                        Diagnostic::error(
                            "Duplicate \"run\" block names",
                            format!(
                                "This test file already has a run named {name} block defined at {first}."
                            ),
                        )
                        .with_subject(block.def_range.clone()),
                    );
                    continue;
                }
                seen_runs.insert(name.clone(), block.def_range.clone());
                let (run, d) = decode_run(block, run_index);
                let failed = has_errors(&d);
                diags.extend(d);
                // The configuration side skips run blocks it could not
                // decode, so indices stay aligned only for the good ones.
                if spec
                    .base
                    .runs
                    .get(run_index)
                    .is_some_and(|r| r.name == name)
                {
                    run_index += 1;
                    if !failed {
                        spec.runs.push(run);
                    }
                }
            }
            _ => {}
        }
    }
    (spec, diags)
}

fn decode_mock_provider(
    block: &Block,
    mock_dir: &std::path::Path,
) -> (String, MockContents, Diagnostics) {
    let schema = BodySchema::new()
        .attr("alias")
        .attr("for_each")
        .attr("source")
        .labeled_block("mock_resource", &["type"])
        .labeled_block("mock_data", &["type"])
        .block("override_resource")
        .block("override_data");
    let (content, d) = block.body.content(&schema);
    let mut diags = d;
    let name = block.labels.first().cloned().unwrap_or_default();
    let alias = content
        .attribute("alias")
        .and_then(|a| a.expr.constant_value().0.as_str().map(str::to_string));
    let key = match &alias {
        Some(a) => format!("{name}.{a}"),
        None => name,
    };
    let mut contents = MockContents::default();
    add_mock_blocks(&content.blocks, &mut contents, &mut diags);
    if let Some(attr) = content.attribute("source") {
        let (value, d) = attr.expr.constant_value();
        diags.extend(d);
        match value.as_str() {
            Some(dir) => {
                let (shared, d) = load_mock_source(&mock_dir.join(dir), dir, &block.def_range);
                diags.extend(d);
                // The block's own contents win over the shared files'.
                for r in shared.resources {
                    if !contents
                        .resources
                        .iter()
                        .any(|m| m.type_name == r.type_name)
                    {
                        contents.resources.push(r);
                    }
                }
                for r in shared.data {
                    if !contents.data.iter().any(|m| m.type_name == r.type_name) {
                        contents.data.push(r);
                    }
                }
                for o in shared.overrides {
                    if !contents.overrides.iter().any(|m| m.target == o.target) {
                        contents.overrides.push(o);
                    }
                }
            }
            None => diags.push(
                Diagnostic::error(
                    "Invalid source",
                    "The source of a mock provider must be a string naming a directory.",
                )
                .with_subject(attr.expr.range()),
            ),
        }
    }
    (key, contents, diags)
}

fn add_mock_blocks(blocks: &[Block], contents: &mut MockContents, diags: &mut Diagnostics) {
    for b in blocks {
        match b.block_type.as_str() {
            "mock_resource" | "mock_data" => {
                let schema = BodySchema::new().attr("defaults").attr("override_during");
                let (c, d) = b.body.content(&schema);
                diags.extend(d);
                let (during_plan, d) = override_during(c.attribute("override_during"));
                diags.extend(d);
                let object = MockObject {
                    type_name: b.labels.first().cloned().unwrap_or_default(),
                    defaults: c.attribute("defaults").map(|a| a.expr.clone()),
                    during_plan,
                    decl_range: b.def_range.clone(),
                };
                let list = if b.block_type == "mock_resource" {
                    &mut contents.resources
                } else {
                    &mut contents.data
                };
                if let Some(first) = list.iter().find(|m| m.type_name == object.type_name) {
                    diags.push(
                        Diagnostic::error(
                            format!("Duplicate {} block", b.block_type),
                            format!(
                                "A {} block for {} has already been defined at {}.",
                                b.block_type, object.type_name, first.decl_range
                            ),
                        )
                        .with_subject(b.def_range.clone()),
                    );
                    continue;
                }
                list.push(object);
            }
            "override_resource" | "override_data" => {
                let (o, d) = decode_override(b);
                diags.extend(d);
                add_override(&mut contents.overrides, o, &b.block_type, diags);
            }
            _ => {}
        }
    }
}

/// The `.tfmock.hcl` and `.tfmock.json` files of a mock provider's
/// `source` directory.
fn load_mock_source(
    dir: &std::path::Path,
    written: &str,
    range: &SourceRange,
) -> (MockContents, Diagnostics) {
    let mut diags = Diagnostics::new();
    let mut contents = MockContents::default();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(_) => {
            diags.push(
                Diagnostic::error(
                    "Failed to read mock data directory",
                    format!("Mock data directory {written} does not exist or cannot be read."),
                )
                .with_subject(range.clone()),
            );
            return (contents, diags);
        }
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".tfmock.hcl") || n.ends_with(".tfmock.json"))
        .collect();
    names.sort();
    for n in names {
        let display = format!("{}/{n}", written.trim_end_matches('/'));
        let (parsed, d) = terrace_config::loader::parse_config_file(&dir.join(&n), &display);
        diags.extend(d);
        let Some(parsed) = parsed else { continue };
        let schema = BodySchema::new()
            .labeled_block("mock_resource", &["type"])
            .labeled_block("mock_data", &["type"])
            .block("override_resource")
            .block("override_data");
        let (c, d) = Body::from_file(&parsed).content(&schema);
        diags.extend(d);
        add_mock_blocks(&c.blocks, &mut contents, &mut diags);
    }
    (contents, diags)
}

fn override_during(attr: Option<&terrace_config::body::Attribute>) -> (bool, Diagnostics) {
    let Some(attr) = attr else {
        return (false, Vec::new());
    };
    match attr.expr.as_keyword().as_deref() {
        Some("plan") => (true, Vec::new()),
        Some("apply") => (false, Vec::new()),
        _ => (
            false,
            vec![Diagnostic::error(
                "Invalid override_during value",
                "The override_during attribute must be either plan or apply.",
            )
            .with_subject(attr.expr.range())],
        ),
    }
}

/// Adds `o` to the overrides of one place (the file, a run, a mock
/// provider), where each target may be overridden once.
fn add_override(
    list: &mut Vec<Override>,
    o: Option<Override>,
    block_type: &str,
    diags: &mut Diagnostics,
) {
    let Some(o) = o else { return };
    if let Some(first) = list
        .iter()
        .find(|f| f.kind == o.kind && f.target == o.target)
    {
        diags.push(
            Diagnostic::error(
                format!("Duplicate {block_type} block"),
                format!(
                    "An {block_type} block targeting {} has already been defined at {}.",
                    o.target, first.decl_range
                ),
            )
            .with_subject(o.decl_range.clone()),
        );
        return;
    }
    list.push(o);
}

fn decode_override(block: &Block) -> (Option<Override>, Diagnostics) {
    let kind = match block.block_type.as_str() {
        "override_resource" => OverrideKind::Resource,
        "override_data" => OverrideKind::Data,
        _ => OverrideKind::Module,
    };
    let values_name = if kind == OverrideKind::Module {
        "outputs"
    } else {
        "values"
    };
    let schema = BodySchema::new()
        .attr("target")
        .attr(values_name)
        .attr("override_during");
    let (c, mut diags) = block.body.content(&schema);
    let Some(target) = c.attribute("target") else {
        diags.push(
            Diagnostic::error(
                "Missing required argument",
                "The argument \"target\" is required, but no definition was found.",
            )
            .with_subject(block.def_range.clone()),
        );
        return (None, diags);
    };
    let Some(traversal) = target.expr.as_traversal() else {
        diags.push(
            Diagnostic::error(
                "Invalid target",
                "The target of an override must be the address of a resource, data source or module.",
            )
            .with_subject(target.expr.range()),
        );
        return (None, diags);
    };
    let (during_plan, d) = override_during(c.attribute("override_during"));
    diags.extend(d);
    // Override values are constants, as in a variables file: no
    // references, no function calls; checked here so a file that breaks
    // the rule stops before any run.
    if let Some(values) = c.attribute(values_name) {
        let (value, d) = values.expr.constant_value();
        let failed = has_errors(&d);
        diags.extend(d);
        let object_like = value.is_null() || value.ty().is_object() || value.ty().is_map();
        if !failed && !object_like {
            diags.push(
                Diagnostic::error(
                    format!("Invalid {values_name}"),
                    format!("The {values_name} of an override must be an object."),
                )
                .with_subject(values.expr.range()),
            );
        }
    }
    (
        Some(Override {
            kind,
            target: traversal_text(&traversal),
            target_range: target.expr.range(),
            target_attribute_range: target.range.clone(),
            values: c.attribute(values_name).map(|a| a.expr.clone()),
            during_plan,
            decl_range: block.def_range.clone(),
        }),
        diags,
    )
}

fn decode_run(block: &Block, index: usize) -> (RunSpec, Diagnostics) {
    let schema = BodySchema::new()
        .attr("command")
        .attr("providers")
        .attr("expect_failures")
        .attr("state_key")
        .attr("parallel")
        .block("variables")
        .block("module")
        .block("assert")
        .block("plan_options")
        .block("override_resource")
        .block("override_data")
        .block("override_module");
    let (content, mut diags) = block.body.content(&schema);
    let mut run = RunSpec {
        name: block.labels.first().cloned().unwrap_or_default(),
        decl_range: block.def_range.clone(),
        command: Command::Apply,
        variables: Vec::new(),
        asserts: Vec::new(),
        expect_failures: Vec::new(),
        plan_options: PlanOptionsSpec::default(),
        state_key: None,
        overrides: Vec::new(),
        index,
    };
    if let Some(attr) = content.attribute("command") {
        match attr.expr.as_keyword().as_deref() {
            Some("apply") => run.command = Command::Apply,
            Some("plan") => run.command = Command::Plan,
            _ => diags.push(
                Diagnostic::error(
                    "Invalid \"command\" keyword",
                    "The \"command\" argument requires one of the following keywords without quotes: apply or plan.",
                )
                .with_subject(attr.expr.range()),
            ),
        }
    }
    if let Some(attr) = content.attribute("state_key") {
        let (v, d) = attr.expr.constant_value();
        diags.extend(d);
        match v.as_str() {
            Some(s) => run.state_key = Some(s.to_string()),
            None => diags.push(
                Diagnostic::error(
                    "Invalid state_key",
                    "The state_key argument must be a string.",
                )
                .with_subject(attr.expr.range()),
            ),
        }
    }
    if let Some(attr) = content.attribute("expect_failures") {
        match attr.expr.as_list() {
            Some(items) => {
                for item in items {
                    match item.as_traversal() {
                        Some(t) => run.expect_failures.push(ExpectedFailure {
                            address: traversal_text(&t),
                            range: item.range(),
                        }),
                        None => diags.push(
                            Diagnostic::error(
                                "Invalid expect_failures entry",
                                "Each entry of expect_failures must be the address of a checkable object: an input variable, output value, check block, resource or data source.",
                            )
                            .with_subject(item.range()),
                        ),
                    }
                }
            }
            None => diags.push(
                Diagnostic::error(
                    "Invalid expect_failures",
                    "A static list expression is required.",
                )
                .with_subject(attr.expr.range()),
            ),
        }
    }
    for b in &content.blocks {
        match b.block_type.as_str() {
            "variables" => {
                let (attrs, d) = b.body.just_attributes();
                diags.extend(d);
                run.variables
                    .extend(attrs.into_iter().map(|a| (a.name, a.expr)));
            }
            "assert" => {
                let schema = BodySchema::new()
                    .required_attr("condition")
                    .required_attr("error_message");
                let (c, d) = b.body.content(&schema);
                let failed = has_errors(&d);
                diags.extend(d);
                if failed {
                    continue;
                }
                if let Some(cond) = c.attribute("condition") {
                    if cond.expr.variables().is_empty() {
                        diags.push(
                            Diagnostic::error(
                                "Invalid assert expression",
                                "The condition expression must refer to at least one object from elsewhere in the configuration, or else its result would not be checking anything.",
                            )
                            .with_subject(cond.expr.range()),
                        );
                        continue;
                    }
                    run.asserts.push(Assertion {
                        condition: cond.expr.clone(),
                        error_message: c.attribute("error_message").map(|a| a.expr.clone()),
                        decl_range: b.def_range.clone(),
                    });
                }
            }
            "plan_options" => {
                let (p, d) = decode_plan_options(b);
                diags.extend(d);
                run.plan_options = p;
            }
            "override_resource" | "override_data" | "override_module" => {
                let (o, d) = decode_override(b);
                diags.extend(d);
                add_override(&mut run.overrides, o, &b.block_type, &mut diags);
            }
            _ => {}
        }
    }
    (run, diags)
}

fn decode_plan_options(block: &Block) -> (PlanOptionsSpec, Diagnostics) {
    let schema = BodySchema::new()
        .attr("mode")
        .attr("refresh")
        .attr("replace")
        .attr("target");
    let (c, mut diags) = block.body.content(&schema);
    let mut out = PlanOptionsSpec::default();
    if let Some(attr) = c.attribute("mode") {
        match attr.expr.as_keyword().as_deref() {
            Some("normal") => out.mode = RunMode::Normal,
            Some("refresh-only") => out.mode = RunMode::RefreshOnly,
            _ => diags.push(
                Diagnostic::error(
                    "Invalid \"mode\" keyword",
                    "The \"mode\" argument requires one of the following keywords without quotes: normal or refresh-only",
                )
                .with_subject(attr.expr.range()),
            ),
        }
    }
    if let Some(attr) = c.attribute("refresh") {
        let (v, d) = attr.expr.constant_value();
        diags.extend(d);
        match v.as_bool() {
            Some(b) => out.refresh = b,
            None => diags.push(
                Diagnostic::error(
                    "Invalid refresh value",
                    "The refresh argument must be true or false.",
                )
                .with_subject(attr.expr.range()),
            ),
        }
    }
    for (name, list) in [("replace", &mut out.replace), ("target", &mut out.target)] {
        let Some(attr) = c.attribute(name) else {
            continue;
        };
        let Some(items) = attr.expr.as_list() else {
            diags.push(
                Diagnostic::error(
                    format!("Invalid {name}"),
                    "A static list expression is required.",
                )
                .with_subject(attr.expr.range()),
            );
            continue;
        };
        for item in items {
            match item.as_traversal() {
                Some(t) => list.push(t),
                None => diags.push(
                    Diagnostic::error(
                        format!("Invalid {name} address"),
                        "Each entry must be the address of a resource or module.",
                    )
                    .with_subject(item.range()),
                ),
            }
        }
    }
    (out, diags)
}

/// A traversal as written: `a.b["c"][0]`.
pub fn traversal_text(t: &Traversal) -> String {
    let mut out = t.root.clone();
    for step in &t.steps {
        match step {
            TraversalStep::Attr { name, .. } => {
                out.push('.');
                out.push_str(name);
            }
            TraversalStep::Index { key, .. } => {
                let e = Expression::native(
                    &SourceFile::new(String::new(), String::new()),
                    (**key).clone(),
                );
                let (v, _) = e.constant_value();
                match (v.as_str(), v.as_number()) {
                    (Some(s), _) => out.push_str(&format!("[{}]", quote(s))),
                    (None, Some(n)) => out.push_str(&format!("[{n}]")),
                    _ => out.push_str("[?]"),
                }
            }
        }
    }
    out
}
