//! Terraform 1.11's human plan output, byte for byte: what `terraform
//! plan` prints after the refresh lines (drift, the action legend, one
//! block per change, the `Plan:` summary, output changes, the "No
//! changes" texts), plus the apply summary and the `Outputs:` list that
//! `apply` prints.
//!
//! The pipeline is Terraform's: each change becomes the JSON the plan's
//! `show -json` form would carry (values, unknown and sensitive shapes,
//! replace paths), a diff is computed from that and the resource schema
//! (`differ`), and the diff is printed (`renderers`). Working from the JSON
//! form is what makes, for example, maps inside dynamic values print as
//! objects, exactly as Terraform prints them.

mod change;
mod color;
mod differ;
mod renderers;
mod state;

pub use state::render_state;

use crate::jsonval::{self, SchemaNode, J};
use crate::model::{Action, ActionReason, OutputChange, Plan, PlanMode, ResourceInstanceChange};
use change::{Change, Matcher};
use color::Colorize;
pub(crate) use renderers::go_trim_space;
use renderers::{diff_action_symbol, Diff, Opts};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use terrace_addrs::{InstanceKey, Provider, ResourceMode};
use terrace_providers::{AttributePath, PathStep, Schema};
use terrace_syntax::PRODUCT;
use terrace_value::parallel::map_in_parallel;
use terrace_value::Value;

/// Where the renderer finds the schema of a resource type.
pub trait SchemaLookup: Sync {
    fn resource_schema(
        &self,
        provider: &Provider,
        mode: ResourceMode,
        type_name: &str,
    ) -> Option<Arc<Schema>>;
}

impl<F> SchemaLookup for F
where
    F: Fn(&Provider, ResourceMode, &str) -> Option<Arc<Schema>> + Sync,
{
    fn resource_schema(
        &self,
        provider: &Provider,
        mode: ResourceMode,
        type_name: &str,
    ) -> Option<Arc<Schema>> {
        self(provider, mode, type_name)
    }
}

#[derive(Clone, Copy, Debug)]
pub struct RenderOptions {
    /// ANSI colours, as without `-no-color`.
    pub color: bool,
    /// Terminal width for wrapped paragraphs; Terraform uses 78 when
    /// stdout is not a terminal.
    pub width: usize,
}

impl RenderOptions {
    pub fn new(color: bool) -> RenderOptions {
        RenderOptions { color, width: 78 }
    }
}

impl Default for RenderOptions {
    fn default() -> RenderOptions {
        RenderOptions::new(false)
    }
}

