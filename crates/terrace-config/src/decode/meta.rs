//! What `resource`, `data`, `ephemeral` and `module` blocks have in
//! common: the meta-arguments that say how many instances there are, the
//! references to a provider configuration and to dependencies, and the
//! nested blocks each may hold only once.

use super::*;

/// Where `count`, `for_each` and `lifecycle { enabled }` were set in one
/// block: each says how many instances there are, so at most one may be.
#[derive(Default)]
pub(super) struct InstanceArguments {
    count: Option<SourceRange>,
    for_each: Option<SourceRange>,
    enabled: Option<SourceRange>,
}

impl InstanceArguments {
    /// Takes `count` and `for_each` from a block's content.
    pub(super) fn take(
        &mut self,
        content: &BodyContent,
        count: &mut Option<Expression>,
        for_each: &mut Option<Expression>,
    ) {
        if let Some(attr) = content.attribute("count") {
            self.take_count(attr, count);
        }
        if let Some(attr) = content.attribute("for_each") {
            self.take_for_each(attr, for_each);
        }
    }

    pub(super) fn take_count(&mut self, attr: &Attribute, count: &mut Option<Expression>) {
        *count = Some(attr.expr.clone());
        self.count = Some(attr.name_range.clone());
    }

    pub(super) fn take_for_each(&mut self, attr: &Attribute, for_each: &mut Option<Expression>) {
        *for_each = Some(attr.expr.clone());
        self.for_each = Some(attr.name_range.clone());
    }

    /// Takes `enabled` from a `lifecycle` block's content.
    pub(super) fn take_enabled(
        &mut self,
        lifecycle: &BodyContent,
        enabled: &mut Option<Expression>,
    ) {
        if let Some(attr) = lifecycle.attribute("enabled") {
            *enabled = Some(attr.expr.clone());
            self.enabled = Some(attr.name_range.clone());
        }
    }

    /// "Invalid combination of ..." when more than one was set, over the
    /// span from the first to the last. `noun` is what is counted
    /// ("resources"), `verb` the modal of the rule ("may", "should").
    pub(super) fn check(&self, noun: &str, verb: &str, diags: &mut Diagnostics) {
        let mut set: Vec<(&SourceRange, &str)> = [
            (&self.count, "\"count\""),
            (&self.enabled, "\"enabled\""),
            (&self.for_each, "\"for_each\""),
        ]
        .into_iter()
        .filter_map(|(range, name)| range.as_ref().map(|r| (r, name)))
        .collect();
        if set.len() < 2 {
            return;
        }
        let names: Vec<&str> = set.iter().map(|(_, name)| *name).collect();
        let listed = match names.as_slice() {
            [a, b] => format!("{a} and {b}"),
            [first @ .., last] => format!("{}, and {last}", first.join(", ")),
            [] => String::new(),
        };
        set.sort_by_key(|(r, _)| r.start.byte);
        let subject = range_between(set[0].0, set[set.len() - 1].0);
        diags.push(error(
            format!("Invalid combination of {listed}"),
            format!("The {listed} meta-arguments are mutually-exclusive. Only one {verb} be used to be explicit about the number of {noun} to be created."),
            &subject,
        ));
    }
}

/// `provider` and `depends_on` of a resource of any mode.
pub(super) fn decode_resource_references(
    content: &BodyContent,
    r: &mut Resource,
    diags: &mut Diagnostics,
) {
    if let Some(attr) = content.attribute("provider") {
        let (p, more) = decode_provider_config_ref(&attr.expr, "provider");
        diags.extend(more);
        r.provider_config_ref = p;
    }
    if let Some(attr) = content.attribute("depends_on") {
        let (deps, more) = decode_depends_on(attr);
        diags.extend(more);
        r.depends_on.extend(deps);
    }
}

/// A nested block type its parent may hold once (`lifecycle`,
/// `connection`): the first is taken, a later one is "Duplicate ...
/// block" pointing at the first.
pub(super) struct OnlyOnce<'a> {
    /// The parent, as the duplicate's message names it ("This resource").
    owner: &'static str,
    first: Option<&'a Block>,
}

impl<'a> OnlyOnce<'a> {
    pub(super) fn new(owner: &'static str) -> OnlyOnce<'a> {
        OnlyOnce { owner, first: None }
    }

    /// Whether `b` is the first of its type; a later one is reported.
    pub(super) fn first(&mut self, b: &'a Block, diags: &mut Diagnostics) -> bool {
        if let Some(first) = self.first {
            diags.push(error(
                format!("Duplicate {} block", b.block_type),
                format!(
                    "{} already has a {} block at {}.",
                    self.owner, b.block_type, first.def_range
                ),
                &b.def_range,
            ));
            return false;
        }
        self.first = Some(b);
        true
    }
}
