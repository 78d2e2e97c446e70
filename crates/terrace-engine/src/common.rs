//! Node work shared by the plan and apply walks: variables, locals,
//! outputs and module call expansion (the same in both), resource
//! expansion and aggregate values, and the conversions between state
//! objects and values.

use crate::checks::{config_addr, object_addr, RuleKind};
use crate::expand::expand;
use crate::marks::{apply_mark_paths, mark_schema_sensitive, MarkPath};
use crate::model::{path_names, ResourceInfo};
use crate::providers::{convert_diags, typed, InBody};
use crate::scope::Env;
use crate::values::{EachKind, Repetition};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use terrace_addrs::{AbsResourceInstance, InstanceKey, Module, ModuleInstance};

use terrace_config::loader::Config;
use terrace_config::model::Variable;
use terrace_providers::{
    AttributePath, PathStep as PStep, Provider, RawState, UpgradeResourceStateRequest,
};
use terrace_states::model::{AttrsJson, ObjectState, ObjectStatus, SensitivePath};
use terrace_states::CheckStatus;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};
use terrace_value::convert::{convert, PathStep};
use terrace_value::defaults::apply_defaults;
use terrace_value::{Marks, Value};

/// The current time in RFC 3339 (UTC, seconds), as `timestamp()` gives it.
pub(crate) fn now_rfc3339() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

fn module_config<'c>(env: &'c Env<'_>, m: &Module) -> Option<&'c Config> {
    let root: &'c Config = &env.ctx.config;
    root.descendant(&path_names(m))
}

/// A variable's value made final: defaults for null or missing values,
/// type defaults, conversion to the type constraint. The declaration's own
/// `sensitive` is applied by [`mark_declared`], after validation.
fn finalize_variable(
    decl: &Variable,
    given: Option<Value>,
    addr: &str,
    range: Option<SourceRange>,
    diags: &mut Diagnostics,
) -> Value {
    let value = match given {
        None => decl
            .default
            .clone()
            .unwrap_or_else(|| Value::unknown(decl.ty.clone())),
        Some(v) if v.is_null() && !decl.nullable => match &decl.default {
            Some(d) => d.clone(),
            None => {
                let mut d = Diagnostic::error(
                    "Required variable not set",
                    format!(
                        "The given value is not suitable for {addr} defined at {}: required variable may not be set to null.",
                        short_range(&decl.decl_range)
                    ),
                );
                d.subject = range;
                diags.push(d);
                return Value::unknown(decl.ty.clone());
            }
        },
        Some(v) => {
            let (v, marks) = v.unmark();
            let v = match &decl.type_defaults {
                Some(defs) if !v.is_null() => apply_defaults(&v, defs),
                _ => v,
            };
            match convert(&v, &decl.constraint_type) {
                Ok(c) => c.mark(marks),
                Err(e) => {
                    let mut d = Diagnostic::error(
                        "Invalid value for input variable",
                        format!(
                            "The given value is not suitable for {addr} declared at {}: {e}.",
                            short_range(&decl.decl_range)
                        ),
                    );
                    d.subject = range;
                    diags.push(d);
                    return Value::unknown(decl.ty.clone());
                }
            }
        }
    };
    value
}

/// A variable's value as the rest of the configuration sees it: marked
/// sensitive or ephemeral when its declaration says so.
fn mark_declared(decl: &Variable, value: Value) -> Value {
    let value = if decl.sensitive {
        value.mark(Marks::SENSITIVE)
    } else {
        value
    };
    if decl.ephemeral {
        value.mark(Marks::EPHEMERAL)
    } else {
        value
    }
}

/// Terraform's refusal of ephemeral values where they would be persisted:
/// an error for every argument of a resource's decoded `config` (nested
/// blocks included) that holds an ephemeral value and is not write-only.
pub(crate) fn ephemeral_values_persisted(
    config: &Value,
    block: &terrace_providers::Block,
    in_body: InBody<'_>,
) -> Diagnostics {
    if !config.deep_marks().is_ephemeral() {
        return Diagnostics::new();
    }
    let mut found = terrace_providers::Diagnostics::new();
    persisted_ephemeral_paths(config, block, &AttributePath::root(), &mut found);
    convert_diags(found, Some(in_body))
}

fn persisted_ephemeral_paths(
    value: &Value,
    block: &terrace_providers::Block,
    path: &AttributePath,
    found: &mut terrace_providers::Diagnostics,
) {
    let Some(attrs) = value.as_attributes() else {
        return;
    };
    for (name, attribute) in &block.attributes {
        let Some(v) = attrs.get(name) else { continue };
        if attribute.write_only || !v.deep_marks().is_ephemeral() {
            continue;
        }
        let mut d = terrace_providers::Diagnostic::error(
            "Invalid use of ephemeral value",
            format!("Ephemeral values are not valid for {name:?}, because it is not a write-only attribute and must be persisted to state."),
        );
        d.attribute = Some(path.clone().attribute(name.clone()));
        found.push(d);
    }
    for (name, nested) in &block.block_types {
        let Some(v) = attrs.get(name) else { continue };
        if !v.deep_marks().is_ephemeral() {
            continue;
        }
        let here = path.clone().attribute(name.clone());
        match (v.as_elements(), v.as_attributes()) {
            (Some(items), _) => {
                for (i, item) in items.iter().enumerate() {
                    let at = here.clone().index(i as i64);
                    persisted_ephemeral_paths(item, &nested.block, &at, found);
                }
            }
            (None, Some(items)) if nested.nesting == terrace_providers::NestingMode::Map => {
                for (key, item) in items {
                    let at = here.clone().key(key.clone());
                    persisted_ephemeral_paths(item, &nested.block, &at, found);
                }
            }
            _ => persisted_ephemeral_paths(v, &nested.block, &here, found),
        }
    }
}

