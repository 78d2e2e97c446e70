//! A computed diff (what changed, how, and whether it forces replacement)
//! and how each kind prints: Terraform's `computed.Diff` with its
//! renderers, line for line in effect. Indentation is four spaces per
//! level, and each line carries a four-column action symbol unless symbols
//! are hidden.

use super::color::Colorize;
use crate::jsonval::J;
use crate::model::Action;
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(Clone, Debug)]
pub(crate) struct Diff {
    pub(crate) renderer: Renderer,
    pub(crate) action: Action,
    pub(crate) replace: bool,
}

/// Which primitive a value is rendered as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Prim {
    Bool,
    Number,
    String,
    /// JSON null on both sides (Go's `cty.NilType`).
    Nil,
}

#[derive(Clone, Debug)]
pub(crate) enum Renderer {
    Primitive {
        before: J,
        after: J,
        prim: Prim,
    },
    /// `Object` (attributes of an object value; no `-> null` on children)
    /// or `NestedObject` (nested attributes).
    Object {
        attributes: BTreeMap<String, Diff>,
        override_null_suffix: bool,
    },
    Map {
        elements: BTreeMap<String, Diff>,
        override_null_suffix: bool,
        override_forces_replacement: bool,
        align_keys: bool,
    },
    List {
        elements: Vec<Diff>,
        display_context: bool,
    },
    Set {
        elements: Vec<Diff>,
        override_forces_replacement: bool,
    },
    Block {
        attributes: BTreeMap<String, Diff>,
        blocks: Blocks,
    },
    Sensitive {
        inner: Box<Diff>,
        before_sensitive: bool,
        after_sensitive: bool,
    },
    SensitiveBlock {
        inner: Box<Diff>,
        before_sensitive: bool,
        after_sensitive: bool,
    },
    Unknown {
        before: Option<Box<Diff>>,
    },
    TypeChange {
        before: Box<Diff>,
        after: Box<Diff>,
    },
    WriteOnly,
}

/// Nested blocks of a block, by type name, with what applies to a whole
/// group of them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Blocks {
    pub(crate) single: BTreeMap<String, Diff>,
    pub(crate) list: BTreeMap<String, Vec<Diff>>,
    pub(crate) set: BTreeMap<String, Vec<Diff>>,
    pub(crate) map: BTreeMap<String, BTreeMap<String, Diff>>,
    pub(crate) replace: BTreeMap<String, bool>,
    pub(crate) before_sensitive: BTreeMap<String, bool>,
    pub(crate) after_sensitive: BTreeMap<String, bool>,
}

impl Blocks {
    fn all_keys(&self) -> Vec<&String> {
        let mut keys: Vec<&String> = self
            .single
            .keys()
            .chain(self.list.keys())
            .chain(self.set.keys())
            .chain(self.map.keys())
            .collect();
        keys.sort();
        keys
    }

    fn set_flags(&mut self, key: &str, replace: bool, before: bool, after: bool) {
        self.replace.insert(key.to_string(), replace);
        self.before_sensitive.insert(key.to_string(), before);
        self.after_sensitive.insert(key.to_string(), after);
    }

    pub(crate) fn add_single(&mut self, key: &str, d: Diff, replace: bool, bs: bool, asens: bool) {
        self.single.insert(key.to_string(), d);
        self.set_flags(key, replace, bs, asens);
    }

    pub(crate) fn add_list(&mut self, key: &str, d: Vec<Diff>, replace: bool, bs: bool, a: bool) {
        self.list.insert(key.to_string(), d);
        self.set_flags(key, replace, bs, a);
    }

    pub(crate) fn add_set(&mut self, key: &str, d: Vec<Diff>, replace: bool, bs: bool, a: bool) {
        self.set.insert(key.to_string(), d);
        self.set_flags(key, replace, bs, a);
    }

    pub(crate) fn add_map(
        &mut self,
        key: &str,
        d: BTreeMap<String, Diff>,
        replace: bool,
        bs: bool,
        a: bool,
    ) {
        self.map.insert(key.to_string(), d);
        self.set_flags(key, replace, bs, a);
    }

    fn flag(map: &BTreeMap<String, bool>, key: &str) -> bool {
        map.get(key).copied().unwrap_or(false)
    }
}

