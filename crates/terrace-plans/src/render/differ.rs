//! From a change and its schema to a computed diff (Terraform's `differ`,
//! `jsondiff` and `collections` packages): blocks and nested blocks by
//! nesting mode, attributes by type, dynamic values and outputs by their
//! JSON shape, sensitive and unknown values wrapped around what they
//! hide, sequences aligned on their longest common subsequence.

use super::change::{Change, Matcher};
use super::renderers::{Blocks, Diff, Prim, Renderer};
use crate::jsonval::J;
use crate::model::Action;
use std::collections::BTreeMap;
use terrace_providers::{
    Attribute, AttributeType, Block, NestedAttributes, NestingMode, ObjectNesting,
};
use terrace_value::Type;

/// `CompareActions`: a child that differs from the running action makes
/// the whole an update.
fn compare_actions(current: Action, next: Action) -> Action {
    if next == Action::NoOp {
        return current;
    }
    if current != next {
        return Action::Update;
    }
    current
}

fn as_diff(change: &Change, renderer: Renderer) -> Diff {
    Diff::new(
        renderer,
        change.calculate_action(),
        change.replace_paths.matches(),
    )
}

// ----- sensitive and unknown wrappers -----

/// `CheckForSensitive`: a sensitive value renders as such, around what the
/// diff would have been without the marks.
fn check_for_sensitive(
    change: &Change,
    inner: impl FnOnce(&Change) -> Diff,
    wrap: impl FnOnce(Diff, bool, bool, Action) -> Diff,
) -> Option<Diff> {
    let before_sensitive = change.is_before_sensitive();
    let after_sensitive = change.is_after_sensitive();
    if !before_sensitive && !after_sensitive {
        return None;
    }
    let value = Change {
        before_sensitive: J::Bool(false),
        after_sensitive: J::Bool(false),
        ..change.clone()
    };
    let inner = inner(&value);
    let mut action = inner.action;
    let null_no_op = change.before.is_null()
        && !change.before_explicit
        && change.after.is_null()
        && !change.after_explicit;
    if action == Action::NoOp && before_sensitive != after_sensitive && !null_no_op {
        action = Action::Update;
    }
    Some(wrap(inner, before_sensitive, after_sensitive, action))
}

fn sensitive_wrapper(replace: bool) -> impl FnOnce(Diff, bool, bool, Action) -> Diff {
    move |inner, b, a, action| {
        Diff::new(
            Renderer::Sensitive {
                inner: Box::new(inner),
                before_sensitive: b,
                after_sensitive: a,
            },
            action,
            replace,
        )
    }
}

/// `CheckForUnknown`: an unknown after value renders as "known after
/// apply", after the before value when there is one. `child_unknown` lets
/// the before value's children show as computed rather than deleted.
fn check_for_unknown(
    change: &Change,
    child_unknown: J,
    before_diff: impl FnOnce(&Change) -> Diff,
) -> Option<Diff> {
    if !change.is_unknown() {
        return None;
    }
    let mut change = change.clone();
    change.after_explicit = true;
    if change.before.is_null() {
        return Some(as_diff(&change, Renderer::Unknown { before: None }));
    }
    let mut before = change.as_delete();
    before.unknown = child_unknown;
    // The value going away says nothing of replacement: terraform marks
    // "# forces replacement" once, after "(known after apply)".
    before.replace_paths = Matcher::empty(false);
    let inner = before_diff(&before);
    Some(as_diff(
        &change,
        Renderer::Unknown {
            before: Some(Box::new(inner)),
        },
    ))
}

fn all_true(names: impl Iterator<Item = String>) -> J {
    J::object(names.map(|n| (n, J::Bool(true))).collect())
}

// ----- blocks -----