fn short_range(r: &SourceRange) -> String {
    if r.start.line == r.end.line {
        format!(
            "{}:{},{}-{}",
            r.filename, r.start.line, r.start.column, r.end.column
        )
    } else {
        format!(
            "{}:{},{}-{},{}",
            r.filename, r.start.line, r.start.column, r.end.line, r.end.column
        )
    }
}

pub(crate) fn visit_variable(env: &Env<'_>, m: &Module, name: &str) -> (bool, Diagnostics) {
    let mut diags = Diagnostics::new();
    let Some(cfg) = module_config(env, m) else {
        return (true, diags);
    };
    let Some(decl) = cfg.module.variables.get(name) else {
        return (true, diags);
    };
    let instances = env.values.module_instances(m);
    if !decl.validations.is_empty() {
        env.checks.report_objects(
            &config_addr(m, "var", name),
            instances.iter().map(|i| object_addr(i, "var", name)),
        );
    }
    // Validation rules see the value as it was given, as Terraform's do:
    // the declaration's own `sensitive` hides it from what comes after
    // (and from messages only through marks the given value carries).
    // Dependents start only once this node is done, so none sees the
    // value before it is marked.
    if m.is_root() {
        let value = match env.ctx.variables.get(name).cloned() {
            // Root values come already marked for their declaration, and
            // carry no other marks.
            Some(v) if decl.sensitive => v.unmark().0,
            Some(v) => v,
            None => finalize_variable(decl, None, &format!("var.{name}"), None, &mut diags),
        };
        let root = ModuleInstance::root();
        env.values.set_var(&root, name, value.clone());
        validate_variable(env, cfg, &root, decl, None, &mut diags);
        env.values.set_var(&root, name, mark_declared(decl, value));
        return (!has_errors(&diags), diags);
    }
    let Some((parent_m, call)) = m.call() else {
        return (true, diags);
    };
    let Some(parent_cfg) = module_config(env, &parent_m) else {
        return (true, diags);
    };
    let Some(mc) = parent_cfg.module.module_calls.get(call.name.as_ref()) else {
        return (true, diags);
    };
    let (attrs, _) = mc.config.just_attributes();
    let arg = attrs.iter().find(|a| a.name == name);
    for inst in instances.iter() {
        let scope = env.scope(parent_cfg, inst.parent(), env.values.module_rep(inst));
        let given = match arg {
            Some(a) => {
                let (v, d) = a.expr.evaluate(&scope);
                let failed = has_errors(&d);
                diags.extend(d);
                if failed {
                    Some(Value::unknown(decl.ty.clone()))
                } else {
                    Some(v)
                }
            }
            None => None,
        };
        if given.is_none() && decl.default.is_none() {
            diags.push(
                Diagnostic::error(
                    "Missing required argument",
                    format!("The argument {name:?} is required, but no definition was found."),
                )
                .with_subject(mc.config.missing_item_range()),
            );
        }
        let addr = format!("{inst}.var.{name}");
        let failed = has_errors(&diags);
        let value = finalize_variable(decl, given, &addr, arg.map(|a| a.expr.range()), &mut diags);
        env.values.set_var(inst, name, value.clone());
        if !failed && !has_errors(&diags) {
            validate_variable(
                env,
                cfg,
                inst,
                decl,
                arg.map(|a| a.expr.range()),
                &mut diags,
            );
        }
        env.values.set_var(inst, name, mark_declared(decl, value));
    }
    (!has_errors(&diags), diags)
}

pub(crate) fn visit_local(env: &Env<'_>, m: &Module, name: &str) -> (bool, Diagnostics) {
    let mut diags = Diagnostics::new();
    let Some(cfg) = module_config(env, m) else {
        return (true, diags);
    };
    let Some(local) = cfg.module.locals.get(name) else {
        return (true, diags);
    };
    for inst in env.values.module_instances(m).iter() {
        let scope = env.scope(cfg, inst.clone(), Repetition::default());
        let (v, d) = local.expr.evaluate(&scope);
        diags.extend(d);
        env.values.set_local(inst, name, v);
    }
    (!has_errors(&diags), diags)
}

/// The error for a root output that would expose a sensitive value
/// without being declared sensitive. Terraform finds it while validating,
/// before it plans anything, so a plan that has it shows no changes.
pub(crate) const OUTPUT_REFERS_TO_SENSITIVE_VALUES: &str = "Output refers to sensitive values";

