//! One value's change as the renderer walks it: before and after as JSON,
//! which parts of after are unknown, which parts of either are sensitive,
//! and which paths force replacement or are relevant (Terraform's
//! `structured.Change` and `attribute_path.Matcher`). Children are reached
//! by key or index, with "explicit" recording whether the key was present
//! at all (a present null differs from an absent attribute).

use crate::jsonval::J;
use crate::model::Action;
use std::sync::Arc;

/// Paths into a value, stepping down with the value.
#[derive(Clone, Debug)]
pub(crate) enum Matcher {
    /// Matches everything.
    Always,
    Paths {
        paths: Arc<Vec<Vec<J>>>,
        /// A match also matches everything below it.
        propagate: bool,
    },
}

impl Matcher {
    pub(crate) fn empty(propagate: bool) -> Matcher {
        Matcher::Paths {
            paths: Arc::new(Vec::new()),
            propagate,
        }
    }

    pub(crate) fn from_paths(paths: Vec<Vec<J>>, propagate: bool) -> Matcher {
        Matcher::Paths {
            paths: Arc::new(paths),
            propagate,
        }
    }

    /// A path ends here.
    pub(crate) fn matches(&self) -> bool {
        match self {
            Matcher::Always => true,
            Matcher::Paths { paths, .. } => paths.iter().any(Vec::is_empty),
        }
    }

    /// Some path passes through here.
    pub(crate) fn matches_partial(&self) -> bool {
        match self {
            Matcher::Always => true,
            Matcher::Paths { paths, .. } => !paths.is_empty(),
        }
    }

    fn child(&self, step_matches: impl Fn(&J) -> bool) -> Matcher {
        match self {
            Matcher::Always => Matcher::Always,
            Matcher::Paths { paths, propagate } => {
                let mut out = Vec::new();
                for path in paths.iter() {
                    match path.split_first() {
                        None => {
                            if *propagate {
                                out.push(Vec::new());
                            }
                        }
                        Some((first, rest)) => {
                            if step_matches(first) {
                                out.push(rest.to_vec());
                            }
                        }
                    }
                }
                Matcher::from_paths(out, *propagate)
            }
        }
    }

    pub(crate) fn child_key(&self, key: &str) -> Matcher {
        self.child(|step| step.as_str() == Some(key))
    }