pub(crate) fn compute_diff_for_block(change: &Change, block: &Block) -> Diff {
    if let Some(d) = check_for_sensitive(
        change,
        |c| compute_diff_for_block(c, block),
        |inner, b, a, action| {
            Diff::new(
                Renderer::SensitiveBlock {
                    inner: Box::new(inner),
                    before_sensitive: b,
                    after_sensitive: a,
                },
                action,
                change.replace_paths.matches(),
            )
        },
    ) {
        return d;
    }
    if let Some(d) = check_for_unknown_block(change, block) {
        return d;
    }

    let initial = change.default_action_for_iteration();
    let mut current = initial;
    let mut attributes = BTreeMap::new();
    for (key, attr) in &block.attributes {
        let attr_change = change.map_child(key);
        // Write-only attributes take the block's own create or delete (no-op
        // for an update), whatever the other attributes do.
        if let Some(child) = diff_child_attribute(attr_change, attr, initial) {
            current = compare_actions(current, child.action);
            attributes.insert(key.clone(), child);
        }
    }

    let mut blocks = Blocks::default();
    for (key, block_type) in &block.block_types {
        if block.attributes.contains_key(key) {
            continue;
        }
        let mut child = change.map_child(key);
        if !child.relevant.matches_partial() {
            child = child.as_no_op();
        }
        let before_sensitive = child.is_before_sensitive();
        let after_sensitive = child.is_after_sensitive();
        let forces = child.replace_paths.matches();
        let both_null = child.before.is_null() && child.after.is_null();

        if let Some(d) = check_for_unknown_block(&child, &block_type.block) {
            if d.action == Action::NoOp && both_null {
                continue;
            }
            blocks.add_single(key, d, forces, before_sensitive, after_sensitive);
            continue;
        }
        match block_type.nesting {
            NestingMode::Set => {
                let (diffs, action) = block_diffs_as_set(&child, &block_type.block);
                if action == Action::NoOp && both_null {
                    continue;
                }
                blocks.add_set(key, diffs, forces, before_sensitive, after_sensitive);
                current = compare_actions(current, action);
            }
            NestingMode::List => {
                let (diffs, action) = block_diffs_as_list(&child, &block_type.block);
                if action == Action::NoOp && both_null {
                    continue;
                }
                blocks.add_list(key, diffs, forces, before_sensitive, after_sensitive);
                current = compare_actions(current, action);
            }
            NestingMode::Map => {
                let (diffs, action) = block_diffs_as_map(&child, &block_type.block);
                if action == Action::NoOp && both_null {
                    continue;
                }
                blocks.add_map(key, diffs, forces, before_sensitive, after_sensitive);
                current = compare_actions(current, action);
            }
            NestingMode::Single | NestingMode::Group => {
                let d = compute_diff_for_block(&child, &block_type.block);
                if d.action == Action::NoOp && both_null {
                    continue;
                }
                let action = d.action;
                blocks.add_single(key, d, forces, before_sensitive, after_sensitive);
                current = compare_actions(current, action);
            }
        }
    }
    Diff::new(
        Renderer::Block { attributes, blocks },
        current,
        change.replace_paths.matches(),
    )
}

fn check_for_unknown_block(change: &Change, block: &Block) -> Option<Diff> {
    check_for_unknown(change, all_true(block.attributes.keys().cloned()), |c| {
        compute_diff_for_block(c, block)
    })
}

fn diff_child_attribute(mut change: Change, attr: &Attribute, current: Action) -> Option<Diff> {
    if !change.relevant.matches_partial() {
        change = change.as_no_op();
    }
    // Only attributes null on both sides are left out (not even counted
    // as unchanged): an empty string is shown as null, but still counted.
    let both_null = change.before.is_null() && change.after.is_null();
    // The legacy SDK cannot tell empty strings from null in blocks, so an
    // empty string attribute is shown as null; terraform shows an empty
    // string in an attribute of any type (`terraform_data`'s `input`) as
    // the string it is.
    let dynamic = matches!(&attr.ty, AttributeType::Type(ty) if ty.is_dynamic());
    if !dynamic && change.before.as_str() == Some("") {
        change.before = J::Null;
    }
    if !dynamic && change.after.as_str() == Some("") {
        change.after = J::Null;
    }
    change.before_explicit = false;
    change.after_explicit = false;
    let child = compute_diff_for_attribute(&change, attr, current);
    if child.action == Action::NoOp && both_null && !attr.write_only {
        return None;
    }
    Some(child)
}