pub(crate) fn visit_output(env: &Env<'_>, m: &Module, name: &str) -> (bool, Diagnostics) {
    let mut diags = Diagnostics::new();
    let Some(cfg) = module_config(env, m) else {
        return (true, diags);
    };
    let Some(out) = cfg.module.outputs.get(name) else {
        return (true, diags);
    };
    let output_config_addr = config_addr(m, "output", name);
    if !out.preconditions.is_empty() {
        env.checks.report_objects(
            &output_config_addr,
            env.values
                .module_instances(m)
                .iter()
                .map(|i| object_addr(i, "output", name)),
        );
    }
    for inst in env.values.module_instances(m).iter() {
        let errors_before = diags.iter().filter(|d| d.is_error()).count();
        let scope = env.scope(cfg, inst.clone(), Repetition::default());
        let output_object_addr = object_addr(inst, "output", name);
        check_rules(
            env,
            &scope,
            &out.preconditions,
            RuleKind::OutputPrecondition,
            &CheckedObject {
                config_addr: &output_config_addr,
                object_addr: &output_object_addr,
            },
            "Module output value precondition failed",
            &mut diags,
        );
        let value = match &out.expr {
            Some(e) => {
                let (v, d) = e.evaluate(&scope);
                diags.extend(d);
                v
            }
            None => Value::null(terrace_value::Type::Dynamic),
        };
        if m.is_root() && !out.sensitive && value.deep_marks().is_sensitive() {
            diags.push(
                Diagnostic::error(
                    OUTPUT_REFERS_TO_SENSITIVE_VALUES,
                    format!("To reduce the risk of accidentally exporting sensitive data that was intended to be only internal, {PRODUCT} requires that any root module output containing sensitive data be explicitly marked as sensitive, to confirm your intent.\n\nIf you do intend to export this data, annotate the output value as sensitive by adding the following argument:\n    sensitive = true"),
                )
                .with_subject(out.decl_range.clone()),
            );
        }
        if !out.ephemeral && value.deep_marks().is_ephemeral() {
            let mut d = Diagnostic::error(
                "Ephemeral value not allowed",
                "This output value is not declared as returning an ephemeral value, so it cannot be set to a result derived from an ephemeral value.",
            );
            d.subject = out.expr.as_ref().map(|e| e.range());
            diags.push(d);
        }
        // A child module's `sensitive = true` hides the output where it is
        // declared but, as in terraform 1.11, does not mark the value its
        // caller sees (a root output may pass it on without declaring it
        // sensitive); values sensitive on their own keep their marks.
        let value = if out.sensitive && m.is_root() {
            value.mark(Marks::SENSITIVE)
        } else {
            value
        };
        let value = if out.ephemeral {
            value.mark(Marks::EPHEMERAL)
        } else {
            value
        };
        // A root output that failed (its value, a precondition) has no
        // value to plan, as in terraform: no change is planned or shown
        // for it. A child module's still gives its callers a value, so
        // that they report no errors of their own about it.
        let failed = diags.iter().filter(|d| d.is_error()).count() > errors_before;
        if m.is_root() && failed {
            continue;
        }
        env.values.set_output(inst, name, value);
    }
    (!has_errors(&diags), diags)
}

/// The object whose conditions are being evaluated, as the walk's check
/// results name it: its configuration object and its own address.
pub(crate) struct CheckedObject<'a> {
    pub config_addr: &'a str,
    pub object_addr: &'a str,
}

impl RuleResult {
    fn status(&self) -> (CheckStatus, Option<&str>) {
        match self {
            RuleResult::Pass => (CheckStatus::Pass, None),
            RuleResult::Fail(message) => (CheckStatus::Fail, Some(message)),
            RuleResult::Unknown => (CheckStatus::Unknown, None),
            RuleResult::Error => (CheckStatus::Error, None),
        }
    }
}

/// Evaluates preconditions or postconditions (`kind`) of one object and
/// records each outcome in the walk's check results; a false condition is
/// an error with the rule's message.
pub(crate) fn check_rules(
    env: &Env<'_>,
    scope: &dyn terrace_lang::scope::Scope,
    rules: &[terrace_config::model::CheckRule],
    kind: RuleKind,
    object: &CheckedObject<'_>,
    summary: &str,
    diags: &mut Diagnostics,
) {
    for (index, rule) in rules.iter().enumerate() {
        let result = eval_rule(scope, rule, diags);
        let (status, failure) = result.status();
        env.checks.report(
            object.config_addr,
            object.object_addr,
            (kind, index),
            status,
            failure,
        );
        if let RuleResult::Fail(message) = result {
            let mut d = Diagnostic::error(summary, message).as_condition_failure();
            if let Some(cond) = &rule.condition {
                d.subject = Some(cond.range());
                d.expression_values = crate::diagvals::expression_values(cond, scope);
            }
            diags.push(d);
        }
    }
}

/// [`check_rules`] for a resource instance.
pub(crate) fn check_resource_rules(
    env: &Env<'_>,
    scope: &dyn terrace_lang::scope::Scope,
    addr: &terrace_addrs::AbsResourceInstance,
    postconditions: bool,
    diags: &mut Diagnostics,
) {
    let Some(r) = env
        .model
        .resources
        .get(&addr.config_resource())
        .and_then(|info| info.config)
    else {
        return;
    };
    let (rules, kind, summary) = if postconditions {
        (
            &r.postconditions,
            RuleKind::ResourcePostcondition,
            "Resource postcondition failed",
        )
    } else {
        (
            &r.preconditions,
            RuleKind::ResourcePrecondition,
            "Resource precondition failed",
        )
    };
    if rules.is_empty() {
        return;
    }
    let config_addr = addr.config_resource().to_string();
    let object_addr = addr.to_string();
    let object = CheckedObject {
        config_addr: &config_addr,
        object_addr: &object_addr,
    };
    if env.resource_conditions_warn {
        let mut found = Diagnostics::new();
        check_rules(env, scope, rules, kind, &object, summary, &mut found);
        diags.extend(found.into_iter().map(|mut d| {
            if d.summary == summary {
                d.severity = terrace_syntax::Severity::Warning;
            }
            d
        }));
    } else {
        check_rules(env, scope, rules, kind, &object, summary, diags);
    }
}

/// Records whether the data source scoped to `check` in `module` was read
/// without errors (`failure`: the diagnostics of a read that failed, as
/// one message in the way terraform joins them).
pub(crate) fn report_check_data_source(
    env: &Env<'_>,
    module: &ModuleInstance,
    check: &str,
    failure: Option<&Diagnostics>,
) {
    let describe = |d: &Diagnostic| {
        if d.detail.is_empty() {
            d.summary.clone()
        } else {
            format!("{}: {}", d.summary, d.detail)
        }
    };
    let message = failure.map(|diags| match diags.as_slice() {
        [one] => describe(one),
        many => {
            let mut text = format!("{} problems:\n", many.len());
            for d in many {
                text.push_str("\n- ");
                text.push_str(&describe(d));
            }
            text
        }
    });
    env.checks.report(
        &config_addr(&module.module(), "check", check),
        &object_addr(module, "check", check),
        (RuleKind::CheckDataResource, 0),
        if message.is_some() {
            CheckStatus::Fail
        } else {
            CheckStatus::Pass
        },
        message.as_deref(),
    );
}