/// Rendering options (`computed.RenderHumanOpts`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Opts {
    pub(crate) colorize: Colorize,
    pub(crate) override_null_suffix: bool,
    pub(crate) override_forces_replacement: bool,
    pub(crate) show_unchanged_children: bool,
    pub(crate) hide_diff_action_symbols: bool,
    pub(crate) show_sensitive: bool,
    /// Whether an empty string is shown as null.
    pub(crate) empty_string_as_null: bool,
}

impl Opts {
    pub(crate) fn new(colorize: Colorize) -> Opts {
        Opts {
            colorize,
            override_null_suffix: false,
            override_forces_replacement: false,
            empty_string_as_null: false,
            show_unchanged_children: false,
            hide_diff_action_symbols: false,
            show_sensitive: false,
        }
    }

    /// A copy for children: "forces replacement" never cascades.
    pub(crate) fn child(&self) -> Opts {
        Opts {
            override_forces_replacement: false,
            ..*self
        }
    }

    fn color(&self, s: &str) -> String {
        self.colorize.color(s)
    }
}

/// The marker Terraform prints for an action, with colour markup.
pub(crate) fn diff_action_symbol(action: Action) -> &'static str {
    match action {
        Action::DeleteThenCreate => "[red]-[reset]/[green]+[reset]",
        Action::CreateThenDelete => "[green]+[reset]/[red]-[reset]",
        Action::Create => "  [green]+[reset]",
        Action::Delete => "  [red]-[reset]",
        Action::Read => " [cyan]<=[reset]",
        Action::Update => "  [yellow]~[reset]",
        Action::NoOp => "   ",
        Action::Forget => " [red].[reset]",
    }
}

fn symbol(action: Action, opts: &Opts) -> String {
    if opts.hide_diff_action_symbols {
        return String::new();
    }
    format!("{} ", opts.color(diff_action_symbol(action)))
}

fn indent(n: usize) -> String {
    "    ".repeat(n)
}

fn null_suffix(action: Action, opts: &Opts) -> String {
    if !opts.override_null_suffix && action == Action::Delete {
        opts.color(" [dark_gray]-> null[reset]")
    } else {
        String::new()
    }
}

fn forces_replacement(replace: bool, opts: &Opts) -> String {
    if replace || opts.override_forces_replacement {
        opts.color(" [red]# forces replacement[reset]")
    } else {
        String::new()
    }
}

fn unchanged(keyword: &str, count: usize, opts: &Opts) -> String {
    let plural = if count == 1 { "" } else { "s" };
    opts.color(&format!(
        "[dark_gray]# ({count} unchanged {keyword}{plural} hidden)[reset]"
    ))
}

/// HCL identifiers print bare; anything else as a Go `%q` string.
pub(crate) fn ensure_valid_attribute_name(name: &str) -> String {
    if is_valid_identifier(name) {
        name.to_string()
    } else {
        terrace_value::gostr::quote(name)
    }
}

/// hclsyntax's `ValidIdentifier`: a letter (or any ID_Start) then ID
/// continue characters or dashes.
fn is_valid_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if unicode_ident::is_xid_start(c) || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| unicode_ident::is_xid_continue(c) || c == '-')
}

/// Go's `%-*s`: the width counts characters (while Terraform measures
/// the widest key in bytes).
fn pad(s: &str, width: usize) -> String {
    let mut out = s.to_string();
    let n = s.chars().count();
    if n < width {
        out.push_str(&" ".repeat(width - n));
    }
    out
}

const IMPORTANT_ATTRIBUTES: [&str; 3] = ["id", "name", "tags"];

impl Diff {
    pub(crate) fn new(renderer: Renderer, action: Action, replace: bool) -> Diff {
        Diff {
            renderer,
            action,
            replace,
        }
    }