/// Go's `format.WordWrap`: lines starting with a space stay as they are,
/// others wrap at `width - 1` columns.
pub(crate) fn word_wrap(s: &str, width: usize) -> String {
    if width <= 1 {
        return s.to_string();
    }
    s.split('\n')
        .map(|line| {
            if line.starts_with(' ') {
                line.to_string()
            } else {
                terrace_gocompat::wordwrap::wrap_string(line, width - 1)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn horizontal_rule(colorize: &Colorize, width: usize) -> String {
    if width <= 1 {
        return "\n".to_string();
    }
    colorize.color(&format!("[dark_gray]\n{}", "─".repeat(width - 1)))
}

// ----- building the JSON form of changes -----

fn encode_path(path: &AttributePath) -> Vec<J> {
    path.steps()
        .iter()
        .map(|step| match step {
            PathStep::Attribute(name) | PathStep::Key(name) => J::string(name),
            PathStep::Index(i) => J::Number(Arc::from(i.to_string())),
        })
        .collect()
}

/// What jsonplan writes for a resource instance change, as the renderer
/// reads it back.
pub(crate) struct ChangeJson {
    pub(crate) before: J,
    pub(crate) after: J,
    pub(crate) after_unknown: J,
    pub(crate) before_sensitive: J,
    pub(crate) after_sensitive: J,
    pub(crate) replace_paths: Vec<Vec<J>>,
}

pub(crate) fn resource_change_json(rc: &ResourceInstanceChange, schema: &Schema) -> ChangeJson {
    let oracle = SchemaNode::Block(&schema.block);
    let before = jsonval::from_value(&rc.before).unwrap_or(J::Null);
    let (after, after_unknown) = if rc.after.is_wholly_known() {
        (
            jsonval::from_value(&rc.after).unwrap_or(J::Null),
            J::empty_object(),
        )
    } else {
        (
            jsonval::from_value(&rc.after).unwrap_or(J::Null),
            jsonval::unknown_as_bool(&rc.after),
        )
    };
    ChangeJson {
        before,
        after,
        after_unknown,
        before_sensitive: jsonval::sensitive_as_bool(&rc.before, &oracle),
        after_sensitive: jsonval::sensitive_as_bool(&rc.after, &oracle),
        replace_paths: rc.required_replace.iter().map(encode_path).collect(),
    }
}

/// jsonplan's `GenerateChange` for an output, sensitivity from the
/// output's flag.
pub(crate) fn output_change_json(oc: &OutputChange) -> ChangeJson {
    let before = jsonval::from_value(&oc.before).unwrap_or(J::Null);
    let after = jsonval::from_value(&oc.after).unwrap_or(J::Null);
    let after_unknown = if oc.after.is_wholly_known() {
        J::Bool(false)
    } else {
        jsonval::unknown_as_bool(&oc.after)
    };
    ChangeJson {
        before,
        after,
        after_unknown,
        before_sensitive: J::Bool(oc.sensitive),
        after_sensitive: J::Bool(oc.sensitive),
        replace_paths: Vec::new(),
    }
}

/// The diff of a root output's change. terraform shows a sensitive
/// output's empty string as no value: one created as "" is not listed,
/// one that becomes "" is removed, one that was "" is added.
fn output_diff(oc: &OutputChange) -> Diff {
    let mut change = structured(&output_change_json(oc), Matcher::Always);
    if change.is_before_sensitive() || change.is_after_sensitive() {
        for value in [&mut change.before, &mut change.after] {
            if value.as_str() == Some("") {
                *value = J::Null;
            }
        }
    }
    differ::compute_diff_for_output(&change)
}

fn structured(cj: &ChangeJson, relevant: Matcher) -> Change {
    Change {
        before_explicit: false,
        after_explicit: false,
        before: cj.before.clone(),
        after: cj.after.clone(),
        unknown: cj.after_unknown.clone(),
        before_sensitive: cj.before_sensitive.clone(),
        after_sensitive: cj.after_sensitive.clone(),
        replace_paths: Matcher::from_paths(cj.replace_paths.clone(), false),
        relevant,
    }
}

// ----- the plan -----

struct RenderedChange<'a> {
    rc: &'a ResourceInstanceChange,
    diff: Diff,
}

impl RenderedChange<'_> {
    fn moved(&self) -> bool {
        self.rc.moved()
    }

    fn importing(&self) -> bool {
        self.rc.importing.is_some()
    }
}

/// The diff of one change, through its `show -json` form.
fn change_diff(rc: &ResourceInstanceChange, schemas: &dyn SchemaLookup, relevant: Matcher) -> Diff {
    let schema = schema_for(rc, schemas).unwrap_or_default();
    let cj = resource_change_json(rc, &schema);
    let mut change = structured(&cj, relevant);
    if rc.action == Action::Forget {
        change = change.as_no_op();
    }
    if schema.block.attributes.is_empty() && schema.block.block_types.is_empty() {
        return differ::compute_diff_for_output(&change);
    }
    differ::compute_diff_for_block(&change, &schema.block)
}

fn schema_for(rc: &ResourceInstanceChange, schemas: &dyn SchemaLookup) -> Option<Arc<Schema>> {
    let r = &rc.addr.resource.resource;
    schemas.resource_schema(&rc.provider.config.provider, r.mode, &r.type_name)
}

/// Changes in the order and with the filtering jsonplan applies: sorted
/// by address then deposed key, deletes of data resources dropped.
fn sorted_changes(changes: &[ResourceInstanceChange]) -> Vec<&ResourceInstanceChange> {
    sorted_change_indices(changes)
        .into_iter()
        .map(|i| &changes[i])
        .collect()
}

/// The positions in `changes` of [`sorted_changes`].
fn sorted_change_indices(changes: &[ResourceInstanceChange]) -> Vec<usize> {
    let deposed_key = |c: &ResourceInstanceChange| {
        c.deposed
            .as_ref()
            .map(|d| d.to_string())
            .unwrap_or_default()
    };
    let mut out: Vec<usize> = (0..changes.len())
        .filter(|&i| {
            let c = &changes[i];
            !(c.addr.resource.resource.mode == ResourceMode::Data && c.action == Action::Delete)
        })
        .collect();
    out.sort_by(|&a, &b| {
        let (a, b) = (&changes[a], &changes[b]);
        a.addr
            .cmp(&b.addr)
            .then_with(|| deposed_key(a).cmp(&deposed_key(b)))
    });
    out
}

/// The relevant-attribute matcher for one drifted object, or `None` when
/// nothing about it is relevant (then Terraform does not show it).
fn drift_matcher(plan: &Plan, rc: &ResourceInstanceChange) -> Option<Matcher> {
    if plan.mode == PlanMode::RefreshOnly {
        return Some(Matcher::Always);
    }
    let paths: Vec<Vec<J>> = plan
        .relevant_attributes
        .iter()
        .filter(|ra| ra.resource == rc.addr)
        .map(|ra| encode_path(&ra.attr))
        .collect();
    if paths.is_empty() {
        None
    } else {
        Some(Matcher::from_paths(paths, true))
    }
}

/// Renders `plan` as `terraform plan` prints it after refreshing. Changes
/// whose schema `schemas` cannot find are rendered without one (every
/// attribute by its JSON shape).
pub fn render_plan(plan: &Plan, schemas: &dyn SchemaLookup, opts: &RenderOptions) -> String {
    let colorize = Colorize {
        enabled: opts.color,
    };
    let width = opts.width;
    let mut out = String::new();

    let diff_of =
        |rc: &ResourceInstanceChange, relevant: Matcher| change_diff(rc, schemas, relevant);

    let drift: Vec<RenderedChange> = sorted_changes(&plan.drift)
        .into_iter()
        .filter_map(|rc| {
            drift_matcher(plan, rc).map(|m| RenderedChange {
                rc,
                diff: diff_of(rc, m),
            })
        })
        .collect();
    let mut outputs: Vec<(&OutputChange, Diff)> = plan
        .output_changes
        .iter()
        .map(|oc| (oc, output_diff(oc)))
        .collect();
    outputs.sort_by(|a, b| a.0.name.cmp(&b.0.name));

    // Each change's diff is rendered to text as soon as it is computed and
    // then dropped: a diff tree is many times the size of its text, and
    // holding every diff until the end was most of a large plan's peak
    // memory. Only the counts and the "no changes" decision need all of
    // them, and those are summed on the way. Changes are independent of
    // each other, so they are rendered on every core, in order.
    let mut diffs_empty = outputs.iter().all(|(_, d)| d.action == Action::NoOp);
    let mut counts: BTreeMap<Action, usize> = BTreeMap::new();
    let mut importing = 0;
    let mut will_print_resource_changes = false;
    let mut shown = 0usize;
    let mut shown_text = String::new();
    let sorted = sorted_changes(&plan.changes);
    let rendered = map_in_parallel(&sorted, |&rc| {
        // An unchanged object that was neither moved nor imported is never
        // shown, and the diff of identical values is a no-op, which is what
        // the "no changes" decision would read from it: skipping it saves
        // building its JSON form and diff, most of a no-op plan's rendering.
        if rc.action == Action::NoOp
            && !rc.moved()
            && rc.importing.is_none()
            && rc.before.raw_equals(&rc.after)
        {
            return None;
        }
        let c = RenderedChange {
            rc,
            diff: diff_of(rc, Matcher::Always),
        };
        let changes = c.diff.action != Action::NoOp || c.moved();
        let action = rc.action;
        let hidden = (action == Action::NoOp && !c.moved() && !c.importing())
            || (action == Action::Delete
                && rc.addr.resource.resource.mode != ResourceMode::Managed)
            || rc.addr.resource.resource.mode == ResourceMode::Ephemeral;
        let text = if hidden {
            None
        } else {
            render_change(&c, Cause::Change, &colorize)
        };
        Some((changes, hidden, text))
    });
    for (rc, rendered) in sorted.iter().zip(rendered) {
        let Some((changes, hidden, text)) = rendered else {
            continue;
        };
        if changes {
            diffs_empty = false;
        }
        if hidden {
            continue;
        }
        shown += 1;
        if rc.importing.is_some() {
            importing += 1;
        }
        if rc.action != Action::NoOp {
            will_print_resource_changes = true;
            *counts.entry(rc.action).or_default() += 1;
        }
        if let Some(text) = text {
            shown_text.push('\n');
            shown_text.push_str(&text);
            shown_text.push('\n');
        }
    }

    let have_refresh_changes =
        render_drift(&mut out, plan.mode, &drift, diffs_empty, &colorize, width);

    let rendered_outputs = render_output_changes(&outputs, &colorize);

    if shown == 0 && rendered_outputs.is_empty() {
        if plan.errored {
            if have_refresh_changes {
                out.push_str(&horizontal_rule(&colorize, width));
                out.push('\n');
            }
            out.push_str(&colorize.color(&format!("\n[reset][bold][red]Planning failed.[reset][bold] {PRODUCT} encountered an error while generating this plan.[reset]\n\n")));
            return out;
        }
        match plan.mode {
            PlanMode::RefreshOnly => {
                if have_refresh_changes {
                    return out;
                }
                out.push_str(&colorize.color("\n[reset][bold][green]No changes.[reset][bold] Your infrastructure still matches the configuration.[reset]\n\n"));
                out.push_str(&word_wrap(&format!("{PRODUCT} has checked that the real remote objects still match the result of your most recent changes, and found no differences."), width));
                out.push('\n');
            }
            PlanMode::Destroy => {
                if have_refresh_changes {
                    out.push_str(&horizontal_rule(&colorize, width));
                    out.push('\n');
                }
                out.push_str(&colorize.color("\n[reset][bold][green]No changes.[reset][bold] No objects need to be destroyed.[reset]\n\n"));
                out.push_str(&word_wrap(&format!("Either you have not created any objects yet or the existing objects were already deleted outside of {PRODUCT}."), width));
                out.push('\n');
            }
            PlanMode::Normal => {
                if have_refresh_changes {
                    out.push_str(&horizontal_rule(&colorize, width));
                    out.push('\n');
                }
                out.push_str(&colorize.color("\n[reset][bold][green]No changes.[reset][bold] Your infrastructure matches the configuration.[reset]\n\n"));
                if have_refresh_changes {
                    out.push_str(&word_wrap(&format!("Your configuration already matches the changes detected above. If you'd like to update the {PRODUCT} state to match, create and apply a refresh-only plan:\n  {PRODUCT} apply -refresh-only"), width));
                } else {
                    out.push_str(&word_wrap(&format!("{PRODUCT} has compared your real infrastructure against your configuration and found no differences, so no changes are needed."), width));
                }
                out.push('\n');
            }
        }
        return out;
    }

    if have_refresh_changes {
        out.push_str(&horizontal_rule(&colorize, width));
        out.push('\n');
    }

    if will_print_resource_changes {
        out.push_str(&word_wrap(&format!("\n{PRODUCT} used the selected providers to generate the following execution plan. Resource actions are indicated with the following symbols:"), width));
        out.push('\n');
        let legend = [
            (Action::Create, "  [green]+[reset] create"),
            (Action::Update, "  [yellow]~[reset] update in-place"),
            (Action::Delete, "  [red]-[reset] destroy"),
            (
                Action::DeleteThenCreate,
                "[red]-[reset]/[green]+[reset] destroy and then create replacement",
            ),
            (
                Action::CreateThenDelete,
                "[green]+[reset]/[red]-[reset] create replacement and then destroy",
            ),
            (Action::Read, " [cyan]<=[reset] read (data resources)"),
        ];
        for (action, text) in legend {
            if counts.get(&action).copied().unwrap_or(0) > 0 {
                out.push_str(&colorize.color(text));
                out.push('\n');
            }
        }
    }

    if shown > 0 {
        if plan.errored {
            out.push_str(&format!(
                "\n{PRODUCT} planned the following actions, but then encountered a problem:\n"
            ));
        } else {
            out.push_str(&format!(
                "\n{PRODUCT} will perform the following actions:\n"
            ));
        }
        out.push_str(&shown_text);
        let count = |a: Action| counts.get(&a).copied().unwrap_or(0);
        let to_add = count(Action::Create)
            + count(Action::DeleteThenCreate)
            + count(Action::CreateThenDelete);
        let to_destroy = count(Action::Delete)
            + count(Action::DeleteThenCreate)
            + count(Action::CreateThenDelete);
        let line = if importing > 0 {
            format!(
                "\n[bold]Plan:[reset] {importing} to import, {to_add} to add, {} to change, {to_destroy} to destroy.\n",
                count(Action::Update)
            )
        } else {
            format!(
                "\n[bold]Plan:[reset] {to_add} to add, {} to change, {to_destroy} to destroy.\n",
                count(Action::Update)
            )
        };
        out.push_str(&colorize.color(&line));
    }

    if !rendered_outputs.is_empty() {
        out.push_str("\nChanges to Outputs:\n");
        out.push_str(&rendered_outputs);
        out.push('\n');
        if counts.is_empty() {
            out.push_str(&word_wrap(&format!("\nYou can apply this plan to save these new output values to the {PRODUCT} state, without changing any real infrastructure."), width));
            out.push('\n');
        }
    }
    out
}

/// The text of each part of a plan as `render_plan` prints it, one entry
/// per shown item, for renderers that lay the plan out differently (the
/// HTML report). The texts carry the same diff semantics as the human
/// plan: sensitive values `(sensitive value)`, unknowns `(known after
/// apply)`, `# forces replacement` markers.
#[derive(Clone, Debug, Default)]
pub struct PlanItemTexts {
    /// Index into `plan.changes` and the change's block of text (its `#`
    /// comment lines, then the diff), for every change the human plan
    /// shows.
    pub changes: Vec<(usize, String)>,
    /// Index into `plan.drift` and its text, for every drifted object the
    /// human plan would show (relevant to the plan, or every one in
    /// refresh-only mode).
    pub drift: Vec<(usize, String)>,
    /// Output name and its one-line-or-more diff (`+ name = value`), for
    /// every output that changes.
    pub outputs: Vec<(String, String)>,
}

/// Renders every shown change, drifted object and output change of
/// `plan` separately, without colour.
pub fn render_plan_items(plan: &Plan, schemas: &dyn SchemaLookup) -> PlanItemTexts {
    let colorize = Colorize { enabled: false };
    let diff_of =
        |rc: &ResourceInstanceChange, relevant: Matcher| change_diff(rc, schemas, relevant);
    let mut texts = PlanItemTexts::default();
    for index in sorted_change_indices(&plan.changes) {
        let rc = &plan.changes[index];
        let rendered = RenderedChange {
            rc,
            diff: diff_of(rc, Matcher::Always),
        };
        if rc.action == Action::Delete && rc.addr.resource.resource.mode != ResourceMode::Managed {
            continue;
        }
        if let Some(text) = render_change(&rendered, Cause::Change, &colorize) {
            texts.changes.push((index, text));
        }
    }
    for index in sorted_change_indices(&plan.drift) {
        let rc = &plan.drift[index];
        let Some(matcher) = drift_matcher(plan, rc) else {
            continue;
        };
        let rendered = RenderedChange {
            rc,
            diff: diff_of(rc, matcher),
        };
        if plan.mode != PlanMode::RefreshOnly && rendered.diff.action == Action::NoOp {
            continue;
        }
        if let Some(text) = render_change(&rendered, Cause::Drift, &colorize) {
            texts.drift.push((index, text));
        }
    }
    let mut outputs: Vec<&OutputChange> = plan.output_changes.iter().collect();
    outputs.sort_by(|a, b| a.name.cmp(&b.name));
    let max_len = outputs
        .iter()
        .map(|oc| renderers::ensure_valid_attribute_name(&oc.name).len())
        .max()
        .unwrap_or(0);
    for oc in outputs {
        let diff = output_diff(oc);
        let text = render_output_changes_aligned(&[(oc, diff)], &colorize, max_len);
        if !text.is_empty() {
            texts.outputs.push((oc.name.clone(), text));
        }
    }
    texts
}

fn render_output_changes(outputs: &[(&OutputChange, Diff)], colorize: &Colorize) -> String {
    let max_len = outputs
        .iter()
        .map(|(oc, _)| renderers::ensure_valid_attribute_name(&oc.name).len())
        .max()
        .unwrap_or(0);
    render_output_changes_aligned(outputs, colorize, max_len)
}

/// The output changes with names padded to `max_len`, so that outputs
/// rendered one by one line up as they do together.
fn render_output_changes_aligned(
    outputs: &[(&OutputChange, Diff)],
    colorize: &Colorize,
    max_len: usize,
) -> String {
    let escaped: Vec<String> = outputs
        .iter()
        .map(|(oc, _)| renderers::ensure_valid_attribute_name(&oc.name))
        .collect();
    let opts = Opts::new(*colorize);
    let mut lines = Vec::new();
    for ((_, diff), name) in outputs.iter().zip(&escaped) {
        if diff.action == Action::NoOp {
            continue;
        }
        let padding = max_len.saturating_sub(name.chars().count());
        lines.push(format!(
            "{} {name}{} = {}",
            colorize.color(diff_action_symbol(diff.action)),
            " ".repeat(padding),
            diff.render(0, &opts)
        ));
    }
    lines.join("\n")
}

fn render_drift(
    out: &mut String,
    mode: PlanMode,
    drift: &[RenderedChange],
    diffs_empty: bool,
    colorize: &Colorize,
    width: usize,
) -> bool {
    let shown: Vec<&RenderedChange> = drift
        .iter()
        .filter(|d| mode == PlanMode::RefreshOnly || d.diff.action != Action::NoOp)
        .collect();
    if shown.is_empty() {
        return false;
    }
    if diffs_empty && mode != PlanMode::RefreshOnly {
        return false;
    }
    out.push_str(&colorize.color(&format!(
        "\n[bold][cyan]Note:[reset][bold] Objects have changed outside of {PRODUCT}\n"
    )));
    out.push('\n');
    out.push_str(&word_wrap(&format!("{PRODUCT} detected the following changes made outside of {PRODUCT} since the last \"{PRODUCT} apply\" which may have affected this plan:\n"), width));
    for d in shown {
        if let Some(text) = render_change(d, Cause::Drift, colorize) {
            out.push('\n');
            out.push_str(&text);
            out.push('\n');
        }
    }
    let closing = if mode == PlanMode::RefreshOnly {
        format!("\n\nThis is a refresh-only plan, so {PRODUCT} will not take any actions to undo these. If you were expecting these changes then you can apply this plan to record the updated values in the {PRODUCT} state without changing any remote objects.")
    } else {
        "\n\nUnless you have made equivalent changes to your configuration, or ignored the relevant attributes using ignore_changes, the following plan may include actions to undo or respond to these changes.".to_string()
    };
    out.push_str(&word_wrap(&closing, width));
    out.push('\n');
    true
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cause {
    Change,
    Drift,
}

fn render_change(c: &RenderedChange, cause: Cause, colorize: &Colorize) -> Option<String> {
    let rc = c.rc;
    if rc.addr.resource.resource.mode == ResourceMode::Ephemeral {
        return None;
    }
    let action = rc.action;
    if action == Action::NoOp && !c.moved() && !c.importing() {
        return None;
    }
    let mut buf = colorize.color(&change_comment(rc, action, cause));
    let mut opts = Opts::new(*colorize);
    opts.show_unchanged_children = c.importing();
    let r = &rc.addr.resource.resource;
    let header = format!(
        "{} \"{}\" \"{}\"",
        if r.mode == ResourceMode::Managed {
            "resource"
        } else {
            "data"
        },
        r.type_name,
        r.name
    );
    let _ = write!(
        buf,
        "{} {header} {}",
        colorize.color(diff_action_symbol(action)),
        c.diff.render(0, &opts)
    );
    Some(buf)
}

fn change_comment(rc: &ResourceInstanceChange, action: Action, cause: Cause) -> String {
    let mut buf = String::new();
    let addr = rc.addr.to_string();
    let disp = match &rc.deposed {
        Some(d) => format!("{addr} (deposed object {d})"),
        None => addr.clone(),
    };
    let prev = rc.prev_run_addr.to_string();
    let moved = rc.addr != rc.prev_run_addr;
    let mut printed_moved = false;
    let r = &rc.addr.resource.resource;
    match action {
        Action::Create => {
            let _ = write!(buf, "[bold]  # {disp}[reset] will be created");
        }
        Action::Read => {
            let _ = write!(buf, "[bold]  # {disp}[reset] will be read during apply");
            match rc.action_reason {
                ActionReason::ReadBecauseConfigUnknown => {
                    buf.push_str("\n  # (config refers to values not yet known)")
                }
                ActionReason::ReadBecauseDependencyPending => {
                    buf.push_str("\n  # (depends on a resource or a module with changes pending)")
                }
                ActionReason::ReadBecauseCheckNested => {
                    buf.push_str("\n  # (config will be reloaded to verify a check block)")
                }
                _ => {}
            }
        }
        Action::Update => match cause {
            Cause::Change => {
                let _ = write!(buf, "[bold]  # {disp}[reset] will be updated in-place");
            }
            Cause::Drift => {
                let _ = write!(buf, "[bold]  # {disp}[reset] has changed");
            }
        },
        Action::CreateThenDelete | Action::DeleteThenCreate => match rc.action_reason {
            ActionReason::ReplaceBecauseTainted => {
                let _ = write!(
                    buf,
                    "[bold]  # {disp}[reset] is tainted, so must be [bold][red]replaced[reset]"
                );
            }
            ActionReason::ReplaceByRequest => {
                let _ = write!(
                    buf,
                    "[bold]  # {disp}[reset] will be [bold][red]replaced[reset], as requested"
                );
            }
            ActionReason::ReplaceByTriggers => {
                let _ = write!(buf, "[bold]  # {disp}[reset] will be [bold][red]replaced[reset] due to changes in replace_triggered_by");
            }
            _ => {
                let _ = write!(
                    buf,
                    "[bold]  # {disp}[reset] must be [bold][red]replaced[reset]"
                );
            }
        },
        Action::Delete => {
            match cause {
                Cause::Change => {
                    let _ = write!(
                        buf,
                        "[bold]  # {disp}[reset] will be [bold][red]destroyed[reset]"
                    );
                }
                Cause::Drift => {
                    let _ = write!(buf, "[bold]  # {disp}[reset] has been deleted");
                }
            }
            match rc.action_reason {
                ActionReason::DeleteBecauseNoResourceConfig => {
                    let _ = write!(
                        buf,
                        "\n  # (because {}.{} is not in configuration)",
                        r.type_name, r.name
                    );
                }
                ActionReason::DeleteBecauseNoMoveTarget => {
                    let _ = write!(
                        buf,
                        "\n  # (because {prev} was moved to {addr}, which is not in configuration)"
                    );
                }
                ActionReason::DeleteBecauseNoModule => {
                    let _ = write!(
                        buf,
                        "\n  # (because {} is not in configuration)",
                        rc.addr.module
                    );
                }
                ActionReason::DeleteBecauseWrongRepetition => match &rc.addr.resource.key {
                    InstanceKey::None => {
                        buf.push_str("\n  # (because resource uses count or for_each)")
                    }
                    InstanceKey::Int(_) => {
                        buf.push_str("\n  # (because resource does not use count)")
                    }
                    InstanceKey::String(_) => {
                        buf.push_str("\n  # (because resource does not use for_each)")
                    }
                },
                ActionReason::DeleteBecauseCountIndex => {
                    let _ = write!(
                        buf,
                        "\n  # (because index [{}] is out of range for count)",
                        index_json(&rc.addr.resource.key)
                    );
                }
                ActionReason::DeleteBecauseEnabledFalse => {
                    buf.push_str("\n  # (because enabled is false)")
                }
                ActionReason::DeleteBecauseEachKey => {
                    let _ = write!(
                        buf,
                        "\n  # (because key [{}] is not in for_each map)",
                        index_json(&rc.addr.resource.key)
                    );
                }
                _ => {}
            }
            if rc.deposed.is_some() {
                buf.push_str(
                    "\n  # (left over from a partially-failed replacement of this instance)",
                );
            }
        }
        Action::Forget => {
            let _ = write!(buf, "[bold] # {disp}[reset] will no longer be managed by {PRODUCT}, but [bold][red]will not be destroyed[reset]\n # (destroy = false is set in the configuration)");
        }
        Action::NoOp => {
            if moved {
                let _ = write!(
                    buf,
                    "[bold]  # {prev}[reset] has moved to [bold]{disp}[reset]"
                );
                printed_moved = true;
            } else if rc.importing.is_some() {
                let _ = write!(buf, "[bold]  # {disp}[reset] will be imported");
                if rc
                    .generated_config
                    .as_deref()
                    .is_some_and(|g| !g.is_empty())
                {
                    buf.push_str("\n  #[reset] (config will be generated)");
                }
            } else {
                let _ = write!(
                    buf,
                    "{disp} has an action the plan renderer doesn't support (this is a bug)"
                );
            }
        }
    }
    buf.push('\n');
    if moved && !printed_moved {
        let _ = writeln!(buf, "  # [reset](moved from {prev})");
    }
    if let Some(id) = &rc.importing {
        if action != Action::NoOp {
            if id.is_empty() {
                buf.push_str("  # [reset](will be imported first)\n");
            } else {
                let _ = writeln!(buf, "  # [reset](imported from \"{id}\")");
            }
        }
        if action.is_replace() {
            buf.push_str(
                "  # [reset][yellow]Warning: this will destroy the imported resource[reset]\n",
            );
        }
    }
    buf
}

/// An instance key as the JSON plan's `index` field writes it.
fn index_json(key: &InstanceKey) -> String {
    match key {
        InstanceKey::None => "null".to_string(),
        InstanceKey::Int(i) => i.to_string(),
        InstanceKey::String(s) => jsonval::quote(s),
    }
}

/// What `terraform plan` prints after a plan with changes: a rule, then
/// where the plan was saved (`-out`) or the note that it was not.
pub fn render_plan_footer(saved_to: Option<&str>, opts: &RenderOptions) -> String {
    render_plan_footer_with_generated(saved_to, None, opts)
}

/// [`render_plan_footer`], saying first, when `generated_to` names it,
/// that configuration was generated into that file.
pub fn render_plan_footer_with_generated(
    saved_to: Option<&str>,
    generated_to: Option<&str>,
    opts: &RenderOptions,
) -> String {
    let colorize = Colorize {
        enabled: opts.color,
    };
    let mut out = horizontal_rule(&colorize, opts.width);
    out.push('\n');
    if let Some(file) = generated_to {
        out.push('\n');
        out.push_str(&word_wrap(&format!("{PRODUCT} has generated configuration and written it to {file}. Please review the configuration and edit it as necessary before adding it to version control."), opts.width));
        out.push('\n');
    }
    match saved_to {
        Some(path) => {
            let _ = write!(
                out,
                "\nSaved the plan to: {path}\n\nTo perform exactly these actions, run the following command to apply:\n    {PRODUCT} apply {}\n",
                terrace_value::gostr::quote(path)
            );
        }
        None => {
            out.push('\n');
            out.push_str(&word_wrap(&format!("Note: You didn't use the -out option to save this plan, so {PRODUCT} can't guarantee to take exactly these actions if you run \"{PRODUCT} apply\" now."), opts.width));
            out.push('\n');
        }
    }
    out
}

// ----- apply -----

/// What `apply` and `destroy` print when done: a blank line, the summary
/// line, a newline, coloured as Terraform does.
pub fn render_apply_summary(
    destroy: bool,
    added: usize,
    changed: usize,
    destroyed: usize,
    imported: usize,
    opts: &RenderOptions,
) -> String {
    let colorize = Colorize {
        enabled: opts.color,
    };
    let text = if destroy {
        format!("Destroy complete! Resources: {destroyed} destroyed.")
    } else if imported > 0 {
        format!("Apply complete! Resources: {imported} imported, {added} added, {changed} changed, {destroyed} destroyed.")
    } else {
        format!(
            "Apply complete! Resources: {added} added, {changed} changed, {destroyed} destroyed."
        )
    };
    colorize.color(&format!("[reset][bold][green]\n{text}\n"))
}

/// The `Outputs:` block `apply` prints after its summary: every root
/// output by name, sensitive ones as `<sensitive>`, values as the console
/// formats them. Empty when there are no outputs.
pub fn render_outputs(outputs: &BTreeMap<String, (Value, bool)>, opts: &RenderOptions) -> String {
    if outputs.is_empty() {
        return String::new();
    }
    let colorize = Colorize {
        enabled: opts.color,
    };
    let mut out = colorize.color("[reset][bold][green]\nOutputs:\n\n");
    let mut lines = String::new();
    for (name, (value, sensitive)) in outputs {
        if *sensitive {
            let _ = writeln!(lines, "{name} = <sensitive>");
        } else {
            let _ = writeln!(lines, "{name} = {}", format_value(value, 0));
        }
    }
    out.push_str(go_trim_space(&lines));
    out.push('\n');
    out
}

/// Terraform's `format.OutputValue`-style rendering of a value in HCL
/// syntax, as `apply` and `output` print them.
pub fn format_value(v: &Value, ind: usize) -> String {
    crate::hclfmt::format_value(v, ind)
}

#[cfg(test)]
pub(crate) mod tests;