/// Tells the walk's check results which instances a resource expanded
/// to, when it declares conditions.
pub(crate) fn report_resource_objects(
    env: &Env<'_>,
    info: &ResourceInfo<'_>,
    expansion: &ResourceExpansion,
) {
    let config_addr = info.addr.to_string();
    if !env.checks.has_checks(&config_addr) {
        return;
    }
    let objects = expansion.iter().flat_map(|(module, _, keys)| {
        keys.iter().map(move |(key, _)| {
            info.addr
                .resource
                .absolute(module.clone())
                .instance(key.clone())
                .to_string()
        })
    });
    env.checks.report_objects(&config_addr, objects);
}

/// The outcome of one condition.
pub(crate) enum RuleResult {
    Pass,
    /// The condition is false; the message to show for it.
    Fail(String),
    /// Not known yet (during plan).
    Unknown,
    /// The condition or its message could not be evaluated; reported.
    Error,
}

/// What a false condition says when its own message cannot be shown; the
/// diagnostics beside it explain why.
const INVALID_MESSAGE_STAND_IN: &str =
    "This check failed, but has an invalid error message as described in the other accompanying messages.";

/// Evaluates a precondition, postcondition or `check` assertion as
/// OpenTofu's `evalCheckRule` does: the error message first, whatever the
/// condition gives (so a message that may not be shown is reported even
/// while the condition holds), then the condition; problems with either
/// expression go into `diags` as errors.
pub(crate) fn eval_rule(
    scope: &dyn terrace_lang::scope::Scope,
    rule: &terrace_config::model::CheckRule,
    diags: &mut Diagnostics,
) -> RuleResult {
    let Some(cond) = &rule.condition else {
        return RuleResult::Pass;
    };
    let before = diags.len();
    let message = match &rule.error_message {
        Some(expr) => condition_error_message(expr, scope, diags),
        None => String::new(),
    };
    let message_failed = has_errors(&diags[before..]);
    match eval_condition(scope, cond, diags) {
        _ if message_failed => RuleResult::Error,
        Condition::Holds => RuleResult::Pass,
        Condition::Unknown => RuleResult::Unknown,
        Condition::Invalid => RuleResult::Error,
        Condition::Fails if message.is_empty() => {
            RuleResult::Fail(INVALID_MESSAGE_STAND_IN.to_string())
        }
        Condition::Fails => RuleResult::Fail(message),
    }
}

/// A condition's verdict.
enum Condition {
    Holds,
    Fails,
    Unknown,
    /// Reported in the diagnostics.
    Invalid,
}

fn eval_condition(
    scope: &dyn terrace_lang::scope::Scope,
    cond: &terrace_config::expr::Expression,
    diags: &mut Diagnostics,
) -> Condition {
    let (v, d) = cond.evaluate(scope);
    let failed = has_errors(&d);
    diags.extend(d);
    if failed {
        return Condition::Invalid;
    }
    // A condition over sensitive values still decides; only its message
    // is kept from view.
    let (v, _) = v.unmark_deep();
    if !v.is_known() {
        return Condition::Unknown;
    }
    let invalid = |detail: String, diags: &mut Diagnostics| {
        let mut d =
            Diagnostic::error("Invalid condition result", detail).with_subject(cond.range());
        d.expression_values = crate::diagvals::expression_values(cond, scope);
        diags.push(d);
        Condition::Invalid
    };
    if v.is_null() {
        return invalid(
            "Condition expression must return either true or false, not null.".into(),
            diags,
        );
    }
    match convert(&v, &terrace_value::Type::Bool) {
        Ok(b) if b.as_bool().unwrap_or(true) => Condition::Holds,
        Ok(_) => Condition::Fails,
        Err(e) => invalid(format!("Invalid condition result value: {e}."), diags),
    }
}

/// An `error_message` evaluated to its text, before any sensitivity is
/// looked at: `Err(())` when it is reported as unusable in `diags`, empty
/// when it is not known yet.
fn error_message_value(
    expr: &terrace_config::expr::Expression,
    scope: &dyn terrace_lang::scope::Scope,
    diags: &mut Diagnostics,
) -> Result<Value, ()> {
    let (v, d) = expr.evaluate(scope);
    let failed = has_errors(&d);
    diags.extend(d);
    if failed {
        return Err(());
    }
    let unusable = |detail: String, diags: &mut Diagnostics| {
        diags.push(Diagnostic::error("Invalid error message", detail).with_subject(expr.range()));
        Err(())
    };
    let v = match convert(&v, &terrace_value::Type::String) {
        Ok(v) => v,
        Err(e) => return unusable(format!("Unsuitable value for error message: {e}."), diags),
    };
    if v.is_known() && v.is_null() {
        return unusable(
            "Unsuitable value for error message: must not be null.".into(),
            diags,
        );
    }
    Ok(v)
}

/// A condition's or assertion's message as OpenTofu's
/// `evalCheckErrorMessage` makes it: empty (with a warning saying why)
/// when it holds sensitive or ephemeral values, which are never shown.
fn condition_error_message(
    expr: &terrace_config::expr::Expression,
    scope: &dyn terrace_lang::scope::Scope,
    diags: &mut Diagnostics,
) -> String {
    let Ok(v) = error_message_value(expr, scope, diags) else {
        return String::new();
    };
    if !v.is_known() {
        return String::new();
    }
    let (v, marks) = v.unmark_deep();
    let hidden = if marks.is_sensitive() {
        Some(("sensitive", "You can correct this by removing references to sensitive values, or by carefully using the nonsensitive() function if the expression will not reveal the sensitive data."))
    } else if marks.is_ephemeral() {
        Some(("ephemeral", "You can correct this by removing references to ephemeral values, or by using the ephemeralasnull() function on the references to not reveal ephemeral data."))
    } else {
        None
    };
    if let Some((kind, remedy)) = hidden {
        diags.push(
            Diagnostic::warning(
                format!("Error message refers to {kind} values"),
                format!("The error expression used to explain this condition refers to {kind} values, so {PRODUCT} will not display the resulting message.\n\n{remedy}"),
            )
            .with_subject(expr.range()),
        );
        return String::new();
    }
    v.as_str().map(|s| s.trim().to_string()).unwrap_or_default()
}