    pub(crate) fn render(&self, ind: usize, opts: &Opts) -> String {
        match &self.renderer {
            Renderer::Primitive {
                before,
                after,
                prim,
            } => self.render_primitive(before, after, *prim, ind, opts),
            Renderer::Object {
                attributes,
                override_null_suffix,
            } => self.render_object(attributes, *override_null_suffix, ind, opts),
            Renderer::Map {
                elements,
                override_null_suffix,
                override_forces_replacement,
                align_keys,
            } => self.render_map(
                elements,
                *override_null_suffix,
                *override_forces_replacement,
                *align_keys,
                ind,
                opts,
            ),
            Renderer::List {
                elements,
                display_context,
            } => self.render_list(elements, *display_context, ind, opts),
            Renderer::Set {
                elements,
                override_forces_replacement,
            } => self.render_set(elements, *override_forces_replacement, ind, opts),
            Renderer::Block { attributes, blocks } => {
                self.render_block(attributes, blocks, ind, opts)
            }
            Renderer::Sensitive { inner, .. } => {
                if opts.show_sensitive {
                    return inner.render(ind, opts);
                }
                format!(
                    "(sensitive value){}{}",
                    null_suffix(self.action, opts),
                    forces_replacement(self.replace, opts)
                )
            }
            Renderer::SensitiveBlock { .. } => {
                let prefix = format!("{}{}", indent(ind), symbol(Action::NoOp, opts));
                format!(
                    "{{{}\n{prefix}  # At least one attribute in this block is (or was) sensitive,\n{prefix}  # so its contents will not be displayed.\n{prefix}}}",
                    forces_replacement(self.replace, opts)
                )
            }
            Renderer::Unknown { before } => {
                if self.action == Action::Create {
                    return format!(
                        "(known after apply){}",
                        forces_replacement(self.replace, opts)
                    );
                }
                let mut o = *opts;
                o.override_null_suffix = true;
                let before = before
                    .as_ref()
                    .map(|b| b.render(ind, &o))
                    .unwrap_or_default();
                format!(
                    "{before} -> (known after apply){}",
                    forces_replacement(self.replace, opts)
                )
            }
            Renderer::TypeChange { before, after } => {
                let mut o = *opts;
                o.override_null_suffix = true;
                format!(
                    "{} {} {}",
                    before.render(ind, &o),
                    opts.color("[yellow]->[reset]"),
                    after.render(ind, &o)
                )
            }
            Renderer::WriteOnly => format!(
                "(write-only attribute){}{}",
                forces_replacement(self.replace, opts),
                null_suffix(self.action, opts)
            ),
        }
    }

    pub(crate) fn warnings(&self, ind: usize, opts: &Opts) -> Vec<String> {
        match &self.renderer {
            Renderer::Sensitive {
                inner,
                before_sensitive,
                after_sensitive,
            } => {
                if before_sensitive == after_sensitive
                    || inner.action == Action::Create
                    || inner.action == Action::Delete
                {
                    return Vec::new();
                }
                let warning = if *before_sensitive {
                    opts.color(&format!("  # [yellow]Warning[reset]: this attribute value will no longer be marked as sensitive\n{}  # after applying this change.", indent(ind)))
                } else {
                    opts.color(&format!("  # [yellow]Warning[reset]: this attribute value will be marked as sensitive and will not\n{}  # display in UI output after applying this change.", indent(ind)))
                };
                if inner.action == Action::NoOp {
                    vec![format!("{warning} The value is unchanged.")]
                } else {
                    vec![warning]
                }
            }
            Renderer::SensitiveBlock {
                inner,
                before_sensitive,
                after_sensitive,
            } => {
                if before_sensitive == after_sensitive
                    || inner.action == Action::Create
                    || inner.action == Action::Delete
                {
                    return Vec::new();
                }
                if *before_sensitive {
                    vec![opts.color(&format!("  # [yellow]Warning[reset]: this block will no longer be marked as sensitive\n{}  # after applying this change.", indent(ind)))]
                } else {
                    vec![opts.color(&format!("  # [yellow]Warning[reset]: this block will be marked as sensitive and will not\n{}  # display in UI output after applying this change.", indent(ind)))]
                }
            }
            _ => Vec::new(),
        }
    }

    fn is_object_renderer(&self) -> bool {
        matches!(self.renderer, Renderer::Object { .. })
    }

