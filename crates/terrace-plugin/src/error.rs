//! Why a plugin could not be started or reached. Every error names the
//! provider it is about and, when the plugin printed something before it
//! failed, carries that output, since it is usually the real reason.

use std::fmt;

/// What went wrong, for callers that react differently (and for tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PluginErrorKind {
    /// The executable could not be run at all.
    Spawn,
    /// The plugin's first line on stdout was not a valid go-plugin
    /// handshake, or asked for something terrace does not speak.
    Handshake,
    /// The plugin exited before completing the handshake.
    Exited,
    /// No handshake within the start timeout.
    Timeout,
    /// The handshake was fine but the plugin's address could not be
    /// reached, or TLS with it failed.
    Connect,
    /// `TF_REATTACH_PROVIDERS` could not be understood.
    Reattach,
    /// terrace could not set itself up (certificate generation, runtime).
    Internal,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginError {
    pub kind: PluginErrorKind,
    /// The provider as the user knows it, e.g.
    /// `registry.terraform.io/hashicorp/aws`.
    pub provider: String,
    pub message: String,
    /// What the plugin wrote to stderr (the last lines), if anything.
    pub plugin_output: String,
}

impl PluginError {
    pub(crate) fn new(
        kind: PluginErrorKind,
        provider: &str,
        message: impl Into<String>,
    ) -> PluginError {
        PluginError {
            kind,
            provider: provider.to_string(),
            message: message.into(),
            plugin_output: String::new(),
        }
    }

    pub(crate) fn with_output(mut self, output: String) -> PluginError {
        self.plugin_output = output;
        self
    }
}

impl fmt::Display for PluginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "failed to instantiate provider {:?}: {}",
            self.provider, self.message
        )?;
        if !self.plugin_output.trim().is_empty() {
            write!(
                f,
                "\n\nThe plugin's output:\n{}",
                self.plugin_output.trim_end()
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for PluginError {}