/// A variable validation's message, evaluated only once the validation
/// failed: a message holding a sensitive or ephemeral value is replaced by
/// a sentence saying so, with an error explaining why.
fn validation_error_message(
    rule: &terrace_config::model::CheckRule,
    scope: &dyn terrace_lang::scope::Scope,
    diags: &mut Diagnostics,
    explanations: &mut Diagnostics,
) -> String {
    const FALLBACK: &str = "Failed to evaluate condition error message.";
    let Some(expr) = &rule.error_message else {
        return FALLBACK.to_string();
    };
    let Ok(v) = error_message_value(expr, scope, diags) else {
        return FALLBACK.to_string();
    };
    if !v.is_known() {
        return FALLBACK.to_string();
    }
    let (v, marks) = v.unmark_deep();
    let hidden = if marks.is_sensitive() {
        Some(("sensitive", "a sensitive value", "You can correct this by removing references to sensitive values, or by carefully using the nonsensitive() function if the expression will not reveal the sensitive data."))
    } else if marks.is_ephemeral() {
        Some(("ephemeral", "an ephemeral value", "You can correct this by removing references to ephemeral values or by utilizing the builtin ephemeralasnull() function."))
    } else {
        None
    };
    if let Some((kind, a_value, remedy)) = hidden {
        explanations.push(
            Diagnostic::error(
                format!("Error message refers to {kind} values"),
                format!("The error expression used to explain this condition refers to {kind} values. {PRODUCT} will not display the resulting message.\n\n{remedy}"),
            )
            .with_subject(expr.range()),
        );
        return format!("The error message included {a_value}, so it will not be displayed.");
    }
    match v.as_str().map(str::trim) {
        Some(text) if !text.is_empty() => text.to_string(),
        _ => FALLBACK.to_string(),
    }
}

/// A variable's `validation` rules, evaluated in the module instance the
/// variable belongs to (Terraform 1.9 and later allow references to other
/// objects there). A rule whose condition is not known yet is skipped.
fn validate_variable(
    env: &Env<'_>,
    cfg: &Config,
    inst: &ModuleInstance,
    decl: &Variable,
    given_range: Option<SourceRange>,
    diags: &mut Diagnostics,
) {
    if decl.validations.is_empty() {
        return;
    }
    let mut scope = env.scope(cfg, inst.clone(), Repetition::default());
    scope.validated_variable = env
        .values
        .var(inst, &decl.name)
        .map(|v| (decl.name.clone(), v));
    let checked = (
        config_addr(&inst.module(), "var", &decl.name),
        object_addr(inst, "var", &decl.name),
    );
    for (index, rule) in decl.validations.iter().enumerate() {
        let Some(cond) = &rule.condition else {
            continue;
        };
        let report = |status, failure: Option<&str>| {
            env.checks.report(
                &checked.0,
                &checked.1,
                (RuleKind::InputValidation, index),
                status,
                failure,
            );
        };
        let verdict = eval_condition(&scope, cond, diags);
        match verdict {
            Condition::Holds => report(CheckStatus::Pass, None),
            Condition::Unknown => report(CheckStatus::Unknown, None),
            Condition::Invalid => report(CheckStatus::Error, None),
            Condition::Fails => {}
        }
        if let Condition::Fails = verdict {
            let mut explanations = Diagnostics::new();
            let message = validation_error_message(rule, &scope, diags, &mut explanations);
            report(CheckStatus::Fail, Some(&message));
            let mut d = Diagnostic::error(
                "Invalid value for variable",
                format!(
                    "{message}\n\nThis was checked by the validation rule at {}.",
                    short_range(&rule.decl_range)
                ),
            )
            .as_condition_failure();
            d.subject = Some(
                given_range
                    .clone()
                    .unwrap_or_else(|| decl.decl_range.clone()),
            );
            d.expression_values = crate::diagvals::expression_values(cond, &scope);
            diags.push(d);
            diags.extend(explanations);
        }
    }
}

pub(crate) fn visit_module_call(env: &Env<'_>, m: &Module, name: &str) -> (bool, Diagnostics) {
    let mut diags = Diagnostics::new();
    let Some(cfg) = module_config(env, m) else {
        return (true, diags);
    };
    let Some(mc) = cfg.module.module_calls.get(name) else {
        return (true, diags);
    };
    if let Some(child) = cfg.children.get(name) {
        let (attrs, _) = mc.config.just_attributes();
        for a in &attrs {
            if !child.module.variables.contains_key(&a.name) {
                diags.push(
                    Diagnostic::error(
                        "Unsupported argument",
                        format!("An argument named {:?} is not expected here.", a.name),
                    )
                    .with_subject(a.name_range.clone()),
                );
            }
        }
    }
    let mut children = Vec::new();
    for inst in env.values.module_instances(m).iter() {
        let scope = env.scope(cfg, inst.clone(), Repetition::default());
        match expand(&scope, mc.count.as_ref(), mc.for_each.as_ref()) {
            Ok((kind, keys)) => {
                env.values.set_call_kind(inst, name, kind);
                for (key, rep) in keys {
                    let child = inst.child(name, key);
                    env.values.set_module_rep(child.clone(), rep);
                    children.push(child);
                }
            }
            Err(d) => diags.extend(d),
        }
    }
    children.sort();
    env.values.set_module_instances(m.child(name), children);
    (!has_errors(&diags), diags)
}

/// How one resource expanded in each instance of its module.
pub(crate) type ResourceExpansion = Vec<(ModuleInstance, EachKind, Vec<(InstanceKey, Repetition)>)>;