fn block_diffs_as_list(change: &Change, block: &Block) -> (Vec<Diff>, Action) {
    let mut current = change.default_action_for_iteration();
    let mut out = Vec::new();
    for ix in 0..change.before_len().max(change.after_len()) {
        let mut value = change.slice_child(ix, ix);
        if !value.relevant.matches_partial() {
            value = value.as_no_op();
        }
        let d = compute_diff_for_block(&value, block);
        current = compare_actions(current, d.action);
        out.push(d);
    }
    (out, current)
}

fn block_diffs_as_set(change: &Change, block: &Block) -> (Vec<Diff>, Action) {
    let mut current = change.default_action_for_iteration();
    let mut out = Vec::new();
    process_set(change, |value| {
        let d = compute_diff_for_block(&value, block);
        current = compare_actions(current, d.action);
        out.push(d);
    });
    (out, current)
}

fn block_diffs_as_map(change: &Change, block: &Block) -> (BTreeMap<String, Diff>, Action) {
    transform_map(change, change.explicit_keys(), |key| {
        let mut value = change.map_child(key);
        if !value.relevant.matches_partial() {
            value = value.as_no_op();
        }
        compute_diff_for_block(&value, block)
    })
}

// ----- attributes -----

pub(crate) fn compute_diff_for_attribute(
    change: &Change,
    attr: &Attribute,
    parent: Action,
) -> Diff {
    if attr.write_only {
        let mut action = parent;
        if action == Action::NoOp && change.replace_paths.matches() {
            action = Action::Update;
        }
        return Diff::new(Renderer::WriteOnly, action, change.replace_paths.matches());
    }
    match &attr.ty {
        AttributeType::Nested(nested) => compute_diff_for_nested(change, nested),
        AttributeType::Type(ty) => compute_diff_for_type(change, ty),
    }
}

fn compute_diff_for_nested(change: &Change, nested: &NestedAttributes) -> Diff {
    if let Some(d) = check_for_sensitive(
        change,
        |c| compute_diff_for_nested(c, nested),
        sensitive_wrapper(change.replace_paths.matches()),
    ) {
        return d;
    }
    if let Some(d) = check_for_unknown(change, all_true(nested.attributes.keys().cloned()), |c| {
        compute_diff_for_nested(c, nested)
    }) {
        return d;
    }
    match nested.nesting {
        ObjectNesting::Single => nested_object(change, &nested.attributes),
        ObjectNesting::Map => {
            let single = single_nested(nested);
            let (elements, action) = transform_map(change, change.explicit_keys(), |key| {
                let mut value = change.map_child(key);
                if !value.relevant.matches_partial() {
                    value = value.as_no_op();
                }
                compute_diff_for_nested(&value, &single)
            });
            Diff::new(
                Renderer::Map {
                    elements,
                    override_null_suffix: true,
                    override_forces_replacement: true,
                    align_keys: false,
                },
                action,
                change.replace_paths.matches(),
            )
        }
        ObjectNesting::List => {
            let single = single_nested(nested);
            let mut current = change.default_action_for_iteration();
            let mut elements = Vec::new();
            for ix in 0..change.before_len().max(change.after_len()) {
                let mut value = change.slice_child(ix, ix);
                if !value.relevant.matches_partial() {
                    value = value.as_no_op();
                }
                let d = compute_diff_for_nested(&value, &single);
                current = compare_actions(current, d.action);
                elements.push(d);
            }
            Diff::new(
                Renderer::List {
                    elements,
                    display_context: false,
                },
                current,
                change.replace_paths.matches(),
            )
        }
        ObjectNesting::Set => {
            let single = single_nested(nested);
            let mut current = change.default_action_for_iteration();
            let mut elements = Vec::new();
            process_set(change, |value| {
                let d = compute_diff_for_nested(&value, &single);
                current = compare_actions(current, d.action);
                elements.push(d);
            });
            Diff::new(
                Renderer::Set {
                    elements,
                    override_forces_replacement: true,
                },
                current,
                change.replace_paths.matches(),
            )
        }
    }
}

fn single_nested(nested: &NestedAttributes) -> NestedAttributes {
    NestedAttributes {
        nesting: ObjectNesting::Single,
        attributes: nested.attributes.clone(),
    }
}