    fn render_primitive(
        &self,
        before: &J,
        after: &J,
        prim: Prim,
        ind: usize,
        opts: &Opts,
    ) -> String {
        if prim == Prim::String {
            return self.render_string(before, after, ind, opts);
        }
        let b = primitive_value(before, opts);
        let a = primitive_value(after, opts);
        let fr = forces_replacement(self.replace, opts);
        match self.action {
            Action::Create => format!("{a}{fr}"),
            Action::Delete => format!("{b}{}{fr}", null_suffix(self.action, opts)),
            Action::NoOp => format!("{b}{fr}"),
            _ => format!("{b} {} {a}{fr}", opts.color("[yellow]->[reset]")),
        }
    }

    fn render_string(&self, before: &J, after: &J, ind: usize, opts: &Opts) -> String {
        let mut lines: Vec<String> = Vec::new();
        let noop_prefix = format!("{}{}", indent(ind + 1), symbol(Action::NoOp, opts));
        match self.action {
            Action::Create | Action::NoOp => {
                let s = evaluate_string(after, opts);
                if let Some(json) = &s.json {
                    return if self.action == Action::NoOp {
                        self.render_string_as_json(ind, opts, Some(json), Some(json))
                    } else {
                        self.render_string_as_json(ind, opts, None, Some(json))
                    };
                }
                if !s.multiline {
                    return format!(
                        "{}{}",
                        s.render_simple(),
                        forces_replacement(self.replace, opts)
                    );
                }
                for line in s.text.split('\n') {
                    lines.push(format!("{noop_prefix}{line}"));
                }
            }
            Action::Delete => {
                let s = evaluate_string(before, opts);
                if s.null {
                    return format!(
                        "{}{}",
                        s.render_simple(),
                        forces_replacement(self.replace, opts)
                    );
                }
                if let Some(json) = &s.json {
                    return self.render_string_as_json(ind, opts, Some(json), None);
                }
                if !s.multiline {
                    return format!(
                        "{}{}{}",
                        s.render_simple(),
                        null_suffix(self.action, opts),
                        forces_replacement(self.replace, opts)
                    );
                }
                for line in s.text.split('\n') {
                    lines.push(format!("{noop_prefix}{line}"));
                }
            }
            _ => {
                let b = evaluate_string(before, opts);
                let a = evaluate_string(after, opts);
                if let (Some(bj), Some(aj)) = (&b.json, &a.json) {
                    return self.render_string_as_json(ind, opts, Some(bj), Some(aj));
                }
                if b.json.is_some() || a.json.is_some() {
                    let d = Diff::new(
                        Renderer::TypeChange {
                            before: Box::new(Diff::new(
                                Renderer::Primitive {
                                    before: before.clone(),
                                    after: J::Null,
                                    prim: Prim::String,
                                },
                                Action::Delete,
                                false,
                            )),
                            after: Box::new(Diff::new(
                                Renderer::Primitive {
                                    before: J::Null,
                                    after: after.clone(),
                                    prim: Prim::String,
                                },
                                Action::Create,
                                false,
                            )),
                        },
                        self.action,
                        self.replace,
                    );
                    return d.render(ind, opts);
                }
                if !b.multiline && !a.multiline {
                    return format!(
                        "{} {} {}{}",
                        b.render_simple(),
                        opts.color("[yellow]->[reset]"),
                        a.render_simple(),
                        forces_replacement(self.replace, opts)
                    );
                }
                let before_lines: Vec<&str> = b.text.split('\n').collect();
                let after_lines: Vec<&str> = a.text.split('\n').collect();
                super::differ::process_slice(
                    &before_lines,
                    &after_lines,
                    |bi, ai| {
                        if bi >= before_lines.len() {
                            lines.push(format!(
                                "{}{}{}",
                                indent(ind + 1),
                                symbol(Action::Create, opts),
                                after_lines[ai]
                            ));
                        } else if ai >= after_lines.len() {
                            lines.push(format!(
                                "{}{}{}",
                                indent(ind + 1),
                                symbol(Action::Delete, opts),
                                before_lines[bi]
                            ));
                        } else {
                            lines.push(format!("{noop_prefix}{}", before_lines[bi]));
                        }
                    },
                    |_, _| false,
                );
            }
        }
        format!(
            "<<-EOT{}\n{}\n{}{}EOT{}",
            forces_replacement(self.replace, opts),
            lines.join("\n"),
            indent(ind),
            symbol(Action::NoOp, opts),
            null_suffix(self.action, opts)
        )
    }