pub(crate) fn expand_resource(
    env: &Env<'_>,
    info: &ResourceInfo<'_>,
) -> (ResourceExpansion, Diagnostics) {
    let mut diags = Diagnostics::new();
    let mut out = Vec::new();
    let (Some(r), Some(cfg)) = (info.config, info.module) else {
        return (out, diags);
    };
    for inst in env.values.module_instances(&info.addr.module).iter() {
        let scope = env.scope(cfg, inst.clone(), Repetition::default());
        match expand(&scope, r.count.as_ref(), r.for_each.as_ref()) {
            Ok((kind, keys)) => out.push((inst.clone(), kind, keys)),
            Err(d) => diags.extend(d),
        }
    }
    (out, diags)
}

/// The value references to a resource see: a tuple for `count`, an object
/// for `for_each`, the instance itself otherwise.
pub(crate) fn aggregate(
    kind: EachKind,
    keys: &[InstanceKey],
    values: &HashMap<InstanceKey, Value>,
) -> Value {
    let get = |k: &InstanceKey| values.get(k).cloned().unwrap_or_else(Value::dynamic);
    match kind {
        EachKind::Single => get(&InstanceKey::None),
        EachKind::Count => Value::tuple(keys.iter().map(get).collect()),
        EachKind::ForEach => {
            let mut attrs = BTreeMap::new();
            for k in keys {
                if let InstanceKey::String(s) = k {
                    attrs.insert(s.to_string(), get(k));
                }
            }
            Value::object(attrs)
        }
    }
}

pub(crate) fn set_aggregates(
    env: &Env<'_>,
    info: &ResourceInfo<'_>,
    expansion: &ResourceExpansion,
    results: &HashMap<ModuleInstance, HashMap<InstanceKey, Value>>,
) {
    let empty = HashMap::new();
    let key = info.local_key();
    for (inst, kind, keys) in expansion {
        let ks: Vec<InstanceKey> = keys.iter().map(|(k, _)| k.clone()).collect();
        let v = aggregate(*kind, &ks, results.get(inst).unwrap_or(&empty));
        env.values.set_resource(inst, &key, v);
    }
}

pub(crate) fn sensitive_paths(obj: &ObjectState) -> Vec<MarkPath> {
    obj.sensitive_paths
        .iter()
        .map(|p| (p.0.clone(), Marks::SENSITIVE))
        .collect()
}

/// The stored object decoded with the resource's type, marks restored.
pub(crate) fn decode_object(info: &ResourceInfo<'_>, obj: &ObjectState) -> Value {
    match obj.decode(&info.ty) {
        Ok(v) => match &info.schema {
            Some(s) => mark_schema_sensitive(&s.block, &v),
            None => v,
        },
        Err(_) => Value::unknown(info.ty.clone()),
    }
}

/// Provider diagnostics about a resource instance that may exist only in
/// the state: placed in its configuration when it has one, sourceless
/// otherwise, as Terraform reports them.
pub(crate) fn instance_diags(
    d: terrace_providers::Diagnostics,
    info: &ResourceInfo<'_>,
    addr: &AbsResourceInstance,
) -> Diagnostics {
    match info.config {
        Some(r) => {
            let address = addr.to_string();
            convert_diags(
                d,
                Some(InBody::new(&r.config, &address, &info.provider.provider)),
            )
        }
        None => convert_diags(d, None),
    }
}

/// UpgradeResourceState for a stored object: the provider's current form
/// of it, marked.
pub(crate) fn upgrade_object(
    provider: &dyn Provider,
    info: &ResourceInfo<'_>,
    addr: &AbsResourceInstance,
    obj: &ObjectState,
) -> Result<Value, Diagnostics> {
    let raw_state = match &obj.attributes {
        AttrsJson::Json(text) => RawState {
            json: text.as_bytes().to_vec(),
            flatmap: BTreeMap::new(),
        },
        AttrsJson::Flat(map) => RawState {
            json: Vec::new(),
            flatmap: (**map).clone(),
        },
    };
    let resp = provider.upgrade_resource_state(UpgradeResourceStateRequest {
        type_name: info.addr.resource.type_name.to_string(),
        version: obj.schema_version as i64,
        raw_state,
    });
    let diags = instance_diags(resp.diagnostics, info, addr);
    if has_errors(&diags) {
        return Err(diags);
    }
    let v = typed(resp.upgraded_state, &info.ty);
    let v = apply_mark_paths(&v, &sensitive_paths(obj));
    Ok(match &info.schema {
        Some(s) => mark_schema_sensitive(&s.block, &v),
        None => v,
    })
}

/// A value as a state object: the JSON of the unmarked value written
/// against the schema's type `ty` (so dynamic attributes carry their type,
/// as Terraform writes them), marks as `sensitive_attributes`.
pub(crate) fn encode_object(
    value: &Value,
    ty: &terrace_value::Type,
    schema_version: i64,
) -> Result<ObjectState, Diagnostics> {
    let (plain, paths) = crate::marks::unmark(value);
    let text = terrace_value::json::to_json(&plain, ty).map_err(|e| {
        vec![Diagnostic::error(
            "Failed to encode resource object",
            format!("The resource object could not be encoded for the state: {e}."),
        )]
    })?;
    Ok(ObjectState {
        schema_version: schema_version.max(0) as u64,
        attributes: AttrsJson::Json(text.into()),
        sensitive_paths: paths
            .into_iter()
            .filter(|(_, m)| m.is_sensitive())
            .map(|(p, _)| SensitivePath(p))
            .collect(),
        private: None,
        status: ObjectStatus::Ready,
        dependencies: Vec::new(),
        create_before_destroy: false,
    })
}

/// The object's `id` attribute, for progress messages.
pub(crate) fn value_id(v: &Value) -> Option<String> {
    let attrs = v.as_attributes()?;
    let id = attrs.get("id")?;
    if !id.is_known() || id.is_null() {
        return None;
    }
    id.as_str().map(str::to_string)
}