fn nested_object(change: &Change, attributes: &BTreeMap<String, Attribute>) -> Diff {
    let (diffs, action) = process_object(change, attributes, |value, attr, parent| {
        compute_diff_for_attribute(value, attr, parent)
    });
    Diff::new(
        Renderer::Object {
            attributes: diffs,
            override_null_suffix: false,
        },
        action,
        change.replace_paths.matches(),
    )
}

fn process_object<T>(
    change: &Change,
    attributes: &BTreeMap<String, T>,
    compute: impl Fn(&Change, &T, Action) -> Diff,
) -> (BTreeMap<String, Diff>, Action) {
    let mut diffs = BTreeMap::new();
    let initial = change.default_action_for_iteration();
    let mut current = initial;
    for (key, attr) in attributes {
        let mut value = change.map_child(key);
        if !value.relevant.matches_partial() {
            value = value.as_no_op();
        }
        value.before_explicit = false;
        value.after_explicit = false;
        let d = compute(&value, attr, initial);
        if d.action == Action::NoOp && value.before.is_null() && value.after.is_null() {
            continue;
        }
        current = compare_actions(current, d.action);
        diffs.insert(key.clone(), d);
    }
    (diffs, current)
}

pub(crate) fn compute_diff_for_type(change: &Change, ty: &Type) -> Diff {
    if let Some(d) = check_for_sensitive(
        change,
        |c| compute_diff_for_type(c, ty),
        sensitive_wrapper(change.replace_paths.matches()),
    ) {
        return d;
    }
    if let Some(d) = check_for_unknown(change, J::Bool(false), |c| compute_diff_for_type(c, ty)) {
        return d;
    }
    match ty {
        Type::Dynamic => compute_diff_for_output(change),
        Type::Bool => as_diff(change, primitive(change, Prim::Bool)),
        Type::Number => as_diff(change, primitive(change, Prim::Number)),
        Type::String => as_diff(change, primitive(change, Prim::String)),
        Type::Object(ot) => {
            let (diffs, action) = process_object(change, &ot.attributes, |value, t, _| {
                compute_diff_for_type(value, t)
            });
            Diff::new(
                Renderer::Object {
                    attributes: diffs,
                    override_null_suffix: true,
                },
                action,
                change.replace_paths.matches(),
            )
        }
        Type::Map(ety) => {
            let (elements, action) = transform_map(change, change.all_keys(), |key| {
                let mut value = change.map_child(key);
                if !value.relevant.matches_partial() {
                    value = value.as_no_op();
                }
                compute_diff_for_type(&value, ety)
            });
            Diff::new(
                Renderer::Map {
                    elements,
                    override_null_suffix: false,
                    override_forces_replacement: false,
                    align_keys: true,
                },
                action,
                change.replace_paths.matches(),
            )
        }
        Type::List(ety) => {
            let before = change.before.as_array().unwrap_or_default();
            let after = change.after.as_array().unwrap_or_default();
            let object_elements = ety.is_object();
            let (elements, action) = transform_slice(
                change,
                before,
                after,
                |bi, ai| {
                    let mut value = change.slice_child(bi, ai);
                    value.relevant = Matcher::Always;
                    compute_diff_for_type(&value, ety)
                },
                |_, _| object_elements,
            );
            Diff::new(
                Renderer::List {
                    elements,
                    display_context: true,
                },
                action,
                change.replace_paths.matches(),
            )
        }
        Type::Tuple(etys) => {
            let mut current = change.default_action_for_iteration();
            let mut elements = Vec::new();
            for (ix, ety) in etys.iter().enumerate() {
                let mut value = change.slice_child(ix, ix);
                if !value.relevant.matches_partial() {
                    value = value.as_no_op();
                }
                let d = compute_diff_for_type(&value, ety);
                current = compare_actions(current, d.action);
                elements.push(d);
            }
            Diff::new(
                Renderer::List {
                    elements,
                    display_context: true,
                },
                current,
                change.replace_paths.matches(),
            )
        }
        Type::Set(ety) => {
            let mut current = change.default_action_for_iteration();
            let mut elements = Vec::new();
            process_set(change, |value| {
                let d = compute_diff_for_type(&value, ety);
                current = compare_actions(current, d.action);
                elements.push(d);
            });
            Diff::new(
                Renderer::Set {
                    elements,
                    override_forces_replacement: false,
                },
                current,
                change.replace_paths.matches(),
            )
        }
    }
}

