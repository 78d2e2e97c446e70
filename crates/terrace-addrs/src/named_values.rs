//! Named values of a module: input variables (`var.x`), local values
//! (`local.x`) and output values (`output.x`), alone and placed in a module
//! instance.

use crate::module::ModuleInstance;
use crate::parse::{self, Ranges};
use std::fmt;
use std::sync::Arc;
use terrace_syntax::ast::{SourceFile, Traversal};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::Diagnostics;

/// Writes `MODULE.rest`, or `rest` in the root module.
fn in_module(
    f: &mut fmt::Formatter<'_>,
    module: &ModuleInstance,
    rest: &dyn fmt::Display,
) -> fmt::Result {
    if module.is_root() {
        write!(f, "{rest}")
    } else {
        write!(f, "{module}.{rest}")
    }
}

/// A `variable` block, relative to its module.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InputVariable {
    pub name: Arc<str>,
}

impl InputVariable {
    pub fn new(name: impl Into<Arc<str>>) -> InputVariable {
        InputVariable { name: name.into() }
    }

    pub fn absolute(&self, module: ModuleInstance) -> AbsInputVariableInstance {
        AbsInputVariableInstance {
            module,
            variable: self.clone(),
        }
    }
}

/// `var.NAME`.
impl fmt::Display for InputVariable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "var.{}", self.name)
    }
}

/// An input variable of one module instance.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AbsInputVariableInstance {
    pub module: ModuleInstance,
    pub variable: InputVariable,
}

/// `module.a[0].var.NAME`.
impl fmt::Display for AbsInputVariableInstance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        in_module(f, &self.module, &self.variable)
    }
}

/// A local value, relative to its module.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalValue {
    pub name: Arc<str>,
}

impl LocalValue {
    pub fn new(name: impl Into<Arc<str>>) -> LocalValue {
        LocalValue { name: name.into() }
    }

    pub fn absolute(&self, module: ModuleInstance) -> AbsLocalValue {
        AbsLocalValue {
            module,
            local: self.clone(),
        }
    }
}

/// `local.NAME`.
impl fmt::Display for LocalValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "local.{}", self.name)
    }
}

/// A local value of one module instance.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AbsLocalValue {
    pub module: ModuleInstance,
    pub local: LocalValue,
}

/// `module.a[0].local.NAME`.
impl fmt::Display for AbsLocalValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        in_module(f, &self.module, &self.local)
    }
}

/// An `output` block, relative to its module.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OutputValue {
    pub name: Arc<str>,
}

impl OutputValue {
    pub fn new(name: impl Into<Arc<str>>) -> OutputValue {
        OutputValue { name: name.into() }
    }

    pub fn absolute(&self, module: ModuleInstance) -> AbsOutputValue {
        AbsOutputValue {
            module,
            output: self.clone(),
        }
    }
}

/// `output.NAME`.
impl fmt::Display for OutputValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "output.{}", self.name)
    }
}

/// An output value of one module instance.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AbsOutputValue {
    pub module: ModuleInstance,
    pub output: OutputValue,
}

impl AbsOutputValue {
    /// How the calling module refers to this output: the calling instance
    /// and `module.NAME[KEY].OUTPUT`; none for a root module output.
    pub fn module_call_output(
        &self,
    ) -> Option<(ModuleInstance, crate::module::ModuleCallInstanceOutput)> {
        let (caller, call) = self.module.call_instance()?;
        Some((caller, call.output(self.output.name.clone())))
    }

    /// OpenTofu's `ParseAbsOutputValue`: `[module path.]output.NAME`.
    pub fn parse(traversal: &Traversal, file: &SourceFile) -> Result<AbsOutputValue, Diagnostics> {
        let ranges = Ranges { file };
        let steps = parse::steps(traversal);
        let (module, remain, diags) = parse::module_instance_prefix(&steps, &ranges);
        if has_errors(&diags) {
            return Err(diags);
        }
        if remain.len() != 2 {
            return Err(vec![ranges.error(
                "Invalid address",
                "An output name is required.",
                ranges.steps(&steps),
            )]);
        }
        if parse::root_name(remain) != "output" {
            return Err(vec![ranges.error(
                "Invalid address",
                "Output address must start with \"output.\".",
                Some(ranges.span(remain[0].span())),
            )]);
        }
        match remain[1].name() {
            Some(name) => Ok(AbsOutputValue {
                module,
                output: OutputValue::new(name),
            }),
            None => Err(vec![ranges.error(
                "Invalid address",
                "An output name is required.",
                Some(ranges.span(remain[1].span())),
            )]),
        }
    }