/// The value at a provider attribute path, `None` when the path leads
/// nowhere.
pub(crate) fn value_at(v: &Value, path: &AttributePath) -> Option<Value> {
    let mut cur = v.clone();
    for step in path.steps() {
        if cur.is_null() || !cur.is_known() {
            return Some(cur);
        }
        cur = match step {
            PStep::Attribute(n) => cur.get_attr(n).ok()?,
            PStep::Key(k) => cur.index(&Value::string(k)).ok()?,
            PStep::Index(i) => cur.index(&Value::int(*i)).ok()?,
        };
    }
    Some(cur)
}

/// A path written in `ignore_changes` as a cty path.
pub(crate) fn traversal_path(t: &terrace_config::model::StaticTraversal) -> Vec<PathStep> {
    let mut out = vec![PathStep::Attr(t.traversal.root.clone())];
    for s in &t.traversal.steps {
        match s {
            terrace_syntax::ast::TraversalStep::Attr { name, .. } => {
                out.push(PathStep::Attr(name.clone()))
            }
            terrace_syntax::ast::TraversalStep::Index { key, .. } => {
                let scope = terrace_lang::scope::MapScope::constant();
                let (v, _) = terrace_lang::eval::evaluate(key, &t.file, &scope);
                out.push(PathStep::Index(v));
            }
        }
    }
    out
}

/// `config` with the values at `paths` taken from `prior`
/// (`ignore_changes`). What to keep is decided on the configuration as
/// written, for each path whose value differs between the two: the prior
/// value replaces the configured one. A path ending in a map key names
/// the map, and the key is kept as the prior map has it: its prior
/// element, or its absence (a key only the configuration has is left
/// out). A path that leads nowhere in either value (a missing attribute,
/// key or index, a null or unknown value on the way) is passed over.
pub(crate) fn ignore_changes(config: &Value, prior: &Value, paths: &[Vec<PathStep>]) -> Value {
    let mut kept: Vec<(&[PathStep], Value, Option<&str>)> = Vec::new();
    for path in paths {
        let (path, key) = match path.split_last() {
            Some((PathStep::Index(key), map_path)) if key.ty() == &terrace_value::Type::String => {
                (map_path, key.as_str())
            }
            _ => (path.as_slice(), None),
        };
        let (Some(before), Some(now)) = (path_get(prior, path), path_get(config, path)) else {
            continue;
        };
        if !before.raw_equals(&now) {
            kept.push((path, before, key));
        }
    }
    let mut out = config.clone();
    for (path, before, key) in kept {
        out = out.map_at_path(path, |now| keep_prior(now, before, key));
    }
    out
}

/// What `ignore_changes` leaves where the configuration has `now` and the
/// prior object `before`: `before` itself, or, for a key of a map, the
/// configured map with that key as `before` has it.
fn keep_prior(now: &Value, before: Value, key: Option<&str>) -> Value {
    let (Some(key), Some(element_type)) = (
        key,
        now.ty().is_map().then(|| now.ty().element_type()).flatten(),
    ) else {
        return if before.ty() == now.ty() {
            before
        } else {
            convert(&before, now.ty()).unwrap_or_else(|_| now.clone())
        };
    };
    if !now.is_null() && !now.is_known() {
        return now.clone();
    }
    let (now, marks) = now.clone().unmark();
    let mut elements = now
        .as_attributes()
        .map(|attrs| attrs.to_map())
        .unwrap_or_default();
    let (before, _) = before.unmark();
    match before
        .as_attributes()
        .and_then(|attrs| attrs.get(key).cloned())
    {
        Some(element) => {
            elements.insert(key.to_string(), element);
        }
        None => {
            elements.remove(key);
        }
    }
    Value::map(element_type.clone(), elements).mark(marks)
}

fn path_get(v: &Value, p: &[PathStep]) -> Option<Value> {
    let mut cur = v.clone();
    for s in p {
        if cur.is_null() || !cur.is_known() {
            return None;
        }
        cur = match s {
            PathStep::Attr(n) => cur.get_attr(n).ok()?,
            PathStep::Index(k) => cur.index(k).ok()?,
        };
    }
    Some(cur)
}

/// The references of a body decoded against a schema, in the order they
/// are checked before the decode, as OpenTofu's `EvalBlock` does: first
/// what can be checked statically (resources, module calls, `self`), and
/// only when those are fine every other reference. A body whose
/// references fail is not decoded, so it gets no second round of errors
/// (such as "Unsupported argument") for the same block.
///
/// Finding and classifying them depends on the body and the schema only,
/// so a resource's are found once for all its instances
/// ([`ResourceInfo::config_references`]).
pub(crate) struct BodyRefs {
    refs: Vec<(
        terrace_syntax::ast::Traversal,
        Arc<terrace_syntax::ast::SourceFile>,
    )>,
    /// Where the references that are not checked statically start.
    dynamic_from: usize,
}

impl BodyRefs {
    pub(crate) fn of(
        body: &terrace_config::body::Body,
        block: &terrace_providers::Block,
    ) -> BodyRefs {
        use terrace_lang::references::{parse_ref, Subject};
        let (mut refs, dynamic): (Vec<_>, Vec<_>) =
            terrace_config::hcldec::body_references(body, block)
                .into_iter()
                .partition(|(t, file)| {
                    matches!(
                        parse_ref(t, file).0.map(|r| r.subject),
                        Some(
                            Subject::Resource(_)
                                | Subject::ResourceInstance { .. }
                                | Subject::ModuleCall(_)
                                | Subject::ModuleCallInstance { .. }
                                | Subject::ModuleCallInstanceOutput { .. }
                                | Subject::SelfObject
                        )
                    )
                });
        let dynamic_from = refs.len();
        refs.extend(dynamic);
        BodyRefs { refs, dynamic_from }
    }