    /// Index steps may be numbers or numeric strings; Go truncates both
    /// to an int before comparing.
    pub(crate) fn child_index(&self, index: usize) -> Matcher {
        self.child(|step| {
            let text = match step {
                J::Number(n) => n.to_string(),
                J::String(s) => s.to_string(),
                _ => return false,
            };
            match text.trim().parse::<f64>() {
                Ok(f) if f.is_finite() => f.trunc() == index as f64,
                _ => false,
            }
        })
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Change {
    pub(crate) before_explicit: bool,
    pub(crate) after_explicit: bool,
    pub(crate) before: J,
    pub(crate) after: J,
    pub(crate) unknown: J,
    pub(crate) before_sensitive: J,
    pub(crate) after_sensitive: J,
    pub(crate) replace_paths: Matcher,
    pub(crate) relevant: Matcher,
}

impl Change {
    pub(crate) fn is_unknown(&self) -> bool {
        self.unknown.as_bool() == Some(true)
    }

    pub(crate) fn is_before_sensitive(&self) -> bool {
        self.before_sensitive.as_bool() == Some(true)
    }

    pub(crate) fn is_after_sensitive(&self) -> bool {
        self.after_sensitive.as_bool() == Some(true)
    }

    /// `CalculateAction`: create or delete when one side is absent, no-op
    /// when both sides agree, else update.
    pub(crate) fn calculate_action(&self) -> Action {
        let before_absent = self.before.is_null() && !self.before_explicit;
        let after_absent = self.after.is_null() && !self.after_explicit;
        if before_absent && (!self.after.is_null() || self.after_explicit) {
            return Action::Create;
        }
        if after_absent && (!self.before.is_null() || self.before_explicit) {
            return Action::Delete;
        }
        if self.before == self.after
            && self.after_explicit == self.before_explicit
            && self.is_after_sensitive() == self.is_before_sensitive()
        {
            return Action::NoOp;
        }
        Action::Update
    }

    /// `GetDefaultActionForIteration`: the starting action for collections,
    /// refined by their children.
    pub(crate) fn default_action_for_iteration(&self) -> Action {
        match (self.before.is_null(), self.after.is_null()) {
            (true, true) => Action::NoOp,
            (true, false) => Action::Create,
            (false, true) => Action::Delete,
            (false, false) => Action::NoOp,
        }
    }

    pub(crate) fn as_no_op(&self) -> Change {
        Change {
            before_explicit: self.before_explicit,
            after_explicit: self.before_explicit,
            before: self.before.clone(),
            after: self.before.clone(),
            unknown: J::Bool(false),
            before_sensitive: self.before_sensitive.clone(),
            after_sensitive: self.before_sensitive.clone(),
            replace_paths: self.replace_paths.clone(),
            relevant: self.relevant.clone(),
        }
    }

    pub(crate) fn as_delete(&self) -> Change {
        Change {
            before_explicit: self.before_explicit,
            after_explicit: false,
            before: self.before.clone(),
            after: J::Null,
            unknown: J::Null,
            before_sensitive: self.before_sensitive.clone(),
            after_sensitive: J::Null,
            replace_paths: self.replace_paths.clone(),
            relevant: self.relevant.clone(),
        }
    }

    pub(crate) fn as_create(&self) -> Change {
        Change {
            before_explicit: false,
            after_explicit: self.after_explicit,
            before: J::Null,
            after: self.after.clone(),
            unknown: self.unknown.clone(),
            before_sensitive: J::Null,
            after_sensitive: self.after_sensitive.clone(),
            replace_paths: self.replace_paths.clone(),
            relevant: self.relevant.clone(),
        }
    }

    /// The child under `key` when this is a map or object.
    pub(crate) fn map_child(&self, key: &str) -> Change {
        let get = |j: &J| j.as_object().and_then(|o| o.get(key)).cloned();
        let before = get(&self.before);
        let after = get(&self.after);
        Change {
            before_explicit: before.is_some(),
            after_explicit: after.is_some(),
            before: before.unwrap_or(J::Null),
            after: after.unwrap_or(J::Null),
            unknown: get(&self.unknown).unwrap_or(J::Null),
            before_sensitive: get(&self.before_sensitive).unwrap_or(J::Null),
            after_sensitive: get(&self.after_sensitive).unwrap_or(J::Null),
            replace_paths: self.replace_paths.child_key(key),
            relevant: self.relevant.child_key(key),
        }
    }

    /// The child pairing element `before_ix` of before with `after_ix` of
    /// after when this is a sequence; an index out of range means that
    /// side is absent.
    pub(crate) fn slice_child(&self, before_ix: usize, after_ix: usize) -> Change {
        let get = |j: &J, ix: usize| j.as_array().and_then(|a| a.get(ix)).cloned();
        let before = get(&self.before, before_ix);
        let after = get(&self.after, after_ix);
        let before_len = self.before.as_array().map_or(0, <[J]>::len);
        let most_relevant = if before_ix >= before_len {
            after_ix
        } else {
            before_ix
        };
        Change {
            before_explicit: before.is_some(),
            after_explicit: after.is_some(),
            before: before.unwrap_or(J::Null),
            after: after.unwrap_or(J::Null),
            unknown: get(&self.unknown, after_ix).unwrap_or(J::Null),
            before_sensitive: get(&self.before_sensitive, before_ix).unwrap_or(J::Null),
            after_sensitive: get(&self.after_sensitive, after_ix).unwrap_or(J::Null),
            replace_paths: self.replace_paths.child_index(most_relevant),
            relevant: self.relevant.child_index(most_relevant),
        }
    }

    /// Keys present in before or after, sorted.
    pub(crate) fn explicit_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for j in [&self.before, &self.after] {
            if let Some(o) = j.as_object() {
                keys.extend(o.keys().cloned());
            }
        }
        keys.sort();
        keys.dedup();
        keys
    }

    /// Keys present anywhere, including the unknown and sensitive shapes.
    pub(crate) fn all_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for j in [
            &self.before,
            &self.after,
            &self.unknown,
            &self.after_sensitive,
            &self.before_sensitive,
        ] {
            if let Some(o) = j.as_object() {
                keys.extend(o.keys().cloned());
            }
        }
        keys.sort();
        keys.dedup();
        keys
    }

    pub(crate) fn before_len(&self) -> usize {
        self.before.as_array().map_or(0, <[J]>::len)
    }

    pub(crate) fn after_len(&self) -> usize {
        self.after.as_array().map_or(0, <[J]>::len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(text: &str) -> J {
        J::parse(text).unwrap_or(J::Null)
    }

    #[test]
    fn matcher_steps() {
        let m = Matcher::from_paths(vec![vec![j("\"a\""), j("0")], vec![j("\"b\"")]], false);
        assert!(!m.matches());
        assert!(m.matches_partial());
        assert!(m.child_key("b").matches());
        assert!(!m.child_key("b").child_key("x").matches_partial());
        assert!(m.child_key("a").child_index(0).matches());
        assert!(!m.child_key("a").child_index(1).matches_partial());
        let p = Matcher::from_paths(vec![vec![j("\"b\"")]], true);
        assert!(p.child_key("b").child_index(3).matches());
        let s = Matcher::from_paths(vec![vec![j("\"2\"")]], false);
        assert!(s.child_index(2).matches());
    }

    #[test]
    fn actions() {
        let c = |b: &str, a: &str, be: bool, ae: bool| Change {
            before_explicit: be,
            after_explicit: ae,
            before: j(b),
            after: j(a),
            unknown: J::Null,
            before_sensitive: J::Null,
            after_sensitive: J::Null,
            replace_paths: Matcher::empty(false),
            relevant: Matcher::Always,
        };
        assert_eq!(
            c("null", "1", false, true).calculate_action(),
            Action::Create
        );
        assert_eq!(
            c("1", "null", true, false).calculate_action(),
            Action::Delete
        );
        assert_eq!(c("1", "1", true, true).calculate_action(), Action::NoOp);
        assert_eq!(
            c("1", "null", true, true).calculate_action(),
            Action::Update
        );
    }
}