    /// OpenTofu's `ParseAbsOutputValueStr`.
    pub fn parse_str(s: &str) -> Result<AbsOutputValue, Diagnostics> {
        parse::parse_str(s, AbsOutputValue::parse)
    }
}

/// `module.a[0].output.NAME`.
impl fmt::Display for AbsOutputValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        in_module(f, &self.module, &self.output)
    }
}

impl std::str::FromStr for AbsOutputValue {
    type Err = Diagnostics;

    fn from_str(s: &str) -> Result<AbsOutputValue, Diagnostics> {
        AbsOutputValue::parse_str(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::InstanceKey;

    #[test]
    fn display() {
        let foo = ModuleInstance::root().child("foo", InstanceKey::None);
        let foobar = ModuleInstance::root()
            .child("foo", InstanceKey::Int(1))
            .child("bar", InstanceKey::None);
        let rows: Vec<(String, &str)> = vec![
            (InputVariable::new("x").to_string(), "var.x"),
            (LocalValue::new("x").to_string(), "local.x"),
            (OutputValue::new("x").to_string(), "output.x"),
            (
                InputVariable::new("x")
                    .absolute(ModuleInstance::root())
                    .to_string(),
                "var.x",
            ),
            (
                InputVariable::new("x").absolute(foobar.clone()).to_string(),
                "module.foo[1].module.bar.var.x",
            ),
            (
                LocalValue::new("y").absolute(foo.clone()).to_string(),
                "module.foo.local.y",
            ),
            (
                OutputValue::new("a").absolute(foo.clone()).to_string(),
                "module.foo.output.a",
            ),
            (
                OutputValue::new("b").absolute(foobar.clone()).to_string(),
                "module.foo[1].module.bar.output.b",
            ),
        ];
        for (got, want) in rows {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn parse_abs_output_value() {
        // OpenTofu's TestParseAbsOutputValueStr.
        let ok: &[(&str, &str)] = &[
            ("output.boop", "output.boop"),
            ("module.foo.output.beep", "module.foo.output.beep"),
            (
                r#"module.foo["k"].output.beep"#,
                r#"module.foo["k"].output.beep"#,
            ),
        ];
        for (input, want) in ok {
            let got = AbsOutputValue::parse_str(input).map(|a| a.to_string());
            assert_eq!(got.as_deref(), Ok(*want), "{input}");
        }
        let bad: &[(&str, &str)] = &[
            ("module.foo", "An output name is required."),
            ("module.foo.output", "An output name is required."),
            (
                "module.foo.boop.beep",
                "Output address must start with \"output.\".",
            ),
            ("module.foo.output[0]", "An output name is required."),
            ("output", "An output name is required."),
            ("output[0]", "An output name is required."),
        ];
        for (input, want) in bad {
            let diags = AbsOutputValue::parse_str(input).err().unwrap_or_default();
            let details: Vec<(&str, &str)> = diags
                .iter()
                .map(|d| (d.summary.as_str(), d.detail.as_str()))
                .collect();
            assert_eq!(details, vec![("Invalid address", *want)], "{input}");
        }
    }

    #[test]
    fn module_call_output() {
        let addr = AbsOutputValue::parse_str(r#"module.a.module.b["k"].output.o"#);
        let Some((caller, call)) = addr.ok().and_then(|a| a.module_call_output()) else {
            panic!("module.a.module.b[\"k\"].output.o has a call output");
        };
        assert_eq!(caller.to_string(), "module.a");
        assert_eq!(call.to_string(), r#"module.b["k"].o"#);
        assert_eq!(
            call.abs_output_value(&caller).to_string(),
            r#"module.a.module.b["k"].output.o"#
        );
        let root = AbsOutputValue::parse_str("output.o").ok();
        assert_eq!(root.and_then(|a| a.module_call_output()), None);
    }
}