fn primitive(change: &Change, prim: Prim) -> Renderer {
    Renderer::Primitive {
        before: change.before.clone(),
        after: change.after.clone(),
        prim,
    }
}

/// Outputs and dynamic values: their JSON shape decides.
pub(crate) fn compute_diff_for_output(change: &Change) -> Diff {
    if let Some(d) = check_for_sensitive(
        change,
        |c| compute_diff_for_type(c, &Type::Dynamic),
        sensitive_wrapper(change.replace_paths.matches()),
    ) {
        return d;
    }
    if let Some(d) = check_for_unknown(change, J::Bool(false), |c| {
        compute_diff_for_type(c, &Type::Dynamic)
    }) {
        return d;
    }
    json_transform(change)
}

// ----- collections -----

fn transform_map(
    change: &Change,
    keys: Vec<String>,
    mut process: impl FnMut(&str) -> Diff,
) -> (BTreeMap<String, Diff>, Action) {
    let before = change.before.as_object();
    let after = change.after.as_object();
    let mut current = match (before.is_some(), after.is_some()) {
        (true, false) => Action::Delete,
        (false, true) => Action::Create,
        _ => Action::NoOp,
    };
    let mut elements = BTreeMap::new();
    for key in keys {
        let d = process(&key);
        current = compare_actions(current, d.action);
        elements.insert(key, d);
    }
    (elements, current)
}

fn transform_slice(
    change: &Change,
    before: &[J],
    after: &[J],
    mut process: impl FnMut(usize, usize) -> Diff,
    should_diff: impl Fn(&J, &J) -> bool,
) -> (Vec<Diff>, Action) {
    let mut current = match (
        change.before.as_array().is_some(),
        change.after.as_array().is_some(),
    ) {
        (true, false) => Action::Delete,
        (false, true) => Action::Create,
        _ => Action::NoOp,
    };
    let mut elements = Vec::new();
    let mut visit = |bi: usize, ai: usize| {
        let d = process(bi, ai);
        current = compare_actions(current, d.action);
        elements.push(d);
    };
    // Terraform shows a list that kept its length but lost an element as
    // element-by-element updates; reorderings and length changes are
    // aligned on the longest common subsequence.
    if before.len() == after.len() && before.iter().any(|b| !after.contains(b)) {
        for i in 0..before.len() {
            visit(i, i);
        }
    } else {
        process_slice(before, after, visit, should_diff);
    }
    (elements, current)
}

/// Walks two sequences along their longest common subsequence, calling
/// `process(before_ix, after_ix)`, where an index equal to the other
/// sequence's length means "absent on that side": elements of before
/// outside the subsequence are deletions (or, when `should_diff` pairs
/// them with the next after element that is outside it too, updates),
/// then elements of after outside it are creations, then the common
/// element.
pub(crate) fn process_slice<T: PartialEq>(
    before: &[T],
    after: &[T],
    mut process: impl FnMut(usize, usize),
    should_diff: impl Fn(&T, &T) -> bool,
) {
    let lcs = longest_common_subsequence(before, after);
    let (mut bi, mut ai, mut li) = (0, 0, 0);
    while bi < before.len() || ai < after.len() || li < lcs.len() {
        while bi < before.len() && (li >= lcs.len() || before[bi] != *lcs[li]) {
            let pair = ai < after.len()
                && should_diff(&before[bi], &after[ai])
                && (li >= lcs.len() || after[ai] != *lcs[li]);
            if pair {
                process(bi, ai);
                bi += 1;
                ai += 1;
                continue;
            }
            process(bi, after.len());
            bi += 1;
        }
        while ai < after.len() && (li >= lcs.len() || after[ai] != *lcs[li]) {
            process(before.len(), ai);
            ai += 1;
        }
        if li < lcs.len() {
            process(bi, ai);
            bi += 1;
            ai += 1;
            li += 1;
        }
    }
}