    fn render_string_as_json(
        &self,
        ind: usize,
        opts: &Opts,
        before: Option<&J>,
        after: Option<&J>,
    ) -> String {
        use super::change::{Change, Matcher};
        let change = Change {
            before_explicit: self.action != Action::Create,
            after_explicit: self.action != Action::Delete,
            before: before.cloned().unwrap_or(J::Null),
            after: after.cloned().unwrap_or(J::Null),
            unknown: J::Bool(false),
            before_sensitive: J::Bool(false),
            after_sensitive: J::Bool(false),
            replace_paths: Matcher::empty(false),
            relevant: Matcher::Always,
        };
        let json_diff = super::differ::json_transform(&change);
        let mut action = self.action;
        let mut json_opts = opts.child();
        json_opts.override_null_suffix = true;
        let mut whitespace = "";
        let mut replace = String::new();
        if json_diff.action == Action::NoOp && self.action == Action::Update {
            whitespace = if self.replace {
                " # whitespace changes force replacement"
            } else {
                " # whitespace changes"
            };
            json_opts.show_unchanged_children = true;
            action = Action::NoOp;
        } else {
            replace = forces_replacement(self.replace, opts);
        }
        let rendered = json_diff.render(ind + 1, &json_opts);
        if self.action == Action::Create || self.action == Action::Delete {
            action = Action::NoOp;
        }
        if rendered.contains('\n') {
            format!(
                "jsonencode({whitespace}\n{}{}{rendered}{replace}\n{}{}){}",
                indent(ind + 1),
                symbol(action, opts),
                indent(ind),
                symbol(Action::NoOp, opts),
                null_suffix(self.action, opts)
            )
        } else {
            format!("jsonencode({rendered}){whitespace}{replace}")
        }
    }

    fn render_object(
        &self,
        attributes: &BTreeMap<String, Diff>,
        override_null_suffix: bool,
        ind: usize,
        opts: &Opts,
    ) -> String {
        if attributes.is_empty() {
            return format!(
                "{{}}{}{}",
                null_suffix(self.action, opts),
                forces_replacement(self.replace, opts)
            );
        }
        let mut attribute_opts = opts.child();
        attribute_opts.override_null_suffix = override_null_suffix;
        let escaped: BTreeMap<&String, String> = attributes
            .keys()
            .map(|k| (k, ensure_valid_attribute_name(k)))
            .collect();
        let max_len = escaped.values().map(String::len).max().unwrap_or(0);
        let mut unchanged_count = 0;
        let mut buf = format!("{{{}\n", forces_replacement(self.replace, opts));
        for (key, attribute) in attributes {
            let name = &escaped[key];
            if IMPORTANT_ATTRIBUTES.contains(&key.as_str()) {
                let mut important = attribute_opts.child();
                important.show_unchanged_children = true;
                for w in attribute.warnings(ind + 1, &important) {
                    let _ = writeln!(buf, "{}{w}", indent(ind + 1));
                }
                let _ = writeln!(
                    buf,
                    "{}{}{} = {}",
                    indent(ind + 1),
                    symbol(attribute.action, &important),
                    pad(name, max_len),
                    attribute.render(ind + 1, &important)
                );
                continue;
            }
            if attribute.action == Action::NoOp && !opts.show_unchanged_children {
                unchanged_count += 1;
                continue;
            }
            for w in attribute.warnings(ind + 1, opts) {
                let _ = writeln!(buf, "{}{w}", indent(ind + 1));
            }
            let _ = writeln!(
                buf,
                "{}{}{} = {}",
                indent(ind + 1),
                symbol(attribute.action, &attribute_opts),
                pad(name, max_len),
                attribute.render(ind + 1, &attribute_opts)
            );
        }
        self.close_collection(&mut buf, ind, ("attribute", unchanged_count), '}', opts);
        buf
    }

