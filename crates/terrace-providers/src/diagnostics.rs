//! Diagnostics as providers report them: severity, summary, detail and,
//! instead of a source range, an optional path to the attribute they are
//! about. The engine turns the path into a source range when it knows the
//! configuration the value came from.

use std::fmt;
use terrace_value::convert::PathStep as ValuePathStep;
use terrace_value::gostr::quote;
use terrace_value::{Number, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub summary: String,
    pub detail: String,
    /// The attribute the diagnostic is about, relative to the value the
    /// request carried (the configuration, the state, ...).
    pub attribute: Option<AttributePath>,
}

impl Diagnostic {
    pub fn error(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            summary: summary.into(),
            detail: detail.into(),
            attribute: None,
        }
    }

    pub fn warning(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(summary, detail)
        }
    }

    pub fn with_attribute(mut self, path: AttributePath) -> Diagnostic {
        self.attribute = Some(path);
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::Error => "Error",
            Severity::Warning => "Warning",
        };
        write!(f, "{severity}: {}", self.summary)?;
        if let Some(path) = self.attribute.as_ref().filter(|p| !p.is_empty()) {
            write!(f, " (at {path})")?;
        }
        if !self.detail.is_empty() {
            write!(f, "\n\n{}", self.detail)?;
        }
        Ok(())
    }
}

/// An ordered list of diagnostics; one call reports every problem.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn new() -> Diagnostics {
        Diagnostics(Vec::new())
    }

    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }

    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.is_error())
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(diagnostic: Diagnostic) -> Diagnostics {
        Diagnostics(vec![diagnostic])
    }
}

impl From<Vec<Diagnostic>> for Diagnostics {
    fn from(diagnostics: Vec<Diagnostic>) -> Diagnostics {
        Diagnostics(diagnostics)
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, diagnostic) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n\n")?;
            }
            write!(f, "{diagnostic}")?;
        }
        Ok(())
    }
}

/// One step of an attribute path, as the protocol has them: an attribute
/// of an object, or an element of a collection by string key or integer
/// index (set elements have no key a path can name).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathStep {
    Attribute(String),
    Key(String),
    Index(i64),
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AttributePath(pub Vec<PathStep>);

impl AttributePath {
    pub fn root() -> AttributePath {
        AttributePath(Vec::new())
    }

    pub fn attribute(mut self, name: impl Into<String>) -> AttributePath {
        self.0.push(PathStep::Attribute(name.into()));
        self
    }

    pub fn key(mut self, key: impl Into<String>) -> AttributePath {
        self.0.push(PathStep::Key(key.into()));
        self
    }

    pub fn index(mut self, index: i64) -> AttributePath {
        self.0.push(PathStep::Index(index));
        self
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn steps(&self) -> &[PathStep] {
        &self.0
    }

    /// The path as cty path steps, for walking values.
    pub fn to_value_path(&self) -> Vec<ValuePathStep> {
        self.0
            .iter()
            .map(|step| match step {
                PathStep::Attribute(name) => ValuePathStep::Attr(name.clone()),
                PathStep::Key(key) => ValuePathStep::Index(Value::string(key)),
                PathStep::Index(index) => ValuePathStep::Index(Value::int(*index)),
            })
            .collect()
    }

    /// The longest prefix of a cty path that the protocol can express: a
    /// step indexing by anything but a string or a whole number (a set
    /// element) ends it, as in OpenTofu.
    pub fn from_value_path(path: &[ValuePathStep]) -> AttributePath {
        let mut steps = Vec::with_capacity(path.len());
        for step in path {
            match step {
                ValuePathStep::Attr(name) => steps.push(PathStep::Attribute(name.clone())),
                ValuePathStep::Index(key) => {
                    if let Some(s) = key.as_str() {
                        steps.push(PathStep::Key(s.to_string()));
                    } else if let Some(i) = key.as_number().and_then(Number::to_i64) {
                        steps.push(PathStep::Index(i));
                    } else {
                        break;
                    }
                }
            }
        }
        AttributePath(steps)
    }
}

/// Renders like Terraform's traversal syntax: `.tags["Name"][0]`, or the
/// empty string for the root.
impl fmt::Display for AttributePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in &self.0 {
            match step {
                PathStep::Attribute(name) => write!(f, ".{name}")?,
                PathStep::Key(key) => write!(f, "[{}]", quote(key))?,
                PathStep::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_display() {
        let cases = [
            (AttributePath::root(), ""),
            (AttributePath::root().attribute("a"), ".a"),
            (
                AttributePath::root()
                    .attribute("tags")
                    .key("Na\"me")
                    .index(3),
                ".tags[\"Na\\\"me\"][3]",
            ),
        ];
        for (path, want) in cases {
            assert_eq!(path.to_string(), want);
        }
    }

    #[test]
    fn value_path_round_trip_stops_at_set_elements() {
        let path = AttributePath::root().attribute("a").key("k").index(2);
        assert_eq!(AttributePath::from_value_path(&path.to_value_path()), path);
        let mut with_set = path.to_value_path();
        with_set.push(ValuePathStep::Index(Value::bool(true)));
        with_set.push(ValuePathStep::Attr("after".into()));
        assert_eq!(AttributePath::from_value_path(&with_set), path);
    }

    #[test]
    fn diagnostics_errors() {
        let mut diags = Diagnostics::new();
        diags.push(Diagnostic::warning("W", ""));
        assert!(!diags.has_errors());
        diags.push(
            Diagnostic::error("Bad value", "It is bad.")
                .with_attribute(AttributePath::root().attribute("x")),
        );
        assert!(diags.has_errors());
        assert_eq!(diags.errors().count(), 1);
        assert_eq!(
            diags.to_string(),
            "Warning: W\n\nError: Bad value (at .x)\n\nIt is bad."
        );
    }
}