    /// Every reference, in the order the body holds them within each of
    /// the two groups.
    pub(crate) fn all(
        &self,
    ) -> &[(
        terrace_syntax::ast::Traversal,
        Arc<terrace_syntax::ast::SourceFile>,
    )] {
        &self.refs
    }

    fn check(&self, scope: &dyn terrace_lang::scope::Scope) -> Diagnostics {
        use terrace_lang::scope::Lookup;
        let mut diags = Diagnostics::new();
        for (i, (t, file)) in self.refs.iter().enumerate() {
            if i == self.dynamic_from && has_errors(&diags) {
                break;
            }
            if let Lookup::Failed(d) = scope.lookup(t, file) {
                diags.extend(d);
            }
        }
        diags
    }
}

/// A configuration body decoded against its schema after its references
/// were checked ([`BodyRefs`]).
pub(crate) fn decode_config(
    body: &terrace_config::body::Body,
    block: &terrace_providers::Block,
    scope: &dyn terrace_lang::scope::Scope,
) -> (Value, Diagnostics) {
    decode_checked(&BodyRefs::of(body, block), body, block, scope)
}

/// A resource instance's configuration: [`decode_config`] of the block
/// `r` (the resource's own, or one generated for an import), with the
/// references found once per resource when it is the resource's own.
pub(crate) fn decode_resource_config(
    info: &ResourceInfo<'_>,
    r: &terrace_config::model::Resource,
    block: &terrace_providers::Block,
    scope: &dyn terrace_lang::scope::Scope,
) -> (Value, Diagnostics) {
    match info.config_references() {
        Some(refs)
            if info.config.is_some_and(|own| std::ptr::eq(own, r))
                && info
                    .schema
                    .as_ref()
                    .is_some_and(|s| std::ptr::eq(&s.block, block)) =>
        {
            decode_checked(refs, &r.config, block, scope)
        }
        _ => decode_config(&r.config, block, scope),
    }
}

fn decode_checked(
    refs: &BodyRefs,
    body: &terrace_config::body::Body,
    block: &terrace_providers::Block,
    scope: &dyn terrace_lang::scope::Scope,
) -> (Value, Diagnostics) {
    let diags = refs.check(scope);
    if has_errors(&diags) {
        return (Value::unknown(block.implied_type()), diags);
    }
    let (v, mut d) = terrace_config::hcldec::decode_body(body, block, scope);
    let mut all = diags;
    all.append(&mut d);
    (v, all)
}

/// Which walk evaluates a `check` block.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CheckPhase {
    /// References only; results are not reported.
    Validate,
    /// Unknown results are reported as "known after apply".
    Plan,
    Apply,
}

/// A `check` block's assertions in every instance of its module: a false
/// assertion is a warning, never an error. Assertions of a check whose
/// scoped data source failed are skipped (the failure was reported).
pub(crate) fn visit_check(
    env: &Env<'_>,
    m: &Module,
    name: &str,
    phase: CheckPhase,
) -> (bool, Diagnostics) {
    let mut diags = Diagnostics::new();
    let Some(cfg) = module_config(env, m) else {
        return (true, diags);
    };
    let Some(check) = cfg.module.checks.get(name) else {
        return (true, diags);
    };
    let check_config_addr = config_addr(m, "check", name);
    if phase != CheckPhase::Validate {
        env.checks.report_objects(
            &check_config_addr,
            env.values
                .module_instances(m)
                .iter()
                .map(|i| object_addr(i, "check", name)),
        );
    }
    for inst in env.values.module_instances(m).iter() {
        if env.values.check_failed(inst, name) {
            continue;
        }
        let scope = env.scope(cfg, inst.clone(), Repetition::default());
        let check_object_addr = object_addr(inst, "check", name);
        for (index, rule) in check.asserts.iter().enumerate() {
            let result = eval_rule(&scope, rule, &mut diags);
            let (status, failure) = result.status();
            env.checks.report(
                &check_config_addr,
                &check_object_addr,
                (RuleKind::CheckAssertion, index),
                status,
                failure,
            );
            let failed = matches!(result, RuleResult::Fail(_));
            let (summary, detail) = match (result, phase) {
                (_, CheckPhase::Validate) | (RuleResult::Pass | RuleResult::Error, _) => continue,
                (RuleResult::Fail(message), _) => ("Check block assertion failed", message),
                (RuleResult::Unknown, CheckPhase::Plan) => (
                    "Check block assertion known after apply",
                    "The condition could not be evaluated at this time, a result will be known when this plan is applied.".to_string(),
                ),
                (RuleResult::Unknown, CheckPhase::Apply) => continue,
            };
            let mut d = Diagnostic::warning(summary, detail);
            d.condition_failure = failed;
            if let Some(cond) = &rule.condition {
                d.subject = Some(cond.range());
                d.expression_values = crate::diagvals::expression_values(cond, &scope);
            }
            diags.push(d);
        }
    }
    (!has_errors(&diags), diags)
}

/// The name of the `check` block a data resource is scoped to, if any.
pub(crate) fn check_container<'c>(
    cfg: &'c Config,
    r: &terrace_config::model::Resource,
) -> Option<&'c str> {
    if r.mode != terrace_lang::references::ResourceMode::Data {
        return None;
    }
    cfg.module
        .checks
        .values()
        .find(|c| {
            c.data_resource
                .as_ref()
                .is_some_and(|d| d.type_name == r.type_name && d.name == r.name)
        })
        .map(|c| c.name.as_str())
}

/// Diagnostics of a check-scoped data source: all warnings.
pub(crate) fn as_warnings(diags: Diagnostics) -> Diagnostics {
    diags
        .into_iter()
        .map(|mut d| {
            d.severity = terrace_syntax::Severity::Warning;
            d
        })
        .collect()
}