    /// The end of a collection or object: the count of unchanged members
    /// left out (when any), then the closing bracket and, for a deleted
    /// value, `-> null`.
    fn close_collection(
        &self,
        buf: &mut String,
        ind: usize,
        (kind, unchanged_count): (&str, usize),
        closer: char,
        opts: &Opts,
    ) {
        if unchanged_count > 0 {
            let _ = writeln!(
                buf,
                "{}{}{}",
                indent(ind + 1),
                symbol(Action::NoOp, opts),
                unchanged(kind, unchanged_count, opts)
            );
        }
        let _ = write!(
            buf,
            "{}{}{closer}{}",
            indent(ind),
            symbol(Action::NoOp, opts),
            null_suffix(self.action, opts)
        );
    }

    fn render_map(
        &self,
        elements: &BTreeMap<String, Diff>,
        override_null_suffix: bool,
        override_forces_replacement: bool,
        align_keys: bool,
        ind: usize,
        opts: &Opts,
    ) -> String {
        let self_replace = self.replace && !override_forces_replacement;
        let children_replace = self.replace && override_forces_replacement;
        if elements.is_empty() {
            return format!(
                "{{}}{}{}",
                null_suffix(self.action, opts),
                forces_replacement(self_replace, opts)
            );
        }
        let escaped: BTreeMap<&String, String> = elements
            .keys()
            .map(|k| (k, terrace_value::gostr::quote(k)))
            .collect();
        let max_len = escaped.values().map(String::len).max().unwrap_or(0);
        let mut element_opts = opts.child();
        element_opts.override_null_suffix = self.action == Action::Delete || override_null_suffix;
        element_opts.override_forces_replacement = children_replace;
        let mut unchanged_count = 0;
        let mut buf = format!("{{{}\n", forces_replacement(self_replace, opts));
        for (key, element) in elements {
            if element.action == Action::NoOp && !opts.show_unchanged_children {
                unchanged_count += 1;
                continue;
            }
            for w in element.warnings(ind + 1, opts) {
                let _ = writeln!(buf, "{}{w}", indent(ind + 1));
            }
            let comma = if element.is_object_renderer() {
                ","
            } else {
                ""
            };
            let name = if align_keys {
                pad(&escaped[key], max_len)
            } else {
                escaped[key].clone()
            };
            let _ = writeln!(
                buf,
                "{}{}{name} = {}{comma}",
                indent(ind + 1),
                symbol(element.action, &element_opts),
                element.render(ind + 1, &element_opts)
            );
        }
        self.close_collection(&mut buf, ind, ("element", unchanged_count), '}', opts);
        buf
    }

    fn render_list(
        &self,
        elements: &[Diff],
        display_context: bool,
        ind: usize,
        opts: &Opts,
    ) -> String {
        if elements.is_empty() {
            return format!(
                "[]{}{}",
                null_suffix(self.action, opts),
                forces_replacement(self.replace, opts)
            );
        }
        let mut element_opts = opts.child();
        element_opts.override_null_suffix = true;
        let mut unchanged_opts = opts.child();
        unchanged_opts.show_unchanged_children = true;
        let mut unchanged_elements: Vec<&Diff> = Vec::new();
        let mut render_next = false;
        let mut buf = format!("[{}\n", forces_replacement(self.replace, opts));
        for element in elements {
            if element.action == Action::NoOp && !render_next && !opts.show_unchanged_children {
                unchanged_elements.push(element);
                continue;
            }
            render_next = false;
            let mut eopts = element_opts;
            if display_context {
                if unchanged_elements.len() > 1 {
                    let _ = writeln!(
                        buf,
                        "{}{}{}",
                        indent(ind + 1),
                        symbol(Action::NoOp, &eopts),
                        unchanged("element", unchanged_elements.len() - 1, &eopts)
                    );
                }
                if let Some(last) = unchanged_elements.last() {
                    let _ = writeln!(
                        buf,
                        "{}{}{},",
                        indent(ind + 1),
                        symbol(last.action, &unchanged_opts),
                        last.render(ind + 1, &unchanged_opts)
                    );
                }
                unchanged_elements.clear();
                if element.action == Action::NoOp {
                    eopts = unchanged_opts;
                } else {
                    render_next = true;
                }
            }
            for w in element.warnings(ind + 1, &eopts) {
                let _ = writeln!(buf, "{}{w}", indent(ind + 1));
            }
            let _ = writeln!(
                buf,
                "{}{}{},",
                indent(ind + 1),
                symbol(element.action, &eopts),
                element.render(ind + 1, &eopts)
            );
        }
        self.close_collection(
            &mut buf,
            ind,
            ("element", unchanged_elements.len()),
            ']',
            opts,
        );
        buf
    }