/// objchange's `LongestCommonSubsequence`, with its tie-breaking (prefer
/// moving up over moving left), which decides how edits are displayed.
fn longest_common_subsequence<'a, T: PartialEq>(xs: &'a [T], ys: &[T]) -> Vec<&'a T> {
    if xs.is_empty() || ys.is_empty() {
        return Vec::new();
    }
    let w = xs.len();
    let mut c = vec![0usize; xs.len() * ys.len()];
    let mut eqs = vec![false; xs.len() * ys.len()];
    for y in 0..ys.len() {
        for x in 0..xs.len() {
            let i = w * y + x;
            if xs[x] == ys[y] {
                eqs[i] = true;
                c[i] = if x == 0 || y == 0 {
                    1
                } else {
                    c[w * (y - 1) + (x - 1)] + 1
                };
            } else {
                let l = if x > 0 { c[w * y + (x - 1)] } else { 0 };
                let u = if y > 0 { c[w * (y - 1) + x] } else { 0 };
                c[i] = l.max(u);
            }
        }
    }
    let len = c[c.len() - 1];
    let mut seq: Vec<&T> = Vec::with_capacity(len);
    let (mut x, mut y) = (xs.len() as isize - 1, ys.len() as isize - 1);
    while x > -1 && y > -1 && seq.len() < len {
        let (ux, uy) = (x as usize, y as usize);
        if eqs[w * uy + ux] {
            seq.push(&xs[ux]);
            x -= 1;
            y -= 1;
        } else {
            let l = if ux > 0 { c[w * uy + (ux - 1)] } else { 0 };
            let u = if uy > 0 { c[w * (uy - 1) + ux] } else { 0 };
            if l > u {
                x -= 1;
            } else {
                y -= 1;
            }
        }
    }
    seq.reverse();
    seq
}

/// Pairs each before element with an equal after element where one
/// exists; unpaired before elements are deletions, unpaired after ones
/// creations. Every element of a relevant set is relevant.
fn process_set(change: &Change, mut process: impl FnMut(Change)) {
    let before_len = change.before_len();
    let after_len = change.after_len();
    let mut found_in_before: Vec<Option<usize>> = vec![None; before_len];
    let mut found_in_after: Vec<bool> = vec![false; after_len];
    for (ix, found) in found_in_before.iter_mut().enumerate() {
        for (jx, claimed) in found_in_after.iter_mut().enumerate() {
            if *claimed {
                continue;
            }
            let child = change.slice_child(ix, jx);
            if child.before == child.after
                && child.is_before_sensitive() == child.is_after_sensitive()
                && !child.is_unknown()
            {
                // Terraform keeps scanning: a later match wins the pairing
                // while the earlier one stays claimed.
                *found = Some(jx);
                *claimed = true;
            }
        }
    }
    let relevant = |mut c: Change| {
        c.relevant = Matcher::Always;
        c
    };
    for (ix, found) in found_in_before.iter().enumerate() {
        match found {
            Some(jx) => process(relevant(change.slice_child(ix, *jx))),
            None => process(relevant(change.slice_child(ix, after_len))),
        }
    }
    for (jx, found) in found_in_after.iter().enumerate() {
        if !found {
            process(relevant(change.slice_child(before_len, jx)));
        }
    }
}

// ----- JSON-shaped values -----

#[derive(Clone, Copy, PartialEq, Eq)]
enum JType {
    Null,
    Bool,
    Number,
    String,
    Object,
    Array,
}

fn json_type(j: &J) -> JType {
    match j {
        J::Null => JType::Null,
        J::Bool(_) => JType::Bool,
        J::Number(_) => JType::Number,
        J::String(_) => JType::String,
        J::Object(_) => JType::Object,
        J::Array(_) => JType::Array,
    }
}

