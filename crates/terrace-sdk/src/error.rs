//! The error type every provider callback returns: one or more diagnostics,
//! each optionally pointing at the attribute it is about, so that Terraform
//! can underline the offending argument in the user's configuration.

use std::fmt;
use terrace_providers::{AttributePath, Diagnostic, Diagnostics};

/// A failed operation, as diagnostics for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    diagnostics: Diagnostics,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with a short summary and a longer explanation.
    pub fn new(summary: impl Into<String>, detail: impl Into<String>) -> Error {
        Diagnostic::error(summary, detail).into()
    }

    /// An error about the top-level attribute `name`.
    pub fn attribute(name: &str, summary: impl Into<String>, detail: impl Into<String>) -> Error {
        Error::at(AttributePath::root().attribute(name), summary, detail)
    }

    /// An error about the attribute at `path`.
    pub fn at(path: AttributePath, summary: impl Into<String>, detail: impl Into<String>) -> Error {
        Diagnostic::error(summary, detail)
            .with_attribute(path)
            .into()
    }

    /// An operation ran past its deadline.
    pub fn timeout(operation: &str, limit: std::time::Duration) -> Error {
        Error::new(
            format!("Timeout while waiting for {operation}"),
            format!(
                "The {operation} operation did not finish within {}. Give it more time with \
                 the resource's `timeouts` block.",
                crate::timeouts::format_duration(limit)
            ),
        )
    }

    /// Terraform asked the provider to stop (the user pressed Ctrl-C).
    pub fn stopped(operation: &str) -> Error {
        Error::new(
            "Operation cancelled",
            format!("The {operation} operation was cancelled because Terraform is stopping."),
        )
    }

    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }

    pub fn into_diagnostics(self) -> Diagnostics {
        self.diagnostics
    }

    /// Adds a further diagnostic, so that one call can report every problem.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}

impl From<Diagnostic> for Error {
    fn from(diagnostic: Diagnostic) -> Error {
        Error {
            diagnostics: diagnostic.into(),
        }
    }
}

impl From<Diagnostics> for Error {
    /// Diagnostics without any error become a generic error, so that an
    /// `Err` always fails the operation.
    fn from(mut diagnostics: Diagnostics) -> Error {
        if !diagnostics.has_errors() {
            diagnostics.push(Diagnostic::error("Operation failed", ""));
        }
        Error { diagnostics }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.diagnostics)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_paths() {
        let error = Error::attribute("length", "Invalid length", "Too short.");
        let diagnostic = &error.diagnostics().0[0];
        assert!(diagnostic.is_error());
        assert_eq!(
            diagnostic.attribute,
            Some(AttributePath::root().attribute("length"))
        );
        assert_eq!(
            error.to_string(),
            "Error: Invalid length (at .length)\n\nToo short."
        );
    }

    #[test]
    fn warnings_alone_still_fail() {
        let error: Error = Diagnostics::from(Diagnostic::warning("W", "")).into();
        assert!(error.diagnostics().has_errors());
        assert_eq!(error.diagnostics().len(), 2);
    }
}