    fn render_set(
        &self,
        elements: &[Diff],
        override_forces_replacement: bool,
        ind: usize,
        opts: &Opts,
    ) -> String {
        let self_replace = self.replace && !override_forces_replacement;
        let children_replace = self.replace && override_forces_replacement;
        if elements.is_empty() {
            return format!(
                "[]{}{}",
                null_suffix(self.action, opts),
                forces_replacement(self_replace, opts)
            );
        }
        let mut element_opts = opts.child();
        element_opts.override_null_suffix = true;
        element_opts.override_forces_replacement = children_replace;
        let mut unchanged_count = 0;
        let mut buf = format!("[{}\n", forces_replacement(self_replace, opts));
        for element in elements {
            if element.action == Action::NoOp && !opts.show_unchanged_children {
                unchanged_count += 1;
                continue;
            }
            for w in element.warnings(ind + 1, opts) {
                let _ = writeln!(buf, "{}{w}", indent(ind + 1));
            }
            let _ = writeln!(
                buf,
                "{}{}{},",
                indent(ind + 1),
                symbol(element.action, &element_opts),
                element.render(ind + 1, &element_opts)
            );
        }
        self.close_collection(&mut buf, ind, ("element", unchanged_count), ']', opts);
        buf
    }

    fn render_block(
        &self,
        attributes: &BTreeMap<String, Diff>,
        blocks: &Blocks,
        ind: usize,
        opts: &Opts,
    ) -> String {
        let block_keys = blocks.all_keys();
        if attributes.is_empty() && block_keys.is_empty() {
            return format!("{{}}{}", forces_replacement(self.replace, opts));
        }
        let escaped: BTreeMap<&String, String> = attributes
            .keys()
            .map(|k| (k, ensure_valid_attribute_name(k)))
            .collect();
        let max_len = escaped.values().map(String::len).max().unwrap_or(0);
        let mut important_opts = opts.child();
        important_opts.show_unchanged_children = true;
        let attribute_opts = opts.child();
        let mut unchanged_attributes = 0;
        let mut unchanged_blocks = 0;
        let mut buf = format!("{{{}\n", forces_replacement(self.replace, opts));
        for (key, attribute) in attributes {
            if IMPORTANT_ATTRIBUTES.contains(&key.as_str()) {
                for w in attribute.warnings(ind + 1, &important_opts) {
                    let _ = writeln!(buf, "{}{w}", indent(ind + 1));
                }
                // Terraform pads the raw key here, not the escaped one.
                let _ = writeln!(
                    buf,
                    "{}{}{} = {}",
                    indent(ind + 1),
                    symbol(attribute.action, &important_opts),
                    pad(key, max_len),
                    attribute.render(ind + 1, &important_opts)
                );
                continue;
            }
            if attribute.action == Action::NoOp && !opts.show_unchanged_children {
                unchanged_attributes += 1;
                continue;
            }
            for w in attribute.warnings(ind + 1, opts) {
                let _ = writeln!(buf, "{}{w}", indent(ind + 1));
            }
            let _ = writeln!(
                buf,
                "{}{}{} = {}",
                indent(ind + 1),
                symbol(attribute.action, &attribute_opts),
                pad(&escaped[key], max_len),
                attribute.render(ind + 1, &attribute_opts)
            );
        }
        if unchanged_attributes > 0 {
            let _ = writeln!(
                buf,
                "{}{}{}",
                indent(ind + 1),
                symbol(Action::NoOp, opts),
                unchanged("attribute", unchanged_attributes, opts)
            );
        }
        for key in block_keys {
            let mut found_changed = false;
            let before_sens = Blocks::flag(&blocks.before_sensitive, key);
            let after_sens = Blocks::flag(&blocks.after_sensitive, key);
            let mut render_one = |diff: &Diff, map_key: &str, opts: &Opts, buf: &mut String| {
                let creating = diff.action == Action::Create && after_sens;
                let deleting = diff.action == Action::Delete && before_sens;
                let modifying = (diff.action == Action::Update || diff.action == Action::NoOp)
                    && (after_sens || before_sens);
                let owned;
                let diff = if creating || deleting || modifying {
                    let mut action = diff.action;
                    if diff.action == Action::NoOp && before_sens != after_sens {
                        action = Action::Update;
                    }
                    owned = Diff::new(
                        Renderer::SensitiveBlock {
                            inner: Box::new(diff.clone()),
                            before_sensitive: before_sens,
                            after_sensitive: after_sens,
                        },
                        action,
                        diff.replace,
                    );
                    &owned
                } else {
                    diff
                };
                if diff.action == Action::NoOp && !opts.show_unchanged_children {
                    unchanged_blocks += 1;
                    return;
                }
                if !found_changed && !attributes.is_empty() {
                    buf.push('\n');
                    found_changed = true;
                }
                let mut block_opts = opts.child();
                block_opts.override_forces_replacement = Blocks::flag(&blocks.replace, key);
                for w in diff.warnings(ind + 1, &block_opts) {
                    let _ = writeln!(buf, "{}{w}", indent(ind + 1));
                }
                let _ = writeln!(
                    buf,
                    "{}{}{}{map_key} {}",
                    indent(ind + 1),
                    symbol(diff.action, &block_opts),
                    ensure_valid_attribute_name(key),
                    diff.render(ind + 1, &block_opts)
                );
            };
            if let Some(d) = blocks.single.get(key) {
                render_one(d, "", opts, &mut buf);
            } else if let Some(m) = blocks.map.get(key) {
                for (inner_key, d) in m {
                    render_one(
                        d,
                        &format!(" {}", terrace_value::gostr::quote(inner_key)),
                        opts,
                        &mut buf,
                    );
                }
            } else if let Some(s) = blocks.set.get(key) {
                let mut set_opts = opts.child();
                set_opts.override_forces_replacement = self.replace;
                for d in s {
                    render_one(d, "", &set_opts, &mut buf);
                }
            } else if let Some(l) = blocks.list.get(key) {
                for d in l {
                    render_one(d, "", opts, &mut buf);
                }
            }
        }
        if unchanged_blocks > 0 {
            let _ = writeln!(
                buf,
                "\n{}{}{}",
                indent(ind + 1),
                symbol(Action::NoOp, opts),
                unchanged("block", unchanged_blocks, opts)
            );
        }
        let _ = write!(buf, "{}{}}}", indent(ind), symbol(Action::NoOp, opts));
        buf
    }
}