/// `jsondiff.Transform` with the renderer's callbacks.
pub(crate) fn json_transform(change: &Change) -> Diff {
    if let Some(d) = check_for_sensitive(change, json_transform, |inner, b, a, action| {
        Diff::new(
            Renderer::Sensitive {
                inner: Box::new(inner),
                before_sensitive: b,
                after_sensitive: a,
            },
            action,
            false,
        )
    }) {
        return d;
    }
    if change.is_unknown() {
        let mut current = change.clone();
        current.after_explicit = true;
        if current.before.is_null() {
            return Diff::new(Renderer::Unknown { before: None }, Action::Create, false);
        }
        let mut before = current.as_delete();
        before.unknown = J::Bool(false);
        return Diff::new(
            Renderer::Unknown {
                before: Some(Box::new(json_transform(&before))),
            },
            Action::Update,
            false,
        );
    }
    let before_type = json_type(&change.before);
    let after_type = json_type(&change.after);
    let deleted = after_type == JType::Null && !change.after_explicit;
    let created = before_type == JType::Null && !change.before_explicit;
    if before_type == after_type || created || deleted {
        let target = if before_type == JType::Null {
            after_type
        } else {
            before_type
        };
        return json_update(change, target);
    }
    let b = json_update(&change.as_delete(), before_type);
    let a = json_update(&change.as_create(), after_type);
    Diff::new(
        Renderer::TypeChange {
            before: Box::new(b),
            after: Box::new(a),
        },
        Action::Update,
        false,
    )
}

fn json_update(change: &Change, jtype: JType) -> Diff {
    match jtype {
        JType::Null => json_primitive(change, Prim::Nil),
        JType::Bool => json_primitive(change, Prim::Bool),
        JType::Number => json_primitive(change, Prim::Number),
        JType::String => json_primitive(change, Prim::String),
        JType::Object => {
            let (elements, action) = transform_map(change, change.all_keys(), |key| {
                let mut child = change.map_child(key);
                if !child.relevant.matches_partial() {
                    child = child.as_no_op();
                }
                json_transform(&child)
            });
            Diff::new(
                Renderer::Object {
                    attributes: elements,
                    override_null_suffix: true,
                },
                action,
                false,
            )
        }
        JType::Array => {
            let before = change.before.as_array().unwrap_or_default();
            let after = change.after.as_array().unwrap_or_default();
            let (elements, action) = transform_slice(
                change,
                before,
                after,
                |bi, ai| json_transform(&change.slice_child(bi, ai)),
                |a, b| json_type(a) == JType::Object && json_type(b) == JType::Object,
            );
            Diff::new(
                Renderer::List {
                    elements,
                    display_context: true,
                },
                action,
                false,
            )
        }
    }
}

fn json_primitive(change: &Change, prim: Prim) -> Diff {
    let before_missing = change.before.is_null() && !change.before_explicit;
    let after_missing = change.after.is_null() && !change.after_explicit;
    let action = if before_missing && !after_missing {
        Action::Create
    } else if !before_missing && after_missing {
        Action::Delete
    } else if change.before == change.after {
        Action::NoOp
    } else {
        Action::Update
    };
    Diff::new(primitive(change, prim), action, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcs_prefers_the_tie_break_terraform_uses() {
        let cases: [(&str, &str, &str); 5] = [
            ("abcdefg", "abXdefgh", "abdefg"),
            ("", "abc", ""),
            ("abc", "abc", "abc"),
            ("ab", "ba", "b"),
            ("xaby", "abxy", "aby"),
        ];
        for (x, y, want) in cases {
            let xs: Vec<char> = x.chars().collect();
            let ys: Vec<char> = y.chars().collect();
            let got: String = longest_common_subsequence(&xs, &ys).into_iter().collect();
            assert_eq!(got, want, "{x} {y}");
        }
    }

    #[test]
    fn slices_pair_along_the_lcs() {
        let before: Vec<char> = "abcdefg".chars().collect();
        let after: Vec<char> = "abXdefgh".chars().collect();
        let mut steps = Vec::new();
        process_slice(&before, &after, |b, a| steps.push((b, a)), |_, _| false);
        assert_eq!(
            steps,
            vec![
                (0, 0),
                (1, 1),
                (2, 8),
                (7, 2),
                (3, 3),
                (4, 4),
                (5, 5),
                (6, 6),
                (7, 7)
            ]
        );
    }
}