fn primitive_value(v: &J, opts: &Opts) -> String {
    match v {
        J::Null => opts.color("[dark_gray]null[reset]"),
        J::Bool(true) => "true".to_string(),
        J::Bool(false) => "false".to_string(),
        J::Number(n) => n.to_string(),
        // Only reachable when a value does not match its schema type.
        other => other.to_compact(),
    }
}

struct EvaluatedString {
    text: String,
    json: Option<J>,
    multiline: bool,
    null: bool,
}

impl EvaluatedString {
    fn render_simple(&self) -> String {
        if self.null {
            self.text.clone()
        } else {
            terrace_value::gostr::quote(&self.text)
        }
    }
}

fn evaluate_string(v: &J, opts: &Opts) -> EvaluatedString {
    let s = match v {
        J::String(s) if s.is_empty() && opts.empty_string_as_null => {
            return evaluate_string(&J::Null, opts);
        }
        J::Null => {
            return EvaluatedString {
                text: opts.color("[dark_gray]null[reset]"),
                json: None,
                multiline: false,
                null: true,
            }
        }
        J::String(s) => s.to_string(),
        other => other.to_compact(),
    };
    if s.starts_with('{') || s.starts_with('[') {
        if let Some(json) = J::parse_first(&s) {
            return EvaluatedString {
                text: s,
                json: Some(json),
                multiline: false,
                null: false,
            };
        }
    }
    if s.contains('\n') {
        return EvaluatedString {
            text: go_trim_space(&s).to_string(),
            json: None,
            multiline: true,
            null: false,
        };
    }
    EvaluatedString {
        text: s,
        json: None,
        multiline: false,
        null: false,
    }
}

/// Go's `strings.TrimSpace`: Unicode white space at both ends.
pub(crate) fn go_trim_space(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace())
}
